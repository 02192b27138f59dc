"""Job recovery's store in memory, with the SQLite store's semantics: for unit tests and the
simulator. Records are immutable, so they are kept as they are; a controller built afresh on
the same `MemoryJobStore` sees exactly what a restarted one would see in SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime

from autorecover.adapters.store.memory_requests import RequestBook
from autorecover.controllers.jobs.records import (
    EPISODIC,
    OPEN,
    REQUEUES,
    Handover,
    IncidentKind,
    IncidentPhase,
    JobActionRecord,
    JobChanges,
    JobEvent,
    JobIncident,
    JobSnapshot,
    Stage,
    TimelineMark,
    acted_on_attempt,
)
from autorecover.controllers.ports import ActionStatus
from autorecover.controllers.requests import (
    JOB_CONTROLS,
    NO_CONTROLS,
    Control,
    Controls,
    OperatorRequest,
    RequestStatus,
    receive,
    stopped_jobs,
)
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.suspicion import Mark
from autorecover.domain.signals import NodeSignal


class MemoryJobStore:
    """The job store in memory; `controls` reads the engine's switches (its memory store's)."""

    def __init__(self, controls: Callable[[], Controls] = lambda: NO_CONTROLS) -> None:
        self._controls = controls
        self._book = RequestBook()  # requests about jobs
        self._requests = self._book.by_id
        self._histories: dict[str, JobHistory] = {}
        self._incidents: dict[str, JobIncident] = {}
        self._timeline: dict[tuple[str, Stage], TimelineMark] = {}
        self._actions: dict[str, JobActionRecord] = {}  # insertion-ordered
        self._handovers: dict[str, Handover] = {}
        self._delivered: dict[str, datetime] = {}
        self._suspicion: dict[str, Mark] = {}
        self._events: list[JobEvent] = []
        self._event_keys: set[str] = set()
        self.commits = 0

    def load(self) -> JobSnapshot:
        """Everything the controller needs to resume."""
        incidents = self.incidents()
        episodes: dict[tuple[str, int, IncidentKind], int] = {}
        for i in incidents:
            if i.kind in EPISODIC:
                key = (i.job, i.attempt, i.kind)
                episodes[key] = episodes.get(key, 0) + 1
        verifying = [
            r
            for r in self._actions.values()
            if r.status is ActionStatus.DONE
            and not r.verified
            and r.action.kind in REQUEUES
            and (found := self._incidents.get(r.action.incident or "")) is not None
            and found.phase is IncidentPhase.VERIFYING
        ]
        return JobSnapshot(
            histories=dict(self._histories),
            incidents=tuple(i for i in incidents if i.phase in OPEN),
            handled=frozenset(
                {(i.job, i.attempt) for i in incidents if acted_on_attempt(i)}
                | {
                    (r.action.job, r.action.attempt)
                    for r in self._actions.values()
                    if r.action.id.startswith("operator/")  # a person's retry
                }
            ),
            episodes=episodes,
            pending=tuple(r for r in self._actions.values() if r.status is ActionStatus.INTENDED),
            verifying=tuple(verifying),
            suspicion=dict(self._suspicion),
            stopped=stopped_jobs(
                (r.target, r.kind)
                for r in self._requests.values()
                if r.status is RequestStatus.DONE and r.kind in JOB_CONTROLS
            ),
        )

    def commit(self, changes: JobChanges) -> None:
        """Record one pass (nothing here can fail halfway)."""
        self.commits += 1
        self._histories.update(changes.histories)
        for i in changes.incidents:
            self._incidents[i.id] = i
        for m in changes.timeline:
            self._timeline.setdefault((m.incident, m.stage), m)
        for r in changes.actions:
            self._actions.setdefault(r.action.id, r)
        for o in changes.outcomes:
            old = self._actions.get(o.action_id)
            if old is not None and old.status is ActionStatus.INTENDED:
                self._actions[o.action_id] = replace(
                    old, status=o.status, updated_at=o.at, result=o.result
                )
        for o in changes.verifications:
            old = self._actions.get(o.action_id)
            if old is not None and old.status is ActionStatus.DONE:
                ok = o.status is ActionStatus.DONE
                self._actions[o.action_id] = replace(
                    old,
                    status=o.status,
                    updated_at=o.at,
                    verified=o.result if ok else "",
                    result="" if ok else o.result,
                )
        for h in changes.handovers:
            self._handovers.setdefault(h.id, h)
        self._suspicion.update(changes.suspicion)
        for e in changes.events:
            if e.key is None or e.key not in self._event_keys:
                self._events.append(e)
                if e.key is not None:
                    self._event_keys.add(e.key)
        self._book.settle(changes.settled)

    def controls(self) -> Controls:
        """The engine's switches in force."""
        return self._controls()

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Requests about jobs not yet settled, oldest first."""
        return self._book.pending(kinds)

    def submit(self, request: OperatorRequest) -> OperatorRequest:
        """Record a request about a job once per id; as stored."""
        found = self._book.stored(request)
        if found is not None:
            return found
        stored, _ = receive(request, {})
        self._book.add(stored)
        return stored

    def requests(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Requests about a job (or any of `targets`, or all), oldest first."""
        return self._book.about(target, targets, limit)

    def history(self, job: str) -> JobHistory:
        """A job's history."""
        return self._histories.get(job, JobHistory())

    def incidents(
        self, job: str | None = None, *, newest: int | None = None, open_only: bool = False
    ) -> list[JobIncident]:
        """Recorded incidents, oldest first: of one job or all, only the `newest` so many,
        only the open ones."""
        found = [i for i in self._incidents.values() if (job is None or i.job == job)
                 and (not open_only or i.phase in OPEN)]  # fmt: skip
        ordered = sorted(found, key=lambda i: (i.opened_at, i.id))
        return ordered if newest is None else ordered[len(ordered) - newest :]

    def timeline(self, incident: str) -> list[TimelineMark]:
        """An incident's timeline, in order of time."""
        return sorted((m for m in self._timeline.values() if m.incident == incident), key=_at)

    def actions(self, job: str | None = None) -> list[JobActionRecord]:
        """Recorded actions, oldest first."""
        return [r for r in self._actions.values() if job is None or r.action.job == job]

    def events(self, job: str | None = None) -> list[JobEvent]:
        """Recorded events, oldest first."""
        return [e for e in self._events if job is None or e.job == job]

    def pending_handovers(self, limit: int = 100) -> list[Handover]:
        """Hand-overs not yet delivered, oldest first (dry-run ones never are)."""
        pending = [
            h for h in self._handovers.values() if not h.dry_run and h.id not in self._delivered
        ]
        return pending[:limit]

    def handed_over(self, ids: Sequence[str], at: datetime) -> None:
        """Mark hand-overs delivered."""
        for i in ids:
            self._delivered.setdefault(i, at)

    def handovers(self) -> list[Handover]:
        """Every recorded hand-over, oldest first."""
        return list(self._handovers.values())


def _at(m: TimelineMark) -> datetime:
    return m.at


class MemorySignals:
    """The node agents' signals from a list (hardware recovery's `MemoryStore.signals`, live)."""

    def __init__(self, signals: list[NodeSignal] | None = None) -> None:
        self.recorded: list[NodeSignal] = signals if signals is not None else []

    def add(self, *signals: NodeSignal) -> None:
        """More signals, as if recorded by hardware recovery."""
        self.recorded.extend(signals)

    def signals(self, nodes: Sequence[str], since: datetime, until: datetime) -> list[NodeSignal]:
        """Signals about these nodes observed within [since, until], oldest first."""
        wanted = set(nodes)
        found = [s for s in self.recorded if s.node in wanted and since <= s.at <= until]
        return sorted(found, key=lambda s: s.at)
