"""Opening an incident, purely: a verdict and the job's history in; the decision, the actions to
record, the nodes to hand over and the first timeline marks out.

`decide_job` (domain) decides by cause and budget; this turns its decision into records with
deterministic ids, so a controller that crashed before recording re-derives the very same
ones. Suspicion is added for every node a hardware verdict names (and for stragglers), and a
node whose decayed score crosses the threshold is handed over again for that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from autorecover.controllers.jobs.evidence import named_signal, suspect_signal
from autorecover.controllers.jobs.records import (
    Decided,
    Handover,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobEvent,
    JobIncident,
    Stage,
    TimelineMark,
    WatchedJob,
)
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.jobs.cliques import widen_to_cliques
from autorecover.domain.jobs.decisions import JobHistory, decide_job
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.jobs.suspicion import Suspicion
from autorecover.domain.records import Action, Cause, Evidence, Finding, Verdict


def incident_id(job: str, attempt: int, kind: IncidentKind, episode: int = 0) -> str:
    """`<job>#<attempt>/<kind>[/<episode>]`: one failure or hang per attempt, episodes else."""
    base = f"{job}#{attempt}/{kind}"
    return f"{base}/{episode}" if episode else base


def action_id(incident: str, kind: JobActionKind, retry: int = 0) -> str:
    """`<incident>/<kind>[/retry-<n>]`."""
    return f"{incident}/{kind}/retry-{retry}" if retry else f"{incident}/{kind}"


def retry_of(action: str) -> int:
    """The retry number an action id carries (0 for the first try)."""
    _, _, last = action.rpartition("/")
    return int(last[6:]) if last.startswith("retry-") and last[6:].isdigit() else 0


def evidence_lines(verdict: Verdict) -> tuple[str, ...]:
    """The verdict's evidence as the lines provenance carries."""
    return tuple(_line(e) for e in verdict.evidence)


def _line(e: Evidence) -> str:
    where = f"{e.node} {e.source}:{e.line}" if e.line else f"{e.node} {e.source}"
    return f"{where} [{e.signal}] {e.text}"


@dataclass(frozen=True, slots=True)
class Context:
    """What an incident is opened with besides the verdict."""

    by: str
    policy: JobPolicy
    now: datetime
    dry_run: bool
    max_hand_over: int
    suspicion_threshold: float
    topology: Topology = NO_TOPOLOGY  # for jobs that need whole NVLink cliques


@dataclass(frozen=True, slots=True)
class Opened:
    """Everything opening one incident records."""

    incident: JobIncident
    history: JobHistory
    suspicion: Suspicion
    actions: tuple[JobAction, ...] = ()
    handovers: tuple[Handover, ...] = ()
    timeline: tuple[TimelineMark, ...] = ()
    events: tuple[JobEvent, ...] = ()


def open_failure(
    ctx: Context,
    watched: WatchedJob,
    kind: IncidentKind,
    verdict: Verdict,
    findings: Sequence[Finding],
    history: JobHistory,
    suspicion: Suspicion,
    *,
    checkpoint: int | None,
    failed_at: datetime,
    lost: tuple[float, str] | None,
    origin: str = "",
    step: int | None = None,
    rank: int | None = None,
) -> Opened:
    """A failed or hung attempt: decide, and say what to record."""
    s, now = watched.status, ctx.now
    iid = incident_id(s.job, s.attempt, kind)
    widened = None
    if ctx.policy.whole_cliques and verdict.cause is Cause.HARDWARE:
        avoided = history.excluded(now)
        widened = widen_to_cliques(verdict.suspect_nodes, ctx.topology, s.nodes, avoided)
    d = decide_job(
        verdict, history, now, ctx.policy, incident=iid, checkpoint=checkpoint, widened=widened,
        origin=origin, step=step, rank=rank,
    )  # fmt: skip
    evidence = evidence_lines(verdict)
    kind_ = JobActionKind(d.action.value)
    actions = [
        JobAction(
            action_id(iid, kind_), s.job, kind_, now, ctx.by, d.reason, evidence, iid,
            d.exclude, d.delay_s, s.attempt,
        )
    ]  # fmt: skip
    if d.action is Action.STOP:
        why = f"job {s.job} stopped: {d.reason}. {verdict.summary}"
        alert = action_id(iid, JobActionKind.ALERT)
        actions.append(
            JobAction(alert, s.job, JobActionKind.ALERT, now, ctx.by, why, evidence, iid)
        )
    events: list[JobEvent] = []
    named = d.hand_over
    if len(named) > ctx.max_hand_over:
        text = (
            f"{iid}: {len(named)} suspects in one incident is more than {ctx.max_hand_over}: "
            "none handed over to hardware recovery (the job still avoids them)"
        )
        events.append(JobEvent(s.job, now, ctx.by, text, key=f"{iid}/too-many-suspects"))
        named = ()
    handovers = [
        Handover(
            f"{iid}/hand_over/{node}",
            suspect_signal(
                node, verdict, findings, job=s.job, incident=iid, now=now, ended=s.ended
            ),
            ctx.dry_run,
        )
        for node in named
    ]
    suspicion, more = _suspect(ctx, suspicion, named, s.job, iid)
    handovers.extend(more)
    incident = JobIncident(
        iid, s.job, s.attempt, kind, now, IncidentPhase.ACTING, s.nodes, verdict.summary,
        verdict, Decided(d.action, d.exclude, d.delay_s, d.budget, d.reason, d.hand_over),
        ctx.dry_run,
    )  # fmt: skip
    timeline = [
        TimelineMark(iid, Stage.FAILED, failed_at),
        TimelineMark(iid, Stage.DETECTED, now),
    ]
    if lost is not None:
        timeline.append(TimelineMark(iid, Stage.LOST_WORK, now, lost[0], lost[1]))
    return Opened(
        incident, d.history, suspicion, tuple(actions), tuple(handovers), tuple(timeline),
        tuple(events),
    )  # fmt: skip


def open_straggler(
    ctx: Context,
    watched: WatchedJob,
    episode: int,
    nodes: Sequence[str],
    reason: str,
    suspicion: Suspicion,
    history: JobHistory,
) -> Opened:
    """A node persistently slower than its peers: recorded, handed over, the job left alone."""
    s, now = watched.status, ctx.now
    iid = incident_id(s.job, s.attempt, IncidentKind.STRAGGLER, episode)
    handovers = [
        Handover(
            f"{iid}/hand_over/{node}",
            named_signal(node, "job.straggler", reason, job=s.job, incident=iid, now=now),
            ctx.dry_run,
        )
        for node in nodes
    ]
    suspicion, more = _suspect(ctx, suspicion, nodes, s.job, iid)
    incident = JobIncident(
        iid, s.job, s.attempt, IncidentKind.STRAGGLER, now, IncidentPhase.OBSERVED, s.nodes,
        reason, dry_run=ctx.dry_run,
    )  # fmt: skip
    timeline = (TimelineMark(iid, Stage.DETECTED, now),)
    return Opened(incident, history, suspicion, (), (*handovers, *more), timeline)


def open_slow(ctx: Context, watched: WatchedJob, episode: int, reason: str) -> JobIncident:
    """Throughput well below the job's own baseline: recorded while it lasts."""
    s = watched.status
    iid = incident_id(s.job, s.attempt, IncidentKind.SLOW, episode)
    return JobIncident(
        iid, s.job, s.attempt, IncidentKind.SLOW, ctx.now, IncidentPhase.OBSERVED, s.nodes,
        reason, dry_run=ctx.dry_run,
    )  # fmt: skip


def _suspect(
    ctx: Context,
    suspicion: Suspicion,
    nodes: Sequence[str],
    job: str,
    incident: str,
) -> tuple[Suspicion, list[Handover]]:
    """Add suspicion for named nodes; hand over again those that cross the threshold now.

    The second hand-over is a second reason, not a repeat: hardware recovery lets a node
    named once go back after a quiet period, and one that keeps being named should not."""
    out: list[Handover] = []
    for node in nodes:
        before = suspicion.score(node, ctx.now)
        suspicion = suspicion.add(node, ctx.now)
        after = suspicion.score(node, ctx.now)
        if before < ctx.suspicion_threshold <= after:
            why = f"{node} named in incidents of jobs again and again (suspicion {after:.1f})"
            signal = named_signal(
                node, "job.suspicion", why, job=job, incident=incident, now=ctx.now
            )
            out.append(Handover(f"{incident}/suspicion/{node}", signal, ctx.dry_run))
    return suspicion, out
