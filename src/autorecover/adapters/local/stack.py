"""`serve --scheduler local`: real training processes on simulated nodes, on this machine.

One `LocalScheduler` serves both recovery services: hardware recovery cordons, drains,
resets and reboots its nodes (the last two simulated), job recovery requeues its jobs.
Diagnostics are simulated (`LocalDiagnostics`).
"""

from __future__ import annotations

from autorecover.adapters.local.diagnostics import LocalDiagnostics
from autorecover.adapters.local.scheduler import LocalScheduler
from autorecover.adapters.notifiers import LogNotifier
from autorecover.adapters.schedulers import SchedulerOptions, SchedulerStack
from autorecover.controllers.ports import Clock
from autorecover.domain.jobs.settings import SitePolicy


def open_stack(options: SchedulerOptions, clock: Clock, site: SitePolicy) -> SchedulerStack:
    """A local scheduler on `options.local_nodes`, its jobs' files under `options.local_root`.
    `site` is unused: a local job's spec says whether it opts in (`recover`)."""
    if options.local_root is None or not options.local_nodes:
        raise ValueError("--scheduler local needs --local-root and --local-nodes")
    scheduler = LocalScheduler(options.local_root, options.local_nodes, clock)
    return local_stack(scheduler, clock, options.diagnostics_s)


def local_stack(
    scheduler: LocalScheduler, clock: Clock, diagnostics_s: float = 0.0
) -> SchedulerStack:
    """The stack on a local scheduler built elsewhere (the demonstration builds its own);
    diagnostics pass after `diagnostics_s`."""
    return SchedulerStack(
        nodes=scheduler,
        diagnostics=LocalDiagnostics(clock, diagnostics_s),
        notifier=LogNotifier(),
        jobs=scheduler,
    )
