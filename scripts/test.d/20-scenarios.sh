#!/usr/bin/env bash
# Runs every scenarios/*.yaml through `emsim scenario run` (each on a fresh in-process emsim with a
# manual clock), then all of them again on one running emsim (real clock; --base-url and POST
# /_sim/scenarios/run), then checks that the deliberately wrong scenarios/tests/deliberately_wrong.yaml
# FAILS with a clear report. Writes JUnit XML to BUILD/scenarios-junit.xml. Prints "N passed, N failed".
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
emsim="$build/emsim"
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
files=("$root"/scenarios/*.yaml)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL: no scenario files in $root/scenarios"
  fail=$((fail + 1))
fi
for f in "${files[@]}"; do
  if "$emsim" scenario run "$f" --junit "$tmp/$(basename "$f").xml" >"$tmp/out" 2>&1; then
    pass=$((pass + 1))
    grep '^PASSED' "$tmp/out"
  else
    fail=$((fail + 1))
    echo "FAIL: $(basename "$f")"
    cat "$tmp/out"
  fi
done
# One JUnit file for CI: the per-file suites side by side.
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<testsuites name="emsim scenarios">'
  for x in "$tmp"/*.xml; do grep -v '^<?xml\|^<testsuites\|^</testsuites' "$x"; done
  echo '</testsuites>'
} >"$build/scenarios-junit.xml"

# The same files on one running emsim with a real clock (as a QA team would point them at a
# shared instance): through --base-url, and one through POST /_sim/scenarios/run.
"$emsim" serve --port 0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
trap 'rm -rf "$tmp"; kill "$pid" 2>/dev/null' EXIT
for _ in $(seq 1 200); do grep -q 'emsim ready' "$tmp/serve.out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/serve.out" | head -1 | cut -d: -f2)
if [ -n "$port" ] && "$emsim" scenario run "${files[@]}" --base-url "http://127.0.0.1:$port" --quiet >"$tmp/remote" 2>&1; then
  pass=$((pass + 1))
  echo "every scenario passed again on a running real-clock emsim (--base-url)"
else
  fail=$((fail + 1))
  echo "FAIL: scenarios on a running emsim (--base-url)"
  cat "$tmp/remote" "$tmp/serve.err"
fi
live=$(curl -s -X POST "http://127.0.0.1:$port/_sim/scenarios/run?name=domain_lifecycle.yaml" \
  -H 'content-type: application/yaml' --data-binary @"$root/scenarios/domain_lifecycle.yaml")
if grep -q '"passed":true' <<<"$live"; then
  pass=$((pass + 1))
  echo "POST /_sim/scenarios/run passed domain_lifecycle.yaml on the live emsim"
else
  fail=$((fail + 1))
  echo "FAIL: POST /_sim/scenarios/run: $live"
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

# The deliberately wrong scenario must fail (exit 1, not a parse error) and say exactly what broke.
wrong="$root/scenarios/tests/deliberately_wrong.yaml"
"$emsim" scenario run "$wrong" >"$tmp/wrong" 2>&1
rc=$?
if [ "$rc" -eq 1 ] &&
  grep -q '^  FAIL 2 wrong count, wrong status text, wrong id format: GET /v1/domain/list as alice -> 200  (line 13)$' "$tmp/wrong" &&
  grep -q '^           body/data/totalSearchedCount: expected 15, got 14$' "$tmp/wrong" &&
  grep -q '^           body/data/domains/0/status: expected "PENDING", got "ACTIVE"$' "$tmp/wrong" &&
  grep -q '^         request: GET /v1/domain/list$' "$tmp/wrong" &&
  grep -q '^         response: 200$' "$tmp/wrong" &&
  grep -q '^  skip 3 never runs: advance 1h  (line 23)$' "$tmp/wrong"; then
  pass=$((pass + 1))
  echo "deliberately_wrong.yaml failed as it must, with the expected report"
else
  fail=$((fail + 1))
  echo "FAIL: deliberately_wrong.yaml should fail (exit 1) with a clear report; exit $rc:"
  cat "$tmp/wrong"
fi

echo "scenarios: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
