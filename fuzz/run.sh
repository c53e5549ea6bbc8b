#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan, into build-fuzz/: scripts/sanitized-build.sh),
# writes their seed corpora from the project's files, fuzzes each harness for SECONDS (default 60),
# one per CPU at a time, then replays every input it has: the seeds, the corpus the fuzzer grew
# (kept between runs) and fuzz/regressions/. Prints the executions per harness and "N passed, N
# failed"; exits non-zero on any finding, whose input is left in build-fuzz/fuzz-crashes/<harness>/
# (README.md beside this script).
#
# Usage: fuzz/run.sh [SECONDS] [HARNESS...]      e.g. fuzz/run.sh 3600 router
# Environment: EMSIM_FUZZ_BUILD_DIR (default <checkout>/build-fuzz), EMSIM_FUZZ_ARGS (extra
# libFuzzer flags, e.g. "-jobs=2 -workers=2"), EMSIM_FUZZ_PARALLEL (harnesses at a time, default
# nproc), EMSIM_JOBS (build parallelism).
set -uo pipefail
seconds=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(router schema scenario fixture state record)

# ---- build -----------------------------------------------------------------------------------------
mkdir -p "$build"
"$root/scripts/sanitized-build.sh" "$build/fuzz-build.log" fuzz_all || { echo "fuzz: 0 passed, 1 failed"; exit 1; }

# ---- seeds -----------------------------------------------------------------------------------------
seeds=$build/fuzz-seeds
rm -rf "$seeds"
EMSIM_SOURCE_DIR=$root ASAN_OPTIONS=detect_leaks=0 "$build/fuzz/fuzz_make_seeds" "$seeds" || {
  echo "fuzz: cannot write the seed corpora"; echo "fuzz: 0 passed, 1 failed"; exit 1; }

# ---- fuzz, then replay -------------------------------------------------------------------------------
export EMSIM_SOURCE_DIR=$root
# Stack traces with file:line; UBSan stops at its first report (as the build's flags say).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
read -r -a extra <<<"${EMSIM_FUZZ_ARGS:-}"
# fuzz_one HARNESS: fuzzes it, then replays its inputs; writes its result to fuzz-logs/HARNESS.result
# (line 1: "pass EXECS" or "fail EXECS", then the summary line and any finding's first lines).
fuzz_one() {
  local h=$1
  local bin=$build/fuzz/fuzz_$h corpus=$build/fuzz-corpus/$h crashes=$build/fuzz-crashes/$h
  local log=$build/fuzz-logs/$h.log result=$build/fuzz-logs/$h.result
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")" "$seeds/$h"
  local dirs=("$corpus" "$seeds/$h")
  [ -d "$root/fuzz/regressions/$h" ] && dirs+=("$root/fuzz/regressions/$h")
  # New inputs go to the first directory, the corpus that grows between runs. Limits: a timeout
  # of 25 s per input is a hang; 2 GiB is the memory any one input may take (an alias bomb is a
  # finding); inputs up to 256 KiB (a 60k-character value, 30k levels of nesting fit).
  "$bin" "${dirs[@]}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=262144 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  local rc=$?
  # -a: a harness's log may hold the bytes of its inputs (grep would call it binary and print nothing).
  local execs
  execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -eq 0 ]; then
    # Replay every input once more, the grown corpus included: -runs=0 runs what it loads, no more.
    "$bin" "${dirs[@]}" -runs=0 -timeout=25 -rss_limit_mb=2048 -max_len=262144 -artifact_prefix="$crashes/" \
      >"$build/fuzz-logs/$h.replay.log" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || log=$build/fuzz-logs/$h.replay.log
  fi
  local inputs
  inputs=$(find "${dirs[@]}" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    { echo "pass $execs"
      printf '  %-9s %12s executions in %ss, %s inputs replayed, no finding\n' "$h" "$execs" "$seconds" "$inputs"; } >"$result"
  else
    local found
    found=$(ls -t "$crashes" 2>/dev/null | head -1)
    { echo "fail $execs"
      printf '  %-9s %12s executions, FINDING (exit %s): input %s, log %s\n' "$h" "$execs" "$rc" \
        "${found:+$crashes/$found}" "$log"
      grep -a -m3 -E '==ERROR|SUMMARY|FINDING|deadly signal|out-of-memory|timeout after|uncaught exception|runtime error' "$log" |
        sed 's/^/    /'; } >"$result"
  fi
}
# The harnesses side by side, EMSIM_FUZZ_PARALLEL at a time (default: one per CPU): each is one
# process fuzzing for a fixed time, so on 2 CPUs two at a time halve the tier's wall time.
parallel=${EMSIM_FUZZ_PARALLEL:-$(nproc)}
running=0
for h in "${harnesses[@]}"; do
  rm -f "$build/fuzz-logs/$h.result"
  fuzz_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n; running=$((running - 1)); fi
done
wait
pass=0 fail=0 total=0
summary=()
for h in "${harnesses[@]}"; do
  result=$build/fuzz-logs/$h.result
  if [ ! -f "$result" ]; then
    fail=$((fail + 1)); summary+=("$(printf '  %-9s did not finish (no result)' "$h")"); continue
  fi
  read -r verdict execs <"$result"
  total=$((total + execs))
  if [ "$verdict" = pass ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  summary+=("$(tail -n +2 "$result")")
done
printf '%s\n' "${summary[@]}"
echo "fuzz: $total executions in total"
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
