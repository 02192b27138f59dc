"""Fixtures for the real-library tests: a recorder writing to a file, closed after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from autorecover import telemetry

MakeRecorder = Callable[..., telemetry.Recorder]


@pytest.fixture
def file_recorder(tmp_path: Path) -> Iterator[MakeRecorder]:
    """Recorders writing autorecover lines to a file under ``tmp_path``; no process hooks and
    no signal handlers (pytest keeps its own)."""
    made: list[telemetry.Recorder] = []

    def make(name: str = "tel.jsonl", **kwargs: Any) -> telemetry.Recorder:
        kwargs.setdefault("hang", None)
        rec = telemetry.init(
            output=str(tmp_path / name), env={}, install_hooks=False, handle_signals=False, **kwargs
        )
        made.append(rec)
        return rec

    yield make
    for rec in made:
        rec.close(timeout_s=2.0)
