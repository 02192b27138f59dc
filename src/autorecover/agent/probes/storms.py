"""Storm folding: thousands of identical signals within a window become one signal with a count.

Identical means the same signal on the same component from the same probe (the XID number and
the GPU, say), whatever the line's text. The first occurrence goes out at once, because
hardware recovery should not wait for a storm to end; occurrences within the window after it
are counted, and when the window closes one more signal carries their count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.domain.signals import NodeSignal, Probe

StormKey = tuple[Probe, str, str | None]


@dataclass(slots=True)
class _Storm:
    opened: datetime
    suppressed: int = 0
    latest: NodeSignal | None = None


class StormFolder:
    """Folds identical signals: one within a poll, one summary per window across polls."""

    def __init__(self, window_s: float = 60.0) -> None:
        self.window_s = window_s
        self._storms: dict[StormKey, _Storm] = {}

    def fold(self, signals: Iterable[NodeSignal], now: datetime) -> list[NodeSignal]:
        """Signals to send now: identical ones merged, those inside an open window held back."""
        batch: dict[StormKey, NodeSignal] = {}
        for sig in signals:
            key = (sig.probe, sig.signal, sig.component)
            seen = batch.get(key)
            batch[key] = sig if seen is None else replace(seen, count=seen.count + sig.count)
        out: list[NodeSignal] = []
        for key, sig in batch.items():
            storm = self._storms.get(key)
            if storm is not None and self._open(storm, now):
                storm.suppressed += sig.count
                storm.latest = sig
                continue
            self._storms[key] = _Storm(opened=now)
            out.append(sig)
        return out

    def flush(self, now: datetime) -> list[NodeSignal]:
        """One signal per closed window that held occurrences back, with their count."""
        out: list[NodeSignal] = []
        for key, storm in list(self._storms.items()):
            if self._open(storm, now):
                continue
            del self._storms[key]
            if storm.latest is not None and storm.suppressed:
                note = ("storm", f"{storm.suppressed} more within {self.window_s:g} s")
                out.append(
                    replace(
                        storm.latest,
                        count=storm.suppressed,
                        details=(*storm.latest.details, note),
                    )
                )
        return out

    def _open(self, storm: _Storm, now: datetime) -> bool:
        return (now - storm.opened).total_seconds() < self.window_s
