"""Hang stacks compared across ranks: the ranks outside the collective are named."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from autorecover.domain.collectives import GroupState
from autorecover.domain.hangs import (
    AGREED_WEIGHT,
    OUTLIER_WEIGHT,
    Frame,
    RankStack,
    locate,
    raised_reason,
    stack_findings,
)
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


# --- with the flight recorders' summaries (domain/collectives.py) --------------------------

AR = "gloo:all_reduce"


def with_fr(stack: RankStack, seq: int, state: str = "scheduled", op: str = AR) -> RankStack:
    return replace(stack, collectives=(GroupState("0", seq, op, state, "default_pg"),))


def test_the_views_agreeing_on_a_rank_weigh_more_and_say_so() -> None:
    stacks = [with_fr(waiting(r, f"n{r // 2}"), 10) for r in range(3)]
    where = locate([*stacks, with_fr(elsewhere(3, "n1"), 9, "completed")])
    assert where is not None and where.agreement() == "the stacks and the flight recorder agree"
    by_stack, by_fr = stack_findings(where)
    assert (by_stack.signal, by_fr.signal) == ("hang.stack_outlier", "hang.collective_outlier")
    assert (by_stack.node, by_stack.rank, by_fr.node, by_fr.rank) == ("n1", 3, "n1", 3)
    assert by_stack.weight == by_fr.weight == AGREED_WEIGHT > OUTLIER_WEIGHT
    assert "the flight recorder agrees: it never entered collective #10" in by_stack.text
    assert by_fr.text.startswith("flight recorder: rank 3 on n1 never entered collective #10")
    assert "its stack agrees: in next_batch" in by_fr.text
    assert (by_fr.detail("group"), by_fr.detail("seq"), by_fr.detail("op")) == ("0", "10", AR)
    assert by_fr.detail("record_line") == "103" and by_fr.line == 0
    reason = raised_reason([], [by_stack, by_fr])
    assert reason.count("rank 3 on n1") == 1  # the rank is cited once, by its stack line


def test_the_flight_recorder_names_a_rank_the_stacks_cannot() -> None:
    stacks = [with_fr(waiting(r, f"n{r}"), 15) for r in range(3)]
    odd = with_fr(waiting(3, "n3", call="broadcast"), 15, op="gloo:broadcast")
    where = locate([*stacks, odd])
    assert where is not None and where.outliers == () and len(where.waiting) == 4
    f, desync = stack_findings(where)
    assert (f.signal, f.node, f.rank, f.weight) == ("hang.collective_outlier", "n3", 3,
                                                    OUTLIER_WEIGHT)  # fmt: skip
    assert "is in gloo:broadcast at collective #15 of group 0 (default_pg)" in f.text
    assert "its stack is in a collective too" in f.text
    assert "only the flight recorder singles out rank 3" in where.summary()
    # Another op at the sequence number the others are at: the ranks' code paths diverged.
    assert (desync.signal, desync.blame, desync.node, desync.rank) == (
        "c10d.collective_desync", Blame.APPLICATION, "n3", 3)  # fmt: skip
    assert desync.detail("seq") == "15" and desync.detail("ops") == "gloo:all_reduce,gloo:broadcast"


def test_a_rank_behind_the_others_is_no_desync() -> None:
    stacks = [with_fr(waiting(r, f"n{r}"), 8) for r in range(3)]
    stacks[2] = with_fr(waiting(2, "n2"), 7, "completed")  # behind, by its recorder
    where = locate(stacks)
    assert where is not None
    assert [f.signal for f in stack_findings(where)] == ["hang.collective_outlier"]


def test_the_views_naming_different_ranks_say_so() -> None:
    stacks = [with_fr(waiting(r, f"n{r}"), 8) for r in range(3)]
    stacks[2] = with_fr(waiting(2, "n2"), 7, "completed")  # behind, by its recorder
    where = locate([*stacks, with_fr(elsewhere(3, "n3"), 8)])
    assert where is not None
    assert where.agreement() == (
        "the stacks and the flight recorder disagree: the stacks name rank 3, "
        "the flight recorder rank 2"
    )
    by_stack, by_fr = stack_findings(where)
    assert "the flight recorder names rank 2 instead" in by_stack.text
    assert "the stacks name rank 3 instead" in by_fr.text


def test_every_rank_inside_the_collective_by_its_recorder_is_stated_against_the_stacks() -> None:
    stacks = [with_fr(waiting(r, f"n{r}"), 8) for r in range(3)]
    where = locate([*stacks, with_fr(elsewhere(3, "n3"), 8)])  # NCCL: enqueued, Python went on
    assert where is not None
    [f] = stack_findings(where)
    assert f.signal == "hang.stack_outlier" and f.weight == OUTLIER_WEIGHT
    assert "the flight recorder disagrees: all 4 ranks of group 0 (default_pg) wait" in f.text
    assert (where.agreement() or "").startswith("the flight recorder disagrees")


def test_summaries_without_stacks_still_place_the_hang() -> None:
    bare = [RankStack(f"n{r}", r, T, 50 + r, ()) for r in range(4)]
    stacks = [with_fr(s, 30) for s in bare[:3]] + [with_fr(bare[3], 29, "completed")]
    where = locate(stacks)
    assert where is not None and where.waiting == () and where.agreement() is None
    assert where.summary().startswith("flight recorder: rank 3 never entered collective #30")
    [f] = stack_findings(where)
    assert (f.signal, f.node, f.rank) == ("hang.collective_outlier", "n3", 3)
