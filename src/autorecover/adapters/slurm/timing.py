"""Time for the adapter: wall time for records, a monotonic clock and sleep for its waits.

Injected, never read behind the caller's back: tests give a fake whose `sleep` moves time.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Timer(Protocol):
    """`now` for what is recorded; `monotonic` and `sleep` for polling Slurm."""

    def now(self) -> datetime:
        """The current wall time (UTC)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait."""
        ...


class SystemTimer:
    """The real clocks."""

    def now(self) -> datetime:
        """The current wall time (UTC)."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """`time.sleep()`."""
        time.sleep(max(0.0, seconds))
