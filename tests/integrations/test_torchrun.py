"""Two ranks under ``torchrun --nproc-per-node=2``, DDP on gloo: a crash, a resume, a hang and
a SIGTERM, read back with the project's parser and with job recovery's own reader.

Each case runs ``scripts/ddp_train.py`` (one recorder per rank, ``tel-<rank>.jsonl``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from autorecover.parsing.scanning import Scanner
from autorecover.parsing.telemetry_records import TelemetryRecord

from .reading import records, spans, watched

SCRIPT = Path(__file__).parent / "scripts" / "ddp_train.py"
TIMEOUT_S = 120


def torchrun(tmp: Path, *args: str) -> subprocess.Popen[bytes]:
    """Start the two-rank run; torchrun's own output goes to ``<tmp>/torchrun.log``."""
    for sub in ("out", "ckpt"):
        (tmp / sub).mkdir(exist_ok=True)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node=2", str(SCRIPT), "--out", str(tmp / "out"), "--ckpt",
               str(tmp / "ckpt"), *args]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with (tmp / "torchrun.log").open("ab") as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)


def finished(proc: subprocess.Popen[bytes], tmp: Path) -> int:
    """The exit status of a run left to end by itself (its ranks killed if it does not)."""
    try:
        return proc.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop(proc, tmp)
        pytest.fail(f"torchrun did not finish in {TIMEOUT_S}s")


def stop(proc: subprocess.Popen[bytes], tmp: Path) -> None:
    """Kill the ranks (each ``init`` record names its pid; torchrun starts them in sessions of
    their own), then torchrun, which sees them die."""
    for path in rank_files(tmp):
        for init in complete_records(path) if path.exists() else []:
            if init.event == "init" and (pid := init.get_int("pid")) is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_for(outputs: list[Path], seen: Callable[[list[TelemetryRecord]], bool]) -> None:
    """Poll every rank's output until ``seen`` holds for each (lines still being written are
    skipped: only complete lines are parsed)."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if all(path.exists() and seen(complete_records(path)) for path in outputs):
                return
        except AssertionError:
            pass
        time.sleep(0.2)
    pytest.fail(f"not seen in {TIMEOUT_S}s")


def complete_records(path: Path) -> list[TelemetryRecord]:
    text = path.read_text()
    end = text.rfind("\n") + 1
    if not end:
        return []
    partial = path.with_suffix(".complete")
    partial.write_text(text[:end])
    return records(partial)


def rank_files(tmp: Path) -> list[Path]:
    return [tmp / "out" / f"tel-{rank}.jsonl" for rank in (0, 1)]


def test_a_crash_then_a_resume(tmp_path: Path, scanner: Scanner) -> None:
    assert finished(torchrun(tmp_path, "--fail-at", "7"), tmp_path) != 0
    r0, r1 = rank_files(tmp_path)
    inits = [records(path, "init")[0] for path in (r0, r1)]
    assert [(i.rank, i.get_int("world_size")) for i in inits] == [(0, 2), (1, 2)]
    assert all("torchelastic" in (i.get_str("launcher") or "") for i in inits)
    assert inits[0].get_str("job") == inits[1].get_str("job") is not None  # torchrun's run id
    # the rank that raised wrote its fatal error first; its peer's gloo error follows it
    errors = sorted(records(r0, "error") + records(r1, "error"), key=lambda e: e.ts or 0)
    first = errors[0]
    assert (first.rank, first.error_type, first.error_message, first.step) == (
        1, "RuntimeError", "simulated failure at step 7", 6)  # fmt: skip
    assert first.get_bool("fatal") is True
    crashed = watched(scanner, {"rank-0": r0, "rank-1": r1})
    assert (crashed.checkpoint, crashed.last_step) == (5, 6)

    for path in (r0, r1):  # the second attempt writes files of its own
        path.rename(path.with_suffix(".first"))
    assert finished(torchrun(tmp_path), tmp_path) == 0, (tmp_path / "torchrun.log").read_text()
    for rank, path in enumerate(rank_files(tmp_path)):
        (load,) = spans(path, "checkpoint_load")
        assert (load.rank, load.get_int("iteration"), load.get_bool("ok")) == (rank, 5, True)
        assert [s.step for s in records(path, "step")] == [7, 9, 11, 12]  # steps 6..12
        assert not records(path, "error")
    resumed = watched(scanner, {"rank-0": r0, "rank-1": r1})
    assert (resumed.loaded, resumed.checkpoint, resumed.last_step) == (5, 10, 12)
    assert resumed.loaded_from == str(tmp_path / "ckpt" / "step_00005.pt")


def test_a_hang_writes_every_ranks_stacks(tmp_path: Path, scanner: Scanner) -> None:
    proc = torchrun(tmp_path, "--hang-at", "5", "--steps", "1000", "--hang-after-s", "1")
    try:
        wait_for(rank_files(tmp_path), lambda recs: any(r.event == "hang" for r in recs))
    finally:
        stop(proc, tmp_path)
    r0, r1 = rank_files(tmp_path)
    for path in (r0, r1):
        (hang,) = records(path, "hang")
        assert hang.step == 4
        assert (hang.get_float("idle_s") or 0) >= (hang.get_float("threshold_s") or 1) >= 1.0
    stacks = watched(scanner, {"rank-0": r0, "rank-1": r1}).stacks  # what job recovery reads
    stalled = stacks[("rank-1", 1)].frames
    waiting = stacks[("rank-0", 0)].frames
    assert any(f.function == "stalled_in_data_loading" for f in stalled)
    assert not any("torch/distributed" in f.file for f in stalled)
    # the healthy rank waits in the collective for the stalled one
    assert any(f.function == "all_reduce" and "torch/distributed" in f.file for f in waiting)


def test_sigterm_leaves_a_partial_window_and_a_terminated_record(tmp_path: Path) -> None:
    proc = torchrun(tmp_path, "--steps", "100000", "--slow-s", "0.02", "--log-interval", "50")
    try:
        wait_for(rank_files(tmp_path), lambda recs: any(r.event == "step" for r in recs))
        time.sleep(0.3)  # into the second window
        proc.send_signal(
            signal.SIGTERM
        )  # as Slurm and Kubernetes stop a job; torchrun passes it on
        assert finished(proc, tmp_path) != 0
    finally:
        stop(proc, tmp_path)
    for rank, path in enumerate(rank_files(tmp_path)):
        recs = records(path)
        *_, partial = [r for r in recs if r.event == "summary"]
        assert partial.rank == rank and 0 < (partial.get_int("window") or 0) < 50
        (terminated,) = [r for r in recs if r.event == "terminated"]
        assert (terminated.get_str("signal"), terminated.get_int("signum")) == ("SIGTERM", 15)
        assert terminated.step == partial.step and recs[-1] is terminated
