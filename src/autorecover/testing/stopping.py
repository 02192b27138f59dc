"""A test run stopped from outside still stops the real systems it started.

`timeout`, a CI runner's cancel or a person's `kill` sends SIGTERM, and Python's default for it
ends the process at once, without unwinding: the session fixtures that started Slurm, a
Kubernetes control plane or PostgreSQL never run their teardown, and those systems keep running
(and holding ports and CPU) after the run. Read as an interrupt instead, pytest stops the session
the way it does on Ctrl-C and tears every fixture down.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signum}")


def interrupt_on_sigterm() -> bool:
    """Make SIGTERM raise KeyboardInterrupt in this process; False where it cannot (not the main
    thread, which alone may set signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.signal(signal.SIGTERM, _interrupt)
    return True
