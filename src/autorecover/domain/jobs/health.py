"""Live job health from training progress: hangs and slowdowns, as pure functions.

Job recovery feeds each rank's progress reports (from telemetry summaries) into an immutable
`Progress` ledger and asks `assess(ledger, now, ...)` what it sees: healthy, hung (no progress
for longer than the job's own rhythm allows), slow (throughput well below the job's own
baseline), or one rank persistently slower than its peers (a straggler, which names a node).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

HISTORY = 32  # reports kept per rank


class Condition(StrEnum):
    """What the job looks like right now (persisted: never rename a value)."""

    HEALTHY = "healthy"
    WARMING_UP = "warming_up"
    HUNG = "hung"
    SLOW = "slow"
    STRAGGLER = "straggler"


@dataclass(frozen=True, slots=True)
class Report:
    """One progress report of one rank (a telemetry `step`/`summary` record)."""

    node: str
    rank: int
    at: datetime
    step: int
    steps_per_s: float | None = None
    compute_s: float | None = None  # mean compute time per step (forward+backward), if reported


@dataclass(frozen=True, slots=True)
class HealthThresholds:
    """How patient the assessment is; learned values never go below the floors."""

    hang_floor_s: float = 600.0
    hang_intervals: float = 20.0  # a hang is this many typical report intervals of silence
    warmup_reports: int = 3
    slow_fraction: float = 0.5  # throughput below this share of the baseline is slow
    straggler_factor: float = 1.3  # a rank this much slower than the median of its peers ...
    persist_reports: int = 3  # ... for this many reports in a row


@dataclass(frozen=True, slots=True)
class Assessment:
    """The job's condition with what shows it."""

    condition: Condition
    reason: str
    nodes: tuple[str, ...] = ()  # the nodes the condition points at (stragglers, silent nodes)
    since: datetime | None = None


@dataclass(frozen=True, slots=True)
class Progress:
    """Recent reports per rank; immutable, `add` returns a new ledger."""

    reports: Mapping[int, tuple[Report, ...]] = field(default_factory=dict)

    def add(self, report: Report) -> Progress:
        """One more report (older ones beyond the history are forgotten)."""
        reports = dict(self.reports)
        reports[report.rank] = (*reports.get(report.rank, ())[-(HISTORY - 1) :], report)
        return replace(self, reports=reports)

    def last_at(self) -> datetime | None:
        """When any rank last reported progress."""
        times = [rs[-1].at for rs in self.reports.values() if rs]
        return max(times) if times else None


def assess(progress: Progress, now: datetime, t: HealthThresholds | None = None) -> Assessment:
    """Healthy, warming up, hung, slow or straggling, with the evidence in words."""
    t = t or HealthThresholds()
    ranks = {r: rs for r, rs in progress.reports.items() if rs}
    if not ranks or min(len(rs) for rs in ranks.values()) < t.warmup_reports:
        return Assessment(Condition.WARMING_UP, "not enough progress reports yet")
    hang = _hang(ranks, now, t)
    if hang is not None:
        return hang
    straggler = _straggler(ranks, t)
    if straggler is not None:
        return straggler
    return _throughput(ranks, t) or Assessment(Condition.HEALTHY, "progress at its usual rate")


def _interval(reports: tuple[Report, ...]) -> float:
    gaps = [(b.at - a.at).total_seconds() for a, b in itertools.pairwise(reports)]
    gaps = [g for g in gaps if g > 0]
    return statistics.median(gaps) if gaps else 0.0


def _hang(
    ranks: Mapping[int, tuple[Report, ...]], now: datetime, t: HealthThresholds
) -> Assessment | None:
    typical = max(_interval(rs) for rs in ranks.values())
    limit = timedelta(seconds=max(t.hang_floor_s, t.hang_intervals * typical))
    last = {r: rs[-1] for r, rs in ranks.items()}
    newest = max(rep.at for rep in last.values())
    if now - newest < limit:
        return None
    oldest = min(rep.at for rep in last.values())
    early = sorted({rep.node for rep in last.values() if newest - rep.at >= limit / 4})
    nodes = tuple(early) if 0 < len(early) * 2 < len({rep.node for rep in last.values()}) else ()
    quiet = (now - newest).total_seconds()
    return Assessment(
        Condition.HUNG,
        f"no progress for {quiet:.0f} s (limit {limit.total_seconds():.0f} s, "
        "from the job's own pace)",
        nodes,
        since=oldest if nodes else newest,
    )


def _straggler(ranks: Mapping[int, tuple[Report, ...]], t: HealthThresholds) -> Assessment | None:
    n = t.persist_reports
    slow_nodes: set[str] = set()
    for rank, rs in ranks.items():
        recent = [rep for rep in rs[-n:] if rep.compute_s]
        if len(recent) < n:
            continue
        persistently = True
        for i in range(1, n + 1):
            peers = [c for r, ps in ranks.items() if r != rank and (c := _compute(ps, i))]
            mine = _compute(rs, i)
            if not peers or mine is None or mine < t.straggler_factor * statistics.median(peers):
                persistently = False
                break
        if persistently:
            slow_nodes.add(rs[-1].node)
    nodes = tuple(sorted(slow_nodes))
    if not nodes or len(nodes) * 2 >= len({rs[-1].node for rs in ranks.values()}):
        return None
    return Assessment(
        Condition.STRAGGLER,
        f"{', '.join(nodes)} computed {t.straggler_factor:.1f}x slower than its peers "
        f"for {n} reports in a row",
        nodes,
    )


def _compute(reports: tuple[Report, ...], back: int) -> float | None:
    """The compute time of the report `back` places from the end, if reported."""
    return reports[-back].compute_s if len(reports) >= back else None


def _throughput(ranks: Mapping[int, tuple[Report, ...]], t: HealthThresholds) -> Assessment | None:
    series = [rep.steps_per_s for rs in ranks.values() for rep in rs if rep.steps_per_s]
    longest = max(len(rs) for rs in ranks.values())
    if longest < t.warmup_reports + t.persist_reports or not series:
        return None
    per_report: list[float] = []
    for i in range(longest):
        values = [v for rs in ranks.values() if len(rs) > i and (v := rs[i].steps_per_s)]
        if values:
            per_report.append(statistics.median(values))
    baseline = max(per_report[t.warmup_reports - 1 : -t.persist_reports] or per_report[:1])
    recent = per_report[-t.persist_reports :]
    if baseline > 0 and all(v < t.slow_fraction * baseline for v in recent):
        return Assessment(
            Condition.SLOW,
            f"throughput {recent[-1]:.2f} steps/s, below {t.slow_fraction:.0%} of its "
            f"baseline {baseline:.2f} for {t.persist_reports} reports",
        )
    return None
