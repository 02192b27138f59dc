"""The engine's part of the SQL store: the signal inbox, leader leases, read queries.

Batches are kept in the agent's own wire format (`adapters.http.wire`, `autorecover.signals/1`)
and deleted by the pass that records them. Lease expiry is kept as integer microseconds
since the epoch, so both databases compare it exactly; replicas must keep their clocks in
step (as for any lease), and the TTL should dwarf the skew between them.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta

from autorecover.adapters.http.wire import WireError, signal_from_dict, signal_to_dict
from autorecover.adapters.store.base import (
    MAX_ERROR,
    Batch,
    DeadLetter,
    Fence,
    Lease,
    LeaseLostError,
    NodeView,
)
from autorecover.adapters.store.sql import node_codec as codec
from autorecover.adapters.store.sql.dialect import Db
from autorecover.adapters.store.sql.nodes import SqlStore, _action_record, _transition
from autorecover.adapters.store.sql.orders import SqlOrderBook
from autorecover.controllers.hardware.ports import ActionRecord, Changes
from autorecover.controllers.requests import OperatorRequest
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import Transition
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_SIGNAL_COLUMNS = (
    "node, probe, signal, blame, weight, node_action, at, count, component, text, incident"
)


def micros(at: datetime) -> int:
    """A time as whole microseconds since the epoch."""
    return (at - _EPOCH) // _US


def from_micros(value: int) -> datetime:
    """Microseconds since the epoch as a UTC time."""
    return _EPOCH + value * _US


def check_fence(db: Db, fence: Fence, now: datetime) -> None:
    """Raise `LeaseLostError` unless the fence's lease is still its holder's, in this term and
    unexpired; call it inside the transaction the fence guards."""
    # `FOR SHARE` on PostgreSQL: a takeover waits for the fenced commit to finish.
    rows = db.execute(
        db.dialect.render("SELECT holder, term, expires_us FROM leases WHERE name = ?@share@"),
        (fence.lease,),
    )
    if not rows:
        raise LeaseLostError(f"lease {fence.lease!r} is not held")
    holder, term, expires = rows[0]
    if holder != fence.holder or int(term) != fence.term or int(expires) <= micros(now):
        raise LeaseLostError(f"lease {fence.lease!r} is {holder!r}'s (term {term}) now")


_POSITIONED = "id, node, seq, from_state, to_state, at, by, why, evidence, incident"
_IN_CHUNK = 500  # ids per `IN (...)`: well under SQLite's and PostgreSQL's parameter limits


class SqlEngineStore(SqlStore):
    """`EngineStore` in SQL: hardware recovery's tables plus the engine's."""

    def __init__(self, db: Db) -> None:
        super().__init__(db)
        self.orders = SqlOrderBook(db, self._sql)  # what node agents run (`controllers.orders`)

    # --- the inbox -------------------------------------------------------------------------

    def enqueue(
        self, node: str, agent: str, dropped: int, signals: Sequence[NodeSignal], *,
        received_at: datetime, max_waiting: int,
    ) -> int | None:  # fmt: skip
        """Keep a batch; its id, or None when the inbox is full."""
        body = json.dumps([signal_to_dict(s) for s in signals], separators=(",", ":"))
        with self._db.transaction():
            # On PostgreSQL two intakes may both pass this count: the bound is soft by the
            # number of concurrent requests, which is itself bounded by the server.
            if self._backlog() >= max_waiting:
                return None
            rows = self._rows(
                "INSERT INTO inbox (node, agent, dropped, received_at, body) "
                "VALUES (?,?,?,?,?) RETURNING id",
                (node, agent, dropped, codec.when(received_at), body),
            )
        return int(rows[0][0])

    def waiting(self) -> int:
        """Batches acknowledged and not yet recorded."""
        return int(self._rows("SELECT COUNT(*) FROM inbox")[0][0])

    def backlog(self) -> int:
        """Batches waiting, counted cheaply: the span of their ids."""
        return self._backlog()

    def _backlog(self) -> int:
        # Two index lookups, where COUNT(*) reads every row: at 100,000 waiting batches that
        # made each intake request slower than the last. Ids only grow while any batch waits
        # (the pass takes the oldest first), so the span is exact but for the gaps a batch set
        # aside from the middle leaves: an upper bound, which errs on the side of the limit.
        lo, hi = self._rows("SELECT (SELECT MIN(id) FROM inbox), (SELECT MAX(id) FROM inbox)")[0]
        return 0 if lo is None else int(hi) - int(lo) + 1

    def take(self, limit: int) -> list[Batch]:
        """The oldest waiting batches (one that cannot be read carries its error instead)."""
        rows = self._rows(
            "SELECT id, node, agent, dropped, received_at, body FROM inbox ORDER BY id LIMIT ?",
            (limit,),
        )
        out = []
        for i, node, agent, dropped, at, body in rows:
            try:
                signals, error = _signals(body), ""
            except (ValueError, TypeError, WireError) as exc:
                signals, error = (), f"cannot read the stored batch: {exc}"
            out.append(
                Batch(int(i), node, codec.parse_when(at), agent, int(dropped), signals, error)
            )
        return out

    def commit_pass(
        self,
        changes: Changes | None,
        *,
        now: datetime,
        fence: Fence | None = None,
        consumed: Sequence[int] = (),
    ) -> None:
        """Record a pass and drop consumed batches in one transaction, if the fence holds."""
        with self._db.transaction():
            if fence is not None:
                check_fence(self._db, fence, now)
            if changes:
                self._write(changes)
            if consumed:
                self._db.executemany(
                    self._sql("DELETE FROM inbox WHERE id = ?"), [(i,) for i in consumed]
                )

    # --- dead letters ----------------------------------------------------------------------

    def set_aside(
        self, batch: int, error: str, *, now: datetime, fence: Fence | None = None
    ) -> None:
        """Move a waiting batch, exactly as kept, to the dead letters with its error."""
        with self._db.transaction():
            if fence is not None:
                check_fence(self._db, fence, now)
            self._rows(
                "INSERT INTO dead_letters (batch, node, agent, dropped, received_at, body, "
                "error, failed_at) SELECT id, node, agent, dropped, received_at, body, ?, ? "
                "FROM inbox WHERE id = ?",
                (error[:MAX_ERROR], codec.when(now), batch),
            )
            self._rows("DELETE FROM inbox WHERE id = ?", (batch,))

    def dead_letters(self, limit: int = 100) -> list[DeadLetter]:
        """The oldest `limit` dead letters."""
        rows = self._rows(
            "SELECT id, batch, node, agent, received_at, failed_at, error, body "
            "FROM dead_letters ORDER BY id LIMIT ?",
            (limit,),
        )
        return [
            DeadLetter(int(i), int(b), node, agent, codec.parse_when(rat), codec.parse_when(fat),
                       error, body)
            for i, b, node, agent, rat, fat, error, body in rows
        ]  # fmt: skip

    def dead_letter_count(self) -> int:
        """How many batches are set aside."""
        return int(self._rows("SELECT COUNT(*) FROM dead_letters")[0][0])

    def retry_dead_letter(self, letter: int, *, now: datetime, by: str, why: str) -> int | None:
        """Back to the end of the inbox, with a note on the node's events; the new batch id."""
        with self._db.transaction():
            found = self._rows("SELECT node FROM dead_letters WHERE id = ?", (letter,))
            if not found:
                return None
            rows = self._rows(
                "INSERT INTO inbox (node, agent, dropped, received_at, body) "
                "SELECT node, agent, dropped, received_at, body FROM dead_letters WHERE id = ? "
                "RETURNING id",
                (letter,),
            )
            self._rows("DELETE FROM dead_letters WHERE id = ?", (letter,))
            self._rows(
                "INSERT INTO events (node, at, by, text) VALUES (?,?,?,?)",
                (found[0][0], codec.when(now), by, f"dead letter {letter} retried: {why}"),
            )
        return int(rows[0][0])

    # --- leases ----------------------------------------------------------------------------

    def acquire(self, name: str, holder: str, now: datetime, ttl_s: float) -> Lease:
        """Renew our unexpired lease, or take an expired one (a new term); else say whose."""
        now_us, at = micros(now), codec.when(now)
        until = now_us + int(ttl_s * 1_000_000)
        with self._db.transaction():
            self._rows(
                "INSERT INTO leases (name, holder, term, expires_us, renewed_at) "
                "VALUES (?, '', 0, 0, ?) ON CONFLICT (name) DO NOTHING",
                (name, at),
            )
            cur, term, expires = self._rows(
                "SELECT holder, term, expires_us FROM leases WHERE name = ?@update@", (name,)
            )[0]
            term, expires = int(term), int(expires)
            if expires > now_us and cur != holder:
                return Lease(name, cur, term, from_micros(expires))
            if expires <= now_us:
                term += 1  # a lapsed lease starts a new term, even for its last holder
            self._rows(
                "UPDATE leases SET holder = ?, term = ?, expires_us = ?, renewed_at = ? "
                "WHERE name = ?",
                (holder, term, until, at, name),
            )
        return Lease(name, holder, term, from_micros(until))

    def release(self, name: str, holder: str) -> None:
        """Let the lease lapse now, if it is ours."""
        with self._db.transaction():
            self._rows(
                "UPDATE leases SET expires_us = 0 WHERE name = ? AND holder = ?", (name, holder)
            )

    def lease(self, name: str) -> Lease | None:
        """The lease as recorded."""
        rows = self._rows("SELECT holder, term, expires_us FROM leases WHERE name = ?", (name,))
        if not rows:
            return None
        holder, term, expires = rows[0]
        return Lease(name, holder, int(term), from_micros(int(expires)))

    # --- reads -----------------------------------------------------------------------------

    def node_views(self) -> list[NodeView]:
        """Every node with its last report, by name."""
        rows = self._rows(
            "SELECT node, state, since, seq, incident, body, last_seen FROM nodes ORDER BY node"
        )
        return [
            NodeView(codec.node_record(*row[:6]), codec.parse_when(row[6]) if row[6] else None)
            for row in rows
        ]

    def breaker_state(self, dry_run: bool = False) -> BreakerState:
        """The circuit breaker as recorded (or dry-run's would-have breaker)."""
        return self._breaker(dry_run)

    # --- operator requests -----------------------------------------------------------------

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record an operator request once per id (its switch with it); as stored."""
        return self._requests.submit(request, switches=True)

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Operator requests about a target (or any of `targets`, or all), oldest first."""
        return self._requests.find(target, targets, limit)

    def node_signals(self, node: str, limit: int = 50) -> list[NodeSignal]:
        """The node's latest signals, oldest first (details are kept only on the wire)."""
        rows = self._rows(
            f"SELECT {_SIGNAL_COLUMNS} FROM signals WHERE node = ? ORDER BY id DESC LIMIT ?",  # noqa: S608
            (node, limit),
        )
        return [
            NodeSignal(n, Probe(p), sig, Blame(b), int(w), NodeAction(a), codec.parse_when(at),
                       int(c), comp, text, (), inc)
            for n, p, sig, b, w, a, at, c, comp, text, inc in reversed(rows)
        ]  # fmt: skip

    def domain_incidents(self) -> list[DomainIncident]:
        """Every domain incident, oldest first."""
        rows = self._rows(
            "SELECT id, kind, name, opened_at, nodes, closed_at FROM domain_incidents "
            "ORDER BY opened_at, id"
        )
        return [codec.domain_incident(*r) for r in rows]

    def trail(self, incident: str) -> tuple[list[Transition], list[ActionRecord]]:
        """One incident's transitions and actions."""
        with self._db.transaction(write=False):
            return (
                self._transitions("WHERE incident = ? ORDER BY id", (incident,)),
                self._actions("WHERE incident = ? ORDER BY rowid", (incident,)),
            )

    def transitions_after(self, after: int, limit: int = 1000) -> list[tuple[int, Transition]]:
        """Transitions positioned after `after`, with their positions."""
        rows = self._rows(
            "SELECT id, node, seq, from_state, to_state, at, by, why, evidence, incident "
            "FROM transitions WHERE id > ? ORDER BY id LIMIT ?",
            (after, limit),
        )
        return [(int(row[0]), _transition(*row[1:])) for row in rows]

    def newest_incidents(self, limit: int) -> list[str]:
        """The `limit` incidents whose first transition is the latest, newest first (one
        grouped pass over the transitions, in the database: it grows with the history)."""
        rows = self._rows(
            "SELECT incident FROM transitions WHERE incident IS NOT NULL GROUP BY incident "
            "ORDER BY MIN(at) DESC, incident DESC LIMIT ?",
            (limit,),
        )
        return [str(r[0]) for r in rows]

    def incident_transitions(self, incidents: Collection[str]) -> list[Transition]:
        """Every transition of these incidents, oldest first."""
        wanted = sorted(set(incidents))
        found: list[tuple[int, Transition]] = []
        with self._db.transaction(write=False):
            for i in range(0, len(wanted), _IN_CHUNK):
                chunk = wanted[i : i + _IN_CHUNK]
                marks = ", ".join("?" * len(chunk))
                # Only placeholders are formatted in; the ids go through the arguments.
                query = f"SELECT {_POSITIONED} FROM transitions WHERE incident IN ({marks})"  # noqa: S608
                rows = self._rows(query, tuple(chunk))
                found += [(int(row[0]), _transition(*row[1:])) for row in rows]
        return [t for _, t in sorted(found, key=lambda pair: pair[0])]

    def prune_signals(self, before: datetime, limit: int = 10_000) -> int:
        """The oldest signals received before `before`, up to `limit`: rows are written in
        the order they are received, so they are a prefix of the table by id (read by the
        primary key, never a scan of the whole table)."""
        with self._db.transaction():
            rows = self._rows("SELECT id, received_at FROM signals ORDER BY id LIMIT ?", (limit,))
            last = None
            for sid, received in rows:
                if codec.parse_when(received) >= before:
                    break
                last = int(sid)
            if last is None:
                return 0
            return len(self._rows("DELETE FROM signals WHERE id <= ? RETURNING id", (last,)))

    def recent_actions(self, limit: int = 100) -> list[ActionRecord]:
        """The latest `limit` actions, oldest first."""
        rows = self._rows(
            "SELECT id, node, seq, kind, target, status, at, by, why, evidence, incident, "
            "updated_at, result FROM actions ORDER BY rowid DESC LIMIT ?",
            (limit,),
        )
        return [_action_record(*row) for row in reversed(rows)]

    def ping(self) -> None:
        """Raise unless the database answers."""
        self._rows("SELECT 1")


def _signals(body: str) -> tuple[NodeSignal, ...]:
    raw = json.loads(body)
    if not isinstance(raw, list):
        raise WireError("the stored batch is not a list of signals")
    return tuple(signal_from_dict(r) for r in raw)
