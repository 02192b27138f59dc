"""Fixtures for the agent's tests (helpers live in agent/support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.support import Engine
from autorecover.agent.thresholds import Thresholds, load_thresholds


@pytest.fixture(scope="session")
def thresholds() -> Thresholds:
    return load_thresholds()


@pytest.fixture
def engine() -> Iterator[Engine]:
    e = Engine()
    try:
        yield e
    finally:
        e.close()
