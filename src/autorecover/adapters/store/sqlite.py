"""The stores in SQLite (stdlib `sqlite3`): the engine's (hardware recovery's) and job recovery's.

The SQL, tables and migrations are shared with PostgreSQL (`sql/`). `SqliteStore` is the
engine's store in one file: nodes, transitions, actions (intended -> done | failed, or
would-have in dry-run), signals, events, domain incidents, the breaker, the inbox and leases,
and `schema_migrations`, which numbers every schema change so an old file is migrated forward
on open. One `commit` is one transaction: a pass's decisions land whole or not at all, before
any of their actions is executed. WAL journal; `synchronous=FULL` by default so a recorded
intent survives power loss too. `SqliteJobStore` is job recovery's `SqlJobStore` on one SQLite
file, usually the same one, whose `signals` table it reads the node agents' signals from: the
two services share evidence through the store, never by calling each other.
"""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.store.sql.dialect import SqliteDb
from autorecover.adapters.store.sql.engine import SqlEngineStore
from autorecover.adapters.store.sql.jobs import SqlJobStore


class SqliteStore(SqlEngineStore):
    """The store in one SQLite file (or `:memory:`)."""

    def __init__(self, path: str | Path, durable: bool = True) -> None:
        super().__init__(SqliteDb(path, durable))


class SqliteJobStore(SqlJobStore):
    """Job recovery's store in one SQLite file (it may be hardware recovery's file too)."""

    def __init__(self, path: str | Path, durable: bool = True, busy_s: float = 10.0) -> None:
        super().__init__(SqliteDb(path, durable, busy_s))
