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
check "emsim clock show reads the manual clock" bash -c "'$emsim' clock show --url http://127.0.0.1:$port | grep -q '(manual clock'"
check "emsim clock advance 1h moves it (EMSIM_URL)" bash -c "EMSIM_URL=http://127.0.0.1:$port '$emsim' clock advance 1h --json | grep -q '\"jobsRun\"'"
check "emsim events show of an unknown event exits 1" bash -c "'$emsim' events show evt_unknown --url http://127.0.0.1:$port >/dev/null 2>&1; [ \$? -eq 1 ]"
check "emsim trigger domain.updated makes the change and prints its event id" bash -c "EMSIM_API_KEY=emsim_test_alice_3f9c2a7b '$emsim' trigger domain.updated --url http://127.0.0.1:$port | grep -q '^evt_.*  domain.updated\$'"
check "emsim trigger of an unknown type exits 1 naming the field" bash -c "'$emsim' trigger domain.exploded --api-key emsim_test_alice_3f9c2a7b --url http://127.0.0.1:$port 2>&1 >/dev/null | grep -q 'type: unknown event type'; [ \${PIPESTATUS[0]} -eq 1 ]"
check "emsim listen without an API key says so and exits 2" bash -c "env -u EMSIM_API_KEY '$emsim' listen --forward-to http://127.0.0.1:9/h 2>&1 >/dev/null | grep -q 'API key is required'; [ \${PIPESTATUS[0]} -eq 2 ]"
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
check "emsim clock show sends EMSIM_ADMIN_TOKEN" bash -c "EMSIM_ADMIN_TOKEN=smoke-token '$emsim' clock show --url http://127.0.0.1:$port | grep -q 'now '"
check "emsim clock show without the token exits 1 (401)" bash -c "env -u EMSIM_ADMIN_TOKEN '$emsim' clock show --url http://127.0.0.1:$port >/dev/null 2>&1; [ \$? -eq 1 ]"
kill -TERM "$pid"; wait "$pid"; pid=""

printf 'accounts:\n  - id: a\n    apiKey: 7\n    user: {id: u, email: e}\n    workspaces: nope\n' >"$tmp/bad.yaml"
"$emsim" serve --port 0 --fixtures "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"; rc=$?
check "bad fixture exits 2" test "$rc" -eq 2
check "bad fixture message names file, line and field" grep -q "bad.yaml:5: accounts\[0\].workspaces: must be a non-empty list" "$tmp/bad.err"

# Logs: one line per request and per delivery attempt at the default level; --log-level warn keeps
# them out; --log-format json makes every line JSON, the ready line on stdout too.
"$emsim" serve --port 0 --clock manual >"$tmp/log.out" 2>"$tmp/log.err" &
pid=$!
for _ in $(seq 1 100); do grep -q 'emsim ready' "$tmp/log.out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/log.out" | head -1 | cut -d: -f2)
curl -s "http://127.0.0.1:$port/v1/workspace/list" -H 'x-auth-service: emsim_test_alice_3f9c2a7b' >/dev/null
sink=$(curl -s -X POST "http://127.0.0.1:$port/_sim/sinks" -H 'content-type: application/json' -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')
curl -s "http://127.0.0.1:$port/v2/webhooks/endpoints" -H 'x-auth-service: emsim_test_alice_3f9c2a7b' \
  -H 'content-type: application/json' -d "{\"url\":\"$sink\",\"enabled_events\":[\"domain.updated\"]}" >/dev/null
curl -s -X POST "http://127.0.0.1:$port/_sim/domains/dom_nw_01/transition" -H 'content-type: application/json' -d '{"status":"CONNECTED"}' >/dev/null
curl -s -X POST "http://127.0.0.1:$port/_sim/clock/advance" -H 'content-type: application/json' -d '{"seconds":0}' >/dev/null
kill -TERM "$pid"; wait "$pid"; pid=""
check "a request is logged: method, path, operation, status, account, duration" grep -qE 'info request .*method=GET path=/v1/workspace/list operationId=workspaces.list status=200 durationMs=[0-9.]+ accountId=acc_alice' "$tmp/log.err"
check "a webhook attempt is logged: event, endpoint, attempt, status, next" grep -qE 'info webhook attempt delivery=dlv_[0-9]+ event=evt_[0-9a-f-]+ type=domain.updated endpoint=[^ ]+ attempt=1 .*status=200 next=none' "$tmp/log.err"

"$emsim" serve --port 0 --log-level warn >"$tmp/warn.out" 2>"$tmp/warn.err" &
pid=$!
for _ in $(seq 1 100); do grep -q 'emsim ready' "$tmp/warn.out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/warn.out" | head -1 | cut -d: -f2)
curl -s "http://127.0.0.1:$port/_sim/health" >/dev/null
kill -TERM "$pid"; wait "$pid"; pid=""
check "--log-level warn: no request lines" bash -c "! grep -q ' request ' '$tmp/warn.err'"

EMSIM_LOG_FORMAT=json "$emsim" serve --port 0 >"$tmp/json.out" 2>"$tmp/json.err" &
pid=$!
for _ in $(seq 1 100); do grep -q 'emsim ready' "$tmp/json.out" 2>/dev/null && break; sleep 0.05; done
port=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$tmp/json.out" 2>/dev/null)
curl -s "http://127.0.0.1:$port/_sim/health" >/dev/null
kill -TERM "$pid"; wait "$pid"; pid=""
check "--log-format json (from EMSIM_LOG_FORMAT): the ready line is JSON with the port" test -n "$port"
check "--log-format json: every stderr line is a JSON object, the request line included" python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines and all(isinstance(l, dict) and "time" in l and "level" in l for l in lines)
assert any(l["msg"] == "request" and l["operationId"] == "sim.health" and l["status"] == 200 for l in lines)' "$tmp/json.err"

echo "cli-smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
