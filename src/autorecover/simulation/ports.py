"""The hardware ports as the simulated world implements them: the in-memory fakes, with time.

`SimScheduler` is the fake scheduler whose GPU resets and reboots take time and act on the
world's truth (a reset cures what a reset cures), whose drains wait for the node's job (as a
Slurm drain does) and whose cordons the simulated scheduler honours. `SimDiagnostics` answers
from the truth after the diagnostic's duration: a broken node fails with the remedy its fault
needs, a sound one passes. Both ask the event queue to wake the controller when they finish.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from autorecover.adapters.fakes.cluster import FakeScheduler
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.records import NodeAction
from autorecover.simulation.events import EventQueue
from autorecover.simulation.fleet import Fleet

_RECOMMEND = {"reset": NodeAction.RESET_GPU, "reboot": NodeAction.REBOOT, "rma": NodeAction.INSPECT}


class SimScheduler(FakeScheduler):
    """The fake scheduler on the simulated fleet."""

    def __init__(
        self,
        queue: EventQueue,
        fleet: Fleet,
        repair: dict[str, float],
        wake: Callable[[], None],
        on_cordon: Callable[[int], None],
        on_resume: Callable[[], None],
    ) -> None:
        super().__init__(queue.clock, (fleet.name(i) for i in range(fleet.nodes)), running_jobs=0)
        self._queue, self._fleet, self._repair, self._wake = queue, fleet, repair, wake
        self._on_cordon, self._on_resume = on_cordon, on_resume
        self.held: set[int] = set()  # nodes cordoned by anybody
        self.ready: dict[int, float] = {}  # node -> busy with a remedy until

    def cordon(self, node: str, provenance: Provenance) -> None:
        """Our cordon; the world counts it as a quarantine."""
        first = not self.nodes[node].cordoned_by
        super().cordon(node, provenance)
        if first and self.nodes[node].cordoned_by:
            self.held.add(self._fleet.index(node))
            self._on_cordon(self._fleet.index(node))

    def drain(self, node: str, provenance: Provenance) -> None:
        """Drained once the node's job leaves (a Slurm drain waits for it)."""
        super().drain(node, provenance)
        self.nodes[node].drained_at = None

    def resume(self, node: str, provenance: Provenance) -> None:
        """Back in service: queued jobs may use it."""
        super().resume(node, provenance)
        if not self.nodes[node].cordoned_by:
            self.held.discard(self._fleet.index(node))
            self._on_resume()

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """A GPU reset: takes `reset_s`, cures what a reset cures."""
        super().reset_gpu(node, component, provenance)
        self._remedy(node, "reset", self._repair["reset_s"])

    def reboot(self, node: str, provenance: Provenance) -> None:
        """A reboot: takes `reboot_s`, cures what a reboot cures."""
        super().reboot(node, provenance)
        self._remedy(node, "reboot", self._repair["reboot_s"])

    def _remedy(self, node: str, remedy: str, took_s: float) -> None:
        index = self._fleet.index(node)
        done = self._queue.clock.t + took_s
        self.ready[index] = done

        def finish() -> None:
            self._fleet.cure(index, remedy)
            if index not in self._fleet.broken:
                self.unresponsive(node, gone=False)
            self._wake()

        self._queue.at(done, finish)


class SimDiagnostics:
    """Diagnostics that read the world's truth after their duration (a `DiagnosticsPort`)."""

    def __init__(
        self, queue: EventQueue, fleet: Fleet, scheduler: SimScheduler, repair: dict[str, float],
        wake: Callable[[], None],
    ) -> None:  # fmt: skip
        self._queue, self._fleet, self._scheduler = queue, fleet, scheduler
        self._repair, self._wake = repair, wake
        self._started: dict[str, tuple[str, DiagnosticLevel, float]] = {}
        self._results: dict[str, DiagnosticResult] = {}

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start once per action id; done after the node is ready and the check has run."""
        aid = provenance.action_id
        if aid in self._started:
            return
        index = self._fleet.index(node)
        took = self._repair["validate_s" if level is DiagnosticLevel.LOAD else "diagnose_s"]
        begin = max(self._queue.clock.t, self._scheduler.ready.get(index, 0.0))
        self._started[aid] = (node, level, begin + took)
        self._queue.at(begin + took + 1.0, self._wake)

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The verdict, once the diagnostic has finished."""
        if action_id in self._results:
            return self._results[action_id]
        found = self._started.get(action_id)
        if found is None or self._queue.clock.t < found[2]:
            return None
        node, level, done = found
        index = self._fleet.index(node)
        t = self._queue.clock.t
        at = self._queue.clock.at(done)
        if self._fleet.healthy(index, t) and self._fleet.up(index, t):
            result = DiagnosticResult(action_id, node, level, Verdict.PASS, at,
                                      evidence=("simulated diagnostic: pass",))  # fmt: skip
        else:
            cure = self._fleet.remedy_for(index)
            result = DiagnosticResult(
                action_id,
                node,
                level,
                Verdict.FAIL,
                at,
                _RECOMMEND.get(cure, NodeAction.INSPECT),
                (f"simulated diagnostic: fails (needs {cure})",),
            )
        self._results[action_id] = result
        return result


def seconds(td: timedelta) -> float:
    """A timedelta in seconds."""
    return td.total_seconds()
