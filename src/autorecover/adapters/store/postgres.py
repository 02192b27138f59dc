"""The store in PostgreSQL (psycopg 3): the same SQL, schema and migrations as SQLite.

Opened by URL (`postgresql://user:password@host:port/db`, or libpq's other forms). One
connection behind a lock, reconnected after it breaks; psycopg's exceptions are mapped here
to ours: a constraint violated -> `ConflictError`, the server away -> `TransientError`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from autorecover.adapters.store.base import ConflictError
from autorecover.adapters.store.sql.dialect import POSTGRES, Row
from autorecover.adapters.store.sql.engine import SqlEngineStore
from autorecover.controllers.ports import TransientError


class PgDb:
    """One PostgreSQL connection, autocommit outside explicit transactions, behind a lock."""

    dialect = POSTGRES

    def __init__(self, url: str, connect_timeout_s: int = 10) -> None:
        self._url = url
        self._timeout = connect_timeout_s
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        with self._lock:
            self._connection()

    def _connection(self) -> psycopg.Connection[Any]:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            with _mapped():
                conn = psycopg.connect(
                    self._url, autocommit=True, connect_timeout=self._timeout,
                    application_name="autorecover",
                )  # fmt: skip
            self._conn = conn
        return conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; its rows."""
        with self._lock, _mapped():
            cur = self._connection().execute(sql, tuple(args))
            return list(cur.fetchall()) if cur.description is not None else []

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of arguments."""
        with self._lock, _mapped():
            self._connection().cursor().executemany(sql, [tuple(r) for r in rows])

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """Many rows into one table with COPY: one stream, not a statement per row."""
        with self._lock, _mapped():
            cursor = self._connection().cursor()
            with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[None]:
        """A transaction; reads see one snapshot (REPEATABLE READ, READ ONLY)."""
        begin = "BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        with self._lock:
            conn = self._connection()
            with _mapped():
                conn.execute(begin)
            try:
                yield
                with _mapped():
                    conn.execute("COMMIT")
            except BaseException:
                if not conn.closed and not conn.broken:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()


@contextmanager
def _mapped() -> Iterator[None]:
    try:
        yield
    except psycopg.IntegrityError as exc:
        raise ConflictError(str(exc)) from exc
    except (psycopg.OperationalError, psycopg.errors.SerializationFailure) as exc:
        raise TransientError(f"postgresql: {exc}") from exc


class PostgresStore(SqlEngineStore):
    """The store in a PostgreSQL database."""

    def __init__(self, url: str) -> None:
        super().__init__(PgDb(url))
