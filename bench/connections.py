#!/usr/bin/env python3
"""Connection flood (bench/README.md, "Connections"): is a fresh client still served while many
connections idle or stall?

Starts `emsim serve --port 0`, opens IDLE keep-alive connections (each makes one request, then
stays open and silent) and SLOW slow-header connections (a request line, then one header byte
every few seconds, never finishing), then measures GET /_sim/health from fresh clients: each on a
new connection (connect + request + answer), and on one keep-alive connection. Prints p50, p99,
max and failures before and during the flood, and emsim's threads and memory.

  python3 bench/connections.py [--emsim build/emsim] [--idle 1000] [--slow 200] [--requests 1000]
                               [--timeouts long|default] [--legacy]

--timeouts long (default) runs emsim with 120 s idle and header timeouts, so that no flood
connection is closed during the measurement (the worst case); `default` uses emsim's defaults.
--legacy passes none of the newer flags (to measure an older emsim binary).
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

GOAL_P99_MS = 50.0


def start_emsim(binary, extra):
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--clock", "manual"] + extra,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r":(\d+) ", line)
    if not m:
        proc.kill()
        sys.exit("bench: emsim did not print its ready line: " + line)
    return proc, int(m.group(1))


def read_answer(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)content-length:\s*(\d+)", head)
    need = int(m.group(1)) if m else 0
    while len(body) < need:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed")
        body += chunk
    return int(head[9:12])


REQUEST = b"GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"


def fresh_connection_request(port, timeout):
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(REQUEST)
        status = read_answer(s)
    return (time.perf_counter() - t0) * 1000, status


def measure(port, n, timeout=10.0):
    """Answers (fresh-connection times, keep-alive times, fresh failures, keep-alive failures)."""
    fresh, kept, failures, kept_failures = [], [], 0, 0
    for _ in range(n):
        try:
            ms, status = fresh_connection_request(port, timeout)
            if status != 200:
                failures += 1
            fresh.append(ms)
        except OSError:
            failures += 1
            fresh.append(timeout * 1000)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            for _ in range(n):
                t0 = time.perf_counter()
                s.sendall(REQUEST)
                if read_answer(s) != 200:
                    kept_failures += 1
                kept.append((time.perf_counter() - t0) * 1000)
    except OSError:
        kept_failures += n - len(kept)
        kept += [timeout * 1000] * (n - len(kept))
    return fresh, kept, failures, kept_failures


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def proc_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("Threads", "VmRSS"):
                    out[k] = v.strip()
    except OSError:
        pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--emsim", default=os.path.join(os.path.dirname(__file__), "..", "build", "emsim"))
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--timeouts", choices=["long", "default"], default="long")
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--slow-interval", type=float, default=2.0, help="seconds between a slow client's header bytes")
    a = ap.parse_args()

    extra = []
    if not a.legacy and a.timeouts == "long":
        extra = ["--idle-timeout-ms", "120000", "--header-timeout-ms", "120000"]
    proc, port = start_emsim(a.emsim, extra)
    idle, slow = [], []
    stop = threading.Event()
    try:
        status_before = proc_status(proc.pid)
        base_fresh, base_kept, base_fail, base_kept_fail = measure(port, a.requests)
        t0 = time.perf_counter()
        idle_refused = 0
        for _ in range(a.idle):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(REQUEST)
            try:
                if read_answer(s) != 200:
                    idle_refused += 1
            except OSError:
                idle_refused += 1
            idle.append(s)
        for _ in range(a.slow):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(b"GET /_sim/health HTTP/1.1\r\nX-Slow: ")
            slow.append(s)
        open_s = time.perf_counter() - t0

        def trickle():  # one more header byte per slow connection every interval, never the end
            while not stop.wait(a.slow_interval):
                for s in slow:
                    try:
                        s.send(b"a")
                    except OSError:
                        pass
        threading.Thread(target=trickle, daemon=True).start()

        status = proc_status(proc.pid)
        flood_fresh, flood_kept, flood_fail, flood_kept_fail = measure(port, a.requests)
        status_after = proc_status(proc.pid)
    finally:
        stop.set()
        for s in idle + slow:
            s.close()
        proc.terminate()
        proc.wait()

    flags = " ".join(extra) if extra else "(defaults)"
    print(f"emsim connection flood: {a.idle} idle keep-alive + {a.slow} slow-header connections, "
          f"{a.requests} GET /_sim/health per row; emsim flags: {flags}")
    print(f"flood opened in {open_s:.2f} s; {idle_refused} idle connections refused; emsim threads "
          f"{status_before.get('Threads', '?')} before, {status.get('Threads', '?')} -> "
          f"{status_after.get('Threads', '?')} during; VmRSS {status_before.get('VmRSS', '?')} before, "
          f"{status.get('VmRSS', '?')} -> {status_after.get('VmRSS', '?')} during")
    print(f"| {'client':<34} | {'p50 ms':>8} | {'p99 ms':>8} | {'max ms':>8} | {'failed':>6} |")
    print(f"|{'-' * 36}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 8}|")
    rows = [("before: new connection each", base_fresh, base_fail),
            ("before: one keep-alive connection", base_kept, base_kept_fail),
            ("flood: new connection each", flood_fresh, flood_fail),
            ("flood: one keep-alive connection", flood_kept, flood_kept_fail)]
    for name, values, failed in rows:
        print(f"| {name:<34} | {pct(values, 50):8.2f} | {pct(values, 99):8.2f} | {max(values):8.2f} | {failed:>6} |")
    worst = max(pct(flood_fresh, 99), pct(flood_kept, 99))
    failed = flood_fail + flood_kept_fail
    met = worst < GOAL_P99_MS and failed == 0
    print(f"goal: p99 < {GOAL_P99_MS:.0f} ms during the flood, no failure: {'MET' if met else 'NOT MET'} "
          f"(worst p99 {worst:.2f} ms, {failed} failed; a failed request counts as 10000 ms)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
