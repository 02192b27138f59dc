"""Open the engine's store from a URL.

`sqlite:///state.db` (relative), `sqlite:////var/lib/autorecover/state.db` (absolute),
`postgresql://user:password@host:5432/db` (or `postgres://`, or any libpq URL), and
`memory://` (nothing survives the process: tests and trying things out).
"""

from __future__ import annotations

import urllib.parse

from autorecover.adapters.store.base import EngineStore

DEFAULT_STORE_URL = "sqlite:///autorecover.db"
_SQLITE = "sqlite:///"


class StoreUrlError(ValueError):
    """The URL names no store this engine can open."""


def open_store(url: str) -> EngineStore:
    """The store the URL names, migrated to the current schema."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "sqlite":
        from autorecover.adapters.store.sqlite import SqliteStore

        return SqliteStore(sqlite_path(url))
    if scheme in ("postgresql", "postgres"):
        from autorecover.adapters.store.postgres import PostgresStore  # psycopg only when asked

        return PostgresStore(url)
    if scheme == "memory":
        from autorecover.adapters.store.memory_engine import MemoryEngineStore

        return MemoryEngineStore()
    raise StoreUrlError(
        f"store URL {redact(url)!r}: expected sqlite:///PATH, postgresql://... or memory://"
    )


def sqlite_path(url: str) -> str:
    """The file a `sqlite:///` URL names (`sqlite:////abs` is absolute)."""
    if not url.startswith(_SQLITE) or len(url) == len(_SQLITE):
        raise StoreUrlError(f"store URL {url!r}: expected sqlite:///PATH")
    return urllib.parse.unquote(url[len(_SQLITE) :])


def redact(url: str) -> str:
    """The URL without its password, for logs and pages."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    netloc = f"{parts.username}:***@{host}" if parts.username else f"***@{host}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
