"""`silent_nodes` finds the same nodes as the plain quadratic comparison it replaced, on
random jobs (missing logs, logs without wall time, hosts that stopped early, duplicates)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from autorecover.domain.records import Activity, JobRecord, Source
from autorecover.domain.shape import SILENCE_GAP, silent_nodes

END = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def reference(job: JobRecord, activity: list[Activity]) -> set[str]:
    """The rule as first written: each node against all the others, afresh."""
    if len(job.nodes) < 2:
        return set()
    system = {a.node: a for a in activity if a.source is Source.SYSTEM}
    present = {n for n, a in system.items() if a.present}
    end = job.ended or job.collected
    silent: set[str] = set()
    for node in job.nodes:
        others = [system[n] for n in job.nodes if n != node and n in present]
        own = system.get(node)
        if not others or own is None:
            continue
        if not own.present:
            silent.add(node)
            continue
        others_last = [a.last_at for a in others if a.last_at is not None]
        if own.last_at is None or len(others_last) < len(others):
            continue
        alive = min(others_last)
        gone = own.last_at < end and alive - own.last_at >= SILENCE_GAP
        if gone and alive >= end - SILENCE_GAP:
            silent.add(node)
    return silent if len(silent) * 2 < len(job.nodes) else set()


def test_the_same_nodes_as_the_quadratic_rule_on_random_jobs() -> None:
    rng = random.Random(18)
    for _ in range(3000):
        n = rng.randint(1, 7)
        nodes = tuple(f"n{rng.randint(0, n)}" for _ in range(n))  # duplicates now and then
        activity = []
        for node in dict.fromkeys(nodes):
            kind = rng.random()
            if kind < 0.1:
                continue  # no system log collected for it
            at = None if kind < 0.2 else END - timedelta(minutes=rng.choice((0, 1, 4, 6, 30)))
            activity.append(Activity(node, Source.SYSTEM, kind > 0.3, last_at=at))
        job = JobRecord("slurm", "1", nodes, END - timedelta(hours=1), END, END, "FAILED")
        assert silent_nodes(job, activity) == reference(job, activity), (nodes, activity)
