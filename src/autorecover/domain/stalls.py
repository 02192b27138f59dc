"""Stalls: a running job whose progress stopped, and the node that stopped first, if one did.

Read from each node's job-log activity (`Activity`, which the scanner and the job watcher
fill): the newest progress line anywhere, compared with how long the job's steps and its logged
progress usually take. A job is called hung only when every node has been quiet for longer
than `HANG_FLOOR`, than `HANG_INTERVALS` typical step intervals and than `HANG_GAPS` gaps
between its progress lines; a node whose progress stopped a quarter of that before the newest
one's, or that never spoke while most did (or while only its kernel reported CPU lockups), is a
suspect (a hardware finding, `job.progress_stopped`). A node that logged no progress while
another did (a job that logs from rank 0 only) is not compared: its last line is when it last
spoke, and the job's steps went on with it. `attribution.py` decides what a stall
means beside the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from autorecover.domain.records import Activity, Blame, Finding, JobRecord, Source

HANG_FLOOR = timedelta(minutes=10)  # never call a hang sooner than this
HANG_INTERVALS = 20  # ... nor sooner than this many typical step intervals
HANG_GAPS = 3  # ... nor than this many gaps between a log's progress lines (every N steps)


@dataclass(frozen=True, slots=True)
class Stall:
    suspects: list[str]
    findings: list[Finding]
    since: datetime  # the newest progress (or line) on any node
    threshold: timedelta  # how long nothing had to move for a hang


# A node's own kernel saying its CPUs stopped scheduling (a soft or hard lockup, an RCU stall):
# a node in that state runs nothing of the job, whatever wedged it.
LOCKUPS = frozenset({"kernel.soft_lockup", "kernel.hard_lockup", "kernel.rcu_stall"})


def stalled(
    job: JobRecord, activity: Sequence[Activity], seen: Sequence[Finding] = ()
) -> Stall | None:
    """A running job whose progress stopped; the node that stopped first, if one did.
    `seen`: what the scanner read, for the silent nodes whose own kernel reported CPU
    lockups (`LOCKUPS`)."""
    last: dict[str, datetime] = {}
    intervals: list[float] = []
    gaps: list[float] = []  # between a log's progress lines
    spoke: set[str] = set()  # nodes whose job log has lines, stamped or not
    began: dict[str, datetime] = {}  # each node's first stamped job-log line
    progressed: set[str] = set()  # nodes whose job log recorded training progress
    for a in activity:
        if a.source is not Source.LOGS or not a.present:
            continue
        if a.lines:
            spoke.add(a.node)
        if a.first_at is not None:
            began[a.node] = min(a.first_at, began.get(a.node, a.first_at))
        if a.last_progress_at is not None:
            progressed.add(a.node)
        at = a.last_progress_at or a.last_at
        if at is not None:
            last[a.node] = max(at, last.get(a.node, at))
        if a.median_step_interval_s:
            intervals.append(a.median_step_interval_s)
        if a.median_progress_gap_s:
            gaps.append(a.median_progress_gap_s)
    if not last:
        return None
    typical = max(intervals) if intervals else 0.0
    threshold = max(
        HANG_FLOOR,
        timedelta(seconds=HANG_INTERVALS * typical),
        timedelta(seconds=HANG_GAPS * max(gaps, default=0.0)),
    )
    newest = max(last.values())
    if job.collected - newest < threshold:
        return None  # still making progress somewhere recently
    oldest = min(last.values())
    suspects: list[str] = []
    findings: list[Finding] = []
    if newest - oldest >= threshold / 4 and newest - oldest >= timedelta(minutes=1):
        # A node that logged no progress while another did (a job that logs from rank 0
        # only): its last line is not when its progress stopped, only when it last spoke.
        suspects = sorted(
            n for n, at in last.items()
            if newest - at >= threshold / 4 and not _only_started(n, at, began)
            and (n in progressed or not progressed)
        )  # fmt: skip
        if len(suspects) * 2 > len(last):
            suspects = []  # most nodes stopped early: no single culprit
    # A node that said nothing (no log, an empty one) is silent since the start; one whose
    # lines carry no time (a pasted snippet, NCCL's unstamped lines) is not: when it stopped
    # is unknown, and an unknown is no evidence against it.
    # Half the nodes or more silent is a collection gap as often as a fault, unless the silent
    # nodes, and only they, have kernels reporting CPU lockups.
    silent = [n for n in job.nodes if n not in last and n not in spoke]
    locked = {f.node for f in seen if f.signal in LOCKUPS and f.source is Source.SYSTEM}
    if len(silent) * 2 < len(job.nodes) or (silent and locked == set(silent)):
        suspects.extend(silent)
    # Ray's driver prints its workers' lines under `(Worker pid=N, ip=A)`; a worker node's own
    # job log then holds little more than its raylet starting. Such a line from an address no
    # node is known by may be any other node speaking, later than its own log did: its quiet
    # log is then no evidence that it stopped.
    relayed = [
        (f.node, f.at) for f in seen
        if f.at is not None and f.origin is None and f.detail("via")
        and job.node_named(f.detail("via")) is None
    ]  # fmt: skip
    suspects = [
        n for n in suspects
        if not any(by != n and at > last.get(n, job.started) for by, at in relayed)
    ]  # fmt: skip
    for node in suspects:
        at = last.get(node)
        findings.append(
            Finding(
                signal="job.progress_stopped",
                node=node,
                source=Source.LOGS,
                line=0,
                text=f"no progress from {node} since {at.isoformat() if at else 'the start'}",
                blame=Blame.HARDWARE,
                weight=60,
                at=at,
            )
        )
    return Stall(suspects=suspects, findings=findings, since=newest, threshold=threshold)


def _only_started(node: str, last: datetime, began: dict[str, datetime]) -> bool:
    """True when `node`'s job log ends before any other node's begins: it printed its start-up
    and then only what the others print (a serving engine's worker, a launcher's helper), so
    its quiet log says nothing about when it stopped, as with lines that carry no time."""
    others = [at for n, at in began.items() if n != node]
    return bool(others) and last < min(others)
