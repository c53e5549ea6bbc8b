#!/usr/bin/env bash
# The fuzz tier, briefly: every libFuzzer harness in fuzz/ for EMSIM_FUZZ_SECONDS (default 30)
# seconds, then the replay of every seed, corpus and regression input (fuzz/run.sh; clang, own
# build directory build-fuzz/ beside the normal one). Prints "N passed, N failed" (harnesses).
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
export EMSIM_FUZZ_BUILD_DIR=${EMSIM_FUZZ_BUILD_DIR:-$(dirname "$build")/build-fuzz}
exec "$root/fuzz/run.sh" "${EMSIM_FUZZ_SECONDS:-30}"
