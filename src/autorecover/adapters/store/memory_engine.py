"""`EngineStore` in memory (`memory://`): the memory store plus inbox, leases and reads.

For tests and a throwaway engine: nothing survives the process. One lock guards it all,
since the engine's HTTP threads and controller loops share it. It keeps the SQL stores'
semantics, including the fence check that makes a deposed leader's pass record nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from autorecover.adapters.http.wire import signal_to_dict
from autorecover.adapters.store.base import (
    MAX_ERROR,
    Batch,
    DeadLetter,
    Fence,
    Lease,
    LeaseLostError,
    NodeView,
)
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.memory_orders import MemoryOrderBook
from autorecover.controllers.hardware.ports import ActionRecord, Changes, Event, Snapshot
from autorecover.controllers.requests import Control, Controls, OperatorRequest
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import Transition
from autorecover.domain.hardware.records import EPOCH, NodeRecord
from autorecover.domain.signals import NodeSignal


class MemoryEngineStore(MemoryStore):
    """The engine's store in memory."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.RLock()
        self._inbox: dict[int, Batch] = {}
        self._next_batch = 1
        self._leases: dict[str, Lease] = {}
        self._dead: dict[int, tuple[DeadLetter, Batch]] = {}
        self._next_letter = 1
        self.orders = MemoryOrderBook()  # what node agents run (`controllers.orders`)

    # --- the hardware port, locked ---------------------------------------------------------

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything a controller needs to resume."""
        with self._lock:
            return super().load(removals_since)

    def commit(self, changes: Changes) -> None:
        """Record one pass."""
        with self._lock:
            super().commit(changes)

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        with self._lock:
            return super().transitions(node)

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        with self._lock:
            return super().actions(node)

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        with self._lock:
            return super().events(node)

    # --- the inbox -------------------------------------------------------------------------

    def enqueue(
        self, node: str, agent: str, dropped: int, signals: Sequence[NodeSignal], *,
        received_at: datetime, max_waiting: int,
    ) -> int | None:  # fmt: skip
        """Keep a batch; its id, or None when the inbox is full."""
        with self._lock:
            if len(self._inbox) >= max_waiting:
                return None
            bid, self._next_batch = self._next_batch, self._next_batch + 1
            self._inbox[bid] = Batch(bid, node, received_at, agent, dropped, tuple(signals))
            return bid

    def waiting(self) -> int:
        """Batches acknowledged and not yet recorded."""
        with self._lock:
            return len(self._inbox)

    def backlog(self) -> int:
        """Batches waiting (in memory the count is cheap and exact)."""
        return self.waiting()

    def take(self, limit: int) -> list[Batch]:
        """The oldest waiting batches."""
        with self._lock:
            return [self._inbox[i] for i in sorted(self._inbox)[:limit]]

    def _fenced(self, fence: Fence | None, now: datetime) -> None:
        if fence is not None:
            lease = self._leases.get(fence.lease)
            if lease is None or (lease.holder, lease.term) != (fence.holder, fence.term):
                raise LeaseLostError(f"lease {fence.lease!r} is not {fence.holder!r}'s")
            if lease.expires_at <= now:
                raise LeaseLostError(f"lease {fence.lease!r} expired")

    def commit_pass(
        self,
        changes: Changes | None,
        *,
        now: datetime,
        fence: Fence | None = None,
        consumed: Sequence[int] = (),
    ) -> None:
        """Record a pass and drop consumed batches, if the fence holds."""
        with self._lock:
            self._fenced(fence, now)
            if changes:
                super().commit(changes)
            for i in consumed:
                self._inbox.pop(i, None)

    # --- dead letters ----------------------------------------------------------------------

    def set_aside(
        self, batch: int, error: str, *, now: datetime, fence: Fence | None = None
    ) -> None:
        """Move a waiting batch to the dead letters with its error."""
        with self._lock:
            self._fenced(fence, now)
            found = self._inbox.pop(batch, None)
            if found is None:
                return
            body = json.dumps([signal_to_dict(s) for s in found.signals], separators=(",", ":"))
            lid, self._next_letter = self._next_letter, self._next_letter + 1
            letter = DeadLetter(lid, batch, found.node, found.agent, found.received_at, now,
                                error[:MAX_ERROR], body)  # fmt: skip
            self._dead[lid] = (letter, found)

    def dead_letters(self, limit: int = 100) -> list[DeadLetter]:
        """The oldest `limit` dead letters."""
        with self._lock:
            return [self._dead[i][0] for i in sorted(self._dead)[:limit]]

    def dead_letter_count(self) -> int:
        """How many batches are set aside."""
        with self._lock:
            return len(self._dead)

    def retry_dead_letter(self, letter: int, *, now: datetime, by: str, why: str) -> int | None:
        """Back to the end of the inbox, with a note on the node's events; the new batch id."""
        with self._lock:
            found = self._dead.pop(letter, None)
            if found is None:
                return None
            _, batch = found
            bid, self._next_batch = self._next_batch, self._next_batch + 1
            self._inbox[bid] = replace(batch, id=bid)
            self._events.append(Event(batch.node, now, by, f"dead letter {letter} retried: {why}"))
            return bid

    # --- leases ----------------------------------------------------------------------------

    def acquire(self, name: str, holder: str, now: datetime, ttl_s: float) -> Lease:
        """Renew our lease, or take an expired one (a new term); else say whose it is."""
        with self._lock:
            old = self._leases.get(name)
            if old is not None and old.expires_at > now and old.holder != holder:
                return old
            term = 0 if old is None else old.term
            if old is None or old.expires_at <= now:
                term += 1
            lease = Lease(name, holder, term, now + timedelta(seconds=ttl_s))
            self._leases[name] = lease
            return lease

    def release(self, name: str, holder: str) -> None:
        """Let the lease lapse now, if it is ours."""
        with self._lock:
            old = self._leases.get(name)
            if old is not None and old.holder == holder:
                self._leases[name] = Lease(name, holder, old.term, EPOCH)

    def lease(self, name: str) -> Lease | None:
        """The lease as recorded."""
        with self._lock:
            return self._leases.get(name)

    # --- reads -----------------------------------------------------------------------------

    def node_views(self) -> list[NodeView]:
        """Every node with its last report, by name."""
        with self._lock:
            names = sorted(set(self.nodes) | set(self.last_seen))
            return [
                NodeView(self.nodes.get(n) or NodeRecord(n), self.last_seen.get(n)) for n in names
            ]

    def breaker_state(self, dry_run: bool = False) -> BreakerState:
        """The circuit breaker as recorded (or dry-run's would-have breaker)."""
        with self._lock:
            return self.dry_run_breaker if dry_run else self.breaker

    # --- operator requests, locked ---------------------------------------------------------

    def controls(self) -> Controls:
        """The operator's switches in force."""
        with self._lock:
            return super().controls()

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Operator requests of these kinds not yet settled, oldest first."""
        with self._lock:
            return super().pending_requests(kinds)

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record an operator request once per id, with its switch; as stored."""
        with self._lock:
            return super().submit(request)

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Operator requests about a target (or any of `targets`, or all), oldest first."""
        with self._lock:
            return super().requests(target, targets, limit)

    def node_signals(self, node: str, limit: int = 50) -> list[NodeSignal]:
        """The node's latest signals, oldest first."""
        with self._lock:
            return [s for s in self.signals if s.node == node][-limit:]

    def domain_incidents(self) -> list[DomainIncident]:
        """Every domain incident, oldest first."""
        with self._lock:
            return sorted(self.incidents.values(), key=lambda i: (i.opened_at, i.id))

    def trail(self, incident: str) -> tuple[list[Transition], list[ActionRecord]]:
        """One incident's transitions and actions."""
        with self._lock:
            return (
                [t for t in super().transitions() if t.incident == incident],
                [a for a in super().actions() if a.action.incident == incident],
            )

    def newest_incidents(self, limit: int) -> list[str]:
        """The `limit` incidents whose first transition is the latest, newest first."""
        with self._lock:
            first: dict[str, datetime] = {}
            for t in super().transitions():
                if t.incident and t.incident not in first:
                    first[t.incident] = t.at
        return sorted(first, key=lambda i: (first[i], i), reverse=True)[:limit]

    def incident_transitions(self, incidents: Collection[str]) -> list[Transition]:
        """Every transition of these incidents, oldest first."""
        wanted = set(incidents)
        with self._lock:
            return [t for t in super().transitions() if t.incident in wanted]

    def prune_signals(self, before: datetime, limit: int = 10_000) -> int:
        """The oldest signals received before `before`, up to `limit`."""
        with self._lock:
            gone = 0
            while gone < min(limit, len(self.received)) and self.received[gone] < before:
                gone += 1
            del self.signals[:gone], self.received[:gone]
            return gone

    def transitions_after(self, after: int, limit: int = 1000) -> list[tuple[int, Transition]]:
        """Transitions positioned after `after` (positions count from 1)."""
        with self._lock:
            found = super().transitions()[after : after + limit]
            return list(enumerate(found, start=after + 1))

    def recent_actions(self, limit: int = 100) -> list[ActionRecord]:
        """The latest `limit` actions, oldest first."""
        with self._lock:
            return super().actions()[-limit:]

    def ping(self) -> None:
        """Memory always answers."""

    def close(self) -> None:
        """Nothing to let go."""
