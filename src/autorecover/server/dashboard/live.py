"""Live updates: a Server-Sent Events stream that says "something was recorded" at once.

The engine records on any replica's store (the leader's passes, people's requests, job
recovery), so the server looks at the store itself: `Feed.version` reads the newest
transition, action, request and job incident, and is cached for `period_s` (250 ms), so any
number of open streams cost one look-up per period; drawing a page looks it up fresh (a page
must not show the store as it was up to a period ago). A stream sends `change` with the new
version and the nodes whose state moved since (their cells' classes), so the fleet page
recolours a cell at once; the page then fetches itself again for the rest. A stream ends
after `LIFETIME_S` and the browser reconnects with `Last-Event-ID`, so a server shutdown never
waits long on an open page, and a change made while it reconnected is sent at once.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
import anyio.to_thread

from autorecover.server.dashboard.fleet import LETTER
from autorecover.server.engine import Engine

PERIOD_S = 0.25
LIFETIME_S = 10.0
RETRY_MS = 300
MOVES_KEPT = 10_000  # recent node moves kept for the streams; one further behind refreshes


class Feed:
    """The store's newest change as a short version string, looked up at most every period."""

    def __init__(
        self,
        engine: Engine,
        period_s: float = PERIOD_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._engine, self.period_s, self._monotonic = engine, period_s, monotonic
        self._lock = threading.Lock()
        self._cursor = 0  # the newest transition's position seen
        self._checked = -1e9
        self._version = ""
        self._moves: deque[tuple[int, str, str]] = deque(maxlen=MOVES_KEPT)
        self.lookups = 0

    def version(self, fresh: bool = False) -> tuple[str, int]:
        """The current version and newest transition's position (looked up again when the
        last look-up is over a period old, or `fresh`: a page drawn from it must not show the
        store as it was up to a period ago)."""
        with self._lock:
            now = self._monotonic()
            if fresh or now - self._checked >= self.period_s:
                self._version = self._look()
                self._checked = now
                self.lookups += 1
            return self._version, self._cursor

    def moves(self, after: int, upto: int) -> dict[str, str]:
        """The cells' classes of the nodes that moved after position `after`, up to `upto`
        ({node: letter}; the latest move of each)."""
        with self._lock:
            return {node: cls for pos, node, cls in self._moves if after < pos <= upto}

    def _look(self) -> str:
        store = self._engine.store
        while True:  # transitions have positions: read only the new ones
            found = store.transitions_after(self._cursor, 1000)
            self._moves.extend((pos, t.node, LETTER[t.to]) for pos, t in found)
            if found:
                self._cursor = found[-1][0]
            if len(found) < 1000:
                break
        actions = store.recent_actions(1)
        requests = store.requests(limit=1)
        parts = [str(self._cursor)]
        parts += [f"{a.action.id}/{a.status}/{a.updated_at.isoformat()}" for a in actions]
        parts += [f"{r.id}/{r.status}" for r in requests]
        parts += [f"{i.id}/{i.state}/{i.updated_at.isoformat()}"
                  for i in self._engine.jobs.incidents()]  # fmt: skip
        parts += [f"{r.id}/{r.status}" for r in self._engine.jobs.requests(limit=1)]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


async def stream(
    feed: Feed,
    last: str | None,
    gone: Callable[[], Awaitable[bool]],
    lifetime_s: float = LIFETIME_S,
) -> AsyncIterator[bytes]:
    """The SSE body: `change` whenever the version moves (at once when it moved since `last`,
    the version the browser saw before it reconnected); ends after `lifetime_s`."""
    yield f"retry: {RETRY_MS}\n\n".encode()
    seen = last
    cursor: int | None = None
    until = time.monotonic() + lifetime_s
    while time.monotonic() < until:
        version, at = await anyio.to_thread.run_sync(feed.version)
        if seen is None:
            yield f"id: {version}\nevent: hello\ndata: {version}\n\n".encode()
        elif version != seen:
            moved = feed.moves(cursor, at) if cursor is not None else {}
            data = json.dumps({"v": version, "nodes": moved}, separators=(",", ":"))
            yield f"id: {version}\nevent: change\ndata: {data}\n\n".encode()
        seen, cursor = version, at
        if await gone():
            return
        await anyio.sleep(feed.period_s)
