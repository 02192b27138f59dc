"""Context managers on the recorder: per-step phases (summarised) and spans (recorded).

A ``Phase`` (data loading, forward, backward, optimizer) runs every step, so it only adds
its duration to the recorder's window; the next summary carries the per-step mean. A
``Span`` (validation, checkpoint save/load, anything rare) writes ``span_start`` and
``span_end`` records. Neither ever swallows the exception of the block it wraps, and
neither raises one of its own.
"""

from __future__ import annotations

import uuid
from types import TracebackType
from typing import Any, Protocol

# What a phase and a span need of the recorder, named here so that this module imports
# neither ``stepping`` nor ``recorder``, which both import it.


class PhaseWindow(Protocol):
    """Where a phase's duration goes: the recorder's per-step window (``Stepper``)."""

    def _phase_enter(self) -> float: ...

    def _phase_exit(self, name: str, t0: float) -> None: ...


class SpanWriter(Protocol):
    """What writes a span's records: the recorder (``Recorder``)."""

    def _span_start(self, span: Span) -> float: ...

    def _span_end(
        self, span: Span, t0: float | None, ok: bool, error: BaseException | None
    ) -> float | None: ...


class Phase:
    """Times one per-step phase; see ``Recorder.phase``."""

    __slots__ = ("_name", "_rec", "_t0")

    def __init__(self, recorder: PhaseWindow, name: str) -> None:
        self._rec = recorder
        self._name = name
        self._t0 = 0.0

    def __enter__(self) -> Phase:
        self._t0 = self._rec._phase_enter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._rec._phase_exit(self._name, self._t0)


class Span:
    """A recorded span: ``with`` it, or call ``start()`` and ``end()`` (from any thread).

    ``set(**fields)`` adds fields before the end record (say, ``size_bytes`` once a
    checkpoint is written). ``end`` is idempotent.
    """

    def __init__(
        self,
        recorder: SpanWriter,
        name: str,
        fields: dict[str, Any],
        *,
        checkpoint: bool = False,
        measure_size: bool = False,
    ) -> None:
        self.name = name
        self.fields = fields
        self.span_id = str(uuid.uuid4())
        self.checkpoint = checkpoint
        self.measure_size = measure_size
        self.duration_s: float | None = None
        self._rec = recorder
        self._t0: float | None = None
        self._ended = False

    def start(self) -> Span:
        """Write the ``span_start`` record (once)."""
        if self._t0 is None:
            self._t0 = self._rec._span_start(self)
        return self

    def set(self, **fields: Any) -> Span:
        """Add or replace fields of the end record."""
        self.fields.update(fields)
        return self

    def end(self, ok: bool = True, error: BaseException | None = None, **fields: Any) -> None:
        """Write the ``span_end`` record with its duration (once); ``ok`` False on failure."""
        if self._ended:
            return
        self._ended = True
        self.fields.update(fields)
        t0 = self.start()._t0
        self.duration_s = self._rec._span_end(self, t0, ok and error is None, error)

    def __enter__(self) -> Span:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.end(ok=exc is None, error=exc)
