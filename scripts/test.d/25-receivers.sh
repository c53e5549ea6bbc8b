#!/usr/bin/env bash
# The receiver snippets of README "Webhooks" (Python, Node, C++), taken from README.md as a reader
# pastes them, against real deliveries from a fresh emsim: each must accept what emsim signs and
# refuse, as Part 6 says, a signature made with another key, a body changed after signing and a
# timestamp more than 5 minutes old. Python and Node listen and answer emsim itself; the C++ one
# checks one delivery (header as argument, body on stdin), fed what an emsim sink received.
# Nothing is built here but the C++ snippet. Prints one line per check and ends with
# "receivers: N passed, N failed".
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
# A scratch dir ($tmp), the background processes to stop on exit ($pids), start_emsim.
# shellcheck source=../lib/start-emsim.sh
source "$root/scripts/lib/start-emsim.sh"
pass=0 fail=0
key=emsim_test_alice_3f9c2a7b
check() {  # check NAME COMMAND...: one line, and the command's verdict
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok: $name"; return 0; fi
  fail=$((fail + 1)); echo "FAIL: $name"; return 1
}
finish() {
  echo "receivers: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

# snippet LANG FILE: the fenced block right after "<!-- receiver: LANG -->", which must be there once.
snippet() {
  [ "$(grep -cxF "<!-- receiver: $1 -->" "$root/README.md")" -eq 1 ] || return 1
  awk -v mark="<!-- receiver: $1 -->" '
    $0 == mark { state = 1; next }
    state == 1 && /^```/ { state = 2; next }
    state == 1 { exit }
    state == 2 && /^```/ { exit }
    state == 2 { print }' "$root/README.md" >"$2"
  [ -s "$2" ]
}
api() {  # api METHOD PATH [JSON]: emsim's answer
  curl -sS -m 30 -X "$1" "http://127.0.0.1:$port$2" -H "x-auth-service: $key" \
    -H 'content-type: application/json' ${3:+-d "$3"}
}
json() {  # json EXPR < JSON: EXPR of the document `d`, printed (a tuple: its items, space-separated)
  python3 -c 'import json, sys; d = json.load(sys.stdin); v = eval(sys.argv[1])
print(*(v if isinstance(v, tuple) else (v,)))' "$1"
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# listening PORT PID: polls up to 10 s, giving up as soon as PID is gone. A bare connect, not a
# request: the Python snippet, like most receivers, has no answer for an unsigned POST.
listening() {
  for _ in $(seq 1 200); do
    kill -0 "$2" 2>/dev/null || return 1
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
sign() {  # sign SECRET T BODYFILE: an X-Service-Signature value made as Part 6 says
  python3 -c 'import hashlib, hmac, sys
t, body = sys.argv[2], open(sys.argv[3], "rb").read()
print("t=%s,v1=%s" % (t, hmac.new(sys.argv[1].encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()))' "$@"
}
tamper() {  # tamper IN OUT: the same delivery with one field changed after signing
  python3 -c 'import sys
b = open(sys.argv[1], "rb").read()
t = b.replace(b"\"type\":\"domain.updated\"", b"\"type\":\"mailbox.updated\"", 1)
open(sys.argv[2], "wb").write(t)
sys.exit(t == b)' "$@"
}
post() {  # post PORT PATH HEADER BODYFILE: the status code the receiver answers
  curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1$2" \
    -H 'content-type: application/json' -H "X-Service-Signature: $3" --data-binary "@$4"
}
# first_attempt ENDPOINT_ID EVENT_IDS: "status responseStatus" of the first attempt of one of the
# events (a comma list) at that endpoint, from emsim's delivery log.
first_attempt() {
  api GET "/_sim/deliveries?endpointId=$1" | json "' '.join('%s %s' % (x['status'], x['responseStatus'])
    for x in d['deliveries'] if x['eventId'] in '$2'.split(',') and x['attempt'] == 1)"
}

for tool in python3 node g++ curl; do
  command -v "$tool" >/dev/null || { check "$tool is installed (scripts/install-deps.sh)" false; finish; }
done
declare -A file=([python]=receiver.py [node]=receiver.js [cpp]=verify.cpp)
for lang in python node cpp; do
  check "README has one $lang receiver snippet" snippet "$lang" "$tmp/${file[$lang]}"
done
# The compile runs while emsim starts; the flags are the snippet's first line's plus warnings.
g++ -std=c++17 -Wall -Wextra "$tmp/verify.cpp" -lcrypto -o "$tmp/verify" >"$tmp/g++.out" 2>&1 &
gxx=$!

# A manual clock: first attempts still go at once (due when the event is created) and the
# signatures carry the wall clock (the default), but no retry falls due while the test runs.
start_emsim recv --clock manual
if [ -z "$port" ]; then check "emsim starts" false; wait "$gxx"; finish; fi

declare -A endpoint secret rport
register() {  # register NAME URL: a domain.updated endpoint; sets endpoint[NAME] and secret[NAME]
  read -r "endpoint[$1]" "secret[$1]" < <(api POST /v2/webhooks/endpoints \
    "{\"url\":\"$2\",\"enabled_events\":[\"domain.updated\"]}" | json "d['data']['id'], d['data']['secret']")
}
declare -A run=([python]=python3 [node]=node)
for lang in python node; do
  rport[$lang]=$(free_port)
  register "$lang" "http://127.0.0.1:${rport[$lang]}/$lang"
  "${run[$lang]}" "$tmp/${file[$lang]}" "${secret[$lang]}" "${rport[$lang]}" >"$tmp/$lang.log" 2>&1 &
  pids+=($!)
  check "the $lang receiver listens on the port given on its command line" listening "${rport[$lang]}" "$!" \
    || cat "$tmp/$lang.log"
done
read -r sink_id sink_url < <(api POST /_sim/sinks '{"name":"cpp"}' | json "d['id'], d['url']")
register cpp "$sink_url"

# Event 1 is signed as usual; event 2 with a wrong key, at every endpoint (a delivery fault).
# The advance by 0 s answers once the attempts due now have been made.
good=$(api POST /_sim/domains/dom_nw_01/transition '{"status":"CONNECTED"}' | json "','.join(d['eventIds'])")
api POST /_sim/clock/advance '{"seconds":0}' >/dev/null
for path in /python /node "${sink_url#http://127.0.0.1:"$port"}"; do
  api POST /_sim/faults "{\"target\":\"delivery\",\"path\":\"$path\",\"corruptSignature\":true}" >/dev/null
done
wrong=$(api POST /_sim/domains/dom_nw_01/transition '{"status":"ACTIVE"}' | json "','.join(d['eventIds'])")
api POST /_sim/clock/advance '{"seconds":0}' >/dev/null

# What the sink received: event 1's body and header (the C++ snippet's input, and a real body
# for the hand-signed requests below), event 2's header.
api GET "/_sim/sinks/$sink_id" | python3 -c 'import json, sys
good, wrong, out = sys.argv[1].split(","), sys.argv[2].split(","), sys.argv[3]
for r in json.load(sys.stdin)["requests"]:
    name = "good" if json.loads(r["body"])["id"] in good else "wrong" if json.loads(r["body"])["id"] in wrong else None
    if name:
        open(out + "/" + name + ".body", "wb").write(r["body"].encode())
        open(out + "/" + name + ".sig", "w").write(r["headers"]["x-service-signature"])' "$good" "$wrong" "$tmp"
if ! { [ -s "$tmp/good.body" ] && tamper "$tmp/good.body" "$tmp/tampered.body"; }; then
  check "the sink received event 1 from emsim" false
  wait "$gxx"
  finish
fi
# Requests signed here, with the receiver's own secret: emsim signs with the wall clock of now, so
# a stale timestamp can only be made by hand; the one signed now shows that what refuses the old
# one is its age, not the way it was signed.
now=$(date +%s)

for lang in python node; do
  p=${rport[$lang]} s=${secret[$lang]}
  check "$lang: emsim's delivery is accepted (200)" \
    test "$(first_attempt "${endpoint[$lang]}" "$good")" = "succeeded 200"
  check "$lang: emsim's delivery signed with a wrong key is refused (400)" \
    test "$(first_attempt "${endpoint[$lang]}" "$wrong")" = "failed 400"
  check "$lang: a delivery signed now with its secret is accepted (200)" \
    test "$(post "$p" "/$lang" "$(sign "$s" "$now" "$tmp/good.body")" "$tmp/good.body")" = 200
  check "$lang: the same with the body changed after signing is refused (400)" \
    test "$(post "$p" "/$lang" "$(sign "$s" "$now" "$tmp/good.body")" "$tmp/tampered.body")" = 400
  check "$lang: a delivery signed 10 minutes ago is refused (400)" \
    test "$(post "$p" "/$lang" "$(sign "$s" $((now - 600)) "$tmp/good.body")" "$tmp/good.body")" = 400
done

wait "$gxx"
if ! check "cpp: the snippet compiles with g++ and libcrypto" test -x "$tmp/verify"; then
  cat "$tmp/g++.out"
  finish
fi
[ -s "$tmp/g++.out" ] && { echo "cpp: compiler warnings:"; cat "$tmp/g++.out"; }
verify() {  # verify WANT SECRET HEADER BODYFILE: the snippet printed WANT, exiting 0 for valid, 1 for invalid
  local said rc want_rc=1
  [ "$1" = valid ] && want_rc=0
  said=$("$tmp/verify" "$2" "$3" <"$4"); rc=$?
  [ "$said" = "$1" ] && [ "$rc" -eq "$want_rc" ]
}
s=${secret[cpp]}
check "cpp: emsim's delivery (as its sink received it) is valid" \
  verify valid "$s" "$(cat "$tmp/good.sig")" "$tmp/good.body"
check "cpp: emsim's delivery signed with a wrong key is invalid" \
  verify invalid "$s" "$(cat "$tmp/wrong.sig" 2>/dev/null)" "$tmp/wrong.body"
check "cpp: emsim's delivery with the body changed after signing is invalid" \
  verify invalid "$s" "$(cat "$tmp/good.sig")" "$tmp/tampered.body"
check "cpp: a delivery signed now with its secret is valid" \
  verify valid "$s" "$(sign "$s" "$now" "$tmp/good.body")" "$tmp/good.body"
check "cpp: a delivery signed 10 minutes ago is invalid" \
  verify invalid "$s" "$(sign "$s" $((now - 600)) "$tmp/good.body")" "$tmp/good.body"
finish
