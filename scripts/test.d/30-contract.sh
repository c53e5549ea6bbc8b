#!/usr/bin/env bash
# The contract suite against a freshly started emsim (manual clock), with mutations and spending
# allowed (nothing in emsim is real). Exit status: the suite's.
set -uo pipefail
build=${1:?build dir}; shift
tmp=$(mktemp -d)
pid=""
trap 'rm -rf "$tmp"; [ -n "$pid" ] && kill "$pid" 2>/dev/null' EXIT

"$build/emsim" serve --port 0 --clock manual >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 200); do grep -q 'emsim ready' "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o 'ready on http://127.0.0.1:[0-9]*' "$tmp/out" | head -1 | sed 's/.*://')
if [ -z "$port" ]; then
  echo "contract: emsim did not start"; cat "$tmp/out" "$tmp/err"; exit 1
fi

"$build/emsim-contract-tests" --base-url "http://127.0.0.1:$port" --allow-mutations --allow-spending \
  --gtest_brief=1 "$@" 2>&1 | tee "$tmp/suite"
rc=${PIPESTATUS[0]}
kill -TERM "$pid"; wait "$pid" 2>/dev/null; pid=""
echo "contract: $(grep -E '^\[  (PASSED|FAILED) ' "$tmp/suite" | head -2 | tr '\n' ' ')(exit $rc)"
exit "$rc"
