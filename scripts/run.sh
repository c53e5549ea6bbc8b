#!/usr/bin/env bash
# Installs what is missing, builds, and starts emsim on 127.0.0.1:8080 with the default fixtures.
# Extra arguments go to `emsim serve` (see `emsim serve --help`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "${EMSIM_BUILD_DIR:-$root/build}/emsim" serve --fixtures "$root/fixtures/default.yaml" "$@"
