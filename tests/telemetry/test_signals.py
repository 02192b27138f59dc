"""SIGTERM and SIGINT: the partial window and a ``terminated`` record, then the old handler.

The process cases run a training loop in a fresh interpreter, send it the signal the way a
launcher would (``Popen.send_signal``) once it has stepped, and read what it left behind.
The in-process cases check installing and restoring on the test's own (main) thread.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover import telemetry
from autorecover.parsing.telemetry_records import TelemetryRecord, parse_telemetry
from autorecover.telemetry import MemoryOutput

TIMEOUT_S = 60
LOOP = """
    import signal, sys, time
    from pathlib import Path
    from autorecover import telemetry

    out, mode = sys.argv[1], sys.argv[2]
    def previous(signum, frame):
        print("PREVIOUS HANDLER", signum, flush=True)
        sys.exit(3)
    def later(signum, frame):
        print("LATER HANDLER", signum, flush=True)
        sys.exit(4)

    if mode == "previous":
        signal.signal(signal.SIGTERM, previous)
    elif mode == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    def train(rec):
        if mode == "later":
            signal.signal(signal.SIGTERM, later)
        elif mode == "wrapped":  # as Lightning's Trainer composes the SIGTERM handler it finds
            ours = signal.getsignal(signal.SIGTERM)
            def wrapper(signum, frame):
                ours(signum, frame)
                print("WRAPPER: shutting down my way", flush=True)
            signal.signal(signal.SIGTERM, wrapper)
        for i in range(25):
            rec.step(i, samples=4)
        print("ready", flush=True)
        deadline = time.monotonic() + 30
        while not Path(out + ".go-on").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        for i in range(25, 28):  # still alive (the signal was ignored): training goes on
            rec.step(i, samples=4)
        print("went on", flush=True)

    settings = dict(output=out, formats=("autorecover", "nvidia"), env={}, job="j7",
                    restart_count=2, log_interval=10, hang=None)
    if mode == "with":  # the block's exit sees the exception before sys.excepthook does
        with telemetry.init(**settings) as rec:
            train(rec)
    else:
        train(telemetry.init(**settings))
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "loop.py"
    path.write_text(textwrap.dedent(LOOP))
    return path


def _default_sigint() -> None:
    """A shell without job control starts its background jobs with SIGINT ignored, and Python
    then leaves it ignored (no KeyboardInterrupt): the loop gets the default a terminal gives."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _signalled(script: Path, out: Path, mode: str, signum: int) -> subprocess.Popen[str]:
    """Start the loop, wait until it has stepped 25 times, send ``signum``."""
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out), mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signum)
    return proc


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    return proc.returncode, stdout, stderr


def _records(path: Path) -> list[TelemetryRecord]:
    records = [parse_telemetry(line) for line in path.read_text().splitlines()]
    assert all(r is not None for r in records), path.read_text()
    return [r for r in records if r is not None]


def _ours(records: list[TelemetryRecord], event: str) -> list[TelemetryRecord]:
    return [r for r in records if r.format == "autorecover" and r.event == event]


def _assert_terminated(records: list[TelemetryRecord], name: str, disposition: str) -> None:
    """The partial window (steps 20-24) comes first, then one ``terminated`` at step 24."""
    assert [r.step for r in _ours(records, "summary")][:3] == [9, 19, 24]
    (term,) = _ours(records, "terminated")
    assert (term.get_str("signal"), term.get_int("signum")) == (name, signal.Signals[name].value)
    assert (term.step, term.rank, term.get_str("job"), term.get_int("restart")) == (24, 0, "j7", 2)
    assert term.get_str("node") and term.ts is not None
    assert term.get_str("disposition") == disposition
    order = [(r.event, r.step) for r in records if r.format == "autorecover"]
    assert order.index(("summary", 24)) < order.index(("terminated", 24))
    (theirs,) = [r for r in records if r.format == "nvidia" and r.event == "terminated"]
    assert theirs.get("event.metrics.signal") == name


def test_sigterm_with_the_default_handler_writes_then_dies_of_sigterm(
    script: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    rc, _, stderr = _finish(_signalled(script, out, "default", signal.SIGTERM))
    assert rc == -signal.SIGTERM, stderr  # the exit status still says "killed by SIGTERM"
    records = _records(out)
    _assert_terminated(records, "SIGTERM", "default")
    assert _ours(records, "error") == []


def test_sigterm_chains_to_the_handler_it_replaced(script: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    rc, stdout, stderr = _finish(_signalled(script, out, "previous", signal.SIGTERM))
    assert rc == 3, stderr  # the program's own handler ran and chose the exit status
    assert "PREVIOUS HANDLER 15" in stdout
    records = _records(out)
    _assert_terminated(records, "SIGTERM", "handler")
    # its sys.exit ran the interpreter's exit: the recorder closed, nothing written twice
    assert [r.step for r in _ours(records, "summary")] == [9, 19, 24]


def _going_on(script: Path, out: Path, mode: str) -> tuple[int, str, str]:
    """SIGTERM, wait for its record, let the loop go on; what the process said at the end."""
    proc = _signalled(script, out, mode, signal.SIGTERM)
    deadline = time.monotonic() + TIMEOUT_S
    while '"event":"terminated"' not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.01)
    Path(f"{out}.go-on").touch()
    return _finish(proc)


def test_ignored_sigterm_is_recorded_and_stays_ignored(script: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    rc, stdout, stderr = _going_on(script, out, "ignore")
    assert rc == 0 and "went on" in stdout, stderr
    records = _records(out)
    _assert_terminated(records, "SIGTERM", "ignore")
    # the loop went on after the signal; exit reported the rest of the window
    assert [r.step for r in _ours(records, "summary")] == [9, 19, 24, 27]


@pytest.mark.parametrize("mode", ["default", "with"])
def test_sigint_raises_keyboard_interrupt_as_before(
    script: Path, tmp_path: Path, mode: str
) -> None:
    out = tmp_path / "t.jsonl"
    rc, _, stderr = _finish(_signalled(script, out, mode, signal.SIGINT))
    assert "KeyboardInterrupt" in stderr
    assert rc == -signal.SIGINT, stderr  # Python's exit status for an unhandled Ctrl-C
    records = _records(out)
    _assert_terminated(records, "SIGINT", "default")
    assert _ours(records, "error") == []  # the KeyboardInterrupt is the termination, said once


def test_a_handler_installed_after_init_replaces_ours(script: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    rc, stdout, stderr = _finish(_signalled(script, out, "later", signal.SIGTERM))
    assert rc == 4 and "LATER HANDLER 15" in stdout, stderr
    records = _records(out)
    assert _ours(records, "terminated") == []  # bypassed, as documented
    assert [r.step for r in _ours(records, "summary")] == [9, 19, 24]  # by the exit close


def test_a_later_handler_that_calls_ours_decides_what_follows(script: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    rc, stdout, stderr = _going_on(script, out, "wrapped")
    # ours replaced the default, which the wrapper could not have called: no kill from us
    assert rc == 0 and "WRAPPER: shutting down my way" in stdout and "went on" in stdout, stderr
    records = _records(out)
    _assert_terminated(records, "SIGTERM", "handler")
    assert [r.step for r in _ours(records, "summary")] == [9, 19, 24, 27]


@pytest.fixture
def restored() -> Iterator[None]:
    """Whatever a test does, SIGTERM and SIGINT end up as they were."""
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def _init(**kwargs: object) -> telemetry.Recorder:
    return telemetry.init(output=MemoryOutput(), env={}, hang=None, background=False,
                          install_hooks=False, **kwargs)  # type: ignore[arg-type]  # fmt: skip


@pytest.mark.usefixtures("restored")
def test_installed_once_across_inits_and_restored_on_close() -> None:
    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not called here")

    signal.signal(signal.SIGTERM, mine)
    before_int = signal.getsignal(signal.SIGINT)
    first = _init()
    assert signal.getsignal(signal.SIGTERM) is not mine
    second = _init()  # closes the first, which puts `mine` back before the second wraps it
    assert first.closed
    ours = signal.getsignal(signal.SIGTERM)
    assert isinstance(ours, types.MethodType)  # the second recorder's, chained to `mine`
    assert ours.__self__._previous == {signal.SIGTERM: mine, signal.SIGINT: before_int}
    second.close()
    assert signal.getsignal(signal.SIGTERM) is mine
    assert signal.getsignal(signal.SIGINT) is before_int


@pytest.mark.usefixtures("restored")
def test_opt_out_and_other_threads_install_nothing(caplog: pytest.LogCaptureFixture) -> None:
    before = signal.getsignal(signal.SIGTERM)
    _init(handle_signals=False).close()
    assert signal.getsignal(signal.SIGTERM) is before
    caplog.set_level("DEBUG", logger="autorecover.telemetry")
    made: list[telemetry.Recorder] = []
    worker = threading.Thread(target=lambda: made.append(_init()))
    worker.start()
    worker.join(10)
    assert made and signal.getsignal(signal.SIGTERM) is before
    assert "outside the main thread" in caplog.text
    made[0].close()
