"""examples/train_plain.py runs, with its stand-in loop and with torch, and its output parses."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from autorecover.parsing.telemetry_records import TelemetryRecord, parse_telemetry

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_plain.py"


TORCH_MISSING = importlib.util.find_spec("torch") is None


def _example(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the example; ``-W error``: a warning (torch's about ``float(loss)``, say) fails it."""
    return subprocess.run(
        [sys.executable, "-W", "error", str(EXAMPLE), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _ours(stderr: str) -> list[TelemetryRecord]:
    records = [parse_telemetry(line) for line in stderr.splitlines()]
    return [r for r in records if r is not None and r.format == "autorecover"]


def _spans(records: list[TelemetryRecord], name: str) -> list[TelemetryRecord]:
    return [r for r in records if r.event == "span_end" and r.name == name]


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(["--stand-in"], id="stand-in"),
        pytest.param([], id="torch", marks=pytest.mark.skipif(
            TORCH_MISSING, reason="torch is not installed in this interpreter (the project's "
            "`training` dependency group adds it); the stand-in case still runs")),
    ],
)  # fmt: skip
def test_example_trains_and_its_telemetry_parses(tmp_path: Path, mode: list[str]) -> None:
    ckpt = tmp_path / "ckpt"
    common = [*mode, "--checkpoint-every", "30", "--checkpoint-dir", str(ckpt)]
    proc = _example(*common, "--steps", "60", "--log-interval", "20",
                    "--formats", "autorecover,nvidia")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"done: {'stand-in' if mode else 'torch'} loop" in proc.stdout
    records = [parse_telemetry(line) for line in proc.stderr.splitlines()]
    ours = _ours(proc.stderr)
    theirs = [r for r in records if r is not None and r.format == "nvidia"]
    assert next(r.event for r in ours) == "init"
    assert [r.step for r in ours if r.event == "step"] == [19, 39, 59]
    summaries = [r for r in ours if r.event == "summary"]
    assert all((r.get_float("steps_per_s") or 0) > 0 for r in summaries)
    assert all(r.get_float("forward_mean_s") is not None for r in summaries)
    losses = [r.get_float("loss") for r in ours if r.event == "step"]
    assert losses[-1] is not None and losses[0] is not None and losses[-1] < losses[0]
    saves = _spans(ours, "checkpoint_save")
    # a checkpoint's iteration is the last step it includes: the last save is at the last step
    assert [(s.get_int("iteration"), s.get_bool("ok")) for s in saves] == [(29, True), (59, True)]
    assert all((s.get_int("size_bytes") or 0) > 0 for s in saves)
    assert {r.event for r in theirs} >= {"step", "span_start", "span_end"}

    # a second run resumes after the last checkpoint's step: it loads iteration 59, goes on at 60
    again = _example(*common, "--steps", "90", "--log-interval", "1")
    assert again.returncode == 0, again.stderr
    resumed = _ours(again.stderr)
    (load,) = _spans(resumed, "checkpoint_load")
    assert (load.get_int("iteration"), load.get_bool("ok")) == (59, True)
    assert load.get_str("path") == str(ckpt / f"step_0000059.{'json' if mode else 'pt'}")
    assert [r.step for r in resumed if r.event == "step"] == list(range(60, 90))
    assert [s.get_int("iteration") for s in _spans(resumed, "checkpoint_save")] == [89]


def test_example_failure_leaves_an_error_record(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    proc = _example("--stand-in", "--steps", "50", "--log-interval", "10", "--fail-at", "25",
                    "--checkpoint-every", "0", "--output", str(out))  # fmt: skip
    assert proc.returncode == 1 and "simulated failure at step 25" in proc.stderr
    records = [parse_telemetry(line) for line in out.read_text().splitlines()]
    assert all(r is not None for r in records)
    (error,) = [r for r in records if r is not None and r.event == "error"]
    assert (error.error_type, error.step) == ("RuntimeError", 24)
    assert [r.step for r in records if r is not None and r.event == "summary"] == [9, 19, 24]
