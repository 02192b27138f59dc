"""What the engine keeps in the store beyond hardware recovery's memory, and the port for it.

The inbox holds agent batches from the moment the intake acknowledged them until a leader's
controller pass has recorded them: an acknowledged signal is on disk, never only in memory.
A batch a pass cannot record is set aside, with its error, among the dead letters, from where
a person may put it back.
A lease names the one replica that acts; `commit_pass` checks the caller's fence in the same
transaction as the pass it records, so a replica that lost its lease records nothing more,
and therefore executes nothing more (actions are executed only after they are recorded).
The order book (`orders`) keeps what node agents are asked to run and how it ended.
Every SQL store (SQLite, PostgreSQL) and the memory store implement `EngineStore`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from autorecover.controllers.hardware.ports import ActionRecord, Changes, StorePort
from autorecover.controllers.orders import OrderBook
from autorecover.controllers.requests import OperatorRequest
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import Transition
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.signals import NodeSignal

MAX_ERROR = 2000  # characters of a dead letter's error kept


class ConflictError(ValueError):
    """A write contradicts what the store holds (a transition recorded twice, say)."""


class LeaseLostError(Exception):
    """The fence no longer holds: another replica leads now; nothing was recorded."""


@dataclass(frozen=True, slots=True)
class Batch:
    """One agent POST as the inbox keeps it (its signals in the wire format)."""

    id: int
    node: str
    received_at: datetime
    agent: str
    dropped: int  # signals the agent had to drop before this batch (its running count)
    signals: tuple[NodeSignal, ...]
    error: str = ""  # set when the stored batch cannot be read: a pass sets it aside


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A batch a pass could not record, set aside with its error instead of blocking the rest."""

    id: int
    batch: int  # its id in the inbox
    node: str
    agent: str
    received_at: datetime
    failed_at: datetime
    error: str
    body: str  # its signals as the inbox kept them (the wire format's JSON)


@dataclass(frozen=True, slots=True)
class Lease:
    """Who leads: the holder until `expires_at`; `term` grows at every change of holder."""

    name: str
    holder: str
    term: int
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Fence:
    """What a leader's writes carry: they land only while this lease is still theirs."""

    lease: str
    holder: str
    term: int


@dataclass(frozen=True, slots=True)
class NodeView:
    """A node's record with when its agent last reported."""

    record: NodeRecord
    last_seen: datetime | None


class EngineStore(StorePort, Protocol):
    """The hardware store plus the engine's inbox, leases, read queries, and the orders
    node agents run."""

    @property
    def orders(self) -> OrderBook:
        """The orders node agents pull and report on (`controllers.orders`)."""
        ...

    def enqueue(
        self, node: str, agent: str, dropped: int, signals: Sequence[NodeSignal], *,
        received_at: datetime, max_waiting: int,
    ) -> int | None:  # fmt: skip
        """Keep a batch; its id, or None when `max_waiting` batches already wait."""
        ...

    def waiting(self) -> int:
        """Batches acknowledged and not yet recorded by a pass."""
        ...

    def backlog(self) -> int:
        """Batches waiting, counted cheaply enough for every intake request: at least
        `waiting()`, and more only by batches set aside from the middle of the inbox."""
        ...

    def take(self, limit: int) -> list[Batch]:
        """The oldest waiting batches (they stay until a `commit_pass` consumes them)."""
        ...

    def commit_pass(
        self,
        changes: Changes | None,
        *,
        now: datetime,
        fence: Fence | None = None,
        consumed: Sequence[int] = (),
    ) -> None:
        """Record a pass and drop the consumed batches, atomically; LeaseLostError if fenced out."""
        ...

    def set_aside(
        self, batch: int, error: str, *, now: datetime, fence: Fence | None = None
    ) -> None:
        """Move a waiting batch to the dead letters with its error; LeaseLostError if fenced out."""
        ...

    def dead_letters(self, limit: int = 100) -> list[DeadLetter]:
        """The oldest `limit` dead letters."""
        ...

    def dead_letter_count(self) -> int:
        """How many batches are set aside."""
        ...

    def retry_dead_letter(self, letter: int, *, now: datetime, by: str, why: str) -> int | None:
        """Put a dead letter back at the end of the inbox (noting who and why on the node's
        events); its new batch id, or None when there is no such dead letter."""
        ...

    def acquire(self, name: str, holder: str, now: datetime, ttl_s: float) -> Lease:
        """Take or renew the lease if it is ours or expired; the lease as it now stands."""
        ...

    def release(self, name: str, holder: str) -> None:
        """Give the lease up at once (if ours), so a standby need not wait for it to expire."""
        ...

    def lease(self, name: str) -> Lease | None:
        """The lease as recorded."""
        ...

    def node_views(self) -> list[NodeView]:
        """Every node with its record and last report, by name."""
        ...

    def breaker_state(self, dry_run: bool = False) -> BreakerState:
        """The circuit breaker as recorded (or dry-run's would-have breaker)."""
        ...

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record an operator request once per id, with the switch it sets; as stored.
        `ConflictError` when the id was used for another request."""
        ...

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Operator requests (the audit) about a target, or any of `targets`, or all; the
        latest `limit`, oldest first."""
        ...

    def node_signals(self, node: str, limit: int = 50) -> list[NodeSignal]:
        """The node's latest recorded signals, oldest first."""
        ...

    def domain_incidents(self) -> list[DomainIncident]:
        """Every domain incident, open or closed, oldest first."""
        ...

    def trail(self, incident: str) -> tuple[list[Transition], list[ActionRecord]]:
        """The transitions and actions recorded for one incident, oldest first."""
        ...

    def transitions_after(self, after: int, limit: int = 1000) -> list[tuple[int, Transition]]:
        """Transitions with a position after `after`, with their positions, oldest first."""
        ...

    def newest_incidents(self, limit: int) -> list[str]:
        """The `limit` node incidents (named by transitions) whose first transition is the
        latest, newest first: a page of a history too long to read whole."""
        ...

    def incident_transitions(self, incidents: Collection[str]) -> list[Transition]:
        """Every transition of these incidents, oldest first."""
        ...

    def prune_signals(self, before: datetime, limit: int = 10_000) -> int:
        """Forget up to `limit` of the oldest recorded signals received before `before` (the
        retention; decisions keep their own evidence); how many went."""
        ...

    def recent_actions(self, limit: int = 100) -> list[ActionRecord]:
        """The latest `limit` actions, oldest first."""
        ...

    def ping(self) -> None:
        """Raise unless the store answers."""
        ...

    def close(self) -> None:
        """Let the store go."""
        ...
