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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
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
    PowerPort,
    SchedulerNode,
    SchedulerPort,
    StorePort,
)
from autorecover.controllers.hardware.reconciling import lifted_by_someone, reconcile
from autorecover.controllers.hardware.silencing import Silences
from autorecover.controllers.ports import (
    ActionStatus,
    Clock,
    Notifier,
    Outcome,
    PermanentError,
    TransientError,
)
from autorecover.controllers.requests import (
    HARDWARE_CONTROLS,
    NO_CONTROLS,
    Control,
    Controls,
    OperatorRequest,
    RequestStatus,
    Settled,
)
from autorecover.controllers.topologies import TopologyBook
from autorecover.domain.failure_domains import (
    CLIQUE_SIGNAL,
    NO_TOPOLOGY,
    Topology,
    is_fabric_fault,
)
from autorecover.domain.hardware.breaker import CLOSED, Admission, BreakerState, BreakerView
from autorecover.domain.hardware.decisions import decide, release
from autorecover.domain.hardware.lifecycle import (
    FLEET,
    OUT_OF_SERVICE,
    Action,
    ActionKind,
    NodeState,
)
from autorecover.domain.hardware.policy import HardwarePolicy, SignalClass
from autorecover.domain.hardware.records import (
    NOTHING_SEEN,
    Decision,
    DecisionContext,
    NodeRecord,
    Observation,
)
from autorecover.domain.hardware.remediation import Step, without_step
from autorecover.domain.signals import HealthReport, NodeSignal

_HEALTHY = NodeState.HEALTHY
SOMEONE = "a person, via the scheduler"  # `by` of a release read from a lifted cordon


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
        power: PowerPort | None = None,
        book: TopologyBook | None = None,  # shared with job recovery; cliques learned so far
    ) -> None:
        self._book = book or TopologyBook(topology)
        topology = self._book.current()
        if power is None:  # no BMC to ask: the ladder has no power-cycle rung
            policy = replace(policy, ladder=without_step(policy.ladder, Step.POWER_CYCLE))
        self._store, self._scheduler, self._diagnostics = store, scheduler, diagnostics
        self._clock, self._policy, self._topology = clock, policy, topology
        self.name, self.dry_run, self._fleet_size = name, dry_run, fleet_size
        now = clock.now()
        bucket = TokenBucket(policy.rate.per_s, policy.rate.burst, now)
        self._executor = Executor(scheduler, diagnostics, notifier, clock, bucket, hooks, power)
        snap = store.load(now - policy.breaker.window)
        self._records: dict[str, NodeRecord] = dict(snap.nodes)
        self._queue = ActionQueue(snap.pending, snap.failed)
        # Dry-run counts against its own would-have breaker: a trial never trips the real one.
        self._breaker = snap.dry_run_breaker if dry_run else snap.breaker
        self._removals = RemovalWindow(policy.breaker.window, topology)
        for node, at in snap.dry_run_removals if dry_run else snap.removals:
            self._removals.add(node, at)
        self._correlator = Correlator(topology, policy.correlation, name, snap.incidents)
        since = now - policy.correlation.window
        self._correlator.remember(
            (r.node, m.at, m.key)
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
        self._silences = Silences(scheduler, policy.silence)  # agents heard; silent nodes
        self._controls: Controls = NO_CONTROLS  # the operator's switches, read every pass
        self._held_noted: set[str] = set()  # nodes whose held decision was noted this pause

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

    def operate(self) -> PassSummary | None:
        """Act on people's requests waiting in the store, when there are any (the engine
        asks on every intake pass, so a release does not wait for the next tick)."""
        if self._broken or not self._store.pending_requests(HARDWARE_CONTROLS):
            return None
        return self._pass(lambda now, changes: 0)

    def reconcile(self) -> PassSummary:
        """Resume orphan cordons of ours; restore our cordons where records hold nodes out."""
        return self._pass(self._reconcile)

    @property
    def controls(self) -> Controls:
        """The operator's switches as the last pass read them."""
        return self._controls

    # --- people ----------------------------------------------------------------------------

    def release(self, node: str, by: str, why: str, validate: bool = False) -> PassSummary:
        """A person hands a node back from any state of ours: to service at once, or from
        needs-attention through validation first. ValueError for a healthy node."""

        def hand_back(now: datetime, changes: Changes) -> int:
            refused = self._release(node, by, why, validate, now, changes)
            if refused:
                raise ValueError(refused)
            return 1

        return self._pass(hand_back, check=lambda: self._refusal(node, validate))

    def reset_breaker(self, by: str, why: str) -> PassSummary:
        """A person closes the tripped breaker: new quarantines are allowed again."""

        def reset(now: datetime, changes: Changes) -> int:
            self._reset(by, why, now, changes)
            return 0

        return self._pass(reset)

    def _refusal(self, node: str, validate: bool) -> str | None:
        """Why a release of this node cannot be done, or None."""
        rec = self._records.get(node)
        if rec is None:
            return f"no node {node!r}"
        if rec.state is _HEALTHY:
            return f"{node} is healthy: nothing to release"
        if validate and rec.state is not NodeState.NEEDS_ATTENTION:
            return f"{node} is {rec.state}: validation first applies to needs_attention only"
        return None

    def _release(
        self, node: str, by: str, why: str, validate: bool, now: datetime, changes: Changes
    ) -> str | None:
        refused = self._refusal(node, validate)
        if refused:
            return refused
        # What the old state still had queued is moot: the node leaves it now.
        for record in self._queue.drop(node):
            result = f"superseded: {node} released by {by}"
            changes.outcomes.append(Outcome(record.action.id, ActionStatus.FAILED, now, result))
        self._take(release(self._records[node], now, by, why, validate), changes, now)
        return None

    def _reset(self, by: str, why: str, now: datetime, changes: Changes) -> str | None:
        if not self._breaker.tripped:
            return "the breaker is not tripped"
        changes.breaker = self._breaker = self._breaker.reset(now, by, why)
        changes.events.append(Event(FLEET, now, by, f"breaker reset: {why}"))
        return None

    def _operate(self, now: datetime, changes: Changes) -> None:
        """The operator's switches for this pass, and the requests that wait for it."""
        self._controls = self._store.controls()
        if self._controls.paused is None:
            self._held_noted.clear()
        for request in self._store.pending_requests(HARDWARE_CONTROLS):
            refused = self._request(request, now, changes)
            status = RequestStatus.REFUSED if refused else RequestStatus.DONE
            changes.settled.append(Settled(request.id, status, now, refused or ""))

    def _request(self, r: OperatorRequest, now: datetime, changes: Changes) -> str | None:
        where = f"{r.kind} requested by {r.by} from {r.source or 'unknown'} ({r.id}): {r.why}"
        if r.kind is Control.RELEASE:
            refused = self._release(
                r.target, r.by, r.why, r.option("validate") == "true", now, changes
            )
            if not refused:
                changes.events.append(Event(r.target, now, r.by, where))
            return refused
        if r.kind is Control.RESET_BREAKER:
            return self._reset(r.by, f"{r.why} ({r.id})", now, changes)
        return f"not a hardware recovery request: {r.kind}"  # pragma: no cover - filtered

    def _maintained(self, node: str) -> bool:
        """A person holds the node (or one of its domains) in maintenance: hands off."""
        if not self._controls.maintenance:
            return False
        domains = tuple(str(d) for d in self._topology.of(node))
        return self._controls.in_maintenance(node, domains) is not None

    # --- passes ----------------------------------------------------------------------------

    def _pass(
        self,
        body: Callable[[datetime, Changes], int],
        check: Callable[[], str | None] | None = None,
    ) -> PassSummary:
        """Run one pass; any exception leaves this controller unusable: build a fresh one.
        `check`, run first, may refuse the pass (ValueError) before anything changes."""
        if self._broken:
            raise RuntimeError("a pass failed: build a fresh controller on the same store")
        if check is not None and (refused := check()):
            raise ValueError(refused)
        now = self._clock.now()
        changes = Changes(now, self.dry_run)
        try:
            self._operate(now, changes)
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
        faulted, fabric = [], []
        self._learn_cliques(by_node)
        for node, found in list(by_node.items()):
            changes.signals.extend(found)  # recorded, maintenance or not
            if self._maintained(node):
                del by_node[node]  # hands off: nothing decided, nothing counted
            elif any(self._is_fault(s) for s in found):
                faulted.append(node)
                if any(self._is_fault(s) and is_fabric_fault(s.signal) for s in found):
                    fabric.append(node)
        self._note(self._correlator.step(now, faulted, fabric), changes)
        active = [n for n in by_node if n in self._active]
        seen = self._observer.observe(active, self._records, self._queue, now)
        for node, found in by_node.items():
            self._apply(node, found, now, seen.get(node, NOTHING_SEEN), changes)
        # A report is kept as the node's last one only for nodes with a record (the store
        # keeps no more): a healthy fleet's heartbeats cost no writes.
        changes.seen.update((n, now) for n in reported if n in self._records)
        self._silences.heard(reported, now)
        return len(by_node)

    def _tick(self, now: datetime, changes: Changes) -> int:
        self._removals.expire(now)
        self._note(self._correlator.step(now, ()), changes)
        nodes = sorted(n for n in self._active if not self._maintained(n))
        seen = self._observer.observe(nodes, self._records, self._queue, now)
        silent = self._silences.silent(now, lambda n: self._steady(n) and not self._maintained(n))
        for node in sorted({*nodes, *silent}):
            found = (silent[node],) if node in silent else ()
            changes.signals.extend(found)
            self._apply(node, found, now, seen.get(node, NOTHING_SEEN), changes)
        return len(nodes) + len(silent.keys() - set(nodes))

    def _steady(self, node: str) -> bool:  # in service or suspect, not held: silence counts
        return self.node(node).state in (_HEALTHY, NodeState.SUSPECT) and not self.node(node).held

    def _reconcile(self, now: datetime, changes: Changes) -> int:
        if self._controls.paused is not None:
            return 0  # acting is paused: nothing to repair until it resumes
        try:
            cordoned = self._scheduler.cordoned()
        except (TransientError, PermanentError):
            return 0  # nothing learned: the next reconcile tries again
        if self._controls.maintenance:  # hands off what a person is working on
            cordoned = {n: v for n, v in cordoned.items() if not self._maintained(n)}
            records = {n: r for n, r in self._records.items() if not self._maintained(n)}
        else:
            records = dict(self._records)
        for node, view in self._uncordoned_by_people(records, cordoned, now).items():
            # A person lifted our cordon: their intent, recorded and not fought.
            shows = view.shows or "schedulable, no cordon of ours"
            why = f"our cordon was lifted outside autorecover (the scheduler shows: {shows})"
            changes.events.append(
                Event(node, now, SOMEONE, f"{why}: read as a person's release, not re-cordoned")
            )
            self._take(release(records.pop(node), now, SOMEONE, why), changes, now)
        for action in reconcile(records, cordoned, self._queue.pending, self.name, now):
            changes.events.append(Event(action.node, now, self.name, action.why))
            self._record(action, changes)
        return 0

    def _uncordoned_by_people(
        self, records: dict[str, NodeRecord], cordoned: Mapping[str, SchedulerNode], now: datetime
    ) -> dict[str, SchedulerNode]:
        """Nodes we hold out whose cordon of ours is gone though we never lifted it: the last
        of our actions that put it out or let it back (a resume, a reboot that returns it) is
        done and put it out, long enough ago for the scheduler's view to show it."""
        if self.dry_run:
            return {}  # nothing of ours was ever on the scheduler
        gone = [
            n
            for n, r in records.items()
            if r.state in OUT_OF_SERVICE
            and n not in self._queue.pending
            and self.name not in (cordoned[n].cordoned_by if n in cordoned else ())
        ]
        found = [n for n in gone if lifted_by_someone(self._store.actions(n), now)]
        if not found:
            return {}
        try:
            views = self._scheduler.observe(found)
        except (TransientError, PermanentError):
            return {}  # not sure what the scheduler shows: the next reconcile looks again
        return {n: views[n] for n in found if n in views}

    # --- inside a pass ---------------------------------------------------------------------

    @property
    def topology(self) -> Topology:
        """The failure domains as this controller counts them now (labels and learned cliques)."""
        return self._topology

    def _learn_cliques(self, by_node: Mapping[str, Sequence[NodeSignal]]) -> None:
        """A node's agent named its NVLink clique: the node joins that NVLink domain, unless
        its labels placed it in one already (`Topology.with_cliques`)."""
        reported = {
            node: dict(s.details).get("clique", "")
            for node, found in by_node.items()
            for s in found
            if s.signal == CLIQUE_SIGNAL
        }
        if not reported or not self._book.learn(reported):
            return
        self._topology = self._book.current()
        self._removals.topology = self._topology
        self._correlator.learn(self._topology)

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
            self._policy, view, self.name, domains, incident, seen, dry_run=self.dry_run,
            paused=self._controls.paused is not None,
        )  # fmt: skip

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
            if t.frm is t.to:  # the ladder's next rung: a remedy still waiting is moot
                for old in self._queue.drop(node):
                    result = f"superseded: {t.why}"
                    changes.outcomes.append(
                        Outcome(old.action.id, ActionStatus.FAILED, now, result)
                    )
            self._queue.failed.pop(node, None)  # failures belong to the state they were in
        if rec.state is not _HEALTHY or rec.held is not None:
            self._active.add(node)
        else:
            self._active.discard(node)
        for action in decision.actions:
            self._record(action, changes)
        if decision.paused:  # a held decision is noted once a pause, not every pass
            if node in self._held_noted:
                return
            self._held_noted.add(node)
        changes.events.extend(Event(node, now, self.name, note) for note in decision.notes)
        if decision.refusal is not None:
            first = before is None or before.held is None
            self._refused(decision.refusal, node, now, changes, first)

    def _refused(
        self, refusal: Admission, node: str, now: datetime, changes: Changes, first: bool
    ) -> None:
        if refusal.trips and not self._breaker.tripped:
            self._breaker = self._breaker.trip(now, refusal.reason)
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
        if self._controls.paused is not None:
            return self._summary(changes, decided, 0)  # paused: recorded, nothing executed
        outcomes = self._queue.run(
            self._executor, lambda node: self.node(node).seq, hands_off=self._maintained
        )
        if outcomes:
            self._store.commit(Changes(now, self.dry_run, outcomes=list(outcomes)))
        return self._summary(changes, decided, len(outcomes))

    def _summary(self, changes: Changes, decided: int, executed: int) -> PassSummary:
        return PassSummary(
            decided, len(changes.transitions), len(changes.actions), executed, len(self._queue)
        )
