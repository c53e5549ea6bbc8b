#!/usr/bin/env bash
# The sanitizer tier: the unit and in-process HTTP tests (emsim_tests) built with AddressSanitizer
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
echo "sanitizers: emsim_tests built with ASan + UBSan in $(( $(date +%s) - start )) s"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
out=$asan/sanitizers-tests.log
start=$(date +%s)
# One process: every test's App starts under ASan once, without ctest's process per test.
"$asan/emsim_tests" --gtest_brief=1 >"$out" 2>&1
rc=$?
passed=$(grep -o '^\[  PASSED  \] [0-9]*' "$out" | grep -o '[0-9]*$' || true)
failed=$(grep -o '^\[  FAILED  \] [0-9]* test' "$out" | grep -o '[0-9]*' || true)
grep -E '^\[  FAILED  \]|ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY:' "$out" | head -40
echo "sanitizers: tests ran in $(( $(date +%s) - start )) s (exit $rc; log: $out)"
if [ "$rc" -ne 0 ] && [ -z "$failed" ]; then
  # A sanitizer stopped the process (or leaks were found at exit): that is one failure at least.
  tail -40 "$out"
  failed=1
fi
echo "sanitizers: ${passed:-0} passed, ${failed:-0} failed"
[ "$rc" -eq 0 ]
