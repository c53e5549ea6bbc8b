#!/usr/bin/env bash
# Configures (once) and builds TARGETS in the sanitized build directory: clang, ASan + UBSan and
# libFuzzer's coverage instrumentation (CMake -DEMSIM_FUZZ=ON), -O1 -g1. The sanitizer tier builds
# the test executables there and the fuzz tier its harnesses, so the layers are compiled once for
# both. Directory: $EMSIM_FUZZ_BUILD_DIR, default build-fuzz/ in the checkout.
# Usage: scripts/sanitized-build.sh LOG TARGET...    (build output goes to LOG; its tail on failure)
set -uo pipefail
log=${1:?log file}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
launcher=()
# ccache, when present, lets several checkouts share compiled objects (CI works without it).
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$root")}" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build/build.ninja" ]; then
  # -O1: what the sanitizers are meant for, and a quicker build than -O2; -g1: line numbers in
  # stack traces without full debug information. Sixteen files to a unity unit, not the normal
  # tree's eight: the json, httplib and gtest code every unit instantiates is compiled with the
  # sanitizers' instrumentation, once per unit (the test executables' build on 2 CPUs: 617 s at
  # eight, 550 s at sixteen); the tree is built whole, not edited file by file.
  CXX=${EMSIM_FUZZ_CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DEMSIM_FUZZ=ON -DEMSIM_UNITY_BATCH=16 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" "${launcher[@]}" >/dev/null || {
    echo "cannot configure $build (clang and libclang-rt-14-dev installed? scripts/install-deps.sh)"
    exit 1; }
fi
mkdir -p "$(dirname "$log")"
if ! cmake --build "$build" --target "$@" --parallel "${EMSIM_JOBS:-$(nproc)}" >"$log" 2>&1; then
  tail -30 "$log"
  echo "build of $* in $build failed (log: $log)"
  exit 1
fi
