"""examples/train_plain.py runs (in CI, without torch) and its output parses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autorecover.parsing.telemetry_records import parse_telemetry

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_plain.py"


def _example(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("mode", [["--stand-in"], []], ids=["stand-in", "torch-if-installed"])
def test_example_trains_and_its_telemetry_parses(tmp_path: Path, mode: list[str]) -> None:
    ckpt = tmp_path / "ckpt"
    args = [*mode, "--steps", "60", "--log-interval", "20", "--checkpoint-every", "30",
            "--checkpoint-dir", str(ckpt), "--formats", "autorecover,nvidia"]  # fmt: skip
    proc = _example(*args)
    assert proc.returncode == 0, proc.stderr
    assert "done: " in proc.stdout
    records = [parse_telemetry(line) for line in proc.stderr.splitlines()]
    ours = [r for r in records if r is not None and r.format == "autorecover"]
    theirs = [r for r in records if r is not None and r.format == "nvidia"]
    assert next(r.event for r in ours) == "init"
    assert [r.step for r in ours if r.event == "step"] == [19, 39, 59]
    summaries = [r for r in ours if r.event == "summary"]
    assert all((r.get_float("steps_per_s") or 0) > 0 for r in summaries)
    assert all(r.get_float("forward_mean_s") is not None for r in summaries)
    losses = [r.get_float("loss") for r in ours if r.event == "step"]
    assert losses[-1] is not None and losses[0] is not None and losses[-1] < losses[0]
    saves = [r for r in ours if r.event == "span_end" and r.name == "checkpoint_save"]
    assert [(s.get_int("iteration"), s.get_bool("ok")) for s in saves] == [(30, True), (60, True)]
    assert all((s.get_int("size_bytes") or 0) > 0 for s in saves)
    assert {r.event for r in theirs} >= {"step", "span_start", "span_end"}

    # a second run resumes from the last checkpoint: a load span, no steps left to do
    again = _example(*args)
    assert again.returncode == 0, again.stderr
    loads = [r for line in again.stderr.splitlines() if (r := parse_telemetry(line))
             and r.event == "span_end" and r.name == "checkpoint_load"]  # fmt: skip
    assert len(loads) == 2 and loads[0].get_bool("ok") is True  # one per format


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
