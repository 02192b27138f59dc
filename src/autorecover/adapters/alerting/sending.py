"""Delivering alerts off the controllers' threads: a bounded outbox and one sender thread.

`QueuedNotifier.alert` only puts the alert in the outbox and returns: a pass never waits on a
receiver. The outbox keeps the latest state of each alert id (a resolution replaces the
firing message still waiting), so its size is bounded by the alerts that hold, and refuses —
counting a drop — beyond `capacity`. The sender thread delivers what is due in batches;
a receiver that is away (`TransientError`) is retried with exponential backoff (honouring
its Retry-After) up to `max_attempts`, then the message is given up and counted as failed;
a receiver that refuses (`PermanentError`) fails it at once. Firing alerts are repeated by
the alerting pass, so a message given up is sent again on the next repeat.

A receiver that wants only changes (`repeats` false: webhooks) is not sent a firing alert
again once one was delivered for that id. `Outbox` is the logic on numbers for time, driven
by tests without threads; `QueuedNotifier` is the thread around it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from autorecover.adapters.alerting.posting import RetryLaterError
from autorecover.controllers.ports import Alert, PermanentError, TransientError

log = logging.getLogger(__name__)


class Delivery(Protocol):
    """One receiver: how to deliver a batch, and what it wants."""

    @property
    def name(self) -> str:
        """The receiver in logs and metrics (no credentials)."""
        ...

    @property
    def batch(self) -> int:
        """Alerts per request."""
        ...

    @property
    def repeats(self) -> bool:
        """True: every firing repeat is passed on (Alertmanager); False: only changes."""
        ...

    def deliver(self, alerts: Sequence[Alert]) -> None:
        """Send the batch; TransientError to retry later, PermanentError when refused."""
        ...


@dataclass(frozen=True, slots=True)
class SenderStats:
    """What one receiver's sender did so far."""

    receiver: str
    sent: int = 0  # alerts delivered
    failed: int = 0  # alerts given up (refused, or attempts spent)
    dropped: int = 0  # alerts refused because the outbox was full
    retries: int = 0  # deliveries tried again after a transient failure
    queued: int = 0  # alerts waiting now


@dataclass(slots=True)
class _Entry:
    alert: Alert
    due: float  # monotonic seconds
    attempts: int = 0


class Outbox:
    """The latest message per alert id, when each is due, and the counts (not thread-safe)."""

    def __init__(
        self,
        delivery: Delivery,
        *,
        capacity: int = 10_000,
        max_attempts: int = 8,
        backoff_s: float = 0.5,
        max_backoff_s: float = 60.0,
    ) -> None:
        if capacity < 1 or max_attempts < 1 or backoff_s <= 0 or max_backoff_s < backoff_s:
            raise ValueError("outbox: capacity and attempts >= 1, 0 < backoff <= max backoff")
        self.delivery = delivery
        self._capacity, self._attempts = capacity, max_attempts
        self._backoff, self._max_backoff = backoff_s, max_backoff_s
        self._pending: dict[str, _Entry] = {}
        self._delivered: dict[str, str] = {}  # id -> status last delivered (changes-only)
        self.sent = self.failed = self.dropped = self.retries = 0

    def __len__(self) -> int:
        return len(self._pending)

    def put(self, alert: Alert, now: float) -> bool:
        """Queue the alert's latest state; False when the outbox is full (a drop)."""
        if not self.delivery.repeats and self._delivered.get(alert.id) == alert.status:
            return True  # the receiver has this state already
        entry = self._pending.get(alert.id)
        if entry is not None:
            entry.alert, entry.attempts = alert, 0  # newer state; keep its place and backoff
            return True
        if len(self._pending) >= self._capacity:
            self.dropped += 1
            return False
        self._pending[alert.id] = _Entry(alert, now)
        return True

    def take(self, now: float) -> list[_Entry]:
        """Up to one batch of due messages, taken out until `settle`."""
        batch = []
        for key, entry in list(self._pending.items()):
            if entry.due <= now:
                batch.append(self._pending.pop(key))
                if len(batch) >= self.delivery.batch:
                    break
        return batch

    def wait(self, now: float) -> float | None:
        """Seconds until the next message is due (0: now); None when nothing waits."""
        if not self._pending:
            return None
        return max(0.0, min(e.due for e in self._pending.values()) - now)

    def settle(self, batch: Sequence[_Entry], error: Exception | None, now: float) -> None:
        """Count a delivery; put a transiently refused batch back with its backoff."""
        if error is None:
            self.sent += len(batch)
            for entry in batch:
                self._remember(entry.alert)
            return
        if not isinstance(error, TransientError):
            self.failed += len(batch)
            log.warning("alerts to %s refused, %d given up: %s", self.delivery.name,
                        len(batch), error)  # fmt: skip
            return
        self.retries += 1
        after = error.retry_after_s if isinstance(error, RetryLaterError) else None
        for entry in batch:
            if entry.alert.id in self._pending:
                continue  # a newer state of this alert waits already
            entry.attempts += 1
            if entry.attempts >= self._attempts:
                self.failed += 1
                log.warning("alert %s to %s given up after %d attempts: %s", entry.alert.id,
                            self.delivery.name, entry.attempts, error)  # fmt: skip
                continue
            delay = min(self._max_backoff, self._backoff * 2 ** (entry.attempts - 1))
            entry.due = now + max(delay, min(after or 0.0, self._max_backoff))
            self._pending[entry.alert.id] = entry

    def _remember(self, alert: Alert) -> None:
        if self.delivery.repeats:
            return
        if alert.resolved:
            self._delivered.pop(alert.id, None)
            return
        self._delivered[alert.id] = alert.status
        while len(self._delivered) > self._capacity:  # resolutions given up leave ids behind
            del self._delivered[next(iter(self._delivered))]

    def stats(self) -> SenderStats:
        """The counts now."""
        return SenderStats(
            self.delivery.name, self.sent, self.failed, self.dropped, self.retries, len(self)
        )


class QueuedNotifier:
    """A `Notifier` that queues and returns; its own thread delivers (started on first use)."""

    def __init__(self, outbox: Outbox, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._outbox, self._now = outbox, monotonic
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False

    @property
    def name(self) -> str:
        """The receiver's name."""
        return self._outbox.delivery.name

    def alert(self, alert: Alert) -> None:
        """Queue the alert (never blocks on the receiver; a full outbox counts a drop)."""
        with self._cond:
            if self._closing:
                return
            if not self._outbox.put(alert, self._now()):
                log.warning("alert %s to %s dropped: outbox full", alert.id, self.name)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"autorecover-alerts {self.name}", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def stats(self) -> SenderStats:
        """What this sender did so far."""
        with self._cond:
            return self._outbox.stats()

    def close(self, timeout_s: float = 5.0) -> None:
        """Deliver what is due now (within `timeout_s`), then stop; later alerts are ignored."""
        with self._cond:
            self._closing = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    now = self._now()
                    batch = self._outbox.take(now)
                    if batch:
                        break
                    wait = self._outbox.wait(now)
                    if self._closing and (wait is None or wait > 0):
                        return  # what is left waits on a backoff: not worth holding a shutdown
                    self._cond.wait(timeout=wait)
            error: Exception | None = None
            try:
                self._outbox.delivery.deliver([entry.alert for entry in batch])
            except (TransientError, PermanentError) as exc:
                error = exc
            except Exception as exc:  # a supervisor: a receiver's surprise must not end sending
                log.exception("alerts to %s: unexpected failure", self.name)
                error = TransientError(str(exc))
            with self._cond:
                self._outbox.settle(batch, error, self._now())
