#!/usr/bin/env bash
# Shards behind HAProxy (README "Many emsims"), measured in one run: three emsims
# (--shard-id s0..s2) and deploy/haproxy.cfg in front of them on loopback, load from wrk.
#   1. throughput of GET /v1/workspace/list through HAProxy with the load spread over the tenants
#      of one, two and three shards (wrk -t2 -c32; each request takes the next tenant's key);
#   2. the same load on shard s0 directly, for comparison;
#   3. HAProxy's added latency: one connection, one request at a time (wrk -t1 -c1), p50 and p99
#      on s0 directly and through HAProxy.
#   bash bench/shards.sh [BUILD_DIR]     (BENCH_DURATION, default 10s; BENCH_OUT=FILE appends the table)
# All of it shares this machine's cores: emsim, HAProxy and wrk compete for them (see the note the
# table ends with).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${EMSIM_BUILD_DIR:-$root/build}}
duration=${BENCH_DURATION:-10s}
for t in haproxy wrk; do
  command -v "$t" >/dev/null || { echo "bench/shards.sh: $t is missing (apt-get install $t)" >&2; exit 2; }
done
[ -x "$build/emsim" ] || { echo "bench/shards.sh: $build/emsim is missing; build first" >&2; exit 2; }
for v in $(compgen -e | grep '^EMSIM_' || true); do unset "$v"; done
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
# shellcheck source=../scripts/lib/haproxy.sh
source "$root/scripts/lib/haproxy.sh"

declare -a port
for i in 0 1 2; do
  "$build/emsim" serve --port 0 --shard-id "s$i" --log-level warn >"$work/s$i.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 200); do grep -q 'emsim ready' "$work/s$i.out" && break; sleep 0.05; done
  port[$i]=$(grep -o 'ready on http://127.0.0.1:[0-9]*' "$work/s$i.out" | sed 's/.*://')
done
start_haproxy "$root" "${port[0]}" "${port[1]}" "${port[2]}" "$work/haproxy.log"
pids+=("$haproxy_pid")
hp=$haproxy_port
up=$(wait_haproxy_up "$haproxy_stats")
[ "$up" = 3 ] || { echo "bench/shards.sh: HAProxy sees $up of 3 shards up" >&2; cat "$work/haproxy.log" >&2; exit 1; }
# Four tenants per shard, created on each shard directly so every shard has the same number.
declare -A keys
for i in 0 1 2; do
  for _ in 1 2 3 4; do
    k=$(curl -s -X POST "http://127.0.0.1:${port[$i]}/_sim/tenants" -H 'content-type: application/json' -d '{}' |
      grep -o '"apiKey":"[^"]*"' | cut -d'"' -f4)
    keys[$i]="${keys[$i]:+${keys[$i]},}$k"
  done
done

run() {  # run URL KEYS WRK-ARGS...: prints "rps p50_us p99_us errors"
  local url=$1 ks=$2
  shift 2
  BENCH_KEYS=$ks wrk "$@" -d "$duration" -s "$root/bench/wrk/keys.lua" "$url" | grep '^WRK ' |
    sed -E 's/.*rps=([0-9.]+) p50_us=([0-9]+) p99_us=([0-9]+) socket_errors=([0-9]+) status_errors=([0-9]+)/\1 \2 \3 \4 \5/'
}
row() {  # row LABEL "rps p50 p99 sock status"
  read -r rps p50 p99 se st <<<"$2"
  printf '| %s | %s | %s µs | %s µs | %s |\n' "$1" "$(printf '%.0f' "$rps")" "$p50" "$p99" "$((se + st))"
}

table=$work/table.md
{
  echo "## Many emsims: shards behind HAProxy (bench/shards.sh)"
  echo
  echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(haproxy -v | head -1 | cut -d' ' -f1-3), wrk ${duration} per row, GET /v1/workspace/list, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| Load | req/s | p50 | p99 | errors |"
  echo "|---|---|---|---|---|"
} >"$table"
row "s0 directly, -t2 -c32 (4 tenants)" "$(run "http://127.0.0.1:${port[0]}" "${keys[0]}" -t2 -c32)" >>"$table"
row "HAProxy, 1 shard, -t2 -c32 (4 tenants)" "$(run "http://127.0.0.1:$hp" "${keys[0]}" -t2 -c32)" >>"$table"
row "HAProxy, 2 shards, -t2 -c32 (8 tenants)" "$(run "http://127.0.0.1:$hp" "${keys[0]},${keys[1]}" -t2 -c32)" >>"$table"
row "HAProxy, 3 shards, -t2 -c32 (12 tenants)" "$(run "http://127.0.0.1:$hp" "${keys[0]},${keys[1]},${keys[2]}" -t2 -c32)" >>"$table"
row "s0 directly, -t1 -c1 (latency)" "$(run "http://127.0.0.1:${port[0]}" "${keys[0]}" -t1 -c1)" >>"$table"
row "HAProxy to s0, -t1 -c1 (latency)" "$(run "http://127.0.0.1:$hp" "${keys[0]}" -t1 -c1)" >>"$table"
{
  echo
  echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "On this machine the shards, HAProxy and wrk share $(nproc) cores, so more shards cannot add"
  echo "throughput here: they split the same CPU (and HAProxy's own work comes out of it too). With"
  echo "one shard per machine each shard has its cores to itself, and the ceiling is the sum of the"
  echo "shards' direct figures, less what HAProxy's machine can forward; the added latency row is the"
  echo "cost of the extra hop."
} >>"$table"
cat "$table"
[ -z "${BENCH_OUT:-}" ] || { echo; cat "$table"; } >>"$BENCH_OUT"
