"""The job controller against ports that push back: rate limits, transient and permanent
errors, a listing that fails; and its hand-overs reaching a real hardware controller."""

from __future__ import annotations

from dataclasses import replace

from autorecover.adapters.fakes.cluster import FakeDiagnostics, FakeNotifier, FakeScheduler
from autorecover.adapters.store.memory import MemoryStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import deliver_handovers
from autorecover.controllers.jobs.records import IncidentPhase
from autorecover.controllers.ports import ActionStatus, PermanentError, TransientError
from autorecover.domain.hardware.lifecycle import NodeState
from controllers.hardware.rig import ROOMY
from controllers.jobs.rig import SETTINGS, JobRig


def _fail_all(rig: JobRig, jobs: list[str]) -> None:
    for i, job in enumerate(jobs):
        rig.submit(job, size=1, first=i)
        rig.steps(job, count=2, run=False)
        rig.fail(job)  # no evidence: each gets a bounded retry


def test_requeues_are_rate_limited_and_the_rest_wait_in_order() -> None:
    rig = JobRig(settings=replace(SETTINGS, mutations_per_s=0.1, burst=2))
    _fail_all(rig, ["a", "b", "c", "d"])
    summary = rig.run()
    assert (summary.opened, summary.executed, summary.waiting) == (4, 2, 2)
    assert [j for _, j, _ in rig.scheduler.log] == ["a", "b"]
    rig.run(step_s=10)  # one token back
    assert [j for _, j, _ in rig.scheduler.log] == ["a", "b", "c"]
    rig.run(step_s=10)
    assert rig.controller.waiting == 0


def test_a_transient_port_error_keeps_the_action_for_a_later_pass() -> None:
    rig = JobRig()
    _fail_all(rig, ["a"])
    rig.scheduler.failures[("requeue", "a")] = TransientError("slurmctld busy")
    rig.run()
    assert [a.status for a in rig.store.actions("a")] == [ActionStatus.INTENDED]
    assert rig.incident("a").phase is IncidentPhase.ACTING
    del rig.scheduler.failures[("requeue", "a")]
    rig.run()
    assert [a.status for a in rig.store.actions("a")] == [ActionStatus.DONE]
    assert rig.incident("a").phase is IncidentPhase.VERIFYING


def test_a_permanent_port_error_fails_the_incident_and_tells_a_person() -> None:
    rig = JobRig()
    _fail_all(rig, ["a"])
    rig.scheduler.failures[("requeue", "a")] = PermanentError("job a was cancelled by its owner")
    rig.run(passes=2)
    incident = rig.incident("a")
    assert incident.phase is IncidentPhase.FAILED and "cancelled by its owner" in incident.outcome
    [alert] = rig.notifier.alerts.values()
    assert alert.incident == incident.id and "cancelled by its owner" in alert.summary


def test_a_listing_that_fails_teaches_nothing_and_queued_actions_still_run() -> None:
    rig = JobRig(settings=replace(SETTINGS, mutations_per_s=0.1, burst=1))
    _fail_all(rig, ["a", "b"])
    rig.run()
    rig.scheduler.listing_failure = TransientError("squeue timed out")
    summary = rig.run(step_s=10)
    assert (summary.jobs, summary.executed) == (0, 1)
    assert rig.incident("a").phase is IncidentPhase.VERIFYING  # not failed for being unlisted


def test_a_person_cancelling_the_job_is_left_alone() -> None:
    rig = JobRig()
    rig.submit()
    rig.steps(count=3)
    rig.scheduler.person_cancel("train")
    rig.run(passes=3)
    assert rig.incidents() == [] and rig.scheduler.log == []
    assert "left alone" in rig.store.events("train")[0].text


def test_hand_overs_reach_hardware_recovery_without_job_recovery_waiting_for_it() -> None:
    rig = JobRig()
    rig.submit()
    rig.steps(count=3)
    rig.xid("n2")
    rig.fail(culprit="n2")
    rig.run()
    rig.run()
    # The job already runs elsewhere; hardware recovery has not even heard yet.
    assert "n2" not in rig.on() and rig.incident().phase is IncidentPhase.RECOVERING

    nodes = FakeScheduler(rig.clock, rig.nodes)
    hardware = HardwareController(
        store=MemoryStore(),
        scheduler=nodes,
        diagnostics=FakeDiagnostics(rig.clock),
        notifier=FakeNotifier(),
        clock=rig.clock,
        policy=ROOMY,
        fleet_size=len(rig.nodes),
    )
    assert deliver_handovers(rig.store, hardware.ingest, rig.clock.now()) == 1
    assert hardware.node("n2").state is NodeState.SUSPECT  # job signals mark suspect at most
    assert not nodes.schedulable("n2")
    assert hardware.node("n2").incident == rig.incident().id
    assert deliver_handovers(rig.store, hardware.ingest, rig.clock.now()) == 0  # once


def test_a_job_the_scheduler_stops_listing_ends_its_incidents() -> None:
    rig = JobRig()
    _fail_all(rig, ["a", "b"])
    rig.run()
    rig.run(step_s=11)  # both requeued after their backoff and verified: recovering
    assert rig.incident("a").phase is IncidentPhase.RECOVERING
    rig.scheduler.jobs["a"].watched = False  # purged from the scheduler's listing
    rig.run()
    assert rig.incident("a").phase is IncidentPhase.CLOSED
    assert rig.incident("a").outcome == "the scheduler no longer lists the job"
    assert rig.incident("b").phase is IncidentPhase.RECOVERING


def test_a_requeued_job_that_vanishes_fails_verification_once_late() -> None:
    rig = JobRig(settings=replace(SETTINGS, verify_timeout_s=60))
    _fail_all(rig, ["a"])
    rig.run()
    rig.scheduler.jobs["a"].watched = False
    rig.run(step_s=30)
    assert rig.incident("a").phase is IncidentPhase.VERIFYING  # 10 s backoff + 60 s not over
    rig.run(step_s=50)
    incident = rig.incident("a")
    assert incident.phase is IncidentPhase.FAILED and "no longer lists" in incident.outcome
