"""Job recovery's records: what the scheduler says about a job, and what the controller keeps.

`JobStatus` is the scheduler's word on one job (its current attempt); `WatchedJob` adds the
job's opt-in policy overrides. `JobIncident`, `JobAction`, `Handover`, `JobEvent` and the
timeline's `TimelineMark` are what the store keeps. Every enum value here is persisted: never
rename one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from autorecover.controllers.ports import ActionStatus, Outcome
from autorecover.controllers.requests import Settled
from autorecover.domain.jobs.decisions import Budget, JobHistory
from autorecover.domain.jobs.suspicion import Mark
from autorecover.domain.records import Action, Verdict
from autorecover.domain.signals import NodeSignal


class JobPhase(StrEnum):
    """Where the job's current attempt stands (persisted: never rename a value)."""

    PENDING = "pending"  # queued, or requeued and waiting for its delay or for nodes
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL: frozenset[JobPhase] = frozenset({JobPhase.SUCCEEDED, JobPhase.FAILED, JobPhase.CANCELLED})


@dataclass(frozen=True, slots=True)
class JobStatus:
    """The scheduler's view of a job's current attempt."""

    job: str
    phase: JobPhase
    state: str  # the scheduler's own word: "RUNNING", "NODE_FAIL", "PREEMPTED", "OOMKilled", ...
    attempt: int  # requeues so far (Slurm's restart count); each requeue starts a new attempt
    nodes: tuple[str, ...] = ()
    started: datetime | None = None
    ended: datetime | None = None
    exit_codes: tuple[tuple[str, int], ...] = ()  # the worst exit code per node
    exclusions: tuple[str, ...] = ()  # the nodes the job is kept off now


@dataclass(frozen=True, slots=True)
class WatchedJob:
    """A job that opted in to job recovery, with the policy overrides it asked for."""

    status: JobStatus
    scheduler: str = "local"  # "slurm", "kubernetes", "local", ...
    overrides: Mapping[str, object] = field(default_factory=dict)  # JobPolicy field -> value
    origin: str = ""  # where the overrides come from (a Slurm comment, an annotation)

    @property
    def job(self) -> str:
        """The job's id."""
        return self.status.job


class IncidentKind(StrEnum):
    """What was detected (persisted: never rename a value)."""

    FAILURE = "failure"  # the attempt ended badly
    HANG = "hang"  # running, no progress for longer than its own pace allows
    SLOW = "slow"  # throughput well below its own baseline (recorded, not acted on)
    STRAGGLER = "straggler"  # one node persistently slower than its peers (handed over)
    # A node warned: requeue without it after the next checkpoint (domain/jobs/migration.py)
    MIGRATION = "migration"


# Kinds whose requeue or stop a newer decision about the job supersedes.
ACTED_ON: frozenset[IncidentKind] = frozenset(
    {IncidentKind.FAILURE, IncidentKind.HANG, IncidentKind.MIGRATION}
)
# Kinds counted per attempt (episodes): at most one migration is considered per attempt.
EPISODIC: frozenset[IncidentKind] = frozenset(
    {IncidentKind.SLOW, IncidentKind.STRAGGLER, IncidentKind.MIGRATION}
)


class IncidentPhase(StrEnum):
    """Where an incident stands (persisted: never rename a value)."""

    ACTING = "acting"  # decided; its action is recorded and not yet done
    VERIFYING = "verifying"  # requeued; waiting to see the job restart as asked
    RECOVERING = "recovering"  # restarted; waiting for its first new step
    OBSERVED = "observed"  # a slowdown or straggler, recorded while it lasts
    CLOSED = "closed"
    FAILED = "failed"  # the action or its verification failed for good; a person was told


OPEN: frozenset[IncidentPhase] = frozenset(IncidentPhase) - {
    IncidentPhase.CLOSED,
    IncidentPhase.FAILED,
}

_A, _V, _R = IncidentPhase.ACTING, IncidentPhase.VERIFYING, IncidentPhase.RECOVERING
_O, _C, _F = IncidentPhase.OBSERVED, IncidentPhase.CLOSED, IncidentPhase.FAILED

# (from, to, label); None is a new incident. The diagram in docs/job-recovery.md is generated
# from this table by a test; `check_phase` raises on any other move.
PHASE_EDGES: tuple[tuple[IncidentPhase | None, IncidentPhase, str], ...] = (
    (None, _A, "failure or hang decided"),
    (None, _O, "slowdown, straggler or health warning"),
    (None, _C, "dry-run"),
    (_A, _V, "requeue done"),
    (_A, _C, "stop done, or superseded"),
    (_A, _F, "action failed"),
    (_V, _R, "verified"),
    (_V, _F, "verification failed, retries spent"),
    (_V, _C, "superseded"),
    (_R, _C, "first new step, attempt ended, superseded"),
    (_O, _A, "checkpoint after the warning"),
    (_O, _C, "back to pace, attempt ended, no checkpoint in time"),
)
PHASE_MOVES: frozenset[tuple[IncidentPhase | None, IncidentPhase]] = frozenset(
    (a, b) for a, b, _ in PHASE_EDGES
)


class PhaseError(ValueError):
    """An incident move the table does not allow."""


def check_phase(frm: IncidentPhase | None, to: IncidentPhase) -> None:
    """Raise unless the table allows an incident to move from `frm` to `to`."""
    if frm is not to and (frm, to) not in PHASE_MOVES:
        raise PhaseError(f"an incident may not move {frm or 'new'} -> {to}")


def phase_mermaid() -> str:
    """The incident phases as a mermaid state diagram, generated from the table."""
    lines = ["stateDiagram-v2"]
    lines += [f"    {a or '[*]'} --> {b}: {label}" for a, b, label in PHASE_EDGES]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class Decided:
    """The decision an incident took (the history it produced is kept per job)."""

    action: Action
    exclude: tuple[str, ...]
    delay_s: float
    budget: Budget
    reason: str
    hand_over: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobIncident:
    """One detected failure, hang, slowdown or straggler of one attempt of one job."""

    id: str
    job: str
    attempt: int
    kind: IncidentKind
    opened_at: datetime
    phase: IncidentPhase
    nodes: tuple[str, ...]  # the attempt's nodes
    summary: str  # the verdict's summary, or the assessment's reason
    verdict: Verdict | None = None
    decided: Decided | None = None
    dry_run: bool = False
    closed_at: datetime | None = None
    outcome: str = ""


def acted_on_attempt(incident: JobIncident) -> bool:
    """The incident's attempt was acted on: every failure and hang; a migration once it decided
    to requeue for real (waiting for a checkpoint, or in dry-run, the attempt runs on and its
    failure is recovered as any)."""
    if incident.kind is IncidentKind.MIGRATION:
        return incident.decided is not None and not incident.dry_run
    return incident.kind in (IncidentKind.FAILURE, IncidentKind.HANG)


class JobActionKind(StrEnum):
    """What job recovery asks of a port (persisted; the first three are `records.Action`'s)."""

    REQUEUE_EXCLUDING = "requeue_excluding"
    REQUEUE = "requeue"
    STOP = "stop"
    ALERT = "alert"


MUTATIONS: frozenset[JobActionKind] = frozenset(
    {JobActionKind.REQUEUE_EXCLUDING, JobActionKind.REQUEUE, JobActionKind.STOP}
)
REQUEUES: frozenset[JobActionKind] = frozenset(
    {JobActionKind.REQUEUE_EXCLUDING, JobActionKind.REQUEUE}
)


@dataclass(frozen=True, slots=True)
class JobAction:
    """One thing to do to a job, with its provenance."""

    id: str  # deterministic: the same decision always has the same id
    job: str
    kind: JobActionKind
    at: datetime
    by: str
    why: str
    evidence: tuple[str, ...] = ()
    incident: str | None = None
    exclude: tuple[str, ...] = ()  # every node the requeued job must avoid
    delay_s: float = 0.0
    attempt: int = 0  # the attempt it acts on; a requeue is verified by a later one


@dataclass(frozen=True, slots=True)
class JobActionRecord:
    """An action as the store keeps it: intended -> done | failed, or would-have (dry-run)."""

    action: JobAction
    status: ActionStatus
    updated_at: datetime
    result: str = ""
    verified: str = ""  # "" until checked; "ok: ..." or the failure is in `result`


@dataclass(frozen=True, slots=True)
class Handover:
    """A node named to hardware recovery, waiting in the store's outbox until delivered."""

    id: str
    signal: NodeSignal
    dry_run: bool = False  # recorded only: never delivered


@dataclass(frozen=True, slots=True)
class JobEvent:
    """A note on a job's record that is no decision (an in-job restart, a policy error)."""

    job: str
    at: datetime
    by: str
    text: str
    key: str | None = None  # events with a key are recorded once


class Stage(StrEnum):
    """The moments of an incident's timeline (persisted: never rename a value)."""

    FAILED = "failed"  # the job ended, or its progress stopped
    DETECTED = "detected"
    DECIDED = "decided"
    STOPPED = "stopped"  # the requeue or stop was done
    RESCHEDULED = "rescheduled"  # the new attempt started (the scheduler's word)
    STARTED = "started"  # the new attempt's first telemetry record
    CHECKPOINT_LOADED = "checkpoint_loaded"
    FIRST_STEP = "first_step"
    LOST_WORK = "lost_work"  # its value: seconds of training since the last checkpoint


@dataclass(frozen=True, slots=True)
class TimelineMark:
    """One moment of an incident; each stage is recorded once."""

    incident: str
    stage: Stage
    at: datetime
    value: float | None = None
    detail: str = ""


@dataclass(slots=True)
class JobChanges:
    """Everything one pass records, written in one transaction."""

    at: datetime
    histories: dict[str, JobHistory] = field(default_factory=dict)
    incidents: list[JobIncident] = field(default_factory=list)  # inserted or updated by id
    timeline: list[TimelineMark] = field(default_factory=list)
    actions: list[JobActionRecord] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)  # intended -> done | failed
    verifications: list[Outcome] = field(default_factory=list)  # done -> verified | failed
    handovers: list[Handover] = field(default_factory=list)
    suspicion: dict[str, Mark] = field(default_factory=dict)
    events: list[JobEvent] = field(default_factory=list)
    settled: list[Settled] = field(default_factory=list)  # operator requests acted on

    def __bool__(self) -> bool:
        return bool(
            self.histories or self.incidents or self.timeline or self.actions or self.outcomes
            or self.verifications or self.handovers or self.suspicion or self.events
            or self.settled
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class JobSnapshot:
    """What the controller needs from the store to resume after a restart."""

    histories: Mapping[str, JobHistory] = field(default_factory=dict)
    incidents: tuple[JobIncident, ...] = ()  # open ones
    handled: frozenset[tuple[str, int]] = frozenset()  # (job, attempt) already acted on
    episodes: Mapping[tuple[str, int, IncidentKind], int] = field(default_factory=dict)
    pending: tuple[JobActionRecord, ...] = ()  # intended, in the order recorded
    verifying: tuple[JobActionRecord, ...] = ()  # requeues done, not yet verified
    suspicion: Mapping[str, Mark] = field(default_factory=dict)
    stopped: frozenset[str] = frozenset()  # jobs a person told job recovery to leave alone
