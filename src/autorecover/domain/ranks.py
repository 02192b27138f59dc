"""Ranks two nodes both claim: the job's launch gave each node the same ranks.

A launcher tells every process its global rank and the world size, and frameworks announce
them once per process at set-up: Lightning (and NeMo on it) logs ``Initializing distributed:
GLOBAL_RANK: 1, MEMBER: 2/8`` (``initializing ddp: ...`` before 1.5, ``initializing deepspeed
distributed: ...`` under DeepSpeed), DeepSpeed's MPI discovery ``Discovered MPI settings of
world_rank=4, local_rank=0, world_size=8, ...``. Every global rank belongs to one process, so
one rank announced from two nodes in the same start-up means each node's processes were
started as the same ranks: a node rank, a task count or a rank variable the launch did not pass
(one Slurm task per node where the framework expects one per GPU, `--node_rank=0` on every
node). Their process group waits for ranks nobody has, or collides, and does so on every
retry: the job's launch, not a node. Two nodes announcing different world sizes in the same
start-up say the same (each node was told another job shape).

Ranks that never started say the same when Lightning leaves process start-up to Slurm ("Multi-
processing is handled by Slurm.", printed when the job's task count equals the devices asked
for): srun starts one task per device and every task announces its rank. When each node
announced at most one rank of a world that needs two or more per node, and nothing trained,
the tasks were not started: the batch script ran the training without `srun` (one process, on
the first node) or with fewer tasks per node than devices. Lightning waits for the rest until
its timeout, on every retry. Without that line the other ranks may only be hidden (torchrun's
`--local-ranks-filter` prints local rank 0 alone), so nothing is said.

What is not compared: announcements far apart in time (an elastic restart may hand the ranks
out again, on other nodes or in another world size), a rank announced twice on one node, and
nodes that each announce their whole world (every rank of it): one allocation may run separate
trainings, one per node, each with its own ranks 0..W-1. Only a world that spans nodes (a node
announcing fewer ranks than its world holds) can have a rank claimed twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from autorecover.domain.records import Activity, Blame, Finding, JobRecord, Source

SIGNAL = "launch.duplicate_rank"
UNSTARTED = "launch.ranks_not_started"
SLURM_MANAGED = "lightning.slurm_managed"
WEIGHT = 65  # above a bare exception: it says how the job was launched, not only that it failed
ANNOUNCEMENTS = frozenset({"lightning.rank_initializing", "deepspeed.mpi_discovered"})
# One start-up's announcements come within seconds of each other; a restart's come later.
SAME_START = timedelta(minutes=2)


def duplicate_ranks(findings: Sequence[Finding]) -> list[Finding]:
    """One application finding when two nodes announce the same global rank, or different
    world sizes, within one start-up; empty otherwise."""
    said = sorted(
        (f for f in findings if f.signal in ANNOUNCEMENTS and f.at is not None),
        key=lambda f: (f.at, f.node, f.line),
    )
    spanning = _spanning(said)
    for i, first in enumerate(said):
        for other in said[i + 1 :]:
            assert first.at is not None and other.at is not None
            if other.at - first.at > SAME_START:
                break
            if other.node == first.node or not ({first.node, other.node} & spanning):
                continue
            reason = _conflict(first, other)
            if reason is not None:
                return [_finding(first, other, reason)]
    return []


def unstarted_ranks(
    job: JobRecord, findings: Sequence[Finding], activity: Sequence[Activity]
) -> list[Finding]:
    """One application finding when Lightning left start-up to Slurm and each node announced
    at most one rank of a world that needs two or more per node, with no training progress
    anywhere; empty otherwise."""
    if not any(f.signal == SLURM_MANAGED for f in findings):
        return []
    if any(a.progress_lines or a.progress_records or a.last_progress_at for a in activity):
        return []
    said = [f for f in findings if f.signal == "lightning.rank_initializing"]
    timed = sorted((f for f in said if f.at is not None), key=lambda f: (f.at, f.node, f.line))
    if timed:  # one start-up's announcements: a restart's come later
        first, since = timed[0], timed[0].at
        assert since is not None
        start = [f for f in timed if f.at is not None and f.at - since <= SAME_START]
    elif said:  # no times at all (Lightning's own lines carry none): one start-up
        first, start = said[0], said
    else:
        return []
    worlds = {f.detail("world") for f in start}
    if len(worlds) != 1:
        return []  # several world sizes: `duplicate_ranks` says it
    world = int(worlds.pop() or 0)
    ranks: dict[str, set[str]] = {}
    for f in start:
        rank = f.detail("global_rank")
        if rank is not None:
            ranks.setdefault(f.node, set()).add(rank)
    started = set().union(*ranks.values()) if ranks else set()
    nodes = len(set(job.nodes)) or 1
    if world < 2 * nodes or len(started) >= world or any(len(r) > 1 for r in ranks.values()):
        return []
    shown = ", ".join(f"{r} on {n}" for n, rs in sorted(ranks.items()) for r in sorted(rs))
    return [
        Finding(
            signal=UNSTARTED,
            node=first.node,
            source=Source.LOGS,
            line=0,  # derived from every node's announcements
            text=(
                f"Lightning left starting its processes to Slurm, but only {len(started)} of "
                f"{world} ranks started (global rank {shown}; {world // nodes} per node on "
                f"{nodes} nodes) and nothing trained: the job's script ran the training "
                "without srun, or with fewer tasks per node than devices; the missing ranks "
                "never join, the same on every retry"
            ),
            blame=Blame.APPLICATION,
            weight=WEIGHT,
            at=first.at,
            rank=first.rank,
        )
    ]


def _spanning(said: Sequence[Finding]) -> set[str]:
    """The nodes that announced fewer distinct ranks than the world they named (of more than
    one process): their world spans other nodes."""
    ranks: dict[tuple[str, str], set[str]] = {}
    for f in said:
        world, rank = f.detail("world"), f.detail("global_rank")
        if world and rank is not None:
            ranks.setdefault((f.node, world), set()).add(rank)
    return {
        node for (node, world), seen in ranks.items() if int(world) > 1 and len(seen) < int(world)
    }


def _conflict(a: Finding, b: Finding) -> str | None:
    rank_a, rank_b = a.detail("global_rank"), b.detail("global_rank")
    world_a, world_b = a.detail("world"), b.detail("world")
    if world_a and world_b and world_a != world_b:
        return (
            f"{a.node} started its ranks in a world of {world_a} ({_where(a)}) and {b.node} in "
            f"one of {world_b} ({_where(b)}): each node was launched with another job shape"
        )
    if rank_a is not None and rank_a == rank_b:
        return (
            f"global rank {rank_a} started on both {a.node} ({_where(a)}) and {b.node} "
            f"({_where(b)}): each node's processes were launched as the same ranks (a node "
            "rank, task count or rank variable not passed)"
        )
    return None


def _where(f: Finding) -> str:
    return f"{f.source.value}/{f.node}.log:{f.line}"


def _finding(a: Finding, b: Finding, reason: str) -> Finding:
    return Finding(
        signal=SIGNAL,
        node=b.node,
        source=Source.LOGS,
        line=0,  # derived from two nodes' lines
        text=f"{reason}, the same on every retry",
        blame=Blame.APPLICATION,
        weight=WEIGHT,
        at=b.at,
        rank=b.rank,
        details=(("nodes", f"{a.node},{b.node}"),),
    )
