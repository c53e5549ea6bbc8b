#!/usr/bin/env bash
# The OpenAPI document emsim generates (GET /_sim/openapi.json, server/api/control/openapi.cpp),
# proven against outside tools, pinned and installed by scripts/install-npm-tools.sh:
#   1. Spectral lints it with scripts/openapi/.spectral.yaml (spectral:oas): any error fails the
#      tier; warnings are printed and counted, not fatal.
#   2. The contract suite runs through Prism's validating proxy (`prism proxy DOC EMSIM`) in front
#      of a fresh emsim, every request forwarded, every request and answer checked against the
#      document. Prism logs each violation ("Violation: request..." / "Violation: response...")
#      after the upstream status of its request; the tier fails on
#        - any response violation of severity error (emsim answered outside its own document), and
#        - any request violation of severity error on a request emsim accepted (2xx: the document
#          refuses what emsim takes).
#      A request violation on a request emsim refused (4xx) is the suite's deliberate bad input,
#      refused by both: counted and listed, not fatal. The suite must pass too.
#      Prism's --errors is not used: it answers a request violation itself instead of forwarding
#      it, so the suite's deliberate bad requests would never reach emsim.
# Nothing is built here. Ends with "openapi: N passed, N failed".
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
# A scratch dir ($tmp), the background processes to stop on exit ($pids), start_emsim.
# shellcheck source=../lib/start-emsim.sh
source "$root/scripts/lib/start-emsim.sh"
pass=0 fail=0
finish() {
  echo "openapi: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

bin=$(bash "$root/scripts/install-npm-tools.sh" | tail -1)
if [ ! -x "$bin/spectral" ] || [ ! -x "$bin/prism" ]; then
  echo "FAIL: the pinned npm tools are not installed (scripts/install-npm-tools.sh)"
  fail=$((fail + 1))
  finish
fi

start_emsim openapi
[ -n "$port" ] || { fail=$((fail + 1)); finish; }
doc=$tmp/openapi.json
if ! curl -sS -m 30 -f "http://127.0.0.1:$port/_sim/openapi.json" -o "$doc"; then
  echo "FAIL: GET /_sim/openapi.json"
  fail=$((fail + 1))
  finish
fi
echo "openapi.json: $(wc -c <"$doc") bytes, $(node -e 'const d=require(process.argv[1]);let n=0;for(const p of Object.values(d.paths))n+=Object.keys(p).length;console.log(`${n} operations, OpenAPI ${d.openapi}`)' "$doc")"

# ---- 1. Spectral ------------------------------------------------------------------------------------
"$bin/spectral" lint "$doc" --ruleset "$root/scripts/openapi/.spectral.yaml" --fail-severity error \
  --format json --output "$tmp/spectral.json" >/dev/null 2>"$tmp/spectral.err"
spectral_rc=$?
if ! counts=$(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const names = ["error", "warning", "info", "hint"], n = [0, 0, 0, 0];
  for (const x of r) {
    n[x.severity]++;
    console.error(`  ${names[x.severity]} ${x.code}: ${x.message} at ${x.path.join(".")}`);
  }
  console.log(n.join(" "));' "$tmp/spectral.json" 2>"$tmp/spectral.list"); then
  echo "FAIL: spectral did not run (exit $spectral_rc)"
  cat "$tmp/spectral.err"
  fail=$((fail + 1))
else
  read -r errors warnings infos hints <<<"$counts"
  cat "$tmp/spectral.list"
  if [ "$errors" -eq 0 ] && [ "$spectral_rc" -eq 0 ]; then
    pass=$((pass + 1))
    echo "ok: spectral (spectral:oas): 0 errors, $warnings warnings, $infos infos, $hints hints"
  else
    fail=$((fail + 1))
    echo "FAIL: spectral (spectral:oas): $errors errors, $warnings warnings (exit $spectral_rc)"
  fi
fi

# ---- 2. the contract suite through Prism's validating proxy ------------------------------------------
pport=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$bin/prism" proxy "$doc" "http://127.0.0.1:$port" --host 127.0.0.1 --port "$pport" >"$tmp/prism.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do grep -q 'Prism is listening' "$tmp/prism.log" && break; sleep 0.1; done
if ! grep -q 'Prism is listening' "$tmp/prism.log"; then
  echo "FAIL: prism proxy did not start"
  tail -20 "$tmp/prism.log"
  fail=$((fail + 1))
  finish
fi
"$build/emsim-contract-tests" --base-url "http://127.0.0.1:$pport" --allow-mutations --allow-spending \
  --gtest_brief=1 >"$tmp/suite" 2>&1
suite_rc=$?
sleep 0.5  # Prism logs a response's violations just after it answers
summary=$(grep -E '^\[  (PASSED|FAILED) ' "$tmp/suite" | head -2 | tr '\n' ' ')
if [ "$suite_rc" -eq 0 ]; then
  pass=$((pass + 1))
  echo "ok: contract suite through prism: ${summary}"
else
  fail=$((fail + 1))
  echo "FAIL: contract suite through prism: ${summary}(exit $suite_rc)"
  grep -vE '^(target |\[==========\]|\[  PASSED  \]|Running main)' "$tmp/suite" | head -40
fi

# Each log line "[HTTP SERVER] <method> <path> ... Request received" starts a request, "The upstream
# call to ... has returned <status>" gives emsim's status, "[VALIDATOR] ... Violation: <what>" follow.
awk -v out="$tmp" '
  /\[HTTP SERVER\].*Request received/ {
    req = $0; sub(/.*\[HTTP SERVER\] /, "", req); sub(/ +[^ ]+ +info +Request received.*/, "", req)
    status = "?"
  }
  /has returned [0-9]+/ { status = $0; sub(/.*has returned /, "", status); sub(/[^0-9].*/, "", status) }
  /\[VALIDATOR\].*Violation: / {
    sev = ($0 ~ /error +Violation/) ? "error" : "warning"
    what = $0; sub(/.*Violation: /, "", what)
    line = sprintf("  %s -> %s: %s (%s)", toupper(substr(req, 1, index(req, " ") - 1)) substr(req, index(req, " ")), status, what, sev)
    if (sev == "error" && what ~ /^response/) { print line > (out "/v-response"); next }
    if (sev == "error" && status ~ /^2/) { print line > (out "/v-accepted"); next }
    if (sev == "error") { print line > (out "/v-refused"); next }
    print line > (out "/v-warning")
  }' "$tmp/prism.log"
count() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
nresp=$(count "$tmp/v-response") nacc=$(count "$tmp/v-accepted")
nref=$(count "$tmp/v-refused") nwarn=$(count "$tmp/v-warning")
nreq=$(grep -c 'Request received' "$tmp/prism.log")
echo "prism: $nreq requests; violations: $nresp in answers, $nacc in requests emsim accepted," \
  "$nref in requests emsim refused (the suite's deliberate bad input), $nwarn warnings"
if [ "$nref" -gt 0 ]; then
  echo "request violations on requests emsim refused too (not fatal; the most frequent 30):"
  sort "$tmp/v-refused" | uniq -c | sort -rn | head -30 | cut -c1-300
fi
if [ "$nwarn" -gt 0 ]; then
  echo "prism warnings (not fatal):"
  sort "$tmp/v-warning" | uniq -c | sort -rn | cut -c1-300
fi
if [ "$nresp" -eq 0 ] && [ "$nacc" -eq 0 ]; then
  pass=$((pass + 1))
  echo "ok: prism: every answer fits the document, and every request emsim accepted does too"
else
  fail=$((fail + 1))
  echo "FAIL: prism: traffic that breaks the document:"
  cat "$tmp/v-response" "$tmp/v-accepted" 2>/dev/null
fi
finish
