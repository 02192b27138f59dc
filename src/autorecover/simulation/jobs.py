"""Training jobs and where their GPU time goes.

A job runs between checkpoints written every `checkpoint_interval_s` (each costing
`checkpoint_cost_s` of the interval); an interruption loses the work since the last one. Its
time is always in exactly one stage — running, or down for detection, stopping, queueing for
capacity, restarting (initialisation and checkpoint load), or waiting for a person — and every
down stage is charged to the cause of the interruption, so the stages add up to the horizon.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

RUNNING, DETECT, STOP, QUEUE, RESTART, PERSON = (
    "running", "detection", "stop", "queue", "restart", "person",
)  # fmt: skip
LOST, CHECKPOINT, SLOW = "lost_work", "checkpoint", "slowdown"


@dataclass(slots=True)
class Ledger:
    """GPU-seconds by stage and by cause, summed over jobs."""

    by_stage: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    by_cause: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    productive: float = 0.0

    def charge(self, stage: str, cause: str, gpu_s: float) -> None:
        """Lost GPU-seconds of a stage, charged to a cause."""
        if gpu_s > 0:
            self.by_stage[stage] += gpu_s
            self.by_cause[cause] += gpu_s


@dataclass(slots=True)
class Job:
    """One training job: its size, where it runs and the stage it is in."""

    index: int
    gpus: int
    size: int  # nodes
    interval_s: float
    cost_s: float
    nodes: tuple[int, ...] = ()
    previous: tuple[int, ...] = ()
    stage: str = RUNNING
    since: float = 0.0
    cause: str = ""  # the interruption the current down stages are charged to
    slow: set[int] = field(default_factory=set)  # straggling nodes it runs on
    slowdown: float = 1.0
    slow_since: float = 0.0
    exclude: dict[int, float] = field(default_factory=dict)  # node -> until
    interruptions: int = 0
    epoch: int = 0  # bumps at each interruption: stale events of an older run are dropped
    checkpoints: int = 0
    wanted_at: float = 0.0  # queued since

    @property
    def name(self) -> str:
        """The job's name, as the controllers know it."""
        return f"train-{self.index}"

    @property
    def running(self) -> bool:
        """In the running stage."""
        return self.stage == RUNNING

    def last_checkpoint(self, t: float) -> float:
        """When the last checkpoint of the current run completed (or the run started)."""
        return self.since + ((t - self.since) // self.interval_s) * self.interval_s

    def next_checkpoint(self, t: float) -> float:
        """When the next checkpoint of the current run completes."""
        return self.last_checkpoint(t) + self.interval_s

    def excluded(self, t: float) -> set[int]:
        """Nodes the job keeps away from now."""
        return {n for n, until in self.exclude.items() if until > t}

    def enter(self, stage: str, t: float, ledger: Ledger, cause: str = "") -> None:
        """Close the current stage at `t` and charge it; start `stage`."""
        self._close(t, ledger)
        if cause:
            self.cause = cause
        self.stage, self.since = stage, t
        if stage == RUNNING:
            self.slow_since = t

    def close(self, t: float, ledger: Ledger) -> None:
        """Charge the current stage up to the horizon (work since a checkpoint is kept)."""
        self._close(t, ledger, final=True)
        self.since = t

    def _close(self, t: float, ledger: Ledger, final: bool = False) -> None:
        span = max(t - self.since, 0.0)
        if self.stage != RUNNING:
            ledger.charge(self.stage, self.cause or "unknown", span * self.gpus)
            return
        self._charge_slow(t, ledger)
        done = ((span + 1e-6) // self.interval_s) if self.interval_s else 0.0
        self.checkpoints += int(done)
        lost = 0.0 if final else span - done * self.interval_s
        overhead = done * self.cost_s
        ledger.charge(CHECKPOINT, CHECKPOINT, overhead * self.gpus)
        ledger.charge(LOST, self.cause or "unknown", lost * self.gpus)
        ledger.productive += (span - lost - overhead) * self.gpus
        self.slow_since = t

    def set_slowdown(self, factor: float, t: float, ledger: Ledger) -> None:
        """The job's pace changes (a straggler joined or left) from `t` on."""
        if self.running:
            self._charge_slow(t, ledger)
        self.slowdown = factor

    def _charge_slow(self, t: float, ledger: Ledger) -> None:
        if self.slowdown > 1.0:
            wasted = (t - self.slow_since) * (1.0 - 1.0 / self.slowdown) * self.gpus
            ledger.charge(SLOW, SLOW, wasted)
            ledger.productive -= wasted
        self.slow_since = t
