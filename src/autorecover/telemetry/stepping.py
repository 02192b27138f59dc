"""The per-step hot path and the progress state it keeps (the base of ``Recorder``).

``step()`` is the only call made every iteration, so it does almost nothing: a clock read,
a few attribute stores and one slot of a preallocated ring of step intervals. Every
``log_interval`` steps it builds one ``step`` record carrying a ``summary`` and queues it.
Failures are counted and logged once (``_fail``), never raised.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from autorecover.telemetry.records import Record, clean, clean_fields
from autorecover.telemetry.spans import Phase
from autorecover.telemetry.summaries import summarize
from autorecover.telemetry.watchdog import ProgressView

_log = logging.getLogger("autorecover.telemetry")
MAX_PHASES = 32  # distinct phase names; bounds the per-window accumulator
MAX_LOGGED = 64  # distinct failure sites logged once each


class Stepper:
    """Progress state: step intervals, the current window, phases, open checkpoints."""

    def __init__(
        self, log_interval: int, clock: Callable[[], float], wall_clock: Callable[[], float]
    ) -> None:
        if not isinstance(log_interval, int) or log_interval < 1:
            raise ValueError("log_interval must be a positive int")
        self.log_interval = log_interval
        self._clock = clock
        self._wall = wall_clock
        # All preallocated: step() only stores into these.
        self._ring_cap = min(max(log_interval, 64), 4096)
        self._ring = [0.0] * self._ring_cap
        self._intervals = 0  # step intervals seen in total (the ring's write position)
        self._win_k0 = 0  # ... of which before this window
        self._last_step_t: float | None = None
        self._progress_t = self._window_t0 = clock()
        self._window_n = 0
        self._steps_done = 0
        self._iteration: Any = None
        self._samples: Any = 0
        self._tokens: Any = 0
        self._pre_samples: Any = 0  # the very first step's counts, outside any interval
        self._pre_tokens: Any = 0
        self._total_samples: Any = 0
        self._total_tokens: Any = 0
        self._loss: Any = None
        self._phase_totals: dict[str, float] = {}
        self._open_checkpoints = 0
        self._longest_checkpoint_s = 0.0
        self.internal_errors = 0
        self._logged: set[str] = set()

    def step(
        self, iteration: int, samples: Any = None, tokens: Any = None, loss: Any = None
    ) -> None:
        """Record that step ``iteration`` finished (optional samples, tokens, loss)."""
        try:
            now = self._clock()
            last = self._last_step_t
            self._last_step_t = self._progress_t = now
            self._iteration = iteration
            if loss is not None:
                self._loss = loss  # converted only when reported: no device sync per step
            if last is not None:
                k = self._intervals
                self._ring[k % self._ring_cap] = now - last
                self._intervals = k + 1
            else:
                self._window_t0 = now
                self._pre_samples = samples or 0
                self._pre_tokens = tokens or 0
            if samples is not None:
                self._samples += samples
            if tokens is not None:
                self._tokens += tokens
            n = self._window_n + 1
            self._window_n = n
            if n >= self.log_interval:
                self._emit_progress(now)
        except Exception as exc:
            self._fail("step", exc)

    def phase(self, name: str) -> Phase:
        """A per-step phase (``with rec.phase("forward"): ...``), averaged into summaries."""
        return Phase(self, name)

    def _submit(self, record: Record, timeout_s: float = 0.0) -> bool:
        """Queue a record for the writer (the Recorder provides it)."""
        raise NotImplementedError

    def _emit_progress(self, now: float) -> None:
        """Queue the ``step`` record and its ``summary``; start the next window."""
        k, cap = self._intervals, self._ring_cap
        n_int = k - self._win_k0
        m = min(n_int, cap)
        start = (k - m) % cap
        ring = self._ring
        recent = ring[start : start + m] + ring[: max(0, start + m - cap)]
        samples = clean(self._samples - self._pre_samples)
        tokens = clean(self._tokens - self._pre_tokens)
        summary = summarize(
            intervals=recent,
            n_intervals=n_int,
            elapsed_s=now - self._window_t0,
            steps=self._window_n,
            samples=samples if isinstance(samples, int | float) else 0,
            tokens=tokens if isinstance(tokens, int | float) else 0,
            phases=self._phase_totals,
        )
        self._total_samples += self._samples
        self._total_tokens += self._tokens
        fields = {
            "step_time_s": round(ring[(k - 1) % cap], 6) if n_int else None,
            "samples": self._total_samples or None,
            "tokens": self._total_tokens or None,
            "loss": self._loss,
        }
        record = Record(
            "step", self._wall(), clean_fields(fields), step=as_int(self._iteration),
            summary=summary,
        )  # fmt: skip
        self._steps_done += self._window_n
        self._window_n = 0
        self._win_k0 = k
        self._window_t0 = now
        self._samples = self._tokens = self._pre_samples = self._pre_tokens = 0
        self._phase_totals = {}
        self._submit(record)

    def _phase_enter(self) -> float:
        """Start time of a phase (also progress, for the watchdog)."""
        try:
            now = self._progress_t = self._clock()
            return now
        except Exception as exc:
            self._fail("phase", exc)
            return 0.0

    def _phase_exit(self, name: str, t0: float) -> None:
        """Add a phase's duration to this window."""
        try:
            now = self._progress_t = self._clock()
            totals = self._phase_totals
            if name in totals or len(totals) < MAX_PHASES:
                totals[name] = totals.get(name, 0.0) + (now - t0)
        except Exception as exc:
            self._fail("phase", exc)

    def _progress_view(self) -> ProgressView:
        """What the watchdog needs, read without locks (single stores under the GIL)."""
        filled = min(self._intervals, self._ring_cap)
        return ProgressView(
            last_progress_s=self._progress_t,
            steps=self._steps_done + self._window_n,
            iteration=as_int(self._iteration),
            intervals=self._ring[:filled],
            in_checkpoint=self._open_checkpoints > 0,
            longest_checkpoint_s=self._longest_checkpoint_s,
        )

    def _fail(self, where: str, exc: BaseException) -> None:
        """Count a telemetry failure; log the first one of each kind."""
        self.internal_errors += 1
        if where in self._logged or len(self._logged) >= MAX_LOGGED:
            return
        self._logged.add(where)
        with contextlib.suppress(Exception):  # a broken logging setup must not break training
            _log.warning(
                "autorecover.telemetry: %s failed: %r (counted, not logged again)", where, exc
            )


def as_int(value: object) -> int | None:
    """``value`` as an int if it is integer-like (numpy, torch scalars too) but not a bool."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    try:
        return int(value.__index__())  # type: ignore[attr-defined]
    except Exception:  # not integer-like: the record simply has no step
        return None
