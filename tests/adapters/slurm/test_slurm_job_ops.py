"""The requeue, backoff and cancel paths against a fake Slurm (our own Runner port)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from autorecover.adapters.slurm import SlurmConflictError, SlurmNotFoundError, SlurmScheduler
from autorecover.controllers.ports import Provenance

from .fakes import FakeSlurm

PROV = Provenance("job/7/requeue", "job-recovery", "xid 79 on gpu01",
                  datetime(2026, 11, 29, tzinfo=UTC), ("kern.log:12",), "inc-7")  # fmt: skip


def _adapter(fake: FakeSlurm, dry_run: bool = False) -> SlurmScheduler:
    return SlurmScheduler(fake, timer=fake.timer, dry_run=dry_run)


def test_slurm_requeue_excluding_holds_updates_releases_and_verifies() -> None:
    fake = FakeSlurm()
    fake.add_job("7", ExcNodeList="gpu05")

    result = _adapter(fake).requeue_excluding("7", ["gpu01"], PROV)

    assert result.verified, result.detail
    assert fake.mutations[:3] == [
        ("scontrol", "requeuehold", "7"),
        ("scontrol", "update", "JobId=7", "ExcNodeList=gpu01,gpu05", "StartTime=now+1",
         "AdminComment=autorecover: job/7/requeue requeue excluding gpu01 by job-recovery: xid "
         "79 on gpu01"),
        ("scontrol", "release", "7"),
    ]  # fmt: skip
    # Eligible a second later; the adapter tells the scheduler once it is.
    assert fake.mutations[3:] == [("scontrol", "update", "JobId=7", "StartTime=now")]
    assert result.after is not None and result.after.nodes == ("gpu03", "gpu04")
    assert result.excluded == ("gpu01", "gpu05")
    assert 1.0 < result.took_s < 3.0


def test_slurm_requeue_excluding_a_required_node_drops_it_from_the_required_list() -> None:
    # submitted with --nodelist=gpu01,gpu02: excluding gpu02 while it stays required would hold
    # the job for good (BadConstraints); the other required node stays required
    fake = FakeSlurm()
    fake.add_job("7", ReqNodeList="gpu[01-02]")

    result = _adapter(fake).requeue_excluding("7", ["gpu02"], PROV)

    update = fake.mutations[1]
    assert update[:5] == ("scontrol", "update", "JobId=7", "ExcNodeList=gpu02", "ReqNodeList=gpu01")
    assert result.verified, result.detail
    # a job that required only the excluded node has its required list cleared
    fake = FakeSlurm()
    fake.add_job("7", ReqNodeList="gpu02")
    _adapter(fake).requeue_excluding("7", ["gpu02"], PROV)
    assert "ReqNodeList=" in fake.mutations[1]
    # one that required none is not touched
    fake = FakeSlurm()
    fake.add_job("7")
    _adapter(fake).requeue_excluding("7", ["gpu02"], PROV)
    assert not any(a.startswith("ReqNodeList") for a in fake.mutations[1])


def test_slurm_requeue_keeps_a_persons_admin_comment() -> None:
    fake = FakeSlurm()
    fake.add_job("7", AdminComment="do not touch: ticket 9")

    _adapter(fake).requeue("7", PROV, delay_s=60)

    update = next(c for c in fake.mutations if c[1] == "update")
    assert update == ("scontrol", "update", "JobId=7", "StartTime=now+60")
    assert fake.jobs["7"]["AdminComment"] == "do not touch: ticket 9"


def test_slurm_requeue_with_backoff_is_verified_pending() -> None:
    fake = FakeSlurm()
    fake.add_job("7")

    result = _adapter(fake).requeue("7", PROV, delay_s=120)

    assert result.verified and result.detail.startswith("pending until")
    assert result.after is not None and result.after.state == "PENDING"


def test_slurm_requeue_of_a_pending_job_updates_it_without_a_hold() -> None:
    fake = FakeSlurm()
    fake.add_job("7", JobState="PENDING", Reason="BeginTime", NodeList="(null)")

    result = _adapter(fake).requeue_excluding("7", ["gpu01"], PROV)

    assert result.verified
    assert [c[1] for c in fake.mutations] == ["update", "update"]


def test_slurm_never_requeues_cancelled_or_completed_jobs() -> None:
    fake = FakeSlurm()
    fake.add_job("7", JobState="CANCELLED")
    fake.add_job("8", JobState="COMPLETED")
    fake.add_job("9", BatchFlag="0")
    adapter = _adapter(fake)

    for job in ("7", "8", "9"):
        with pytest.raises(SlurmConflictError):
            adapter.requeue(job, PROV)
    with pytest.raises(SlurmNotFoundError):
        adapter.requeue("10", PROV)
    assert fake.mutations == []


def test_slurm_requeue_unverified_when_the_job_never_starts() -> None:
    fake = FakeSlurm(on_release=lambda job: None)  # the scheduler never starts it
    fake.add_job("7")
    adapter = _adapter(fake)
    adapter.jobs.start_timeout_s = 5

    result = adapter.requeue_excluding("7", ["gpu01"], PROV)

    assert not result.verified
    assert result.detail.startswith("not running after 5 s: PENDING")
    (record,) = adapter.commands.journal.records
    assert record.outcome.startswith("unverified:") and record.provenance is PROV


def test_slurm_cancel_then_already_ended() -> None:
    fake = FakeSlurm()
    fake.add_job("7")
    adapter = _adapter(fake)

    first = adapter.cancel("7", PROV)
    second = adapter.cancel("7", PROV)

    assert first.verified and first.after is not None and first.after.state == "CANCELLED"
    assert second.detail == "already ended: CANCELLED"
    assert [c[0] for c in fake.mutations] == ["scontrol", "scancel"]


def test_slurm_dry_run_runs_no_mutating_command() -> None:
    fake = FakeSlurm()
    fake.add_job("7")
    for n in ("gpu01", "gpu02"):
        fake.add_node(n)
    fake.add_node("gpu03", "IDLE+DRAIN", "autorecover: inc-1 xid 48")
    adapter = _adapter(fake, dry_run=True)

    adapter.requeue_excluding("7", ["gpu01"], PROV)
    adapter.requeue("7", PROV, delay_s=30)
    adapter.cancel("7", PROV)
    adapter.drain("gpu01", PROV)
    adapter.reboot("gpu02", PROV)
    adapter.resume("gpu03", PROV)

    assert fake.mutations == []  # only reads reached the runner
    assert [c[:2] for c in adapter.commands.planned] == [
        ("scontrol", "requeuehold"), ("scontrol", "update"), ("scontrol", "release"),
        ("scontrol", "requeuehold"), ("scontrol", "update"), ("scontrol", "release"),
        ("scontrol", "update"), ("scancel", "7"),
        ("scontrol", "update"), ("scontrol", "reboot"), ("scontrol", "update"),
    ]  # fmt: skip
    assert all(r.dry_run and r.outcome.startswith("dry-run") for r in
               adapter.commands.journal.records)  # fmt: skip


def test_slurm_names_are_validated_before_any_command() -> None:
    fake = FakeSlurm()
    adapter = _adapter(fake)
    for bad in ("7; rm -rf /", "$(id)", "-1", "7 8"):
        with pytest.raises(ValueError):
            adapter.requeue(bad, PROV)
    for node in ("gpu01;reboot", "gpu01 gpu02", "`id`", "-gpu01", "a|b"):
        with pytest.raises(ValueError):
            adapter.nodes.drain(node, None, PROV)
        with pytest.raises(ValueError):
            adapter.requeue_excluding("7", [node], PROV)
    assert fake.calls == []


def test_slurm_requeue_waits_for_a_completing_job_to_settle() -> None:
    fake = FakeSlurm()
    job = fake.add_job("7", JobState="COMPLETING")
    reads = 0
    run = fake.run

    def settle(argv, *, timeout_s):  # type: ignore[no-untyped-def]
        nonlocal reads
        if argv[:3] == ["scontrol", "show", "job"]:
            reads += 1
            if reads == 3:
                job.update(JobState="FAILED", EndTime="2026-11-29T22:00:01")
        return run(argv, timeout_s=timeout_s)

    fake.run = settle  # type: ignore[method-assign]
    result = _adapter(fake).requeue_excluding("7", ["gpu01"], PROV)

    assert result.verified, result.detail
    assert fake.mutations[0] == ("scontrol", "requeuehold", "7")


def test_slurm_requeue_asked_again_after_a_restart_is_not_run_twice() -> None:
    # The engine requeued job 7 and died before recording it: a new adapter (nothing in
    # memory) is asked again under the same action. Its AdminComment says it ran.
    fake = FakeSlurm()
    fake.add_job("7")
    assert _adapter(fake).requeue_excluding("7", ["gpu01"], PROV).verified
    done = len(fake.mutations)
    again = _adapter(fake).requeue_excluding("7", ["gpu01"], PROV)
    assert again.verified and again.detail.startswith("already requeued under this action")
    assert len(fake.mutations) == done
    # ... whichever way the port requeues this time (the nodes are excluded already).
    assert _adapter(fake).requeue("7", PROV).detail.startswith("already requeued")
    assert len(fake.mutations) == done
    # A different action (another incident) on the same job is a new requeue.
    other = Provenance("job/7/requeue2", "job-recovery", "xid 48 on gpu03", PROV.at, (), "inc-8")
    _adapter(fake).requeue_excluding("7", ["gpu03"], other)
    assert ("scontrol", "requeuehold", "7") in fake.mutations[done:]


def test_slurm_requeue_stopped_between_update_and_release_is_released_only() -> None:
    fake = FakeSlurm()
    comment = "autorecover: job/7/requeue requeue excluding gpu01 by job-recovery: xid 79 on gpu01"
    fake.add_job("7", JobState="PENDING", Reason="JobHeldAdmin", AdminComment=comment,
                 ExcNodeList="gpu01")  # fmt: skip
    result = _adapter(fake).requeue_excluding("7", ["gpu01"], PROV)
    assert fake.mutations == [("scontrol", "release", "7")]
    assert result.detail == "released: requeued before a restart"
