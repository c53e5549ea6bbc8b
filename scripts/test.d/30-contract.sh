#!/usr/bin/env bash
# The contract suite against emsim in both clock modes, each on a freshly started emsim, with
# mutations and spending allowed (nothing in emsim is real):
#   - default flags (real clock) and `--clock manual`, the two suites in parallel;
#   - then the retry-schedule tests (WebhookDelivery.*) 20 times in a row against another fresh
#     default-flags emsim, counting the runs that fail ("flakes"): the promise that the schedule
#     holds on the real clock is only as good as its worst run.
# Extra arguments go to the two full suites (e.g. --gtest_filter=...); EMSIM_RETRY_LOOPS changes
# the 20. Nothing is built here.
# Prints one summary line per run and ends with "contract: N passed, N failed".
set -uo pipefail
build=${1:?build dir}; shift
loops=${EMSIM_RETRY_LOOPS:-20}
pass=0 fail=0
# A scratch dir ($tmp), the background emsims to stop on exit ($pids), start_emsim.
# shellcheck source=../lib/start-emsim.sh
source "$(dirname "$0")/../lib/start-emsim.sh"


suite() {  # suite PORT [ARGS...]
  local p=$1
  shift
  "$build/emsim-contract-tests" --base-url "http://127.0.0.1:$p" --allow-mutations --allow-spending "$@"
}

# ---- the full suite, both modes at once ------------------------------------------------------------
declare -A suite_pid
for mode in real manual; do
  if [ "$mode" = real ]; then start_emsim "$mode"; else start_emsim "$mode" --clock manual; fi
  if [ -z "$port" ]; then
    fail=$((fail + 1))
    continue
  fi
  suite "$port" --gtest_brief=1 "$@" >"$tmp/suite-$mode" 2>&1 &
  suite_pid[$mode]=$!
done
for mode in real manual; do
  [ -n "${suite_pid[$mode]:-}" ] || continue
  wait "${suite_pid[$mode]}"
  rc=$?
  flags=$([ "$mode" = real ] && echo "default flags, real clock" || echo "--clock manual")
  echo "== contract suite ($flags)"
  cat "$tmp/suite-$mode"
  summary=$(grep -E '^\[  (PASSED|FAILED) ' "$tmp/suite-$mode" | head -2 | tr '\n' ' ')
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1))
    echo "contract ($flags): ${summary}(exit 0)"
  else
    fail=$((fail + 1))
    echo "FAIL: contract ($flags): ${summary}(exit $rc)"
  fi
done

# ---- the retry schedule, again and again, on the real clock ------------------------------------------
start_emsim loop
if [ -z "$port" ]; then
  fail=$((fail + 1))
else
  flakes=0
  for i in $(seq 1 "$loops"); do
    if suite "$port" --gtest_filter='WebhookDelivery.*' --gtest_brief=1 >"$tmp/loop" 2>&1; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      flakes=$((flakes + 1))
      echo "FAIL: retry-schedule run $i of $loops (default flags, real clock):"
      grep -vE '^(target |\[==========\]|\[  PASSED  \]|Running main)' "$tmp/loop" | head -20
    fi
  done
  echo "retry-schedule loop: $loops runs, $flakes flakes"
fi

echo "contract: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
