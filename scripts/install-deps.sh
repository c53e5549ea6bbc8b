#!/usr/bin/env bash
# Installs the Debian packages emsim needs, only when one is missing. Safe to run again.
# `install-deps.sh serve` installs only what building the emsim binary needs (scripts/run.sh);
# without an argument, everything the tests need too.
set -euo pipefail
serve_pkgs=(g++ cmake ninja-build pkg-config libcpp-httplib-dev nlohmann-json3-dev libvalijson-dev libjemalloc-dev
            libyaml-dev libssl-dev libgtest-dev libsqlite3-dev
            curl)  # the README's examples and the test tiers talk to emsim with it
pkgs=(g++ cmake ninja-build pkg-config libcpp-httplib-dev nlohmann-json3-dev libvalijson-dev libjemalloc-dev
      libyaml-dev libssl-dev libgtest-dev curl
      # cpack's .deb finds the package's dependencies with dpkg-shlibdeps
      dpkg-dev
      # durable state (--data-dir): the library, the sqlite3 CLI the tests and README use, and
      # python3 for the crash test (scripts/crash-test.py)
      libsqlite3-dev sqlite3 python3
      # the README's Node webhook receiver, run by scripts/test.d/25-receivers.sh
      nodejs
      # npm installs the pinned OpenAPI tools (Spectral, Prism) of scripts/test.d/32-openapi.sh,
      # through scripts/install-npm-tools.sh
      npm
      # the fuzz tier (fuzz/run.sh): clang with libFuzzer and the sanitizer runtimes
      clang libclang-rt-14-dev
      # shards behind HAProxy (scripts/test.d/65-shards.sh): the proxy itself, and PyYAML to read
      # the Kubernetes manifests (a YAML parser of our own would be the bigger risk)
      haproxy python3-yaml
      # the browser tier (scripts/test.d/70-browser.sh): headless Chromium for playwright-core
      chromium)
[ "${1:-all}" = serve ] && pkgs=("${serve_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
  # Node from elsewhere (NodeSource, nvm) serves as well as Debian's: its package has another name.
  [ "$p" = nodejs ] && command -v node >/dev/null && continue
  [ "$p" = npm ] && command -v npm >/dev/null && continue
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
