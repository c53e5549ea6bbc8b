#!/usr/bin/env bash
# Installs the pinned npm tools of the OpenAPI tier (scripts/test.d/32-openapi.sh) into a local
# prefix, build-tools/ at the repository root (gitignored, like the build dirs): Spectral lints the
# generated document, Prism's validating proxy checks the contract suite's traffic against it.
# Skips a tool already installed at its pinned version. EMSIM_NPM_PREFIX overrides the prefix.
# Needs npm (scripts/install-deps.sh installs Debian's package) and the registry.
# Prints the prefix's bin dir on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${EMSIM_NPM_PREFIX:-$root/build-tools}
# The pins: change them here only (exact versions, no ranges).
tools=("@stoplight/spectral-cli@6.15.0" "@stoplight/prism-cli@5.14.2")

command -v npm >/dev/null || { echo "install-npm-tools: npm is missing (scripts/install-deps.sh)" >&2; exit 1; }
missing=()
for t in "${tools[@]}"; do
  name=${t%@*} version=${t##*@}
  pkg="$prefix/node_modules/$name/package.json"
  have=$( [ -f "$pkg" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$pkg" 2>/dev/null || true)
  [ "$have" = "$version" ] || missing+=("$t")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-npm-tools: installing ${missing[*]} into $prefix" >&2
  mkdir -p "$prefix"
  # All pins at once, so npm resolves one tree (installing one alone would prune the other).
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "${tools[@]}" >&2
fi
echo "$prefix/node_modules/.bin"
