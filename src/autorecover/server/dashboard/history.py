"""Nodes out of service over time, for the fleet page, kept up from the store's transitions.

Every node starts healthy, so the count out of service at any moment is the running sum of
transitions that leave healthy (+1) and return to it (-1). `OutOfService` reads only the
transitions recorded since its last look (their positions), keeps the count's changes within
the window, and draws them as a small SVG: the most nodes out in each slice of the window, so
an outage of a minute still shows on a day.
"""

from __future__ import annotations

import threading
from collections import deque
from datetime import datetime, timedelta

from autorecover.adapters.store.base import EngineStore
from autorecover.domain.hardware.lifecycle import NodeState

WINDOW = timedelta(hours=24)
SLICES = 96  # 15 minutes each over a day


class OutOfService:
    """The count of nodes out of service, and its changes within `window`."""

    def __init__(self, store: EngineStore, window: timedelta = WINDOW) -> None:
        self._store, self.window = store, window
        self._lock = threading.Lock()
        self._cursor = 0
        self._count = 0
        self._before = 0  # the count when the first kept change happened
        self._changes: deque[tuple[datetime, int, bool]] = deque()  # at, count, a removal

    def update(self, now: datetime) -> None:
        """Read the transitions recorded since the last look; forget changes past the window."""
        with self._lock:
            while True:
                found = self._store.transitions_after(self._cursor, 1000)
                for pos, t in found:
                    self._cursor = pos
                    left, back = t.frm is NodeState.HEALTHY, t.to is NodeState.HEALTHY
                    if left != back:
                        self._count += 1 if left else -1
                        self._changes.append((t.at, self._count, left))
                if len(found) < 1000:
                    break
            while self._changes and self._changes[0][0] < now - self.window:
                self._before = self._changes.popleft()[1]

    def removals(self, since: datetime) -> int:
        """Nodes taken out of service since `since` (within the window), as the breaker
        counts its removals: transitions that left healthy."""
        with self._lock:
            return sum(1 for at, _, left in self._changes if left and at > since)

    def slices(self, now: datetime, n: int = SLICES) -> list[int]:
        """The most nodes out in each of `n` equal slices of the window ending `now`."""
        with self._lock:
            start = now - self.window
            step = self.window / n
            out = [self._before] * n
            level, i = self._before, 0
            for at, count, _ in self._changes:
                if at < start:  # not yet forgotten: it sets the level the window starts at
                    level = out[0] = count
                    continue
                k = min(n - 1, int((at - start) / step))
                while i < k:  # slices with no change hold the level reached before them
                    i += 1
                    out[i] = level
                out[k] = max(out[k], count)
                level = count
            for j in range(i + 1, n):
                out[j] = level
            return out


def sparkline(values: list[int], window: timedelta) -> str:
    """The slices as a bar chart (SVG: no inline style under the CSP)."""
    top = max(values, default=0)
    hours = window.total_seconds() / 3600
    if top == 0:
        return f'<p class="none">No node out of service in the last {hours:g} h.</p>'
    width = 1000 / len(values)
    bars = "".join(
        f'<rect x="{i * width:.1f}" y="{40 - 40 * v / top:.1f}" width="{width * 0.9:.1f}" '
        f'height="{40 * v / top:.1f}"><title>{v}</title></rect>'
        for i, v in enumerate(values)
        if v
    )
    return (
        f'<figure class="spark"><figcaption>Out of service, last {hours:g} h '
        f"(most at once: {top})</figcaption>"
        f'<svg viewBox="0 0 1000 40" preserveAspectRatio="none" role="img" '
        f'aria-label="nodes out of service over time">{bars}</svg></figure>'
    )
