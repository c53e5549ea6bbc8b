#!/usr/bin/env bash
# Installs what is missing, builds once, and runs every test: unit + in-process HTTP tests
# (sanitized), scenario files, the contract suite against a fresh emsim, bench smoke, fuzzing.
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
# The normal tree builds the programs the end-to-end tiers run (emsim, the contract suite, the
# bench tools). The unit and in-process HTTP tests (emsim_tests_<layer>) are built and run once, in
# the sanitized tree (test.d/40-sanitizers.sh): the same tests under ASan + UBSan, so a second,
# unsanitized build of them would only cost time (a sixth of the run on 2 cores).
# EMSIM_TEST_CTEST=1 builds them here as well and runs them under ctest first.
if [ "${EMSIM_TEST_CTEST:-0}" = 1 ]; then
  step build "$root/scripts/build.sh"
  cd "$build"
  step ctest ctest --output-on-failure --parallel "$(nproc)" --timeout 300
else
  step build "$root/scripts/build.sh" emsim_programs
  cd "$build"
  step layers ctest --output-on-failure -R '^layers\.'
fi
for extra in "$root"/scripts/test.d/*.sh; do
  [ -e "$extra" ] || continue
  step "$(basename "$extra")" bash "$extra" "$build"
done
