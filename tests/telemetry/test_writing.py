"""The bounded queue: overflow drops records, counts them and reports them in a drops record."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.telemetry import Identity, MemoryOutput, Recorder
from autorecover.telemetry.writing import WAKE_S, path_size

from .fakes import MakeRecorder


class GatedOutput(MemoryOutput):
    """Blocks every write until ``gate`` is set; ``entered`` says a write is waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()

    def write(self, text: str, /) -> int:
        self.entered.set()
        self.gate.wait(10)  # bounded: a bug cannot hang the suite
        return super().write(text)


def test_overflow_is_counted_and_reported(make_recorder: MakeRecorder) -> None:
    rec, out = make_recorder(queue_size=5, log_interval=1)  # the init record takes one slot
    for i in range(20):
        rec.step(i)  # never blocks, never raises
    stats = rec.stats()
    assert (stats.submitted, stats.dropped) == (5, 16)
    rec.flush()
    (drops,) = out.records("drops")
    assert (drops["count"], drops["total"]) == (16, 16)
    parsed = parse_telemetry(out.lines[-1])
    assert parsed is not None and parsed.event == "drops" and parsed.get_int("count") == 16
    for i in range(20, 30):
        rec.step(i)
    rec.flush()
    assert [d["count"] for d in out.records("drops")] == [16, 5]  # new drops only
    assert out.records("drops")[-1]["total"] == 21


def test_overflow_with_the_writer_thread_blocked() -> None:
    out = GatedOutput()
    rec = Recorder(Identity(), out, queue_size=8, log_interval=1, formats=("autorecover", "nvidia"))
    rec.start(background=True)  # the writer takes the init record and blocks writing it
    try:
        assert out.entered.wait(5)
        for i in range(100):
            rec.step(i)
        assert rec.stats().dropped == 100 - 8
        assert rec.flush(timeout_s=0.05) is False  # the output is stuck: flush times out
    finally:
        out.gate.set()
    assert rec.flush(timeout_s=5.0)
    drops = out.records("drops")
    assert sum(d["count"] for d in drops) == rec.stats().dropped
    assert any(line.startswith("[type=event") and "event.name=drops" in line for line in out.lines)
    rec.close(timeout_s=5.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 20), st.integers(0, 60))
def test_every_record_is_written_or_counted(queue_size: int, steps: int) -> None:
    out = MemoryOutput()
    rec = Recorder(Identity(), out, queue_size=queue_size, log_interval=1)
    rec.start(background=False)
    for i in range(steps):
        rec.step(i)
    rec.flush()
    stats = rec.stats()
    assert stats.submitted + stats.dropped == steps + 1  # + init
    written = len(out.records()) - len(out.records("drops"))
    assert written == 2 * stats.submitted - 1  # a step is two lines (step, summary); init one
    assert sum(d["count"] for d in out.records("drops")) == stats.dropped
    rec.close()


def test_path_size(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"12345")
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f").write_bytes(b"x" * 10)
    assert path_size(str(tmp_path / "a")) == 5
    assert path_size(str(tmp_path / "d")) == 10
    assert path_size(str(tmp_path / "missing")) is None


def test_the_writer_writes_on_its_own_and_early_when_the_queue_fills() -> None:
    """A record wakes no one (the writer renders on a timer, off the training thread's heels),
    yet is written within ``WAKE_S`` with no flush; a burst to half the queue is written
    at once, so nothing is dropped."""
    out = MemoryOutput()
    rec = Recorder(Identity(), out, queue_size=64, log_interval=1, formats=("autorecover",))
    rec.start(background=True)
    try:
        rec.step(1)
        deadline = time.monotonic() + 5 * WAKE_S
        while not out.records("step") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [r["step"] for r in out.records("step")] == [1]
        for i in range(2, 2 + 2 * 64):  # four times half the queue, with no pause
            rec.step(i)
            if i % 16 == 0:
                time.sleep(0.002)  # the writer gets the GIL now and then, as in training
        assert rec.flush(timeout_s=5)
        assert rec.stats().dropped == 0
        assert len(out.records("step")) == 1 + 2 * 64
    finally:
        rec.close()
