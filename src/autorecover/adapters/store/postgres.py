"""The store in PostgreSQL (psycopg 3): the same SQL, schema and migrations as SQLite.

Opened by URL (`postgresql://user:password@host:port/db`, or libpq's other forms). One
connection behind a lock, reconnected after it breaks; psycopg's exceptions are mapped here
to ours: a constraint violated -> `ConflictError`, the server away -> `TransientError`.

Every call holds the lock while it waits for the server, so a connection left half-open (the
database's host gone in a failover, a partition, a proxy's idle timeout) would stall every
API call and pass for as long as the kernel keeps retransmitting (about 15 minutes by default).
So the connection carries TCP keep-alive probes after 30 s idle and a 60 s TCP user timeout
(`KEEPALIVE`): a dead server is noticed within about a minute, the call fails as transient and
the next one connects again. Settings the URL gives itself win.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from autorecover.adapters import keepalive
from autorecover.adapters.store.base import ConflictError
from autorecover.adapters.store.sql.dialect import POSTGRES, Row
from autorecover.adapters.store.sql.engine import SqlEngineStore
from autorecover.adapters.store.url import StoreUrlError, redact
from autorecover.controllers.ports import TransientError

# libpq's TCP keep-alive and user timeout (seconds, the user timeout in milliseconds); ignored
# by libpq on a Unix-domain socket.
KEEPALIVE = {
    "keepalives": 1,
    "keepalives_idle": keepalive.IDLE_S,
    "keepalives_interval": keepalive.INTERVAL_S,
    "keepalives_count": keepalive.PROBES,
    "tcp_user_timeout": keepalive.USER_TIMEOUT_MS,
}


def connection_options(url: str) -> dict[str, Any]:
    """`KEEPALIVE`'s settings the URL does not give itself; `StoreUrlError` for a URL libpq
    cannot read."""
    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise StoreUrlError(f"store URL {redact(url)!r}: {exc}") from None
    return {k: v for k, v in KEEPALIVE.items() if k not in given}


class PgDb:
    """One PostgreSQL connection, autocommit outside explicit transactions, behind a lock."""

    dialect = POSTGRES

    def __init__(self, url: str, connect_timeout_s: int = 10) -> None:
        self._url = url
        self._timeout = connect_timeout_s
        self._options = connection_options(url)
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
                    application_name="autorecover", **self._options,
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
