"""`recurring_origin`: what counts as the same node's unexplained failure in another job."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.jobs.decisions import Attempt, Budget, JobHistory
from autorecover.domain.jobs.recurrence import RECURRENCE_SIGNAL, recurring_origin
from autorecover.domain.records import Action, Cause, Evidence, Source, Verdict

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
CRASH = Evidence("n3", Source.LOGS, 40, "process.crashed", "Fatal Python error: Segmentation fault")
UNKNOWN = Verdict(Cause.UNKNOWN, (), Action.REQUEUE, (CRASH,), "an unexplained crash", 45)


def _failed(
    hours_ago: float,
    origin: str = "n3",
    cause: Cause = Cause.UNKNOWN,
    budget: Budget = Budget.USER,
    root: str = "process.crashed",
    rank: int | None = None,
) -> JobHistory:
    at = NOW - timedelta(hours=hours_ago)
    attempt = Attempt(at, cause, root, (), None, budget, Action.REQUEUE, origin, None, rank)
    return JobHistory((attempt,))


def _read(
    histories: dict[str, JobHistory], verdict: Verdict = UNKNOWN, origin: str = "n3"
) -> Verdict:
    return recurring_origin(verdict, origin, "this", histories, NOW, min_jobs=3, window_s=86_400.0)


def test_two_other_jobs_that_failed_unexplained_on_the_node_make_it_a_suspect() -> None:
    v = _read({"a": _failed(20), "b": _failed(2)})
    assert (v.cause, v.suspect_nodes, v.action) == (
        Cause.HARDWARE, ("n3",), Action.REQUEUE_EXCLUDING,
    )  # fmt: skip
    assert v.evidence[0].signal == RECURRENCE_SIGNAL and v.evidence[1] == CRASH
    assert v.evidence[0].text == (
        "unexplained failures of 3 different jobs started on n3 within 24 h: this one and "
        "a at 2026-03-01T16:00:00+00:00, b at 2026-03-02T10:00:00+00:00"
    )
    assert v.strength == 60 and "an unexplained crash" in v.summary


@pytest.mark.parametrize(
    ("histories", "why"),
    [
        ({"a": _failed(2)}, "one other job only"),
        ({"a": _failed(25), "b": _failed(2)}, "a is outside the window"),
        ({"a": _failed(3), "b": _failed(2, origin="n4")}, "b started elsewhere"),
        ({"a": _failed(3), "b": _failed(2, cause=Cause.APPLICATION)}, "b was its own bug"),
        ({"a": _failed(3), "b": _failed(2, cause=Cause.TRANSIENT)}, "b was transient"),
        ({"a": _failed(3), "b": _failed(2, budget=Budget.PROACTIVE)}, "b was a move"),
        ({"a": _failed(3), "this": _failed(2)}, "this job's own failure is no other job's"),
    ],
)
def test_what_does_not_count(histories: dict[str, JobHistory], why: str) -> None:
    assert _read(histories) is UNKNOWN, why


def test_a_failure_already_read_as_recurring_counts_for_the_next() -> None:
    earlier = _failed(2, cause=Cause.HARDWARE, root=RECURRENCE_SIGNAL)
    assert _read({"a": _failed(3), "b": earlier}).cause is Cause.HARDWARE


def test_only_an_unknown_failure_with_a_known_origin_is_read() -> None:
    both = {"a": _failed(3), "b": _failed(2)}
    app = Verdict(Cause.APPLICATION, (), Action.STOP, (CRASH,), "its own bug", 70)
    assert _read(both, app) is app
    assert _read(both, origin="") is UNKNOWN
    off = recurring_origin(UNKNOWN, "n3", "this", both, NOW, min_jobs=0, window_s=86_400.0)
    assert off is UNKNOWN


def test_rank_0_failing_in_every_job_is_its_code_path_not_the_node() -> None:
    """Slurm gives rank 0 to an allocation's first node: a sweep of one program whose rank 0
    crashes keeps landing there. Another rank in the same place each time is the node's place
    in its allocations, and counts."""
    zeros = {"a": _failed(3, rank=0), "b": _failed(2, rank=0)}
    same = recurring_origin(UNKNOWN, "n3", "this", zeros, NOW, min_jobs=3, window_s=86_400.0,
                            rank=0)  # fmt: skip
    assert same is UNKNOWN
    ones = {"a": _failed(3, rank=1), "b": _failed(2, rank=1)}
    elsewhere = recurring_origin(UNKNOWN, "n3", "this", ones, NOW, min_jobs=3,
                                 window_s=86_400.0, rank=1)  # fmt: skip
    assert elsewhere.suspect_nodes == ("n3",)  # the node's place in each allocation: it counts
    mixed = {"a": _failed(3, rank=0), "b": _failed(2, rank=13)}
    named = recurring_origin(UNKNOWN, "n3", "this", mixed, NOW, min_jobs=3, window_s=86_400.0,
                             rank=0)  # fmt: skip
    assert named.suspect_nodes == ("n3",)
    unsaid = recurring_origin(UNKNOWN, "n3", "this", zeros, NOW, min_jobs=3, window_s=86_400.0)
    assert unsaid.suspect_nodes == ("n3",)  # this failure's rank unknown: not the same rank
