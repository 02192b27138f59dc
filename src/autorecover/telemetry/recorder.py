"""The recorder: spans, checkpoints, errors and lifecycle on top of the per-step hot path.

``Stepper`` (stepping.py) holds the hot path; this adds what happens rarely. Every public
method fails open: an exception inside telemetry is counted and logged once, never raised
into the training step. One recorder per process (per rank).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from autorecover.telemetry.encoding import Encoder
from autorecover.telemetry.identity import Identity
from autorecover.telemetry.outputs import Output
from autorecover.telemetry.records import Clean, Record, clean, clean_fields, error_fields
from autorecover.telemetry.spans import Span
from autorecover.telemetry.stepping import Stepper, as_int
from autorecover.telemetry.watchdog import HangPolicy, HangReport, Watchdog
from autorecover.telemetry.writing import Writer

FORMATS = frozenset({"autorecover", "nvidia"})


@dataclass(frozen=True, slots=True)
class RecorderStats:
    """Counters: records queued, lines written, records dropped, failures counted."""

    submitted: int
    written: int
    dropped: int
    write_errors: int
    internal_errors: int
    hangs: int


class Recorder(Stepper):
    """One process's telemetry (one per rank); build it with ``telemetry.init()``."""

    def __init__(
        self,
        identity: Identity,
        output: Output,
        *,
        formats: Iterable[str] = ("autorecover",),
        log_interval: int = 100,
        queue_size: int = 1024,
        hang: HangPolicy | None = None,
        on_hang: Callable[[HangReport], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        owned_output: bool = False,
    ) -> None:
        chosen = (formats,) if isinstance(formats, str) else tuple(dict.fromkeys(formats))
        if not chosen or not FORMATS.issuperset(chosen):
            raise ValueError(f"formats must be a non-empty subset of {sorted(FORMATS)}")
        super().__init__(log_interval, clock, wall_clock)
        self.identity = identity
        self.formats = chosen
        encoder = Encoder(identity, os.getpid())
        renderers = [encoder.autorecover if f == "autorecover" else encoder.nvidia for f in chosen]
        self._writer = Writer(
            output,
            lambda record: [line for render in renderers for line in render(record)],
            self._drops_record,
            self._fail,
            queue_size=queue_size,
            owned=owned_output,
        )
        self._closed = False
        self._close_callbacks: list[Callable[[], None]] = []
        self._terminated_by: str | None = None  # the signal a ``terminated`` record names
        self.watchdog = (
            Watchdog(hang, self._progress_view, self._report_hang, on_hang=on_hang)
            if hang is not None
            else None
        )

    def span(self, name: str, **fields: Any) -> Span:
        """A recorded span (``with rec.span("validation"): ...``) with extra fields."""
        return Span(self, name, fields)

    def checkpoint_save(
        self, path: str | os.PathLike[str] | None = None, *, iteration: int | None = None,
        size_bytes: int | None = None, measure_size: bool = True, **fields: Any,
    ) -> Span:  # fmt: skip
        """A checkpoint-save span; a successful end is the progress marker recovery trusts.

        ``iteration`` defaults to the last step; without ``size_bytes`` the writer thread
        measures ``path`` (file or directory) after the save ends.
        """
        return self._checkpoint("checkpoint_save", path, iteration, size_bytes, measure_size,
                                fields)  # fmt: skip

    def checkpoint_load(
        self, path: str | os.PathLike[str] | None = None, *, iteration: int | None = None,
        size_bytes: int | None = None, measure_size: bool = True, **fields: Any,
    ) -> Span:  # fmt: skip
        """A checkpoint-load span (same fields as ``checkpoint_save``)."""
        return self._checkpoint("checkpoint_load", path, iteration, size_bytes, measure_size,
                                fields)  # fmt: skip

    def error(
        self, exc: BaseException | None = None, *, message: str | None = None,
        uncaught: bool = False, fatal: bool = False, thread: str | None = None,
    ) -> None:  # fmt: skip
        """Record an error: ``exc``, else the exception being handled, else ``message``."""
        try:
            exc = exc if exc is not None else sys.exc_info()[1]
            if exc is not None:
                fields: dict[str, Clean] = error_fields(exc)
                if message:
                    fields["context"] = clean(message)
            else:
                fields = {"type": "Error", "message": clean(message or "error")}
            fields |= {"uncaught": uncaught, "fatal": fatal}
            if thread is not None:
                fields["thread"] = thread
            record = Record("error", self._wall(), fields, step=as_int(self._iteration))
            if fatal or uncaught:
                # the process may be about to die: wait for room, then for the write
                self._writer.submit(record, timeout_s=1.0)
                self._writer.flush(timeout_s=2.0)
            else:
                self._writer.submit(record)
        except Exception as exc2:
            self._fail("error", exc2)

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self, background: bool = True) -> Recorder:
        """Write the ``init`` record; start the writer and watchdog threads if ``background``."""
        ident = self.identity
        fields = {
            "world_size": ident.world_size, "restart_count": ident.restart_count,
            "launcher": ident.launcher, "pid": os.getpid(), "log_interval": self.log_interval,
        }  # fmt: skip
        self._writer.submit(Record("init", self._wall(), clean_fields(fields)))
        if background:
            self._writer.start()
            if self.watchdog is not None:
                self.watchdog.start(self._clock)
        return self

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until every record so far is written (at most ``timeout_s``)."""
        try:
            return self._writer.flush(timeout_s)
        except Exception as exc:
            self._fail("flush", exc)
            return False

    def close(self, timeout_s: float = 5.0) -> None:
        """Report the partial window, stop the threads, write everything; idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._window_n and self._last_step_t is not None:
                self._emit_progress(self._last_step_t)  # the window ends at its last step
            if self.watchdog is not None:
                self.watchdog.stop(timeout_s)
            self._writer.close(timeout_s)
        except Exception as exc:
            self._fail("close", exc)
        for callback in self._close_callbacks:
            try:
                callback()
            except Exception as exc:
                self._fail("close", exc)

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return self._closed

    def stats(self) -> RecorderStats:
        """A snapshot of the counters."""
        w = self._writer
        hangs = self.watchdog.reports if self.watchdog is not None else 0
        return RecorderStats(w.submitted, w.written, w.dropped, w.write_errors,
                             self.internal_errors, hangs)  # fmt: skip

    def __enter__(self) -> Recorder:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        ending = isinstance(exc, SystemExit | GeneratorExit) or self._recorded_by_signal(exc)
        if exc is not None and not ending:
            self.error(exc, fatal=True)  # close() unhooks sys.excepthook, so record it here
        self.close()

    # --- internals ------------------------------------------------------------------------------

    def _terminated(self, signum: int, disposition: str) -> None:
        """A termination signal arrived: the partial window, a ``terminated`` record, flushed.

        Called by the signal handler (signals.py) on a thread of its own while the main thread
        waits; the process may die right after, so this waits for the write.
        """
        try:
            name = _signal_name(signum)
            if disposition != "ignore":
                self._terminated_by = name
            if self._window_n and self._last_step_t is not None:
                self._emit_progress(self._last_step_t)  # the window ends at its last step
            fields = {"signal": name, "signum": signum, "disposition": disposition}
            record = Record("terminated", self._wall(), clean_fields(fields),
                            step=as_int(self._iteration))  # fmt: skip
            self._writer.submit(record, timeout_s=1.0)
            self._writer.flush(timeout_s=2.0)
        except Exception as exc:
            self._fail("terminated", exc)

    def _recorded_by_signal(self, exc: BaseException | None) -> bool:
        """True for the ``KeyboardInterrupt`` of a SIGINT already recorded as ``terminated``."""
        return isinstance(exc, KeyboardInterrupt) and self._terminated_by == "SIGINT"

    def _checkpoint(
        self, name: str, path: str | os.PathLike[str] | None, iteration: int | None,
        size_bytes: int | None, measure: bool, extra: dict[str, Any],
    ) -> Span:  # fmt: skip
        """Build a checkpoint span."""
        fields: dict[str, Any] = dict(extra)
        if path is not None:
            fields["path"] = os.fspath(path)
        fields["iteration"] = iteration if iteration is not None else as_int(self._iteration)
        if size_bytes is not None:
            fields["size_bytes"] = size_bytes
        return Span(self, name, fields, checkpoint=True, measure_size=measure)

    def _span_start(self, span: Span) -> float:
        """Queue ``span_start``; return the start time."""
        try:
            now = self._progress_t = self._clock()
            if span.checkpoint:
                self._open_checkpoints += 1
            fields = clean_fields({"span_id": span.span_id, **span.fields})
            self._writer.submit(Record("span_start", self._wall(), fields, name=span.name))
            return now
        except Exception as exc:
            self._fail("span", exc)
            return self._progress_t

    def _span_end(
        self, span: Span, t0: float | None, ok: bool, error: BaseException | None
    ) -> float | None:
        """Queue ``span_end``; return the duration."""
        try:
            now = self._progress_t = self._clock()
            duration = max(0.0, now - t0) if t0 is not None else 0.0
            if span.checkpoint:
                self._open_checkpoints = max(0, self._open_checkpoints - 1)
                self._longest_checkpoint_s = max(self._longest_checkpoint_s, duration)
            fields = {"span_id": span.span_id, **span.fields, "duration_s": round(duration, 6)}
            fields["ok"] = ok
            if error is not None:
                fields["error"] = type(error).__qualname__
            path = span.fields.get("path")
            measure = span.measure_size and ok and isinstance(path, str)
            record = Record("span_end", self._wall(), clean_fields(fields), name=span.name,
                            size_of=path if measure else None)  # fmt: skip
            self._submit(record)
            return duration
        except Exception as exc:
            self._fail("span", exc)
            return None

    def _report_hang(self, report: HangReport) -> None:
        """Queue a ``hang`` record."""
        fields = {"idle_s": report.idle_s, "threshold_s": report.threshold_s,
                  "in_checkpoint": report.in_checkpoint, "stacks": report.stacks,
                  "collectives": report.collectives,
                  "collectives_error": report.collectives_error}  # fmt: skip
        self._writer.submit(Record("hang", self._wall(), clean_fields(fields), step=report.step))

    def _drops_record(self, count: int, total: int) -> Record:
        """The record reporting ``count`` new drops (``total`` so far)."""
        return Record("drops", self._wall(), {"count": count, "total": total})

    def _disable(self) -> None:
        """Stop writing for good (used in a forked child)."""
        self._closed = True
        self._writer.disable()

    def _submit(self, record: Record, timeout_s: float = 0.0) -> bool:
        """Queue a record for the writer."""
        return self._writer.submit(record, timeout_s)


def _signal_name(signum: int) -> str:
    """``SIGTERM`` for 15; ``signal <n>`` for a number the platform does not name."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
