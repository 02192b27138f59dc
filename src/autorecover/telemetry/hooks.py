"""Process hooks for a recorder: uncaught exceptions, interpreter exit and fork.

Installed by ``init()`` (never at import) and removed by ``Recorder.close()``. Each
exception hook records first and then always calls the hook it replaced, so tracebacks
still reach stderr and other libraries' hooks still run.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autorecover.telemetry.recorder import Recorder

_fork_handler_registered = False
_active_for_fork: list[Recorder] = []  # the process's current recorder, if any


class Hooks:
    """``sys.excepthook``, ``threading.excepthook`` and ``atexit`` for one recorder."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._prev_sys: Callable[..., object] = sys.excepthook
        self._prev_thread: Callable[..., object] = threading.excepthook
        # Bound methods are created on each attribute access; keep one of each so that
        # uninstall can tell whether the installed hook is still ours.
        self._sys_hook = self._on_uncaught
        self._thread_hook = self._on_thread_uncaught
        self._exit_hook = self._on_exit

    def install(self) -> None:
        """Install the hooks, remembering the previous ones."""
        self._prev_sys = sys.excepthook
        self._prev_thread = threading.excepthook
        sys.excepthook = self._sys_hook
        threading.excepthook = self._thread_hook
        atexit.register(self._exit_hook)

    def uninstall(self) -> None:
        """Restore the previous hooks where ours are still installed."""
        if sys.excepthook == self._sys_hook:
            sys.excepthook = self._prev_sys
        if threading.excepthook == self._thread_hook:
            threading.excepthook = self._prev_thread
        atexit.unregister(self._exit_hook)

    def _on_uncaught(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """Main thread: the process is about to die, so the record is flushed before chaining."""
        with contextlib.suppress(Exception):  # never stand between Python and the next hook
            if not self._recorder._recorded_by_signal(exc):  # Ctrl-C: already `terminated`
                name = threading.current_thread().name
                self._recorder.error(exc, uncaught=True, fatal=True, thread=name)
        self._prev_sys(kind, exc, tb)

    def _on_thread_uncaught(self, args: threading.ExceptHookArgs) -> None:
        """Another thread died; the process may go on, the record is flushed anyway."""
        # SystemExit ends a thread quietly, so it is not an error
        with contextlib.suppress(Exception):
            if args.exc_type is not SystemExit:
                name = args.thread.name if args.thread is not None else None
                self._recorder.error(args.exc_value, uncaught=True, thread=name)
        self._prev_thread(args)

    def _on_exit(self) -> None:
        """Interpreter exit: report the partial window and write everything."""
        self._recorder.close()


def track_for_fork(recorder: Recorder | None) -> None:
    """Make ``recorder`` the one a forked child disables (its threads do not survive a fork)."""
    global _fork_handler_registered
    _active_for_fork[:] = [recorder] if recorder is not None else []
    if not _fork_handler_registered and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _fork_handler_registered = True


def _after_fork_in_child() -> None:
    """A child (a DataLoader worker, say) must not write or flush its parent's records."""
    for recorder in _active_for_fork:
        recorder._disable()
    _active_for_fork.clear()
