"""The store: hardware recovery's memory in SQLite (stdlib `sqlite3`), and an in-memory fake.

Tables: nodes, transitions, actions (intended -> done | failed, or would-have in dry-run),
signals, events, domain incidents, the breaker, and `schema_migrations`, which numbers every
schema change so an old file is migrated forward on open. One `commit` is one transaction:
a pass's decisions land whole or not at all, before any of their actions is executed.
WAL journal; `synchronous=FULL` by default so a recorded intent survives power loss too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autorecover.controllers import codec
from autorecover.controllers.ports import (
    ActionRecord,
    ActionStatus,
    Changes,
    Event,
    Snapshot,
)
from autorecover.domain.breaker import CLOSED, BreakerState
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware_records import NodeRecord
from autorecover.domain.lifecycle import Action, ActionKind, NodeState, Transition
from autorecover.domain.signals import NodeSignal

# (version, name, statements). Append only: a released migration is never edited.
MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "hardware recovery: nodes, transitions, actions, signals, events, incidents, breaker",
        """
        CREATE TABLE nodes (
            node TEXT PRIMARY KEY, state TEXT NOT NULL, since TEXT NOT NULL,
            seq INTEGER NOT NULL DEFAULT 0, incident TEXT, body TEXT NOT NULL DEFAULT '{}',
            last_seen TEXT, updated_at TEXT NOT NULL);
        CREATE TABLE transitions (
            id INTEGER PRIMARY KEY, node TEXT NOT NULL, seq INTEGER NOT NULL,
            from_state TEXT NOT NULL, to_state TEXT NOT NULL, at TEXT NOT NULL,
            by TEXT NOT NULL, why TEXT NOT NULL, evidence TEXT NOT NULL, incident TEXT,
            dry_run INTEGER NOT NULL, UNIQUE (node, seq));
        CREATE INDEX transitions_leaving ON transitions (from_state, at);
        CREATE TABLE actions (
            id TEXT PRIMARY KEY, node TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
            target TEXT, status TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            why TEXT NOT NULL, evidence TEXT NOT NULL, incident TEXT,
            updated_at TEXT NOT NULL, result TEXT NOT NULL DEFAULT '');
        CREATE INDEX actions_status ON actions (status);
        CREATE INDEX actions_node ON actions (node);
        CREATE TABLE signals (
            id INTEGER PRIMARY KEY, node TEXT NOT NULL, probe TEXT NOT NULL,
            signal TEXT NOT NULL, blame TEXT NOT NULL, node_action TEXT NOT NULL,
            weight INTEGER NOT NULL, at TEXT NOT NULL, count INTEGER NOT NULL,
            component TEXT, text TEXT NOT NULL, incident TEXT, received_at TEXT NOT NULL);
        CREATE INDEX signals_node_at ON signals (node, at);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY, node TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            text TEXT NOT NULL);
        CREATE TABLE domain_incidents (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL,
            opened_at TEXT NOT NULL, nodes TEXT NOT NULL, closed_at TEXT);
        CREATE TABLE breaker (
            id INTEGER PRIMARY KEY CHECK (id = 1), tripped_at TEXT, reason TEXT NOT NULL,
            updated_at TEXT NOT NULL);
        """,
    ),
)

_NODE_UPSERT = """
INSERT INTO nodes (node, state, since, seq, incident, body, updated_at) VALUES (?,?,?,?,?,?,?)
ON CONFLICT (node) DO UPDATE SET state = excluded.state, since = excluded.since,
    seq = excluded.seq, incident = excluded.incident, body = excluded.body,
    updated_at = excluded.updated_at"""
_SEEN_UPSERT = """
INSERT INTO nodes (node, state, since, last_seen, updated_at) VALUES (?, 'healthy', ?, ?, ?)
ON CONFLICT (node) DO UPDATE SET last_seen = excluded.last_seen"""
_ACTION_COLUMNS = (
    "id, node, seq, kind, target, status, at, by, why, evidence, incident, updated_at, result"
)


class SqliteStore:
    """The store in one SQLite file (or `:memory:`)."""

    def __init__(self, path: str | Path, durable: bool = True) -> None:
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _migrate(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {v for (v,) in self._db.execute("SELECT version FROM schema_migrations")}
        for version, name, statements in MIGRATIONS:
            if version in done:
                continue
            with self._transaction() as db:
                for statement in statements.split(";"):
                    if statement.strip():
                        db.execute(statement)
                now = codec.when(datetime.now(UTC))  # when the file changed, not a decision
                db.execute("INSERT INTO schema_migrations VALUES (?,?,?)", (version, name, now))

    def schema_version(self) -> int:
        """The newest migration applied."""
        row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything a controller needs to resume."""
        db = self._db
        nodes = {
            row[0]: codec.node_record(*row)
            for row in db.execute("SELECT node, state, since, seq, incident, body FROM nodes")
        }
        pending = self._actions("WHERE status = 'intended' ORDER BY rowid")
        failed = self._actions(
            "WHERE status = 'failed' AND seq = (SELECT seq FROM nodes n WHERE n.node = a.node)"
        )
        row = db.execute("SELECT tripped_at, reason FROM breaker").fetchone()
        breaker = BreakerState(codec.parse_when(row[0]), row[1]) if row and row[0] else CLOSED
        incidents = [
            codec.domain_incident(*r)
            for r in db.execute(
                "SELECT id, kind, name, opened_at, nodes, closed_at FROM domain_incidents "
                "WHERE closed_at IS NULL"
            )
        ]
        # ISO strings order like times when they share an offset (ours are UTC); a day's slack
        # covers any that do not, and the exact cut is made on parsed times.
        rough = codec.when(removals_since - timedelta(days=1))
        removals = [
            (node, at)
            for node, raw in db.execute(
                "SELECT node, at FROM transitions WHERE from_state = 'healthy' AND at > ? "
                "ORDER BY id",
                (rough,),
            )
            if (at := codec.parse_when(raw)) > removals_since
        ]
        return Snapshot(nodes, pending, failed, breaker, incidents, removals)

    def commit(self, changes: Changes) -> None:
        """Record one pass atomically."""
        with self._transaction() as db:
            if changes.seen:
                db.executemany(
                    _SEEN_UPSERT,
                    [
                        (n, codec.when(t), codec.when(t), codec.when(t))
                        for n, t in changes.seen.items()
                    ],
                )
            if changes.records:
                db.executemany(
                    _NODE_UPSERT,
                    [
                        (r.node, r.state.value, codec.when(r.since), r.seq, r.incident,
                         codec.record_body(r), codec.when(changes.at))
                        for r in changes.records
                    ],
                )  # fmt: skip
            if changes.signals:
                db.executemany(
                    "INSERT INTO signals (node, probe, signal, blame, node_action, weight, at, "
                    "count, component, text, incident, received_at) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    [
                        (s.node, s.probe.value, s.signal, s.blame.value, s.node_action.value,
                         s.weight, codec.when(s.at), s.count, s.component, s.text, s.incident,
                         codec.when(changes.at))
                        for s in changes.signals
                    ],
                )  # fmt: skip
            if changes.transitions:
                db.executemany(
                    "INSERT INTO transitions (node, seq, from_state, to_state, at, by, why, "
                    "evidence, incident, dry_run) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [
                        (t.node, t.seq, t.frm.value, t.to.value, codec.when(t.at), t.by, t.why,
                         codec.lines(t.evidence), t.incident, int(changes.dry_run))
                        for t in changes.transitions
                    ],
                )  # fmt: skip
            if changes.actions:
                db.executemany(
                    f"INSERT OR IGNORE INTO actions ({_ACTION_COLUMNS}) "  # noqa: S608 (constants)
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    [_action_row(a) for a in changes.actions],
                )
            if changes.outcomes:
                db.executemany(
                    "UPDATE actions SET status = ?, updated_at = ?, result = ? "
                    "WHERE id = ? AND status = 'intended'",
                    [
                        (o.status.value, codec.when(o.at), o.result, o.action_id)
                        for o in changes.outcomes
                    ],
                )
            if changes.events:
                db.executemany(
                    "INSERT INTO events (node, at, by, text) VALUES (?,?,?,?)",
                    [(e.node, codec.when(e.at), e.by, e.text) for e in changes.events],
                )
            for i in changes.incidents:
                db.execute(
                    "INSERT INTO domain_incidents VALUES (?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE "
                    "SET nodes = excluded.nodes, closed_at = excluded.closed_at",
                    (i.id, i.domain.kind.value, i.domain.name, codec.when(i.opened_at),
                     codec.incident_nodes(i), i.closed_at and codec.when(i.closed_at)),
                )  # fmt: skip
            if changes.breaker is not None:
                b = changes.breaker
                tripped = codec.when(b.tripped_at) if b.tripped_at else None
                db.execute(
                    "INSERT INTO breaker VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                    "tripped_at = excluded.tripped_at, reason = excluded.reason, "
                    "updated_at = excluded.updated_at",
                    (tripped, b.reason, tripped or ""),
                )

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        where, args = ("WHERE node = ?", (node,)) if node is not None else ("", ())
        return [
            Transition(n, seq, NodeState(f), NodeState(t), codec.parse_when(at), by, why,
                       codec.parse_lines(ev), inc)
            for n, seq, f, t, at, by, why, ev, inc in self._db.execute(
                "SELECT node, seq, from_state, to_state, at, by, why, evidence, incident "  # noqa: S608
                f"FROM transitions {where} ORDER BY id", args,
            )
        ]  # fmt: skip

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        if node is None:
            return self._actions("ORDER BY rowid")
        return self._actions("WHERE node = ? ORDER BY rowid", (node,))

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        where, args = ("WHERE node = ?", (node,)) if node is not None else ("", ())
        query = f"SELECT node, at, by, text FROM events {where} ORDER BY id"  # noqa: S608
        rows = self._db.execute(query, args)
        return [Event(n, codec.parse_when(at), by, text) for n, at, by, text in rows]

    def _actions(self, where: str, args: tuple[object, ...] = ()) -> list[ActionRecord]:
        # `where` is one of this module's constant clauses; values go through `args`.
        rows = self._db.execute(f"SELECT {_ACTION_COLUMNS} FROM actions a {where}", args)  # noqa: S608
        return [
            ActionRecord(
                Action(aid, node, ActionKind(kind), codec.parse_when(at), by, why,
                       codec.parse_lines(ev), inc, target, seq),
                ActionStatus(status), codec.parse_when(updated), result,
            )
            for aid, node, seq, kind, target, status, at, by, why, ev, inc, updated, result in rows
        ]  # fmt: skip


def _action_row(record: ActionRecord) -> tuple[object, ...]:
    a = record.action
    return (
        a.id, a.node, a.seq, a.kind.value, a.target, record.status.value, codec.when(a.at), a.by,
        a.why, codec.lines(a.evidence), a.incident, codec.when(record.updated_at), record.result,
    )  # fmt: skip


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
        self._events: list[Event] = []
        self.incidents: dict[str, DomainIncident] = {}
        self.breaker: BreakerState = CLOSED
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
            removals=[
                (t.node, t.at)
                for t in self._transitions
                if t.frm is NodeState.HEALTHY and t.at > removals_since
            ],
        )

    def commit(self, changes: Changes) -> None:
        """Record one pass; checked first, so a bad pass changes nothing (like a rollback)."""
        for t in changes.transitions:
            if (t.node, t.seq) in self._seqs:
                raise ValueError(f"transition {t.node}/{t.seq} recorded twice")
        self.commits += 1
        for node, at in changes.seen.items():
            self.last_seen[node] = at
            self.nodes.setdefault(node, NodeRecord(node, since=at))
        for rec in changes.records:
            self.nodes[rec.node] = rec
        self.signals.extend(changes.signals)
        for t in changes.transitions:
            self._seqs.add((t.node, t.seq))
            self._transitions.append(t)
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
            self.breaker = changes.breaker

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        return [t for t in self._transitions if node is None or t.node == node]

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        return [a for a in self._actions.values() if node is None or a.action.node == node]

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        return [e for e in self._events if node is None or e.node == node]
