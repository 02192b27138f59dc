"""Ranks two nodes both claim in one start-up: the job's launch, not a node.

Lines in Lightning's and DeepSpeed's announcement formats, scanned by the real catalog; each
node's file is scanned on its own, as an incident's logs are.
"""

from __future__ import annotations

import io
from datetime import timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.ranks import SIGNAL, UNSTARTED, duplicate_ranks, unstarted_ranks
from autorecover.domain.records import Activity, Blame, Cause, Finding, JobRecord, Source

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


SLURM = "Multi-processing is handled by Slurm."


def hung(*nodes: str) -> JobRecord:
    return JobRecord(scheduler="slurm", job="8", nodes=nodes, started=T0, ended=None,
                     collected=T0 + timedelta(minutes=7), state="RUNNING")  # fmt: skip


def test_lightning_waiting_for_tasks_slurm_never_started_is_the_jobs_launch() -> None:
    # `python train.py` in the batch script, not `srun python train.py`: one process, on the
    # first node, waiting for seven ranks Slurm was never asked to start
    findings = [*scan("n1", SLURM, "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/8")]
    [found] = unstarted_ranks(hung("n1", "n2"), findings, [])
    assert (found.signal, found.blame, found.node) == (UNSTARTED, Blame.APPLICATION, "n1")
    assert "only 1 of 8 ranks started (global rank 0 on n1; 4 per node on 2 nodes)" in found.text
    verdict = attribute(hung("n1", "n2"), findings, [], {})
    assert verdict.cause is Cause.APPLICATION and verdict.suspect_nodes == ()
    # one task per node (--ntasks-per-node=1 with devices=4): one rank on each node
    per_node = [*scan("n1", SLURM, lightning(0, 8)), *scan("n2", lightning(4, 8))]
    assert [f.signal for f in unstarted_ranks(hung("n1", "n2"), per_node, [])] == [UNSTARTED]


def test_ranks_that_may_only_be_hidden_or_that_trained_say_nothing() -> None:
    one_each = [*scan("n1", lightning(0, 8)), *scan("n2", lightning(4, 8))]
    # without Slurm starting the tasks the others may only be hidden (torchrun printing local
    # rank 0 alone)
    assert unstarted_ranks(hung("n1", "n2"), one_each, []) == []
    started = [*scan("n1", SLURM), *one_each]
    # something trained: the ranks were there
    trained = Activity("n1", Source.LOGS, present=True, lines=40, progress_lines=12)
    assert unstarted_ranks(hung("n1", "n2"), started, [trained]) == []
    # a world of one process per node is whole
    whole = [*scan("n1", SLURM, lightning(0, 2)), *scan("n2", lightning(1, 2))]
    assert unstarted_ranks(hung("n1", "n2"), whole, []) == []
    # a node announcing two of its ranks was started by srun: another fault kept the rest
    two = [*scan("n1", SLURM, lightning(0, 8), lightning(1, 8, second=1))]
    assert unstarted_ranks(hung("n1", "n2"), two, []) == []
    # every rank there
    every = [*scan("n1", SLURM, *(lightning(r, 2 * 1, second=r) for r in range(2)))]
    assert unstarted_ranks(hung("n1"), every, []) == []
