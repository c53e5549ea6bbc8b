#!/usr/bin/env bash
# The contract suite once over HTTPS: emsim --tls-self-signed, the suite trusting the certificate
# emsim printed (--ca-file), as a client that insists on https:// base URLs would. Manual clock:
# the suite's time-dependent checks ran on both clocks over plain HTTP (30-contract.sh); here the
# question is the transport. Prints "contract-tls: N passed, N failed".
set -uo pipefail
build=${1:?build dir}; shift
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
"$build/emsim" serve --port 0 --clock manual --tls-self-signed >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 200); do grep -q 'emsim ready' "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o 'ready on https://127.0.0.1:[0-9]*' "$tmp/out" | sed 's/.*://')
cert=$(grep -o 'tls-certificate=[^ ]*' "$tmp/out" | cut -d= -f2)
if [ -z "$port" ] || [ ! -f "$cert" ]; then
  echo "FAIL: emsim --tls-self-signed did not start"; cat "$tmp/out" "$tmp/err"
  echo "contract-tls: 0 passed, 1 failed"; exit 1
fi
pass=0 fail=0
# The certificate names localhost: the suite checks it by that name.
if "$build/emsim-contract-tests" --base-url "https://localhost:$port" --ca-file "$cert" --allow-mutations \
     --allow-spending --gtest_brief=1 "$@" >"$tmp/suite" 2>&1; then
  pass=1
  echo "contract over TLS: $(grep -E '^\[  PASSED ' "$tmp/suite")"
else
  fail=1
  cat "$tmp/suite"
  echo "FAIL: contract suite over TLS"
fi
# And a client that does not trust the certificate is refused, not served in clear.
if curl -s -m 5 "https://localhost:$port/_sim/health" >/dev/null 2>&1; then
  fail=$((fail + 1)); echo "FAIL: an untrusting client was served"
else
  pass=$((pass + 1)); echo "ok: a client that does not trust the certificate is refused"
fi
echo "contract-tls: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
