#!/usr/bin/env python3
"""Crash test of --data-dir (README "Persistence"): nothing acknowledged is lost by kill -9.

Each round starts emsim on the same data directory, checks the world against what the previous
round's answers acknowledged, then runs concurrent writers (placement purchases that debit a
wallet, wallet top-ups, domain operations, webhook endpoint creation) and SIGKILLs emsim at a
seeded random moment; every other round runs with --durability process. After each restart:
  - every acknowledged write is there;
  - nothing is half there: a purchase has its cart, its invoice and its test orders, or none;
  - the paying wallet equals its start minus the cost of exactly the purchases that are there, to
    the cent; the topped-up wallet holds the last acknowledged value or the one in flight;
  - each wallet's ledger is a chain ending at its balance, with one debit per cart paid from it.
Then damaged files:
  - torn WAL: the WAL of a world with acknowledged purchases truncated at seeded random offsets;
    emsim starts with a prefix of the purchases (in order), the wallet matching it, and says on
    stderr what it dropped whenever the cut is not on a frame boundary;
  - bit flips in the main file, half at random offsets and half inside the JSON of a row: emsim
    refuses clearly (exit 2 naming the file) or starts with the world exactly as it was (the flip
    hit unused space); never a crash, never an empty or a silently different world.
Usage: crash-test.py EMSIM [--rounds N] [--damage N] [--seed S]. Prints "N passed, N failed" and
exits non-zero on a failure.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ALICE = "emsim_test_alice_3f9c2a7b"
BOB_ACCOUNT = "acc_bob"


def start(emsim, data_dir, log, durability="full"):
    p = subprocess.Popen([emsim, "serve", "--port", "0", "--clock", "manual", "--data-dir", data_dir,
                          "--durability", durability],
                         stdout=subprocess.PIPE, stderr=log, text=True)
    line = p.stdout.readline()
    if "emsim ready on" not in line:
        p.wait(5)
        raise RuntimeError("emsim did not start: " + line)
    port = int(line.split("http://127.0.0.1:")[1].split()[0])
    return p, port


def call(port, method, path, body=None, key=ALICE, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"content-type": "application/json"}
    if key:
        headers["x-auth-service"] = key
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, (json.loads(data) if data else None)


class Ledger:
    """What the answers acknowledged, and what was in flight when emsim died."""

    def __init__(self):
        self.lock = threading.Lock()
        self.purchases_acked = {}    # testName -> cents
        self.purchases_inflight = set()
        self.endpoints_acked = set()
        self.endpoint_urls_inflight = set()
        self.dmarc_acked = []        # emails, in order
        self.dmarc_inflight = None
        self.topup_acked = None      # bob's balanceCents last acknowledged
        self.topup_inflight = None


def writer(kind, port, ledger, stop, tag, mailboxes):
    n = 0
    while not stop.is_set():
        n += 1
        name = f"{tag}-{kind}-{n}"
        try:
            if kind.startswith("purchase"):
                with ledger.lock:
                    ledger.purchases_inflight.add(name)
                mbx = mailboxes[n % len(mailboxes)]
                s, b = call(port, "POST", "/v2/placement-tests/purchase",
                            {"placementType": "ONE_TIME", "testName": name, "mailboxIds": [mbx]})
                if s == 200:
                    with ledger.lock:
                        ledger.purchases_acked[name] = b["data"]["walletBalance"]["amountDeducted"] * 100
                        ledger.purchases_inflight.discard(name)
            elif kind == "topup":
                value = 1_000_000 + n
                ledger.topup_inflight = value
                s, _ = call(port, "PUT", "/_sim/wallet", {"balanceCents": value}, key=BOB_KEY)
                if s == 200:
                    ledger.topup_acked = value
            elif kind == "dmarc":
                email = f"dmarc-{name}@example.com"
                ledger.dmarc_inflight = email
                s, _ = call(port, "POST", "/v1/domain/add-dmarc", {"email": email, "domainIds": ["dom_nw_01"]})
                if s == 200:
                    ledger.dmarc_acked.append(email)
            elif kind == "endpoint":
                url = f"http://127.0.0.1:9/{name}"
                with ledger.lock:
                    ledger.endpoint_urls_inflight.add(url)
                s, b = call(port, "POST", "/v2/webhooks/endpoints", {"url": url, "enabled_events": ["domain.updated"]})
                if s in (200, 201):
                    with ledger.lock:
                        ledger.endpoints_acked.add(b["data"]["id"])
                        ledger.endpoint_urls_inflight.discard(url)
        except (OSError, http.client.HTTPException):
            return  # emsim was killed: what was in flight stays in flight


BOB_KEY = None


def check(port, ledger, wallet_before, failures, round_no):
    s, state = call(port, "GET", "/_sim/state?secrets=true", key=None, timeout=60)
    assert s == 200, s
    carts = {c["testName"]: c for c in state["placementCarts"]}
    tests_by_cart = {}
    for t in state["placementTests"]:
        tests_by_cart.setdefault(t["cartOrderId"], []).append(t)
    invoices = {i["id"] for i in state["invoices"]}

    def fail(msg):
        failures.append(f"round {round_no}: {msg}")

    for name in ledger.purchases_acked:
        if name not in carts:
            fail(f"acknowledged purchase {name} is missing")
    present = [n for n in list(ledger.purchases_acked) + list(ledger.purchases_inflight) if n in carts]
    for name in present:
        c = carts[name]
        if c["invoiceId"] not in invoices or len(tests_by_cart.get(c["id"], [])) != len(c["orderIds"]):
            fail(f"purchase {name} is half there")
    spent = sum(carts[n]["totalCostCents"] for n in present)
    alice = next(a for a in state["accounts"] if a["apiKey"] == ALICE)
    if alice["walletCents"] != wallet_before - spent:
        fail(f"wallet {alice['walletCents']} != {wallet_before} - {spent} (purchases there: {len(present)})")
    bob = next(a for a in state["accounts"] if a["id"] == BOB_ACCOUNT)
    if ledger.topup_acked is not None and bob["walletCents"] not in (ledger.topup_acked, ledger.topup_inflight):
        fail(f"topped-up wallet {bob['walletCents']}, acknowledged {ledger.topup_acked}")
    # The wallets' ledger (GET /_sim/wallet/movements): every movement follows from the one before,
    # the last is the wallet, and every cart paid from the wallet has exactly one debit, no more.
    for key, account in ((ALICE, alice), (BOB_KEY, bob)):
        _, w = call(port, "GET", "/_sim/wallet/movements", key=key, timeout=60)
        moves = w["movements"]
        for before, after in zip(moves, moves[1:]):
            if after["balanceCents"] - after["amountCents"] != before["balanceCents"]:
                fail(f"ledger of {account['id']}: {after['id']} does not follow {before['id']}")
                break
        if moves and moves[-1]["balanceCents"] != account["walletCents"]:
            fail(f"ledger of {account['id']} ends at {moves[-1]['balanceCents']}, the wallet is {account['walletCents']}")
        if account is alice:
            debits = [m["reference"] for m in moves if m["reason"] == "placement_tests"]
            paid = {c["id"] for c in state["placementCarts"] if c["walletUsed"]}
            if sorted(debits) != sorted(paid):
                fail(f"ledger: {len(debits)} placement debits for {len(paid)} carts paid from the wallet")
    endpoints = {e["id"] for e in state["webhookEndpoints"]}
    for e in ledger.endpoints_acked - endpoints:
        fail(f"acknowledged endpoint {e} is missing")
    text = json.dumps(state)
    for email in ledger.dmarc_acked:
        if email not in text:
            fail(f"acknowledged add-dmarc {email} is missing")
    return len(ledger.purchases_acked), len(ledger.endpoints_acked), len(ledger.dmarc_acked)


def damaged_start(emsim, data_dir):
    """Starts emsim on a damaged dir: (process, port) when it serves, else (exit code, stderr)."""
    err = tempfile.TemporaryFile()
    p = subprocess.Popen([emsim, "serve", "--port", "0", "--clock", "manual", "--data-dir", data_dir],
                         stdout=subprocess.PIPE, stderr=err, text=True)
    line = p.stdout.readline()
    ready = "emsim ready on" in line
    code = None if ready else p.wait(10)
    err.seek(0)
    raw = err.read()
    try:
        text = raw.decode()
    except UnicodeDecodeError:  # a message quoting a damaged file's bytes as they are
        text = "NOT UTF-8: " + raw.decode(errors="backslashreplace")
    if ready:
        return p, int(line.split("http://127.0.0.1:")[1].split()[0]), text
    return None, code, text


def stop(p):
    p.send_signal(signal.SIGTERM)
    p.wait(10)


def torn_wal(emsim, tmp, rng, trials, failures):
    """A world of acknowledged purchases whose WAL is cut at random offsets."""
    base = os.path.join(tmp, "torn")
    p, port = start(emsim, base, subprocess.DEVNULL)
    names = []
    for i in range(40):
        s, _ = call(port, "POST", "/v2/placement-tests/purchase",
                    {"placementType": "ONE_TIME", "testName": f"torn-{i}", "mailboxIds": ["mbx_nw_01_01"]})
        assert s == 200, s
        names.append(f"torn-{i}")
    p.send_signal(signal.SIGKILL)  # the WAL stays as it is: nothing checkpoints it
    p.wait(10)
    wal = os.path.join(base, "emsim.db-wal")
    size = os.path.getsize(wal)
    passed = 0
    for t in range(trials):
        d = os.path.join(tmp, f"torn-{t}")
        shutil.copytree(base, d)
        cut = rng.randrange(0, size)
        os.truncate(os.path.join(d, "emsim.db-wal"), cut)
        before = len(failures)
        p, port, err = damaged_start(emsim, d)
        if p is None:
            failures.append(f"torn WAL cut at {cut} of {size}: did not start (exit {port}): {err[-500:]}")
            continue
        _, state = call(port, "GET", "/_sim/state?secrets=true", key=None)
        stop(p)
        present = [c["testName"] for c in state["placementCarts"] if c["testName"].startswith("torn-")]
        alice = next(a for a in state["accounts"] if a["apiKey"] == ALICE)
        spent = sum(c["totalCostCents"] for c in state["placementCarts"] if c["testName"].startswith("torn-"))
        if present != names[:len(present)]:
            failures.append(f"torn WAL cut at {cut}: purchases are not a prefix: {present[:5]}...")
        if alice["walletCents"] != 25000 - spent:
            failures.append(f"torn WAL cut at {cut}: wallet {alice['walletCents']} != 25000 - {spent}")
        if (cut - 32) % (24 + 4096) != 0 and cut > 32 and "dropped" not in err:
            failures.append(f"torn WAL cut at {cut}: nothing on stderr says what was dropped: {err[-300:]}")
        if len(state["accounts"]) == 0:
            failures.append(f"torn WAL cut at {cut}: started empty")
        print(f"torn WAL cut at {cut}/{size}: kept {len(present)}/{len(names)} purchases: "
              f"{'ok' if len(failures) == before else 'FAILED'}", flush=True)
        passed += len(failures) == before
        shutil.rmtree(d, ignore_errors=True)
    return passed


def bit_flips(emsim, tmp, rng, trials, failures):
    """A cleanly stopped world (everything in the main file) with one random bit flipped."""
    base = os.path.join(tmp, "flip")
    p, port = start(emsim, base, subprocess.DEVNULL)
    _, whole = call(port, "GET", "/_sim/state?secrets=true", key=None)
    stop(p)
    db = os.path.join(base, "emsim.db")
    size = os.path.getsize(db)
    with open(db, "rb") as f:
        content = f.read()
    # Where rows' JSON is: a flip there leaves the page whole, so only the row checksum can see it.
    bodies = [i for i in range(len(content)) if content.startswith(b'{"', i)]
    passed = refused = 0
    for t in range(trials):
        d = os.path.join(tmp, f"flip-{t}")
        shutil.copytree(base, d)
        offset = rng.randrange(0, size) if t % 2 == 0 or not bodies else rng.choice(bodies) + rng.randrange(2, 40)
        bit = rng.randrange(8)
        with open(os.path.join(d, "emsim.db"), "r+b") as f:
            f.seek(offset)
            byte = f.read(1)[0]
            f.seek(offset)
            f.write(bytes([byte ^ (1 << bit)]))
        before = len(failures)
        p, port, err = damaged_start(emsim, d)
        if p is None:
            if port != 2 or "emsim.db" not in err:
                failures.append(f"bit flip at {offset}: exit {port} without naming the file: {err[-300:]}")
            elif err.startswith("NOT UTF-8"):
                failures.append(f"bit flip at {offset}: the refusal quotes bytes that are not UTF-8: {err[-300:]}")
            refused += 1
        else:
            _, state = call(port, "GET", "/_sim/state?secrets=true", key=None)
            stop(p)
            changed = sorted(k for k in set(whole) | set(state) if whole.get(k) != state.get(k))
            if changed:
                failures.append(f"bit flip at {offset}: started with a different world (in {', '.join(changed)})")
        passed += len(failures) == before
        shutil.rmtree(d, ignore_errors=True)
    print(f"bit flips: {trials} tried, {refused} refused clearly, {trials - refused} harmless "
          f"(unused space: the world served is the world written)", flush=True)
    return passed


def main():
    global BOB_KEY
    ap = argparse.ArgumentParser()
    ap.add_argument("emsim")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("EMSIM_CRASH_ROUNDS", "20")))
    ap.add_argument("--damage", type=int, default=int(os.environ.get("EMSIM_CRASH_DAMAGE", "24")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("EMSIM_CRASH_SEED", "26")))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="emsim-crash-")
    data = os.path.join(tmp, "data")
    log = open(os.path.join(tmp, "emsim.err"), "w")
    failures, passed = [], 0
    ledger, wallet_before = None, None
    try:
        for round_no in range(a.rounds + 1):
            # Every other round runs (and is killed) with --durability process: a kill -9 is what
            # that mode promises to survive, and its commits reach the WAL unsynced.
            p, port = start(a.emsim, data, log, "process" if round_no % 2 else "full")
            _, st = call(port, "GET", "/_sim/state?secrets=true", key=None)
            BOB_KEY = next(x["apiKey"] for x in st["accounts"] if x["id"] == BOB_ACCOUNT)
            mailboxes = [m["id"] for m in st["mailboxes"] if m["workspaceId"] == "ws_northwind"][:20]
            if ledger is not None:
                before = len(failures)
                counts = check(port, ledger, wallet_before, failures, round_no)
                passed += len(failures) == before
                print(f"round {round_no}: acknowledged purchases={counts[0]} endpoints={counts[1]} "
                      f"dmarc={counts[2]}: {'ok' if len(failures) == before else 'FAILED'}", flush=True)
            if round_no == a.rounds:
                p.send_signal(signal.SIGTERM)
                p.wait(10)
                break
            wallet_before = 10_000_000_00
            assert call(port, "PUT", "/_sim/wallet", {"balanceCents": wallet_before})[0] == 200
            ledger, stop = Ledger(), threading.Event()
            kinds = ["purchase-1", "purchase-2", "purchase-3", "purchase-4", "topup", "dmarc", "endpoint"]
            threads = [threading.Thread(target=writer, args=(k, port, ledger, stop, f"r{round_no}", mailboxes))
                       for k in kinds]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.2, 1.2))  # the kill lands at a seeded random moment of the load
            p.send_signal(signal.SIGKILL)
            p.wait(10)
            stop.set()
            for t in threads:
                t.join(15)
        passed += torn_wal(a.emsim, tmp, rng, a.damage, failures)
        passed += bit_flips(a.emsim, tmp, rng, a.damage, failures)
    finally:
        log.close()
        if failures:
            print(open(os.path.join(tmp, "emsim.err")).read()[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    total = a.rounds + 2 * a.damage
    print(f"{passed} passed, {total - passed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
