"""Checkpoint-aware proactive migration on the real Slurm cluster: a real `sbatch` job opted in
by its `--comment`, the node agent's real kernel probe, job and hardware recovery on one
SQLite file (`testing/slurm/rig.py`, as the other end-to-end tests).

A node of the running job logs XID 32 (a push-buffer error: the catalog's `monitor`, a warning
that hardware recovery only watches). The job is requeued without that node right after its
next checkpoint and resumes from it; the node itself stays in service.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.adapters.slurm.states import JobPhase as SlurmPhase
from autorecover.adapters.slurm.states import job_phase, node_status
from autorecover.controllers.jobs.records import IncidentKind, IncidentPhase, JobIncident
from autorecover.controllers.ports import ActionStatus
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.slurm.rig import XIDS, Rig

XID_32 = tomllib.loads(XIDS.read_text())["xid"]["32"]["example"]  # the catalog's line


@pytest.fixture
def rig(slurm: SlurmHarness, tmp_path: Path) -> Iterator[Rig]:
    """The composed engine on a fresh store; afterwards no job of ours is left running."""
    built = Rig(slurm, tmp_path / "state.db")
    try:
        yield built
    finally:
        built.close()
        slurm.cluster.reset()


def _closed(rig: Rig, job: str) -> JobIncident | None:
    found = rig.job_store.incidents(job)
    return found[0] if found and found[0].phase is IncidentPhase.CLOSED else None


def test_slurm_e2e_a_warning_moves_the_job_off_its_node_after_the_next_checkpoint(
    rig: Rig,
) -> None:
    comment = "autorecover:on,migrate_on_warning=true,migration_deadline_s=120"
    job = rig.submit(nodes=2, comment=comment)
    first = rig.slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    rig.slurm.wait_checkpoint(job.train, 10)
    rig.step()  # the job's output so far is read: what follows the warning is new
    warned = first.nodes[1]

    rig.fault(warned, XID_32)
    closed = rig.until(lambda: _closed(rig, job.job_id), "the job moved and made a new step")

    assert closed.kind is IncidentKind.MIGRATION, closed
    assert closed.outcome == "recovered: attempt 1 made its first step", closed
    [record] = rig.job_store.actions(job.job_id)
    assert record.status is ActionStatus.DONE and record.verified.startswith("attempt 1 ")
    saved = re.fullmatch(
        rf"proactive migration after checkpoint (\d+), warning xid.32 on node {warned}: "
        rf"requeue without {warned} \(1 of 2\)",
        record.action.why,
    )
    assert saved is not None, record.action.why
    assert record.action.evidence and XID_32.split("] ", 1)[1] in record.action.evidence[0]
    after = rig.slurm.scheduler.reader.job(job.job_id)
    assert after.restarts == 1 and warned in after.excluded and warned not in after.nodes
    assert job_phase(after.state, after.reason) is SlurmPhase.RUNNING
    # What `scontrol show job` says about why it moved (the AdminComment, as for any requeue).
    assert after.admin_comment.startswith(f"autorecover: {job.job_id}#0/migration/"), after
    assert "proactive migration after checkpoint" in after.admin_comment
    # Each rank resumes from its checkpoint: the one the move waited for (iteration N holds
    # steps through N, the next attempt starts at N + 1) or one saved while Slurm stopped it.
    second = [a for a in rig.slurm.wait_attempts(job.train, 4) if a.restart == 1]
    assert {a.node for a in second} == set(after.nodes)
    waited_for = int(saved[1]) + 1
    assert all(waited_for <= a.start <= waited_for + 20 for a in second), (second, waited_for)
    # A warning is no fault: hardware recovery only watches the node; it stays in service.
    assert not node_status(rig.slurm.scheduler.reader.node(warned)).drain
    for _ in range(5):  # a few more passes: one requeue, one incident
        rig.step()
    assert rig.slurm.scheduler.reader.job(job.job_id).restarts == 1
    assert len(rig.job_store.incidents(job.job_id)) == 1
