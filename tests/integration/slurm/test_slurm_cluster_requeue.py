"""Requeue on the real cluster: excluding suspect nodes, on the same nodes, with a backoff."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from autorecover.adapters.slurm import SlurmConflictError
from autorecover.adapters.slurm.states import JobPhase
from autorecover.testing.slurm.harness import SlurmHarness


def test_slurm_requeue_excluding_restarts_elsewhere_within_seconds(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(nodes=2, sbatch=("--exclude=gpu04",))
    before = slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    slurm.wait_checkpoint(train, 10)
    bad = before.nodes[0]

    result = slurm.scheduler.requeue_excluding(train.job_id, [bad], slurm.provenance("xid 79"))

    assert result.verified, result.detail
    assert result.took_s < 10, result.steps  # not Slurm's ~120 s requeue hold
    after = result.after
    assert after is not None and after.state == "RUNNING"
    assert set(after.excluded) == {bad, "gpu04"}  # merged with the job's own --exclude
    assert bad not in after.nodes and "gpu04" not in after.nodes
    assert after.restarts == before.restarts + 1
    assert re.match(r"autorecover: test/\d+ requeue excluding " + bad, after.admin_comment)
    assert [s for s, _ in result.steps][:4] == ["requeuehold", "pending", "updated", "released"]
    # The restarted ranks resume from their checkpoints; the output keeps the first attempt.
    attempts = slurm.wait_attempts(train, 4)
    first, second = attempts[:2], attempts[2:]
    assert {a.restart for a in first} == {0} and {a.restart for a in second} == {1}
    assert {a.node for a in first} == set(before.nodes)
    assert {a.node for a in second} == set(after.nodes)
    assert all(a.start >= 10 for a in second)
    # Journal: one operation, its provenance, the commands it ran.
    (record,) = slurm.scheduler.commands.journal.records
    assert record.operation == "requeue_excluding" and record.outcome.startswith("done: running")
    assert record.commands[0] == ("scontrol", "requeuehold", train.job_id)


def test_slurm_requeue_excluding_a_node_the_job_required_runs_without_it(
    slurm: SlurmHarness,
) -> None:
    """A job submitted with --nodelist naming the suspect: excluded while still required, Slurm
    would hold it for good (BadConstraints); the node leaves its required list too."""
    nodes = slurm.cluster.node_names
    train = slurm.submit_training(nodes=2, sbatch=(f"--nodelist={nodes[0]},{nodes[1]}",))
    slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    bad = nodes[1]

    result = slurm.scheduler.requeue_excluding(train.job_id, [bad], slurm.provenance("xid 79"))

    assert result.verified, result.detail
    after = result.after
    assert after is not None and after.state == "RUNNING", result.detail
    assert bad not in after.nodes and nodes[0] in after.nodes
    assert bad in after.excluded and after.required == (nodes[0],)


def test_slurm_requeue_excluding_a_failed_job(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(nodes=2, train_args=("--fail-at", "3"))
    failed = slurm.wait_phase(train.job_id, JobPhase.FAILED)

    result = slurm.scheduler.requeue_excluding(
        train.job_id, [failed.nodes[1]], slurm.provenance("xid 48 on the failed rank's node")
    )

    assert result.verified, result.detail
    assert result.after is not None and failed.nodes[1] not in result.after.nodes


def test_slurm_transient_requeue_runs_again_on_the_same_nodes(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(nodes=2)
    before = slurm.wait_phase(train.job_id, JobPhase.RUNNING)

    result = slurm.scheduler.requeue(train.job_id, slurm.provenance("nccl timeout, no hw"))

    assert result.verified, result.detail
    assert result.after is not None and result.after.restarts == before.restarts + 1
    assert result.after.excluded == ()
    # Nothing excluded, the cluster otherwise idle: Slurm picks the same nodes again.
    assert result.after.nodes == before.nodes
    assert result.took_s < 10


def test_slurm_requeue_with_backoff_waits_to_start(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(nodes=1)
    slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    asked = datetime.now(UTC)

    result = slurm.scheduler.requeue(train.job_id, slurm.provenance("hub 503"), delay_s=90)

    assert result.verified, result.detail
    assert result.after is not None and result.after.state == "PENDING"
    eligible = result.after.eligible_time
    assert eligible is not None
    assert asked + timedelta(seconds=85) <= eligible <= asked + timedelta(seconds=100)


def test_slurm_cancel_stops_the_job_and_it_is_never_requeued(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(nodes=2)
    slurm.wait_phase(train.job_id, JobPhase.RUNNING)

    result = slurm.scheduler.cancel(train.job_id, slurm.provenance("application error"))

    assert result.verified and result.after is not None
    assert result.after.state == "CANCELLED"
    assert re.match(r"autorecover: test/\d+ cancel", result.after.admin_comment)
    with pytest.raises(SlurmConflictError, match="cancelled"):
        slurm.scheduler.requeue(train.job_id, slurm.provenance("must not revive"))
    again = slurm.scheduler.cancel(train.job_id, slurm.provenance("twice"))
    assert again.verified and again.detail == "already ended: CANCELLED"


def test_slurm_dry_run_changes_nothing(slurm_cluster, slurm: SlurmHarness) -> None:  # type: ignore[no-untyped-def]
    from autorecover.testing.slurm.harness import SlurmHarness as Harness

    train = slurm.submit_training(nodes=2)
    before = slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    dry = Harness(slurm_cluster, dry_run=True)
    prov = dry.provenance("dry")

    requeue = dry.scheduler.requeue_excluding(train.job_id, [before.nodes[0]], prov)
    drain = dry.scheduler.nodes.drain("gpu03", None, prov)
    cancel = dry.scheduler.cancel(train.job_id, prov)
    dry.scheduler.reboot("gpu04", prov)

    assert not requeue.verified and not cancel.verified
    assert drain.record is not None and drain.record.dry_run
    planned = [argv[:2] for argv in dry.scheduler.commands.planned]
    assert planned == [("scontrol", "requeuehold"), ("scontrol", "update"),
                       ("scontrol", "release"), ("scontrol", "update"), ("scontrol", "update"),
                       ("scancel", train.job_id), ("scontrol", "reboot")]  # fmt: skip
    after = slurm.scheduler.reader.job(train.job_id)
    assert (after.state, after.restarts, after.excluded) == ("RUNNING", 0, ())
    assert all(not n.flags for n in slurm.scheduler.list_nodes())
