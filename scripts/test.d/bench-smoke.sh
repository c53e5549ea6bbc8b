#!/usr/bin/env bash
# Bench smoke (bench/README.md): the whole benchmark with tiny durations on the binaries of the
# test build ($1), so the benchmark never rots. It checks that every step runs; it asserts no timing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$root/bench/run.sh" --smoke "${1:-$root/build}"
