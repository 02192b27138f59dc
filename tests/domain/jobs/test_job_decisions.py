"""Job recovery decisions: budgets by cause, ceilings, loops, backoff, exclusions that decay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.jobs.decisions import Budget, JobHistory, decide_job, first_decision
from autorecover.domain.jobs.policy import (
    JobPolicy,
    PolicyError,
    builtin_job_policy,
    policy_from_toml,
)
from autorecover.domain.jobs.suspicion import Suspicion
from autorecover.domain.records import Action, Cause, Evidence, Source, Verdict

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
POLICY = JobPolicy()


def verdict(
    cause: Cause, suspects: tuple[str, ...] = (), signal: str = "x", strength: int = 90
) -> Verdict:
    action = {Cause.HARDWARE: Action.REQUEUE_EXCLUDING, Cause.APPLICATION: Action.STOP}.get(
        cause, Action.REQUEUE
    )
    ev = (Evidence(suspects[0] if suspects else "n1", Source.SYSTEM, 1, signal, signal),)
    return Verdict(cause, suspects, action, ev, strength=strength)


def run(
    verdicts: list[Verdict],
    policy: JobPolicy = POLICY,
    gap: timedelta = timedelta(hours=1),
    checkpoints=None,
):  # type: ignore[no-untyped-def]
    history = JobHistory()
    out = []
    for i, v in enumerate(verdicts):
        cp = checkpoints[i] if checkpoints else i * 100
        d = decide_job(v, history, T0 + i * gap, policy, incident=f"inc-{i}", checkpoint=cp)
        history = d.history
        out.append(d)
    return out


def test_hardware_requeues_at_once_excluding_and_hands_over() -> None:
    (d,) = run([verdict(Cause.HARDWARE, ("n3",), "xid.79")])
    assert (d.action, d.exclude, d.delay_s, d.budget) == (
        Action.REQUEUE_EXCLUDING,
        ("n3",),
        0.0,
        Budget.INFRASTRUCTURE,
    )
    assert d.hand_over == ("n3",)


def test_exclusions_accumulate_then_decay() -> None:
    ds = run(
        [verdict(Cause.HARDWARE, ("n3",), "xid.79"), verdict(Cause.HARDWARE, ("n1",), "xid.48")]
    )
    assert ds[1].exclude == ("n1", "n3")
    later = decide_job(
        verdict(Cause.TRANSIENT, signal="slurm.preempted"),
        ds[1].history,
        T0 + timedelta(days=2),
        POLICY,
        incident="inc-9",
        checkpoint=900,
    )
    assert later.exclude == ()


def test_transient_retries_same_nodes_with_growing_backoff() -> None:
    policy = JobPolicy(same_cause_ceiling=99, crash_loop_failures=99)
    ds = run([verdict(Cause.TRANSIENT, signal="nccl.watchdog_timeout")] * 5, policy)
    assert [d.action for d in ds] == [Action.REQUEUE] * 5
    assert [d.delay_s for d in ds] == [10.0, 30.0, 90.0, 270.0, 270.0]
    assert all(d.exclude == () for d in ds)


def test_infrastructure_restarts_never_spend_the_users_budget() -> None:
    policy = JobPolicy(same_cause_ceiling=99, crash_loop_failures=99)
    ds = run(
        [verdict(Cause.HARDWARE, (f"n{i}",), f"xid.{i}") for i in range(5)]
        + [verdict(Cause.UNKNOWN)],
        policy,
    )
    assert ds[-1].history.spent(Budget.USER) == 1
    assert ds[-1].history.spent(Budget.INFRASTRUCTURE) == 5
    assert ds[-1].action is Action.REQUEUE


def test_unknown_causes_have_a_bounded_budget() -> None:
    policy = JobPolicy(user_restarts=2, same_cause_ceiling=99, crash_loop_failures=99)
    ds = run([verdict(Cause.UNKNOWN, signal=f"s{i}") for i in range(3)], policy)
    assert [d.action for d in ds] == [Action.REQUEUE, Action.REQUEUE, Action.STOP]


def test_application_stops_but_weak_evidence_gets_one_confirmation() -> None:
    strong = run([verdict(Cause.APPLICATION, signal="python.module_not_found", strength=85)])
    assert strong[0].action is Action.STOP
    weak = run([verdict(Cause.APPLICATION, signal="python.exception", strength=50)] * 2)
    assert [d.action for d in weak] == [Action.REQUEUE, Action.STOP]
    assert weak[0].budget is Budget.USER


def test_same_root_cause_ceiling() -> None:
    policy = JobPolicy(same_cause_ceiling=3, crash_loop_failures=99)
    ds = run([verdict(Cause.TRANSIENT, signal="nccl.unhandled_system_error")] * 3, policy)
    assert ds[-1].action is Action.STOP and "same cause" in ds[-1].reason


def test_crash_loop_stops() -> None:
    policy = JobPolicy(crash_loop_failures=3, crash_loop_window_s=600, same_cause_ceiling=99)
    ds = run(
        [verdict(Cause.TRANSIENT, signal=f"s{i}") for i in range(3)],
        policy,
        gap=timedelta(minutes=1),
    )
    assert ds[-1].action is Action.STOP and "crash loop" in ds[-1].reason


def test_no_completed_checkpoint_across_restarts_stops() -> None:
    policy = JobPolicy(no_progress_restarts=3, same_cause_ceiling=99, crash_loop_failures=99)
    vs = [verdict(Cause.HARDWARE, (f"n{i}",), f"xid.{i}") for i in range(4)]
    ds = run(vs, policy, checkpoints=[500, 500, 500, 500])
    assert [d.action for d in ds][-1] is Action.STOP and "no completed checkpoint" in ds[-1].reason
    moving = run(vs, policy, checkpoints=[100, 200, 300, 400])
    assert moving[-1].action is Action.REQUEUE_EXCLUDING


def test_policy_toml_and_errors() -> None:
    assert builtin_job_policy() == JobPolicy()
    p = policy_from_toml("[job]\nuser_restarts = 5\ntransient_backoff_s = [1, 2]\n", "site.toml")
    assert p.user_restarts == 5 and p.transient_backoff_s == (1.0, 2.0)
    assert p.infrastructure_restarts == JobPolicy().infrastructure_restarts  # the rest stays
    with pytest.raises(PolicyError, match=r"site.toml: field 'user_retries': unknown"):
        policy_from_toml("[job]\nuser_retries = 5\n", "site.toml")
    with pytest.raises(PolicyError, match=r"field 'dry_run': must be true or false"):
        JobPolicy().merged({"dry_run": "yes"}, "comment")


def test_suspicion_accumulates_across_jobs_and_decays() -> None:
    s = Suspicion(half_life_s=86_400)
    for i in range(3):
        s = s.add("n7", T0 + timedelta(hours=i))
    assert s.over(2.5, T0 + timedelta(hours=3)) == ("n7",)
    assert s.over(2.5, T0 + timedelta(days=3)) == ()


CAUSES = st.sampled_from(list(Cause))


@given(
    st.lists(
        st.tuples(CAUSES, st.sampled_from(["a", "b", "c"]), st.integers(0, 3)),
        min_size=1,
        max_size=25,
    )
)
def test_budgets_and_invariants_hold_for_any_sequence(rows: list[tuple[Cause, str, int]]) -> None:
    vs = [verdict(c, ("n1",) if c is Cause.HARDWARE else (), sig) for c, sig, _ in rows]
    ds = run(vs, POLICY, gap=timedelta(minutes=7), checkpoints=[cp for _, _, cp in rows])
    last = ds[-1].history
    assert last.spent(Budget.USER) <= POLICY.user_restarts
    assert last.spent(Budget.INFRASTRUCTURE) <= POLICY.infrastructure_restarts
    for v, d in zip(vs, ds, strict=True):
        if d.action is Action.STOP:
            assert d.exclude == ()
        if v.cause is not Cause.HARDWARE:
            assert d.hand_over == ()
        if v.cause is Cause.APPLICATION:
            assert d.budget in (Budget.NONE, Budget.USER)


def test_first_decision_decides_as_on_a_jobs_first_failure() -> None:
    """What `explain` and the corpus score show beside a verdict: no history, so a weak
    application verdict gets its confirmation retry and a strong one a stop."""
    weak = first_decision(verdict(Cause.APPLICATION, strength=50), POLICY)
    assert (weak.action, weak.budget) == (Action.REQUEUE, Budget.USER)
    assert "one confirmation retry" in weak.reason
    assert first_decision(verdict(Cause.APPLICATION, strength=85), POLICY).action is Action.STOP
    hw = first_decision(verdict(Cause.HARDWARE, ("n3",)), POLICY)
    assert (hw.action, hw.exclude) == (Action.REQUEUE_EXCLUDING, ("n3",))
