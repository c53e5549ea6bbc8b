#!/usr/bin/env bash
# Installs what is missing, builds once, and runs every test: unit + in-process HTTP tests
# (ctest, in parallel), scenario files, the contract suite against a fresh emsim, bench smoke.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" --timeout 300
for extra in "$root"/scripts/test.d/*.sh; do
  [ -e "$extra" ] || continue
  echo "== $(basename "$extra")"
  bash "$extra" "$build"
done
