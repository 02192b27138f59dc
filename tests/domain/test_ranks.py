"""Ranks two nodes both claim in one start-up: the job's launch, not a node.

Lines in Lightning's and DeepSpeed's announcement formats, scanned by the real catalog; each
node's file is scanned on its own, as an incident's logs are.
"""

from __future__ import annotations

import io
from datetime import timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.ranks import SIGNAL, duplicate_ranks
from autorecover.domain.records import Blame, Cause, Finding, JobRecord, Source

from .golden import SCANNER, T0


def lightning(rank: int, world: int, minute: int = 0, second: int = 0) -> str:
    return (
        f"2026-03-04 00:{minute:02d}:{second:02d},100 INFO Initializing distributed: "
        f"GLOBAL_RANK: {rank}, MEMBER: {rank + 1}/{world}"
    )


def deepspeed(rank: int, world: int) -> str:
    return (
        "[2026-03-04 00:00:05,621] [INFO] [comm.py:702:mpi_discovery] Discovered MPI settings of "
        f"world_rank={rank}, local_rank={rank % 4}, world_size={world}, master_addr=10.0.0.1, "
        "master_port=29500"
    )


def scan(node: str, *lines: str) -> list[Finding]:
    text = "".join(line + "\n" for line in lines).encode()
    return SCANNER.scan(io.BytesIO(text), node=node, source=Source.LOGS, reference=T0).findings


def job(*nodes: str) -> JobRecord:
    return JobRecord(scheduler="slurm", job="7", nodes=nodes, started=T0,
                     ended=T0 + timedelta(minutes=40), collected=T0 + timedelta(minutes=45),
                     state="FAILED")  # fmt: skip


def test_one_rank_started_on_two_nodes_is_the_jobs_launch() -> None:
    # NeMo on Lightning with one Slurm task per node: each node starts ranks 0-3 of 8
    findings = [
        *scan("n1", *(lightning(r, 8, second=r) for r in range(4))),
        *scan("n2", *(lightning(r, 8, second=r + 1) for r in (2, 0, 1, 3))),
    ]
    [dup] = duplicate_ranks(findings)
    assert (dup.signal, dup.blame) == (SIGNAL, Blame.APPLICATION)
    assert "global rank 0" in dup.text
    assert "logs/n1.log:1" in dup.text and "logs/n2.log:2" in dup.text  # both announcements cited
    verdict = attribute(job("n1", "n2"), findings, [], {})
    assert verdict.cause is Cause.APPLICATION and verdict.suspect_nodes == ()
    assert verdict.evidence[0].signal == SIGNAL


def test_distinct_ranks_on_each_node_are_a_healthy_start() -> None:
    findings = [
        *scan("n1", *(lightning(r, 8) for r in range(4))),
        *scan("n2", *(lightning(r, 8) for r in range(4, 8))),
    ]
    assert duplicate_ranks(findings) == []
    mpi = [*scan("n1", deepspeed(0, 8), deepspeed(1, 8)), *scan("n2", deepspeed(4, 8))]
    assert duplicate_ranks(mpi) == []


def test_nodes_told_different_world_sizes_are_the_jobs_launch() -> None:
    findings = [*scan("n1", deepspeed(0, 8), deepspeed(1, 8)), *scan("n2", deepspeed(2, 4))]
    [dup] = duplicate_ranks(findings)
    assert "world of 8" in dup.text and "one of 4" in dup.text


def test_a_restart_may_hand_the_ranks_out_again() -> None:
    # an elastic restart 20 minutes later gives rank 0 to the other node, in a smaller world
    findings = [
        *scan("n1", lightning(0, 8, minute=0), lightning(1, 8, minute=0)),
        *scan("n2", lightning(4, 8, minute=0), lightning(0, 4, minute=20)),
    ]
    assert duplicate_ranks(findings) == []


def test_one_node_announcing_a_rank_twice_names_no_duplicate() -> None:
    findings = scan("n1", lightning(0, 2), lightning(0, 2, second=30), lightning(1, 2))
    assert duplicate_ranks(findings) == []


def test_separate_trainings_one_per_node_each_with_its_whole_world_are_not_compared() -> None:
    # one allocation running a 4-GPU training on each node: ranks 0-3 of 4 on both
    findings = [
        *scan("n1", *(lightning(r, 4, second=r) for r in range(4))),
        *scan("n2", *(lightning(r, 4, second=r) for r in range(4))),
    ]
    assert duplicate_ranks(findings) == []
    # single-process runs (a world of one) on every node, by design
    alone = [*scan("n1", lightning(0, 1)), *scan("n2", lightning(0, 1))]
    assert duplicate_ranks(alone) == []
