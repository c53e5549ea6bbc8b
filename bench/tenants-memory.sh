#!/usr/bin/env bash
# Tenants come and go (README "Parallel tests: tenants"): creates and deletes 100,000 tenants, each
# making one request and one event on its own clock in between, and prints emsim's resident memory
# (VmRSS) before and after. No target is asserted: the figures are for reading (a leak shows as
# an "after" that grows with BENCH_TENANTS).
# The journal (/_sim/requests, a bounded ring that keeps the /_sim calls of the run) is emptied
# before each measure, so what is compared is the world's memory.
# Usage: bash bench/tenants-memory.sh [BUILD_DIR]   (default build/; BENCH_TENANTS, default 100000;
# BENCH_BATCH, default 100: tenants alive at once. Deleting a tenant costs time in proportion to the
# records alive, the fixture's ~100 emails per clone included: 1,000 alive made a cycle ~50 ms)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

"$build/emsim" serve --port 0 --clock manual >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 1000); do grep -q 'emsim ready' "$work/out" 2>/dev/null && break; sleep 0.01; done
port=$(sed -n 's/.*ready on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/out" | head -1)
[ -n "$port" ] || { cat "$work/out" "$work/err" >&2; exit 1; }

python3 - "$port" "$pid" "${BENCH_TENANTS:-100000}" "${BENCH_BATCH:-100}" <<'PY'
import http.client, json, sys, time
port, pid, total, batch = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
conn = http.client.HTTPConnection("127.0.0.1", port)

def call(method, path, body=None, key=None):
    headers = {"Content-Type": "application/json"}
    if key: headers["x-auth-service"] = key
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300: raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
    return json.loads(data) if data else None

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1])

def round_of(n):
    made = []
    for _ in range(n):
        t = call("POST", "/_sim/tenants", {})
        made.append(t)
        call("GET", "/v1/domain/list", key=t["apiKey"])
        call("POST", "/_sim/events", {"type": "workspace.invitations", "apiKey": t["apiKey"]})
    peak = rss_kib()
    for t in made: call("DELETE", "/_sim/tenants/" + t["accountId"])
    return peak

start = rss_kib()
round_of(batch)  # the allocator's pools reach their working size
call("DELETE", "/_sim/requests")
before = rss_kib()
t0 = time.time(); peak = 0; done = 0
while done < total:
    n = min(batch, total - done)
    peak = max(peak, round_of(n)); done += n
    if done % max(batch, total // 10 // batch * batch) == 0 or done == total:
        # The curve tells a leak (growing in step with the tenants) from an allocator that keeps
        # what it reached (a step, then flat).
        print(f"  {done:>7} tenants: VmRSS {rss_kib() / 1024:.1f} MiB", flush=True)
call("DELETE", "/_sim/requests")
after = rss_kib()
left = len(call("GET", "/_sim/tenants")["tenants"])
state = call("GET", "/_sim/state")
print(f"tenants created and deleted: {done} (in rounds of {batch} alive at once), {time.time() - t0:.1f} s")
print(f"VmRSS at start:               {start / 1024:.1f} MiB")
print(f"VmRSS before (after warm-up): {before / 1024:.1f} MiB")
print(f"VmRSS peak (a round alive):   {peak / 1024:.1f} MiB")
print(f"VmRSS after:                  {after / 1024:.1f} MiB ({(after - before) / 1024:+.1f} MiB)")
print(f"left: {left} tenants, {len(state['accounts'])} accounts, {len(state['events'])} events, {len(state['jobs'])} jobs")
PY
