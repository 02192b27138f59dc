"""End-to-end recovery on the real Slurm cluster: a real `sbatch` job, the real node agent's
kernel probe on each node's kernel-log file, job and hardware recovery on one SQLite file.

Every wait is bounded (`Rig.until`, at most 60 s); each test starts from a reset cluster (the
`slurm` fixture cancels every job and resumes every node) and cancels its job at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.adapters.slurm.records import SlurmNode
from autorecover.adapters.slurm.states import JobPhase as SlurmPhase
from autorecover.adapters.slurm.states import NodeCondition, job_phase, node_status
from autorecover.controllers.jobs.records import IncidentPhase, JobIncident, Stage
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.records import Action, Cause
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.slurm.rig import Rig, wait


@pytest.fixture
def rig(slurm: SlurmHarness, tmp_path: Path) -> Iterator[Rig]:
    """The composed engine on a fresh store; afterwards no job of ours is left running."""
    built = Rig(slurm, tmp_path / "state.db")
    try:
        yield built
    finally:
        built.close()
        slurm.cluster.reset()


def _incident(rig: Rig, job: str) -> JobIncident | None:
    found = rig.job_store.incidents(job)
    return found[0] if found else None


def _closed(rig: Rig, job: str) -> JobIncident | None:
    found = _incident(rig, job)
    return found if found is not None and found.phase is IncidentPhase.CLOSED else None


def _if_drained(rig: Rig, node: str) -> SlurmNode | None:
    seen = rig.slurm.scheduler.reader.node(node)
    return seen if node_status(seen).drain else None


def _drained(rig: Rig) -> list[str]:
    return [n.name for n in rig.slurm.scheduler.list_nodes() if node_status(n).drain]


def test_slurm_e2e_hardware_fault_drains_the_node_and_resumes_elsewhere(rig: Rig) -> None:
    job = rig.submit(nodes=2)
    first = rig.slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    rig.slurm.wait_checkpoint(job.train, 10)
    bad = first.nodes[1]

    # The GPU falls off the bus: the driver's line in the node's kernel log, then the rank dies.
    rig.fault(bad)
    drained = rig.until(lambda: _if_drained(rig, bad), f"{bad} drained")
    record = rig.hardware.node(bad)
    assert record.state is NodeState.QUARANTINED and record.incident
    assert drained.reason.startswith(f"autorecover: {record.incident}")
    assert record.incident in rig.sinfo_reason(bad)  # what an operator sees in `sinfo -R`
    rig.kill_rank(job, bad)

    # Job recovery: hardware verdict, requeued without the node, resumed from the checkpoint.
    # (The ladder is not ticked here: the node stays drained while the job moves.)
    closed = rig.until(
        lambda: _closed(rig, job.job_id),
        "the incident closed (first step of the new attempt)",
        hardware=False,
    )
    assert closed.verdict is not None and closed.verdict.cause is Cause.HARDWARE, closed
    assert closed.verdict.suspect_nodes == (bad,)
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE_EXCLUDING
    after = rig.slurm.scheduler.reader.job(job.job_id)
    assert after.restarts == 1 and bad in after.excluded and bad not in after.nodes
    assert job_phase(after.state, after.reason) is SlurmPhase.RUNNING
    stages = {m.stage: m for m in rig.job_store.timeline(closed.id)}
    assert {Stage.RESCHEDULED, Stage.CHECKPOINT_LOADED, Stage.FIRST_STEP} <= set(stages)
    second = [a for a in rig.slurm.wait_attempts(job.train, 4) if a.restart == 1]
    assert {a.node for a in second} == set(after.nodes)
    assert all(a.start >= 10 for a in second)  # resumed from the checkpoints, not step 0
    assert _drained(rig) == [bad]


def test_slurm_e2e_transient_fault_requeues_on_the_same_nodes(rig: Rig) -> None:
    job = rig.submit(nodes=2, comment="autorecover:on,transient_backoff_s=1/2")
    first = rig.slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    rig.slurm.wait_checkpoint(job.train, 10)

    (job.flags / f"nccl-{first.nodes[1]}-0").touch()  # NCCL watchdog timeout, exit 1

    closed = rig.until(
        lambda: _closed(rig, job.job_id),
        "the incident closed",
    )
    assert closed.verdict is not None and closed.verdict.cause is Cause.TRANSIENT, closed
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE
    assert closed.decided.exclude == ()
    after = rig.slurm.scheduler.reader.job(job.job_id)
    assert after.restarts == 1 and after.excluded == ()
    assert after.nodes == first.nodes  # nothing excluded, the cluster otherwise idle
    assert _drained(rig) == []


def test_slurm_e2e_application_error_stops_the_job(rig: Rig) -> None:
    job = rig.submit(nodes=2)
    rig.slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    rig.slurm.wait_checkpoint(job.train, 10)

    (job.flags / "app").touch()  # every rank: ModuleNotFoundError

    closed = rig.until(
        lambda: _closed(rig, job.job_id),
        "the incident closed",
    )
    assert closed.verdict is not None and closed.verdict.cause is Cause.APPLICATION, closed
    assert closed.decided is not None and closed.decided.action is Action.STOP
    for _ in range(10):  # a few more passes: it stays stopped
        rig.step()
    after = rig.slurm.scheduler.reader.job(job.job_id)
    assert after.restarts == 0
    assert job_phase(after.state, after.reason) in (SlurmPhase.FAILED, SlurmPhase.CANCELLED)
    assert _drained(rig) == []
    assert len(rig.job_store.incidents(job.job_id)) == 1


def test_slurm_e2e_unexplained_crashes_of_three_jobs_on_one_node_exclude_it(rig: Rig) -> None:
    """Three different jobs, each on the same node and another; each time the rank on that
    node dies of a segfault nothing explains. The first two are unknown (their user budget is
    0: they stop); the third names the node, is requeued without it, and the node is handed
    over to hardware recovery. (The ladder is not ticked: the node's drain and return are the
    other tests'.)"""
    other, bad = rig.cluster.node_names[
        :2
    ]  # bad is rank 1 each time (the ladder's test uses the last node)
    verdicts = []
    for i in range(3):
        job = rig.submit(nodes=2, comment="autorecover:on,user_restarts=0",
                         sbatch=(f"--nodelist={other},{bad}",))  # fmt: skip
        first = rig.slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
        assert bad in first.nodes
        rig.slurm.wait_checkpoint(job.train, 10)
        (job.flags / f"segv-{bad}-0").touch()
        decided = rig.until(
            lambda j=job.job_id: (x := _incident(rig, j)) and x.decided and x,  # type: ignore[misc]
            f"job {i + 1} decided",
            hardware=False,
        )
        verdicts.append(decided)
    *earlier, third = verdicts
    for incident in earlier:
        assert incident.verdict is not None and incident.verdict.cause is Cause.UNKNOWN, incident
        assert incident.decided is not None and incident.decided.action is Action.STOP
    assert third.verdict is not None and third.verdict.cause is Cause.HARDWARE, third
    assert third.verdict.suspect_nodes == (bad,)
    assert third.verdict.evidence[0].signal == "job.recurring_origin"
    assert third.decided is not None and third.decided.action is Action.REQUEUE_EXCLUDING
    assert third.decided.exclude == (bad,)
    handed = [h.signal for h in rig.job_store.handovers() if h.signal.incident == third.id]
    assert [(s.node, s.signal) for s in handed] == [(bad, "job.recurring_origin")]
    after = rig.until(
        lambda: ((j := rig.slurm.scheduler.reader.job(third.job)).restarts == 1 and j) or None,
        "the third job requeued",
        hardware=False,
    )
    assert bad in after.excluded


def test_slurm_e2e_the_ladder_returns_a_drained_node_after_validation(rig: Rig) -> None:
    node = rig.cluster.node_names[-1]
    rig.fault(node)  # an idle node: drained at once, then the ladder
    seen: set[str] = set()

    def returned() -> bool:
        record = rig.hardware.node(node)
        seen.add(record.state.value)
        slurm_node = rig.slurm.scheduler.reader.node(node)
        up = node_status(slurm_node).condition is NodeCondition.UP
        return record.state is NodeState.HEALTHY and len(seen) > 1 and up and not slurm_node.flags

    rig.until(returned, f"{node} returned", timeout_s=60)
    assert {"diagnosing", "remediating", "validating", "healthy"} <= seen, seen
    journal = rig.slurm.scheduler.commands.journal.records
    assert [r.operation for r in journal] == ["drain", "reboot", "resume"], journal
    incident = journal[0].provenance.incident
    assert incident and all(r.provenance.incident == incident for r in journal)
    # The reboot rung asks Slurm for a reboot (nextstate=DOWN) and waits until the node has
    # booted: the test cluster's RebootProgram restarts its slurmd "booted now".
    assert journal[1].commands[0][:3] == ("scontrol", "reboot", "ASAP"), journal[1]
    back = wait(lambda: rig.slurm.scheduler.reader.node(node), "read", 5)
    assert back.state == "idle" and not back.flags and back.reason == ""
