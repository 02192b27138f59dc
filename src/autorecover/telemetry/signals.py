"""SIGTERM and SIGINT handlers: the partial window and a ``terminated`` record, then the old one.

torchrun, Slurm and Kubernetes stop ranks with SIGTERM, people with Ctrl-C (SIGINT). SIGTERM's
default action kills the process without running ``atexit``, so without a handler the last
summary window and any sign of why the process ended are lost. ``init()`` installs these
handlers (main thread only: ``signal.signal`` raises elsewhere) and ``close()`` restores the
previous ones where ours are still installed.

Each handler always chains to the disposition it replaced: a Python handler is called; the
default is restored and the signal raised again, so the exit status still says "killed by
SIGTERM" (SIGINT's default, ``KeyboardInterrupt``, is a Python handler and is called); an
ignored signal is left ignored. A handler someone installs after ``init()`` replaces ours and
bypasses it, unless it calls the handler it replaced (Lightning's Trainer does): then ours
records and leaves what follows to the caller, where it replaced the default or an ignore.

A Python signal handler runs on the main thread between two bytecodes, possibly while that
thread holds the writer queue's lock; the records are therefore written from a short-lived
thread that the handler waits for, at most ``timeout_s``, before it chains.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autorecover.telemetry.recorder import Recorder

_log = logging.getLogger("autorecover.telemetry")
TERMINATING = (signal.SIGTERM, signal.SIGINT)
# What signal.getsignal returns: a Python callable, SIG_DFL, SIG_IGN, or None (a handler
# installed outside Python, which can be neither called nor restored, so never replaced). In
# `_on_signal`, None also stands for "left to the handler that called ours".
Disposition = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class SignalHandlers:
    """SIGTERM and SIGINT handlers for one recorder, chained to the ones they replaced."""

    def __init__(
        self, recorder: Recorder, signums: tuple[signal.Signals, ...] = TERMINATING,
        timeout_s: float = 5.0,
    ) -> None:  # fmt: skip
        self._recorder = recorder
        self._signums = signums
        self._timeout_s = timeout_s
        # Kept after uninstall: a handler installed later may still call ours and chain on.
        self._previous: dict[int, Disposition] = {}
        self._handler = self._on_signal  # one bound method, so "is it still ours" can be asked

    def install(self) -> None:
        """Install on the main thread (elsewhere: skip, and say so at debug level)."""
        if threading.current_thread() is not threading.main_thread():
            _log.debug(
                "autorecover.telemetry: init() ran outside the main thread, so no SIGTERM/SIGINT"
                " handler was installed (signal.signal works only on the main thread)"
            )
            return
        for signum in self._signums:
            previous = signal.getsignal(signum)
            if previous is None:  # cannot be called, nor restored
                _log.debug("autorecover.telemetry: %s has a handler installed outside Python;"
                           " left alone", signum.name)  # fmt: skip
            elif previous != self._handler:
                signal.signal(signum, self._handler)
                self._previous[signum] = previous

    def uninstall(self) -> None:
        """Restore the previous handlers where ours are still installed (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            # ours stay installed; with the recorder closed they only chain
            return
        for signum, previous in self._previous.items():
            if signal.getsignal(signum) == self._handler and previous is not None:
                signal.signal(signum, previous)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Record the termination (bounded wait), then hand the signal on."""
        previous = self._previous.get(signum, signal.SIG_DFL)
        if signal.getsignal(signum) != self._handler and not callable(previous):
            # A handler installed after ours called it, as Lightning's Trainer does with the
            # SIGTERM handler it finds. It could not have called SIG_DFL or SIG_IGN had we not
            # been there, so what happens next is its business: killing the process here would
            # cut short its own shutdown.
            previous = None
        if not self._recorder.closed:
            writer = threading.Thread(
                target=self._recorder._terminated, args=(signum, disposition(previous)),
                name="autorecover-telemetry-signal", daemon=True,
            )  # fmt: skip
            writer.start()
            writer.join(self._timeout_s)
        chain(signum, frame, previous)


def disposition(previous: Disposition) -> str:
    """What happens after ours: the ``default`` action, ``ignore``, or a Python ``handler``.

    None (left to the handler that called ours) is a ``handler`` too.
    """
    if previous == signal.SIG_DFL or previous is signal.default_int_handler:
        return "default"
    if previous == signal.SIG_IGN:
        return "ignore"
    return "handler"


def chain(signum: int, frame: FrameType | None, previous: Disposition) -> None:
    """Do what ``previous`` would have done with the signal (None: nothing)."""
    if previous is None or previous == signal.SIG_IGN:
        return
    if callable(previous):
        previous(signum, frame)
        return
    # SIG_DFL: put the default back and raise again, so the process dies of this signal
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)
