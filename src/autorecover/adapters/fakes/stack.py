"""`serve --scheduler fake`: the journaled fake cluster, for trying the engine out and for
the crash tests. It hosts hardware recovery only (no jobs port)."""

from __future__ import annotations

from autorecover.adapters.fakes.journaled import Journal, JournalDiagnostics, JournalScheduler
from autorecover.adapters.notifiers import LogNotifier
from autorecover.adapters.schedulers import SchedulerOptions, SchedulerStack
from autorecover.controllers.ports import Clock
from autorecover.domain.jobs.settings import SitePolicy


def open_stack(options: SchedulerOptions, clock: Clock, site: SitePolicy) -> SchedulerStack:
    """The fake's nodes and diagnostics on one journal (`options.fake_state`; in memory when
    None); diagnostics pass after `options.diagnostics_s`. `site` is unused: no jobs."""
    journal = Journal(options.fake_state)
    return SchedulerStack(
        nodes=JournalScheduler(clock, journal),
        diagnostics=JournalDiagnostics(clock, journal, duration_s=options.diagnostics_s),
        notifier=LogNotifier(),
    )
