#!/usr/bin/env python3
"""Benchmark: the served engine's incident list on a long history.

    uv run python scripts/bench_incidents.py                       # 100,000 incidents
    uv run python scripts/bench_incidents.py --incidents 20000 --json out.json

A SQLite store is filled with `--incidents` hardware incidents on `--nodes` nodes (five
transitions each, as a node taken out, diagnosed, remediated, validated and returned: 500,000
transitions at the defaults, each with one evidence line), of which `--open` are still open
(their node quarantined). `autorecover serve` then runs on it as a real subprocess on loopback
(fake scheduler, dry-run, no authentication) and a client asks, `--runs` times each:

1. **newest**: `GET /api/v1/incidents`, what `autorecover incidents` and scripts ask: the newest
   1,000, oldest first.
2. **open**: `GET /api/v1/incidents?state=open`: every open incident, however old.
3. **everything**: `GET /api/v1/incidents?limit=100000`: the whole history, which is what every
   request read before the list was paged (for comparison; no target).

Reported per request: the median and slowest time to the whole body, and the body's size.
Target: newest and open each under 0.5 s (median) at the defaults; the script exits 1 when
one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import Changes
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.hardware.records import NodeRecord

TARGET_S = 0.5
START = datetime(2025, 1, 1, tzinfo=UTC)
ROUND = (  # one closed incident's moves
    (NodeState.HEALTHY, NodeState.QUARANTINED),
    (NodeState.QUARANTINED, NodeState.DIAGNOSING),
    (NodeState.DIAGNOSING, NodeState.REMEDIATING),
    (NodeState.REMEDIATING, NodeState.VALIDATING),
    (NodeState.VALIDATING, NodeState.HEALTHY),
)
EVIDENCE = json.dumps(["NVRM: Xid (PCI:0000:b3:00): 79, pid=2231, GPU has fallen off the bus."])


def fill(path: Path, incidents: int, nodes: int, still_open: int) -> int:
    """Write the history; returns the number of transitions."""
    SqliteStore(path).close()  # the schema, migrated as the engine would
    names = [f"gpu-{n:05d}" for n in range(nodes)]
    rows: list[tuple[Any, ...]] = []
    seq = dict.fromkeys(names, 0)
    last: dict[str, str] = {}
    step = timedelta(days=365) / max(incidents, 1)
    for i in range(incidents):
        node = names[i % nodes]
        at = START + step * i
        incident = f"hw/{node}/{at:%Y%m%dT%H%M%SZ}-{seq[node] + 1}"
        moves = ROUND[:1] if i >= incidents - still_open else ROUND
        for k, (frm, to) in enumerate(moves):
            seq[node] += 1
            when = (at + timedelta(minutes=10 * k)).isoformat()
            rows.append((node, seq[node], frm.value, to.value, when, "autorecover",
                         "quarantine: xid.79", EVIDENCE, incident, 0))  # fmt: skip
        last[node] = incident
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO transitions (node, seq, from_state, to_state, at, by, why, evidence, "
            "incident, dry_run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    opened = {names[i % nodes] for i in range(incidents - still_open, incidents)}
    records = [
        NodeRecord(n, NodeState.QUARANTINED if n in opened else NodeState.HEALTHY,
                   START + timedelta(days=365), seq[n], last.get(n), "quarantine: xid.79")
        for n in names
    ]  # fmt: skip
    store = SqliteStore(path)
    store.commit(Changes(START + timedelta(days=365), records=records))
    store.close()
    return len(rows)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(store: Path, log: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "autorecover", "serve", "--scheduler", "fake", "--dry-run",
           "--store", f"sqlite:///{store}", "--listen", f"127.0.0.1:{port}",
           "--log-level", "warning", "--insecure-no-auth"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the engine exited {proc.returncode}: see {log}")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as r:
                if json.loads(r.read())["role"] == "leader":
                    return proc, url, " ".join(cmd[1:])
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the engine did not lead within 60 s")


def timed(url: str, runs: int) -> dict[str, Any]:
    times, size, count = [], 0, 0
    for _ in range(runs):
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=120) as r:
            body = r.read()
        times.append(time.perf_counter() - started)
        size, count = len(body), len(json.loads(body))
    return {"median_s": statistics.median(times), "max_s": max(times), "bytes": size,
            "incidents": count}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--incidents", type=int, default=100_000)
    ap.add_argument("--nodes", type=int, default=2_000)
    ap.add_argument("--open", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="bench-incidents-"))
    store, log = base / "engine.db", base / "engine.log"
    started = time.perf_counter()
    transitions = fill(store, args.incidents, args.nodes, args.open)
    print(f"store:    {store}: {args.incidents:,} incidents, {transitions:,} transitions, "
          f"{args.open} open, {args.nodes:,} nodes ({time.perf_counter() - started:.1f} s, "
          f"{store.stat().st_size / 1e6:.0f} MB)")  # fmt: skip
    proc, url, command = serve(store, log)
    print(f"engine:   {command}")
    print(f"machine:  {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    try:
        asks = {
            "newest": "/api/v1/incidents",
            "open": "/api/v1/incidents?state=open",
            "everything": "/api/v1/incidents?limit=100000",
        }
        got = {name: timed(url + path, args.runs) for name, path in asks.items()}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    ok = True
    for name, r in got.items():
        target = "" if name == "everything" else f"  target < {TARGET_S} s: " + (
            "PASS" if r["median_s"] < TARGET_S else "MISS")  # fmt: skip
        ok &= "MISS" not in target
        print(f"{name:<10} {r['incidents']:>7,} incidents  median {r['median_s']:.3f} s  "
              f"slowest {r['max_s']:.3f} s  {r['bytes'] / 1e6:.2f} MB{target}")  # fmt: skip
    if args.json:
        kept = {"args": {k: str(v) for k, v in vars(args).items()},
                "transitions": transitions, "results": got}  # fmt: skip
        args.json.write_text(json.dumps(kept, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
