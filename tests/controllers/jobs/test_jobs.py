"""The job recovery controller with the fakes: each cause end to end, from the job's output and
the node agents' signals to the recorded incident, the action through the port, its
verification and the recovery's timeline."""

from __future__ import annotations

from datetime import timedelta

import pytest

from autorecover.controllers.jobs.records import IncidentPhase, JobActionKind, JobPhase, Stage
from autorecover.controllers.jobs.timelines import breakdown
from autorecover.controllers.ports import ActionStatus, Provenance, TransientError
from autorecover.domain.jobs.decisions import Budget
from autorecover.domain.records import Action, Cause, NodeAction
from autorecover.domain.signals import Probe
from controllers.jobs.rig import (
    MODULE_NOT_FOUND,
    NCCL_TIMEOUT,
    NO_PROGRESS,
    PREEMPTED,
    WEAK_EXCEPTION,
    WORKER_RESTART,
    JobRig,
    nodes_of,
    tele,
)


@pytest.fixture
def rig() -> JobRig:
    return JobRig()


def _hardware_failure(rig: JobRig, culprit: str = "n2") -> None:
    rig.submit()
    rig.steps(count=5, checkpoint_every=3)
    rig.xid(culprit)
    rig.scheduler.write("train", culprit, "RuntimeError: CUDA error: unspecified launch failure\n")
    for rank, node in enumerate(rig.on()):
        if node != culprit:
            rig.scheduler.write("train", node, NCCL_TIMEOUT.format(rank=rank) + "\n")
    rig.fail(culprit=culprit)


def test_hardware_fault_requeues_at_once_without_the_suspect_and_hands_it_over(rig: JobRig) -> None:
    _hardware_failure(rig)
    summary = rig.run()
    assert (summary.opened, summary.executed) == (1, 1)

    incident = rig.incident()
    assert incident.verdict is not None and incident.verdict.cause is Cause.HARDWARE
    assert incident.verdict.suspect_nodes == ("n2",)
    signals = [e.signal for e in incident.verdict.evidence]
    assert signals[0] == "xid.79"  # the node agent's line decided, the job's lines corroborate
    assert incident.decided is not None
    assert (incident.decided.action, incident.decided.exclude, incident.decided.delay_s) == (
        Action.REQUEUE_EXCLUDING, ("n2",), 0.0,
    )  # fmt: skip

    # The requeue went through the port with its provenance.
    [aid] = rig.requeues()
    prov = rig.scheduler.provenance[aid]
    assert prov.by == "job-recovery" and prov.incident == incident.id
    assert "requeue at once without them" in prov.why
    assert any("xid.79" in line for line in prov.evidence)

    # Hardware recovery was told in the very pass that decided, before the job restarted.
    [handover] = rig.store.pending_handovers()
    assert handover.signal.node == "n2" and handover.signal.probe is Probe.JOB
    assert handover.signal.incident == incident.id
    assert handover.signal.node_action is NodeAction.REBOOT

    # The new attempt runs elsewhere, is verified, and the recovery is timed to its first step.
    rig.run()
    assert "n2" not in rig.on() and rig.scheduler.current("train").index == 1
    assert rig.incident().phase is IncidentPhase.RECOVERING
    [requeue] = [a for a in rig.store.actions() if a.action.kind is JobActionKind.REQUEUE_EXCLUDING]
    assert requeue.status is ActionStatus.DONE and "avoiding n2" in requeue.verified
    rig.resume(loaded=6)
    rig.run()
    assert rig.incident().phase is IncidentPhase.CLOSED
    stages = [m.stage for m in rig.store.timeline(incident.id)]
    assert set(stages) == set(Stage)
    parts = breakdown(rig.store.timeline(incident.id))
    assert parts.detect_s == 1.0 and parts.engine_s == 1.0 and parts.total_s == 2.0
    assert parts.lost_work_s == 1.0  # step 4 since the checkpoint at 3 (which holds step 3)


def test_transient_retries_on_the_same_nodes_after_a_growing_backoff(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    first = rig.on()
    rig.scheduler.write("train", "n0", PREEMPTED.format(node="n0") + "\n")
    rig.fail()
    rig.run()
    incident = rig.incident()
    assert incident.verdict is not None and incident.verdict.cause is Cause.TRANSIENT
    assert incident.decided is not None
    assert (incident.decided.exclude, incident.decided.delay_s) == ((), 10.0)
    assert rig.store.pending_handovers() == []
    rig.run(step_s=5)
    assert rig.scheduler.current("train").started is None  # still inside its backoff
    rig.run(step_s=6)
    assert rig.on() == first and rig.incident().phase is IncidentPhase.RECOVERING

    rig.steps(count=3)
    rig.scheduler.write("train", "n1", PREEMPTED.format(node="n1") + "\n")
    rig.fail()
    rig.run()
    second = rig.incident(attempt=1)
    assert second.decided is not None and second.decided.delay_s == 30.0
    assert rig.controller.history("train").spent(Budget.INFRASTRUCTURE) == 2
    assert rig.controller.history("train").spent(Budget.USER) == 0


def test_application_error_stops_the_job_and_tells_a_person(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    for node in rig.on():
        rig.scheduler.write("train", node, MODULE_NOT_FOUND + "\n")
    rig.fail()
    rig.run()
    incident = rig.incident()
    assert incident.verdict is not None and incident.verdict.cause is Cause.APPLICATION
    assert incident.decided is not None and incident.decided.exclude == ()
    assert incident.phase is IncidentPhase.CLOSED and incident.outcome == "stopped"
    assert [k for k, _, _ in rig.scheduler.log] == ["stop"]
    assert rig.store.pending_handovers() == []
    [alert] = rig.notifier.alerts.values()
    assert "stopped" in alert.summary and alert.incident == incident.id


def test_weak_application_evidence_gets_one_confirmation_retry(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", WEAK_EXCEPTION + "\n")
    rig.fail()
    rig.settle()
    first = rig.incident()
    assert first.decided is not None and first.decided.action is Action.REQUEUE
    assert first.decided.budget is Budget.USER
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", WEAK_EXCEPTION + "\n")
    rig.fail()
    rig.run()
    assert rig.incident(attempt=1).decided.action is Action.STOP  # type: ignore[union-attr]


def test_unknown_causes_get_bounded_retries_from_the_users_budget(rig: JobRig) -> None:
    rig.submit(user_restarts=2, same_cause_ceiling=9, no_progress_restarts=0)
    actions = []
    for attempt in range(3):
        rig.steps(count=3, checkpoint_every=2)
        rig.fail()
        rig.settle()
        decided = rig.incident(attempt=attempt).decided
        assert decided is not None
        actions.append(decided.action)
        rig.clock.advance(3600)  # far apart: no crash loop
    assert actions == [Action.REQUEUE, Action.REQUEUE, Action.STOP]
    assert rig.controller.history("train").spent(Budget.USER) == 2


def test_exit_93_is_nvrx_asking_not_to_requeue(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    rig.xid("n1")  # even with hardware evidence around: NVRx has decided
    for node in rig.on():
        rig.scheduler.write("train", node, NO_PROGRESS + "\n")
    rig.fail(code=93)
    rig.run()
    incident = rig.incident()
    assert incident.verdict is not None and incident.verdict.cause is Cause.APPLICATION
    assert incident.decided is not None and incident.decided.action is Action.STOP
    assert rig.requeues() == [] and rig.store.pending_handovers() == []


def test_in_job_restarts_are_not_failures(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=4)
    rig.scheduler.write("train", "n0", "RuntimeError: NCCL error: unhandled system error\n")
    rig.scheduler.write("train", "n0", WORKER_RESTART + "\n")
    rig.clock.advance(100)  # the launcher takes its time to restart the workers
    rig.run()
    rig.steps(count=4)
    assert rig.incidents() == [] and rig.scheduler.log == []
    assert rig.controller.history("train").attempts == ()
    [event] = rig.store.events("train")
    assert "in-job restart" in event.text and "not counted" in event.text

    # When the job later fails for good, the error the launcher recovered from is no evidence.
    rig.fail(code=1)
    rig.run()
    incident = rig.incident()
    assert incident.verdict is not None
    assert all(e.signal != "nccl.unhandled_system_error" for e in incident.verdict.evidence)
    assert len(rig.controller.history("train").attempts) == 1


def test_a_hang_is_detected_from_telemetry_silence_and_handled_by_its_cause(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=6)
    rig.xid("n3")  # the reason the collective stalled
    rig.run(passes=8, step_s=10)  # 90 s of silence: within the job's own hang limit (100 s)
    assert rig.incidents() == []
    rig.run(passes=2, step_s=10)
    incident = rig.incident(kind="hang")
    assert incident.verdict is not None and incident.verdict.suspect_nodes == ("n3",)
    assert rig.requeues() == ["train#0/hang/requeue_excluding"]
    rig.run()
    assert "n3" not in rig.on()
    # The hung attempt was ended by the requeue: that is not one more failure.
    assert [i.id for i in rig.incidents()] == ["train#0/hang"]


def test_a_hang_that_stopped_on_one_node_first_names_that_node(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=6)
    others = [n for n in rig.on() if n != "n1"]
    step = 6
    for _ in range(8):  # n1 goes quiet; its peers report a little longer, then block on it
        now = rig.clock.now()
        for rank, node in enumerate(rig.on()):
            if node in others:
                rig.scheduler.write("train", node, tele("step", now, rank, node, step=step))
        step += 1
        rig.clock.advance(10)
        rig.controller.run_once()
    rig.run(passes=20, step_s=10)
    incident = rig.incident(kind="hang")
    assert incident.verdict is not None and incident.verdict.suspect_nodes == ("n1",)
    assert [e.signal for e in incident.verdict.evidence] == ["job.progress_stopped"]


def test_a_hang_with_no_evidence_gets_a_bounded_retry_on_the_same_nodes(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=6)
    rig.run(passes=15, step_s=10)
    incident = rig.incident(kind="hang")
    assert incident.verdict is not None and incident.verdict.suspect_nodes == ()
    assert incident.decided is not None and incident.decided.exclude == ()
    assert incident.decided.action is Action.REQUEUE


def test_exclusions_are_remembered_per_job_and_decay(rig: JobRig) -> None:
    rig.submit(exclusion_ttl_s=7200)
    rig.steps(count=3)
    rig.xid("n2")
    rig.fail(culprit="n2")
    rig.settle()
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", PREEMPTED.format(node="n0") + "\n")
    rig.fail()
    rig.settle()
    later = rig.incident(attempt=1)
    assert later.decided is not None and later.decided.exclude == ("n2",)  # still avoided
    assert "n2" not in rig.on()
    rig.clock.advance(7200)
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", PREEMPTED.format(node="n0") + "\n")
    rig.fail()
    rig.run()
    decayed = rig.incident(attempt=2)
    assert decayed.decided is not None and decayed.decided.exclude == ()


def test_suspicion_across_jobs_hands_a_node_over_for_it(rig: JobRig) -> None:
    keys = []
    for job in ["a", "b", "c"]:  # three jobs in turn on n0 and n1; n1 fails each of them
        rig.submit(job, size=2)
        rig.steps(job, count=3)
        rig.xid("n1")
        rig.fail(job, culprit="n1")
        rig.run()
        mine = [h for h in rig.store.handovers() if h.signal.incident == f"{job}#0/failure"]
        keys.append(sorted(h.signal.signal for h in mine))
        rig.scheduler.stop(job, Provenance(f"end-{job}", "test", "done", rig.clock.now()))
        rig.clock.advance(600)
    assert keys[0] == keys[1] == ["xid.79"]
    assert keys[2] == ["job.suspicion", "xid.79"]  # named in three jobs: handed over for that


def test_a_requeue_that_ignored_the_exclusion_fails_verification_and_is_retried(
    rig: JobRig,
) -> None:
    rig.scheduler.ignore_exclusions = 1
    _hardware_failure(rig)
    rig.run()
    rig.run()  # the scheduler restarted the job on n2 after all
    [first] = [a for a in rig.store.actions() if a.action.id == "train#0/failure/requeue_excluding"]
    assert first.status is ActionStatus.FAILED
    assert "does not carry the exclusion of n2" in first.result
    rig.run()  # the retry went through; this pass verifies it
    assert rig.requeues() == [
        "train#0/failure/requeue_excluding",
        "train#0/failure/requeue_excluding/retry-1",
    ]
    assert "n2" not in rig.on()
    assert rig.incident().phase is IncidentPhase.RECOVERING


def test_a_scheduler_that_never_applies_the_exclusion_ends_with_a_person(rig: JobRig) -> None:
    rig.scheduler.ignore_exclusions = 99
    _hardware_failure(rig)
    rig.run(passes=8)
    incident = rig.incident()
    assert incident.phase is IncidentPhase.FAILED
    assert len(rig.requeues()) == 1 + rig.controller.settings.verify_retries
    [alert] = [a for a in rig.notifier.alerts.values() if a.incident == incident.id]
    assert "verification failed" in alert.summary


def test_dry_run_records_everything_and_executes_nothing() -> None:
    rig = JobRig(dry_run=True)
    _hardware_failure(rig)
    rig.run(passes=3)
    assert rig.scheduler.calls == {} and rig.notifier.calls == {}
    incident = rig.incident()
    assert incident.dry_run and incident.phase is IncidentPhase.CLOSED
    assert incident.outcome == "dry-run: would requeue_excluding"
    assert {a.status for a in rig.store.actions()} == {ActionStatus.WOULD}
    assert rig.store.pending_handovers() == []
    assert nodes_of(h.signal for h in rig.store.handovers()) == ["n2"]


def test_a_job_can_ask_for_dry_run_and_its_own_budgets(rig: JobRig) -> None:
    rig.submit("careful", size=2, dry_run=True)
    rig.submit("strict", size=2, first=2, user_restarts=0)
    rig.submit("off", size=2, first=4, enabled=False)
    rig.submit("broken", size=2, first=6, user_restarts="many")
    for job in ("careful", "strict", "off", "broken"):
        rig.steps(job, count=3, run=False)
        rig.fail(job)
    rig.run()
    assert [k for k, job, _ in rig.scheduler.log] == ["stop"] and "strict" in rig.scheduler.log[0][
        2
    ]
    assert rig.incident("careful").phase is IncidentPhase.CLOSED
    assert {a.status for a in rig.store.actions("careful")} == {ActionStatus.WOULD}
    assert rig.incident("strict").decided.action is Action.STOP  # type: ignore[union-attr]
    assert rig.incidents("off") == [] and rig.incidents("broken") == []
    [event] = rig.store.events("broken")
    assert "user_restarts" in event.text


def test_a_straggler_is_recorded_and_handed_over_and_the_job_left_running(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=4)
    rig.steps(count=4, slow={"n2": 2.0})
    [incident] = rig.incidents()
    assert incident.kind.value == "straggler" and incident.phase is IncidentPhase.OBSERVED
    [handover] = rig.store.pending_handovers()
    assert (handover.signal.node, handover.signal.signal) == ("n2", "job.straggler")
    assert rig.scheduler.log == []
    rig.steps(count=4)  # back to normal: the episode ends
    assert rig.incidents()[0].phase is IncidentPhase.CLOSED


def test_a_slowdown_is_recorded_only(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=6)
    for step in range(100, 104):  # every rank at a third of its pace
        now = rig.clock.now()
        for rank, node in enumerate(rig.on()):
            rig.scheduler.write(
                "train", node, tele("summary", now, rank, node, step=step, steps_per_s=0.3)
            )
        rig.clock.advance(10)
        rig.controller.run_once()
    [incident] = rig.incidents()
    assert incident.kind.value == "slow" and rig.scheduler.log == []


def test_a_failure_is_decided_only_once_its_output_is_read(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    for node in rig.on():
        rig.scheduler.write("train", node, MODULE_NOT_FOUND + "\n")
    rig.fail()
    rig.scheduler.read_failures["train"] = TransientError("output not there yet")
    rig.run()
    assert rig.incidents() == []
    del rig.scheduler.read_failures["train"]
    rig.run()
    assert rig.incident().verdict.cause is Cause.APPLICATION  # type: ignore[union-attr]


def test_verification_gives_a_slow_scheduler_its_delay(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", PREEMPTED.format(node="n0") + "\n")
    rig.fail()
    rig.run()
    for _ in range(5):
        rig.run(step_s=1)
        assert rig.incident().phase is IncidentPhase.VERIFYING
    rig.run(step_s=10)
    assert rig.incident().phase is IncidentPhase.RECOVERING
    # Started when the scheduler next looked after the 10 s backoff (the pass at +15 s).
    assert breakdown(rig.store.timeline(rig.incident().id)).reschedule_s == 15.0


def test_an_attempt_stamped_before_its_requeue_is_rescheduled_at_the_requeue(rig: JobRig) -> None:
    """A scheduler stamping whole seconds (Slurm's start time), or starting the attempt inside
    the requeue call, gives a start before the engine's time of the requeue: the reschedule is
    0 s, not negative, and the other parts stay as measured."""
    rig.submit()
    rig.steps(count=3)
    rig.scheduler.write("train", "n0", PREEMPTED.format(node="n0") + "\n")
    rig.fail()
    rig.run()  # requeued
    stopped = {m.stage: m.at for m in rig.store.timeline(rig.incident().id)}[Stage.STOPPED]
    attempt = rig.scheduler.jobs["train"].current
    assert attempt.index == 1 and attempt.started is None
    # the scheduler runs it at once and stamps it in whole seconds, before the requeue's time
    attempt.nodes, attempt.phase, attempt.state = ("n0", "n1", "n2", "n3"), JobPhase.RUNNING, "R"
    attempt.started = stopped - timedelta(seconds=0.7)
    rig.run()
    assert rig.incident().phase is IncidentPhase.RECOVERING
    marks = {m.stage: m.at for m in rig.store.timeline(rig.incident().id)}
    assert marks[Stage.RESCHEDULED] == stopped
    assert breakdown(rig.store.timeline(rig.incident().id)).reschedule_s == 0.0


def test_the_timeline_without_telemetry_still_closes_when_the_attempt_ends(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    rig.xid("n0")
    rig.fail(culprit="n0")
    rig.run(passes=2)
    rig.scheduler.complete("train")
    rig.run()
    incident = rig.incident()
    assert incident.phase is IncidentPhase.CLOSED and "before a new step" in incident.outcome
    assert timedelta(0) <= incident.closed_at - incident.opened_at  # type: ignore[operator]


def test_the_same_unexplained_crash_again_is_the_jobs_own(rig: JobRig) -> None:
    """A rank dies of a segfault with no word why: retried once (unknown). The next attempt
    dies the same way: the job's history makes it the job's own failure, and it stops."""
    crash = "Fatal Python error: Segmentation fault\n"
    rig.submit(user_restarts=5, same_cause_ceiling=9)
    rig.steps(count=3)
    rig.scheduler.write("train", "n2", crash)
    rig.fail()
    rig.settle()
    first = rig.incident()
    assert first.verdict.cause is Cause.UNKNOWN, first.verdict.summary
    assert first.decided is not None and first.decided.action is Action.REQUEUE
    rig.clock.advance(3600)  # far apart: not a crash loop
    rig.steps(count=3)
    rig.scheduler.write("train", "n1", crash)  # another node this time
    rig.fail()
    rig.settle()
    second = rig.incident(attempt=1)
    assert second.verdict.cause is Cause.APPLICATION, second.verdict.summary
    assert second.decided is not None and second.decided.action is Action.STOP


def test_a_node_the_attempt_left_before_it_failed_is_still_named(rig: JobRig) -> None:
    """A drain evicts the rank on the XID node and the operator recreates it elsewhere within
    the same attempt; when the job then fails, the node it was on is still one of its nodes."""
    rig.submit()
    rig.steps(count=5, checkpoint_every=3)
    rig.run()  # job recovery reads every node's output, n2's included
    moved = rig.scheduler.current("train")
    spare = next(n for n in rig.nodes if n not in moved.nodes)
    rig.xid("n2")
    moved.nodes = tuple(spare if n == "n2" else n for n in moved.nodes)
    for rank, node in enumerate(rig.on()):
        rig.scheduler.write("train", node, NCCL_TIMEOUT.format(rank=rank) + "\n")
    rig.fail()
    rig.run()

    incident = rig.incident()
    assert incident.verdict is not None and incident.verdict.cause is Cause.HARDWARE
    assert incident.verdict.suspect_nodes == ("n2",)
    assert incident.decided is not None and incident.decided.exclude == ("n2",)
