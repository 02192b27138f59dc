"""The hardware controller with the fakes: the ladder end to end, people's cordons, rate
limits, port errors, dry-run, the breaker, domain incidents and reconciling."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from autorecover.adapters.fakes.cluster import Scripted
from autorecover.controllers.ports import ActionStatus, PermanentError, TransientError
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.hardware.policy_loading import merged
from autorecover.domain.hardware.remediation import Verdict
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe
from controllers.hardware.rig import ROOMY, Rig, rack_topology, tight


@pytest.fixture
def rig() -> Rig:
    return Rig([f"n{i}" for i in range(20)])


H, S, Q, NA = (
    NodeState.HEALTHY,
    NodeState.SUSPECT,
    NodeState.QUARANTINED,
    NodeState.NEEDS_ATTENTION,
)


def test_a_faulty_node_goes_round_the_ladder_and_back(rig: Rig) -> None:
    rig.report(rig.signal("n3", component="0000:3b:00.0"))
    assert rig.controller.node("n3").state is Q
    assert not rig.scheduler.schedulable("n3")
    rig.settle()
    assert rig.controller.node("n3").state is H
    assert rig.scheduler.schedulable("n3")
    assert [(t.frm.value, t.to.value) for t in rig.store.transitions("n3")] == [
        ("healthy", "quarantined"),
        ("quarantined", "diagnosing"),
        ("diagnosing", "remediating"),
        ("remediating", "validating"),
        ("validating", "healthy"),
    ]
    assert [k for k, n, _ in rig.scheduler.log if n == "n3"] == [
        "cordon", "taint", "drain", "reboot", "resume",
    ]  # fmt: skip
    assert all(a.status is ActionStatus.DONE for a in rig.store.actions("n3"))
    assert rig.scheduler.nodes["n3"].reboots == 1


def test_validation_failures_climb_to_a_person_and_the_node_stays_out(rig: Rig) -> None:
    rig.diagnostics.script("n1", Verdict.FAIL, Verdict.FAIL, Verdict.FAIL, Verdict.FAIL)
    rig.report(rig.signal("n1", "xid.48", NodeAction.RESET_GPU))
    rig.settle()
    node = rig.controller.node("n1")
    assert node.state is NA
    kinds = [k for k, n, _ in rig.scheduler.log if n == "n1"]
    assert kinds == ["cordon", "taint", "drain", "reset_gpu", "reboot"]  # each failure climbs
    assert not rig.scheduler.schedulable("n1")
    alert = rig.notifier.alerts["n1/7/alert"]
    assert alert.summary == "reboot did not fix it: no step left"
    assert alert.evidence  # a person sees why


def test_a_person_releases_a_node_and_it_is_validated_before_returning(rig: Rig) -> None:
    rig.report(rig.signal("n2", "ib.port_down", NodeAction.INSPECT))
    rig.settle()
    assert rig.controller.node("n2").state is NA
    rig.controller.release("n2", "alice", "reseated the cable", validate=True)
    rig.settle()
    assert rig.controller.node("n2").state is H
    last = rig.store.transitions("n2")[-2]
    assert (last.by, last.why) == ("alice", "released: reseated the cable")


def test_a_persons_cordon_is_theirs_and_survives_our_return(rig: Rig) -> None:
    rig.scheduler.person_cordon("n4", "bob", "firmware update")
    rig.report(rig.signal("n4"))
    rig.settle()
    assert rig.controller.node("n4").state is H
    assert set(rig.scheduler.nodes["n4"].cordoned_by) == {"bob"}
    rig.controller.reconcile()
    assert set(rig.scheduler.nodes["n4"].cordoned_by) == {"bob"}


def test_software_faults_on_every_node_take_no_capacity(rig: Rig) -> None:
    signals = [
        rig.signal(n, "xid.13", NodeAction.RESTART_APP, Blame.APPLICATION, Probe.JOB)
        for n in rig.nodes
    ]
    for _ in range(5):
        rig.report(*signals)
        rig.clock.advance(61)
    assert set(rig.states().values()) == {"healthy"}
    assert rig.scheduler.log == []
    assert len(rig.store.signals) == 100  # type: ignore[attr-defined]  # recorded all the same


def test_mutations_are_rate_limited_and_catch_up_in_order() -> None:
    policy = merged(ROOMY, {"rate": {"mutations_per_s": 1, "burst": 2}}, "test")
    rig = Rig([f"n{i}" for i in range(20)], policy=policy)
    rig.report(rig.signal("n1"), rig.signal("n2"))
    assert len(rig.scheduler.log) == 2 and rig.controller.waiting == 4
    rig.clock.advance(1)
    rig.controller.tick()
    assert len(rig.scheduler.log) == 3
    rig.settle(step_s=5)
    order = [(k, n) for k, n, _ in rig.scheduler.log if n == "n2"]
    assert order[:3] == [("cordon", "n2"), ("taint", "n2"), ("drain", "n2")]
    assert rig.states(["n1", "n2"]) == {"n1": "healthy", "n2": "healthy"}


def test_a_transient_port_error_is_retried_a_permanent_one_goes_to_a_person(rig: Rig) -> None:
    rig.scheduler.failures[("drain", "n5")] = TransientError("apiserver busy")
    rig.report(rig.signal("n5"))
    rig.clock.advance(10)
    rig.controller.tick()
    assert rig.controller.node("n5").state is Q and rig.controller.waiting == 1
    del rig.scheduler.failures[("drain", "n5")]
    rig.settle()
    assert rig.controller.node("n5").state is H
    assert rig.scheduler.calls["n5/1/drain"] == 3 and rig.scheduler.effects["n5/1/drain"] == 1

    rig.scheduler.failures[("reboot", "n6")] = PermanentError("BMC unreachable")
    rig.report(rig.signal("n6"))
    rig.settle()
    node = rig.controller.node("n6")
    assert node.state is NA and node.reason == "reboot failed: reboot: BMC unreachable"


def test_dry_run_records_would_have_actions_and_touches_nothing() -> None:
    rig = Rig([f"n{i}" for i in range(20)], dry_run=True)
    rig.report(rig.signal("n1"))
    rig.settle()
    assert rig.scheduler.log == [] and rig.diagnostics.started == {}
    assert rig.notifier.alerts == {}
    statuses = {a.status for a in rig.store.actions("n1")}
    assert statuses == {ActionStatus.WOULD}
    kinds = [a.action.kind.value for a in rig.store.actions("n1")]
    assert kinds == ["cordon", "taint", "drain", "diagnose", "reboot", "validate", "resume"]
    assert rig.controller.node("n1").state is H


def test_the_breaker_trips_once_alerts_once_and_validated_nodes_still_return() -> None:
    policy = replace(tight(max_nodes=3), hold=timedelta(hours=2))
    rig = Rig([f"n{i}" for i in range(100)], policy=policy)
    rig.report(*(rig.signal(f"n{i}") for i in range(3)))
    assert rig.states(["n0", "n1", "n2"]) == dict.fromkeys(["n0", "n1", "n2"], "quarantined")
    rig.report(*(rig.signal(f"n{i}") for i in range(3, 10)))
    assert all(rig.controller.node(f"n{i}").state is H for i in range(3, 10))
    assert rig.controller.breaker.tripped
    breaker_alerts = [a for a in rig.notifier.alerts if a.startswith("breaker/")]
    assert len(breaker_alerts) == 1
    rig.settle()
    assert rig.states(["n0", "n1", "n2"]) == dict.fromkeys(["n0", "n1", "n2"], "healthy")
    assert all(rig.controller.node(f"n{i}").state is H for i in range(3, 10))
    # Held removals go ahead once a person resets the breaker (window permitting).
    rig.clock.advance(3600)
    rig.controller.reset_breaker("carol", "checked: real faults")
    rig.controller.tick()
    assert sum(rig.controller.node(f"n{i}").state is Q for i in range(3, 10)) == 3
    assert rig.controller.breaker.tripped  # the rest trip it again


def test_breaker_state_survives_a_restart() -> None:
    rig = Rig([f"n{i}" for i in range(100)], policy=tight(max_nodes=1))
    rig.report(rig.signal("n0"), rig.signal("n1"))
    assert rig.controller.breaker.tripped
    rig.restart()
    assert rig.controller.breaker.tripped
    rig.report(rig.signal("n2"))
    assert rig.controller.node("n2").state is H


def test_a_rack_faulting_together_is_one_domain_incident() -> None:
    rig = Rig([f"n{i}" for i in range(16)], topology=rack_topology(16, per_rack=8))
    rig.report(rig.signal("n0"), rig.signal("n1"))
    assert rig.states(["n0", "n1"]) == {"n0": "quarantined", "n1": "quarantined"}
    rig.clock.advance(5)
    rig.report(*(rig.signal(f"n{i}") for i in range(2, 8)))
    states = rig.states([f"n{i}" for i in range(2, 8)])
    assert states == {
        "n2": "suspect",
        "n3": "suspect",
        **dict.fromkeys(["n4", "n5", "n6", "n7"], "healthy"),
    }
    domain_alerts = [a for a in rig.notifier.alerts.values() if a.id.startswith("domain/")]
    assert {a.id.split("/")[1] for a in domain_alerts} == {"rack", "nvlink", "ib_leaf"}
    incident = rig.controller.node("n2").incident
    assert incident is not None and incident.startswith("domain/")
    # No node remedies for the suspects; the domain quiets, and they return.
    rig.settle(step_s=600, until=lambda: rig.controller.node("n2").state is H)
    assert rig.scheduler.nodes["n2"].reboots == 0
    assert all(i.closed_at is not None for i in rig.store.incidents.values())  # type: ignore[attr-defined]


def test_reconcile_resumes_an_orphan_cordon_of_ours_and_restores_a_missing_one(rig: Rig) -> None:
    rig.scheduler.cordon("n7", _prov("orphan/1"))
    rig.report(rig.signal("n8", "nvml.thermal_slowdown", NodeAction.MONITOR))
    assert rig.controller.node("n8").state is S
    # Ours is gone at once after we set it: a scheduler view yet to show our write, not a
    # person's intent (tests/controllers/hardware/test_operator_controls.py has that).
    rig.scheduler.person_uncordon("n8", "autorecover")
    rig.controller.reconcile()
    assert rig.scheduler.schedulable("n7")
    assert "autorecover" in rig.scheduler.nodes["n8"].cordoned_by
    notes = [e.text for e in rig.store.events()]
    assert any("no record holds the node out" in t for t in notes)
    assert any("our cordon is gone" in t for t in notes)


def test_a_diagnostic_that_errors_is_rerun_then_handed_over(rig: Rig) -> None:
    rig.diagnostics.script("n9", *([Scripted(Verdict.ERROR, evidence=("dcgmi: hang",))] * 3))
    rig.report(rig.signal("n9"))
    rig.settle()
    assert rig.controller.node("n9").state is NA
    assert "kept erroring" in rig.controller.node("n9").reason
    assert [a for a in rig.diagnostics.started if a.startswith("n9/")] == [
        "n9/2/diagnose", "n9/2/diagnose/1", "n9/2/diagnose/2",
    ]  # fmt: skip


def _prov(action_id: str):  # type: ignore[no-untyped-def]
    from autorecover.adapters.fakes.cluster import START
    from autorecover.controllers.ports import Provenance

    return Provenance(action_id, "autorecover", "old", START)
