"""Housekeeping: what the store may forget, forgotten on the leader once an hour.

Every agent signal is recorded (`signals`), and a fleet's agents report all the time: a
2,000-node fleet posting one monitor-level signal per node every ten minutes adds about 290,000
rows a day. They serve a node's page (its latest 50) and job recovery's window around a failure;
the decisions taken on them keep their own copy of the evidence (transitions, actions and
incidents carry the lines), so signals older than the retention (`serve --retain-signals-days`,
30 by default; 0 keeps them all) are deleted, oldest first, at most `PRUNE_BATCH` rows per
statement and `PRUNE_BUDGET` rows per pass, so a first run on a large store never holds the
store for long: the rest goes at the next pass. The audit (transitions, actions, events,
operator requests) is never pruned.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.controllers.ports import Clock
from autorecover.server.hosting import Hosted, Service
from autorecover.server.metrics import EngineMetrics

log = logging.getLogger(__name__)

EVERY_S = 3600.0
PRUNE_BATCH = 10_000  # rows per statement
PRUNE_BUDGET = 1_000_000  # rows per pass


class HostedHousekeeping:
    """The retention pass, as the runner drives it (its reconcile is the pass)."""

    def __init__(
        self, store: EngineStore, clock: Clock, metrics: EngineMetrics, retain_days: float,
        *, batch: int = PRUNE_BATCH, budget: int = PRUNE_BUDGET,
    ) -> None:  # fmt: skip
        self.store, self.clock, self.metrics = store, clock, metrics
        self.retain = timedelta(days=retain_days)
        self.batch, self.budget = batch, budget

    def start(self) -> None:
        """Prune at once after (re)building, as a leader's first pass."""
        self.reconcile()

    def intake(self) -> int:
        """Nothing to take in."""
        return 0

    def tick(self) -> None:
        """The hourly pass is `reconcile`."""

    def reconcile(self) -> None:
        """Delete the signals received before the retention, a batch at a time."""
        before = self.clock.now() - self.retain
        gone = 0
        while gone < self.budget:
            went = self.store.prune_signals(before, self.batch)
            gone += went
            if went < self.batch:
                break
        if gone:
            self.metrics.signals_pruned(gone)
            log.info("forgot %d signals received before %s (retention %s)", gone,
                     before.isoformat(timespec="seconds"), self.retain)  # fmt: skip


def housekeeping_service(
    store: EngineStore, clock: Clock, metrics: EngineMetrics, retain_days: float
) -> Service:
    """The retention pass, hourly on the leader (`retain_days` > 0)."""

    def build(fence: Fence) -> Hosted:
        return HostedHousekeeping(store, clock, metrics, retain_days)

    return Service("housekeeping", build, tick_s=EVERY_S, reconcile_s=EVERY_S, intake_s=EVERY_S)
