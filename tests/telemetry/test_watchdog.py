"""The hang watchdog on an injected clock: thresholds, one record per stall, re-arming.

Nothing here sleeps: ``check(now)`` is called with fake times, and the thread loop is
driven by an injected ``wait`` that advances the fake clock.
"""

from __future__ import annotations

import logging
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.telemetry import HangPolicy, HangReport, ProgressView, Watchdog
from autorecover.telemetry.flight_recorder import Collectives
from autorecover.telemetry.watchdog import p99, thread_stacks

from .fakes import FakeClock, MakeRecorder

POLICY = HangPolicy(floor_s=60.0, factor=10.0, warmup_s=600.0, warmup_steps=10,
                    checkpoint_s=900.0, checkpoint_factor=3.0, poll_s=5.0)  # fmt: skip


@given(
    st.lists(st.floats(0.0, 1e4), max_size=50),
    st.integers(0, 100),
    st.booleans(),
    st.floats(0.0, 1e5),
)
def test_threshold_bounds(
    intervals: list[float], steps: int, in_ckpt: bool, longest: float
) -> None:
    view = ProgressView(0.0, steps, None, intervals, in_ckpt, longest)
    threshold = POLICY.threshold_s(view)
    assert threshold >= POLICY.floor_s  # never shorter than the floor
    assert threshold >= POLICY.factor * p99(intervals)  # learned from the step intervals
    if steps < POLICY.warmup_steps:
        assert threshold >= POLICY.warmup_s  # longer during warm-up
    if in_ckpt:
        assert threshold >= max(POLICY.checkpoint_s, POLICY.checkpoint_factor * longest)
    else:
        assert threshold == max(
            POLICY.floor_s,
            POLICY.factor * p99(intervals),
            POLICY.warmup_s if steps < POLICY.warmup_steps else 0.0,
        )


def test_threshold_examples() -> None:
    steady = ProgressView(0.0, 100, 5, [1.0] * 99 + [20.0])
    assert POLICY.threshold_s(steady) == 60.0  # 10 x p99 (1.0) is under the floor
    slow = ProgressView(0.0, 100, 5, [1.0] * 98 + [20.0, 20.0])
    assert POLICY.threshold_s(slow) == 200.0
    assert POLICY.threshold_s(ProgressView(0.0, 3, 5, [1.0])) == 600.0
    ckpt = ProgressView(0.0, 100, 5, [1.0], in_checkpoint=True, longest_checkpoint_s=400.0)
    assert POLICY.threshold_s(ckpt) == 1200.0


class View:
    """A progress source the test moves by hand."""

    def __init__(self) -> None:
        self.view = ProgressView(0.0, 100, 42, [1.0] * 100)

    def __call__(self) -> ProgressView:
        return self.view

    def progress(self, at: float) -> None:
        self.view = ProgressView(at, self.view.steps + 1, 43, self.view.intervals)


def test_one_report_per_stall_and_rearm() -> None:
    view, reports, callbacks = View(), [], []
    dog = Watchdog(POLICY, view, reports.append, on_hang=callbacks.append,
                   stacks=lambda: {"MainThread": "stack"}, collectives=Collectives)  # fmt: skip
    assert dog.check(59.9) is None
    report = dog.check(60.0)
    assert report == HangReport(60.0, 60.0, 42, False, {"MainThread": "stack"})
    for t in range(61, 5000, 5):  # still stuck: no record storm
        assert dog.check(float(t)) is None
    assert len(reports) == 1 and callbacks == reports
    view.progress(5000.0)  # progress re-arms
    assert dog.check(5030.0) is None
    second = dog.check(5061.0)
    assert second is not None and second.step == 43 and len(reports) == 2
    assert dog.reports == 2


def test_failing_callback_is_logged_and_watching_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view, reports = View(), []

    def boom(report: HangReport) -> None:
        raise RuntimeError("user callback")

    dog = Watchdog(POLICY, view, reports.append, on_hang=boom, stacks=dict)
    with caplog.at_level(logging.WARNING, logger="autorecover.telemetry"):
        assert dog.check(100.0) is not None
    assert "on_hang callback failed" in caplog.text
    view.progress(100.0)
    assert dog.check(200.0) is not None and len(reports) == 2


def test_through_the_recorder(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    seen: list[HangReport] = []
    rec, out = make_recorder(hang=POLICY, on_hang=seen.append, log_interval=1000)
    dog = rec.watchdog
    assert dog is not None
    start = clock.t
    assert dog.check(start + 599.0) is None  # warm-up: no step yet, 600 s allowed
    for i in range(20):
        clock.advance(2.0)
        rec.step(i)
    last = clock.t
    assert dog.check(last + 59.0) is None
    report = dog.check(last + 60.0)  # 10 x p99 (2 s) = 20 s, under the 60 s floor
    assert report is not None and report.step == 19
    assert dog.check(last + 500.0) is None
    rec.flush()
    (hang,) = out.records("hang")
    assert (hang["idle_s"], hang["threshold_s"], hang["step"], hang["in_checkpoint"]) == (
        60.0, 60.0, 19, False)  # fmt: skip
    assert "MainThread" in hang["stacks"] and "test_through_the_recorder" in (
        hang["stacks"]["MainThread"])  # fmt: skip
    parsed = parse_telemetry(out.lines[-1])
    assert parsed is not None and parsed.event == "hang" and parsed.rank == 3
    assert seen == [report]

    # a phase is progress too: it re-arms the watchdog
    clock.t = last + 600.0
    with rec.phase("forward"):
        pass
    assert dog.check(clock.t + 30.0) is None

    # an open checkpoint span stretches the threshold to 900 s
    with rec.checkpoint_save("/ckpt/x"):
        t0 = clock.t
        assert dog.check(t0 + 899.0) is None
        assert dog.check(t0 + 900.0) is not None
    rec.flush()
    assert out.records("hang")[-1]["in_checkpoint"] is True


def test_thread_loop_with_injected_wait() -> None:
    clock, view, reports = FakeClock(0.0), View(), []
    polls: list[float] = []

    def wait(seconds: float) -> bool:
        polls.append(seconds)
        clock.advance(seconds)
        return len(polls) > 100  # stop after 100 polls = 500 fake seconds

    dog = Watchdog(POLICY, view, reports.append, stacks=dict)
    dog.start(clock, wait)
    dog._thread.join(10)  # type: ignore[union-attr]
    assert not dog.running
    assert set(polls) == {5.0} and len(reports) == 1 and reports[0].idle_s == 60.0
    dog.stop(timeout_s=1.0)


def test_stop_ends_the_real_loop() -> None:
    dog = Watchdog(HangPolicy(poll_s=3600.0), View(), lambda r: None, stacks=dict)
    dog.start(FakeClock())
    assert dog.running
    dog.stop(timeout_s=5.0)  # the wait is on the stop event: returns at once
    assert not dog.running


def test_stacks_name_every_thread() -> None:
    release = threading.Event()
    worker = threading.Thread(target=release.wait, args=(10,), name="data-worker", daemon=True)
    worker.start()
    try:
        stacks = thread_stacks()
    finally:
        release.set()
        worker.join(5)
    assert "MainThread" in stacks and "data-worker" in stacks
    assert "wait" in stacks["data-worker"]
    assert next(iter(stacks)) == "MainThread"


def test_stacks_are_cut_to_the_budget() -> None:
    stacks = thread_stacks(limit_chars=100)
    assert all(len(text) <= 2_000 + len("...[cut]\n") for text in stacks.values())


def test_p99() -> None:
    assert p99([]) == 0.0
    assert p99([3.0]) == 3.0
    assert p99(list(range(1, 101))) == 99
    assert p99(list(range(1, 201))) == 198
