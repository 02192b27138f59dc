#!/usr/bin/env python3
"""Benchmark: the served engine's incident list on a long history.

    uv run python scripts/bench_incidents.py                       # 100,000 incidents, both stores
    uv run python scripts/bench_incidents.py --store sqlite --incidents 20000 --json out.json

A store (`--store`: a SQLite file, a throwaway PostgreSQL from `autorecover.testing.postgres`,
or both, one after the other) is filled through its own commits with `--incidents` hardware
incidents on `--nodes` nodes (five transitions each, as a node taken out, diagnosed,
remediated, validated and returned: 500,000 transitions at the defaults, each with one
evidence line), of which `--open` are still open (their node quarantined). `autorecover serve`
then runs on it as a real subprocess on loopback (fake scheduler, dry-run, no authentication)
and a client asks, `--runs` times each:

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
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from autorecover.adapters.store.url import open_store
from autorecover.controllers.hardware.ports import Changes
from autorecover.domain.hardware.lifecycle import NodeState, Transition
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
EVIDENCE = ("NVRM: Xid (PCI:0000:b3:00): 79, pid=2231, GPU has fallen off the bus.",)
CHUNK = 20_000  # transitions per commit while filling


def fill(url: str, incidents: int, nodes: int, still_open: int) -> int:
    """Write the history through the store's own commits; returns the number of transitions."""
    store = open_store(url)
    names = [f"gpu-{n:05d}" for n in range(nodes)]
    seq = dict.fromkeys(names, 0)
    last: dict[str, str] = {}
    step = timedelta(days=365) / max(incidents, 1)
    moved: list[Transition] = []
    written = 0
    for i in range(incidents):
        node = names[i % nodes]
        at = START + step * i
        incident = f"hw/{node}/{at:%Y%m%dT%H%M%SZ}-{seq[node] + 1}"
        for k, (frm, to) in enumerate(ROUND[:1] if i >= incidents - still_open else ROUND):
            seq[node] += 1
            when = at + timedelta(minutes=10 * k)
            moved.append(Transition(node, seq[node], frm, to, when, "autorecover",
                                    "quarantine: xid.79", EVIDENCE, incident))  # fmt: skip
        last[node] = incident
        if len(moved) >= CHUNK or i == incidents - 1:
            store.commit(Changes(moved[-1].at, transitions=moved))
            written += len(moved)
            moved = []
    opened = {names[i % nodes] for i in range(incidents - still_open, incidents)}
    records = [
        NodeRecord(n, NodeState.QUARANTINED if n in opened else NodeState.HEALTHY,
                   START + timedelta(days=365), seq[n], last.get(n), "quarantine: xid.79")
        for n in names
    ]  # fmt: skip
    store.commit(Changes(START + timedelta(days=365), records=records))
    store.close()
    return written


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(store_url: str, log: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "autorecover", "serve", "--scheduler", "fake", "--dry-run",
           "--store", store_url, "--listen", f"127.0.0.1:{port}",
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


def bench(kind: str, url: str, args: argparse.Namespace, base: Path) -> dict[str, Any]:
    """Fill one store, serve it, ask each list; the numbers per request."""
    started = time.perf_counter()
    transitions = fill(url, args.incidents, args.nodes, args.open)
    took = time.perf_counter() - started
    print(f"{kind}: {args.incidents:,} incidents, {transitions:,} transitions, {args.open} "
          f"open, {args.nodes:,} nodes (filled in {took:.1f} s)")  # fmt: skip
    proc, engine, command = serve(url, base / f"engine-{kind}.log")
    print(f"  engine: {command}")
    try:
        asks = {
            "newest": "/api/v1/incidents",
            "open": "/api/v1/incidents?state=open",
            "everything": "/api/v1/incidents?limit=100000",
        }
        got = {name: timed(engine + path, args.runs) for name, path in asks.items()}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    for name, r in got.items():
        target = "" if name == "everything" else f"  target < {TARGET_S} s: " + (
            "PASS" if r["median_s"] < TARGET_S else "MISS")  # fmt: skip
        r["miss"] = "MISS" in target
        print(f"  {name:<10} {r['incidents']:>7,} incidents  median {r['median_s']:.3f} s  "
              f"slowest {r['max_s']:.3f} s  {r['bytes'] / 1e6:.2f} MB{target}")  # fmt: skip
    return {"store": kind, "transitions": transitions, "results": got}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--incidents", type=int, default=100_000)
    ap.add_argument("--nodes", type=int, default=2_000)
    ap.add_argument("--open", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="bench-incidents-"))
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    done = []
    if args.store in ("sqlite", "both"):
        done.append(bench("sqlite", f"sqlite:///{base / 'engine.db'}", args, base))
    if args.store in ("postgres", "both"):
        from autorecover.testing.postgres import start

        cluster = start()
        try:
            done.append(bench("postgresql", cluster.create_database("bench"), args, base))
        finally:
            cluster.stop()
    if args.json:
        kept = {"args": {k: str(v) for k, v in vars(args).items()}, "stores": done}
        args.json.write_text(json.dumps(kept, indent=2))
    missed = any(r["miss"] for d in done for r in d["results"].values())
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
