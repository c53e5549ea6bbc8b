#!/usr/bin/env bash
# Installs what is missing, builds once, and runs every test: unit + in-process HTTP tests
# (ctest, in parallel), scenario files, the contract suite against a fresh emsim, bench smoke.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_BUILD_DIR:-$root/build}
# Each step's time, so a slow step shows in CI's log (the aim: the whole run within 30 minutes on
# 2 cores).
step() {  # step NAME COMMAND...
  local name=$1 t0=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: done in $((SECONDS - t0)) s (the run so far: $SECONDS s)"
}
step install-deps "$root/scripts/install-deps.sh"
step build "$root/scripts/build.sh"
cd "$build"
step ctest ctest --output-on-failure --parallel "$(nproc)" --timeout 300
for extra in "$root"/scripts/test.d/*.sh; do
  [ -e "$extra" ] || continue
  step "$(basename "$extra")" bash "$extra" "$build"
done
