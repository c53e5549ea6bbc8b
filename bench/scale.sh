#!/usr/bin/env bash
# emsim with a large world (bench/README.md "Scale"): what a long QA soak leaves behind, measured.
# One emsim (in memory, manual clock; the soak's fixture, where nothing runs out):
#   1. the stateful POST (MONTHLY placement purchase of 3 mailboxes) against the bare cpp-httplib
#      server answering the same bytes, in alternating rounds (bare, emsim, bare, emsim, bare), fresh;
#   2. purchases until BENCH_PURCHASES (default 1,000,000) are retained, each with its pending
#      placement job (the manual clock holds them all at one due time);
#   3. the same comparison at that size;
#   4. a 2-day advance over the pending jobs (each runs twice: RUNNING, then COMPLETED, emitting an
#      event per test): time, jobs run, time per job, VmRSS before and after, and the peak during it.
# Then, on a fresh emsim with BENCH_SMALL (default 10,000) purchases, the same advance, so the time
# per job can be compared (the scheduler is O(log n) per job); and the dump/boot round trip at
# BENCH_DUMP_PURCHASES (default 150,000): GET /_sim/state?secrets=true (time, bytes, the server's
# peak over its steady VmRSS), `emsim serve --state FILE` (time to ready, steady VmRSS, peak) and
# PUT /_sim/state of the same file; then a generated fixture of BENCH_FIXTURE_MAILBOXES (default
# 4,500,000: ~10 M records with their emails and domains): time to ready, VmRSS, peak, and the
# lists and searches (mailboxes, domains, emails) at that size against the same on a 1k fixture.
# Peaks are VmHWM after resetting it (/proc/PID/clear_refs); where that is not allowed, "n/a".
# Nothing is asserted. Usage: bash bench/scale.sh [BUILD_DIR]; BENCH_ROUND (default 8s);
# BENCH_PARTS (default world,fixture: "fixture" alone runs only the generated fixture part, "world"
# only the others);
# BENCH_OUT=FILE appends the section.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
command -v wrk >/dev/null || { echo "scale.sh needs wrk (bench/run.sh installs it)" >&2; exit 2; }
for b in emsim emsim-bench-bare; do
  [ -x "$build/$b" ] || { echo "scale.sh: $build/$b is missing; build first (bash scripts/build.sh)" >&2; exit 2; }
done

# The default fixtures with nothing running out: placement credits, the wallet.
sed -E -e 's/(placementCredits: )[0-9]+/\11000000000/' -e 's/(walletBalance: )"[0-9.]+"/\1"100000000.00"/' \
  "$root/fixtures/default.yaml" >"$work/fixture.yaml"

python3 - "$root" "$build" "$work" <<'PY' | tee "$work/section"
import http.client, json, os, re, subprocess, sys, time
root, build, work = sys.argv[1:4]
purchases = int(os.environ.get("BENCH_PURCHASES", "1000000"))
small = int(os.environ.get("BENCH_SMALL", "10000"))
dump_purchases = int(os.environ.get("BENCH_DUMP_PURCHASES", "150000"))
round_len = os.environ.get("BENCH_ROUND", "8s")
parts = os.environ.get("BENCH_PARTS", "world,fixture").split(",")
key = "emsim_test_alice_3f9c2a7b"
path = "/v2/placement-tests/purchase"
body = '{"placementType":"MONTHLY","testName":"scale","mailboxIds":["mbx_nw_01_01","mbx_nw_01_02","mbx_nw_01_03"]}'
env = dict(os.environ, EMSIM_SHARE_DIR=root)

def log(*a): print("--", *a, file=sys.stderr, flush=True)

def start(args, name):
    out = open(f"{work}/{name}.out", "w")
    p = subprocess.Popen(args, stdout=out, stderr=open(f"{work}/{name}.err", "w"), env=env)
    t0 = time.monotonic()
    while True:
        text = open(f"{work}/{name}.out").read()
        m = re.search(r"ready on http://127\.0\.0\.1:(\d+)", text)
        if m: return p, int(m.group(1)), time.monotonic() - t0
        if p.poll() is not None: raise SystemExit(f"{name} did not start: " + open(f"{work}/{name}.err").read())
        time.sleep(0.005)

def emsim(name, *extra):
    return start([f"{build}/emsim", "serve", "--port", "0", "--clock", "manual", *extra], name)

def call(port, method, p, data=None, timeout=3600):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request(method, p, body=data, headers={"x-auth-service": key, "Content-Type": "application/json"})
    r = c.getresponse(); out = r.read(); c.close()
    if r.status >= 300: raise SystemExit(f"{method} {p}: {r.status} {out[:300]!r}")
    return out

def status(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1]) * 1024
    return 0

def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f: f.write("5")
        return True
    except OSError:
        return False

def wrk(port):
    out = subprocess.run(["wrk", "-t2", "-c32", f"-d{round_len}", "--timeout", "10s", "-s", f"{root}/bench/wrk/report.lua",
                          "-H", f"x-auth-service: {key}", f"http://127.0.0.1:{port}{path}"],
                         env=dict(env, BENCH_METHOD="POST", BENCH_BODY=body), capture_output=True, text=True, check=True).stdout
    m = dict(re.findall(r"(\w+)=([\d.]+)", next(l for l in out.splitlines() if l.startswith("WRK"))))
    errors = int(m["socket_errors"]) + int(m["status_errors"])
    return float(m["rps"]), int(m["p99_us"]), int(m["requests"]) - errors, errors

gib = lambda b: f"{b / 2**30:.2f} GiB"
mib = lambda b: f"{b / 2**20:.0f} MiB"
rows = []
def row(*cells): rows.append("| " + " | ".join(cells) + " |"); log(rows[-1])

if "world" in parts:
    # ---- the big world ----------------------------------------------------------------------------------
    server, port, _ = emsim("big", "--fixtures", f"{work}/fixture.yaml")
    answer = call(port, "POST", path, body)
    retained = 1
    with open(f"{work}/answer.json", "wb") as f: f.write(answer)
    bare, bare_port, _ = start([f"{build}/emsim-bench-bare", "--port", "0", "--body-file", f"{work}/answer.json"], "bare")

    def versus(when):
        global retained
        bares, ours = [], []
        for i in range(5):
            if i % 2 == 0: bares.append(wrk(bare_port))
            else:
                r = wrk(port); ours.append(r); retained += r[2]
                if r[3]: raise SystemExit(f"{r[3]} errors in a round of purchases")
        ceiling = sum(b[0] for b in bares) / len(bares)
        cells = [f"{r[0]:,.0f} r/s = {100 * r[0] / ceiling:.0f}%, p99 {r[1] / 1000:.2f} ms" for r in ours]
        row(f"stateful POST vs bare, {when}", f"{', '.join(cells)} (bare {ceiling:,.0f} r/s, p99 {bares[0][1] / 1000:.2f} ms)", "≥ 90% of bare")

    versus("fresh")
    while retained < purchases:
        r = wrk(port); retained += r[2]
        log(f"{retained:,} purchases retained, {r[0]:,.0f} r/s, VmRSS {gib(status(server.pid, 'VmRSS'))}")
    versus(f"after {retained:,} purchases")
    bare.terminate()

    def advance(srv, p, label):
        before = status(srv.pid, "VmRSS")
        peak = reset_peak(srv.pid)
        t0 = time.monotonic()
        res = json.loads(call(p, "POST", "/_sim/clock/advance", '{"duration":"2d"}'))
        took = time.monotonic() - t0
        after = status(srv.pid, "VmRSS")
        hwm = status(srv.pid, "VmHWM") if peak else None
        return res["jobsRun"], took, before, after, hwm

    ran, took, before, after, hwm = advance(server, port, "big")
    row(f"2-day advance over {retained:,} pending placement jobs",
        f"{took:.1f} s for {ran:,} jobs ({1e6 * took / max(1, ran):.1f} µs each); VmRSS {gib(before)} -> {gib(after)}, peak "
        + (gib(hwm) if hwm else "n/a"), "O(log n) per job")
    server.terminate(); server.wait()

    # ---- a small world: the time per job to compare ---------------------------------------------------------
    server, port, _ = emsim("small", "--fixtures", f"{work}/fixture.yaml")
    n = 0
    while n < small:
        call(port, "POST", path, body); n += 1
    ran, took, before, after, hwm = advance(server, port, "small")
    row(f"2-day advance over {small:,} pending placement jobs", f"{took:.2f} s for {ran:,} jobs ({1e6 * took / max(1, ran):.1f} µs each)", "")
    server.terminate(); server.wait()

    # ---- dump and boot ------------------------------------------------------------------------------------------
    server, port, _ = emsim("dump", "--fixtures", f"{work}/fixture.yaml")
    retained = 0
    while retained < dump_purchases:
        r = wrk(port); retained += r[2]
    steady = status(server.pid, "VmRSS")
    peak = reset_peak(server.pid)
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    c.request("GET", "/_sim/state?secrets=true")
    resp = c.getresponse()
    size = 0
    with open(f"{work}/state.json", "wb") as f:
        while chunk := resp.read(1 << 20):
            f.write(chunk); size += len(chunk)
    took = time.monotonic() - t0
    hwm = status(server.pid, "VmHWM") if peak else None
    doc_records = sum(len(v) for v in json.load(open(f"{work}/state.json")).values() if isinstance(v, list))
    row(f"state dump, {retained:,} purchases ({doc_records:,} records)",
        f"{took:.1f} s, {size / 2**20:.0f} MiB; server VmRSS {gib(steady)}, peak " + (f"{gib(hwm)} ({hwm / steady:.1f}×)" if hwm else "n/a"),
        "peak ≤ 2× steady")
    server.terminate(); server.wait()
    booted, bport, ready = emsim("boot", "--state", f"{work}/state.json", "--max-state-bytes", str(max(size * 2, 1 << 29)))
    time.sleep(1)  # the reset baseline is copied on a thread after ready
    steady = status(booted.pid, "VmRSS")
    hwm = status(booted.pid, "VmHWM")
    row(f"boot from that dump (emsim serve --state)",
        f"{ready:.1f} s to ready; VmRSS {gib(steady)} (the world and its reset copy), peak {gib(hwm)} ({hwm / steady:.1f}×)",
        "peak ≤ 2× steady")
    booted.terminate(); booted.wait()
    target, tport, _ = emsim("put", "--max-state-bytes", str(max(size * 2, 1 << 29)))
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", tport, timeout=3600)
    with open(f"{work}/state.json", "rb") as f:
        c.request("PUT", "/_sim/state", body=f, headers={"Content-Type": "application/json", "Content-Length": str(size)})
    r = c.getresponse(); r.read()
    took = time.monotonic() - t0
    if r.status != 200: raise SystemExit(f"PUT /_sim/state: {r.status}")
    time.sleep(1)
    steady, hwm = status(target.pid, "VmRSS"), status(target.pid, "VmHWM")
    row("load that dump into a running emsim (PUT /_sim/state)", f"{took:.1f} s; VmRSS {gib(steady)} (with the journal's copy of the body), peak {gib(hwm)} ({hwm / steady:.1f}×)",
        "peak ≤ 2× steady")
    target.terminate(); target.wait()

# ---- a generated fixture ---------------------------------------------------------------------------------
# The lists and searches at BENCH_FIXTURE_MAILBOXES, each against the same query on a 1k fixture
# (best of 15, sequential; the first search of a workspace timed alone, once GET /_sim/health says
# its indexes, built ahead, are ready).
searches = [
    ("mailbox list, page 1", "/v1/mailbox/list"),
    ("mailbox `contains`, selective (`gen-0000123`)", "/v1/mailbox/list?contains=gen-0000123"),
    ("mailbox `contains`, none found (`zz9`)", "/v1/mailbox/list?contains=zz9"),
    ("domain list, page 1", "/v1/domain/list"),
    ("domain `contains`, selective (`gen-0000123`)", "/v1/domain/list?contains=gen-0000123"),
    ("email search, no filter", "/v2/onebox/search-emails"),
    ("email search, selective term (`contact42@`)", "/v2/onebox/search-emails?q=contact42@"),
]
def fixture_run(n, big):
    with open(f"{work}/gen-{n}.yaml", "w") as f:
        subprocess.run([f"{build}/emsim", "fixtures", "generate", "--mailboxes", str(n)], stdout=f, check=True, env=env)
    gen, gport, ready = emsim(f"gen-{n}", "--fixtures", f"{work}/gen-{n}.yaml")
    since_ready = time.monotonic()
    time.sleep(1)
    steady, hwm = status(gen.pid, "VmRSS"), status(gen.pid, "VmHWM")
    # The workspace's search indexes are built once the world is loaded (--warm-indexes): the
    # searches are timed once GET /_sim/health says they are.
    while True:
        c = http.client.HTTPConnection("127.0.0.1", gport, timeout=600)
        c.request("GET", "/_sim/health")
        indexes = json.loads(c.getresponse().read())["searchIndexes"]
        if indexes["ready"]: break
        time.sleep(0.05)
    warm = time.monotonic() - since_ready
    def timed(p, tries=15):
        best = None
        for _ in range(tries):
            t0 = time.monotonic()
            c = http.client.HTTPConnection("127.0.0.1", gport, timeout=600)
            c.request("GET", p, headers={"x-auth-service": "emsim_gen_00001"})
            r = c.getresponse(); r.read()
            if r.status != 200: raise SystemExit(f"GET {p}: {r.status}")
            took = time.monotonic() - t0
            best = took if best is None else min(best, took)
        return best
    firsts = {"mailbox": timed("/v1/mailbox/list?contains=zz9", 1), "domain": timed("/v1/domain/list?contains=zz9", 1),
              "email": timed("/v2/onebox/search-emails?q=zz9", 1)}
    out = {what: timed(p) for what, p in searches}
    if big:
        records = n * 2 + n // 5  # a mailbox, its email, a domain per 5 (the generator's defaults)
        row(f"fixture load, {n:,} generated mailboxes (~{records / 1e6:.1f} M records)",
            f"{ready:.1f} s to ready; VmRSS {gib(steady)}, peak {gib(hwm)} ({hwm / steady:.2f}×)", "peak ≤ 2× steady")
        out["every mailbox (`example`: a scan; its answer counts them all)"] = timed("/v1/mailbox/list?contains=example", 2)
        out["firsts"] = firsts
        out["warm"] = warm
        out["rss"] = status(gen.pid, "VmRSS")
    gen.terminate(); gen.wait()
    return out
if "fixture" in parts:
    mailboxes = int(os.environ.get("BENCH_FIXTURE_MAILBOXES", "4500000"))
    small_run = fixture_run(1000, False)
    big_run = fixture_run(mailboxes, True)
    cells = []
    for what, _ in searches:
        a, b = small_run[what], big_run[what]
        cells.append(f"{what}: {1e3 * b:.2f} ms vs {1e3 * a:.2f} ms ({b / a:.1f}×)")
    scan = "every mailbox (`example`: a scan; its answer counts them all)"
    cells.append(f"{scan}: {1e3 * big_run[scan]:.0f} ms")
    f = big_run["firsts"]
    cells.append(f"the workspace's indexes built ahead (--warm-indexes), ready {big_run['warm']:.1f} s after emsim was; then "
                 f"the first search: mailboxes {1e3 * f['mailbox']:.2f} ms, domains {1e3 * f['domain']:.2f} ms, emails "
                 f"{1e3 * f['email']:.2f} ms; VmRSS then {gib(big_run['rss'])}")
    row(f"lists and searches at {mailboxes:,} mailboxes vs 1k (best of 15)", "; ".join(cells), "within 2× of 1k")

print(f"## Scale (bench/scale.sh), {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n")
rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
parts_note = "" if set(parts) >= {"world", "fixture"} else f"BENCH_PARTS={','.join(parts)} "
print(f"`{parts_note}bash bench/scale.sh` (main at {rev}) on {os.cpu_count()} CPUs; wrk -t2 -c32 rounds of {round_len}, client and servers on")
print("the same CPUs; emsim in memory, manual clock; purchases are MONTHLY placement tests of 3 mailboxes.\n")
print("| measure | value | goal |")
print("|---|---|---|")
print("\n".join(rows))
PY
if [ -n "${BENCH_OUT:-}" ]; then { echo; cat "$work/section"; } >>"$BENCH_OUT"; fi
