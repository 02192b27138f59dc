"""Job recovery's store in SQLite (stdlib `sqlite3`), and the same port in memory.

The SQL, tables and migrations are shared with PostgreSQL (`sql_job_store`): `SqliteJobStore`
is `SqlJobStore` on one SQLite file, usually hardware recovery's, whose `signals` table it
reads the node agents' signals from — the two services share evidence through the store,
never by calling each other. `PostgresJobStore` is the same on a PostgreSQL database.
"""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.job_memory_store import MemoryJobStore, MemorySignals
from autorecover.adapters.sql_dialect import SqliteDb
from autorecover.adapters.sql_job_store import (
    JOB_MIGRATIONS,
    PostgresJobStore,
    SqlJobStore,
    open_job_store,
)

__all__ = [
    "JOB_MIGRATIONS",
    "MemoryJobStore",
    "MemorySignals",
    "PostgresJobStore",
    "SqlJobStore",
    "SqliteJobStore",
    "open_job_store",
]


class SqliteJobStore(SqlJobStore):
    """Job recovery's store in one SQLite file (it may be hardware recovery's file too)."""

    def __init__(self, path: str | Path, durable: bool = True, busy_s: float = 10.0) -> None:
        super().__init__(SqliteDb(path, durable, busy_s))
