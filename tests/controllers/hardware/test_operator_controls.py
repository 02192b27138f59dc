"""Operator requests as hardware recovery's passes act on them, with the fakes: release from
any state of ours, maintenance of nodes and failure domains, breaker resets, paused acting, and
a person's uncordon read as intent. The requests reach the controller through the store."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import FakeScheduler
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.controller import SOMEONE
from autorecover.controllers.hardware.ports import StorePort
from autorecover.controllers.ports import ActionStatus, PermanentError, TransientError
from autorecover.controllers.requests import Control, OperatorRequest, RequestStatus
from autorecover.domain.hardware.breaker import CLOSED
from autorecover.domain.hardware.lifecycle import ActionKind, NodeState
from autorecover.domain.hardware.policy_loading import merged
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import NodeSignal
from controllers.hardware.rig import ROOMY, Rig, rack_topology, tight

H, S, Q, NA = (
    NodeState.HEALTHY,
    NodeState.SUSPECT,
    NodeState.QUARANTINED,
    NodeState.NEEDS_ATTENTION,
)
_ids = itertools.count(1)


def ask(rig: Rig, kind: Control, target: str = "", why: str = "checked", **options: str) -> str:
    """Record a request in the rig's store as the API would; its id."""
    rid = f"r{next(_ids)}"
    request = OperatorRequest(
        rid, kind, target, "token:alice", why, "10.0.0.7", rig.clock.now(),
        tuple(sorted(options.items())),
    )  # fmt: skip
    rig.store.submit(request)  # type: ignore[attr-defined]
    return rid


def signals_of(rig: Rig, node: str) -> list[NodeSignal]:
    """The node's recorded signals, from either store."""
    if isinstance(rig.store, MemoryStore):
        return [s for s in rig.store.signals if s.node == node]
    return rig.store.node_signals(node)  # type: ignore[attr-defined,no-any-return]


def request(rig: Rig, rid: str) -> OperatorRequest:
    return next(r for r in rig.store.requests() if r.id == rid)  # type: ignore[attr-defined]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> StorePort:
    return MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "state.db")


@pytest.fixture
def rig(store: StorePort) -> Rig:
    return Rig([f"n{i}" for i in range(20)], store=store)


def in_needs_attention(rig: Rig, node: str) -> None:
    rig.report(rig.signal(node, "ib.port_down", NodeAction.INSPECT))
    rig.settle()
    assert rig.controller.node(node).state is NA


# --- release ------------------------------------------------------------------------------


def test_release_from_needs_attention_resumes_the_node_on_the_next_pass(rig: Rig) -> None:
    in_needs_attention(rig, "n2")
    assert not rig.scheduler.schedulable("n2")
    rid = ask(rig, Control.RELEASE, "n2", "reseated the cable")
    assert rig.controller.node("n2").state is NA  # nothing happens until a pass
    rig.controller.tick()
    assert rig.controller.node("n2").state is H and rig.scheduler.schedulable("n2")
    last = rig.store.transitions("n2")[-1]
    assert (last.frm, last.to, last.by, last.why) == (
        NA, H, "token:alice", "released: reseated the cable",
    )  # fmt: skip
    resume = rig.store.actions("n2")[-1]
    assert resume.action.kind is ActionKind.RESUME and resume.status is ActionStatus.DONE
    assert resume.action.by == "token:alice"  # the provenance the scheduler is given
    done = request(rig, rid)
    assert done.status is RequestStatus.DONE and done.done_at == rig.clock.now()
    assert any(
        "release requested by token:alice from 10.0.0.7" in e.text for e in rig.store.events("n2")
    )


def test_release_with_validation_first_validates_a_node_from_needs_attention(rig: Rig) -> None:
    in_needs_attention(rig, "n3")
    ask(rig, Control.RELEASE, "n3", "replaced the GPU", validate="true")
    rig.controller.tick()
    assert rig.controller.node("n3").state is NodeState.VALIDATING
    rig.settle()
    assert rig.controller.node("n3").state is H


def test_release_mid_ladder_drops_what_was_queued_and_returns_the_node() -> None:
    policy = merged(ROOMY, {"rate": {"mutations_per_s": 0.001, "burst": 2}}, "test")
    rig = Rig([f"n{i}" for i in range(4)], policy=policy)
    rig.report(rig.signal("n1"))
    assert rig.controller.node("n1").state is Q and rig.controller.waiting == 1  # drain waits
    rid = ask(rig, Control.RELEASE, "n1", "false alarm: a test injection")
    rig.clock.advance(1000)  # tokens for the resume
    rig.controller.tick()
    assert rig.controller.node("n1").state is H
    by_kind = {a.action.kind: a for a in rig.store.actions("n1")}
    assert by_kind[ActionKind.DRAIN].status is ActionStatus.FAILED
    assert "superseded: n1 released by token:alice" in by_kind[ActionKind.DRAIN].result
    assert [k for k, n, _ in rig.scheduler.log if n == "n1"] == ["cordon", "taint", "resume"]
    assert rig.scheduler.schedulable("n1") and request(rig, rid).status is RequestStatus.DONE


def test_release_of_a_healthy_or_unknown_node_is_refused_and_recorded(rig: Rig) -> None:
    rig.report(rig.signal("n5", "xid.13", NodeAction.RESTART_APP))  # known, healthy
    healthy = ask(rig, Control.RELEASE, "n5")
    unknown = ask(rig, Control.RELEASE, "n404")
    only_na = ask(rig, Control.RELEASE, "n5", validate="true")
    rig.controller.tick()
    assert request(rig, healthy).result == "n5 is healthy: nothing to release"
    assert request(rig, unknown).result == "no node 'n404'"
    assert request(rig, only_na).status is RequestStatus.REFUSED
    assert rig.store.transitions("n5") == []


def test_a_pending_release_survives_a_restart_and_is_acted_on_once(rig: Rig) -> None:
    in_needs_attention(rig, "n4")
    rid = ask(rig, Control.RELEASE, "n4", "cable reseated")
    rig.restart()  # a new leader; `start` is its first pass
    assert rig.controller.node("n4").state is H and request(rig, rid).status is RequestStatus.DONE
    rig.restart()
    rig.controller.tick()
    releases = [t for t in rig.store.transitions("n4") if t.by == "token:alice"]
    assert len(releases) == 1
    assert all(count == 1 for count in rig.scheduler.effects.values())


def test_in_dry_run_a_release_is_recorded_as_would_have() -> None:
    rig = Rig([f"n{i}" for i in range(4)], dry_run=True)
    rig.report(rig.signal("n1", "ib.port_down", NodeAction.INSPECT))
    rig.settle()
    assert rig.controller.node("n1").state is NA
    ask(rig, Control.RELEASE, "n1", "trial")
    rig.controller.tick()
    assert rig.controller.node("n1").state is H
    assert rig.store.actions("n1")[-1].status is ActionStatus.WOULD
    assert rig.scheduler.log == []


def test_the_controller_method_refuses_a_healthy_node_and_stays_usable(rig: Rig) -> None:
    with pytest.raises(ValueError, match="no node"):
        rig.controller.release("n1", "alice", "why")
    rig.report(rig.signal("n1"))
    assert rig.controller.node("n1").state is Q


def test_the_fake_scheduler_keeps_a_persons_cordon_through_a_release(rig: Rig) -> None:
    scheduler: FakeScheduler = rig.scheduler
    in_needs_attention(rig, "n6")
    scheduler.person_cordon("n6", "bob", "firmware")
    ask(rig, Control.RELEASE, "n6", "ours is done; bob's stays")
    rig.controller.tick()
    assert set(scheduler.nodes["n6"].cordoned_by) == {"bob"}


# --- maintenance --------------------------------------------------------------------------


def test_a_node_in_maintenance_is_left_alone_and_its_signals_still_recorded(rig: Rig) -> None:
    ask(rig, Control.MAINTENANCE_ON, "node:n1", "BIOS update")
    rig.report(rig.signal("n1"), rig.signal("n2"))
    assert rig.controller.node("n1").state is H and rig.controller.node("n2").state is Q
    assert rig.store.transitions("n1") == [] and rig.store.actions("n1") == []
    assert [s.signal for s in signals_of(rig, "n1")] == ["xid.79"]
    assert [n for _, n, _ in rig.scheduler.log] == ["n2", "n2", "n2"]
    snap = rig.store.load(rig.clock.now() - rig.policy.breaker.window)
    assert [n for n, _ in snap.removals] == ["n2"]  # nothing counted for n1
    ask(rig, Control.MAINTENANCE_OFF, "node:n1", "done")
    rig.clock.advance(120)
    rig.report(rig.signal("n1"))
    assert rig.controller.node("n1").state is Q


def test_a_node_we_hold_out_waits_where_it_is_while_in_maintenance() -> None:
    rig = Rig([f"n{i}" for i in range(4)])
    rig.diagnostics.duration_s = 30
    rig.report(rig.signal("n1"))
    rig.clock.advance(10)
    rig.controller.tick()
    assert rig.controller.node("n1").state is NodeState.DIAGNOSING
    ask(rig, Control.MAINTENANCE_ON, "node:n1", "a person looks at it")
    for _ in range(5):
        rig.clock.advance(60)
        rig.controller.tick()
        rig.controller.reconcile()
    assert rig.controller.node("n1").state is NodeState.DIAGNOSING  # frozen: hands off
    ask(rig, Control.MAINTENANCE_OFF, "node:n1", "back to you")
    rig.settle(until=lambda: rig.controller.node("n1").state is H)


def test_an_action_queued_before_maintenance_waits_until_it_ends(rig: Rig) -> None:
    rig.scheduler.failures[("drain", "n1")] = TransientError("the scheduler is busy")
    rig.report(rig.signal("n1"))
    drains = [a for a in rig.store.actions("n1") if a.action.kind is ActionKind.DRAIN]
    assert [a.status for a in drains] == [ActionStatus.INTENDED]  # queued, retried each pass
    ask(rig, Control.MAINTENANCE_ON, "node:n1", "a person works on it")
    del rig.scheduler.failures[("drain", "n1")]
    for _ in range(3):
        rig.clock.advance(30)
        rig.controller.tick()
    assert "drain" not in [k for k, n, _ in rig.scheduler.log if n == "n1"]  # hands off
    ask(rig, Control.MAINTENANCE_OFF, "node:n1", "done")
    rig.clock.advance(30)
    rig.controller.tick()
    assert "drain" in [k for k, n, _ in rig.scheduler.log if n == "n1"]


def test_maintenance_of_a_rack_keeps_hands_off_its_nodes_and_their_cordons() -> None:
    rig = Rig([f"n{i}" for i in range(16)], topology=rack_topology(16, per_rack=4))
    ask(rig, Control.MAINTENANCE_ON, "rack:r0", "PDU swap")
    rig.scheduler.cordon("n2", _prov("old/1"))  # ours, with no record: an orphan, but r0's
    rig.report(*(rig.signal(f"n{i}") for i in range(0, 4)), rig.signal("n5"))
    assert rig.states([f"n{i}" for i in range(4)]) == dict.fromkeys(
        [f"n{i}" for i in range(4)], "healthy"
    )
    assert rig.controller.node("n5").state is Q
    assert not any(i.domain.name == "r0" for i in rig.store.incidents.values())  # type: ignore[attr-defined]
    rig.controller.reconcile()
    assert "autorecover" in rig.scheduler.nodes["n2"].cordoned_by  # not touched
    ask(rig, Control.MAINTENANCE_OFF, "rack:r0", "PDU swapped")
    rig.controller.reconcile()
    assert rig.scheduler.schedulable("n2")  # the orphan is ours to clean up again


def _prov(action_id: str):  # type: ignore[no-untyped-def]
    from autorecover.adapters.fakes.cluster import START
    from autorecover.controllers.ports import Provenance

    return Provenance(action_id, "autorecover", "old", START)


# --- the breaker --------------------------------------------------------------------------


def tripped_rig(store: StorePort, dry_run: bool = False) -> Rig:
    rig = Rig([f"n{i}" for i in range(100)], policy=tight(max_nodes=2), store=store,
              dry_run=dry_run)  # fmt: skip
    rig.report(*(rig.signal(f"n{i}") for i in range(3)))
    assert rig.controller.breaker.tripped
    return rig


def test_a_breaker_reset_request_closes_it_and_the_state_shows_who(store: StorePort) -> None:
    rig = tripped_rig(store)
    rig.clock.advance(3700)  # the window and n2's hold are over; the breaker still latches
    rig.report(rig.signal("n3"))
    assert rig.controller.node("n3").state is H
    rid = ask(rig, Control.RESET_BREAKER, "", "checked: a bad batch of cables, now fixed")
    rig.restart()  # the request waits in the store for whichever controller leads next
    breaker = rig.controller.breaker
    assert not breaker.tripped and request(rig, rid).status is RequestStatus.DONE
    assert (breaker.reset_by, breaker.reset_at) == ("token:alice", rig.clock.now())
    assert breaker.reset_why == f"checked: a bad batch of cables, now fixed ({rid})"
    assert rig.store.load(rig.clock.now()).breaker == breaker  # recorded
    assert any(e.text.startswith("breaker reset:") for e in rig.store.events(""))
    rig.report(rig.signal("n4"))
    assert rig.controller.node("n4").state is Q  # quarantines are allowed again


def test_a_reset_of_a_closed_breaker_is_refused(rig: Rig) -> None:
    rid = ask(rig, Control.RESET_BREAKER, "", "just in case")
    rig.controller.tick()
    assert (request(rig, rid).status, request(rig, rid).result) == (
        RequestStatus.REFUSED, "the breaker is not tripped",
    )  # fmt: skip


def test_a_dry_run_trial_trips_only_its_own_breaker_and_live_starts_closed(
    store: StorePort,
) -> None:
    rig = tripped_rig(store, dry_run=True)
    loaded = store.load(rig.clock.now())
    assert loaded.dry_run_breaker.tripped and not loaded.breaker.tripped
    assert rig.scheduler.log == []
    rig.settle()  # the would-have ladder ends; the would-have breaker stays tripped
    rig.dry_run = False
    rig.restart()  # going live on the same store
    assert not rig.controller.breaker.tripped
    rig.report(rig.signal("n50"), rig.signal("n51"))  # the trial's removals do not count
    assert rig.states(["n50", "n51"]) == {"n50": "quarantined", "n51": "quarantined"}
    assert [k for k, n, _ in rig.scheduler.log if n == "n50"] == ["cordon", "taint", "drain"]
    assert store.load(rig.clock.now()).dry_run_breaker.tripped  # kept apart, for the record


def test_in_dry_run_a_reset_closes_the_would_have_breaker(store: StorePort) -> None:
    rig = tripped_rig(store, dry_run=True)
    rig.clock.advance(3700)  # past the window and the hold: nothing trips it again at once
    ask(rig, Control.RESET_BREAKER, "", "trial reviewed")
    rig.controller.tick()
    loaded = store.load(rig.clock.now())
    assert not loaded.dry_run_breaker.tripped and loaded.dry_run_breaker.reset_by == "token:alice"
    assert loaded.breaker == CLOSED


# --- pause and resume ---------------------------------------------------------------------


def test_while_paused_decisions_are_held_and_nothing_is_executed(rig: Rig) -> None:
    rig.scheduler.cordon("n9", _prov("orphan/1"))  # ours, with no record: reconcile's work
    ask(rig, Control.PAUSE_ACTING, "", "change freeze")
    rig.report(rig.signal("n1"))
    rig.clock.advance(10)
    rig.report(rig.signal("n1", "xid.48", NodeAction.RESET_GPU))
    rig.controller.tick()
    rig.controller.reconcile()
    node = rig.controller.node("n1")
    assert node.state is H and node.held is not None  # held, like a breaker refusal
    assert rig.store.transitions("n1") == [] and len(rig.scheduler.log) == 1  # the orphan
    held = [e.text for e in rig.store.events("n1")]
    assert held == ["acting paused: held healthy -> quarantined: quarantine: xid.79"]  # once
    assert "autorecover" in rig.scheduler.nodes["n9"].cordoned_by  # reconcile waits too
    assert rig.store.load(rig.clock.now()).removals == []  # nothing counted
    ask(rig, Control.RESUME_ACTING, "", "freeze over")
    rig.clock.advance(10)
    rig.controller.tick()
    assert rig.controller.node("n1").state is Q  # the held removal goes ahead
    rig.controller.reconcile()
    assert rig.scheduler.schedulable("n9")


def test_while_paused_what_was_recorded_waits_and_the_ladder_stays_put() -> None:
    policy = merged(ROOMY, {"rate": {"mutations_per_s": 0.001, "burst": 2}}, "test")
    rig = Rig([f"n{i}" for i in range(4)], policy=policy)
    rig.report(rig.signal("n1"))
    assert rig.controller.waiting == 1  # the drain waits for a token
    ask(rig, Control.PAUSE_ACTING, "", "investigating")
    rig.clock.advance(1000)  # tokens enough, but acting is paused
    rig.controller.tick()
    assert [k for k, n, _ in rig.scheduler.log] == ["cordon", "taint"]
    assert rig.controller.node("n1").state is Q and rig.controller.waiting == 1
    ask(rig, Control.RESUME_ACTING, "", "done")
    rig.controller.tick()
    assert [k for k, n, _ in rig.scheduler.log] == ["cordon", "taint", "drain"]


def test_a_pause_is_read_by_a_running_controller_without_a_restart(store: StorePort) -> None:
    rig = Rig([f"n{i}" for i in range(4)], store=store)
    rig.controller.tick()
    ask(rig, Control.PAUSE_ACTING, "", "freeze")
    rig.report(rig.signal("n2"))
    assert rig.controller.controls.paused is not None
    assert rig.controller.node("n2").state is H and rig.scheduler.log == []


# --- a person's uncordon ------------------------------------------------------------------


def test_a_persons_uncordon_is_read_as_intent_recorded_and_not_fought(rig: Rig) -> None:
    rig.diagnostics.duration_s = 3600  # the node stays in diagnosis
    rig.report(rig.signal("n3"))
    rig.clock.advance(10)
    rig.controller.tick()
    assert rig.controller.node("n3").state is NodeState.DIAGNOSING
    rig.clock.advance(60)
    rig.scheduler.person_uncordon("n3", "autorecover", by="kubernetes-admin")  # kubectl uncordon
    rig.controller.reconcile()
    node = rig.controller.node("n3")
    assert node.state is H
    last = rig.store.transitions("n3")[-1]
    assert (last.frm, last.to, last.by) == (NodeState.DIAGNOSING, H, SOMEONE)
    assert "uncordoned by kubernetes-admin" in last.why
    [event] = [e for e in rig.store.events("n3") if "outside autorecover" in e.text]
    assert "the scheduler shows: uncordoned by kubernetes-admin" in event.text
    assert "not re-cordoned" in event.text
    assert rig.scheduler.nodes["n3"].taints == {}  # the resume lifted our taint too
    rig.controller.reconcile()
    rig.controller.tick()
    assert rig.scheduler.schedulable("n3") and rig.controller.node("n3").state is H


def test_a_suspects_uncordon_by_a_person_returns_it_too(rig: Rig) -> None:
    rig.report(rig.signal("n8", "nvml.thermal_slowdown", NodeAction.MONITOR))
    assert rig.controller.node("n8").state is S
    rig.clock.advance(31)
    rig.scheduler.person_uncordon("n8", "autorecover", by="ops")
    rig.controller.reconcile()
    assert rig.controller.node("n8").state is H and rig.scheduler.schedulable("n8")


def test_a_cordon_our_own_reboot_lifted_is_restored(rig: Rig) -> None:
    rig.report(rig.signal("n4"))
    rig.settle(until=lambda: rig.controller.node("n4").state is NodeState.VALIDATING)
    rig.diagnostics.duration_s = 3600  # the validation runs on
    assert rig.scheduler.nodes["n4"].reboots == 1
    rig.clock.advance(60)
    rig.scheduler.person_uncordon("n4", "autorecover")  # as Slurm's nextstate=RESUME does
    rig.controller.reconcile()
    assert rig.controller.node("n4").state is NodeState.VALIDATING
    assert "autorecover" in rig.scheduler.nodes["n4"].cordoned_by


def test_in_dry_run_a_missing_cordon_is_never_read_as_a_persons_release() -> None:
    rig = Rig([f"n{i}" for i in range(4)], dry_run=True)
    rig.diagnostics.duration_s = 3600
    rig.report(rig.signal("n1", "ib.port_down", NodeAction.INSPECT))
    rig.clock.advance(120)
    rig.controller.reconcile()
    assert rig.controller.node("n1").state is not H
    assert all(t.by != SOMEONE for t in rig.store.transitions("n1"))


def test_a_cordon_that_failed_is_never_read_as_lifted_by_a_person() -> None:
    # Found by the state machine: the cordon refused, taint and drain done, a restart a minute
    # later. Our cordon never stood, so its absence is not a person's release.
    rig = Rig([f"n{i}" for i in range(4)])
    rig.scheduler.failures[("cordon", "n0")] = PermanentError("refused")
    rig.report(rig.signal("n0", "ib.port_down", NodeAction.INSPECT))
    rig.clock.advance(60)
    rig.restart()
    rig.controller.reconcile()
    assert all(t.by != SOMEONE for t in rig.store.transitions("n0"))
    assert rig.controller.node("n0").state is not H
