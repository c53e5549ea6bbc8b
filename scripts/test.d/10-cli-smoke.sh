#!/usr/bin/env bash
# The emsim binary as a user runs it: help texts, the ready line on port 0, a real request,
# clean stop on SIGTERM, and a clear refusal of a bad fixture. Prints "N passed, N failed".
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
emsim="$build/emsim"
pass=0 fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null' EXIT

check "emsim --help lists serve" bash -c "'$emsim' --help | grep -q 'emsim serve'"
check "emsim serve --help explains every flag" bash -c "h=\$('$emsim' serve --help); for f in --host --port --fixtures --clock --start-time --seed --log-format --admin-token --max-body-bytes --max-state-bytes --max-connections --idle-timeout-ms --header-timeout-ms; do grep -q -- \"\$f\" <<<\"\$h\" || exit 1; done"
check "unknown flag exits 2" bash -c "'$emsim' serve --bogus 1 >/dev/null 2>&1; [ \$? -eq 2 ]"
check "bad --clock is refused" bash -c "'$emsim' serve --clock sometimes 2>&1 | grep -q 'real or manual'"

"$emsim" serve --port 0 --clock manual --start-time 2026-03-01T00:00:00.000Z --seed 7 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 100); do grep -q 'emsim ready' "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/out" | head -1 | cut -d: -f2)
check "ready line names address, fixture and clock" grep -q "fixtures=.*default.yaml clock=manual now=2026-03-01T00:00:00.000Z seed=7" "$tmp/out"
check "health answers on the printed port" bash -c "curl -sf http://127.0.0.1:$port/_sim/health | grep -q '\"status\":\"ok\"'"
check "curl -X POST without data is answered at once" bash -c "curl -sf -m 5 -X POST http://127.0.0.1:$port/_sim/reset | grep -q '\"status\":\"ok\"'"
check "a body over --max-body-bytes is refused from its Content-Length" bash -c "curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$port/_sim/events -H 'Content-Type: application/json' -H 'Content-Length: 900000000' | grep -q 413"
check "GET /_sim/state masks API keys" bash -c "s=\$(curl -sf http://127.0.0.1:$port/_sim/state); ! grep -q emsim_test_alice <<<\"\$s\" && grep -q '<masked>' <<<\"\$s\""
check "public API answers with the fixture's key" bash -c "curl -sf http://127.0.0.1:$port/v1/workspace/list -H 'x-auth-service: emsim_test_alice_3f9c2a7b' | grep -q ws_northwind"
kill -TERM "$pid"
wait "$pid"; rc=$?
pid=""
check "SIGTERM stops cleanly (exit 0)" test "$rc" -eq 0

# The control plane off loopback: refused without a token (exit 2), guarded with one.
timeout 20 "$emsim" serve --host 0.0.0.0 --port 0 >/dev/null 2>"$tmp/open.err"; rc=$?
check "--host 0.0.0.0 without --admin-token exits 2" test "$rc" -eq 2
check "the refusal names --admin-token" grep -q -- "--admin-token" "$tmp/open.err"
EMSIM_ADMIN_TOKEN=smoke-token "$emsim" serve --port 0 >"$tmp/tok.out" 2>"$tmp/tok.err" &
pid=$!
for _ in $(seq 1 100); do grep -q 'emsim ready' "$tmp/tok.out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/tok.out" | head -1 | cut -d: -f2)
check "with EMSIM_ADMIN_TOKEN, /_sim without it is 401" bash -c "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/_sim/health | grep -q 401"
check "with EMSIM_ADMIN_TOKEN, the bearer token opens /_sim" bash -c "curl -sf http://127.0.0.1:$port/_sim/health -H 'Authorization: Bearer smoke-token' | grep -q ok"
kill -TERM "$pid"; wait "$pid"; pid=""

printf 'accounts:\n  - id: a\n    apiKey: 7\n    user: {id: u, email: e}\n    workspaces: nope\n' >"$tmp/bad.yaml"
"$emsim" serve --port 0 --fixtures "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"; rc=$?
check "bad fixture exits 2" test "$rc" -eq 2
check "bad fixture message names file, line and field" grep -q "bad.yaml:5: accounts\[0\].workspaces: must be a non-empty list" "$tmp/bad.err"

echo "cli-smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
