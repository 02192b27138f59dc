"""Job recovery's store in SQLite (stdlib `sqlite3`), and the same port in memory.

Tables, all `job_`-prefixed so they sit beside hardware recovery's in the same file: `jobs`
(each job's history: attempts and exclusions), `job_incidents` (verdict with its evidence,
decision, phase, outcome), `job_timeline` (one row per incident and stage), `job_actions`
(intended -> done | failed, or would-have in dry-run; requeues also carry their
verification), `job_handovers` (the outbox of nodes named to hardware recovery),
`job_suspicion` and `job_events`. Migrations are numbered in their own
`job_schema_migrations` table, so job and hardware schemas evolve without claiming each
other's version numbers. The SQL is plain enough for PostgreSQL (`?` placeholders aside).

The node agents' signals are read from hardware recovery's `signals` table (`signals()`),
which is how the two services share evidence: through the store, never by calling each other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autorecover.adapters import job_store_codec as c
from autorecover.adapters.engine_client import signal_from_dict, signal_to_dict
from autorecover.adapters.job_memory_store import MemoryJobStore, MemorySignals
from autorecover.controllers.job_records import (
    Handover,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobActionRecord,
    JobChanges,
    JobEvent,
    JobIncident,
    JobSnapshot,
    Stage,
    TimelineMark,
)
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.job_decisions import JobHistory
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.domain.suspicion import Mark

__all__ = ["JOB_MIGRATIONS", "MemoryJobStore", "MemorySignals", "SqliteJobStore"]

# (version, name, statements). Append only: a released migration is never edited.
JOB_MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "job recovery: jobs, incidents, timeline, actions, hand-overs, suspicion, events",
        """
        CREATE TABLE jobs (job TEXT PRIMARY KEY, history TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE TABLE job_incidents (
            id TEXT PRIMARY KEY, job TEXT NOT NULL, attempt INTEGER NOT NULL, kind TEXT NOT NULL,
            phase TEXT NOT NULL, opened_at TEXT NOT NULL, nodes TEXT NOT NULL,
            summary TEXT NOT NULL, cause TEXT, verdict TEXT, decision TEXT,
            dry_run INTEGER NOT NULL, closed_at TEXT, outcome TEXT NOT NULL,
            updated_at TEXT NOT NULL);
        CREATE INDEX job_incidents_job ON job_incidents (job, attempt);
        CREATE INDEX job_incidents_phase ON job_incidents (phase);
        CREATE TABLE job_timeline (
            incident TEXT NOT NULL, stage TEXT NOT NULL, at TEXT NOT NULL, value REAL,
            detail TEXT NOT NULL, PRIMARY KEY (incident, stage));
        CREATE TABLE job_actions (
            seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, job TEXT NOT NULL, incident TEXT,
            kind TEXT NOT NULL, status TEXT NOT NULL, attempt INTEGER NOT NULL,
            exclude TEXT NOT NULL, delay_s REAL NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            why TEXT NOT NULL, evidence TEXT NOT NULL, updated_at TEXT NOT NULL,
            result TEXT NOT NULL, verified TEXT NOT NULL);
        CREATE INDEX job_actions_status ON job_actions (status);
        CREATE INDEX job_actions_job ON job_actions (job);
        CREATE TABLE job_handovers (
            seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, node TEXT NOT NULL,
            incident TEXT, signal TEXT NOT NULL, dry_run INTEGER NOT NULL,
            created_at TEXT NOT NULL, delivered_at TEXT);
        CREATE TABLE job_suspicion (node TEXT PRIMARY KEY, score REAL NOT NULL, at TEXT NOT NULL);
        CREATE TABLE job_events (
            seq INTEGER PRIMARY KEY, job TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            text TEXT NOT NULL, key TEXT UNIQUE);
        """,
    ),
)

_INCIDENT_COLUMNS = (
    "id, job, attempt, kind, phase, opened_at, nodes, summary, verdict, decision, dry_run, "
    "closed_at, outcome"
)
_ACTION_COLUMNS = (
    "id, job, incident, kind, status, attempt, exclude, delay_s, at, by, why, evidence, "
    "updated_at, result, verified"
)
_UNVERIFIED = (
    f"SELECT {_ACTION_COLUMNS} FROM job_actions a WHERE status = 'done' AND verified = '' "  # noqa: S608
    "AND kind IN ('requeue', 'requeue_excluding') AND EXISTS (SELECT 1 FROM job_incidents i "
    "WHERE i.id = a.incident AND i.phase = 'verifying') ORDER BY seq"
)


class SqliteJobStore:
    """Job recovery's store in one SQLite file (it may be hardware recovery's file too)."""

    def __init__(self, path: str | Path, durable: bool = True, busy_s: float = 10.0) -> None:
        self._db = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=busy_s
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
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
            "CREATE TABLE IF NOT EXISTS job_schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {v for (v,) in self._db.execute("SELECT version FROM job_schema_migrations")}
        for version, name, statements in JOB_MIGRATIONS:
            if version in done:
                continue
            with self._transaction() as db:
                for statement in statements.split(";"):
                    if statement.strip():
                        db.execute(statement)
                applied = c.when(datetime.now(UTC))  # when the file changed, not a decision
                db.execute(
                    "INSERT INTO job_schema_migrations VALUES (?,?,?)", (version, name, applied)
                )

    def schema_version(self) -> int:
        """The newest job migration applied."""
        row = self._db.execute("SELECT MAX(version) FROM job_schema_migrations").fetchone()
        return int(row[0] or 0)

    # --- the controller's port ---------------------------------------------------------------

    def load(self) -> JobSnapshot:
        """Everything the controller needs to resume."""
        db = self._db
        histories = {j: c.history_from(h) for j, h in db.execute("SELECT job, history FROM jobs")}
        incidents = self._incidents("WHERE phase NOT IN ('closed', 'failed') ORDER BY opened_at")
        handled = frozenset(
            (job, attempt)
            for job, attempt in db.execute(
                "SELECT job, attempt FROM job_incidents WHERE kind IN ('failure', 'hang')"
            )
        )
        episodes = {
            (job, attempt, IncidentKind(kind)): n
            for job, attempt, kind, n in db.execute(
                "SELECT job, attempt, kind, COUNT(*) FROM job_incidents "
                "WHERE kind IN ('slow', 'straggler') GROUP BY job, attempt, kind"
            )
        }
        suspicion = {
            node: Mark(score, c.parse_when(at))
            for node, score, at in db.execute("SELECT node, score, at FROM job_suspicion")
        }
        return JobSnapshot(
            histories=histories,
            incidents=tuple(incidents),
            handled=handled,
            episodes=episodes,
            pending=tuple(self._actions("WHERE status = 'intended' ORDER BY seq")),
            verifying=tuple(self._rows(_UNVERIFIED)),
            suspicion=suspicion,
        )

    def commit(self, changes: JobChanges) -> None:
        """Record one pass atomically."""
        now = c.when(changes.at)
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO jobs VALUES (?,?,?) ON CONFLICT (job) DO UPDATE SET "
                "history = excluded.history, updated_at = excluded.updated_at",
                [(j, c.history_text(h), now) for j, h in changes.histories.items()],
            )
            db.executemany(
                f"INSERT INTO job_incidents ({_INCIDENT_COLUMNS}, cause, updated_at) "  # noqa: S608
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE SET "
                "phase = excluded.phase, closed_at = excluded.closed_at, "
                "outcome = excluded.outcome, updated_at = excluded.updated_at",
                [_incident_row(i, now) for i in changes.incidents],
            )
            db.executemany(
                "INSERT INTO job_timeline VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING",
                [
                    (m.incident, str(m.stage), c.when(m.at), m.value, m.detail)
                    for m in changes.timeline
                ],
            )
            db.executemany(
                f"INSERT INTO job_actions ({_ACTION_COLUMNS}) "  # noqa: S608
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                [_action_row(r) for r in changes.actions],
            )
            db.executemany(
                "UPDATE job_actions SET status = ?, updated_at = ?, result = ? "
                "WHERE id = ? AND status = 'intended'",
                [(o.status.value, c.when(o.at), o.result, o.action_id) for o in changes.outcomes],
            )
            db.executemany(
                "UPDATE job_actions SET status = ?, verified = ?, result = ?, updated_at = ? "
                "WHERE id = ? AND status = 'done'",
                [
                    (o.status.value, *_verification(o.status, o.result), c.when(o.at), o.action_id)
                    for o in changes.verifications
                ],
            )
            db.executemany(
                "INSERT INTO job_handovers (id, node, incident, signal, dry_run, created_at) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                [
                    (h.id, h.signal.node, h.signal.incident, c.dumps(signal_to_dict(h.signal)),
                     int(h.dry_run), now)
                    for h in changes.handovers
                ],
            )  # fmt: skip
            db.executemany(
                "INSERT INTO job_suspicion VALUES (?,?,?) ON CONFLICT (node) DO UPDATE SET "
                "score = excluded.score, at = excluded.at",
                [(n, m.score, c.when(m.at)) for n, m in changes.suspicion.items()],
            )
            db.executemany(
                "INSERT INTO job_events (job, at, by, text, key) VALUES (?,?,?,?,?) "
                "ON CONFLICT DO NOTHING",
                [(e.job, c.when(e.at), e.by, e.text, e.key) for e in changes.events],
            )

    # --- reading -------------------------------------------------------------------------------

    def history(self, job: str) -> JobHistory:
        """A job's history."""
        row = self._db.execute("SELECT history FROM jobs WHERE job = ?", (job,)).fetchone()
        return c.history_from(row[0]) if row else JobHistory()

    def incidents(self, job: str | None = None) -> list[JobIncident]:
        """Recorded incidents, oldest first."""
        if job is None:
            return self._incidents("ORDER BY opened_at, id")
        return self._incidents("WHERE job = ? ORDER BY opened_at, id", (job,))

    def timeline(self, incident: str) -> list[TimelineMark]:
        """An incident's timeline, in order of time."""
        rows = self._db.execute(
            "SELECT incident, stage, at, value, detail FROM job_timeline WHERE incident = ?",
            (incident,),
        )
        marks = [TimelineMark(i, Stage(s), c.parse_when(at), v, d) for i, s, at, v, d in rows]
        return sorted(marks, key=lambda m: m.at)

    def actions(self, job: str | None = None) -> list[JobActionRecord]:
        """Recorded actions, oldest first."""
        if job is None:
            return self._actions("ORDER BY seq")
        return self._actions("WHERE job = ? ORDER BY seq", (job,))

    def events(self, job: str | None = None) -> list[JobEvent]:
        """Recorded events, oldest first."""
        where, args = ("WHERE job = ?", (job,)) if job is not None else ("", ())
        rows = self._db.execute(
            f"SELECT job, at, by, text, key FROM job_events {where} ORDER BY seq",  # noqa: S608
            args,
        )
        return [JobEvent(j, c.parse_when(at), by, t, k) for j, at, by, t, k in rows]

    # --- the hand-over outbox ------------------------------------------------------------------

    def pending_handovers(self, limit: int = 100) -> list[Handover]:
        """Hand-overs not yet delivered, oldest first (dry-run ones never are)."""
        return self._handovers(
            "WHERE delivered_at IS NULL AND dry_run = 0 ORDER BY seq LIMIT ?", (limit,)
        )

    def handed_over(self, ids: Sequence[str], at: datetime) -> None:
        """Mark hand-overs delivered."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE job_handovers SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL",
                [(c.when(at), i) for i in ids],
            )

    def handovers(self) -> list[Handover]:
        """Every recorded hand-over, oldest first."""
        return self._handovers("ORDER BY seq")

    # --- the node agents' signals (hardware recovery's table) ---------------------------------

    def signals(self, nodes: Sequence[str], since: datetime, until: datetime) -> list[NodeSignal]:
        """Signals about these nodes observed within [since, until], as hardware recovery
        recorded them; none if this file has no hardware store."""
        if not nodes:
            return []
        marks = ",".join("?" * len(nodes))
        # ISO strings order like times when they share an offset (ours are UTC); a day's slack
        # covers any that do not, and the exact cut is made on parsed times.
        rough = (c.when(since - timedelta(days=1)), c.when(until + timedelta(days=1)))
        try:
            # Only placeholders are formatted in; the values go through the arguments.
            query = (
                "SELECT node, probe, signal, blame, weight, node_action, at, count, component, "  # noqa: S608
                f"text, incident FROM signals WHERE node IN ({marks}) AND at >= ? AND at <= ? "
                "ORDER BY id"
            )
            rows = self._db.execute(query, (*nodes, *rough)).fetchall()
        except sqlite3.OperationalError:  # no hardware tables in this file
            return []
        out = []
        for node, probe, key, blame, weight, action, at, count, component, text, inc in rows:
            signal = NodeSignal(
                node, Probe(probe), key, Blame(blame), weight, NodeAction(action),
                c.parse_when(at), count, component, text, incident=inc,
            )  # fmt: skip
            if since <= signal.at <= until:
                out.append(signal)
        return out

    # --- rows ------------------------------------------------------------------------------------

    def _incidents(self, where: str, args: tuple[object, ...] = ()) -> list[JobIncident]:
        rows = self._db.execute(f"SELECT {_INCIDENT_COLUMNS} FROM job_incidents {where}", args)  # noqa: S608
        return [_incident(*row) for row in rows]

    def _actions(self, where: str, args: tuple[object, ...] = ()) -> list[JobActionRecord]:
        return self._rows(f"SELECT {_ACTION_COLUMNS} FROM job_actions {where}", args)  # noqa: S608

    def _rows(self, query: str, args: tuple[object, ...] = ()) -> list[JobActionRecord]:
        return [_action(*row) for row in self._db.execute(query, args)]

    def _handovers(self, where: str, args: tuple[object, ...] = ()) -> list[Handover]:
        rows = self._db.execute(f"SELECT id, signal, dry_run FROM job_handovers {where}", args)  # noqa: S608
        return [Handover(i, signal_from_dict(c.loads(s)), bool(d)) for i, s, d in rows]


def _incident_row(i: JobIncident, now: str) -> tuple[object, ...]:
    return (
        i.id, i.job, i.attempt, str(i.kind), str(i.phase), c.when(i.opened_at),
        c.strings(i.nodes), i.summary, c.verdict_text(i.verdict), c.decided_text(i.decided),
        int(i.dry_run), c.when(i.closed_at) if i.closed_at else None, i.outcome,
        str(i.verdict.cause) if i.verdict else None, now,
    )  # fmt: skip


def _incident(
    id_: str, job: str, attempt: int, kind: str, phase: str, opened: str, nodes: str,
    summary: str, verdict: str | None, decision: str | None, dry_run: int,
    closed: str | None, outcome: str,
) -> JobIncident:  # fmt: skip
    return JobIncident(
        id_, job, attempt, IncidentKind(kind), c.parse_when(opened), IncidentPhase(phase),
        c.strings_from(nodes), summary, c.verdict_from(verdict), c.decided_from(decision),
        bool(dry_run), c.maybe_when(closed), outcome,
    )  # fmt: skip


def _verification(status: ActionStatus, detail: str) -> tuple[str, str]:
    """(verified, result): a passed check is kept as `verified`, a failed one as the result."""
    return (detail, "") if status is ActionStatus.DONE else ("", detail)


def _action_row(r: JobActionRecord) -> tuple[object, ...]:
    a = r.action
    return (
        a.id, a.job, a.incident, str(a.kind), str(r.status), a.attempt, c.strings(a.exclude),
        a.delay_s, c.when(a.at), a.by, a.why, c.strings(a.evidence), c.when(r.updated_at),
        r.result, r.verified,
    )  # fmt: skip


def _action(
    id_: str, job: str, incident: str | None, kind: str, status: str, attempt: int,
    exclude: str, delay_s: float, at: str, by: str, why: str, evidence: str, updated: str,
    result: str, verified: str,
) -> JobActionRecord:  # fmt: skip
    action = JobAction(
        id_, job, JobActionKind(kind), c.parse_when(at), by, why, c.strings_from(evidence),
        incident, c.strings_from(exclude), delay_s, attempt,
    )  # fmt: skip
    return JobActionRecord(action, ActionStatus(status), c.parse_when(updated), result, verified)
