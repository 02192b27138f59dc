"""The store's schema, one numbered migration at a time, for SQLite and PostgreSQL alike.

`schema_migrations` records every migration applied, so a store made by an older version is
brought forward on open and the version can be read back. Migrations are append only: a
released one is never edited (its SQLite rendering is what files in the field were made
with). `@token@`s are rendered by the dialect (`dialect`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from autorecover.adapters.store.sql import node_codec as codec
from autorecover.adapters.store.sql.dialect import Db

# (version, name, statements)
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
            id @serial@, node TEXT NOT NULL, seq INTEGER NOT NULL,
            from_state TEXT NOT NULL, to_state TEXT NOT NULL, at TEXT NOT NULL,
            by TEXT NOT NULL, why TEXT NOT NULL, evidence TEXT NOT NULL, incident TEXT,
            dry_run INTEGER NOT NULL, UNIQUE (node, seq));
        CREATE INDEX transitions_leaving ON transitions (from_state, at);
        CREATE TABLE actions (
            id TEXT PRIMARY KEY, node TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
            target TEXT, status TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            why TEXT NOT NULL, evidence TEXT NOT NULL, incident TEXT,
            updated_at TEXT NOT NULL, result TEXT NOT NULL DEFAULT ''@rowid@);
        CREATE INDEX actions_status ON actions (status);
        CREATE INDEX actions_node ON actions (node);
        CREATE TABLE signals (
            id @serial@, node TEXT NOT NULL, probe TEXT NOT NULL,
            signal TEXT NOT NULL, blame TEXT NOT NULL, node_action TEXT NOT NULL,
            weight INTEGER NOT NULL, at TEXT NOT NULL, count INTEGER NOT NULL,
            component TEXT, text TEXT NOT NULL, incident TEXT, received_at TEXT NOT NULL);
        CREATE INDEX signals_node_at ON signals (node, at);
        CREATE TABLE events (
            id @serial@, node TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL,
            text TEXT NOT NULL);
        CREATE TABLE domain_incidents (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL,
            opened_at TEXT NOT NULL, nodes TEXT NOT NULL, closed_at TEXT);
        CREATE TABLE breaker (
            id INTEGER PRIMARY KEY CHECK (id = 1), tripped_at TEXT, reason TEXT NOT NULL,
            updated_at TEXT NOT NULL);
        """,
    ),
    (
        2,
        "the engine: signal inbox, leader leases, incident lookups",
        """
        CREATE TABLE inbox (
            id @serial@, node TEXT NOT NULL, agent TEXT NOT NULL, dropped INTEGER NOT NULL,
            received_at TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE leases (
            name TEXT PRIMARY KEY, holder TEXT NOT NULL, term BIGINT NOT NULL,
            expires_us BIGINT NOT NULL, renewed_at TEXT NOT NULL);
        CREATE INDEX transitions_incident ON transitions (incident);
        CREATE INDEX actions_incident ON actions (incident);
        """,
    ),
    (
        3,
        "the intake's dead letters: batches a pass could not record, with their error",
        """
        CREATE TABLE dead_letters (
            id @serial@, batch BIGINT NOT NULL, node TEXT NOT NULL, agent TEXT NOT NULL,
            dropped BIGINT NOT NULL, received_at TEXT NOT NULL, body TEXT NOT NULL,
            error TEXT NOT NULL, failed_at TEXT NOT NULL);
        """,
    ),
    (
        4,
        "operator controls: requests (the audit), switches, who reset the breaker, dry-run's",
        """
        CREATE TABLE operator_requests (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, by TEXT NOT NULL,
            why TEXT NOT NULL, source TEXT NOT NULL, at TEXT NOT NULL, options TEXT NOT NULL,
            status TEXT NOT NULL, done_at TEXT, result TEXT NOT NULL DEFAULT ''@rowid@);
        CREATE INDEX operator_requests_target ON operator_requests (target);
        CREATE INDEX operator_requests_status ON operator_requests (status);
        CREATE TABLE operator_switches (name TEXT PRIMARY KEY, request TEXT NOT NULL);
        ALTER TABLE breaker ADD COLUMN reset_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE breaker ADD COLUMN reset_at TEXT;
        ALTER TABLE breaker ADD COLUMN reset_why TEXT NOT NULL DEFAULT '';
        CREATE TABLE dry_run_breaker (
            id INTEGER PRIMARY KEY CHECK (id = 1), tripped_at TEXT, reason TEXT NOT NULL,
            reset_by TEXT NOT NULL DEFAULT '', reset_at TEXT, reset_why TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL);
        """,
    ),
    (
        5,
        "orders node agents run: diagnostics, GPU resets, reboots, bundles, with their reports",
        """
        CREATE TABLE node_orders (
            id TEXT PRIMARY KEY, node TEXT NOT NULL, kind TEXT NOT NULL, args TEXT NOT NULL,
            status TEXT NOT NULL, placed_at TEXT NOT NULL, deadline TEXT NOT NULL,
            dry_run INTEGER NOT NULL, by TEXT NOT NULL, why TEXT NOT NULL, incident TEXT,
            evidence TEXT NOT NULL, detail TEXT NOT NULL, verdict TEXT,
            findings TEXT NOT NULL, attachments TEXT NOT NULL, updated_at TEXT NOT NULL@rowid@);
        CREATE INDEX node_orders_node ON node_orders (node, status);
        """,
    ),
)


_MIGRATING = 0x6175746F  # PostgreSQL advisory lock key held while migrating ("auto")


def migrate(db: Db) -> None:
    """Apply every migration the store lacks, each in its own transaction."""
    render = db.dialect.render
    for version, name, statements in ((0, "", ""), *MIGRATIONS):
        with db.transaction():
            # Two replicas starting together on one PostgreSQL must not both migrate: the
            # second waits here, then finds the work done. (SQLite's BEGIN IMMEDIATE is a lock.)
            if db.dialect.name == "postgresql":
                db.execute(render("SELECT pg_advisory_xact_lock(?)"), (_MIGRATING,))
            if version == 0:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
                continue
            if db.execute(render("SELECT 1 FROM schema_migrations WHERE version = ?"), (version,)):
                continue
            for statement in statements.split(";"):
                if statement.strip():
                    db.execute(render(statement))
            now = codec.when(datetime.now(UTC))  # when the schema changed, not a decision
            db.execute(render("INSERT INTO schema_migrations VALUES (?,?,?)"), (version, name, now))


def schema_version(db: Db) -> int:
    """The newest migration applied."""
    rows = db.execute("SELECT MAX(version) FROM schema_migrations")
    return int(rows[0][0] or 0)
