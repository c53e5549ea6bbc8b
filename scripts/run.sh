#!/usr/bin/env bash
# Installs what is missing, builds the emsim binary alone (Release, in build-release/ or
# $EMSIM_BUILD_DIR) and starts it on 127.0.0.1:8080 with the default fixtures. Extra arguments go
# to `emsim serve` (see `emsim serve --help`); when nothing changed it starts in a few seconds.
# The tests have their own build (scripts/test.sh builds everything in build/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMSIM_BUILD_DIR:-$root/build-release}
"$root/scripts/install-deps.sh" serve
EMSIM_BUILD_DIR="$build" EMSIM_BUILD_TYPE=Release "$root/scripts/build.sh" emsim >&2
exec "$build/emsim" serve "$@"
