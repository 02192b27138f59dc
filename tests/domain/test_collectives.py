"""Flight-recorder summaries compared across ranks: who never entered the collective, who
called another op there, and when nobody can be named."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.collectives import GroupState, compare

AR = "nccl:all_reduce"


def at(seq: int, op: str = AR, state: str = "scheduled", group: str = "0") -> GroupState:
    return GroupState(group, seq, op, state, "default_pg" if group == "0" else None)


def done(seq: int, op: str = AR, group: str = "0") -> GroupState:
    return at(seq, op, "completed", group)


def test_the_rank_behind_the_collective_the_others_wait_in_is_named() -> None:
    ranks = {r: (at(12),) for r in range(7)} | {7: (done(11),)}
    where = compare(ranks)
    assert where is not None and where.stuck == ()
    [o] = where.outliers
    assert (o.rank, o.kind, o.group, o.waiting, o.members) == (7, "behind", "0", 7, 8)
    assert o.where() == (
        f"never entered collective #12 ({AR}) of group 0 (default_pg) "
        f"(its newest is #11 ({AR}), completed)"
    )
    assert where.summary().startswith("rank 7 never entered collective #12")


def test_in_a_two_rank_group_the_rank_behind_is_named() -> None:
    where = compare({0: (at(5),), 1: (done(4),)})
    assert where is not None and [o.rank for o in where.outliers] == [1]


def test_a_split_group_names_nobody() -> None:
    where = compare({0: (at(5),), 1: (at(5),), 2: (done(4),), 3: (done(4),)})
    assert where is None or where.outliers == ()


def test_a_third_behind_is_named_more_is_not() -> None:
    third = {r: (at(9),) for r in range(4)} | {4: (done(8),), 5: (done(8),)}
    where = compare(third)
    assert where is not None and [o.rank for o in where.outliers] == [4, 5]
    half = {r: (at(9),) for r in range(3)} | {r: (done(8),) for r in range(3, 6)}
    where = compare(half)
    assert where is None or where.outliers == ()


def test_another_op_at_the_same_sequence_id_is_a_mismatch() -> None:
    ranks = {0: (at(15),), 1: (at(15),), 2: (at(15),), 3: (at(15, "gloo:broadcast"),)}
    where = compare(ranks)
    assert where is not None
    [o] = where.outliers
    assert (o.rank, o.kind, o.own.op, o.target.op) == (3, "mismatch", "gloo:broadcast", AR)
    assert "rank 3 is in gloo:broadcast at collective #15 of group 0" in where.summary()
    assert f"3 of 4 ranks are in {AR}" in where.summary()


def test_two_ranks_in_two_ops_cannot_say_which_is_wrong() -> None:
    where = compare({0: (at(3),), 1: (at(3, "nccl:broadcast"),)})
    assert where is None or where.outliers == ()


def test_every_member_in_the_same_collective_names_nobody() -> None:
    where = compare({r: (at(40),) for r in range(4)})
    assert where is not None and where.outliers == ()
    assert where.summary() == (
        f"all 4 ranks of group 0 (default_pg) wait in collective #40 ({AR}): the flight "
        "recorder names none"
    )


def test_a_group_whose_newest_collective_completed_says_nothing() -> None:
    assert compare({r: (done(40),) for r in range(4)}) is None
    assert compare({0: (at(1),)}) is None  # one rank: nothing to compare


def test_the_rank_behind_that_waits_nowhere_is_the_root_of_a_chain() -> None:
    # Ranks 0-3 wait in the world group's #20; ranks 4 and 5 never entered it. Rank 4 waits in
    # its pipeline group's #7 (with rank 5), which rank 5 never entered: rank 5 waits in no
    # collective at all, so it is the root, and rank 4 only waits for it.
    ranks = {r: (at(20),) for r in range(4)} | {
        4: (done(19), at(7, group="1")),
        5: (done(19), done(6, group="1")),
    }
    where = compare(ranks)
    assert where is not None and [o.rank for o in where.outliers] == [5]


def test_when_every_rank_named_waits_somewhere_all_are_named() -> None:
    # A deadlock between two groups: each named rank waits in the other group.
    ranks = {
        0: (at(5, group="0"), done(2, group="1")),
        1: (done(4, group="0"), at(3, group="1")),
        2: (at(5, group="0"), at(3, group="1")),
    }
    where = compare(ranks)
    assert where is not None and [o.rank for o in where.outliers] == [0, 1]


def test_one_reason_per_rank() -> None:
    ranks = {r: (at(9), at(4, group="1")) for r in range(4)} | {4: (done(8), done(3, group="1"))}
    where = compare(ranks)
    assert where is not None and [(o.rank, o.group) for o in where.outliers] == [(4, "0")]


def test_a_rank_missing_a_group_is_not_counted_behind() -> None:
    ranks = {0: (at(3, group="1"),), 1: (at(3, group="1"),), 2: (done(9),)}
    where = compare(ranks)
    assert where is not None and where.outliers == ()  # rank 2 is no member of group 1


states = st.builds(
    GroupState,
    st.sampled_from(["0", "1", "2"]),
    st.one_of(st.none(), st.integers(-1, 6)),
    st.sampled_from([AR, "nccl:broadcast", None]),
    st.sampled_from(["scheduled", "started", "completed", None]),
)


@given(st.dictionaries(st.integers(0, 15), st.lists(states, max_size=3), max_size=12))
def test_never_crashes_and_names_only_reporting_ranks(ranks: dict[int, list[GroupState]]) -> None:
    where = compare(ranks)
    if where is not None:
        assert {o.rank for o in where.outliers} <= set(ranks)
        assert len({o.rank for o in where.outliers}) == len(where.outliers)
        assert where.summary()
