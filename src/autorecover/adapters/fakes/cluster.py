"""In-memory fakes of the controller ports: a clock, a scheduler, diagnostics and a notifier.

They serve unit tests and the simulator, and behave as the real adapters must: every action
is idempotent by action id (a second call with the same id is counted in `calls` and does
nothing), a person's cordon is theirs and survives our resume, and time comes only from the
injected clock. `effects` counts what really happened, per action id, so a test can show that
nothing was done twice.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from autorecover.controllers.hardware.ports import SchedulerNode
from autorecover.controllers.ports import Alert, Clock, PermanentError, Provenance, TransientError
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.records import NodeAction

START = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime = START) -> None:
        self._now = start

    def now(self) -> datetime:
        """The current (virtual) time."""
        return self._now

    def advance(self, seconds: float) -> datetime:
        """Move time forward and return the new now."""
        self._now += timedelta(seconds=seconds)
        return self._now


@dataclass(slots=True)
class FakeNode:
    """One node as the fake scheduler holds it."""

    cordoned_by: dict[str, Provenance] = field(default_factory=dict)
    taints: dict[str, Provenance] = field(default_factory=dict)
    running_jobs: int = 0
    drained_at: datetime | None = None  # when a drain finishes moving jobs off
    reboots: int = 0
    resets: list[str | None] = field(default_factory=list)
    uncordoned_by: str = ""  # who last lifted a cordon by hand, as the scheduler would show
    responding: bool = True  # False: the host does not answer (a test's `unresponsive`)


class FakeScheduler:
    """A scheduler in memory; `owner` is the cordon label our controller uses."""

    def __init__(
        self,
        clock: Clock,
        nodes: Iterable[str] = (),
        owner: str = "autorecover",
        running_jobs: int = 1,
        drain_s: float = 0.0,
    ) -> None:
        self._clock = clock
        self.owner = owner
        self.drain_s = drain_s
        self.nodes = {n: FakeNode(running_jobs=running_jobs) for n in nodes}
        self.calls: Counter[str] = Counter()  # per action id: every call, retries included
        self.effects: Counter[str] = Counter()  # per action id: what really happened
        self.log: list[tuple[str, str, str]] = []  # (kind, node, action id) of each effect
        self.failures: dict[tuple[str, str], Exception] = {}  # (kind, node) -> raise this

    # --- people and the fleet --------------------------------------------------------------

    def person_cordon(self, node: str, who: str, why: str = "") -> None:
        """A person cordons a node: their cordon, not ours."""
        prov = Provenance(f"person/{who}", who, why, self._clock.now())
        self._node(node).cordoned_by[who] = prov

    def person_uncordon(self, node: str, who: str, by: str = "") -> None:
        """A person (`by`) removes a cordon (theirs, or ours by hand: `who` is its owner)."""
        state = self._node(node)
        if state.cordoned_by.pop(who, None) is not None and by:
            state.uncordoned_by = by

    def unresponsive(self, node: str, gone: bool = True) -> None:
        """The host stops (or, `gone=False`, starts again) answering the scheduler."""
        self._node(node).responding = not gone

    def schedulable(self, node: str) -> bool:
        """True when nobody's cordon holds the node."""
        return not self._node(node).cordoned_by

    # --- the port --------------------------------------------------------------------------

    def observe(self, nodes: Iterable[str]) -> dict[str, SchedulerNode]:
        """The scheduler's view of these nodes."""
        return {n: self._view(n) for n in nodes if n in self.nodes}

    def cordoned(self) -> dict[str, SchedulerNode]:
        """Every node somebody has cordoned."""
        return {n: self._view(n) for n, s in self.nodes.items() if s.cordoned_by}

    def cordon(self, node: str, provenance: Provenance) -> None:
        """Add our cordon."""
        if self._first("cordon", node, provenance):
            self._node(node).cordoned_by[self.owner] = provenance

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Add a taint."""
        if self._first("taint", node, provenance):
            self._node(node).taints[key] = provenance

    def drain(self, node: str, provenance: Provenance) -> None:
        """Start moving jobs off; they are gone `drain_s` later."""
        if self._first("drain", node, provenance):
            state = self._node(node)
            state.drained_at = self._clock.now() + timedelta(seconds=self.drain_s)

    def resume(self, node: str, provenance: Provenance) -> None:
        """Remove our cordon and our taints; a person's cordon stays."""
        if self._first("resume", node, provenance):
            state = self._node(node)
            state.cordoned_by.pop(self.owner, None)
            state.taints.clear()

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Reset a GPU (or all of them)."""
        if self._first("reset_gpu", node, provenance):
            self._node(node).resets.append(component)

    def reboot(self, node: str, provenance: Provenance) -> None:
        """Reboot the node."""
        if self._first("reboot", node, provenance):
            self._node(node).reboots += 1

    def _first(self, kind: str, node: str, provenance: Provenance) -> bool:
        aid = provenance.action_id
        self.calls[aid] += 1
        failure = self.failures.get((kind, node))
        if failure is not None:
            raise failure
        if self.effects[aid]:
            return False  # already done under this id: idempotent
        self.effects[aid] += 1
        self.log.append((kind, node, aid))
        return True

    def _node(self, node: str) -> FakeNode:
        return self.nodes.setdefault(node, FakeNode())

    def _view(self, node: str) -> SchedulerNode:
        state = self.nodes[node]
        running = state.running_jobs
        if state.drained_at is not None and self._clock.now() >= state.drained_at:
            running = 0
        shows = f"uncordoned by {state.uncordoned_by}" if state.uncordoned_by else ""
        if not state.responding:
            shows = "not responding" + (f", {shows}" if shows else "")
        return SchedulerNode(
            node, frozenset(state.cordoned_by), frozenset(state.taints), running, shows,
            state.responding,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Scripted:
    """One diagnostic outcome a test asks for."""

    verdict: Verdict
    recommended: NodeAction = NodeAction.NONE
    evidence: tuple[str, ...] = ()


class FakeDiagnostics:
    """Diagnostics in memory: results scripted per node, else `default`, after `duration_s`."""

    def __init__(self, clock: Clock, default: Verdict = Verdict.PASS, duration_s: float = 0.0):
        self._clock = clock
        self.default = default
        self.duration_s = duration_s
        self.scripts: dict[str, deque[Scripted]] = {}
        self.started: dict[str, tuple[str, DiagnosticLevel, datetime, Scripted]] = {}
        self.calls: Counter[str] = Counter()
        self.failures: dict[str, Exception] = {}  # node -> raise this on start

    def script(self, node: str, *outcomes: Scripted | Verdict) -> None:
        """Queue outcomes for the node's next diagnostics, in order."""
        queue = self.scripts.setdefault(node, deque())
        queue.extend(o if isinstance(o, Scripted) else Scripted(o) for o in outcomes)

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start once per action id."""
        aid = provenance.action_id
        self.calls[aid] += 1
        failure = self.failures.get(node)
        if failure is not None:
            raise failure
        if aid in self.started:
            return
        queue = self.scripts.get(node)
        outcome = queue.popleft() if queue else Scripted(self.default, evidence=("fake: default",))
        self.started[aid] = (node, level, self._clock.now(), outcome)

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The result once `duration_s` has passed."""
        found = self.started.get(action_id)
        if found is None:
            return None
        node, level, at, outcome = found
        done = at + timedelta(seconds=self.duration_s)
        if self._clock.now() < done:
            return None
        return DiagnosticResult(
            action_id, node, level, outcome.verdict, done, outcome.recommended, outcome.evidence
        )


class FakeNotifier:
    """Alerts kept by id (firing ones in `alerts`, resolutions in `resolved`); `calls` counts
    every send, retries and repeats included."""

    def __init__(self) -> None:
        self.alerts: dict[str, Alert] = {}
        self.resolved: dict[str, Alert] = {}
        self.calls: Counter[str] = Counter()

    def alert(self, alert: Alert) -> None:
        """Keep the alert (once per id and status)."""
        self.calls[alert.id] += 1
        (self.resolved if alert.resolved else self.alerts).setdefault(alert.id, alert)


__all__ = [
    "START",
    "FakeClock",
    "FakeDiagnostics",
    "FakeNotifier",
    "FakeScheduler",
    "PermanentError",
    "Scripted",
    "TransientError",
]
