"""The hang watchdog: notices when a rank stops making progress, and says where it is stuck.

The decision is ``HangPolicy.threshold_s`` (pure) and ``Watchdog.check(now)`` (one pass,
driven by whatever clock the caller has): tests call ``check`` with a fake clock and never
sleep; the background thread calls it every ``poll_s``. One record per stall: after a hang
is reported the watchdog stays quiet until progress re-arms it. Besides every thread's stack,
a report carries PyTorch's flight-recorder summary where torch runs with it
(``flight_recorder.py``).
"""

from __future__ import annotations

import logging
import math
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from autorecover.telemetry.flight_recorder import Collectives, read_collectives
from autorecover.telemetry.records import Clean

_log = logging.getLogger("autorecover.telemetry")
MAX_STACK_CHARS = 400_000  # all threads together; a hang line must stay well under 1 MB


@dataclass(frozen=True, slots=True)
class HangPolicy:
    """How long silence must last before it is a hang.

    The threshold is ``factor`` times the p99 of recent step intervals, never below
    ``floor_s``; at least ``warmup_s`` until ``warmup_steps`` steps have been seen (model
    load, compilation, first batches); at least ``checkpoint_s`` and ``checkpoint_factor``
    times the longest checkpoint so far while a checkpoint span is open.
    """

    floor_s: float = 120.0
    factor: float = 10.0
    warmup_s: float = 1800.0
    warmup_steps: int = 10
    checkpoint_s: float = 1800.0
    checkpoint_factor: float = 3.0
    poll_s: float = 5.0

    def threshold_s(self, view: ProgressView) -> float:
        """The silence, in seconds, after which ``view`` counts as hung."""
        threshold = max(self.floor_s, self.factor * p99(view.intervals))
        if view.steps < self.warmup_steps:
            threshold = max(threshold, self.warmup_s)
        if view.in_checkpoint:
            longest = self.checkpoint_factor * view.longest_checkpoint_s
            threshold = max(threshold, self.checkpoint_s, longest)
        return threshold


@dataclass(frozen=True, slots=True)
class ProgressView:
    """What the recorder last saw: ``last_progress_s`` is on the recorder's clock."""

    last_progress_s: float
    steps: int = 0
    iteration: int | None = None
    intervals: Sequence[float] = ()
    in_checkpoint: bool = False
    longest_checkpoint_s: float = 0.0


@dataclass(frozen=True, slots=True)
class HangReport:
    """One detected stall: how long, against which threshold, every thread's stack and, where
    PyTorch's flight recorder runs, where this rank's collectives stand (or why not known)."""

    idle_s: float
    threshold_s: float
    step: int | None
    in_checkpoint: bool
    stacks: dict[str, str] = field(default_factory=dict)
    collectives: dict[str, Clean] | None = None
    collectives_error: str | None = None


class Watchdog:
    """Checks progress against the policy; reports each stall once."""

    def __init__(
        self,
        policy: HangPolicy,
        progress: Callable[[], ProgressView],
        report: Callable[[HangReport], None],
        *,
        on_hang: Callable[[HangReport], None] | None = None,
        stacks: Callable[[], dict[str, str]] | None = None,
        collectives: Callable[[], Collectives] = read_collectives,
    ) -> None:
        self.policy = policy
        self._progress = progress
        self._report = report
        self._on_hang = on_hang
        self._stacks = stacks or self._other_stacks
        self._collectives = collectives
        self._armed_at: float | None = None
        self._fired = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.reports = 0

    def check(self, now: float) -> HangReport | None:
        """One pass at time ``now``: the report if a new stall was found, else None."""
        view = self._progress()
        if view.last_progress_s != self._armed_at:
            self._armed_at = view.last_progress_s  # progress since the last pass re-arms
            self._fired = False
        if self._fired:
            return None
        idle = now - view.last_progress_s
        threshold = self.policy.threshold_s(view)
        if idle < threshold:
            return None
        self._fired = True
        found = self._flight_recorder()
        report = HangReport(
            idle_s=round(idle, 3),
            threshold_s=round(threshold, 3),
            step=view.iteration,
            in_checkpoint=view.in_checkpoint,
            stacks=self._stacks(),
            collectives=found.groups,
            collectives_error=found.error,
        )
        self.reports += 1
        self._report(report)
        if self._on_hang is not None:
            try:
                self._on_hang(report)
            except Exception:  # the user's callback must not stop the watching
                _log.warning("autorecover.telemetry: on_hang callback failed", exc_info=True)
        return report

    def start(
        self, clock: Callable[[], float], wait: Callable[[float], bool] | None = None
    ) -> None:
        """Run ``check(clock())`` every ``poll_s`` on a daemon thread until ``stop()``.

        ``wait(seconds)`` returns True to stop; the default waits on the stop event, so a
        test can drive the loop with a fake ``wait`` and no real sleeping.
        """
        if self._thread is not None:
            return
        waiter = wait or self._stop.wait
        self._thread = threading.Thread(
            target=self._loop, args=(clock, waiter), name="autorecover-telemetry-watchdog",
            daemon=True,
        )  # fmt: skip
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the thread and wait for it (at most ``timeout_s``)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def _flight_recorder(self) -> Collectives:
        """The flight-recorder summary; a failure is said in the record, never raised."""
        try:
            return self._collectives()
        except Exception as exc:
            return Collectives(error=f"{type(exc).__name__}: {exc}"[:200])

    def _other_stacks(self) -> dict[str, str]:
        """Every thread's stack but the watchdog's own (which only shows this code)."""
        own = self._thread.ident if self._thread is not None else None
        return thread_stacks(skip=own)

    @property
    def running(self) -> bool:
        """True while the background thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def _loop(self, clock: Callable[[], float], wait: Callable[[float], bool]) -> None:
        """Thread body."""
        while not self._stop.is_set() and not wait(self.policy.poll_s):
            if self._stop.is_set():
                return
            try:
                self.check(clock())
            except Exception:  # a supervisor loop: log and go on
                _log.warning("autorecover.telemetry: watchdog check failed", exc_info=True)


def p99(values: Sequence[float]) -> float:
    """The 99th percentile (nearest rank) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def thread_stacks(limit_chars: int = MAX_STACK_CHARS, skip: int | None = None) -> dict[str, str]:
    """Each thread's Python stack by thread name (but ``skip``), innermost frames kept when cut."""
    names = {t.ident: t.name for t in threading.enumerate()}
    frames = {i: f for i, f in sys._current_frames().items() if i != skip}
    main = threading.main_thread().ident
    order = sorted(frames, key=lambda i: (i != main, names.get(i, ""), i))
    budget = max(2_000, limit_chars // max(1, len(order)))
    out: dict[str, str] = {}
    for ident in order:
        name = names.get(ident, f"thread-{ident}")
        key = name if name not in out else f"{name} ({ident})"
        try:
            text = "".join(traceback.format_stack(frames[ident]))
        except Exception:
            text = "<stack unavailable>"
        out[key] = text if len(text) <= budget else "...[cut]\n" + text[-budget:]
    return out
