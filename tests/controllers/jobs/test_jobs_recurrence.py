"""Unexplained failures of different jobs that keep starting on one node (domain/jobs/recurrence.py)
with the job controller and the fakes: the history records where each failure started, and the
third job whose unexplained crash starts on the same node within a day excludes that node and
hands it over."""

from __future__ import annotations

import pytest

from autorecover.controllers.ports import Provenance
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.jobs.recurrence import RECURRENCE_SIGNAL
from autorecover.domain.records import Action, Cause
from controllers.jobs.rig import JobRig

CRASH = "Fatal Python error: Segmentation fault\n"


@pytest.fixture
def rig() -> JobRig:
    return JobRig()


def _crash(
    rig: JobRig, job: str, first: int, node: str, gap_s: float = 3600.0, prefix: str = ""
) -> None:
    """`job` runs on four nodes from n<first>, a rank on `node` dies of a segfault that no line
    explains, the job is decided, then ended by a person (so only its first failure counts)."""
    rig.submit(job, first=first)
    rig.steps(job, count=3)
    rig.scheduler.write(job, node, prefix + CRASH)
    rig.fail(job)
    rig.settle()
    rig.scheduler.stop(job, Provenance(f"end-{job}", "test", "done", rig.clock.now()))
    rig.clock.advance(gap_s)


def test_the_history_records_where_a_failure_started_and_its_last_step(rig: JobRig) -> None:
    _crash(rig, "a", 0, "n2")
    [attempt] = rig.controller.history("a").attempts
    assert attempt.cause is Cause.UNKNOWN
    assert (attempt.origin, attempt.step, attempt.rank) == ("n2", 2, None)  # steps 0, 1, 2
    _crash(rig, "b", 0, "n1", prefix="[rank5]:")
    assert rig.controller.history("b").attempts[0].rank == 5


def test_rank_0_crashing_on_one_node_in_every_job_names_none(rig: JobRig) -> None:
    """A sweep of one program whose rank 0 crashes: rank 0 lands on the same node each time."""
    for job, first in (("a", 3), ("b", 3), ("c", 3)):
        _crash(rig, job, first, "n3", prefix="[rank0]:")
    v = rig.incident("c").verdict
    assert v is not None and v.cause is Cause.UNKNOWN, v


def test_different_ranks_crashing_on_one_node_name_it(rig: JobRig) -> None:
    for job, first, rank in (("a", 0, 3), ("b", 1, 2), ("c", 3, 0)):
        _crash(rig, job, first, "n3", prefix=f"[rank{rank}]:")
    v = rig.incident("c").verdict
    assert v is not None and v.suspect_nodes == ("n3",), v


def test_the_third_job_whose_unexplained_crash_starts_on_one_node_excludes_it(
    rig: JobRig,
) -> None:
    _crash(rig, "a", 0, "n3")
    _crash(rig, "b", 1, "n3")
    for job in ("a", "b"):
        v = rig.incident(job).verdict
        assert v is not None and v.cause is Cause.UNKNOWN, v
    _crash(rig, "c", 3, "n3")
    third = rig.incident("c")
    assert third.verdict is not None and third.verdict.cause is Cause.HARDWARE
    assert third.verdict.suspect_nodes == ("n3",)
    first = third.verdict.evidence[0]
    assert first.signal == RECURRENCE_SIGNAL and first.node == "n3"
    assert "3 different jobs started on n3 within 24 h" in first.text
    assert " a at " in first.text and " b at " in first.text
    assert third.decided is not None and third.decided.action is Action.REQUEUE_EXCLUDING
    assert third.decided.exclude == ("n3",)
    handed = [h.signal for h in rig.store.handovers() if h.signal.incident == third.id]
    assert [(s.node, s.signal) for s in handed] == [("n3", RECURRENCE_SIGNAL)]


def test_unexplained_crashes_on_different_nodes_name_none(rig: JobRig) -> None:
    for job, first, node in (("a", 0, "n1"), ("b", 1, "n2"), ("c", 3, "n3")):
        _crash(rig, job, first, node)
    for job in ("a", "b", "c"):
        v = rig.incident(job).verdict
        assert v is not None and v.cause is Cause.UNKNOWN and not v.suspect_nodes, v
    assert not list(rig.store.handovers())


def test_crashes_on_one_node_further_apart_than_the_window_name_none(rig: JobRig) -> None:
    _crash(rig, "a", 0, "n3", gap_s=13 * 3600)
    _crash(rig, "b", 1, "n3", gap_s=13 * 3600)  # a is 26 h before c
    _crash(rig, "c", 3, "n3")
    v = rig.incident("c").verdict
    assert v is not None and v.cause is Cause.UNKNOWN, v


def test_the_site_can_turn_it_off() -> None:
    rig = JobRig(policy=JobPolicy(recurrence_jobs=0))
    for job, first in (("a", 0), ("b", 1), ("c", 3)):
        _crash(rig, job, first, "n3")
    v = rig.incident("c").verdict
    assert v is not None and v.cause is Cause.UNKNOWN, v


def test_a_crash_on_every_node_of_each_job_names_none(rig: JobRig) -> None:
    """Three jobs on the same four nodes die of the same segfault on every node at once (a bad
    build, not a node): which node's line comes first is chance, so none is named."""
    for job in ("a", "b", "c"):
        rig.submit(job, first=3)
        rig.steps(job, count=3)
        for node in rig.on(job):
            rig.scheduler.write(job, node, CRASH)
        rig.fail(job)
        rig.settle()
        rig.scheduler.stop(job, Provenance(f"end-{job}", "test", "done", rig.clock.now()))
        rig.clock.advance(3600)
    for job in ("a", "b", "c"):
        v = rig.incident(job).verdict
        assert v is not None and not v.suspect_nodes, v
    assert not list(rig.store.handovers())
