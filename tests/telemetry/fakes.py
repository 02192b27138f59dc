"""Fakes shared by the telemetry tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from autorecover.telemetry import MemoryOutput, Recorder

WALL_T0 = datetime(2026, 3, 4, 2, 14, 29, tzinfo=UTC).timestamp()


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


MakeRecorder = Callable[..., tuple[Recorder, MemoryOutput]]
