"""Limits on what one client may send, enforced before the app reads a byte of JSON.

Two ASGI middlewares, outside the routes so every route (present and future) is covered:

- `BodyLimit` refuses a request body over `max_bytes` with **413**: at once when its
  Content-Length says so, else (chunked, or a Content-Length that lies) as soon as the bytes
  received pass the limit. It holds at most `max_bytes` of one request in memory, so many
  concurrent huge bodies cost `max_bytes` each, never their size.
- `RateLimit` gives each client a token bucket (`per_s` requests a second on average, `burst`
  at once) for everything under `/api/`; an empty bucket answers **429** with Retry-After.
  The client is the authenticated caller when authentication (an outer middleware) has set
  `request.state.caller`, else the peer's address. Health, readiness and metrics are not
  limited: probes and scrapers must always get through.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from autorecover.controllers.ports import Clock

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = 4 * 1024 * 1024  # a full agent batch (500 signals of 2,000 chars) is ~1.5 MB


async def refuse(
    send: Send, status: int, detail: str, headers: dict[str, str] | None = None
) -> None:
    """Answer with a JSON problem and close the connection (the rest of the body is unread)."""
    body = json.dumps({"detail": detail}).encode()
    extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            *extra,
        ],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """413 for a request body over `max_bytes`, counted as it arrives."""

    def __init__(self, app: App, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = f"request body over {self.max_bytes} bytes"
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await refuse(send, 413, too_big)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client went away: nobody to answer
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                await refuse(send, 413, too_big)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        await self.app(scope, replay, send)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: datetime


class RateLimit:
    """A token bucket per client for `/api/` routes: 429 with Retry-After when it is empty."""

    def __init__(
        self,
        app: App,
        clock: Clock,
        per_s: float,
        burst: int,
        *,
        max_clients: int = 10_000,
        prefix: str = "/api/",
    ) -> None:
        self.app, self._clock = app, clock
        self.per_s, self.burst = per_s, max(1, burst)
        self.max_clients, self.prefix = max_clients, prefix
        self._buckets: dict[str, _Bucket] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.per_s <= 0 or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        wait_s = self.take(client_of(scope), self._clock.now())
        if wait_s > 0:
            retry = str(max(1, math.ceil(wait_s)))
            await refuse(send, 429, "too many requests from this client", {"Retry-After": retry})
            return
        await self.app(scope, receive, send)

    def take(self, client: str, now: datetime) -> float:
        """Take a token for `client`: 0 when it had one, else the seconds until it will."""
        bucket = self._buckets.get(client)
        if bucket is None:
            if len(self._buckets) >= self.max_clients:
                self._forget(now)
            bucket = self._buckets[client] = _Bucket(float(self.burst), now)
        elapsed = max(0.0, (now - bucket.at).total_seconds())
        bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.per_s)
        bucket.at = max(bucket.at, now)
        if bucket.tokens < 1.0:
            return (1.0 - bucket.tokens) / self.per_s
        bucket.tokens -= 1.0
        return 0.0

    def _forget(self, now: datetime) -> None:
        """Drop the buckets that have refilled (they hold nothing a new one would not); if
        that frees too little, the oldest half, so memory stays bounded whoever calls."""
        full_after = self.burst / self.per_s
        self._buckets = {
            k: b for k, b in self._buckets.items() if (now - b.at).total_seconds() < full_after
        }
        if len(self._buckets) >= self.max_clients:
            keep = list(self._buckets.items())[len(self._buckets) // 2 :]
            self._buckets = dict(keep)


def client_of(scope: Scope) -> str:
    """Who is asking: the authenticated caller if known, else the peer's address."""
    caller = (scope.get("state") or {}).get("caller")
    if isinstance(caller, str) and caller and caller != "anonymous":
        return caller
    peer = scope.get("client")
    return f"address:{peer[0]}" if peer else "address:unknown"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1").strip())
    return None
