"""The outbox: signals waiting for the engine, batched, retried with backoff, bounded.

While the engine is away the outbox keeps at most `capacity` signals; past that the oldest
are dropped and counted, and every batch tells the engine how many were dropped so far, so a
gap is visible rather than silent. Driven by `flush(now)`: no sleeps, no clock reads.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from itertools import islice
from typing import Any, Protocol

from autorecover.adapters.http.engine_client import EngineError
from autorecover.adapters.http.wire import batch_document
from autorecover.domain.signals import NodeSignal


class Poster(Protocol):
    """Where batches go (adapters.http.engine_client.EngineClient)."""

    def post(self, document: Mapping[str, Any]) -> None:
        """Deliver one batch or raise EngineError."""
        ...


class Outbox:
    """A bounded FIFO of signals with batching, retries and backoff."""

    def __init__(
        self,
        *,
        node: str,
        client: Poster,
        capacity: int = 10_000,
        batch_size: int = 500,
        max_batches_per_flush: int = 20,
        backoff_initial_s: float = 1.0,
        backoff_max_s: float = 60.0,
        heartbeat_s: float | None = 60.0,
        jitter: Callable[[], float] | None = random.random,
    ) -> None:
        self.node = node
        self.client = client
        self.capacity = max(1, capacity)
        self.batch_size = max(1, batch_size)
        self.max_batches_per_flush = max(1, max_batches_per_flush)
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.heartbeat_s = heartbeat_s
        self.jitter = jitter  # spreads retries of many nodes after an engine outage
        self._queue: deque[NodeSignal] = deque()
        self.dropped = 0  # oldest signals dropped because the buffer was full
        self.rejected = 0  # signals in batches the engine refused for good (4xx)
        self.sent = 0
        self.failures = 0
        self.last_error = ""
        self._attempts = 0
        self._next_attempt: datetime | None = None
        self._last_sent: datetime | None = None

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, signals: Iterable[NodeSignal]) -> None:
        """Queue signals; the oldest go (counted) when the buffer is full."""
        for s in signals:
            if len(self._queue) >= self.capacity:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(s)

    @property
    def next_attempt(self) -> datetime | None:
        """When a failed send may be tried again (None: no backoff in force)."""
        return self._next_attempt

    def flush(self, now: datetime) -> int:
        """Send what is due; the number of signals the engine accepted."""
        if self._next_attempt is not None and now < self._next_attempt:
            return 0
        accepted = 0
        for _ in range(self.max_batches_per_flush):
            if not self._queue and not self._heartbeat_due(now):
                break
            batch = list(islice(self._queue, self.batch_size))
            document = batch_document(self.node, batch, sent_at=now, dropped=self.dropped)
            try:
                self.client.post(document)
            except EngineError as exc:
                self.last_error = str(exc)
                if exc.transient:
                    self._back_off(now, exc.retry_after_s)
                    return accepted
                self.rejected += len(batch)  # the engine will never take it: do not block the rest
            else:
                accepted += len(batch)
                self.sent += len(batch)
                self._attempts, self._next_attempt = 0, None
            for _ in batch:
                self._queue.popleft()
            self._last_sent = now
        return accepted

    def _heartbeat_due(self, now: datetime) -> bool:
        if self.heartbeat_s is None:
            return False
        last = self._last_sent
        return last is None or (now - last).total_seconds() >= self.heartbeat_s

    def _back_off(self, now: datetime, retry_after_s: float | None) -> None:
        self.failures += 1
        if retry_after_s is not None:
            # An engine that answers "busy" says when to come back: follow it (spread by up
            # to half again, so a fleet does not return at once), never doubling it, so a
            # busy engine is not left waiting minutes for its agents' signals.
            delay = max(retry_after_s, self.backoff_initial_s)  # never 0: a proxy may say so
            if self.jitter is not None:
                delay *= 1 + self.jitter() / 2
        else:  # no answer: back off exponentially, up to `backoff_max_s`
            self._attempts += 1
            delay = min(self.backoff_max_s, self.backoff_initial_s * 2 ** (self._attempts - 1))
            if self.jitter is not None:
                delay *= 0.5 + self.jitter() / 2
        self._next_attempt = now + timedelta(seconds=delay)
