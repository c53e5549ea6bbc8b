#!/usr/bin/env bash
# Installs the Debian packages emsim needs, only when one is missing. Safe to run again.
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config libcpp-httplib-dev nlohmann-json3-dev libvalijson-dev libjemalloc-dev
      libyaml-dev libssl-dev libgtest-dev
      # durable state (--data-dir): the library, the sqlite3 CLI the tests and README use, and
      # python3 for the crash test (scripts/crash-test.py)
      libsqlite3-dev sqlite3 python3
      # the fuzz tier (fuzz/run.sh): clang with libFuzzer and the sanitizer runtimes
      clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
