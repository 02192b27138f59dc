"""Live hang and slowdown detection on injected times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.jobs.health import Condition, Progress, Report, assess

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
NODES = {0: "n1", 1: "n2", 2: "n3", 3: "n4"}


def ledger(minutes: int, *, stop: dict[int, int] | None = None, sps=None, compute=None) -> Progress:  # type: ignore[no-untyped-def]
    p = Progress()
    for m in range(minutes):
        for rank, node in NODES.items():
            if stop and rank in stop and m >= stop[rank]:
                continue
            p = p.add(
                Report(
                    node=node,
                    rank=rank,
                    at=T0 + timedelta(minutes=m),
                    step=m * 40,
                    steps_per_s=sps(m) if sps else 0.66,
                    compute_s=compute(rank, m) if compute else 1.4,
                )
            )
    return p


def test_warming_up_until_enough_reports() -> None:
    assert assess(ledger(2), T0 + timedelta(minutes=2)).condition is Condition.WARMING_UP


def test_steady_progress_is_healthy() -> None:
    assert assess(ledger(30), T0 + timedelta(minutes=30)).condition is Condition.HEALTHY


def test_silence_beyond_the_learned_limit_is_a_hang() -> None:
    p = ledger(30)
    assert assess(p, T0 + timedelta(minutes=35)).condition is Condition.HEALTHY  # < 10 min floor
    a = assess(p, T0 + timedelta(minutes=55))  # 20 typical intervals of 60 s
    assert a.condition is Condition.HUNG and a.nodes == ()


def test_the_node_that_went_silent_first_is_named() -> None:
    a = assess(ledger(40, stop={1: 20}), T0 + timedelta(minutes=60))
    assert a.condition is Condition.HUNG and a.nodes == ("n2",)


def test_a_persistently_slower_rank_is_a_straggler() -> None:
    a = assess(
        ledger(20, compute=lambda r, m: 2.2 if r == 2 and m > 10 else 1.4),
        T0 + timedelta(minutes=20),
    )
    assert a.condition is Condition.STRAGGLER and a.nodes == ("n3",)


def test_one_slow_report_is_noise() -> None:
    a = assess(
        ledger(20, compute=lambda r, m: 2.2 if r == 2 and m == 19 else 1.4),
        T0 + timedelta(minutes=20),
    )
    assert a.condition is Condition.HEALTHY


def test_throughput_drop_is_slow() -> None:
    a = assess(ledger(20, sps=lambda m: 0.66 if m < 15 else 0.2), T0 + timedelta(minutes=20))
    assert a.condition is Condition.SLOW


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 500), st.floats(0.01, 5)), max_size=60),
    st.integers(0, 2000),
)
def test_never_raises_and_names_only_known_nodes(
    rows: list[tuple[int, int, float]], later: int
) -> None:
    p = Progress()
    for rank, minute, value in rows:
        p = p.add(Report(NODES[rank], rank, T0 + timedelta(minutes=minute), minute, value, value))
    a = assess(p, T0 + timedelta(minutes=later))
    assert set(a.nodes) <= set(NODES.values())
