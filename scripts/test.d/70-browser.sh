#!/usr/bin/env bash
# The checkout page and the /_sim/ui dashboard in a real browser: Debian's Chromium, headless,
# driven by playwright-core (pinned in tests/browser/package.json, installed by npm ci into
# tests/browser/node_modules). tests/browser/e2e.mjs runs against a fresh emsim twice: with the
# manual clock (writing the README's screenshots, docs/screenshots/*.png), and with the real clock
# and an admin token (the dashboard asks for it and shows nothing before). Skips, saying so, only
# when Chromium cannot be installed.
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
chromium=${EMSIM_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  "$root/scripts/install-deps.sh" >&2 || true
fi
if [ ! -x "$chromium" ]; then
  echo "browser: SKIPPED: $chromium is missing and scripts/install-deps.sh could not install Debian's chromium"
  exit 0
fi
command -v npm >/dev/null || { echo "browser: npm is missing (scripts/install-deps.sh)"; exit 1; }
# The pinned playwright-core, installed from the lock file unless it is there already.
dir=$root/tests/browser
want=$(node -e 'process.stdout.write(require(process.argv[1]).dependencies["playwright-core"])' "$dir/package.json")
have=$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$dir/node_modules/playwright-core/package.json" 2>/dev/null || true)
if [ "$have" != "$want" ]; then
  echo "browser: installing playwright-core $want into $dir/node_modules" >&2
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2 || { echo "browser: npm ci failed"; exit 1; }
fi
# shellcheck source=../lib/start-emsim.sh
source "$root/scripts/lib/start-emsim.sh"
status=0
mkdir -p "$root/docs/screenshots"

echo "browser: manual clock"
start_emsim manual --clock manual
[ -n "$port" ] || exit 1
EMSIM_CHROMIUM=$chromium node "$dir/e2e.mjs" "http://127.0.0.1:$port" "$root/docs/screenshots" || status=1

echo "browser: real clock, admin token"
start_emsim real --clock real --admin-token browser-tier-token
[ -n "$port" ] || exit 1
EMSIM_CHROMIUM=$chromium node "$dir/e2e.mjs" "http://127.0.0.1:$port" "" browser-tier-token || status=1
exit $status
