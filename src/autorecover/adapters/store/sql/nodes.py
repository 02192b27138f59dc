"""Hardware recovery's store in SQL, written once for SQLite and PostgreSQL (`StorePort`).

Tables: nodes, transitions, actions (intended -> done | failed, or would-have in dry-run),
signals, events, domain incidents and the breaker (`schema`). One `commit` is one
transaction: a pass's decisions land whole or not at all, before any action is executed.
Times are stored as ISO 8601 text with their UTC offset (`node_codec`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from autorecover.adapters.store.sql import node_codec as codec
from autorecover.adapters.store.sql.dialect import Db
from autorecover.adapters.store.sql.operating import RequestTable
from autorecover.adapters.store.sql.schema import migrate, schema_version
from autorecover.controllers.hardware.ports import ActionRecord, Changes, Event, Snapshot
from autorecover.controllers.ports import ActionStatus
from autorecover.controllers.requests import Control, Controls, OperatorRequest, controls_of
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import Action, ActionKind, NodeState, Transition

_NODE_UPSERT = """
INSERT INTO nodes (node, state, since, seq, incident, body, updated_at) VALUES (?,?,?,?,?,?,?)
ON CONFLICT (node) DO UPDATE SET state = excluded.state, since = excluded.since,
    seq = excluded.seq, incident = excluded.incident, body = excluded.body,
    updated_at = excluded.updated_at"""
# A report updates the node's row; it makes none (`Changes.seen`): only a decision does.
_SEEN_UPDATE = "UPDATE nodes SET last_seen = ? WHERE node = ?"
_ACTION_COLUMNS = (
    "id, node, seq, kind, target, status, at, by, why, evidence, incident, updated_at, result"
)
_SIGNAL_COLUMNS = (
    "node", "probe", "signal", "blame", "node_action", "weight", "at", "count", "component",
    "text", "incident", "received_at",
)  # fmt: skip
_TRANSITION_COLUMNS = "node, seq, from_state, to_state, at, by, why, evidence, incident"
_BREAKERS = {False: "breaker", True: "dry_run_breaker"}  # dry-run keeps a would-have breaker


class SqlStore:
    """The hardware `StorePort` over one `Db` connection."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._sql = db.dialect.render
        migrate(db)
        self._requests = RequestTable(db, "operator_requests", self._sql)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def schema_version(self) -> int:
        """The newest migration applied."""
        return schema_version(self._db)

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(self._sql(sql), args)

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything a controller needs to resume."""
        with self._db.transaction(write=False):
            nodes = {
                row[0]: codec.node_record(*row)
                for row in self._rows("SELECT node, state, since, seq, incident, body FROM nodes")
            }
            pending = self._actions("WHERE status = 'intended' ORDER BY rowid")
            failed = self._actions(
                "WHERE status = 'failed' AND seq = (SELECT seq FROM nodes n WHERE n.node = a.node)"
                " ORDER BY rowid"
            )
            incidents = [
                codec.domain_incident(*r)
                for r in self._rows(
                    "SELECT id, kind, name, opened_at, nodes, closed_at FROM domain_incidents "
                    "WHERE closed_at IS NULL ORDER BY opened_at, id"
                )
            ]
            # ISO strings order like times when they share an offset (ours are UTC); a day's
            # slack covers any that do not, and the exact cut is made on parsed times.
            rough = codec.when(removals_since - timedelta(days=1))
            removals: dict[bool, list[tuple[str, datetime]]] = {False: [], True: []}
            for node, raw, dry in self._rows(
                "SELECT node, at, dry_run FROM transitions WHERE from_state = 'healthy' "
                "AND at > ? ORDER BY id",
                (rough,),
            ):
                if (at := codec.parse_when(raw)) > removals_since:
                    removals[bool(dry)].append((node, at))
            breaker, would = self._breaker(False), self._breaker(True)
        return Snapshot(
            nodes, pending, failed, breaker, incidents, removals[False], would, removals[True]
        )

    def _breaker(self, dry_run: bool) -> BreakerState:
        rows = self._rows(
            "SELECT tripped_at, reason, reset_by, reset_at, reset_why "  # noqa: S608
            f"FROM {_BREAKERS[dry_run]}"
        )
        if not rows:
            return CLOSED
        tripped, reason, by, at, why = rows[0]
        return BreakerState(
            codec.parse_when(tripped) if tripped else None, reason, by,
            codec.parse_when(at) if at else None, why,
        )  # fmt: skip

    def controls(self) -> Controls:
        """The operator's switches in force."""
        return controls_of(self._requests.switches())

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Operator requests of these kinds not yet settled, oldest first."""
        return self._requests.pending(kinds)

    def commit(self, changes: Changes) -> None:
        """Record one pass atomically."""
        with self._db.transaction():
            self._write(changes)

    def _write(self, changes: Changes) -> None:
        """One pass's rows; the caller holds the transaction."""
        db, sql, at = self._db, self._sql, codec.when(changes.at)
        if changes.records:
            db.executemany(
                sql(_NODE_UPSERT),
                [
                    (r.node, r.state.value, codec.when(r.since), r.seq, r.incident,
                     codec.record_body(r), at)
                    for r in changes.records
                ],
            )  # fmt: skip
        if changes.seen:  # after the records, so a node's first record gets its report too
            db.executemany(sql(_SEEN_UPDATE), [(codec.when(t), n) for n, t in changes.seen.items()])
        if changes.signals:  # a drained backlog writes thousands: COPY on PostgreSQL
            db.insert_rows(
                "signals", _SIGNAL_COLUMNS,
                [
                    (s.node, s.probe.value, s.signal, s.blame.value, s.node_action.value,
                     s.weight, codec.when(s.at), s.count, s.component, s.text, s.incident, at)
                    for s in changes.signals
                ],
            )  # fmt: skip
        if changes.transitions:
            db.executemany(
                sql(
                    f"INSERT INTO transitions ({_TRANSITION_COLUMNS}, dry_run) "  # noqa: S608
                    "VALUES (?,?,?,?,?,?,?,?,?,?)"
                ),
                [
                    (t.node, t.seq, t.frm.value, t.to.value, codec.when(t.at), t.by, t.why,
                     codec.lines(t.evidence), t.incident, int(changes.dry_run))
                    for t in changes.transitions
                ],
            )  # fmt: skip
        if changes.actions:
            db.executemany(
                sql(
                    f"INSERT INTO actions ({_ACTION_COLUMNS}) "  # noqa: S608
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO NOTHING"
                ),
                [_action_row(a) for a in changes.actions],
            )
        if changes.outcomes:
            db.executemany(
                sql(
                    "UPDATE actions SET status = ?, updated_at = ?, result = ? "
                    "WHERE id = ? AND status = 'intended'"
                ),
                [
                    (o.status.value, codec.when(o.at), o.result, o.action_id)
                    for o in changes.outcomes
                ],
            )
        if changes.events:
            db.executemany(
                sql("INSERT INTO events (node, at, by, text) VALUES (?,?,?,?)"),
                [(e.node, codec.when(e.at), e.by, e.text) for e in changes.events],
            )
        for i in changes.incidents:
            db.execute(
                sql(
                    "INSERT INTO domain_incidents VALUES (?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE "
                    "SET nodes = excluded.nodes, closed_at = excluded.closed_at"
                ),
                (i.id, i.domain.kind.value, i.domain.name, codec.when(i.opened_at),
                 codec.incident_nodes(i), i.closed_at and codec.when(i.closed_at)),
            )  # fmt: skip
        if changes.breaker is not None:
            b = changes.breaker
            tripped = codec.when(b.tripped_at) if b.tripped_at else None
            reset = codec.when(b.reset_at) if b.reset_at else None
            db.execute(
                sql(
                    f"INSERT INTO {_BREAKERS[changes.dry_run]} "  # noqa: S608
                    "(id, tripped_at, reason, reset_by, reset_at, reset_why, updated_at) "
                    "VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                    "tripped_at = excluded.tripped_at, reason = excluded.reason, "
                    "reset_by = excluded.reset_by, reset_at = excluded.reset_at, "
                    "reset_why = excluded.reset_why, updated_at = excluded.updated_at"
                ),
                (tripped, b.reason, b.reset_by, reset, b.reset_why, at),
            )
        self._requests.settle(changes.settled)

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        if node is None:
            return self._transitions("ORDER BY id")
        return self._transitions("WHERE node = ? ORDER BY id", (node,))

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        if node is None:
            return self._actions("ORDER BY rowid")
        return self._actions("WHERE node = ? ORDER BY rowid", (node,))

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        where, args = ("WHERE node = ?", (node,)) if node is not None else ("", ())
        rows = self._rows(f"SELECT node, at, by, text FROM events {where} ORDER BY id", args)  # noqa: S608
        return [Event(n, codec.parse_when(at), by, text) for n, at, by, text in rows]

    def _transitions(self, where: str, args: tuple[Any, ...] = ()) -> list[Transition]:
        # `where` is one of this package's constant clauses; values go through `args`.
        rows = self._rows(f"SELECT {_TRANSITION_COLUMNS} FROM transitions {where}", args)  # noqa: S608
        return [_transition(*row) for row in rows]

    def _actions(self, where: str, args: tuple[Any, ...] = ()) -> list[ActionRecord]:
        # `where` is one of this package's constant clauses; values go through `args`.
        rows = self._rows(f"SELECT {_ACTION_COLUMNS} FROM actions a {where}", args)  # noqa: S608
        return [_action_record(*row) for row in rows]


def _transition(
    n: str, seq: int, f: str, t: str, at: str, by: str, why: str, ev: str, inc: str | None
) -> Transition:
    return Transition(
        n, seq, NodeState(f), NodeState(t), codec.parse_when(at), by, why,
        codec.parse_lines(ev), inc,
    )  # fmt: skip


def _action_record(
    aid: str, node: str, seq: int, kind: str, target: str | None, status: str, at: str,
    by: str, why: str, ev: str, inc: str | None, updated: str, result: str,
) -> ActionRecord:  # fmt: skip
    action = Action(
        aid, node, ActionKind(kind), codec.parse_when(at), by, why, codec.parse_lines(ev), inc,
        target, seq,
    )  # fmt: skip
    return ActionRecord(action, ActionStatus(status), codec.parse_when(updated), result)


def _action_row(record: ActionRecord) -> tuple[object, ...]:
    a = record.action
    return (
        a.id, a.node, a.seq, a.kind.value, a.target, record.status.value, codec.when(a.at), a.by,
        a.why, codec.lines(a.evidence), a.incident, codec.when(record.updated_at), record.result,
    )  # fmt: skip
