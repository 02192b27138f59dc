"""Job recovery's store in SQL, written once for SQLite and PostgreSQL (`JobStorePort`,
`HandoverOutbox`, `SignalSource`).

Tables, all `job_`-prefixed so they sit beside hardware recovery's in the same database: `jobs`
(each job's history: attempts and exclusions), `job_incidents` (verdict with its evidence,
decision, phase, outcome), `job_timeline` (one row per incident and stage), `job_actions`
(intended -> done | failed, or would-have in dry-run; requeues also carry their
verification), `job_handovers` (the outbox of nodes named to hardware recovery),
`job_suspicion` and `job_events`. Migrations are numbered in their own
`job_schema_migrations` table, so job and hardware schemas evolve without claiming each
other's version numbers; on PostgreSQL an advisory lock keeps two replicas starting together
from both migrating. The statements are rendered by the shared dialect (`dialect`:
placeholders, `@serial@`), plus `@real@` here (SQLite's `REAL`, PostgreSQL's `DOUBLE
PRECISION`: its `REAL` is single precision), so the SQLite rendering is the released one.

The node agents' signals are read from hardware recovery's `signals` table (`signals()`),
which is how the two services share evidence: through the store, never by calling each other.
A commit may carry the leader's `Fence`: the lease is checked in the commit's transaction, as
hardware recovery's `commit_pass` does, so a deposed leader's pass records nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from autorecover.adapters.http.wire import signal_from_dict, signal_to_dict
from autorecover.adapters.store.base import Fence
from autorecover.adapters.store.sql import job_codec as c
from autorecover.adapters.store.sql.dialect import Db, Dialect, SqliteDb
from autorecover.adapters.store.sql.engine import check_fence
from autorecover.adapters.store.sql.operating import RequestTable
from autorecover.adapters.store.url import StoreUrlError, redact, sqlite_path
from autorecover.controllers.jobs.records import (
    OPEN,
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
from autorecover.controllers.requests import (
    NO_CONTROLS,
    Control,
    Controls,
    OperatorRequest,
    controls_of,
    stopped_jobs,
)
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.suspicion import Mark
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

__all__ = ["JOB_MIGRATIONS", "PostgresJobStore", "SqlJobStore", "open_job_store"]

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
            incident TEXT NOT NULL, stage TEXT NOT NULL, at TEXT NOT NULL, value @real@,
            detail TEXT NOT NULL, PRIMARY KEY (incident, stage));
        CREATE TABLE job_actions (
            seq @serial@, id TEXT NOT NULL UNIQUE, job TEXT NOT NULL, incident TEXT,
            kind TEXT NOT NULL, status TEXT NOT NULL, attempt INTEGER NOT NULL,
            exclude TEXT NOT NULL, delay_s @real@ NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            why TEXT NOT NULL, evidence TEXT NOT NULL, updated_at TEXT NOT NULL,
            result TEXT NOT NULL, verified TEXT NOT NULL);
        CREATE INDEX job_actions_status ON job_actions (status);
        CREATE INDEX job_actions_job ON job_actions (job);
        CREATE TABLE job_handovers (
            seq @serial@, id TEXT NOT NULL UNIQUE, node TEXT NOT NULL,
            incident TEXT, signal TEXT NOT NULL, dry_run INTEGER NOT NULL,
            created_at TEXT NOT NULL, delivered_at TEXT);
        CREATE TABLE job_suspicion (node TEXT PRIMARY KEY, score @real@ NOT NULL, at TEXT NOT NULL);
        CREATE TABLE job_events (
            seq @serial@, job TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            text TEXT NOT NULL, key TEXT UNIQUE);
        """,
    ),
    (
        2,
        "operator requests about jobs (retry, stop): the audit job recovery settles",
        """
        CREATE TABLE job_requests (
            seq @serial@, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, target TEXT NOT NULL,
            by TEXT NOT NULL, why TEXT NOT NULL, source TEXT NOT NULL, at TEXT NOT NULL,
            options TEXT NOT NULL, status TEXT NOT NULL, done_at TEXT,
            result TEXT NOT NULL DEFAULT '');
        CREATE INDEX job_requests_target ON job_requests (target);
        CREATE INDEX job_requests_status ON job_requests (status);
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
_MIGRATING = 0x6A6F6273  # PostgreSQL advisory lock key held while migrating ("jobs")
_REAL = {"sqlite": "REAL", "postgresql": "DOUBLE PRECISION"}
_HAS_SIGNALS = {
    "sqlite": "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'signals'",
    "postgresql": "SELECT 1 WHERE to_regclass('signals') IS NOT NULL",
}
_HAS_SWITCHES = {
    "sqlite": "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'operator_switches'",
    "postgresql": "SELECT 1 WHERE to_regclass('operator_switches') IS NOT NULL",
}


def render(dialect: Dialect, sql: str) -> str:
    """A job store statement in this dialect."""
    return dialect.render(sql.replace("@real@", _REAL[dialect.name]))


def migrate_jobs(db: Db) -> None:
    """Apply every job migration the store lacks, each in its own transaction."""
    sql = db.dialect.render
    for version, name, statements in ((0, "", ""), *JOB_MIGRATIONS):
        with db.transaction():
            # Two replicas starting together on one PostgreSQL must not both migrate: the
            # second waits here, then finds the work done. (SQLite's BEGIN IMMEDIATE is a lock.)
            if db.dialect.name == "postgresql":
                db.execute(sql("SELECT pg_advisory_xact_lock(?)"), (_MIGRATING,))
            if version == 0:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS job_schema_migrations ("
                    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
                continue
            if db.execute(sql("SELECT 1 FROM job_schema_migrations WHERE version = ?"), (version,)):
                continue
            for statement in statements.split(";"):
                if statement.strip():
                    db.execute(render(db.dialect, statement))
            applied = c.when(datetime.now(UTC))  # when the schema changed, not a decision
            db.execute(
                sql("INSERT INTO job_schema_migrations VALUES (?,?,?)"), (version, name, applied)
            )


class SqlJobStore:
    """Job recovery's store over one `Db` connection (its database may be hardware's too)."""

    def __init__(self, db: Db) -> None:
        self._db = db
        migrate_jobs(db)
        render_ = db.dialect.render
        self._requests = RequestTable(db, "job_requests", render_)
        self._engine_requests = RequestTable(db, "operator_requests", render_)
        self._switches = False  # the engine's switches table seen (it is never dropped)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def schema_version(self) -> int:
        """The newest job migration applied."""
        rows = self._db.execute("SELECT MAX(version) FROM job_schema_migrations")
        return int(rows[0][0] or 0)

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(render(self._db.dialect, sql), args)

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._db.executemany(render(self._db.dialect, sql), rows)

    # --- the controller's port ---------------------------------------------------------------

    def load(self) -> JobSnapshot:
        """Everything the controller needs to resume (one consistent read)."""
        with self._db.transaction(write=False):
            rows = self._rows("SELECT job, history FROM jobs")
            histories = {j: c.history_from(h) for j, h in rows}
            incidents = self._incidents(
                "WHERE phase NOT IN ('closed', 'failed') ORDER BY opened_at, id"
            )
            # Acted on: by an incident, or by a person's retry (`operator/<request>/requeue`).
            handled = frozenset(
                (job, int(attempt))
                for job, attempt in self._rows(
                    "SELECT job, attempt FROM job_incidents WHERE kind IN ('failure', 'hang') "
                    "OR (kind = 'migration' AND decision IS NOT NULL AND dry_run = 0) "
                    "UNION SELECT job, attempt FROM job_actions WHERE id LIKE ?",
                    ("operator/%",),  # a parameter: psycopg reads a literal % as a placeholder
                )
            )
            episodes = {
                (job, int(attempt), IncidentKind(kind)): int(n)
                for job, attempt, kind, n in self._rows(
                    "SELECT job, attempt, kind, COUNT(*) FROM job_incidents "
                    "WHERE kind IN ('slow', 'straggler', 'migration') GROUP BY job, attempt, kind"
                )
            }
            suspicion = {
                node: Mark(score, c.parse_when(at))
                for node, score, at in self._rows("SELECT node, score, at FROM job_suspicion")
            }
            pending = tuple(self._actions("WHERE status = 'intended' ORDER BY seq"))
            verifying = tuple(self._records(_UNVERIFIED))
            settled = self._rows(
                "SELECT target, kind FROM job_requests WHERE status = 'done' "
                "AND kind IN ('retry_job', 'stop_job') ORDER BY seq"
            )
        return JobSnapshot(
            histories=histories,
            incidents=tuple(_oldest_first(incidents)),
            handled=handled,
            episodes=episodes,
            pending=pending,
            verifying=verifying,
            suspicion=suspicion,
            stopped=stopped_jobs((job, Control(kind)) for job, kind in settled),
        )

    def commit(self, changes: JobChanges, *, fence: Fence | None = None) -> None:
        """Record one pass atomically; with a fence, only while the lease still holds (else
        `LeaseLostError`, and nothing is recorded)."""
        with self._db.transaction():
            if fence is not None:
                # The engine's `leases` table, checked as hardware recovery's commit checks it.
                check_fence(self._db, fence, changes.at)
            self._write(changes)

    def _write(self, changes: JobChanges) -> None:
        now = c.when(changes.at)
        many = self._many
        many(
            "INSERT INTO jobs VALUES (?,?,?) ON CONFLICT (job) DO UPDATE SET "
            "history = excluded.history, updated_at = excluded.updated_at",
            [(j, c.history_text(h), now) for j, h in changes.histories.items()],
        )
        many(
            f"INSERT INTO job_incidents ({_INCIDENT_COLUMNS}, cause, updated_at) "  # noqa: S608
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE SET "
            "phase = excluded.phase, closed_at = excluded.closed_at, "
            "outcome = excluded.outcome, updated_at = excluded.updated_at",
            [_incident_row(i, now) for i in changes.incidents],
        )
        many(
            "INSERT INTO job_timeline VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING",
            [(m.incident, str(m.stage), c.when(m.at), m.value, m.detail) for m in changes.timeline],
        )
        many(
            f"INSERT INTO job_actions ({_ACTION_COLUMNS}) "  # noqa: S608
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            [_action_row(r) for r in changes.actions],
        )
        many(
            "UPDATE job_actions SET status = ?, updated_at = ?, result = ? "
            "WHERE id = ? AND status = 'intended'",
            [(o.status.value, c.when(o.at), o.result, o.action_id) for o in changes.outcomes],
        )
        many(
            "UPDATE job_actions SET status = ?, verified = ?, result = ?, updated_at = ? "
            "WHERE id = ? AND status = 'done'",
            [
                (o.status.value, *_verification(o.status, o.result), c.when(o.at), o.action_id)
                for o in changes.verifications
            ],
        )
        many(
            "INSERT INTO job_handovers (id, node, incident, signal, dry_run, created_at) "
            "VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            [
                (h.id, h.signal.node, h.signal.incident, c.dumps(signal_to_dict(h.signal)),
                 int(h.dry_run), now)
                for h in changes.handovers
            ],
        )  # fmt: skip
        many(
            "INSERT INTO job_suspicion VALUES (?,?,?) ON CONFLICT (node) DO UPDATE SET "
            "score = excluded.score, at = excluded.at",
            [(n, m.score, c.when(m.at)) for n, m in changes.suspicion.items()],
        )
        many(
            "INSERT INTO job_events (job, at, by, text, key) VALUES (?,?,?,?,?) "
            "ON CONFLICT DO NOTHING",
            [(e.job, c.when(e.at), e.by, e.text, e.key) for e in changes.events],
        )
        self._requests.settle(changes.settled)

    # --- operator requests ---------------------------------------------------------------------

    def controls(self) -> Controls:
        """The engine's switches in force (acting paused?), read from its tables in this
        database; none when the database has no engine store."""
        if not self._switches:
            if not self._db.execute(_HAS_SWITCHES[self._db.dialect.name]):
                return NO_CONTROLS
            self._switches = True
        return controls_of(self._engine_requests.switches())

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Requests about jobs not yet settled, oldest first."""
        return self._requests.pending(kinds)

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record a request about a job once per id; as stored (`ConflictError` when the id
        was used for another request)."""
        return self._requests.submit(request)

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Requests about a job (or any of `targets`, or all), the latest `limit`, oldest
        first."""
        return self._requests.find(target, targets, limit)

    # --- reading -------------------------------------------------------------------------------

    def history(self, job: str) -> JobHistory:
        """A job's history."""
        rows = self._rows("SELECT history FROM jobs WHERE job = ?", (job,))
        return c.history_from(rows[0][0]) if rows else JobHistory()

    def incidents(
        self, job: str | None = None, *, newest: int | None = None, open_only: bool = False
    ) -> list[JobIncident]:
        """Recorded incidents, oldest first: of one job or all, only the `newest` so many,
        only the open ones."""
        terms: list[str] = []  # constant clauses; values go through `args`
        args: list[object] = []
        if job is not None:
            terms.append("job = ?")
            args.append(job)
        if open_only:
            terms.append(f"phase IN ({', '.join('?' * len(OPEN))})")
            args += sorted(OPEN)
        where = f"WHERE {' AND '.join(terms)} " if terms else ""
        if newest is None:
            return _oldest_first(self._incidents(f"{where}ORDER BY opened_at, id", tuple(args)))
        latest = f"{where}ORDER BY opened_at DESC, id DESC LIMIT ?"
        return _oldest_first(self._incidents(latest, (*args, newest)))

    def timeline(self, incident: str) -> list[TimelineMark]:
        """An incident's timeline, in order of time."""
        rows = self._rows(
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
        rows = self._rows(
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
        with self._db.transaction():
            self._many(
                "UPDATE job_handovers SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL",
                [(c.when(at), i) for i in ids],
            )

    def handovers(self) -> list[Handover]:
        """Every recorded hand-over, oldest first."""
        return self._handovers("ORDER BY seq")

    # --- the node agents' signals (hardware recovery's table) ---------------------------------

    def signals(self, nodes: Sequence[str], since: datetime, until: datetime) -> list[NodeSignal]:
        """Signals about these nodes observed within [since, until], as hardware recovery
        recorded them; none if this database has no hardware store."""
        if not nodes or not self._db.execute(_HAS_SIGNALS[self._db.dialect.name]):
            return []
        marks = ",".join("?" * len(nodes))
        # ISO strings order like times when they share an offset (ours are UTC); a day's slack
        # covers any that do not, and the exact cut is made on parsed times.
        rough = (c.when(since - timedelta(days=1)), c.when(until + timedelta(days=1)))
        # Only placeholders are formatted in; the values go through the arguments.
        query = (
            "SELECT node, probe, signal, blame, weight, node_action, at, count, component, "  # noqa: S608
            f"text, incident FROM signals WHERE node IN ({marks}) AND at >= ? AND at <= ? "
            "ORDER BY id"
        )
        out = []
        for node, probe, key, blame, weight, action, at, count, component, text, inc in self._rows(
            query, (*nodes, *rough)
        ):
            signal = NodeSignal(
                node, Probe(probe), key, Blame(blame), weight, NodeAction(action),
                c.parse_when(at), count, component, text, incident=inc,
            )  # fmt: skip
            if since <= signal.at <= until:
                out.append(signal)
        return out

    # --- rows ------------------------------------------------------------------------------------

    def _incidents(self, where: str, args: tuple[object, ...] = ()) -> list[JobIncident]:
        rows = self._rows(f"SELECT {_INCIDENT_COLUMNS} FROM job_incidents {where}", args)  # noqa: S608
        return [_incident(*row) for row in rows]

    def _actions(self, where: str, args: tuple[object, ...] = ()) -> list[JobActionRecord]:
        return self._records(f"SELECT {_ACTION_COLUMNS} FROM job_actions {where}", args)  # noqa: S608

    def _records(self, query: str, args: tuple[object, ...] = ()) -> list[JobActionRecord]:
        return [_action(*row) for row in self._rows(query, args)]

    def _handovers(self, where: str, args: tuple[object, ...] = ()) -> list[Handover]:
        rows = self._rows(f"SELECT id, signal, dry_run FROM job_handovers {where}", args)  # noqa: S608
        return [Handover(i, signal_from_dict(c.loads(s)), bool(d)) for i, s, d in rows]


class PostgresJobStore(SqlJobStore):
    """Job recovery's store in a PostgreSQL database (hardware recovery's, usually)."""

    def __init__(self, url: str) -> None:
        from autorecover.adapters.store.postgres import PgDb  # psycopg only when asked

        super().__init__(PgDb(url))


def open_job_store(url: str) -> SqlJobStore:
    """Job recovery's store in the database a store URL names (`sqlite:///`, `postgresql://`)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "sqlite":
        return SqlJobStore(SqliteDb(sqlite_path(url)))
    if scheme in ("postgresql", "postgres"):
        return PostgresJobStore(url)
    raise StoreUrlError(
        f"store URL {redact(url)!r}: job recovery needs sqlite:///PATH or postgresql://..."
    )


def _oldest_first(incidents: list[JobIncident]) -> list[JobIncident]:
    """By time opened, then id (exactly, whatever the database's collation); stable."""
    return sorted(incidents, key=lambda i: (i.opened_at, i.id))


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
