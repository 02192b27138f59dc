"""Unexplained failures of different jobs that keep starting on one node.

One job's failure that nothing explains is read on its own: `unknown`, a bounded retry on the
same nodes. Nothing in its lines names a node, and that is right for one failure. But a GPU
that corrupts memory now and then, a DIMM, a NIC that drops a few packets, leave no line of
their own; what they leave is a pattern no single job shows: the unexplained failures of
different jobs keep starting on the same node. Job recovery keeps every job's history (each
failure with the node it started on, `attribution.recorded`), so it can see that pattern.

`recurring_origin` is the whole rule, pure: when this failure is `unknown`, started on a known
node, and unexplained failures of at least `min_jobs - 1` other jobs started on that same node
within `window_s`, the verdict becomes hardware on that node, its first evidence line naming
the other jobs and when. Only `unknown` failures count, never an application error (a job's
own bug fails wherever its first rank runs), a transient or a cascade every node complained in
(the first of many to complain is chance: `origin` is then empty); and the same job failing
again is its own failure (`history.recall`), not a node's. When every one of the failures was
on rank 0 (each line's rank prefix says so), the code only rank 0 runs (saving, logging,
evaluating) is the common factor, not the node: Slurm gives rank 0 to the first node of an
allocation, so a sweep of one program whose rank 0 crashes lands on the same node again and
again. Any other rank is where the node puts it, and counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from autorecover.domain.jobs.decisions import Budget, JobHistory
from autorecover.domain.records import ACTION_FOR_CAUSE, Cause, Evidence, Source, Verdict

RECURRENCE_SIGNAL = "job.recurring_origin"
RECURRENCE_WEIGHT = 60  # a suspect: as strong as a shape rule's node (docs/attribution.md)


def recurring_origin(
    verdict: Verdict,
    origin: str | None,
    job: str,
    histories: Mapping[str, JobHistory],
    now: datetime,
    *,
    min_jobs: int,
    window_s: float,
    rank: int | None = None,
) -> Verdict:
    """`verdict`, or hardware on `origin` when unexplained failures of `min_jobs` different
    jobs (this one included) started there within `window_s` before `now`. `min_jobs` 0 (or
    1) turns the rule off: one job's failure alone never names a node."""
    if min_jobs < 2 or verdict.cause is not Cause.UNKNOWN or not origin:
        return verdict
    since = now - timedelta(seconds=window_s)
    others: dict[str, datetime] = {}
    ranks: set[int | None] = {rank}
    for other, history in histories.items():
        if other == job:
            continue
        for a in history.attempts:
            unexplained = a.cause is Cause.UNKNOWN or a.root == RECURRENCE_SIGNAL
            if (
                unexplained
                and a.origin == origin
                and a.budget is not Budget.PROACTIVE
                and since < a.at <= now
            ):
                others[other] = max(a.at, others.get(other, a.at))
                ranks.add(a.rank)
    if len(others) + 1 < min_jobs:
        return verdict
    if ranks == {0}:
        return verdict  # rank 0 every time: the code only it runs, wherever it ran
    earlier = sorted(others.items(), key=lambda item: (item[1], item[0]))
    listed = ", ".join(f"{j} at {at.isoformat(timespec='seconds')}" for j, at in earlier)
    hours = window_s / 3600
    text = (
        f"unexplained failures of {len(others) + 1} different jobs started on {origin} within "
        f"{hours:g} h: this one and {listed}"
    )
    line = Evidence(origin, Source.JOB, 0, RECURRENCE_SIGNAL, text)
    summary = (
        f"hardware on {origin}: {text}; no line explains any of them, the node they share "
        f"does (this failure: {verdict.summary})"
    )
    return Verdict(
        Cause.HARDWARE,
        (origin,),
        ACTION_FOR_CAUSE[Cause.HARDWARE],
        (line, *verdict.evidence),
        summary,
        max(verdict.strength, RECURRENCE_WEIGHT),
    )
