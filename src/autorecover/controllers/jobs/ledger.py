"""The job controller's memory between passes, and the one place that records changes.

Everything here is rebuilt from the store when a controller starts (`JobSnapshot`): the
histories, open incidents, attempts already acted on, actions still intended, requeues
waiting for verification, and node suspicion. Each change goes into the pass's `JobChanges`
as it is made in memory, so the store and memory agree once the pass commits; a pass that
fails leaves the controller unusable, and a fresh one is built on the store.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from autorecover.controllers.jobs.incidents import action_id
from autorecover.controllers.jobs.records import (
    ACTED_ON,
    MUTATIONS,
    REQUEUES,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobActionRecord,
    JobChanges,
    JobIncident,
    JobSnapshot,
    Stage,
    TimelineMark,
    check_phase,
)
from autorecover.controllers.ports import ActionStatus, Outcome
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.suspicion import Suspicion

_DONE_WITH = (IncidentPhase.CLOSED, IncidentPhase.FAILED)


class Ledger:
    """Histories, incidents, queued and verifying actions, suspicion: memory and record."""

    def __init__(self, snap: JobSnapshot, half_life_s: float, by: str) -> None:
        self.by = by
        self.histories: dict[str, JobHistory] = dict(snap.histories)
        self.incidents: dict[str, JobIncident] = {i.id: i for i in snap.incidents}
        self.handled: set[tuple[str, int]] = set(snap.handled)
        self.episodes: dict[tuple[str, int, IncidentKind], int] = dict(snap.episodes)
        self.queue: dict[str, JobActionRecord] = {r.action.id: r for r in snap.pending}
        self.verifying: dict[str, JobActionRecord] = {
            r.action.incident or "": r for r in snap.verifying
        }
        self.suspicion = Suspicion(half_life_s, dict(snap.suspicion))
        self.stopped: set[str] = set(snap.stopped)  # a person said: leave these jobs alone
        self._marked: set[tuple[str, Stage]] = set()

    def history(self, job: str) -> JobHistory:
        """A job's history (empty if never seen)."""
        return self.histories.get(job, JobHistory())

    def of_job(self, job: str) -> list[JobIncident]:
        """The job's open incidents."""
        return [i for i in self.incidents.values() if i.job == job]

    # --- recording ---------------------------------------------------------------------------

    def record(self, action: JobAction, dry: bool, changes: JobChanges) -> None:
        """An action, intended (queued) or, in dry-run, would-have."""
        status = ActionStatus.WOULD if dry else ActionStatus.INTENDED
        record = JobActionRecord(action, status, action.at)
        changes.actions.append(record)
        if not dry:
            self.queue.setdefault(action.id, record)

    def put(self, incident: JobIncident, changes: JobChanges) -> None:
        """An incident, new or changed (its move checked against the phase table)."""
        before = self.incidents.get(incident.id)
        check_phase(before.phase if before else None, incident.phase)
        if incident.phase in _DONE_WITH:
            self.incidents.pop(incident.id, None)
            self._marked = {m for m in self._marked if m[0] != incident.id}
        else:
            self.incidents[incident.id] = incident
        changes.incidents = [i for i in changes.incidents if i.id != incident.id]
        changes.incidents.append(incident)

    def close(self, incident: JobIncident, outcome: str, at: datetime, changes: JobChanges) -> None:
        """The incident is over."""
        self.put(
            replace(incident, phase=IncidentPhase.CLOSED, closed_at=at, outcome=outcome), changes
        )

    def fail(self, incident: JobIncident, why: str, at: datetime, changes: JobChanges) -> None:
        """The incident's action failed for good: a person hears of it."""
        self.put(replace(incident, phase=IncidentPhase.FAILED, closed_at=at, outcome=why), changes)
        text = f"job {incident.job}: recovery of {incident.id} failed: {why}"
        aid = f"{action_id(incident.id, JobActionKind.ALERT)}/failed"
        alert = JobAction(
            aid, incident.job, JobActionKind.ALERT, at, self.by, text, incident=incident.id
        )
        self.record(alert, False, changes)

    def mark(
        self, incident: str, stage: Stage, at: datetime, changes: JobChanges, detail: str = ""
    ) -> None:
        """A moment of the incident's timeline (each stage once)."""
        if (incident, stage) not in self._marked:
            self._marked.add((incident, stage))
            changes.timeline.append(TimelineMark(incident, stage, at, detail=detail))

    def marks(self, marks: tuple[TimelineMark, ...], changes: JobChanges) -> None:
        """Several moments at once."""
        for m in marks:
            if (m.incident, m.stage) not in self._marked:
                self._marked.add((m.incident, m.stage))
                changes.timeline.append(m)

    def supersede(self, job: str, by: str, at: datetime, changes: JobChanges) -> None:
        """A new incident replaces the job's older one and any of its mutations still queued:
        at most one requeue or stop is ever pending per job."""
        for aid, record in list(self.queue.items()):
            if record.action.job == job and record.action.kind in MUTATIONS:
                del self.queue[aid]
                changes.outcomes.append(
                    Outcome(aid, ActionStatus.FAILED, at, f"superseded by {by}")
                )
        for incident in [i for i in self.of_job(job) if i.kind in ACTED_ON]:
            self.verifying.pop(incident.id, None)
            self.close(incident, f"superseded by {by}", at, changes)

    def take_suspicion(self, ledger: Suspicion, changes: JobChanges) -> None:
        """The new suspicion ledger; changed marks are recorded."""
        for node, mark in ledger.marks.items():
            if self.suspicion.marks.get(node) is not mark:
                changes.suspicion[node] = mark
        self.suspicion = ledger

    def settle(self, action: JobAction, outcome: Outcome, changes: JobChanges) -> None:
        """What an executed action means for its incident."""
        incident = self.incidents.get(action.incident or "")
        if incident is None or action.kind is JobActionKind.ALERT:
            return
        if outcome.status is ActionStatus.FAILED:
            self.fail(incident, f"{action.kind} failed: {outcome.result}", outcome.at, changes)
            return
        self.mark(incident.id, Stage.STOPPED, outcome.at, changes, str(action.kind))
        if action.kind in REQUEUES:
            self.verifying[incident.id] = JobActionRecord(action, ActionStatus.DONE, outcome.at)
            self.put(replace(incident, phase=IncidentPhase.VERIFYING), changes)
        else:
            self.close(incident, "stopped", outcome.at, changes)
