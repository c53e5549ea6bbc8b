#!/usr/bin/env bash
# Flat cost as the world grows: one emsim (in memory, manual clock) under full load, in rounds of
# wrk -t2 -c32, until BENCH_RECORDS records are retained; after each round the round's throughput
# and p99, the records retained, VmRSS, and the resident bytes per operation (over the round and
# since the start). Three kinds, each on a fresh emsim:
#   purchases  POST /v2/placement-tests/purchase, MONTHLY, 3 mailboxes (placement credits unlimited)
#   domains    POST /v1/domain/buy-domain from the wallet, a new name each (the wallet unlimited)
#   mailboxes  POST /v1/mailbox/assign-new, one new mailbox each on one domain (the quantity unlimited)
# Records per operation are counted once, from GET /_sim/state around the first operation (every
# list of the document: records, jobs, events, wallet movements), then records = operations x that.
# Nothing is asserted; the goal (the flat-cost issue) is the last round's throughput >= 90% of the
# first's, and bytes per operation constant.
# Usage: bash bench/soak.sh [BUILD_DIR]   BENCH_KINDS (default "purchases domains mailboxes"),
#   BENCH_RECORDS (default 10000000), BENCH_ROUND (default 10s), BENCH_OUT=FILE appends the section.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
command -v wrk >/dev/null || { echo "soak.sh needs wrk (bench/run.sh installs it)" >&2; exit 2; }

# The default fixtures with nothing running out: placement credits, the wallet, the mailbox quantity.
sed -E -e 's/(placementCredits: )[0-9]+/\11000000000/' -e 's/(walletBalance: )"[0-9.]+"/\1"100000000.00"/' \
  -e 's/(totalMailboxQuantity: )[0-9]+/\1100000000/' "$root/fixtures/default.yaml" >"$work/fixture.yaml"

section="## Soak: flat cost as the world grows (bench/soak.sh), $(date -u +%Y-%m-%dT%H:%M:%SZ)

\`bash bench/soak.sh\` (main at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')) on $(nproc) CPUs; wrk -t2 -c32, rounds of ${BENCH_ROUND:-10s}, client and server on the same CPUs; emsim in memory, manual clock.
"
for kind in ${BENCH_KINDS:-purchases domains mailboxes}; do
  "$build/emsim" serve --port 0 --clock manual --fixtures "$work/fixture.yaml" >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 1000); do grep -q 'emsim ready' "$work/out" 2>/dev/null && break; sleep 0.01; done
  port=$(sed -n 's/.*ready on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/out" | head -1)
  [ -n "$port" ] || { cat "$work/out" "$work/err" >&2; exit 1; }
  part=$(python3 - "$root" "$port" "$pid" "$kind" "${BENCH_RECORDS:-10000000}" "${BENCH_ROUND:-10s}" <<'PY'
import http.client, json, os, re, subprocess, sys
root, port, pid, kind, target, round_len = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
key = "emsim_test_alice_3f9c2a7b"
path, body = {
    "purchases": ("/v2/placement-tests/purchase",
                  '{"placementType":"MONTHLY","testName":"soak","mailboxIds":["mbx_nw_01_01","mbx_nw_01_02","mbx_nw_01_03"]}'),
    "domains": ("/v1/domain/buy-domain", '{"domainName":"soak-{n}.com","useWallet":true}'),
    "mailboxes": ("/v1/mailbox/assign-new",
                  '{"dom_nw_01":[{"firstName":"Soak","lastName":"Test","mailboxUsername":"m{n}","domainName":"northwindreach.com"}]}'),
}[kind]

def call(method, p, data=None):
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request(method, p, body=data, headers={"x-auth-service": key, "Content-Type": "application/json"})
    r = c.getresponse(); out = r.read(); c.close()
    if r.status >= 300: raise SystemExit(f"{kind}: {method} {p}: {r.status} {out[:300]!r}")
    return out

def records():
    doc = json.loads(call("GET", "/_sim/state"))
    return sum(len(v) for v in doc.values() if isinstance(v, list))

def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) * 1024

before = records()
call("POST", path, body.replace("{n}", "first"))
per_op = records() - before
ops = 1
base_rss = rss()
env = dict(os.environ, BENCH_METHOD="POST", BENCH_BODY=body)
rows, first_rps, last_rss, last_ops, r = [], None, base_rss, ops, 0
while ops * per_op < target:
    r += 1
    env["BENCH_TAG"] = f"r{r}"
    out = subprocess.run(["wrk", "-t2", "-c32", f"-d{round_len}", "--timeout", "10s", "-s", f"{root}/bench/wrk/unique.lua",
                          "-H", f"x-auth-service: {key}", f"http://127.0.0.1:{port}{path}"],
                         env=env, capture_output=True, text=True, check=True).stdout
    m = dict(re.findall(r"(\w+)=([\d.]+)", next(l for l in out.splitlines() if l.startswith("WRK"))))
    errors = int(m["socket_errors"]) + int(m["status_errors"])
    done = int(m["requests"]) - errors
    if done <= 0: raise SystemExit(f"{kind}: round {r}: nothing succeeded ({errors} errors)")
    ops += done
    now = rss()
    rps = float(m["rps"]) * done / int(m["requests"])
    first_rps = first_rps or rps
    rows.append(f"| {ops * per_op / 1e6:.2f} M ({ops:,} ops) | {rps:,.0f} ({100 * rps / first_rps:.0f}%) | "
                f"{int(m['p99_us']) / 1000:.2f} ms | {errors} | {now / 2**30:.2f} GiB | "
                f"{(now - last_rss) / max(1, ops - last_ops):,.0f} B | {(now - base_rss) / max(1, ops - 1):,.0f} B |")
    print(rows[-1], file=sys.stderr, flush=True)
    last_rss, last_ops = now, ops
print(f"\n### {kind}: `POST {path}`, {per_op} records per operation\n")
print("| records retained | ops/s (of the first round) | p99 | errors | VmRSS | bytes per op, this round | bytes per op, since the start |")
print("|---|---|---|---|---|---|---|")
print("\n".join(rows))
PY
)
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  section+="$part
"
done
echo "$section"
if [ -n "${BENCH_OUT:-}" ]; then echo "$section" >>"$BENCH_OUT"; fi
