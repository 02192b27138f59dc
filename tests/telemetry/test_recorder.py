"""The recorder on a fake clock: summaries, phases, spans, checkpoints, errors, failing open."""

from __future__ import annotations

import io
import logging
import math
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover import telemetry
from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.telemetry import Identity, MemoryOutput, Recorder

from .fakes import FakeClock, MakeRecorder


def _run(rec: Recorder, clock: FakeClock, steps: int, dt: float, **kw: object) -> None:
    for i in range(steps):
        clock.advance(dt)
        rec.step(i, **kw)  # type: ignore[arg-type]


def test_summary_numbers(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    rec, out = make_recorder(log_interval=10)
    _run(rec, clock, 20, 0.5, tokens=100, samples=4)
    rec.flush()
    steps, summaries = out.records("step"), out.records("summary")
    assert [s["step"] for s in steps] == [9, 19] and [s["step"] for s in summaries] == [9, 19]
    first, second = summaries
    # the first window has 9 intervals (the first step has no predecessor), later ones 10
    assert (first["window"], second["window"]) == (9, 10)
    for summary in summaries:
        assert summary["steps_per_s"] == 2.0 and summary["step_time_mean_s"] == 0.5
        assert summary["step_time_p99_s"] == 0.5
        assert summary["tokens_per_s"] == 200.0 and summary["samples_per_s"] == 8.0
    assert steps[1]["tokens"] == 2000 and steps[1]["samples"] == 80  # totals since init
    assert steps[1]["step_time_s"] == 0.5


def test_p99_sees_the_slow_steps(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    rec, out = make_recorder(log_interval=101)
    rec.step(0)
    for i in range(1, 101):
        clock.advance(5.0 if i in (30, 60) else 0.5)
        rec.step(i)
    rec.flush()
    (summary,) = out.records("summary")
    assert summary["window"] == 100 and summary["step_time_p99_s"] == 5.0
    assert summary["step_time_mean_s"] == pytest.approx(0.59)


@settings(max_examples=50)
@given(st.lists(st.floats(0.001, 100.0), min_size=2, max_size=300), st.integers(1, 50))
def test_window_accounting(intervals: list[float], log_interval: int) -> None:
    clock = FakeClock()
    out = MemoryOutput()
    rec = Recorder(Identity(), out, log_interval=log_interval, clock=clock, wall_clock=clock)
    rec.start(background=False)
    rec.step(0)
    for i, dt in enumerate(intervals, start=1):
        clock.advance(dt)
        rec.step(i)
    rec.close()
    summaries = out.records("summary")
    assert sum(s["window"] for s in summaries) == len(intervals)  # every interval, once
    assert summaries[-1]["step"] == len(intervals)
    for s in summaries:
        if s["window"]:
            assert s["step_time_p99_s"] <= max(intervals) * 1.00001  # 6 significant digits
            assert s["steps_per_s"] > 0


def test_phases_are_averaged_per_step(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    rec, out = make_recorder(log_interval=4)
    for i in range(4):
        with rec.phase("data_loading"):
            clock.advance(0.1)
        with rec.phase("forward"):
            clock.advance(0.2)
        with rec.phase("forward"):  # a second forward in the same step adds up
            clock.advance(0.2)
        rec.step(i)
    rec.flush()
    (summary,) = out.records("summary")
    assert summary["data_loading_mean_s"] == pytest.approx(0.1)
    assert summary["forward_mean_s"] == pytest.approx(0.4)


def test_phase_never_swallows_the_exception(make_recorder: MakeRecorder) -> None:
    rec, _ = make_recorder()
    with pytest.raises(KeyError), rec.phase("forward"):
        raise KeyError("x")


def test_loss_conversion(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    class Tensor:
        def __float__(self) -> float:
            return 1.25

    rec, out = make_recorder(log_interval=1)
    rec.step(0, loss=Tensor())
    rec.step(1, loss=math.nan)
    rec.flush()
    assert [s["loss"] for s in out.records("step")] == [1.25, "nan"]


def test_span(make_recorder: MakeRecorder, clock: FakeClock) -> None:
    rec, out = make_recorder()
    with rec.span("validation", epoch=2) as span:
        clock.advance(3.0)
        span.set(val_loss=0.5)
    with pytest.raises(ZeroDivisionError), rec.span("validation"):
        clock.advance(1.0)
        _ = 1 / 0
    rec.flush()
    starts, ends = out.records("span_start"), out.records("span_end")
    assert [s["name"] for s in starts] == ["validation", "validation"]
    assert starts[0]["epoch"] == 2 and starts[0]["span_id"] == ends[0]["span_id"]
    assert (ends[0]["duration_s"], ends[0]["ok"], ends[0]["val_loss"]) == (3.0, True, 0.5)
    assert (ends[1]["ok"], ends[1]["error"], ends[1]["duration_s"]) == (
        False, "ZeroDivisionError", 1.0)  # fmt: skip


def test_span_started_and_ended_by_hand_from_another_thread(make_recorder: MakeRecorder) -> None:
    rec, out = make_recorder()
    span = rec.checkpoint_save("/ckpt/x", iteration=5).start()
    worker = threading.Thread(target=span.end, kwargs={"size_bytes": 10}, daemon=True)
    worker.start()
    worker.join(5)
    span.end()  # idempotent
    rec.flush()
    (end,) = out.records("span_end")
    assert (end["name"], end["size_bytes"], end["iteration"], end["ok"]) == (
        "checkpoint_save", 10, 5, True)  # fmt: skip


def test_checkpoint_size_is_measured_off_the_training_thread(
    make_recorder: MakeRecorder, clock: FakeClock, tmp_path: Path
) -> None:
    rec, out = make_recorder()
    rec.step(41)
    ckpt = tmp_path / "step_42"
    with rec.checkpoint_save(ckpt):
        ckpt.mkdir()
        (ckpt / "model.pt").write_bytes(b"x" * 1000)
        (ckpt / "sub").mkdir()
        (ckpt / "sub" / "optim.pt").write_bytes(b"y" * 24)
        clock.advance(12.5)
    file = tmp_path / "single.pt"
    with rec.checkpoint_load(file, iteration=7):
        file.write_bytes(b"z" * 5)
    with pytest.raises(OSError), rec.checkpoint_save(tmp_path / "failed"):
        raise OSError("disk full")
    rec.flush()
    save, load, failed = out.records("span_end")
    assert (save["name"], save["size_bytes"], save["iteration"], save["duration_s"]) == (
        "checkpoint_save", 1024, 41, 12.5)  # fmt: skip
    assert (load["name"], load["size_bytes"], load["iteration"]) == ("checkpoint_load", 5, 7)
    assert failed["ok"] is False and "size_bytes" not in failed


def test_error_records(make_recorder: MakeRecorder) -> None:
    rec, out = make_recorder()
    rec.step(3)
    rec.error(ValueError("explicit"))
    try:
        raise KeyError("handled")
    except KeyError:
        rec.error(message="while loading")
    rec.error(message="plain message")
    rec.flush()
    explicit, handled, plain = out.records("error")
    assert (explicit["type"], explicit["message"], explicit["step"]) == ("ValueError",
                                                                       "explicit", 3)  # fmt: skip
    assert handled["type"] == "KeyError" and handled["context"] == "while loading"
    assert "raise KeyError" in handled["traceback"]
    assert (plain["type"], plain["message"]) == ("Error", "plain message")
    assert explicit["uncaught"] is False and explicit["fatal"] is False


def test_fails_open(make_recorder: MakeRecorder, caplog: pytest.LogCaptureFixture) -> None:
    rec, _ = make_recorder(log_interval=1)
    with caplog.at_level(logging.WARNING, logger="autorecover.telemetry"):
        rec.step(0, tokens="many")  # type: ignore[arg-type]
        rec.step(1, tokens=object())
        rec.step(2, tokens=object())
    assert rec.stats().internal_errors >= 2
    assert len([r for r in caplog.records if "step failed" in r.getMessage()]) == 1  # logged once


def test_broken_output_is_counted_not_raised(make_recorder: MakeRecorder) -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("no space left on device")

    rec, _ = make_recorder(output=Broken(), log_interval=1)
    rec.step(0)
    rec.error(message="x")
    assert rec.flush() is True
    assert rec.stats().write_errors >= 1


def test_close_reports_the_partial_window_once(
    make_recorder: MakeRecorder, clock: FakeClock
) -> None:
    rec, out = make_recorder(log_interval=100)
    _run(rec, clock, 5, 1.0)
    clock.advance(500)  # time after the last step is not part of the window
    rec.close()
    rec.close()
    (summary,) = out.records("summary")
    assert summary["window"] == 4 and summary["steps_per_s"] == 1.0
    rec.step(6)
    rec.error(message="after close")
    assert len(out.records()) == 3  # init, step, summary


def test_memory_output_helpers() -> None:
    out = MemoryOutput()
    out.write('{"telemetry":"autorecover/1","event":"a"}\n[type=event | x=1]\npart')
    assert out.records("a") == [{"telemetry": "autorecover/1", "event": "a"}]
    assert out.nvidia_lines() == ["[type=event | x=1]"] and len(out.lines) == 2
    out.clear()
    assert out.lines == []


def test_invalid_arguments_raise_at_construction() -> None:
    with pytest.raises(ValueError, match="formats"):
        Recorder(Identity(), MemoryOutput(), formats=("otlp",))
    with pytest.raises(ValueError, match="log_interval"):
        Recorder(Identity(), MemoryOutput(), log_interval=0)
    with pytest.raises(TypeError):
        telemetry.init(output=42, install_hooks=False, background=False)  # type: ignore[arg-type]


def test_init_file_output_per_rank(tmp_path: Path) -> None:
    rec = telemetry.init(
        output=tmp_path / "tel" / "rank{rank}-{job}.jsonl", env={"SLURM_JOB_ID": "9",
        "SLURM_PROCID": "4"}, formats=("autorecover", "nvidia"), hang=None, log_interval=2,
    )  # fmt: skip
    assert telemetry.current() is rec
    for i in range(4):
        rec.step(i)
    rec.close()
    assert telemetry.current() is None
    lines = (tmp_path / "tel" / "rank4-9.jsonl").read_text().splitlines()
    parsed = [parse_telemetry(line) for line in lines]
    assert all(p is not None for p in parsed)
    events = [(p.format, p.event) for p in parsed if p is not None]
    assert events.count(("autorecover", "summary")) == 2 and ("nvidia", "step") in events


def test_unwritable_path_falls_back_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    rec = telemetry.init(output=blocker / "x.jsonl", env={}, hang=None, background=False,
                         install_hooks=False)  # fmt: skip
    rec.close()
    assert '"event":"init"' in capsys.readouterr().err


def test_stdout_output(capsys: pytest.CaptureFixture[str]) -> None:
    rec = telemetry.init(output="stdout", env={}, hang=None, background=False,
                         install_hooks=False)  # fmt: skip
    rec.close()
    assert '"event":"init"' in capsys.readouterr().out


def test_init_replaces_the_previous_recorder() -> None:
    first = telemetry.init(output=MemoryOutput(), env={}, hang=None, background=False)
    second = telemetry.init(output=MemoryOutput(), env={}, hang=None, background=False)
    assert first.closed and not second.closed and telemetry.current() is second
    second.close()


def test_hooks_are_restored_on_close() -> None:
    before_sys, before_thread = sys.excepthook, threading.excepthook
    rec = telemetry.init(output=MemoryOutput(), env={}, hang=None, background=False)
    assert sys.excepthook is not before_sys and threading.excepthook is not before_thread
    rec.close()
    assert sys.excepthook is before_sys and threading.excepthook is before_thread


def test_context_manager_records_the_escaping_exception() -> None:
    out = MemoryOutput()
    with pytest.raises(RuntimeError), telemetry.init(output=out, env={}, hang=None,
                                                     background=False):  # fmt: skip
        raise RuntimeError("escaped")
    (err,) = out.records("error")
    assert (err["type"], err["message"], err["fatal"]) == ("RuntimeError", "escaped", True)


def test_background_threads_write_and_stop() -> None:
    out = MemoryOutput()
    rec = telemetry.init(output=out, env={}, log_interval=1, install_hooks=False)
    rec.step(0)
    assert rec.flush(timeout_s=5.0)
    assert [r["event"] for r in out.records()][:2] == ["init", "step"]
    assert rec.watchdog is not None and rec.watchdog.running
    rec.close(timeout_s=5.0)
    assert not rec.watchdog.running
    names = {t.name for t in threading.enumerate()}
    assert "autorecover-telemetry-writer" not in names


def test_integer_like_iteration(make_recorder: MakeRecorder) -> None:
    class Int64:  # like numpy.int64: not an int subclass, but has __index__
        def __index__(self) -> int:
            return 12

    rec, out = make_recorder(log_interval=1)
    rec.step(Int64())  # type: ignore[arg-type]
    rec.step("not a number")  # type: ignore[arg-type]
    rec.flush()
    assert [r.get("step") for r in out.records("step")] == [12, None]


def test_path_with_stray_braces_is_used_as_given(tmp_path: Path) -> None:
    rec = telemetry.init(output=tmp_path / "a{b.jsonl", env={}, hang=None, background=False,
                         install_hooks=False)  # fmt: skip
    rec.close()
    assert '"event":"init"' in (tmp_path / "a{b.jsonl").read_text()
