#!/usr/bin/env bash
# Configures (once) and builds into build/ (or $EMSIM_BUILD_DIR), as $EMSIM_BUILD_TYPE
# (default RelWithDebInfo): everything, or only the targets named as arguments
# (scripts/run.sh builds `emsim` alone).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_BUILD_DIR:-$root/build}
type=${EMSIM_BUILD_TYPE:-RelWithDebInfo}
launcher=()
# ccache, when present, lets several checkouts share compiled objects (CI works without it).
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$root")}"
  export CCACHE_NOHASHDIR=true  # debug info's cwd must not split the cache between checkouts
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" "${launcher[@]}" >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" --parallel "${EMSIM_JOBS:-$(nproc)}" "${targets[@]}"
