"""A silent node power-cycled through its BMC: the hardware controller, the fake scheduler,
the memory store and sushy-tools' Redfish emulator really running."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from autorecover.adapters.redfish.inventory import parse_inventory
from autorecover.adapters.redfish.power import RedfishPower
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.hardware.lifecycle import ActionKind, NodeState
from autorecover.domain.hardware.policy import RateLimit
from autorecover.domain.hardware.silence import SIGNAL
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import HealthReport
from autorecover.testing import redfish
from controllers.hardware.rig import ROOMY, Rig, tight

NODES = [f"n{i}" for i in range(20)]
H, Q, R, V, NA = (
    NodeState.HEALTHY, NodeState.QUARANTINED, NodeState.REMEDIATING, NodeState.VALIDATING,
    NodeState.NEEDS_ATTENTION,
)  # fmt: skip


@pytest.fixture(scope="module")
def bmc() -> Iterator[redfish.RedfishRig]:
    rig = redfish.start(NODES)
    try:
        yield rig
    finally:
        rig.stop()


def wired(bmc: redfish.RedfishRig, **kw: object) -> Rig:
    power = RedfishPower(parse_inventory(bmc.inventory(NODES[:10]), "bmc.toml"))
    rig = Rig(list(NODES), power=power, **kw)  # type: ignore[arg-type]
    hear(rig, NODES)
    return rig


def hear(rig: Rig, nodes: list[str]) -> None:
    """The nodes' agents report (heartbeats: nothing wrong)."""
    now = rig.clock.now()
    rig.controller.ingest(HealthReport(n, now, NodeAction.NONE, ()) for n in nodes)


def go_silent(rig: Rig, *nodes: str) -> None:
    """The hosts hang: the scheduler says they do not respond; their agents stop; the rest
    keep reporting."""
    for node in nodes:
        rig.scheduler.unresponsive(node)
    for _ in range(4):  # 4 x 60 s: past the policy's 180 s silence
        rig.clock.advance(60)
        hear(rig, [n for n in NODES if n not in nodes])


def kinds(rig: Rig, node: str) -> list[tuple[str, str]]:
    return [(r.action.kind.value, r.status.value) for r in rig.store.actions(node)]


def test_redfish_a_silent_node_is_power_cycled_then_validated(bmc: redfish.RedfishRig) -> None:
    rig = wired(bmc)
    rig.diagnostics.duration_s = 600  # the validation waits for the host to boot
    sel = redfish.sel_entry("CPU 1 IERR: machine check", rig.clock.now(), sensor="Processor")
    bmc.add_sel("n1", [sel])
    go_silent(rig, "n1")
    rig.settle(until=lambda: rig.controller.node("n1").state is V)

    assert ("n1", "ForceRestart") in bmc.resets()
    assert bmc.power_state("n1") in ("Off", "On")  # the fake driver restarts it 3-4 s later
    moves = [(t.frm, t.to) for t in rig.store.transitions("n1")]
    assert moves == [(H, Q), (Q, R), (R, V)]  # no diagnostic: the host cannot run one
    signal = next(s for s in rig.store.signals if s.node == "n1" and s.signal == SIGNAL)
    assert "agent last heard" in signal.text and "does not respond" in signal.text
    cycle = next(r for r in rig.store.actions("n1") if r.action.kind is ActionKind.POWER_CYCLE)
    assert cycle.status is ActionStatus.DONE
    assert cycle.action.by == "autorecover" and cycle.action.why == "remediate: power_cycle"
    assert any(SIGNAL in line for line in cycle.action.evidence)  # provenance: the silence
    assert cycle.result.startswith(f"ForceRestart accepted by {bmc.url}")
    assert "CPU 1 IERR: machine check (Processor Assert)" in cycle.result  # the SEL as evidence
    assert kinds(rig, "n1")[:3] == [("cordon", "done"), ("taint", "done"), ("drain", "done")]

    # The host comes back: the scheduler sees it, the agent reports, validation passes.
    rig.scheduler.unresponsive("n1", gone=False)
    hear(rig, ["n1"])
    rig.settle(step_s=120, until=lambda: rig.controller.node("n1").state is H)
    assert bmc.resets().count(("n1", "ForceRestart")) == 1
    others = {n: s for n, s in rig.states().items() if n != "n1"}
    assert set(others.values()) == {"healthy"}


def test_redfish_a_node_the_scheduler_still_sees_is_not_power_cycled(
    bmc: redfish.RedfishRig,
) -> None:
    rig = wired(bmc)
    for _ in range(5):  # n2's agent stops, but the scheduler says the host answers
        rig.clock.advance(60)
        hear(rig, [n for n in NODES if n != "n2"])
    rig.settle()
    assert rig.controller.node("n2").state is H
    assert all(node != "n2" for node, _ in bmc.resets())


def test_redfish_the_breaker_holds_a_second_silent_node(bmc: redfish.RedfishRig) -> None:
    rig = wired(bmc, policy=tight(max_nodes=1, max_fraction=1.0, max_out_fraction=1.0))
    go_silent(rig, "n3", "n4")
    rig.settle()
    states = {n: rig.controller.node(n) for n in ("n3", "n4")}
    cycled = [n for n in ("n3", "n4") if (n, "ForceRestart") in bmc.resets()]
    assert len(cycled) == 1  # one removal per window: the other is held, never reset
    held = next(n for n in ("n3", "n4") if n not in cycled)
    assert states[held].state is H and states[held].held is not None
    assert not any(r.action.kind is ActionKind.POWER_CYCLE for r in rig.store.actions(held))


def test_redfish_the_rate_limit_makes_a_power_cycle_wait(bmc: redfish.RedfishRig) -> None:
    # Three mutations in a burst (cordon, taint, drain); then one token every 1000 s.
    rig = wired(bmc, policy=replace(ROOMY, rate=RateLimit(per_s=0.001, burst=3)))
    go_silent(rig, "n5")
    rig.settle(until=lambda: rig.controller.node("n5").state is R)
    rig.clock.advance(10)
    rig.controller.tick()
    assert rig.controller.node("n5").state is R and rig.controller.waiting == 1
    assert all(node != "n5" for node, _ in bmc.resets())  # nothing reached the BMC yet
    rig.settle(step_s=200, until=lambda: rig.controller.node("n5").state is V)
    assert ("n5", "ForceRestart") in bmc.resets()


def test_redfish_dry_run_sends_no_reset(bmc: redfish.RedfishRig) -> None:
    rig = wired(bmc, dry_run=True)
    go_silent(rig, "n6")
    rig.settle(until=lambda: rig.controller.node("n6").state is V)
    would = [r for r in rig.store.actions("n6") if r.action.kind is ActionKind.POWER_CYCLE]
    assert [r.status for r in would] == [ActionStatus.WOULD]
    assert all(node != "n6" for node, _ in bmc.resets())


def test_redfish_a_node_without_a_bmc_goes_to_a_person(bmc: redfish.RedfishRig) -> None:
    rig = wired(bmc)  # the inventory names n0..n9 only
    go_silent(rig, "n12")
    rig.settle(until=lambda: rig.controller.node("n12").state is NA)
    cycle = next(r for r in rig.store.actions("n12") if r.action.kind is ActionKind.POWER_CYCLE)
    assert cycle.status is ActionStatus.FAILED
    assert cycle.result == "no BMC for n12 in the inventory"
    assert "no BMC for n12 in the inventory" in rig.controller.node("n12").reason
