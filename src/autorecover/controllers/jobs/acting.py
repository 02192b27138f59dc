"""Acting on jobs: the executor that performs recorded actions, and the requeue check.

An action reaches the executor only once the store holds it as intended; its outcome is
recorded after. `JobHooks` let a test crash the controller exactly between the two. Requeues
and stops spend tokens of a bucket on the injected clock (a rate limit on mutations); what
the bucket refuses waits, in order, for a later pass. `verify` reads a requeue's result back
from what the scheduler reports: the job carries the exclusions, was restarted (a later
attempt), and runs on none of the excluded nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autorecover.controllers.counting import TokenBucket
from autorecover.controllers.executing import execute_in_order
from autorecover.controllers.hooks import ExecutionHooks
from autorecover.controllers.jobs.ports import JobSchedulerPort
from autorecover.controllers.jobs.records import (
    MUTATIONS,
    REQUEUES,
    JobAction,
    JobActionKind,
    JobActionRecord,
    JobPhase,
    JobStatus,
)
from autorecover.controllers.ports import (
    Alert,
    Clock,
    Notifier,
    Outcome,
    PermanentError,
    Provenance,
)

JobHooks = ExecutionHooks[JobAction]


NO_JOB_HOOKS = JobHooks()


class SilentNotifier:
    """A notifier that tells nobody (alerts stay on the record)."""

    def alert(self, alert: Alert) -> None:
        """Do nothing."""
        return None


def provenance(action: JobAction) -> Provenance:
    """The provenance a job action carries to the port."""
    return Provenance(action.id, action.by, action.why, action.at, action.evidence, action.incident)


class JobExecutor:
    """Runs intended job actions through the scheduler and the notifier."""

    def __init__(
        self,
        scheduler: JobSchedulerPort,
        notifier: Notifier,
        clock: Clock,
        bucket: TokenBucket,
        hooks: JobHooks = NO_JOB_HOOKS,
    ) -> None:
        self._scheduler = scheduler
        self._notifier = notifier
        self._clock = clock
        self._bucket = bucket
        self._hooks = hooks

    def run(self, queue: Sequence[JobActionRecord]) -> tuple[Outcome, ...]:
        """Execute `queue` in order until the rate limit stops it; returns the outcomes."""
        return execute_in_order(
            (record.action for record in queue),
            self._perform,
            lane=lambda action: action.job,
            mutates=lambda action: action.kind in MUTATIONS,
            bucket=self._bucket,
            clock=self._clock,
            hooks=self._hooks,
        )

    def _perform(self, action: JobAction) -> str:
        prov = provenance(action)
        if action.kind in REQUEUES:
            self._scheduler.requeue(action.job, action.exclude, action.delay_s, prov)
        elif action.kind is JobActionKind.STOP:
            self._scheduler.stop(action.job, prov)
        elif action.kind is JobActionKind.ALERT:
            self._notifier.alert(
                Alert(action.id, action.at, action.why, "", action.incident, action.evidence)
            )
        else:  # pragma: no cover - the enum is exhaustive
            raise PermanentError(f"unknown job action kind {action.kind}")
        return ""


@dataclass(frozen=True, slots=True)
class Check:
    """A requeue's verification: passed, failed, or not decided yet (`ok` is None)."""

    ok: bool | None
    detail: str


def verify(status: JobStatus | None, action: JobAction) -> Check:
    """Did the job really restart, carrying the exclusions, on none of the excluded nodes?"""
    if status is None:
        return Check(False, "the scheduler no longer lists the job")
    if status.attempt <= action.attempt:
        if status.phase is JobPhase.RUNNING and status.nodes:
            return Check(None, f"attempt {status.attempt} still running: not restarted yet")
        return Check(None, "not restarted yet")
    missing = sorted(set(action.exclude) - set(status.exclusions))
    if missing:
        return Check(False, f"the job does not carry the exclusion of {', '.join(missing)}")
    if status.phase is JobPhase.PENDING or status.started is None:
        return Check(None, f"attempt {status.attempt} queued, not started yet")
    on = sorted(set(status.nodes) & set(action.exclude))
    if on:
        return Check(False, f"attempt {status.attempt} runs on excluded node(s) {', '.join(on)}")
    where = ", ".join(status.nodes) or "no nodes"
    avoided = f", avoiding {', '.join(action.exclude)}" if action.exclude else ""
    return Check(True, f"attempt {status.attempt} started on {where}{avoided}")
