#!/usr/bin/env bash
# The contract suite must be able to fail: a suite that passes against a broken server proves nothing. Against a fresh emsim, each case injects a
# fault through /_sim/faults (a wrong field type, a missing envelope field, a 500, ...), runs the
# contract tests that should catch it, and asserts that they FAIL with a message naming the
# operation, the field and the rule, and that the fault was really met. A control run first shows
# the same tests pass on the healthy emsim, so each failure is the fault's doing.
set -uo pipefail
build=${1:?build dir}
suite="$build/emsim-contract-tests"
tmp=$(mktemp -d)
pid=""
trap 'rm -rf "$tmp"; [ -n "$pid" ] && kill "$pid" 2>/dev/null' EXIT
pass=0 fail=0

"$build/emsim" serve --port 0 --clock manual >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 200); do grep -q 'emsim ready' "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o 'ready on http://127.0.0.1:[0-9]*' "$tmp/out" | head -1 | sed 's/.*://')
[ -n "$port" ] || { echo "selftest: emsim did not start"; cat "$tmp/out" "$tmp/err"; exit 1; }
base="http://127.0.0.1:$port"

fault() { curl -s -o "$tmp/fault" -w '%{http_code}' "$base/_sim/faults" -H 'content-type: application/json' -d "$1"; }

# expect_failure NAME GTEST_FILTER EXPECTED_MESSAGE FAULT_JSON...
expect_failure() {
  local name=$1 filter=$2 expected=$3
  shift 3
  curl -s -X DELETE "$base/_sim/faults" >/dev/null
  for f in "$@"; do
    if [ "$(fault "$f")" != 201 ]; then
      fail=$((fail + 1)); echo "FAIL: $name: /_sim/faults refused $f: $(cat "$tmp/fault")"; return
    fi
  done
  "$suite" --base-url "$base" --gtest_filter="$filter" >"$tmp/run" 2>&1
  local rc=$?
  local faults; faults=$(curl -s "$base/_sim/faults")
  if [ "$rc" -eq 0 ]; then
    fail=$((fail + 1)); echo "FAIL: $name: $filter passed although the service was broken"
  elif ! grep -qF -- "$expected" "$tmp/run"; then
    fail=$((fail + 1)); echo "FAIL: $name: $filter failed, but no message contains: $expected"; sed 's/^/    /' "$tmp/run" | grep -v '^\s*$' | head -30
  elif grep -q '"hits":0' <<<"$faults"; then
    fail=$((fail + 1)); echo "FAIL: $name: a fault was never met: $faults"
  else
    pass=$((pass + 1)); echo "ok: $name -> $(grep -F -- "$expected" "$tmp/run" | head -1)"
  fi
}

# Hands off a real deployment: the whole suite, treating this emsim as a real deployment with no
# --allow-* flag, must pass (read-only checks) and leave the state exactly as it was.
curl -s "$base/_sim/state" >"$tmp/state.before"
"$suite" --base-url "$base" --api-key emsim_test_alice_3f9c2a7b --as-real-deployment >"$tmp/real" 2>&1
rc=$?
curl -s "$base/_sim/state" >"$tmp/state.after"
if [ "$rc" -ne 0 ]; then
  fail=$((fail + 1)); echo "FAIL: read-only run failed"; grep -E 'Failure|FAILED|must' "$tmp/real" | head -20
elif ! cmp -s "$tmp/state.before" "$tmp/state.after"; then
  fail=$((fail + 1)); echo "FAIL: the read-only run changed the state"
elif ! grep -q -- '--allow-mutations' "$tmp/real" || ! grep -q -- '--allow-spending' "$tmp/real" || ! grep -q 'the target is not emsim' "$tmp/real"; then
  fail=$((fail + 1)); echo "FAIL: the read-only run did not report its skips with their reasons"
else
  pass=$((pass + 1)); echo "ok: as a real deployment without --allow-*: $(grep -oE 'SKIPPED \] [0-9]+ tests?' "$tmp/real" | grep -oE '[0-9]+') tests skipped with reasons, state unchanged"
fi

filters=(
  'DomainsList.ConformsToItsSchema' 'WorkspacesList.ConformsToItsSchema' 'MailboxesList.ConformsToItsSchema'
  'DomainsList.PagingCountersAgreeWithThePages' 'Auth.MissingApiKey*' 'MailboxesDetails.MissingIdIs400'
  'DnsShieldSlots.SlotsAddUp' 'DomainsBuy.PaymentLinkAnswerHasNoEnvelope' 'PlacementTests.PlacementTypeMustBeMonthlyOrOneTime'
  'WebhookDelivery.ASignedEnvelopeArrivesForAnEvent' 'WebhooksCreate.SecretIsShownOnceAndNeverListed'
)
all=$(IFS=:; echo "${filters[*]}")
if "$suite" --base-url "$base" --gtest_filter="$all" >"$tmp/control" 2>&1; then
  pass=$((pass + 1)); echo "ok: control run: the chosen tests pass on a healthy emsim"
else
  fail=$((fail + 1)); echo "FAIL: control run: the chosen tests fail without any fault"; tail -30 "$tmp/control"
fi

expect_failure "wrong field type" 'DomainsList.ConformsToItsSchema' \
  'domains.list: /data/domains/0/assignedMailboxesCount must be numeric text' \
  '{"method":"GET","path":"/v1/domain/list","times":0,"patch":[{"op":"replace","path":"/data/domains/0/assignedMailboxesCount","value":3}]}'

expect_failure "missing envelope field" 'WorkspacesList.ConformsToItsSchema' \
  'workspaces.list: /message is required' \
  '{"method":"GET","path":"/v1/workspace/list","times":0,"patch":[{"op":"remove","path":"/message"}]}'

expect_failure "status not mirrored" 'DomainsList.ConformsToItsSchema' \
  'domains.list: /status must mirror the HTTP status 200' \
  '{"method":"GET","path":"/v1/domain/list","times":0,"patch":[{"op":"replace","path":"/status","value":201}]}'

expect_failure "a 500" 'MailboxesList.ConformsToItsSchema' \
  'mailboxes.list: HTTP status must be 200, got 500' \
  '{"method":"GET","path":"/v1/mailbox/list","times":0,"status":500}'

expect_failure "impossible timestamp" 'DomainsList.ConformsToItsSchema' \
  'domains.list: /data/domains/1/createdAt must be an ISO 8601 UTC timestamp with milliseconds' \
  '{"method":"GET","path":"/v1/domain/list","times":0,"patch":[{"op":"replace","path":"/data/domains/1/createdAt","value":"2026-02-30T10:00:00.000Z"}]}'

expect_failure "paging counter off" 'DomainsList.PagingCountersAgreeWithThePages' \
  'domains.list: /data/totalSearchedCount must equal the records over all' \
  '{"method":"GET","path":"/v1/domain/list","times":0,"patch":[{"op":"replace","path":"/data/totalSearchedCount","value":99}]}'

expect_failure "401 without a UUID v4 errorId" 'Auth.MissingApiKey*' \
  'workspaces.list: /errorId must be a UUID v4' \
  '{"method":"GET","path":"/v1/workspace/list","apiKey":"","times":0,"status":401,"body":{"status":401,"message":"Invalid API key","errorId":"42"}}'

expect_failure "400 not naming the param" 'MailboxesDetails.MissingIdIs400' \
  'mailboxes.details: /errors must hold an entry with param "id"' \
  '{"method":"GET","path":"/v1/mailbox/details","times":0,"status":400,"body":{"status":400,"message":"Validation failed","errors":[{"msg":"mailbox required","param":"mailboxId","location":"query"}]}}'

expect_failure "slots that do not add up" 'DnsShieldSlots.SlotsAddUp' \
  'dns_shield.available_slots: /data/totalAvailableSlots must be the sum of availableSlots' \
  '{"method":"GET","path":"/v2/dns-shield/available-slots","times":0,"patch":[{"op":"replace","path":"/data/totalAvailableSlots","value":999}]}'

expect_failure "an envelope where the spec has none" 'DomainsBuy.PaymentLinkAnswerHasNoEnvelope' \
  'domains.buy: /status must be absent' \
  '{"method":"POST","path":"/v1/domain/buy-domain","times":0,"patch":[{"op":"add","path":"/status","value":200}]}'

expect_failure "placementType not enforced" 'PlacementTests.PlacementTypeMustBeMonthlyOrOneTime' \
  'placement_tests.purchase: HTTP status must be 400, got 200' \
  '{"method":"POST","path":"/v2/placement-tests/purchase","times":0,"status":200,"body":{"status":200,"message":"ok","data":null}}'

# A wrong signature: emsim signs the delivery to the suite's receiver under another key (a
# "delivery" fault), exactly what a sender with a wrong or stale secret would send.
expect_failure "wrong webhook signature" 'WebhookDelivery.ASignedEnvelopeArrivesForAnEvent' \
  'webhook delivery domain.updated: header X-Service-Signature v1 must be the hex HMAC-SHA256' \
  '{"target":"delivery","path":"/hooks/e2e","times":0,"corruptSignature":true}'

expect_failure "delivery envelope field missing" 'WebhookDelivery.ASignedEnvelopeArrivesForAnEvent' \
  'webhook delivery domain.updated: /api_version is required' \
  '{"target":"delivery","path":"/hooks/e2e","times":0,"patch":[{"op":"remove","path":"/api_version"}]}'

expect_failure "secret listed" 'WebhooksCreate.SecretIsShownOnceAndNeverListed' \
  'webhooks.list: /data/0/secret must never be listed' \
  '{"method":"GET","path":"/v2/webhooks/endpoints","times":0,"patch":[{"op":"add","path":"/data/0/secret","value":"whsec_0123456789abcdef0123456789abcdef01234567"}]}'

# Open where the spec is open: a plan type beyond the values the spec has seen, and a field it does
# not list, are NOTE lines and a pass by default (a real deployment may have more), failures with
# --strict.
curl -s -X DELETE "$base/_sim/faults" >/dev/null
open_fault='{"method":"GET","path":"/v2/dns-shield/available-slots","times":0,"patch":[{"op":"replace","path":"/data/subscriptions/0/planType","value":"ENTERPRISE"},{"op":"add","path":"/data/subscriptions/0/region","value":"eu"}]}'
if [ "$(fault "$open_fault")" != 201 ]; then
  fail=$((fail + 1)); echo "FAIL: /_sim/faults refused $open_fault: $(cat "$tmp/fault")"
else
  "$suite" --base-url "$base" --gtest_filter='DnsShieldSlots.SlotsAddUp' >"$tmp/open" 2>&1; rc=$?
  if [ "$rc" -eq 0 ] && grep -q 'NOTE: dns_shield.available_slots: /data/subscriptions/0/planType must be one of STARTER, GROWTH, PRO' "$tmp/open" &&
     grep -q "NOTE: dns_shield.available_slots: /data/subscriptions/0 .*'region'" "$tmp/open"; then
    pass=$((pass + 1)); echo "ok: a value the spec has not seen and a field it does not list: notes, the check passes"
  else
    fail=$((fail + 1)); echo "FAIL: open values: expected a pass with two NOTE lines (exit $rc)"; sed 's/^/    /' "$tmp/open" | head -30
  fi
  "$suite" --base-url "$base" --strict --gtest_filter='DnsShieldSlots.SlotsAddUp' >"$tmp/strict" 2>&1; rc=$?
  if [ "$rc" -ne 0 ] && grep -q 'dns_shield.available_slots: /data/subscriptions/0/planType must be one of STARTER, GROWTH, PRO' "$tmp/strict" &&
     ! grep -q '^NOTE' "$tmp/strict"; then
    pass=$((pass + 1)); echo "ok: --strict: the same answer fails, naming the field"
  else
    fail=$((fail + 1)); echo "FAIL: --strict: expected a failure naming planType (exit $rc)"; sed 's/^/    /' "$tmp/strict" | head -30
  fi
fi

kill -TERM "$pid"; wait "$pid" 2>/dev/null; pid=""
echo "contract-selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
