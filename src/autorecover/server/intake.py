"""Signal intake: a validated agent batch is written to the store's inbox before it is acked.

Every replica takes signals in, leader or not: the inbox is in the shared store, and the
leader's hardware pass consumes it. Two bounds keep a flood from growing without limit:
requests in flight (`busy`: 503) and batches waiting in the inbox (`full`: 429); both
answer with Retry-After, which the agent honours. A store that cannot be written is
`unavailable` (503). Nothing is acknowledged that is not on disk, and nothing is
acknowledged that the store could not record: the schema bounds every field (`schemas`), a
signal may lead the engine's clock by at most `MAX_AHEAD`, and a batch the store refuses to
keep is refused (422), never acknowledged.

A node's clock can be wrong (NTP broken, a clock reset after a BMC or firmware event; a sick
node's often is), and the agent stamps each signal with it. Each batch says when the agent
sent it (`sent_at`, on the same clock, for every attempt); where that differs from when the
engine received it by more than `CLOCK_TOLERANCE`, every signal's time is moved by the
difference, onto the engine's clock, before it is checked and kept. Uncorrected, a node whose
clock led by minutes had every batch refused as "from the future", and one that lagged by an
hour had its XIDs set aside as a buffer replayed late: its faults never counted. Each batch's
measured offset is exported per node (`autorecover_agent_clock_offset_seconds`) and a
correction is logged once per node per `WARN_EVERY`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from autorecover.adapters.http.wire import WireError, signal_from_dict
from autorecover.adapters.store.base import EngineStore
from autorecover.controllers.ports import Clock, TransientError
from autorecover.server.metrics import EngineMetrics
from autorecover.server.schemas import MAX_AHEAD, BatchIn

log = logging.getLogger(__name__)
# Transit and queueing take well under this; a clock off by less changes no decision (the
# windows that count faults are minutes long).
CLOCK_TOLERANCE = timedelta(seconds=30)
WARN_EVERY = timedelta(minutes=10)


def clock_offset(sent_at: datetime | None, received_at: datetime) -> timedelta:
    """What to add to the agent's times to put them on the engine's clock: zero without
    `sent_at` or within `CLOCK_TOLERANCE`."""
    if sent_at is None:
        return timedelta(0)
    offset = received_at - sent_at
    return offset if abs(offset) > CLOCK_TOLERANCE else timedelta(0)


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
        self._warned: dict[str, datetime] = {}  # node -> when its clock was last logged
        self._warned_lock = threading.Lock()

    def take(self, batch: BatchIn) -> Kept | Refused | Invalid:
        """Keep one batch, or say why not."""
        signals = []
        now = self._clock.now()
        if batch.sent_at is not None:
            self._metrics.agent_clock(batch.node, (now - batch.sent_at).total_seconds(), now)
        offset = clock_offset(batch.sent_at, now)
        if offset and batch.signals:
            self._warn(batch.node, offset, now)
        ahead = now + MAX_AHEAD
        for i, raw in enumerate(batch.signals):
            if raw.node != batch.node:
                self._metrics.intake("invalid")
                return Invalid(("body", "signals", i, "node"), "must be the batch's node")
            if raw.at + offset > ahead:
                self._metrics.intake("invalid")
                limit = int(MAX_AHEAD.total_seconds())
                return Invalid(("body", "signals", i, "at"), f"is over {limit} s ahead of now")
            try:
                signal = signal_from_dict(raw.model_dump(mode="json"))
            except WireError as exc:  # the schema already checked: a belt to its braces
                self._metrics.intake("invalid")
                return Invalid(("body", "signals", i), str(exc))
            signals.append(replace(signal, at=signal.at + offset) if offset else signal)
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

    def _warn(self, node: str, offset: timedelta, now: datetime) -> None:
        with self._warned_lock:
            last = self._warned.get(node)
            if last is not None and now - last < WARN_EVERY:
                return
            self._warned[node] = now
        ahead = "behind" if offset > timedelta(0) else "ahead of"
        log.warning("%s's clock is %.0f s %s the engine's: its signals' times are moved by that",
                    node, abs(offset.total_seconds()), ahead)  # fmt: skip
