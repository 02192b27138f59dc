"""Hardware recovery's store in memory, with the SQL stores' semantics: for unit tests and the
simulator (the engine's `memory://` store builds on it, `memory_engine.py`)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from autorecover.adapters.store.memory_requests import RequestBook
from autorecover.controllers.hardware.ports import ActionRecord, Changes, Event, Snapshot
from autorecover.controllers.ports import ActionStatus
from autorecover.controllers.requests import (
    Control,
    Controls,
    OperatorRequest,
    controls_of,
    receive,
)
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import NodeState, Transition
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.signals import NodeSignal


class MemoryStore:
    """The same port in memory, with the same semantics: for unit tests and the simulator.

    Records are immutable, so they are kept as they are, not serialised; a controller built
    afresh on the same `MemoryStore` sees exactly what a restarted one would see in SQLite.
    """

    def __init__(self) -> None:
        self.nodes: dict[str, NodeRecord] = {}
        self.last_seen: dict[str, datetime] = {}
        self._transitions: list[Transition] = []
        self._seqs: set[tuple[str, int]] = set()
        self._actions: dict[str, ActionRecord] = {}  # insertion-ordered
        self.signals: list[NodeSignal] = []
        self.received: list[datetime] = []  # when each of `signals` was recorded
        self._events: list[Event] = []
        self.incidents: dict[str, DomainIncident] = {}
        self.breaker: BreakerState = CLOSED
        self.dry_run_breaker: BreakerState = CLOSED  # dry-run's would-have breaker
        self._dry: set[tuple[str, int]] = set()  # transitions recorded in dry-run
        self._book = RequestBook()  # operator requests
        self._requests = self._book.by_id
        self.switches: dict[str, str] = {}  # switch -> the id of the request that set it
        self.commits = 0

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything a controller needs to resume."""
        actions = list(self._actions.values())
        return Snapshot(
            nodes=dict(self.nodes),
            pending=[a for a in actions if a.status is ActionStatus.INTENDED],
            failed=[
                a
                for a in actions
                if a.status is ActionStatus.FAILED
                and a.action.node in self.nodes
                and a.action.seq == self.nodes[a.action.node].seq
            ],
            breaker=self.breaker,
            incidents=[i for i in self.incidents.values() if i.closed_at is None],
            removals=self._removals(removals_since, dry_run=False),
            dry_run_breaker=self.dry_run_breaker,
            dry_run_removals=self._removals(removals_since, dry_run=True),
        )

    def _removals(self, since: datetime, dry_run: bool) -> list[tuple[str, datetime]]:
        return [
            (t.node, t.at)
            for t in self._transitions
            if t.frm is NodeState.HEALTHY
            and t.at > since
            and ((t.node, t.seq) in self._dry) == dry_run
        ]

    def commit(self, changes: Changes) -> None:
        """Record one pass; checked first, so a bad pass changes nothing (like a rollback)."""
        for t in changes.transitions:
            if (t.node, t.seq) in self._seqs:
                raise ValueError(f"transition {t.node}/{t.seq} recorded twice")
        self.commits += 1
        for rec in changes.records:
            self.nodes[rec.node] = rec
        for node, at in changes.seen.items():  # a report makes no record: only a decision does
            if node in self.nodes:
                self.last_seen[node] = at
        self.signals.extend(changes.signals)
        self.received.extend([changes.at] * len(changes.signals))
        for t in changes.transitions:
            self._seqs.add((t.node, t.seq))
            self._transitions.append(t)
            if changes.dry_run:
                self._dry.add((t.node, t.seq))
        for a in changes.actions:
            self._actions.setdefault(a.action.id, a)
        for o in changes.outcomes:
            old = self._actions.get(o.action_id)
            if old is not None and old.status is ActionStatus.INTENDED:
                self._actions[o.action_id] = ActionRecord(old.action, o.status, o.at, o.result)
        self._events.extend(changes.events)
        for i in changes.incidents:
            self.incidents[i.id] = i
        if changes.breaker is not None:
            if changes.dry_run:
                self.dry_run_breaker = changes.breaker
            else:
                self.breaker = changes.breaker
        self._book.settle(changes.settled)

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        return [t for t in self._transitions if node is None or t.node == node]

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        return [a for a in self._actions.values() if node is None or a.action.node == node]

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        return [e for e in self._events if node is None or e.node == node]

    # --- operator requests -----------------------------------------------------------------

    def controls(self) -> Controls:
        """The operator's switches in force."""
        return controls_of({k: self._requests[rid] for k, rid in self.switches.items()})

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Operator requests of these kinds not yet settled, oldest first."""
        return self._book.pending(kinds)

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record an operator request once per id, with its switch; as stored."""
        found = self._book.stored(request)
        if found is not None:
            return found
        switches = {k: self._requests[rid] for k, rid in self.switches.items()}
        stored, change = receive(request, switches)
        if change is not None:
            key, rid = change
            if rid is None:
                self.switches.pop(key, None)
            else:
                self.switches[key] = rid
        self._book.add(stored)
        return stored

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Operator requests about a target (or any of `targets`, or all), oldest first."""
        return self._book.about(target, targets, limit)
