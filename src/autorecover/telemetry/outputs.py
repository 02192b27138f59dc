"""Where lines go: stderr, stdout, a file, any file-like object, or memory (for tests).

Only the writer thread writes to an output. ``MemoryOutput`` is the read-back helper for
tests: it keeps every line and decodes the autorecover ones.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import IO, Any, Protocol, runtime_checkable

from autorecover.telemetry.identity import Identity


@runtime_checkable
class Output(Protocol):
    """The two methods the writer needs from a text stream."""

    def write(self, text: str, /) -> object:
        """Write text (the writer passes whole lines)."""

    def flush(self) -> object:
        """Push buffered text to its destination."""


OutputSpec = str | os.PathLike[str] | Output


class MemoryOutput:
    """Collects lines in memory; ``records()`` decodes the autorecover/1 ones (test helper)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._partial = ""

    def write(self, text: str, /) -> int:
        """Append text; complete lines become entries of ``lines``."""
        with self._lock:
            parts = (self._partial + text).split("\n")
            self._partial = parts.pop()
            self._lines.extend(parts)
        return len(text)

    def flush(self) -> None:
        """Nothing to push; present for the Output protocol."""

    @property
    def lines(self) -> list[str]:
        """A copy of the complete lines written so far."""
        with self._lock:
            return list(self._lines)

    def records(self, event: str | None = None) -> list[dict[str, Any]]:
        """The autorecover/1 lines as dicts, optionally only those of one ``event``."""
        out = []
        for line in self.lines:
            if line.startswith('{"telemetry"'):
                obj = json.loads(line)
                if event is None or obj.get("event") == event:
                    out.append(obj)
        return out

    def nvidia_lines(self) -> list[str]:
        """The NVIDIA ``[type=...]`` lines."""
        return [line for line in self.lines if line.startswith("[type=")]

    def clear(self) -> None:
        """Forget every line written so far."""
        with self._lock:
            self._lines.clear()
            self._partial = ""


def open_output(spec: OutputSpec, identity: Identity) -> tuple[Output, bool]:
    """Resolve ``spec`` to a stream, and whether the recorder owns (and closes) it.

    ``"stderr"`` and ``"stdout"`` are the process's streams at init() time; a path opens a
    file for appending, with ``{rank}``, ``{local_rank}``, ``{node}`` and ``{job}``
    filled in so each rank can have its own file.
    """
    if isinstance(spec, str) and spec in ("stderr", "stdout"):
        return (sys.stderr if spec == "stderr" else sys.stdout), False
    if isinstance(spec, str | os.PathLike):
        text = os.fspath(spec)
        # stray braces in a path that is not a template: use the path as given
        with contextlib.suppress(ValueError, IndexError, AttributeError):
            text = text.format_map(_Placeholders(identity))
        path = Path(text)
        path.parent.mkdir(parents=True, exist_ok=True)
        stream: IO[str] = path.open("a", encoding="utf-8")
        return stream, True
    if callable(getattr(spec, "write", None)):
        return spec, False
    raise TypeError(f"output must be 'stderr', 'stdout', a path or a file-like object: {spec!r}")


class _Placeholders(dict[str, object]):
    """``str.format_map`` source: identity fields by name; unknown names stay as written."""

    def __init__(self, identity: Identity) -> None:
        super().__init__(
            rank=identity.rank,
            local_rank=identity.local_rank,
            node=identity.node or "unknown",
            job=identity.job or "unknown",
            restart=identity.restart_count,
        )

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
