#!/usr/bin/env bash
# Every scenarios/*.yaml in both clock modes, so a scenario never depends on the mode it runs in:
#   1. each file through `emsim scenario run FILE` on its own fresh in-process emsim (the command
#      QA runs; the clock mode its header says, manual by default); JUnit XML for CI goes to
#      BUILD/scenarios-junit.xml;
#   2. all files through --base-url on a fresh `emsim serve` with default flags (real clock) and
#      on a fresh `emsim serve --clock manual`, the two at once, each file run in that mode
#      (`--clock`); one file also through POST /_sim/scenarios/run on the real-clock emsim;
#   3. scenarios/tests/deliberately_wrong.yaml must FAIL with a clear report;
#   4. each delivery-fault scenario (scenarios/delivery_*.yaml), passed above by its idempotent
#      receiver, must FAIL with `--var receiver=naive`, in both clock modes: the fault it injects
#      makes a difference a receiver can get wrong.
# Nothing is built here. Prints one line per file and mode and ends with "scenarios: N passed, N failed".
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
emsim="$build/emsim"
pass=0 fail=0
# A scratch dir ($tmp), the background emsims to stop on exit ($pids), start_emsim.
# shellcheck source=../lib/start-emsim.sh
source "$root/scripts/lib/start-emsim.sh"

shopt -s nullglob
files=("$root"/scenarios/*.yaml)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL: no scenario files in $root/scenarios"
  fail=$((fail + 1))
fi

# ---- 1. one fresh in-process emsim per file -------------------------------------------------------
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

# ---- 2. a running emsim in each clock mode ---------------------------------------------------------
declare -A port_of run_pid
for mode in real manual; do
  if [ "$mode" = real ]; then flags=(); else flags=(--clock manual); fi
  start_emsim "serve-$mode" "${flags[@]}"
  port_of[$mode]=$port
  if [ -z "$port" ]; then
    fail=$((fail + 1))
    echo "FAIL: emsim serve ${flags[*]} did not start"
    continue
  fi
  "$emsim" scenario run "${files[@]}" --base-url "http://127.0.0.1:${port_of[$mode]}" --clock "$mode" --quiet \
    >"$tmp/remote-$mode" 2>&1 &
  run_pid[$mode]=$!
done
for mode in real manual; do
  [ -n "${run_pid[$mode]:-}" ] || continue
  wait "${run_pid[$mode]}"
  rc=$?
  flags=$([ "$mode" = real ] && echo "default flags, real clock" || echo "--clock manual")
  ok=$(grep -c '^PASSED: ' "$tmp/remote-$mode")
  bad=$(grep -c '^FAILED: ' "$tmp/remote-$mode")
  pass=$((pass + ok))
  fail=$((fail + bad))
  if [ "$rc" -eq 0 ] && [ "$bad" -eq 0 ] && [ "$ok" -eq ${#files[@]} ]; then
    echo "every scenario passed on a running emsim ($flags): $ok files"
  else
    [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && fail=$((fail + 1))  # failed before any file ran
    echo "FAIL: scenarios on a running emsim ($flags): $ok passed, $bad failed (exit $rc)"
    cat "$tmp/remote-$mode"
    tail -20 "$tmp/serve-$mode.err"
  fi
done

if [ -n "${port_of[real]:-}" ]; then
  live=$(curl -s -X POST "http://127.0.0.1:${port_of[real]}/_sim/scenarios/run?name=domain_lifecycle.yaml" \
    -H 'content-type: application/yaml' --data-binary @"$root/scenarios/domain_lifecycle.yaml")
  if grep -q '"passed":true' <<<"$live"; then
    pass=$((pass + 1))
    echo "POST /_sim/scenarios/run passed domain_lifecycle.yaml on the live real-clock emsim"
  else
    fail=$((fail + 1))
    echo "FAIL: POST /_sim/scenarios/run: $live"
  fi
fi

# ---- 3. the deliberately wrong scenario must fail (exit 1, not a parse error) and say exactly what broke.
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

# ---- 4. a naive receiver fails every delivery-fault scenario --------------------------------------
for f in "$root"/scenarios/delivery_*.yaml; do
  for mode in manual real; do
    "$emsim" scenario run "$f" --var receiver=naive --clock "$mode" --quiet >"$tmp/naive" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q '^  FAIL ' "$tmp/naive"; then
      pass=$((pass + 1))
      echo "$(basename "$f") fails with a naive receiver ($mode clock): $(grep -m1 '^  FAIL ' "$tmp/naive" | sed 's/^  //')"
    else
      fail=$((fail + 1))
      echo "FAIL: $(basename "$f") with --var receiver=naive ($mode clock) should fail a step; exit $rc:"
      cat "$tmp/naive"
    fi
  done
done

echo "scenarios: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
