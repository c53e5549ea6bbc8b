#!/usr/bin/env bash
# The sanitizer tier: the unit and in-process HTTP tests (emsim_tests_<layer>) built with AddressSanitizer
# and UndefinedBehaviorSanitizer in their own build directory (build-asan/ beside the normal one,
# or $EMSIM_ASAN_BUILD_DIR), then run. Any sanitizer report fails the test that caused it (UBSan
# aborts: -fno-sanitize-recover), a leak fails the run. Prints "N passed, N failed" (tests).
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
asan=${EMSIM_ASAN_BUILD_DIR:-$(dirname "$build")/build-asan}
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$root")}" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$asan/build.ninja" ]; then
  # -O1 -g1: the sanitizers' recommended optimization, line numbers in reports, a quicker build.
  cmake -S "$root" -B "$asan" -G Ninja -DEMSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" "${launcher[@]}" >/dev/null
fi
start=$(date +%s)
if ! cmake --build "$asan" --target emsim_tests --parallel "${EMSIM_JOBS:-$(nproc)}" >"$asan/sanitizers-build.log" 2>&1; then
  tail -30 "$asan/sanitizers-build.log"
  echo "sanitizers: build failed (log: $asan/sanitizers-build.log)"
  echo "sanitizers: 0 passed, 1 failed"
  exit 1
fi
echo "sanitizers: the emsim_tests_<layer> executables built with ASan + UBSan in $(( $(date +%s) - start )) s"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
out=$asan/sanitizers-tests.log
: >"$out"
start=$(date +%s)
# One process per layer's test executable (emsim_tests_<layer>): each test's App starts under ASan
# once, without ctest's process per test. Two run at a time.
rc=0
pids=()
for bin in "$asan"/emsim_tests_*; do
  [ -x "$bin" ] || continue
  ("$bin" --gtest_brief=1 >"$out.$(basename "$bin")" 2>&1; echo $? >"$out.$(basename "$bin").rc") &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
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
