"""Bounded waiting for tests against real systems (Slurm, Kubernetes): poll, never hang."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait(check: Callable[[], T | None], what: str, timeout_s: float = 20.0,
         poll_s: float = 0.05) -> T:  # fmt: skip
    """Poll `check` until it returns something other than None/False; bounded."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got is not None and got is not False:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} after {timeout_s:.0f} s")
        time.sleep(poll_s)
