"""Job recovery as the API shows it: jobs, job incidents with their evidence and timeline.

Read from job recovery's store (`controllers.jobs.ports.JobStorePort`). Until the engine is
given one (`wiring`), `NO_JOBS` answers with nothing, so the routes and the CLI views exist
and stay stable either way.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from autorecover.controllers.jobs.ports import JobStorePort
from autorecover.controllers.jobs.records import OPEN, JobIncident
from autorecover.controllers.jobs.timelines import breakdown
from autorecover.controllers.requests import OperatorRequest
from autorecover.server.policies import as_json
from autorecover.server.schemas import IncidentDetail, IncidentOut, TimelineEntry
from autorecover.server.views import request_mark, request_out


class JobsView(Protocol):
    """What the API reads of job recovery."""

    def jobs(self) -> list[dict[str, Any]]:
        """Every job job recovery remembers."""
        ...

    def incidents(self, limit: int | None = None, *, open_only: bool = False) -> list[IncidentOut]:
        """Job incidents, oldest first: every one, the newest `limit`, or the open ones."""
        ...

    def incident(self, incident: str) -> IncidentDetail | None:
        """One job incident with evidence and timeline; None when unknown."""
        ...

    def breakdown(self, incident: str) -> dict[str, float | None] | None:
        """One job incident's recovery time by part (`timelines.Breakdown`); None when
        unknown."""
        ...

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record a person's request about a job (retry, stop) for job recovery's next pass;
        `NotHostedError` when job recovery does not run here."""
        ...

    def requests(self, target: str | None = None, limit: int = 1000) -> list[OperatorRequest]:
        """People's requests about jobs (or one job), oldest first."""
        ...


class NotHostedError(LookupError):
    """Job recovery is not hosted by this engine."""


class NoJobs:
    """Job recovery is not hosted: no jobs, no job incidents."""

    def jobs(self) -> list[dict[str, Any]]:
        """None."""
        return []

    def incidents(self, limit: int | None = None, *, open_only: bool = False) -> list[IncidentOut]:
        """None."""
        return []

    def incident(self, incident: str) -> IncidentDetail | None:
        """Unknown."""
        return None

    def breakdown(self, incident: str) -> dict[str, float | None] | None:
        """Unknown."""
        return None

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Nobody to act on it."""
        raise NotHostedError("job recovery is not hosted by this engine")

    def requests(self, target: str | None = None, limit: int = 1000) -> list[OperatorRequest]:
        """None."""
        return []


NO_JOBS = NoJobs()


class JobRequests(Protocol):
    """Where people's requests about jobs are kept: job recovery's store."""

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record a request once per id."""
        ...

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Requests about a job, oldest first."""
        ...


class StoreJobsView:
    """Jobs and job incidents read from job recovery's store."""

    def __init__(self, store: JobStorePort, requests: JobRequests | None = None) -> None:
        self._store = store
        self._requests = requests

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record a person's request about a job, for job recovery's next pass."""
        if self._requests is None:
            raise NotHostedError("job recovery's store here keeps no requests")
        return self._requests.submit(request)

    def requests(self, target: str | None = None, limit: int = 1000) -> list[OperatorRequest]:
        """People's requests about jobs (or one job), oldest first."""
        if self._requests is None:
            return []
        return self._requests.requests(target, limit=limit)

    def jobs(self) -> list[dict[str, Any]]:
        """Every job with its attempts, exclusions and open incidents."""
        snap = self._store.load()
        notes: dict[str, list[str]] = {}
        for e in self._store.events():
            notes.setdefault(e.job, []).append(e.text)
        open_by_job: dict[str, list[str]] = {}
        for i in snap.incidents:
            open_by_job.setdefault(i.job, []).append(i.id)
        names = sorted(set(snap.histories) | set(open_by_job) | set(snap.stopped) | set(notes))
        out = []
        for job in names:
            history = snap.histories.get(job)
            attempts = history.attempts if history else ()
            out.append(
                {
                    "job": job,
                    "recovery": "stopped" if job in snap.stopped else "on",
                    "restarts": len(attempts),
                    "last_cause": str(attempts[-1].cause) if attempts else None,
                    "last_action": str(attempts[-1].action) if attempts else None,
                    "exclusions": sorted({e.node for e in history.exclusions} if history else ()),
                    "open_incidents": open_by_job.get(job, []),
                    "attempts": as_json(list(attempts)),
                    "events": notes.get(job, [])[-10:],  # e.g. a setting the ceilings lowered
                }
            )
        return out

    def incidents(self, limit: int | None = None, *, open_only: bool = False) -> list[IncidentOut]:
        """Job incidents, oldest first: every one, the newest `limit`, or the open ones."""
        found = self._store.incidents(newest=limit, open_only=open_only)
        return [_incident(i) for i in found]

    def incident(self, incident: str) -> IncidentDetail | None:
        """One job incident with the verdict's evidence and the recovery's timeline."""
        job = incident.rpartition("#")[0]  # `<job>#<attempt>/<kind>...`: only its job's are read
        found = next((i for i in self._store.incidents(job) if i.id == incident), None)
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
        asked = [r for r in self.requests(found.job) if r.at >= found.opened_at]
        timeline += [request_mark(r) for r in asked]
        timeline.sort(key=lambda e: e.at)
        return IncidentDetail(
            **_incident(found).model_dump(), evidence=evidence, timeline=timeline,
            audit=[request_out(r) for r in asked],
        )  # fmt: skip

    def breakdown(self, incident: str) -> dict[str, float | None] | None:
        """One job incident's recovery time by part, from its timeline's marks (None when it
        has none: every incident's first mark is recorded as it opens)."""
        marks = self._store.timeline(incident)
        return breakdown(marks).as_dict() if marks else None


def _incident(i: JobIncident) -> IncidentOut:
    cause = str(i.verdict.cause) if i.verdict else str(i.kind)
    return IncidentOut(
        id=i.id, source="jobs", kind=str(i.kind), cause=cause,
        state="open" if i.phase in OPEN else "closed", opened_at=i.opened_at,
        updated_at=i.closed_at or i.opened_at, nodes=list(i.nodes), summary=i.summary,
    )  # fmt: skip
