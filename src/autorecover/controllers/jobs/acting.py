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
    ActionStatus,
    Alert,
    Clock,
    Notifier,
    Outcome,
    PermanentError,
    Provenance,
    TransientError,
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
        outcomes: list[Outcome] = []
        blocked: set[str] = set()  # jobs with an action still waiting: keep their order
        limited = False
        for record in queue:
            action = record.action
            if action.job in blocked:
                continue
            if action.kind in MUTATIONS and (limited or not self._bucket.take(self._clock.now())):
                limited = True
                blocked.add(action.job)
                continue
            self._hooks.before_execute(action)
            try:
                self._perform(action)
            except TransientError:
                blocked.add(action.job)
                continue
            except PermanentError as exc:
                outcomes.append(
                    Outcome(action.id, ActionStatus.FAILED, self._clock.now(), str(exc))
                )
                continue
            self._hooks.after_execute(action)
            outcomes.append(Outcome(action.id, ActionStatus.DONE, self._clock.now()))
        return tuple(outcomes)

    def _perform(self, action: JobAction) -> None:
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
