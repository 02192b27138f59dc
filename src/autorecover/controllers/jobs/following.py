"""Following a job's open incidents from pass to pass, after their action was done.

A requeue is verified from what the scheduler reports (`acting.verify`): a later attempt,
carrying the exclusions, on none of the excluded nodes. A requeue that fails verification is
requeued again under a new action id, a bounded number of times, then a person is told.
Verified, the incident records its recovery — the new attempt's first telemetry record,
its checkpoint load, its first step — and closes at that first step. Slowdowns and
stragglers close when their attempt ends.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from autorecover.controllers.jobs.acting import Check, verify
from autorecover.controllers.jobs.incidents import action_id, retry_of
from autorecover.controllers.jobs.ledger import Ledger
from autorecover.controllers.jobs.records import (
    TERMINAL,
    IncidentPhase,
    JobChanges,
    JobIncident,
    Stage,
    WatchedJob,
)
from autorecover.controllers.jobs.watching import AttemptWatch
from autorecover.controllers.ports import ActionStatus, Outcome


@dataclass(frozen=True, slots=True)
class Patience:
    """How long a requeue may take to show, and how often it is tried again."""

    verify_timeout_s: float
    verify_retries: int


def follow(
    ledger: Ledger,
    w: WatchedJob,
    watch: AttemptWatch,
    now: datetime,
    changes: JobChanges,
    patience: Patience,
) -> None:
    """Verify the job's requeue, record its recovery, close what its attempt outlived."""
    s = w.status
    for incident in ledger.of_job(s.job):
        if incident.phase is IncidentPhase.OBSERVED:
            if incident.attempt != s.attempt or s.phase in TERMINAL:
                ledger.close(incident, f"attempt {incident.attempt} ended", now, changes)
            continue
        if incident.phase is IncidentPhase.VERIFYING:
            _verify(ledger, incident, w, now, changes, patience)
            incident = ledger.incidents.get(incident.id, incident)
        if incident.phase is IncidentPhase.RECOVERING and s.attempt > incident.attempt:
            _recovering(ledger, incident, w, watch, now, changes)


def unlisted(
    ledger: Ledger, listed: set[str], now: datetime, changes: JobChanges, patience: Patience
) -> None:
    """Incidents of jobs the scheduler stopped listing: a requeue waiting to be verified fails
    once it is late; a recovery or an observation is over."""
    for incident in [i for i in ledger.incidents.values() if i.job not in listed]:
        gone = "the scheduler no longer lists the job"
        if incident.phase in (IncidentPhase.RECOVERING, IncidentPhase.OBSERVED):
            ledger.close(incident, gone, now, changes)
            continue
        done = ledger.verifying.get(incident.id)
        if incident.phase is not IncidentPhase.VERIFYING or done is None:
            continue
        limit = done.action.delay_s + patience.verify_timeout_s
        if now >= done.updated_at + timedelta(seconds=limit):
            del ledger.verifying[incident.id]
            why = f"verification failed: {gone}"
            changes.verifications.append(Outcome(done.action.id, ActionStatus.FAILED, now, why))
            ledger.fail(incident, why, now, changes)


def _verify(
    ledger: Ledger,
    incident: JobIncident,
    w: WatchedJob,
    now: datetime,
    changes: JobChanges,
    patience: Patience,
) -> None:
    done = ledger.verifying.get(incident.id)
    if done is None:
        return  # its requeue is still queued (rate-limited, or the port was busy)
    action, s = done.action, w.status
    check = verify(s, action)
    if check.ok is None:
        limit = action.delay_s + patience.verify_timeout_s
        if now < done.updated_at + timedelta(seconds=limit):
            return
        check = Check(False, f"not restarted within {limit:.0f} s ({check.detail})")
    del ledger.verifying[incident.id]
    if check.ok:
        changes.verifications.append(Outcome(action.id, ActionStatus.DONE, now, check.detail))
        # The attempt the requeue made started no earlier than the requeue: a scheduler's
        # start before it is the scheduler's precision (Slurm's whole seconds) or its start
        # inside the requeue call, which the engine's clock times at the call's return.
        started = max(s.started or now, done.updated_at)
        ledger.mark(incident.id, Stage.RESCHEDULED, started, changes, check.detail)
        ledger.put(replace(incident, phase=IncidentPhase.RECOVERING), changes)
        return
    why = f"verification failed: {check.detail}"
    changes.verifications.append(Outcome(action.id, ActionStatus.FAILED, now, why))
    retry = retry_of(action.id) + 1
    if retry <= patience.verify_retries and s.phase not in TERMINAL:
        again = replace(
            action,
            id=action_id(incident.id, action.kind, retry),
            at=now,
            why=f"{why}; requeue again ({retry} of {patience.verify_retries})",
            delay_s=0.0,
            attempt=s.attempt,
        )
        ledger.record(again, False, changes)
        return
    ledger.fail(incident, why, now, changes)


def _recovering(
    ledger: Ledger,
    incident: JobIncident,
    w: WatchedJob,
    watch: AttemptWatch,
    now: datetime,
    changes: JobChanges,
) -> None:
    iid, s = incident.id, w.status
    if watch.first_record_at:
        ledger.mark(iid, Stage.STARTED, watch.first_record_at, changes)
    if watch.checkpoint_loaded_at:
        where = [f"iteration {watch.loaded}"] if watch.loaded is not None else []
        where += [f"from {watch.loaded_from}"] if watch.loaded_from else []
        detail = " ".join(where)
        ledger.mark(iid, Stage.CHECKPOINT_LOADED, watch.checkpoint_loaded_at, changes, detail)
    if watch.first_step_at:
        ledger.mark(iid, Stage.FIRST_STEP, watch.first_step_at, changes)
        ledger.close(incident, f"recovered: attempt {s.attempt} made its first step", now, changes)
    elif s.phase in TERMINAL:
        ledger.close(
            incident, f"attempt {s.attempt} ended ({s.state}) before a new step", now, changes
        )
