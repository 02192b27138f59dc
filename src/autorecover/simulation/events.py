"""The event engine: a virtual clock and a queue of timed callbacks, in seconds from the start.

Events at the same time run in the order they were scheduled (a sequence number breaks ties),
so a seeded run is deterministic. The controllers read the same time through `SimClock`, an
implementation of `controllers.ports.Clock`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

START = datetime(2026, 1, 5, 0, 0, tzinfo=UTC)


class SimClock:
    """The virtual clock the real controllers are given (implements `Clock`)."""

    def __init__(self, start: datetime = START) -> None:
        self.start = start
        self.t = 0.0  # seconds since `start`

    def now(self) -> datetime:
        """The current virtual time."""
        return self.start + timedelta(seconds=self.t)

    def at(self, t: float) -> datetime:
        """The datetime of a simulation time."""
        return self.start + timedelta(seconds=t)


class EventQueue:
    """Timed callbacks run in time order; time never goes back."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0
        self.ran = 0

    def at(self, t: float, action: Callable[[], None]) -> None:
        """Run `action` at time `t` (now, if `t` is in the past)."""
        self._seq += 1
        heapq.heappush(self._heap, (max(t, self.clock.t), self._seq, action))

    def after(self, delay_s: float, action: Callable[[], None]) -> None:
        """Run `action` `delay_s` from now."""
        self.at(self.clock.t + max(delay_s, 0.0), action)

    def run(self, until: float, on_step: Callable[[float], None] | None = None) -> None:
        """Run every event up to `until`, then leave the clock there."""
        heap = self._heap
        while heap and heap[0][0] <= until:
            t, _, action = heapq.heappop(heap)
            self.clock.t = t
            action()
            self.ran += 1
            if on_step is not None and not self.ran % 256:
                on_step(t)
        self.clock.t = until

    def __len__(self) -> int:
        return len(self._heap)
