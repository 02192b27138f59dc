"""The little that differs between SQLite and PostgreSQL, and a locked connection for each.

The stores write their SQL once, with `?` placeholders and a few `@token@`s for what the two
databases spell differently (an auto-numbered key, SQLite's implicit `rowid`, row locks);
a `Dialect` renders it. A `Db` is one connection behind a lock: the engine shares a store
between its HTTP threads and its controller loops, and one connection must never interleave
two transactions. Driver exceptions are mapped here, once, to `ConflictError` (the write
contradicts the store) and `TransientError` (try again later).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from autorecover.adapters.store.base import ConflictError
from autorecover.controllers.ports import TransientError

Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one database spells the few things that differ."""

    name: str
    placeholder: str
    tokens: Mapping[str, str]

    def render(self, sql: str) -> str:
        """The statement in this dialect."""
        for token, text in self.tokens.items():
            sql = sql.replace(token, text)
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)


SQLITE = Dialect(
    "sqlite",
    "?",
    {
        "@serial@": "INTEGER PRIMARY KEY",
        "@rowid@": "",  # every SQLite table has one
        "@share@": "",  # BEGIN IMMEDIATE already holds the only write lock
        "@update@": "",
    },
)
POSTGRES = Dialect(
    "postgresql",
    "%s",
    {
        "@serial@": "BIGSERIAL PRIMARY KEY",
        "@rowid@": ", rowid BIGSERIAL NOT NULL",  # the order actions were recorded in
        "@share@": " FOR SHARE",  # a lease taken over waits for a fenced commit to finish
        "@update@": " FOR UPDATE",
    },
)


class Db(Protocol):
    """One connection, used by one thread at a time."""

    dialect: Dialect

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; its rows (none for writes)."""
        ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of arguments."""
        ...

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """Insert many rows into one table (`table` and `columns` are ours, never input)."""
        ...

    def transaction(self, write: bool = True) -> Any:
        """A context in which every statement is one transaction (and the lock is held)."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


class SqliteDb:
    """A SQLite file (or `:memory:`) in WAL mode, behind a lock."""

    dialect = SQLITE

    def __init__(self, path: str | Path, durable: bool = True, busy_s: float = 10.0) -> None:
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=busy_s
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as exc:  # a missing folder, no permission, not a database
            where = Path(path).resolve() if str(path) != ":memory:" else path
            raise OSError(f"cannot open the SQLite store {where}: {exc}") from None
        self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._conn.execute("PRAGMA foreign_keys=ON")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; its rows."""
        with self._lock, _mapped():
            return self._conn.execute(sql, tuple(args)).fetchall()

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of arguments."""
        with self._lock, _mapped():
            self._conn.executemany(sql, [tuple(r) for r in rows])

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """Insert many rows into one table: one prepared statement, run per row in C."""
        marks = ",".join("?" * len(columns))
        self.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)  # noqa: S608

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[None]:
        """BEGIN IMMEDIATE for writes (the write lock up front: no upgrade deadlocks)."""
        with self._lock:
            with _mapped():
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield
                with _mapped():
                    self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()


@contextmanager
def _mapped() -> Iterator[None]:
    try:
        yield
    except sqlite3.IntegrityError as exc:
        raise ConflictError(str(exc)) from exc
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise TransientError(f"sqlite: {exc}") from exc
        raise
