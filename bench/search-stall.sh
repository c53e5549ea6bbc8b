#!/usr/bin/env bash
# What a write waits while a workspace's first search builds its index: a generated world of
# BENCH_MAILBOXES mailboxes (default 1,000,000; one email each, one account), a steady load of
# writes (PUT /_sim/wallet, wrk -t1 -c4, BENCH_DURATION, default 12s) and, 3 s into it, the three
# first searches one after the other (mailboxes, emails, domains). Prints each search's time and
# the writes' latency percentiles and maximum. A read route builds the index in steps of
# api::kIndexStep records, each a read transaction of its own (app::Ctx::ReadInSteps): a write
# waits for a step, not for the whole build. BENCH_WARM_INDEXES (default 0) is emsim's
# --warm-indexes: 0 leaves the indexes to the first searches, as above; 10000 (emsim's default)
# builds them once the world is loaded, while the writes run (they start at ready), in the same
# steps on a thread of its own, and the searches at 3 s find them built, or finish the build.
# Usage: bash bench/search-stall.sh [BUILD_DIR]   (default build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mailboxes=${BENCH_MAILBOXES:-1000000}
warm=${BENCH_WARM_INDEXES:-0}
duration=${BENCH_DURATION:-12s}
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
export EMSIM_SHARE_DIR=$root
"$build/emsim" fixtures generate --mailboxes "$mailboxes" >"$work/world.yaml"
key=emsim_gen_00001
"$build/emsim" serve --port 0 --clock manual --log-level warn --warm-indexes "$warm" --fixtures "$work/world.yaml" >"$work/out" 2>"$work/err" &
pid=$!
until port=$(grep -oP 'ready on http://127\.0\.0\.1:\K\d+' "$work/out" 2>/dev/null); do
  kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
  sleep 0.1
done
echo "world: $mailboxes generated mailboxes and as many emails, one workspace; --warm-indexes $warm; emsim $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
BENCH_METHOD=PUT BENCH_BODY='{"balance":1000}' wrk -t1 -c4 -d"$duration" --latency --timeout 60s \
  -s "$root/bench/wrk/report.lua" -H "x-auth-service: $key" "http://127.0.0.1:$port/_sim/wallet" >"$work/wrk" &
load=$!
sleep 3
for q in '/v1/mailbox/list?contains=gen-0000123' '/v2/onebox/search-emails?q=contact42@' '/v1/domain/list?contains=gen-0000123'; do
  t=$(curl -s -o /dev/null -w '%{time_total}' -H "x-auth-service: $key" "http://127.0.0.1:$port$q")
  echo "first search: $t s  GET $q"
done
wait "$load"
awk '/Latency  /{print "writes: mean " $2 ", max " $4} / (50|90|99)%/{print "writes: p" $1 " " $2}' "$work/wrk" | sed 's/%//'
grep -oP 'rps=\K[\d.]+' "$work/wrk" | sed 's/^/writes: r\/s over the run /'
