"""The outbox on numbers for time (no threads): coalescing, bounds, backoff, give-up, changes
only; and the queued notifier's thread: a pass never waits on a receiver."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from autorecover.adapters.alerting.posting import RetryLaterError
from autorecover.adapters.alerting.sending import Outbox, QueuedNotifier
from autorecover.controllers.ports import Alert, PermanentError, TransientError

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


def alert(key: str, resolved: bool = False) -> Alert:
    a = Alert(key, T0, f"summary {key}")
    return a.ended(T0) if resolved else a


@dataclass
class Receiver:
    """A delivery that records batches and fails as scripted."""

    batch: int = 10
    repeats: bool = True
    name: str = "test receiver"
    errors: list[Exception] = field(default_factory=list)
    got: list[list[str]] = field(default_factory=list)

    def deliver(self, alerts: Sequence[Alert]) -> None:
        if self.errors:
            raise self.errors.pop(0)
        self.got.append([f"{a.id}:{a.status}" for a in alerts])


def drain(box: Outbox, now: float) -> None:
    """Deliver everything due at `now`, batch by batch."""
    while batch := box.take(now):
        error: Exception | None = None
        try:
            box.delivery.deliver([e.alert for e in batch])
        except (TransientError, PermanentError) as exc:
            error = exc
        box.settle(batch, error, now)


def test_the_latest_state_of_an_alert_replaces_one_still_waiting() -> None:
    box = Outbox(Receiver())
    box.put(alert("a"), 0)
    box.put(alert("b"), 0)
    box.put(alert("a", resolved=True), 0)
    drain(box, 0)
    assert box.delivery.got == [["a:resolved", "b:firing"]]  # type: ignore[attr-defined]
    assert box.stats().sent == 2 and len(box) == 0


def test_batches_are_cut_at_the_receivers_size() -> None:
    box = Outbox(Receiver(batch=2))
    for key in "abcde":
        box.put(alert(key), 0)
    drain(box, 0)
    assert [len(b) for b in box.delivery.got] == [2, 2, 1]  # type: ignore[attr-defined]


def test_a_full_outbox_drops_and_counts() -> None:
    box = Outbox(Receiver(), capacity=2)
    assert box.put(alert("a"), 0) and box.put(alert("b"), 0)
    assert not box.put(alert("c"), 0)
    assert box.put(alert("a", resolved=True), 0)  # a known id still updates
    assert box.stats().dropped == 1 and box.stats().queued == 2


def test_a_receiver_away_is_retried_with_growing_backoff() -> None:
    receiver = Receiver(errors=[TransientError("down"), TransientError("down")])
    box = Outbox(receiver, backoff_s=1.0, max_backoff_s=60.0)
    box.put(alert("a"), 0)
    drain(box, 0)
    assert box.wait(0) == 1.0 and box.take(0.5) == []
    drain(box, 1.0)
    assert box.wait(1.0) == 2.0
    drain(box, 3.0)
    assert receiver.got == [["a:firing"]]
    assert box.stats().retries == 2 and box.stats().sent == 1 and box.stats().failed == 0


def test_retry_after_is_honoured_within_the_cap() -> None:
    box = Outbox(Receiver(errors=[RetryLaterError("busy", 30.0)]), backoff_s=1.0)
    box.put(alert("a"), 0)
    drain(box, 0)
    assert box.wait(0) == 30.0


def test_attempts_spent_give_the_message_up() -> None:
    receiver = Receiver(errors=[TransientError("down")] * 3)
    box = Outbox(receiver, max_attempts=3, backoff_s=1.0)
    box.put(alert("a"), 0)
    for now in (0.0, 1.0, 3.0):
        drain(box, now)
    assert box.stats().failed == 1 and len(box) == 0 and receiver.got == []


def test_a_refusal_fails_the_batch_at_once() -> None:
    box = Outbox(Receiver(errors=[PermanentError("400 bad")]))
    box.put(alert("a"), 0)
    box.put(alert("b"), 0)
    drain(box, 0)
    assert box.stats().failed == 2 and len(box) == 0


def test_a_newer_state_arriving_during_a_failed_delivery_wins() -> None:
    box = Outbox(Receiver())
    box.put(alert("a"), 0)
    batch = box.take(0)
    box.put(alert("a", resolved=True), 0)
    box.settle(batch, TransientError("down"), 0)
    drain(box, 0)
    assert box.delivery.got == [["a:resolved"]]  # type: ignore[attr-defined]


def test_a_changes_only_receiver_gets_each_state_once() -> None:
    receiver = Receiver(repeats=False)
    box = Outbox(receiver)
    for _ in range(3):  # the alerting pass repeats a firing alert
        box.put(alert("a"), 0)
        drain(box, 0)
    box.put(alert("a", resolved=True), 0)
    drain(box, 0)
    assert receiver.got == [["a:firing"], ["a:resolved"]]


def test_a_changes_only_receiver_gets_a_repeat_after_a_lost_message() -> None:
    receiver = Receiver(repeats=False, errors=[PermanentError("500 then gone")])
    box = Outbox(receiver)
    box.put(alert("a"), 0)
    drain(box, 0)
    box.put(alert("a"), 60)  # the next repeat
    drain(box, 60)
    assert receiver.got == [["a:firing"]]


def test_bad_outbox_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Outbox(Receiver(), capacity=0)
    with pytest.raises(ValueError):
        Outbox(Receiver(), backoff_s=10, max_backoff_s=1)


@dataclass
class Stuck:
    """A receiver that hangs until released."""

    release: threading.Event = field(default_factory=threading.Event)
    got: list[str] = field(default_factory=list)
    batch: int = 1
    repeats: bool = True
    name: str = "stuck"

    def deliver(self, alerts: Sequence[Alert]) -> None:
        assert self.release.wait(10)
        self.got.extend(a.id for a in alerts)


def test_queueing_never_waits_on_a_hung_receiver() -> None:
    receiver = Stuck()
    notifier = QueuedNotifier(Outbox(receiver, capacity=5))
    started = time.monotonic()
    for i in range(50):
        notifier.alert(alert(f"a{i}"))
    assert time.monotonic() - started < 1.0
    assert notifier.stats().dropped >= 44  # one in flight, five waiting
    receiver.release.set()
    deadline = time.monotonic() + 10
    while notifier.stats().queued and time.monotonic() < deadline:
        time.sleep(0.01)
    notifier.close()
    assert len(receiver.got) == 50 - notifier.stats().dropped
    notifier.alert(alert("after close"))
    assert "after close" not in receiver.got


def test_close_delivers_what_is_due() -> None:
    receiver = Receiver()
    notifier = QueuedNotifier(Outbox(receiver))
    notifier.alert(alert("a"))
    notifier.close(timeout_s=5)
    assert receiver.got == [["a:firing"]] and notifier.stats().sent == 1
