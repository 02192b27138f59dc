"""The hardware recovery controller: signals in, decisions recorded, actions executed.

Each pass decides purely (`domain.hardware.decisions.decide`), records everything it decided
in one store transaction — records, transitions, intended actions, signals, events — and only
then executes the actions through the ports and records their outcomes. It is level-triggered:
`tick` re-derives what to do for every node out of service from the store and what the ports
report, so a controller built afresh on the same store after a crash converges, executing
each action id at most once more (the ports are idempotent by id). In dry-run every action is
recorded as would-have and nothing is executed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from autorecover.controllers.counting import RemovalWindow, TokenBucket
from autorecover.controllers.hardware.correlating import Changed, Correlator
from autorecover.controllers.hardware.executing import NO_HOOKS, ActionQueue, Executor, Hooks
from autorecover.controllers.hardware.observing import Observer
from autorecover.controllers.hardware.ports import (
    ActionRecord,
    Changes,
    DiagnosticsPort,
    Event,
    SchedulerPort,
    StorePort,
)
from autorecover.controllers.hardware.reconciling import reconcile
from autorecover.controllers.ports import (
    ActionStatus,
    Clock,
    Notifier,
    PermanentError,
    TransientError,
)
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.hardware.breaker import CLOSED, Admission, BreakerState, BreakerView
from autorecover.domain.hardware.decisions import decide, release
from autorecover.domain.hardware.lifecycle import FLEET, Action, ActionKind, NodeState
from autorecover.domain.hardware.policy import HardwarePolicy, SignalClass
from autorecover.domain.hardware.records import (
    NOTHING_SEEN,
    Decision,
    DecisionContext,
    NodeRecord,
    Observation,
)
from autorecover.domain.signals import HealthReport, NodeSignal

_HEALTHY = NodeState.HEALTHY


@dataclass(frozen=True, slots=True)
class PassSummary:
    """What one pass did."""

    decided: int = 0
    transitions: int = 0
    recorded: int = 0  # actions recorded (intended or would-have)
    executed: int = 0
    waiting: int = 0  # still intended after the pass (rate-limited or transient)


class HardwareController:
    """Node lifecycle for a fleet: quarantine, diagnose, remediate, validate, return."""

    def __init__(
        self,
        *,
        store: StorePort,
        scheduler: SchedulerPort,
        diagnostics: DiagnosticsPort,
        notifier: Notifier,
        clock: Clock,
        policy: HardwarePolicy,
        topology: Topology = NO_TOPOLOGY,
        name: str = "autorecover",
        dry_run: bool = False,
        fleet_size: int | None = None,
        hooks: Hooks = NO_HOOKS,
    ) -> None:
        self._store, self._scheduler, self._diagnostics = store, scheduler, diagnostics
        self._clock, self._policy, self._topology = clock, policy, topology
        self.name, self.dry_run, self._fleet_size = name, dry_run, fleet_size
        now = clock.now()
        bucket = TokenBucket(policy.rate.per_s, policy.rate.burst, now)
        self._executor = Executor(scheduler, diagnostics, notifier, clock, bucket, hooks)
        snap = store.load(now - policy.breaker.window)
        self._records: dict[str, NodeRecord] = dict(snap.nodes)
        self._queue = ActionQueue(snap.pending, snap.failed)
        self._breaker = snap.breaker
        self._removals = RemovalWindow(policy.breaker.window, topology)
        for node, at in snap.removals:
            self._removals.add(node, at)
        self._correlator = Correlator(topology, policy.correlation, name, snap.incidents)
        since = now - policy.correlation.window
        self._correlator.remember(
            (r.node, m.at)
            for r in self._records.values()
            for m in r.marks
            if m.at > since and m.cls.rank >= SignalClass.SUSPECT.rank
        )
        self._active = {n for n, r in self._records.items() if r.state is not _HEALTHY or r.held}
        self._out = sum(1 for r in self._records.values() if r.state is not _HEALTHY)
        # A healthy node with nothing to report never reaches the breaker or the ports: its
        # decision returns at once, so it gets one shared context instead of its own.
        self._idle = DecisionContext(policy, BreakerView(policy.breaker, CLOSED, 1), name)
        self._broken = False
        self._observer = Observer(scheduler, diagnostics, dry_run)

    # --- queries ---------------------------------------------------------------------------

    def node(self, name: str) -> NodeRecord:
        """The controller's record of a node (a fresh healthy one if it never reported)."""
        return self._records.get(name) or NodeRecord(name)

    @property
    def breaker(self) -> BreakerState:
        """The circuit breaker's state."""
        return self._breaker

    @property
    def waiting(self) -> int:
        """Actions recorded but not yet executed."""
        return len(self._queue)

    # --- passes ----------------------------------------------------------------------------

    def start(self) -> PassSummary:
        """After a (re)start: execute what was recorded but not done, then reconcile."""
        self._pass(lambda now, changes: 0)
        return self.reconcile()

    def ingest(self, reports: Iterable[HealthReport | NodeSignal]) -> PassSummary:
        """Decide on new reports and signals, record, execute."""
        return self._pass(lambda now, changes: self._ingest(reports, now, changes))

    def tick(self) -> PassSummary:
        """Re-derive every node out of service from what the ports report now."""
        return self._pass(self._tick)

    def reconcile(self) -> PassSummary:
        """Resume orphan cordons of ours; restore our cordons where records hold nodes out."""
        return self._pass(self._reconcile)

    # --- people ----------------------------------------------------------------------------

    def release(self, node: str, by: str, why: str, validate: bool = True) -> PassSummary:
        """A person hands a node back from needs-attention: validated first unless told not."""
        decision = release(self.node(node), self._clock.now(), by, why, validate)

        def hand_back(now: datetime, changes: Changes) -> int:
            self._take(decision, changes, now)
            return 1

        return self._pass(hand_back)

    def reset_breaker(self, by: str, why: str) -> PassSummary:
        """A person closes the tripped breaker: new quarantines are allowed again."""

        def reset(now: datetime, changes: Changes) -> int:
            changes.breaker = self._breaker = CLOSED
            changes.events.append(Event(FLEET, now, by, f"breaker reset: {why}"))
            return 0

        return self._pass(reset)

    # --- passes ----------------------------------------------------------------------------

    def _pass(self, body: Callable[[datetime, Changes], int]) -> PassSummary:
        """Run one pass; any exception leaves this controller unusable: build a fresh one."""
        if self._broken:
            raise RuntimeError("a pass failed: build a fresh controller on the same store")
        now = self._clock.now()
        changes = Changes(now, self.dry_run)
        try:
            decided = body(now, changes)
            return self._finish(now, changes, decided)
        except BaseException:
            self._broken = True  # memory may now be ahead of the store; the store is the truth
            raise

    def _ingest(
        self, reports: Iterable[HealthReport | NodeSignal], now: datetime, changes: Changes
    ) -> int:
        by_node: dict[str, list[NodeSignal]] = {}
        reported: set[str] = set()
        for report in reports:
            if isinstance(report, HealthReport):
                by_node.setdefault(report.node, []).extend(report.signals)
                reported.add(report.node)
            else:
                by_node.setdefault(report.node, []).append(report)
        self._removals.expire(now)
        faulted = []
        for node, found in by_node.items():
            changes.signals.extend(found)
            if any(self._is_fault(s) for s in found):
                faulted.append(node)
        self._note(self._correlator.step(now, faulted), changes)
        active = [n for n in by_node if n in self._active]
        seen = self._observer.observe(active, self._records, self._queue, now)
        for node, found in by_node.items():
            self._apply(node, found, now, seen.get(node, NOTHING_SEEN), changes)
        # A report is kept as the node's last one only for nodes with a record (the store
        # keeps no more): a healthy fleet's heartbeats cost no writes.
        changes.seen.update((n, now) for n in reported if n in self._records)
        return len(by_node)

    def _tick(self, now: datetime, changes: Changes) -> int:
        self._removals.expire(now)
        self._note(self._correlator.step(now, ()), changes)
        nodes = sorted(self._active)
        seen = self._observer.observe(nodes, self._records, self._queue, now)
        for node in nodes:
            self._apply(node, (), now, seen[node], changes)
        return len(nodes)

    def _reconcile(self, now: datetime, changes: Changes) -> int:
        try:
            cordoned = self._scheduler.cordoned()
        except (TransientError, PermanentError):
            return 0  # nothing learned: the next reconcile tries again
        for action in reconcile(self._records, cordoned, self._queue.pending, self.name, now):
            changes.events.append(Event(action.node, now, self.name, action.why))
            self._record(action, changes)
        return 0

    # --- inside a pass ---------------------------------------------------------------------

    def _is_fault(self, signal: NodeSignal) -> bool:
        return self._policy.classify(signal).rank >= SignalClass.SUSPECT.rank

    def _apply(
        self,
        node: str,
        signals: Sequence[NodeSignal],
        now: datetime,
        seen: Observation,
        changes: Changes,
    ) -> None:
        # A node gets a record when a decision changes it, never for only reporting: names
        # that merely posted must not count in the breaker's fleet.
        record = self._records.get(node) or NodeRecord(node, since=now)
        idle = not signals and record.state is _HEALTHY and record.held is None
        ctx = self._idle if idle else self._context(node, seen)
        self._take(decide(record, signals, now, ctx), changes, now, record)

    def _context(self, node: str, seen: Observation) -> DecisionContext:
        domains = self._topology.of(node)
        fleet = self._fleet_size or max(len(self._topology.domains), len(self._records))
        view = BreakerView(
            self._policy.breaker,
            self._breaker,
            fleet,
            self._removals.removed,
            self._out,
            {d: self._removals.in_domain(d) for d in domains},
        )
        incident = self._correlator.of(domains)
        return DecisionContext(
            self._policy, view, self.name, domains, incident, seen, dry_run=self.dry_run
        )

    def _take(
        self, decision: Decision, changes: Changes, now: datetime, base: NodeRecord | None = None
    ) -> None:
        rec = decision.record
        node = rec.node
        before = self._records.get(node)
        if rec is not before and rec is not base:
            self._records[node] = rec
            changes.records.append(rec)
        t = decision.transition
        if t is not None:
            changes.transitions.append(t)
            self._out += (t.frm is _HEALTHY) - (t.to is _HEALTHY)
            if decision.removal:
                self._removals.add(node, now)
            self._queue.failed.pop(node, None)  # failures belong to the state they were in
        if rec.state is not _HEALTHY or rec.held is not None:
            self._active.add(node)
        else:
            self._active.discard(node)
        for action in decision.actions:
            self._record(action, changes)
        changes.events.extend(Event(node, now, self.name, note) for note in decision.notes)
        if decision.refusal is not None:
            first = before is None or before.held is None
            self._refused(decision.refusal, node, now, changes, first)

    def _refused(
        self, refusal: Admission, node: str, now: datetime, changes: Changes, first: bool
    ) -> None:
        if refusal.trips and not self._breaker.tripped:
            self._breaker = BreakerState(now, refusal.reason)
            changes.breaker = self._breaker
            why = f"circuit breaker tripped: {refusal.reason}; no new quarantines until reset"
            changes.events.append(Event(FLEET, now, self.name, why))
            aid = f"breaker/{now:%Y%m%dT%H%M%S.%fZ}"
            self._record(Action(aid, FLEET, ActionKind.ALERT, now, self.name, why), changes)
        if refusal.domain is not None and first:  # a held node's retries add no incident
            self._note(self._correlator.budget_spent(refusal.domain, node, now), changes)

    def _note(self, changed: Changed, changes: Changes) -> None:
        changes.incidents.extend(changed.incidents)
        for alert in changed.alerts:
            self._record(alert, changes)

    def _record(self, action: Action, changes: Changes) -> None:
        status = ActionStatus.WOULD if self.dry_run else ActionStatus.INTENDED
        record = ActionRecord(action, status, action.at)
        changes.actions.append(record)
        if not self.dry_run:
            self._queue.add(record)

    def _finish(self, now: datetime, changes: Changes, decided: int = 0) -> PassSummary:
        if changes:
            self._store.commit(changes)  # recorded before executed: a crash converges
        outcomes = self._queue.run(self._executor, lambda node: self.node(node).seq)
        if outcomes:
            self._store.commit(Changes(now, self.dry_run, outcomes=list(outcomes)))
        return self._summary(changes, decided, len(outcomes))

    def _summary(self, changes: Changes, decided: int, executed: int) -> PassSummary:
        return PassSummary(
            decided, len(changes.transitions), len(changes.actions), executed, len(self._queue)
        )
