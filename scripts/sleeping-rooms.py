#!/usr/bin/env python3
"""Sleeping rooms: what N correspondence games asleep in the database cost.

Plays one correspondence game a few moves with `sannin loadtest`, lets it fall asleep,
copies it N times in the SQLite file (new ids, the same seats and moves), then starts
the server on the file with one sleeping game and on the file with N + 1, and reports
for each the time to answer /healthz and the RSS; then the time to load sleeping games
on demand (GET /api/rooms/{id}, each read from the database and replayed), p50/p95/p99
over 1,000 of them. The server and this script are separate processes.

    python3 scripts/sleeping-rooms.py target/release/sannin 100000
"""

import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import http.client

DAY = {"clock": {"kind": "correspondence", "seconds_per_move": 86400}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def serve(binary, db, port, extra=()):
    t0 = time.monotonic()
    p = subprocess.Popen(
        [binary, "serve", "--addr", f"127.0.0.1:{port}", "--database-url", f"sqlite://{db}",
         "--rooms-per-minute", "0", "--bot-rooms-per-minute", "0", "--max-ws-per-address", "0", "--max-connections-per-address", "0",
         *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
    )
    while True:
        try:
            if get(port, "/healthz")[0] == 200:
                return p, time.monotonic() - t0
        except OSError:
            pass
        if p.poll() is not None:
            sys.exit(f"the server exited ({p.returncode})")
        time.sleep(0.01)


def stop(p):
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)


def metric(port, name):
    text = get(port, "/metrics")[1].decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def copy_room(db, seed, n):
    """Copies room `seed` (its seats and actions) n times under new ids."""
    con = sqlite3.connect(db)
    cols = {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")]
            for t in ("rooms", "seats", "actions")}
    con.execute("CREATE TEMP TABLE n(i INTEGER PRIMARY KEY)")
    con.executemany("INSERT INTO n VALUES (?)", ((i,) for i in range(1, n + 1)))
    new_id = "printf('%08x-%04x-4000-8000-%012x', n.i, n.i % 65536, n.i)"
    for table, key in (("rooms", "id"), ("seats", "room_id"), ("actions", "room_id")):
        others = [c for c in cols[table] if c != key]
        con.execute(
            f"INSERT INTO {table} ({key}, {', '.join(others)}) "
            f"SELECT {new_id}, {', '.join('t.' + c for c in others)} FROM {table} t, n "
            f"WHERE t.{key} = ?", (seed,))
    con.commit()
    ids = [r[0] for r in con.execute("SELECT id FROM rooms WHERE id <> ?", (seed,))]
    con.close()
    return ids


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    binary, n = sys.argv[1], int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="sleeping-rooms-")
    one = os.path.join(work, "one.db")
    port = free_port()
    p, _ = serve(binary, one, port, ["--sleep-after-seconds", "1"])
    subprocess.run(
        [binary, "loadtest", "--addr", f"127.0.0.1:{port}", "--server-pid", str(p.pid),
         "--rooms", "1", "--plies", "6", "--room-settings", json.dumps(DAY)],
        check=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while metric(port, "sannin_rooms_slept_total") < 1:
        if time.monotonic() > deadline:
            sys.exit("the game did not fall asleep")
        time.sleep(0.1)
    stop(p)
    con = sqlite3.connect(one)
    seed = con.execute("SELECT id FROM rooms WHERE wake_at IS NOT NULL").fetchone()[0]
    moves = con.execute("SELECT COUNT(*) FROM actions WHERE room_id = ?", (seed,)).fetchone()[0]
    con.close()
    many = os.path.join(work, "many.db")
    shutil.copy(one, many)
    t0 = time.monotonic()
    ids = copy_room(many, seed, n)
    print(f"{n} sleeping games of {moves} moves written in {time.monotonic() - t0:.1f} s "
          f"({os.path.getsize(many) / 2**20:.0f} MiB)")

    rows = []
    for name, db in (("1 sleeping game", one), (f"{n + 1} sleeping games", many)):
        port = free_port()
        p, started = serve(binary, db, port)
        time.sleep(2)
        rows.append((name, started, rss_mib(p.pid), metric(port, 'sannin_rooms{status="playing"}')))
        if db == many:
            sample = random.sample(ids, min(1000, len(ids)))
            took = []
            for room in sample:
                t = time.monotonic()
                status, body = get(port, f"/api/rooms/{room}")
                took.append((time.monotonic() - t) * 1000)
                if status != 200:
                    sys.exit(f"GET /api/rooms/{room}: {status} {body[:200]}")
            rss_loaded = rss_mib(p.pid)
            woken = metric(port, "sannin_rooms_woken_total")
        stop(p)
    print(f"{'database':<24} {'start → /healthz':>17} {'RSS':>10} {'rooms in memory':>16}")
    for name, started, rss, in_memory in rows:
        print(f"{name:<24} {started * 1000:>14.0f} ms {rss:>6.1f} MiB {in_memory:>16.0f}")
    print(f"loading a sleeping game on demand (GET /api/rooms/{{id}}, {len(took)} games, "
          f"{woken:.0f} woken): p50 {pct(took, 0.5):.2f} ms, p95 {pct(took, 0.95):.2f} ms, "
          f"p99 {pct(took, 0.99):.2f} ms, max {max(took):.2f} ms; "
          f"RSS then {rss_loaded:.1f} MiB")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
