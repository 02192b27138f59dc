"""What the runner hosts: a controller built afresh from the store, and its passes.

A `Service` knows how to build its controller under a leader's fence; the runner calls the
built controller's passes on their intervals and throws it away after any failure (the
controllers' own rule: memory may be ahead of the store, the store is the truth). Hardware
recovery also takes the inbox in: each intake pass feeds the waiting agent batches to
`HardwareController.ingest`, whose first commit consumes them (`FencedStore`), acts on
people's requests waiting in the store (`HardwareController.operate`), and delivers job
recovery's hand-overs of suspect nodes when job recovery is hosted too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from autorecover.adapters.store.base import Batch, EngineStore, Fence
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import deliver_handovers
from autorecover.controllers.jobs.ports import HandoverOutbox
from autorecover.controllers.ports import Clock
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import HealthReport, NodeSignal
from autorecover.server.fencing import FencedStore

INTAKE_BATCHES = 50  # batches per intake pass: one pass stays short under a backlog


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
        controller: HardwareController,
        view: FencedStore,
        store: EngineStore,
        clock: Clock,
        handovers: HandoverOutbox | None = None,
    ) -> None:
        self.controller, self._view, self._store = controller, view, store
        self._clock, self._handovers = clock, handovers

    def start(self) -> None:
        """Execute what was recorded and not done, then reconcile."""
        self.controller.start()

    def intake(self) -> int:
        """Ingest waiting batches (consumed by the same commit) and pending hand-overs."""
        batches = self._store.take(INTAKE_BATCHES)
        if batches:
            self._view.consuming([b.id for b in batches])
            self.controller.ingest(reports(batches))  # people's requests are acted on too
            self._view.settle(self._clock.now())
        else:
            self.controller.operate()  # people's requests, when there are any
        handed = 0
        if self._handovers is not None:
            handed = deliver_handovers(self._handovers, self.controller.ingest, self._clock.now())
        return len(batches) + handed

    def tick(self) -> None:
        """Re-derive every node out of service."""
        self.controller.tick()

    def reconcile(self) -> None:
        """Resume orphan cordons, restore ours."""
        self.controller.reconcile()
