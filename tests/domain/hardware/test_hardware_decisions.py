"""`decide`: pure hardware recovery decisions, state by state."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.failure_domains import DomainIncident, DomainKind, FailureDomain
from autorecover.domain.hardware.breaker import CLOSED, BreakerState, BreakerView
from autorecover.domain.hardware.decisions import decide, release
from autorecover.domain.hardware.lifecycle import PERSON_ONLY, TRANSITIONS, ActionKind, NodeState
from autorecover.domain.hardware.policy import SignalClass
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.hardware.records import (
    Decision,
    DecisionContext,
    NodeRecord,
    Observation,
)
from autorecover.domain.hardware.remediation import (
    Attempt,
    DiagnosticLevel,
    DiagnosticResult,
    Step,
    Verdict,
)
from autorecover.domain.hardware.silence import unresponsive
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

POLICY = load_policy()
H, S, Q = NodeState.HEALTHY, NodeState.SUSPECT, NodeState.QUARANTINED
D, R, V, NA = (
    NodeState.DIAGNOSING,
    NodeState.REMEDIATING,
    NodeState.VALIDATING,
    NodeState.NEEDS_ATTENTION,
)
RACK = FailureDomain(DomainKind.RACK, "r1")


def ctx(**kw: object) -> DecisionContext:
    base: dict[str, object] = {
        "policy": POLICY,
        "breaker": BreakerView(POLICY.breaker, CLOSED, 1000),
        "domains": (RACK,),
    }
    base.update(kw)
    return DecisionContext(**base)  # type: ignore[arg-type]


def sig(
    key: str = "xid.79",
    action: NodeAction = NodeAction.REBOOT,
    blame: Blame = Blame.HARDWARE,
    at: datetime = START,
    **kw: object,
) -> NodeSignal:
    return NodeSignal("n1", Probe.KERNEL, key, blame, 90, action, at, text="evidence", **kw)  # type: ignore[arg-type]


def kinds(d: Decision) -> list[ActionKind]:
    return [a.kind for a in d.actions]


def at(state: NodeState, **kw: object) -> NodeRecord:
    return replace(NodeRecord("n1", state=state, since=START, seq=3), **kw)  # type: ignore[arg-type]


def result(
    verdict: Verdict, rec: NodeRecord, recommended: NodeAction = NodeAction.NONE
) -> Observation:
    level = DiagnosticLevel.QUICK if rec.state is D else DiagnosticLevel.LOAD
    return Observation(
        result=DiagnosticResult("x", "n1", level, verdict, START, recommended, ("dcgm: ok",))
    )


# --- detection ----------------------------------------------------------------------------


def test_a_healthy_node_reporting_nothing_is_left_alone() -> None:
    rec = NodeRecord("n1")
    d = decide(rec, (), START, ctx())
    assert d.record is rec and d.transition is None and d.actions == ()


def test_a_hardware_fault_quarantines_with_cordon_taint_drain_and_provenance() -> None:
    d = decide(NodeRecord("n1"), [sig(component="0000:3b:00.0")], START, ctx())
    assert d.record.state is Q and d.removal
    assert kinds(d) == [ActionKind.CORDON, ActionKind.TAINT, ActionKind.DRAIN]
    assert d.record.wanted is Step.REBOOT
    assert d.record.component == "0000:3b:00.0"
    t = d.transition
    assert t is not None and (t.frm, t.to, t.seq) == (H, Q, 1)
    assert t.why == "quarantine: xid.79"
    assert t.incident == d.record.incident and t.incident is not None
    assert any("kernel:xid.79@0000:3b:00.0 evidence" in line for line in t.evidence)
    assert all(a.by == "autorecover" and a.incident == t.incident for a in d.actions)
    assert [a.id for a in d.actions] == ["n1/1/cordon", "n1/1/taint", "n1/1/drain"]


def test_a_node_released_and_faulting_again_in_the_same_second_opens_a_new_incident() -> None:
    first = decide(NodeRecord("n1"), [sig()], START, ctx())
    back = release(first.record, START, "alice", "reseated")
    again = decide(back.record, [sig()], START, ctx())
    assert first.transition is not None and again.transition is not None
    assert again.record.state is Q and again.transition.incident is not None
    assert again.transition.incident != first.transition.incident
    assert first.transition.incident == f"hw/n1/{START:%Y%m%dT%H%M%SZ}-1"


def test_a_signal_replayed_long_after_decides_nothing() -> None:
    old = sig(at=START - timedelta(hours=2))
    d = decide(NodeRecord("n1"), [old], START, ctx())
    assert d.record.state is H and d.actions == ()


def test_a_job_incident_id_is_kept_as_provenance() -> None:
    job = replace(sig(), probe=Probe.JOB, incident="slurm/4242")
    d = decide(NodeRecord("n1"), [job], START, ctx())
    assert d.record.state is S  # job attributions are capped at suspect
    assert d.record.incident == "slurm/4242"
    assert kinds(d) == [ActionKind.CORDON]


@pytest.mark.parametrize("blame", [b for b in Blame if b is not Blame.HARDWARE])
def test_software_class_signals_never_touch_the_node(blame: Blame) -> None:
    d = decide(NodeRecord("n1"), [sig(blame=blame)] * 5, START, ctx())
    assert d.record.state is H and d.actions == () and d.record.marks == ()


def test_a_suspect_class_signal_cordons_only() -> None:
    d = decide(NodeRecord("n1"), [sig("nvml.thermal_slowdown", NodeAction.MONITOR)], START, ctx())
    assert d.record.state is S and kinds(d) == [ActionKind.CORDON]


def test_repeats_escalate_a_suspect_to_quarantine_without_a_second_cordon() -> None:
    rec, c = NodeRecord("n1"), ctx()
    for minutes in (0, 10, 20):
        now = START + timedelta(minutes=minutes)
        d = decide(rec, [sig("nvml.thermal_slowdown", NodeAction.MONITOR, at=now)], now, c)
        rec = d.record
    assert rec.state is Q
    assert kinds(d) == [ActionKind.TAINT, ActionKind.DRAIN]
    assert not d.removal  # already out of new-job service: not a new removal


def test_one_hard_restart_is_watched_and_a_second_within_a_day_keeps_new_jobs_off() -> None:
    # the agent's boot probe: the node booted again without the agent being stopped
    rec, c = NodeRecord("n1"), ctx()
    d = decide(rec, [sig("node.hard_restart", NodeAction.MONITOR)], START, c)
    assert d.record.state is H and d.actions == ()
    later = START + timedelta(hours=20)
    d = decide(d.record, [sig("node.hard_restart", NodeAction.MONITOR, at=later)], later, c)
    assert d.record.state is S and kinds(d) == [ActionKind.CORDON]


def test_a_quiet_suspect_returns() -> None:
    rec = decide(
        NodeRecord("n1"), [sig("nvml.power_brake", NodeAction.MONITOR)], START, ctx()
    ).record
    assert decide(rec, (), START + timedelta(minutes=59), ctx()).record.state is S
    d = decide(rec, (), START + timedelta(hours=1), ctx())
    assert d.record.state is H and kinds(d) == [ActionKind.RESUME]
    assert d.record.evidence == () and d.record.incident is None


def test_the_breaker_holds_a_removal_and_says_so_once() -> None:
    tripped = ctx(breaker=BreakerView(POLICY.breaker, BreakerState(START, "too many"), 1000))
    d = decide(NodeRecord("n1"), [sig()], START, tripped)
    assert d.record.state is H and d.actions == ()
    assert d.record.held is SignalClass.QUARANTINE
    assert d.notes == ("held: breaker tripped: too many",)
    again = decide(d.record, (), START + timedelta(minutes=1), tripped)
    assert again.notes == () and again.refusal is not None
    # Once the breaker is reset, the held removal goes ahead without a new signal.
    after = decide(again.record, (), START + timedelta(minutes=2), ctx())
    assert after.record.state is Q and after.record.held is None
    assert after.transition is not None and "held since" in after.transition.why


def test_a_held_removal_expires() -> None:
    full = ctx(breaker=BreakerView(POLICY.breaker, CLOSED, 1000, removed=50))
    held = decide(NodeRecord("n1"), [sig()], START, full)
    assert held.refusal is not None and held.refusal.trips
    late = decide(held.record, (), START + timedelta(hours=2), ctx())
    assert late.record.state is H and late.record.held is None
    assert late.notes == ("hold expired",)


def test_a_domain_incident_caps_a_fault_at_suspect() -> None:
    incident = DomainIncident("domain/rack/r1/x", RACK, START, frozenset({"n1", "n2", "n3"}))
    d = decide(NodeRecord("n1"), [sig()], START, ctx(incident=incident))
    assert d.record.state is S and kinds(d) == [ActionKind.CORDON]
    assert d.record.incident == incident.id
    assert d.transition is not None and "domain incident" in d.transition.why


# --- the ladder ---------------------------------------------------------------------------


def test_a_silent_node_is_power_cycled_without_a_diagnostic() -> None:
    silent = unresponsive("n1", START, START - timedelta(seconds=300), "not responding")
    d = decide(NodeRecord("n1"), [silent], START, ctx())
    assert d.record.state is Q and d.record.wanted is Step.POWER_CYCLE
    assert d.transition is not None and d.transition.why == "quarantine: host.unresponsive"
    rec = d.record
    assert decide(rec, (), START, ctx(observation=Observation())).transition is None  # drain
    d2 = decide(rec, (), START, ctx(observation=Observation(drained=True)))
    assert d2.record.state is NodeState.REMEDIATING and kinds(d2) == [ActionKind.POWER_CYCLE]
    assert d2.record.step is Step.POWER_CYCLE
    assert any("agent last heard" in line for line in d2.actions[0].evidence)
    spent = replace(rec, attempts=(Attempt(Step.POWER_CYCLE, START),))
    d3 = decide(spent, (), START, ctx(observation=Observation(drained=True)))
    assert d3.record.state is NA and d3.transition is not None
    assert d3.transition.why == "remediation budget spent"


def test_quarantine_waits_for_the_drain_then_diagnoses() -> None:
    rec = at(Q, wanted=Step.REBOOT)
    assert decide(rec, (), START, ctx(observation=Observation(pending=True))).transition is None
    assert decide(rec, (), START, ctx(observation=Observation())).transition is None
    d = decide(rec, (), START, ctx(observation=Observation(drained=True)))
    assert d.record.state is D and kinds(d) == [ActionKind.DIAGNOSE]
    assert d.actions[0].id == "n1/4/diagnose" and d.actions[0].target == "quick"


def test_a_drain_that_never_ends_goes_to_a_person() -> None:
    d = decide(at(Q), (), START + timedelta(hours=1), ctx())
    assert d.record.state is NA and kinds(d) == [ActionKind.ALERT]
    assert d.transition is not None and d.transition.why == "drain timed out"


def test_a_failed_quarantine_action_goes_to_a_person() -> None:
    d = decide(at(Q), (), START, ctx(observation=Observation(failed="drain: no such node")))
    assert d.record.state is NA


def test_the_diagnostic_picks_the_step() -> None:
    rec = at(D, wanted=Step.RESET_GPU)
    d = decide(rec, (), START, ctx(observation=result(Verdict.FAIL, rec, NodeAction.REBOOT)))
    assert d.record.state is R and kinds(d) == [ActionKind.REBOOT]
    assert d.record.step is Step.REBOOT and d.record.attempts == (Attempt(Step.REBOOT, START),)
    assert any("diagnostic quick: fail" in line for line in d.record.evidence)


def test_a_passing_diagnostic_still_applies_the_remedy_the_evidence_asked_for() -> None:
    rec = at(D, wanted=Step.RESET_GPU, component="0000:3b:00.0")
    d = decide(rec, (), START, ctx(observation=result(Verdict.PASS, rec)))
    assert kinds(d) == [ActionKind.RESET_GPU] and d.actions[0].target == "0000:3b:00.0"


def test_nothing_asked_and_nothing_found_goes_straight_to_validation() -> None:
    rec = at(D)
    d = decide(rec, (), START, ctx(observation=result(Verdict.PASS, rec)))
    assert d.record.state is V and kinds(d) == [ActionKind.VALIDATE]
    assert d.actions[0].target == "load"


def test_an_erroring_diagnostic_is_rerun_under_a_new_id_then_handed_over() -> None:
    rec = at(D)
    d = decide(rec, (), START, ctx(observation=result(Verdict.ERROR, rec)))
    assert d.transition is None and d.record.tries == 1
    assert [a.id for a in d.actions] == ["n1/3/diagnose/1"]
    d2 = decide(d.record, (), START, ctx(observation=result(Verdict.ERROR, rec)))
    assert [a.id for a in d2.actions] == ["n1/3/diagnose/2"]
    d3 = decide(d2.record, (), START, ctx(observation=result(Verdict.ERROR, rec)))
    assert d3.record.state is NA


def test_skipped_counts_as_an_error_outside_dry_run() -> None:
    rec = at(V)
    assert decide(rec, (), START, ctx(observation=result(Verdict.SKIPPED, rec))).record.tries == 1
    dry = decide(rec, (), START, ctx(observation=result(Verdict.SKIPPED, rec), dry_run=True))
    assert dry.record.state is H


def test_a_diagnostic_that_never_answers_times_out() -> None:
    assert decide(at(D), (), START + timedelta(minutes=29), ctx()).transition is None
    assert decide(at(D), (), START + timedelta(minutes=30), ctx()).record.state is NA


def test_remedy_done_is_followed_by_validation() -> None:
    rec = at(R, step=Step.RESET_GPU)
    assert decide(rec, (), START, ctx(observation=Observation(pending=True))).transition is None
    d = decide(rec, (), START, ctx())
    assert d.record.state is V and kinds(d) == [ActionKind.VALIDATE]


def test_validation_passing_returns_the_node_and_counts_the_return() -> None:
    rec = at(V, step=Step.RESET_GPU, wanted=Step.RESET_GPU, evidence=("x",))
    d = decide(rec, (), START, ctx(observation=result(Verdict.PASS, rec)))
    assert d.record.state is H and kinds(d) == [ActionKind.RESUME]
    assert d.record.returns == (START,) and d.record.wanted is None
    assert d.transition is not None and "diagnostic load: pass" in d.transition.evidence[-2]


def test_validation_failing_climbs_the_ladder_then_hands_over() -> None:
    tried = (Attempt(Step.RESET_GPU, START),)
    rec = at(V, step=Step.RESET_GPU, attempts=tried)
    d = decide(rec, (), START, ctx(observation=result(Verdict.FAIL, rec)))
    assert d.record.state is R and kinds(d) == [ActionKind.REBOOT]
    rec2 = replace(d.record, state=V)
    d2 = decide(rec2, (), START, ctx(observation=result(Verdict.FAIL, rec2)))
    assert d2.record.state is R and kinds(d2) == [ActionKind.POWER_CYCLE]
    rec3 = replace(d2.record, state=V)
    d2b = decide(rec3, (), START, ctx(observation=result(Verdict.FAIL, rec3)))
    assert d2b.record.state is NA
    assert d2b.transition is not None
    assert d2b.transition.why == "power_cycle did not fix it: no step left"
    spent = at(
        V,
        step=Step.RESET_GPU,
        attempts=(
            *tried, Attempt(Step.RESET_GPU, START), Attempt(Step.REBOOT, START),
            Attempt(Step.POWER_CYCLE, START),
        ),
    )  # fmt: skip
    d3 = decide(spent, (), START, ctx(observation=result(Verdict.FAIL, spent)))
    assert d3.transition is not None and d3.transition.why == "remediation budget spent"


def test_inspect_goes_to_a_person_after_diagnosis() -> None:
    rec = at(D, wanted=Step.PERSON)
    d = decide(rec, (), START, ctx(observation=result(Verdict.PASS, rec)))
    assert d.record.state is NA and kinds(d) == [ActionKind.ALERT]


def test_a_node_that_keeps_coming_back_stays_out() -> None:
    rec = at(
        D, wanted=Step.RESET_GPU, returns=(START - timedelta(days=2), START - timedelta(days=1))
    )
    d = decide(rec, (), START, ctx(observation=result(Verdict.FAIL, rec)))
    assert d.record.state is NA and "stays out" in d.record.reason


def test_signals_during_the_ladder_raise_the_wanted_step() -> None:
    rec = at(Q, wanted=Step.RESET_GPU)
    d = decide(rec, [sig("nvml.gpu_lost", NodeAction.REBOOT)], START, ctx())
    assert d.record.wanted is Step.REBOOT and d.record.state is Q


def test_needs_attention_only_records() -> None:
    rec, later = at(NA), START + timedelta(days=30)
    d = decide(rec, [sig(at=later)], later, ctx())
    assert d.record.state is NA and d.actions == () and len(d.record.marks) == 1


def test_a_person_releases_a_node_to_validation_or_straight_back() -> None:
    rec = at(NA, attempts=(Attempt(Step.REBOOT, START),), returns=(START,))
    d = release(rec, START, "alice", "replaced GPU 3", validate=True)
    assert d.record.state is V and kinds(d) == [ActionKind.VALIDATE]
    assert d.record.attempts == () and d.record.returns == ()
    assert d.transition is not None and d.transition.by == "alice"
    back = release(rec, START, "alice", "false alarm")
    assert back.record.state is H and kinds(back) == [ActionKind.RESUME]
    with pytest.raises(ValueError, match="applies to needs_attention only"):
        release(at(Q), START, "alice", "no", validate=True)
    with pytest.raises(ValueError, match="nothing to release"):
        release(at(H), START, "alice", "no")


@pytest.mark.parametrize("state", [S, Q, D, R, V])
def test_a_person_releases_a_node_from_any_state_of_ours_straight_back(state: NodeState) -> None:
    d = release(at(state, held=SignalClass.QUARANTINE, held_since=START), START, "bob", "mine")
    assert d.record.state is H and kinds(d) == [ActionKind.RESUME]
    assert d.record.held is None and d.transition is not None
    assert (d.transition.by, d.transition.why) == ("bob", "released: mine")


@given(
    state=st.sampled_from(list(NodeState)),
    verdict=st.none() | st.sampled_from(list(Verdict)),
    drained=st.booleans(),
    pending=st.booleans(),
    failed=st.none() | st.just("boom"),
    minutes=st.integers(0, 180),
    signal=st.none() | st.sampled_from(["xid.79", "xid.13", "nvml.thermal_slowdown"]),
    wanted=st.none() | st.sampled_from(list(Step)),
)
def test_decide_only_makes_transitions_in_the_table_and_never_a_persons(
    state: NodeState,
    verdict: Verdict | None,
    drained: bool,
    pending: bool,
    failed: str | None,
    minutes: int,
    signal: str | None,
    wanted: Step | None,
) -> None:
    rec = at(state, wanted=wanted)
    obs = Observation(drained, pending, failed, None)
    if verdict is not None:
        obs = replace(obs, result=result(verdict, rec).result)
    signals = (
        [sig(signal, NodeAction.REBOOT if signal == "xid.79" else NodeAction.MONITOR)]
        if signal
        else []
    )
    now = START + timedelta(minutes=minutes)
    d = decide(rec, signals, now, ctx(observation=obs))
    if d.transition is not None:
        pair = (d.transition.frm, d.transition.to)
        assert pair in TRANSITIONS and pair not in PERSON_ONLY
        assert d.record.state is d.transition.to and d.record.seq == rec.seq + 1
        assert all(a.seq == d.record.seq for a in d.actions)
    else:
        assert d.record.state is state and d.record.seq == rec.seq


# --- evidence older than the last validation ---------------------------------------------------


def test_a_hand_over_of_evidence_older_than_the_last_validation_is_history() -> None:
    # Validated and returned at START + 1 s; job recovery's attribution of the same XID is
    # handed over at START + 2 s, but its line was seen at START: the node stays healthy.
    returned = START + timedelta(seconds=1)
    rec = at(H, returns=(returned,), since=returned)
    old = replace(
        sig(at=START + timedelta(seconds=2), details=(("evidence_at", START.isoformat()),)),
        probe=Probe.JOB,
    )
    d = decide(rec, [old], START + timedelta(seconds=2), ctx())
    assert d.transition is None and not d.actions
    assert any("before the last validation ignored: job:xid.79" in n for n in d.notes)


def test_new_evidence_after_the_validation_still_counts() -> None:
    returned = START + timedelta(seconds=1)
    rec = at(H, returns=(returned,), since=returned)
    new = sig(at=START + timedelta(seconds=5),
              details=(("evidence_at", (START + timedelta(seconds=4)).isoformat()),))  # fmt: skip
    d = decide(rec, [new], START + timedelta(seconds=5), ctx())
    assert d.transition is not None and d.transition.to is Q


def test_a_node_never_validated_takes_old_evidence_as_before() -> None:
    old = sig(at=START + timedelta(seconds=2), details=(("evidence_at", START.isoformat()),))
    d = decide(at(H), [old], START + timedelta(seconds=2), ctx())
    assert d.transition is not None and d.transition.to is Q


def test_an_agent_line_replayed_from_before_the_validation_is_history_too() -> None:
    returned = START + timedelta(minutes=5)
    rec = at(H, returns=(returned,), since=returned)
    d = decide(rec, [sig(at=START)], returned + timedelta(seconds=1), ctx())
    assert d.transition is None
