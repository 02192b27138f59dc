"""A one-line progress bar on a text stream (stderr), redrawn only when it moves."""

from __future__ import annotations

from typing import TextIO

WIDTH = 30


class Bar:
    """`update(label, fraction)` as work goes on; `done()` ends the line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._shown = (-1, "")

    def update(self, label: str, fraction: float) -> None:
        """Show how far the run is (0..1) and what it is doing."""
        percent = max(0, min(100, int(fraction * 100)))
        if (percent, label) == self._shown:
            return
        self._shown = (percent, label)
        filled = WIDTH * percent // 100
        bar = "#" * filled + "." * (WIDTH - filled)
        self._stream.write(f"\rsimulating [{bar}] {percent:3d}% {label:<24}")
        self._stream.flush()

    def done(self) -> None:
        """Finish the line."""
        if self._shown[0] >= 0:
            self._stream.write("\n")
            self._stream.flush()
