"""Property tests: for any sequence of job failures — causes, gaps between them, progress or
none — the controller never spends more than a budget allows, never names a suspect (no
exclusion, no hand-over) for a cause other than hardware, does each action once, and
requeues nothing after it stopped the job."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autorecover.controllers.jobs.records import JobPhase
from autorecover.domain.jobs.decisions import Budget
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Action, Cause
from controllers.jobs.rig import MODULE_NOT_FOUND, NO_PROGRESS, PREEMPTED, WEAK_EXCEPTION, JobRig

POLICY = JobPolicy(
    infrastructure_restarts=4,
    user_restarts=2,
    same_cause_ceiling=3,
    crash_loop_failures=4,
    crash_loop_window_s=900,
    no_progress_restarts=3,
)
# Infrastructure causes come more often, as they do (and so their budget gets spent).
CAUSES = [
    "hardware",
    "hardware",
    "transient",
    "transient",
    "unknown",
    "application",
    "weak",
    "nvrx",
]
FAILURES = st.lists(
    st.tuples(
        st.sampled_from(CAUSES),
        st.integers(0, 3),  # which of the job's nodes is at fault, for hardware
        st.sampled_from([20.0, 400.0, 4000.0]),  # time until the next failure
        st.booleans(),  # a checkpoint completed since the last failure
    ),
    min_size=1,
    max_size=12,
)


def _running(rig: JobRig) -> bool:
    for _ in range(12):
        phase = rig.scheduler.current("train").phase
        if phase is JobPhase.RUNNING:
            return True
        if phase is not JobPhase.PENDING:
            return False
        rig.run(step_s=30)
    return False


def _fail(rig: JobRig, cause: str, culprit: int) -> None:
    nodes = rig.on()
    if cause == "hardware":
        rig.xid(nodes[culprit])
        rig.fail(culprit=nodes[culprit])
    elif cause == "transient":
        rig.scheduler.write("train", nodes[0], PREEMPTED.format(node=nodes[0]) + "\n")
        rig.fail()
    elif cause == "application":
        for node in nodes:
            rig.scheduler.write("train", node, MODULE_NOT_FOUND + "\n")
        rig.fail()
    elif cause == "weak":
        rig.scheduler.write("train", nodes[1], WEAK_EXCEPTION + "\n")
        rig.fail()
    elif cause == "nvrx":
        rig.scheduler.write("train", nodes[0], NO_PROGRESS + "\n")
        rig.fail(code=93)
    else:
        rig.fail()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FAILURES)
def test_budgets_hold_and_only_hardware_names_suspects(
    failures: list[tuple[str, int, float, bool]],
) -> None:
    rig = JobRig(policy=POLICY, nodes=[f"n{i}" for i in range(24)])
    rig.submit(size=4)
    for cause, culprit, gap, progress in failures:
        if not _running(rig):
            break
        rig.steps(count=2, checkpoint_every=1 if progress else 0, run=False)
        _fail(rig, cause, culprit)
        rig.run()
        rig.run(step_s=gap)

    history = rig.controller.history("train")
    assert history.spent(Budget.INFRASTRUCTURE) <= POLICY.infrastructure_restarts
    assert history.spent(Budget.USER) <= POLICY.user_restarts
    requeues = rig.requeues()
    assert len(requeues) <= POLICY.infrastructure_restarts + POLICY.user_restarts
    assert all(n == 1 for n in rig.scheduler.effects.values())

    named: set[str] = set()  # every node a hardware verdict named so far
    stopped = False
    for incident in rig.store.incidents("train"):
        verdict, decided = incident.verdict, incident.decided
        assert verdict is not None and decided is not None
        assert not stopped, "nothing is decided after the job was stopped"
        handed = [h for h in rig.store.handovers() if h.signal.incident == incident.id]
        if verdict.cause is Cause.HARDWARE:
            named.update(verdict.suspect_nodes)
        else:
            assert verdict.suspect_nodes == () and decided.hand_over == () and handed == []
        assert set(decided.exclude) <= named  # only nodes hardware verdicts named, ever
        stopped = decided.action is Action.STOP
    decided_by = {i.id: i.decided for i in rig.store.incidents("train")}
    for aid in requeues:  # each requeue done belongs to an incident that decided to requeue
        owner = decided_by[aid.split("/requeue")[0]]
        assert owner is not None and owner.action is not Action.STOP
