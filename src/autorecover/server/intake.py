"""Signal intake: a validated agent batch is written to the store's inbox before it is acked.

Every replica takes signals in, leader or not: the inbox is in the shared store, and the
leader's hardware pass consumes it. Two bounds keep a flood from growing without limit:
requests in flight (`busy`: 503) and batches waiting in the inbox (`full`: 429); both
answer with Retry-After, which the agent honours. A store that cannot be written is
`unavailable` (503). Nothing is acknowledged that is not on disk, and nothing is
acknowledged that the store could not record: the schema bounds every field (`schemas`), a
signal may lead the engine's clock by at most `MAX_AHEAD`, and a batch the store refuses to
keep is refused (422), never acknowledged.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from autorecover.adapters.http.wire import WireError, signal_from_dict
from autorecover.adapters.store.base import EngineStore
from autorecover.controllers.ports import Clock, TransientError
from autorecover.server.metrics import EngineMetrics
from autorecover.server.schemas import MAX_AHEAD, BatchIn


@dataclass(frozen=True, slots=True)
class Refused:
    """The batch was not kept: the HTTP status, Retry-After and why."""

    status: int
    retry_after_s: int
    reason: str


@dataclass(frozen=True, slots=True)
class Invalid:
    """The batch is malformed: where (as a pydantic-style `loc`) and what."""

    loc: tuple[str | int, ...]
    msg: str


@dataclass(frozen=True, slots=True)
class Kept:
    """The batch is in the inbox."""

    batch: int
    signals: int
    waiting: int | None  # None: the count could not be read after the batch was kept


class Intake:
    """Validates batches and keeps them in the inbox, within bounds."""

    def __init__(
        self,
        store: EngineStore,
        clock: Clock,
        metrics: EngineMetrics,
        *,
        max_waiting: int = 10_000,
        max_in_flight: int = 32,
        retry_after_s: int = 5,
    ) -> None:
        self._store, self._clock, self._metrics = store, clock, metrics
        self.max_waiting, self.retry_after_s = max_waiting, retry_after_s
        self._slots = threading.BoundedSemaphore(max_in_flight)

    def take(self, batch: BatchIn) -> Kept | Refused | Invalid:
        """Keep one batch, or say why not."""
        signals = []
        ahead = self._clock.now() + MAX_AHEAD
        for i, raw in enumerate(batch.signals):
            if raw.node != batch.node:
                self._metrics.intake("invalid")
                return Invalid(("body", "signals", i, "node"), "must be the batch's node")
            if raw.at > ahead:
                self._metrics.intake("invalid")
                limit = int(MAX_AHEAD.total_seconds())
                return Invalid(("body", "signals", i, "at"), f"is over {limit} s ahead of now")
            try:
                signals.append(signal_from_dict(raw.model_dump(mode="json")))
            except WireError as exc:  # the schema already checked: a belt to its braces
                self._metrics.intake("invalid")
                return Invalid(("body", "signals", i), str(exc))
        if not self._slots.acquire(blocking=False):
            self._metrics.intake("busy")
            return Refused(503, self.retry_after_s, "too many batches in flight")
        try:
            bid = self._store.enqueue(
                batch.node, batch.agent, batch.dropped, signals,
                received_at=self._clock.now(), max_waiting=self.max_waiting,
            )  # fmt: skip
        except TransientError as exc:
            self._metrics.intake("unavailable")
            return Refused(503, self.retry_after_s, f"store unavailable: {exc}")
        except (ValueError, OverflowError) as exc:  # the store will not keep it: say so now
            self._metrics.intake("invalid")
            return Invalid(("body",), f"cannot be recorded: {exc}")
        finally:
            self._slots.release()
        if bid is None:
            self._metrics.intake("full")
            return Refused(429, self.retry_after_s, f"{self.max_waiting} batches already wait")
        self._metrics.intake("accepted", len(signals))
        # The batch is kept: nothing after this may answer an error (the agent would send it
        # again, and it would be kept twice). The waiting count is only informative.
        try:
            waiting: int | None = self._store.backlog()
        except (TransientError, ValueError, OSError):
            waiting = None
        return Kept(bid, len(signals), waiting)
