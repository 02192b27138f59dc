"""The event engine: time order, ties in scheduling order, a clock that never goes back."""

from __future__ import annotations

from datetime import timedelta

from autorecover.simulation.events import START, EventQueue, SimClock


def test_events_run_in_time_order_and_ties_in_the_order_scheduled() -> None:
    clock = SimClock()
    queue = EventQueue(clock)
    seen: list[tuple[float, str]] = []
    for t, name in ((30.0, "c"), (10.0, "a"), (10.0, "b"), (20.0, "x")):
        queue.at(t, lambda t=t, name=name: seen.append((clock.t, name)))
    queue.run(until=100.0)
    assert seen == [(10.0, "a"), (10.0, "b"), (20.0, "x"), (30.0, "c")]
    assert clock.t == 100.0 and clock.now() == START + timedelta(seconds=100)


def test_an_event_in_the_past_runs_now_and_events_may_schedule_more() -> None:
    clock = SimClock()
    queue = EventQueue(clock)
    seen: list[float] = []

    def first() -> None:
        seen.append(clock.t)
        queue.at(1.0, lambda: seen.append(clock.t))  # in the past: runs at once, at 5
        queue.after(10.0, lambda: seen.append(clock.t))

    queue.at(5.0, first)
    queue.run(until=12.0)
    assert seen == [5.0, 5.0]  # the one at 15 waits for a later run
    assert len(queue) == 1
    queue.run(until=20.0)
    assert seen == [5.0, 5.0, 15.0]


def test_progress_is_reported_as_events_run() -> None:
    clock = SimClock()
    queue = EventQueue(clock)
    for i in range(600):
        queue.at(float(i), lambda: None)
    steps: list[float] = []
    queue.run(until=1000.0, on_step=steps.append)
    assert steps == [255.0, 511.0]  # every 256 events
    assert queue.ran == 600
