"""Job recovery as the API shows it: jobs, job incidents with their evidence and timeline.

Read from job recovery's store (`controllers.jobs.ports.JobStorePort`). Until the engine is
given one (`wiring`), `NO_JOBS` answers with nothing, so the routes and the CLI views exist
and stay stable either way.
"""

from __future__ import annotations

from typing import Any, Protocol

from autorecover.controllers.jobs.ports import JobStorePort
from autorecover.controllers.jobs.records import OPEN, JobIncident
from autorecover.server.policies import as_json
from autorecover.server.schemas import IncidentDetail, IncidentOut, TimelineEntry


class JobsView(Protocol):
    """What the API reads of job recovery."""

    def jobs(self) -> list[dict[str, Any]]:
        """Every job job recovery remembers."""
        ...

    def incidents(self) -> list[IncidentOut]:
        """Every job incident, oldest first."""
        ...

    def incident(self, incident: str) -> IncidentDetail | None:
        """One job incident with evidence and timeline; None when unknown."""
        ...


class NoJobs:
    """Job recovery is not hosted: no jobs, no job incidents."""

    def jobs(self) -> list[dict[str, Any]]:
        """None."""
        return []

    def incidents(self) -> list[IncidentOut]:
        """None."""
        return []

    def incident(self, incident: str) -> IncidentDetail | None:
        """Unknown."""
        return None


NO_JOBS = NoJobs()


class StoreJobsView:
    """Jobs and job incidents read from job recovery's store."""

    def __init__(self, store: JobStorePort) -> None:
        self._store = store

    def jobs(self) -> list[dict[str, Any]]:
        """Every job with its attempts, exclusions and open incidents."""
        snap = self._store.load()
        open_by_job: dict[str, list[str]] = {}
        for i in snap.incidents:
            open_by_job.setdefault(i.job, []).append(i.id)
        names = sorted(set(snap.histories) | set(open_by_job))
        out = []
        for job in names:
            history = snap.histories.get(job)
            attempts = history.attempts if history else ()
            out.append(
                {
                    "job": job,
                    "restarts": len(attempts),
                    "last_cause": str(attempts[-1].cause) if attempts else None,
                    "last_action": str(attempts[-1].action) if attempts else None,
                    "exclusions": sorted({e.node for e in history.exclusions} if history else ()),
                    "open_incidents": open_by_job.get(job, []),
                    "attempts": as_json(list(attempts)),
                }
            )
        return out

    def incidents(self) -> list[IncidentOut]:
        """Every job incident."""
        return [_incident(i) for i in self._store.incidents()]

    def incident(self, incident: str) -> IncidentDetail | None:
        """One job incident with the verdict's evidence and the recovery's timeline."""
        found = next((i for i in self._store.incidents() if i.id == incident), None)
        if found is None:
            return None
        verdict = found.verdict
        evidence = [
            f"{e.source}/{e.node}:{e.line} [{e.signal}] {e.text}"
            for e in (verdict.evidence if verdict else ())
        ]
        timeline = [
            TimelineEntry(at=m.at, what=f"stage {m.stage}", node="",
                          text=m.detail + (f" ({m.value:g})" if m.value is not None else ""))
            for m in self._store.timeline(incident)
        ] + [
            TimelineEntry(at=a.action.at, what=f"action {a.status}", node="",
                          text=f"{a.action.kind} {a.action.job}: {a.action.why}")
            for a in self._store.actions(found.job) if a.action.incident == incident
        ]  # fmt: skip
        timeline.sort(key=lambda e: e.at)
        return IncidentDetail(**_incident(found).model_dump(), evidence=evidence, timeline=timeline)


def _incident(i: JobIncident) -> IncidentOut:
    cause = str(i.verdict.cause) if i.verdict else str(i.kind)
    return IncidentOut(
        id=i.id, source="jobs", kind=str(i.kind), cause=cause,
        state="open" if i.phase in OPEN else "closed", opened_at=i.opened_at,
        updated_at=i.closed_at or i.opened_at, nodes=list(i.nodes), summary=i.summary,
    )  # fmt: skip
