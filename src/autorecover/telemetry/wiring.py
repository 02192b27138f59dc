"""``init()``: identity, output, recorder, threads, hooks and signal handlers wired; ``current()``.

One recorder per process (per rank): ``init()`` closes the previous one before starting a
new one. Nothing here runs at import; the environment is read when ``init()`` is called.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from autorecover.telemetry.hooks import Hooks, track_for_fork
from autorecover.telemetry.identity import detect_identity
from autorecover.telemetry.outputs import Output, OutputSpec, open_output
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.signals import SignalHandlers
from autorecover.telemetry.watchdog import HangPolicy, HangReport

_log = logging.getLogger("autorecover.telemetry")
DEFAULT_HANG_POLICY = HangPolicy()
_lock = threading.Lock()
_active: Recorder | None = None


def init(
    *,
    job: str | None = None,
    rank: int | None = None,
    local_rank: int | None = None,
    world_size: int | None = None,
    node: str | None = None,
    restart_count: int | None = None,
    output: OutputSpec = "stderr",
    formats: Iterable[str] = ("autorecover",),
    log_interval: int = 100,
    hang: HangPolicy | None = DEFAULT_HANG_POLICY,
    on_hang: Callable[[HangReport], None] | None = None,
    queue_size: int = 1024,
    install_hooks: bool = True,
    handle_signals: bool = True,
    background: bool = True,
    env: Mapping[str, str] | None = None,
    hostname: str | None = None,
    clock: Callable[[], float] = time.monotonic,
    wall_clock: Callable[[], float] = time.time,
) -> Recorder:
    """Start this process's recorder; arguments override what is detected from ``env``."""
    global _active
    found = detect_identity(os.environ if env is None else env, hostname)
    identity = replace(
        found,
        job=found.job if job is None else job,
        rank=found.rank if rank is None else rank,
        local_rank=found.local_rank if local_rank is None else local_rank,
        world_size=found.world_size if world_size is None else world_size,
        node=found.node if node is None else node,
        restart_count=found.restart_count if restart_count is None else restart_count,
    )
    try:
        stream, owned = open_output(output, identity)
    except OSError as exc:  # an unwritable path must not stop training: fall back, say so
        _log.warning("autorecover.telemetry: cannot open %r (%s); writing to stderr", output, exc)
        stream, owned = sys.stderr, False
    recorder = Recorder(
        identity, stream, formats=formats, log_interval=log_interval, queue_size=queue_size,
        hang=hang, on_hang=on_hang, clock=clock, wall_clock=wall_clock, owned_output=owned,
    )  # fmt: skip
    with _lock:
        previous, _active = _active, recorder
    if previous is not None:
        previous.close()
    if install_hooks:
        hooks = Hooks(recorder)
        hooks.install()
        recorder._close_callbacks.append(hooks.uninstall)
    if handle_signals:
        handlers = SignalHandlers(recorder)
        handlers.install()
        recorder._close_callbacks.append(handlers.uninstall)
    recorder._close_callbacks.append(lambda: _forget(recorder))
    track_for_fork(recorder)
    return recorder.start(background)


def current() -> Recorder | None:
    """The recorder ``init()`` started last, unless it was closed."""
    return _active


def _forget(recorder: Recorder) -> None:
    """Clear the active recorder if it is ``recorder``."""
    global _active
    with _lock:
        if _active is recorder:
            _active = None
            track_for_fork(None)


__all__ = ["DEFAULT_HANG_POLICY", "Output", "current", "init"]
