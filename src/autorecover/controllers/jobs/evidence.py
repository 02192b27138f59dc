"""Evidence for attribution from what job recovery sees live, and the signals it hands over.

Attribution (`domain.attribution.attribute`, the code behind `autorecover explain`) reads
findings. Live, they come from three places: the job's output (scanned like a bundle's
`logs/`), the node agents' signals for the job's nodes (here they become findings of the
node's system log, keeping the blame and weight the agent gave them), and the health
assessment (a hang that stopped on some nodes first names them, as attribution's own hang
rule does, but on the job's learned thresholds instead of a fixed floor). A hang the telemetry
library's watchdog raised, with no progress since, is a hang at once (`raised_hang`).

What goes back to hardware recovery is a `NodeSignal` with `probe=JOB` and the incident id:
hardware recovery caps such signals at suspect until a second one comes (its policy).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta

from autorecover.controllers.jobs.records import WatchedJob
from autorecover.domain.hangs import standing
from autorecover.domain.jobs.health import Assessment, Condition
from autorecover.domain.records import (
    Activity,
    Blame,
    Finding,
    JobRecord,
    NodeAction,
    Source,
    Verdict,
    action_rank,
)
from autorecover.domain.signals import NodeSignal, Probe

HANG_WEIGHT = 60  # as attribution's own "progress stopped first" finding
HANG_GATHER_S = 30.0  # for the other ranks' hang records (the library polls every 5 s)
STRAGGLER_WEIGHT = 60
_NO_STEP = frozenset({NodeAction.NONE, NodeAction.MONITOR, NodeAction.RESTART_APP})


def signal_findings(signals: Iterable[NodeSignal]) -> list[Finding]:
    """The node agents' signals as findings of each node's system log.

    Job recovery's own signals (`probe=JOB`) are left out: an attribution is no evidence for
    the next one."""
    out = []
    for s in signals:
        if s.probe is Probe.JOB:
            continue
        details = [*s.details, ("probe", str(s.probe))]
        if s.component:
            details.append(("component", s.component))
        if s.count > 1:
            details.append(("count", str(s.count)))
        out.append(
            Finding(
                signal=s.signal,
                node=s.node,
                source=Source.SYSTEM,
                line=0,  # not a line of a file: the agent's observation
                text=s.text or f"{s.probe}: {s.signal}",
                blame=s.blame,
                weight=s.weight,
                node_action=s.node_action,
                at=s.at,
                details=tuple(details),
            )
        )
    return out


def hang_findings(assessment: Assessment) -> list[Finding]:
    """A hang whose progress stopped on a few nodes first names those nodes."""
    if assessment.condition is not Condition.HUNG:
        return []
    since = f" since {assessment.since.isoformat()}" if assessment.since else ""
    return [
        Finding(
            signal="job.progress_stopped",
            node=node,
            source=Source.LOGS,
            line=0,
            text=f"no progress from {node}{since}: {assessment.reason}",
            blame=Blame.HARDWARE,
            weight=HANG_WEIGHT,
            at=assessment.since,
        )
        for node in assessment.nodes
    ]


def raised_hang(
    findings: Sequence[Finding],
    activity: Sequence[Activity],
    ranks: Collection[int],
    now: datetime,
) -> Assessment | None:
    """Hung now, when the telemetry library's watchdog says so and no progress came since.

    The library raises a hang only past its own threshold of silence, learned from the job's
    pace like the health assessment's, so waiting out the assessment's longer floor as well
    would only keep the GPUs idle; attribution reads the same records (`domain.hangs`). Each
    rank's watchdog wakes on its own poll, so the hang is called once every rank that reported
    progress (`ranks`) has its record in, or `HANG_GATHER_S` after the first: the stacks that
    place the stall are the late ranks' too."""
    raised = standing(findings, activity)
    if not raised:
        return None
    first = min(f.at for f in raised if f.at is not None)
    missing = set(ranks) - {f.rank for f in raised}
    if missing and now - first < timedelta(seconds=HANG_GATHER_S):
        return None
    count = len({(f.node, f.rank) for f in raised})
    progressed = [a.last_progress_at for a in activity if a.last_progress_at is not None]
    since = max(progressed) if progressed else first
    return Assessment(
        Condition.HUNG,
        f"the telemetry library's watchdog on {count} rank(s) saw no progress past its "
        "threshold, and none came since",
        since=since,
    )


def job_record(
    watched: WatchedJob, now: datetime, *, running: bool, earlier: Sequence[str] = ()
) -> JobRecord:
    """The attempt in the words attribution reads (a live `job.json`). Its nodes are where it
    runs now and, after them, the `earlier` nodes its output was read from: a pod evicted from
    a draining node and recreated elsewhere within the attempt leaves the node it failed on."""
    s = watched.status
    ended = None if running else (s.ended or now)
    started = s.started or now
    if ended is not None and started > ended:
        started = ended
    return JobRecord(
        scheduler=watched.scheduler,
        job=s.job,
        nodes=(*s.nodes, *(n for n in dict.fromkeys(earlier) if n not in s.nodes)),
        started=started,
        ended=ended,
        collected=max(now, ended) if ended else now,
        state=s.state,
        exit_codes=s.exit_codes,
    )


def suspect_signal(
    node: str,
    verdict: Verdict,
    findings: Sequence[Finding],
    *,
    job: str,
    incident: str,
    now: datetime,
    ended: datetime | None = None,
) -> NodeSignal:
    """A hardware verdict's suspect, named to hardware recovery with the line that decided.

    The signal is sent `now`, but its evidence is older: the deciding line's own time when
    the line carries one, else the attempt's end (`ended`). That time goes along as the
    detail `evidence_at`, so hardware recovery can tell evidence from before a node's last
    validation (history: the node was repaired since) from a new fault."""
    evidence = next((e for e in verdict.evidence if e.node == node), None)
    key = evidence.signal if evidence else "job.attributed"
    mine = [f for f in findings if f.node == node and f.signal == key]
    action = max((f.node_action for f in mine), key=action_rank, default=NodeAction.NONE)
    seen = max((f.at for f in mine if f.at is not None), default=None) or ended
    details: tuple[tuple[str, str], ...] = (("job", job), ("why", verdict.summary[:500]))
    if seen is not None:
        details += (("evidence_at", seen.isoformat()),)
    return NodeSignal(
        node=node,
        probe=Probe.JOB,
        signal=key,
        blame=Blame.HARDWARE,
        weight=max(verdict.strength, 1),
        # A suspect with no node action of its own still needs looking at: at least suspect.
        node_action=NodeAction.INSPECT if action in _NO_STEP else action,
        at=now,
        text=evidence.text if evidence else verdict.summary,
        details=details,
        incident=incident,
    )


def named_signal(
    node: str, key: str, why: str, *, job: str, incident: str, now: datetime
) -> NodeSignal:
    """A node named for what the job saw rather than one line (a straggler, suspicion)."""
    return NodeSignal(
        node=node,
        probe=Probe.JOB,
        signal=key,
        blame=Blame.HARDWARE,
        weight=STRAGGLER_WEIGHT,
        node_action=NodeAction.INSPECT,
        at=now,
        text=why,
        details=(("job", job),),
        incident=incident,
    )
