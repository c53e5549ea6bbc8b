#!/usr/bin/env bash
# The sanitizer tier: the unit and in-process HTTP tests (emsim_tests_<layer>) built with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer in the build directory the fuzz tier shares
# (build-fuzz/ beside the normal one, or $EMSIM_FUZZ_BUILD_DIR: scripts/sanitized-build.sh), then
# run. Any sanitizer report fails the test that caused it (UBSan aborts: -fno-sanitize-recover), a
# leak fails the run. Prints "N passed, N failed" (tests).
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
asan=${EMSIM_FUZZ_BUILD_DIR:-$(dirname "$build")/build-fuzz}
export EMSIM_FUZZ_BUILD_DIR=$asan
start=$(date +%s)
mkdir -p "$asan"
"$root/scripts/sanitized-build.sh" "$asan/sanitizers-build.log" emsim_tests || { echo "sanitizers: 0 passed, 1 failed"; exit 1; }
echo "sanitizers: the emsim_tests_<layer> executables built with clang, ASan + UBSan in $(( $(date +%s) - start )) s"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
out=$asan/sanitizers-tests.log
: >"$out"
start=$(date +%s)
# One process per layer's test executable (emsim_tests_<layer>), or per shard of the slow ones (gtest's
# GTEST_TOTAL_SHARDS): each test's App starts under ASan once, without ctest's process per test.
# Two run at a time, the app layer's four shards first (the hostile-request corpus, four slices of
# ~60 s under ASan, is most of the run).
rc=0
running=0
jobs=()
for bin in "$asan"/emsim_tests_*; do
  [ -x "$bin" ] || continue
  n=1
  [ "$(basename "$bin")" = emsim_tests_app ] && n=4
  for ((k = 0; k < n; k++)); do
    job="$(basename "$bin").$k $bin $n $k"
    if [ "$n" -gt 1 ]; then jobs=("$job" "${jobs[@]}"); else jobs+=("$job"); fi
  done
done
for job in "${jobs[@]}"; do
  read -r name bin total index <<<"$job"
  (GTEST_TOTAL_SHARDS=$total GTEST_SHARD_INDEX=$index "$bin" --gtest_brief=1 >"$out.$name" 2>&1
   echo $? >"$out.$name.rc") &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait
passed=0 failed=0
for log in "$out".emsim_tests_*; do
  case "$log" in *.rc) continue ;; esac
  cat "$log" >>"$out"
  code=$(cat "$log.rc" 2>/dev/null || echo 1)
  p=$(grep -o '^\[  PASSED  \] [0-9]*' "$log" | grep -o '[0-9]*$' || true)
  f=$(grep -o '^\[  FAILED  \] [0-9]* test' "$log" | grep -o '[0-9]*' || true)
  if [ "$code" -ne 0 ]; then
    rc=1
    # A sanitizer stopped the process (or leaks were found at exit): that is one failure at least.
    [ -n "$f" ] || { tail -40 "$log"; f=1; }
  fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  rm -f "$log" "$log.rc"
done
grep -E '^\[  FAILED  \]|ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY:' "$out" | head -40
echo "sanitizers: tests ran in $(( $(date +%s) - start )) s (exit $rc; log: $out)"
echo "sanitizers: $passed passed, $failed failed"
[ "$rc" -eq 0 ]
