"""What the runner hosts: a controller built afresh from the store, and its passes.

A `Service` knows how to build its controller under a leader's fence; the runner calls the
built controller's passes on their intervals and throws it away after any failure (the
controllers' own rule: memory may be ahead of the store, the store is the truth). Hardware
recovery also takes the inbox in: each intake pass drains the waiting agent batches in chunks
(one transaction each) into `HardwareController.ingest`, whose first commit consumes them
(`FencedStore`) and acts on people's requests waiting in the store, until the inbox is empty
or the pass's time budget is spent (with an empty inbox, `HardwareController.operate` acts on
the requests alone), and delivers job recovery's hand-overs of suspect nodes when job
recovery is hosted too. A chunk that fails is split until the batch that cannot be recorded
is found; that batch is set aside among the dead letters with its error, on a controller
rebuilt from the store, and the rest go on: one bad batch never stops the intake.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from autorecover.adapters.store.base import Batch, EngineStore, Fence, LeaseLostError
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import deliver_handovers
from autorecover.controllers.jobs.ports import HandoverOutbox
from autorecover.controllers.ports import Clock, TransientError
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import HealthReport, NodeSignal
from autorecover.server.fencing import FencedStore

log = logging.getLogger(__name__)
MAX_ASIDE_PER_PASS = 3  # more failing alone in one pass: not the batches' fault


class Hosted(Protocol):
    """A built controller as the runner drives it."""

    def start(self) -> None:
        """After (re)building: finish what was recorded, then reconcile."""
        ...

    def intake(self) -> int:
        """Take what waits in the store for this controller; how much there was."""
        ...

    def tick(self) -> None:
        """One level-triggered pass."""
        ...

    def reconcile(self) -> None:
        """Compare the records with what the cluster reports, and repair."""
        ...


@dataclass(frozen=True, slots=True)
class Service:
    """One controller the engine hosts, and how often each of its passes runs."""

    name: str
    build: Callable[[Fence], Hosted]
    tick_s: float = 5.0
    reconcile_s: float = 60.0
    intake_s: float = 0.5


def reports(batches: Sequence[Batch]) -> list[HealthReport | NodeSignal]:
    """Agent batches as hardware recovery reads them: one health report per batch."""
    out: list[HealthReport | NodeSignal] = []
    for b in batches:
        worst = max((s.node_action for s in b.signals), key=_SEVERITY.index, default=None)
        out.append(HealthReport(b.node, b.received_at, worst or NodeAction.NONE, b.signals))
    return out


_SEVERITY = list(NodeAction)  # declared mildest first


class HostedHardware:
    """Hardware recovery with the inbox and job recovery's hand-overs as its intake."""

    def __init__(
        self,
        build: Callable[[], HardwareController],
        view: FencedStore,
        store: EngineStore,
        clock: Clock,
        handovers: HandoverOutbox | None = None,
        *,
        chunk: int = 500,
        budget_s: float = 2.0,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._build, self.controller = build, build()
        self._view, self._store = view, store
        self._clock, self._handovers = clock, handovers
        self.chunk, self.budget_s, self._timer = max(1, chunk), budget_s, timer
        self.set_aside = 0  # batches this controller moved to the dead letters
        self._aside_this_pass = 0

    def start(self) -> None:
        """Execute what was recorded and not done, then reconcile."""
        self.controller.start()

    def intake(self) -> int:
        """Drain the inbox, a chunk per transaction, until it is empty or the time budget is
        spent (people's requests are acted on by the same passes, or alone when nothing waits);
        then deliver pending hand-overs. How many batches and hand-overs there were."""
        until = self._timer() + self.budget_s
        self._aside_this_pass = 0
        taken = 0
        while True:
            batches = self._store.take(self.chunk)
            if batches:
                taken += len(batches)
                self._record(batches)
            if len(batches) < self.chunk or self._timer() >= until:
                break
        if taken == 0:
            self.controller.operate()  # people's requests, when there are any
        handed = 0
        if self._handovers is not None:
            handed = deliver_handovers(self._handovers, self.controller.ingest, self._clock.now())
        return taken + handed

    def _record(self, batches: Sequence[Batch]) -> None:
        """Record batches in one pass; on failure, split them to set the culprit aside."""
        for b in batches:
            if b.error:
                self._aside(b, b.error)
        good = [b for b in batches if not b.error]
        if not good:
            return
        try:
            self._view.consuming([b.id for b in good])
            self.controller.ingest(reports(good))
            self._view.settle(self._clock.now())
        except (LeaseLostError, TransientError):
            raise  # not the batches' fault: the runner retries the pass later
        except Exception as exc:
            self._view.consuming(())
            ids = {b.id for b in good}
            left = [b for b in self._store.take(len(good)) if b.id in ids]
            if not left:
                raise  # recorded, then something else failed: the runner's to handle
            self.controller = self._build()  # memory may be ahead of the store
            if len(left) == 1 and len(good) == 1:  # this batch cannot be recorded
                if self._aside_this_pass >= MAX_ASIDE_PER_PASS:
                    # Batch after batch fails alone: the fault is likely not theirs (a bug, the
                    # store). Stop setting good batches aside; the runner counts the failure.
                    raise
                self._aside(left[0], f"{type(exc).__name__}: {exc}")
            else:
                half = max(1, len(left) // 2)
                self._record(left[:half])
                self._record(left[half:])

    def _aside(self, batch: Batch, error: str) -> None:
        log.warning(
            "inbox batch %s from %s (%d signals) set aside as a dead letter: %s",
            batch.id, batch.node, len(batch.signals), error,
        )  # fmt: skip
        self._store.set_aside(batch.id, error, now=self._clock.now(), fence=self._view.fence)
        self.set_aside += 1
        self._aside_this_pass += 1

    def tick(self) -> None:
        """Re-derive every node out of service."""
        self.controller.tick()

    def reconcile(self) -> None:
        """Resume orphan cordons, restore ours."""
        self.controller.reconcile()
