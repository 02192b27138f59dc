"""Hang stacks compared across ranks: the ranks outside the collective are named."""

from __future__ import annotations

from datetime import UTC, datetime

from autorecover.domain.hangs import Frame, RankStack, locate, stack_findings
from autorecover.domain.records import Blame

T = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
C10D = "/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py"
LOGGER = "/usr/lib/python3/site-packages/torch/distributed/c10d_logger.py"


def _main() -> list[Frame]:
    return [Frame("/job/train.py", 210, "<module>"), Frame("/job/train.py", 160, "train")]


def waiting(rank: int, node: str, call: str = "all_reduce") -> RankStack:
    frames = [*_main(), Frame("/job/train.py", 120, "step"), Frame(LOGGER, 81, "wrapper"),
              Frame(C10D, 2806, call)]  # fmt: skip
    return RankStack(node, rank, T, 100 + rank, tuple(frames))


def elsewhere(rank: int, node: str) -> RankStack:
    frames = [*_main(), Frame("/job/data.py", 44, "next_batch"),
              Frame("/usr/lib/python3.11/multiprocessing/connection.py", 395, "_recv")]  # fmt: skip
    return RankStack(node, rank, T, 100 + rank, tuple(frames))


def test_the_rank_outside_the_collective_is_the_outlier() -> None:
    stacks = [waiting(r, f"n{r // 2}") for r in range(7)] + [elsewhere(7, "n3")]
    where = locate(stacks)
    assert where is not None and [s.rank for s in where.outliers] == [7]
    assert where.common == "all_reduce" and len(where.waiting) == 7
    assert "rank 7 on n3" in where.summary() and "all_reduce" in where.summary()
    [f] = stack_findings(where)
    assert (f.signal, f.node, f.rank, f.blame, f.line) == ("hang.stack_outlier", "n3", 7,
                                                           Blame.SYMPTOM, 0)  # fmt: skip
    assert (
        f.detail("record_line") == "107" and "_recv (multiprocessing/connection.py:395)" in f.text
    )


def test_every_rank_in_the_collective_names_nobody() -> None:
    where = locate([waiting(r, f"n{r}") for r in range(4)])
    assert where is not None and where.outliers == () and stack_findings(where) == []
    assert "below Python" in where.summary()


def test_no_clear_majority_names_nobody() -> None:
    stacks = [waiting(0, "n0"), waiting(1, "n0"), elsewhere(2, "n1"), elsewhere(3, "n1")]
    assert locate(stacks) is None


def test_nobody_waiting_or_too_few_ranks_cannot_tell() -> None:
    assert locate([elsewhere(r, "n0") for r in range(4)]) is None
    assert locate([waiting(0, "n0")]) is None


def test_the_latest_record_of_a_rank_counts() -> None:
    early = elsewhere(3, "n1")
    late = RankStack("n1", 3, T, 900, waiting(3, "n1").frames)
    where = locate([waiting(0, "n0"), waiting(1, "n0"), waiting(2, "n1"), early, late])
    assert where is not None and where.outliers == ()


def test_a_frame_named_like_a_collective_outside_torch_is_not_a_wait() -> None:
    own = RankStack("n1", 3, T, 9, (*_main(), Frame("/job/comm.py", 5, "all_reduce")))
    where = locate([waiting(0, "n0"), waiting(1, "n0"), waiting(2, "n1"), own])
    assert where is not None and [s.rank for s in where.outliers] == [3]


def test_in_a_two_rank_job_the_rank_outside_the_collective_is_named() -> None:
    where = locate([waiting(0, "n0"), elsewhere(1, "n1")])
    assert where is not None and [s.rank for s in where.outliers] == [1]


def test_the_place_of_a_rank_is_its_own_code_then_the_library_frame() -> None:
    assert elsewhere(7, "n3").place() == (
        "next_batch (job/data.py:44), at _recv (multiprocessing/connection.py:395)"
    )
    assert waiting(0, "n0").place() == (
        "step (job/train.py:120), at all_reduce (distributed/distributed_c10d.py:2806)"
    )


def test_ranks_in_ddps_backward_wait_for_the_rank_outside_it() -> None:
    engine = Frame("/usr/lib/python3/site-packages/torch/autograd/graph.py", 1113,
                   "_engine_run_backward")  # fmt: skip
    backward = (*_main(), Frame("/usr/lib/python3/site-packages/torch/_tensor.py", 623,
                                "backward"), engine)  # fmt: skip
    stacks = [RankStack(f"n{r // 2}", r, T, 100 + r, backward) for r in range(3)]
    where = locate([*stacks, elsewhere(3, "n1")])
    assert where is not None and [s.rank for s in where.outliers] == [3]
    assert where.common == "backward (DDP/FSDP gradient collectives)"
    own = RankStack("n1", 3, T, 9, (*_main(), Frame("/job/model.py", 5, "_engine_run_backward")))
    assert not own.waiting  # the job's own function of that name is not autograd's engine
