#!/usr/bin/env python3
"""Benchmark: can the hardware recovery controller keep up with a 100,000-GPU fleet?

    uv run python scripts/bench_hardware.py                  # 12,500 nodes, 10x rate, both stores
    uv run python scripts/bench_hardware.py --seconds 5      # a quick run

Requirement (issue 4): 12,500 nodes (8 GPUs each) each reporting every 10 s is 1,250 reports/s;
the controller must keep up with at least ten times that on one core (12,500 reports/s) with
decision latency p99 under 100 ms. So here every node reports every `--interval-s` / `--speedup`
seconds of virtual time (1 s by default), and the whole controller runs on one pinned core:
`HardwareController.ingest` (decide for every report, then one store transaction for the
batch, then the resulting actions through the fake scheduler, diagnostics and notifier) and,
once a virtual second, `tick` (the level-triggered pass over every node out of service).

The clock is injected (`FakeClock`): virtual time advances `--batch-ms` per batch, so nothing
sleeps and the wall time measured is the controller's own. Reports are generated outside the
timed region. A report's decision latency is the wall time of the pass that decides it, from
picking the batch up to its decisions committed and its actions executed: every report in a
batch is charged the whole batch. In a live service a report also waits for its batch to
start, at most `--batch-ms`.

Reports mostly say nothing (healthy nodes); a few carry signals, with the mix below per
report: software faults (never quarantine, still classified and stored), watch-class trends,
suspect-class signals and hard faults. The breaker, domain correlation and the remediation
ladder all run; with the default mix the breaker trips within the first virtual minute, as
it should for a fault rate this high.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autorecover.adapters.fakes.cluster import (
    FakeClock,
    FakeDiagnostics,
    FakeNotifier,
    FakeScheduler,
)
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.hardware.ports import StorePort
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import HealthReport, NodeSignal, Probe

REQUIRED = 1250.0  # reports/s: 12,500 nodes every 10 s
LATENCY_P99_MS = 100.0
NO_SIGNALS: tuple[NodeSignal, ...] = ()

# (share of reports, signal key, blame, node action, probe)
MIX: tuple[tuple[float, str, Blame, NodeAction, Probe], ...] = (
    (0.005, "xid.13", Blame.APPLICATION, NodeAction.RESTART_APP, Probe.KERNEL),
    (0.003, "nccl.watchdog_timeout", Blame.SYMPTOM, NodeAction.NONE, Probe.JOB),
    (0.002, "xid.63", Blame.INFO, NodeAction.MONITOR, Probe.KERNEL),
    (0.001, "nvml.ecc_sbe_volatile", Blame.HARDWARE, NodeAction.MONITOR, Probe.NVML),
    (0.001, "ib.symbol_error_rate", Blame.HARDWARE, NodeAction.MONITOR, Probe.INFINIBAND),
    (0.0002, "nvml.thermal_slowdown", Blame.HARDWARE, NodeAction.MONITOR, Probe.NVML),
    (0.00005, "xid.79", Blame.HARDWARE, NodeAction.REBOOT, Probe.KERNEL),
    (0.00005, "xid.48", Blame.HARDWARE, NodeAction.RESET_GPU, Probe.KERNEL),
    (0.00002, "ib.port_down", Blame.HARDWARE, NodeAction.INSPECT, Probe.INFINIBAND),
)


@dataclass
class Result:
    """One store's run."""

    store: str
    reports: int
    signals: int
    batches: int
    batch_size: int
    wall_s: float
    cpu_s: float
    latencies_ms: list[float]
    tick_ms: list[float]
    transitions: int
    actions: int
    tripped: bool

    def summary(self) -> dict[str, Any]:
        """The numbers, as printed and written to --json."""
        lat = sorted(self.latencies_ms)
        rate = self.reports / self.wall_s
        return {
            "store": self.store,
            "reports": self.reports,
            "signals": self.signals,
            "batch_size": self.batch_size,
            "wall_s": round(self.wall_s, 3),
            "cpu_s": round(self.cpu_s, 3),
            "reports_per_s": round(rate),
            "ratio_to_required": round(rate / REQUIRED, 1),
            "latency_p50_ms": round(_pct(lat, 50), 2),
            "latency_p99_ms": round(_pct(lat, 99), 2),
            "latency_max_ms": round(lat[-1], 2),
            "tick_p99_ms": round(_pct(sorted(self.tick_ms), 99), 2) if self.tick_ms else 0.0,
            "transitions": self.transitions,
            "actions": self.actions,
            "breaker_tripped": self.tripped,
            "meets_target": rate >= 10 * REQUIRED and _pct(lat, 99) < LATENCY_P99_MS,
        }


def _pct(ordered: list[float], p: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def topology(nodes: list[str]) -> Topology:
    """Racks of 4 eight-GPU nodes, InfiniBand leaves of 32 nodes."""
    return Topology.from_labels(
        {n: {"rack": f"r{i // 4}", "ib_leaf": f"leaf{i // 32}"} for i, n in enumerate(nodes)}
    )


def batches(
    nodes: list[str], per_batch: int, count: int, clock: FakeClock, seed: int, scale: float
) -> Iterator[list[HealthReport]]:
    """Round-robin reports, each with the signal mix (times `scale`) drawn per report."""
    rng = random.Random(seed)
    shares = [m[0] * scale for m in MIX]
    total = sum(shares)
    cursor = 0
    for _ in range(count):
        now = clock.now()
        out = []
        for _ in range(per_batch):
            node = nodes[cursor % len(nodes)]
            cursor += 1
            signals = NO_SIGNALS
            if rng.random() < total:
                _, key, blame, action, probe = rng.choices(MIX, weights=shares)[0]
                text = f"{key} seen by the bench"
                signals = (NodeSignal(node, probe, key, blame, 50, action, now, text=text),)
            out.append(HealthReport(node, now, NodeAction.NONE, signals))
        yield out


def run(name: str, store: StorePort, args: argparse.Namespace) -> Result:
    """Warm up (every node reports once), then measure `--seconds` of virtual time."""
    nodes = [f"gpu-{i:05d}" for i in range(args.nodes)]
    clock = FakeClock()
    controller = HardwareController(
        store=store,
        scheduler=FakeScheduler(clock, nodes),
        diagnostics=FakeDiagnostics(clock, duration_s=5),
        notifier=FakeNotifier(),
        clock=clock,
        policy=load_policy(),
        topology=topology(nodes),
    )
    controller.start()
    rate = args.nodes * args.speedup / args.interval_s  # reports per virtual second
    per_batch = max(1, round(rate * args.batch_ms / 1000))
    warmup = -(-args.nodes // per_batch)
    for warm in batches(nodes, per_batch, warmup, clock, args.seed + 1, args.mix_scale):
        controller.ingest(warm)
        clock.advance(args.batch_ms / 1000)
    count = round(args.seconds * 1000 / args.batch_ms)
    per_tick = max(1, round(1000 / args.batch_ms))
    latencies, ticks = [], []
    reports = signals = transitions = actions = 0
    wall = cpu = 0.0
    reports_in = batches(nodes, per_batch, count, clock, args.seed, args.mix_scale)
    for i, batch in enumerate(reports_in):
        start, cpu0 = time.perf_counter(), time.process_time()
        summary = controller.ingest(batch)
        took = time.perf_counter() - start
        wall += took
        cpu += time.process_time() - cpu0
        latencies.append(took * 1000)
        reports += len(batch)
        signals += sum(len(r.signals) for r in batch)
        transitions += summary.transitions
        actions += summary.recorded
        if (i + 1) % per_tick == 0:
            start, cpu0 = time.perf_counter(), time.process_time()
            summary = controller.tick()
            took = time.perf_counter() - start
            wall += took
            cpu += time.process_time() - cpu0
            ticks.append(took * 1000)
            transitions += summary.transitions
            actions += summary.recorded
        clock.advance(args.batch_ms / 1000)
    return Result(
        name, reports, signals, count, per_batch, wall, cpu, latencies, ticks, transitions,
        actions, controller.breaker.tripped,
    )  # fmt: skip


def machine() -> dict[str, Any]:
    """Where it ran."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": model or platform.processor(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "pinned_to": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 0 when some store meets the target."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--nodes", type=int, default=12_500)
    p.add_argument("--interval-s", type=float, default=10.0, help="each node reports this often")
    p.add_argument("--speedup", type=float, default=10.0, help="times the required rate")
    p.add_argument("--seconds", type=float, default=30.0, help="virtual seconds measured")
    p.add_argument("--batch-ms", type=float, default=100.0, help="virtual time per ingest batch")
    p.add_argument("--store", choices=["memory", "sqlite", "both"], default="both")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--mix-scale", type=float, default=1.0, help="multiply every signal share")
    p.add_argument("--db-dir", type=Path, help="where the SQLite file goes (default: a temp dir)")
    p.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    p.add_argument("--json", type=Path, help="also write the numbers here")
    args = p.parse_args(argv)
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as required
    info = machine()
    print(f"machine: {info}")
    print(
        f"fleet: {args.nodes} nodes, each reporting every {args.interval_s / args.speedup:g} s "
        f"({args.speedup:g}x the required {REQUIRED:g} reports/s); {args.seconds:g} virtual s, "
        f"batches of {args.batch_ms:g} virtual ms"
    )
    results = []
    kinds = ["memory", "sqlite"] if args.store == "both" else [args.store]
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        for kind in kinds:
            store: StorePort
            store = MemoryStore() if kind == "memory" else SqliteStore(Path(tmp) / "bench.db")
            label = "memory" if kind == "memory" else "sqlite (WAL, synchronous=FULL)"
            out = run(label, store, args).summary()
            results.append(out)
            verdict = "MEETS" if out["meets_target"] else "MISSES"
            print(
                f"{label}: {out['reports']} reports ({out['signals']} signals) in "
                f"{out['wall_s']} s wall ({out['cpu_s']} s CPU): {out['reports_per_s']} reports/s "
                f"= {out['ratio_to_required']}x the required {REQUIRED:g}/s; batches of "
                f"{out['batch_size']}: latency p50 {out['latency_p50_ms']} ms, p99 "
                f"{out['latency_p99_ms']} ms, max {out['latency_max_ms']} ms; tick p99 "
                f"{out['tick_p99_ms']} ms; {out['transitions']} transitions, {out['actions']} "
                f"actions, breaker tripped: {out['breaker_tripped']}  -> {verdict} the target "
                f"(>= {10 * REQUIRED:g}/s, p99 < {LATENCY_P99_MS:g} ms)"
            )
            if isinstance(store, SqliteStore):
                store.close()
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "results": results}, indent=2))
    return 0 if any(r["meets_target"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
