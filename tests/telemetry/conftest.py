"""Fixtures for the telemetry tests: a fake clock and recorders that write to memory.

Recorders built here run no threads (``background=False``): records wait in the queue
until ``flush()`` writes them on the test's own thread, so nothing can hang a test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from autorecover import telemetry
from autorecover.telemetry import Identity, MemoryOutput, Recorder

from .fakes import WALL_T0, FakeClock, MakeRecorder


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def wall() -> FakeClock:
    return FakeClock(WALL_T0)


@pytest.fixture
def make_recorder(clock: FakeClock, wall: FakeClock) -> Iterator[MakeRecorder]:
    """Build started, thread-less recorders on the fake clocks; closed after the test."""
    made: list[Recorder] = []

    def make(**kwargs: Any) -> tuple[Recorder, MemoryOutput]:
        out = kwargs.pop("output", None) or MemoryOutput()
        identity = kwargs.pop("identity", Identity(job="llm", rank=3, local_rank=1, world_size=8,
                                                   node="gpu-017", restart_count=1,
                                                   launcher="slurm"))  # fmt: skip
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("wall_clock", wall)
        rec = Recorder(identity, out, **kwargs).start(background=False)
        made.append(rec)
        return rec, out

    yield make
    for rec in made:
        rec.close(timeout_s=1.0)


@pytest.fixture(autouse=True)
def _no_active_recorder() -> Iterator[None]:
    """Close whatever ``init()`` left active, so tests do not leak hooks or threads."""
    yield
    active = telemetry.current()
    if active is not None:
        active.close(timeout_s=2.0)
