"""Property tests: no sequence of signals, ticks, restarts, diagnostics and people's actions
removes nodes beyond the breaker's limits, loses track of a node it took out, lets a software
fault take a node, or leaves the lifecycle table."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from autorecover.controllers.ports import ActionStatus, PermanentError, TransientError
from autorecover.domain.failure_domains import DomainKind
from autorecover.domain.hardware.breaker import fleet_limit, out_limit
from autorecover.domain.hardware.lifecycle import (
    LADDER,
    OUT_OF_SERVICE,
    PERSON_ONLY,
    TRANSITIONS,
    ActionKind,
    NodeState,
)
from autorecover.domain.hardware.remediation import Verdict
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe
from controllers.hardware.rig import ROOMY, Rig, rack_topology

FLEET = 24
NODES = [f"n{i}" for i in range(FLEET)]
TOPOLOGY = rack_topology(FLEET, per_rack=4)
POLICY = replace(
    ROOMY,
    breaker=replace(
        ROOMY.breaker,
        max_nodes=5,
        max_fraction=1.0,
        max_out_fraction=0.25,
        domain_budget={DomainKind.RACK: 2, DomainKind.NVLINK: 3, DomainKind.IB_LEAF: 3},
    ),
)
LIMIT = fleet_limit(POLICY.breaker, FLEET)
OUT = out_limit(POLICY.breaker, FLEET)
TIMEOUT = {
    NodeState.QUARANTINED: POLICY.timeouts.drain,
    NodeState.DIAGNOSING: POLICY.timeouts.diagnose,
    NodeState.REMEDIATING: POLICY.timeouts.remediate,
    NodeState.VALIDATING: POLICY.timeouts.validate,
}
HARDWARE = {
    "xid.79": NodeAction.REBOOT,
    "xid.48": NodeAction.RESET_GPU,
    "ib.port_down": NodeAction.INSPECT,
    "nvml.thermal_slowdown": NodeAction.MONITOR,
    "xid.32": NodeAction.MONITOR,
}
SOFTWARE = {
    "xid.13": (Blame.APPLICATION, NodeAction.RESTART_APP),
    "nccl.watchdog_timeout": (Blame.SYMPTOM, NodeAction.NONE),
    "xid.94": (Blame.TRANSIENT, NodeAction.RESTART_APP),
    "xid.63": (Blame.INFO, NodeAction.MONITOR),
}
nodes = st.sampled_from(NODES)


class HardwareRecovery(RuleBasedStateMachine):
    """The controller against the fakes, driven by arbitrary events."""

    def __init__(self) -> None:
        super().__init__()
        self.rig = Rig(NODES, policy=POLICY, topology=TOPOLOGY)
        self.hardware_nodes: set[str] = set()

    # --- what happens to the fleet ---------------------------------------------------------

    @rule(
        chosen=st.lists(nodes, min_size=1, max_size=6, unique=True),
        key=st.sampled_from(sorted(HARDWARE)),
        probe=st.sampled_from([Probe.KERNEL, Probe.NVML, Probe.JOB]),
    )
    def hardware_fault(self, chosen: list[str], key: str, probe: Probe) -> None:
        self.hardware_nodes.update(chosen)
        rig = self.rig
        rig.report(*(rig.signal(n, key, HARDWARE[key], probe=probe) for n in chosen))

    @rule(
        chosen=st.lists(nodes, min_size=1, max_size=FLEET, unique=True),
        key=st.sampled_from(sorted(SOFTWARE)),
        probe=st.sampled_from(list(Probe)),
        times=st.integers(1, 4),
    )
    def software_fault(self, chosen: list[str], key: str, probe: Probe, times: int) -> None:
        blame, action = SOFTWARE[key]
        for _ in range(times):
            self.rig.report(*(self.rig.signal(n, key, action, blame, probe) for n in chosen))
            self.rig.clock.advance(61)

    @rule(node=nodes, verdicts=st.lists(st.sampled_from(list(Verdict)), max_size=3))
    def script_diagnostics(self, node: str, verdicts: list[Verdict]) -> None:
        self.rig.diagnostics.script(node, *verdicts)

    @rule(seconds=st.sampled_from([1, 10, 60, 600, 1800, 3600, 4 * 3600]))
    def time_passes(self, seconds: int) -> None:
        self.rig.clock.advance(seconds)

    @rule()
    def tick(self) -> None:
        self.rig.controller.tick()
        now = self.rig.clock.now()
        for name in NODES:
            rec = self.rig.controller.node(name)
            if rec.state in LADDER:  # a tick hands over any node past its state's deadline
                assert now - rec.since < TIMEOUT[rec.state], (name, rec.state, rec.since)

    @rule()
    def reconcile(self) -> None:
        self.rig.controller.reconcile()

    @rule(
        node=nodes,
        kind=st.sampled_from(["cordon", "taint", "drain", "resume", "reboot", "reset_gpu"]),
        transient=st.booleans(),
    )
    def a_port_breaks(self, node: str, kind: str, transient: bool) -> None:
        error = TransientError("busy") if transient else PermanentError("refused")
        self.rig.scheduler.failures[(kind, node)] = error

    @rule()
    def ports_heal_and_reconcile(self) -> None:
        rig = self.rig
        rig.scheduler.failures.clear()
        rig.controller.reconcile()
        rig.controller.tick()
        pending = self._actions(ActionStatus.INTENDED)
        for name in NODES:  # once the ports work, no cordon of ours is left unexplained
            if rig.controller.node(name).state is NodeState.HEALTHY and self._ours(name):
                assert ActionKind.RESUME in pending.get(name, set()), name

    @rule()
    def restart(self) -> None:
        self.rig.restart()

    @rule()
    def every_node_taken_out_returns_or_reaches_a_person(self) -> None:
        rig = self.rig
        rig.scheduler.failures.clear()
        for _ in range(24):  # bounded: 12 virtual hours, past every ladder deadline
            rig.clock.advance(1800)
            rig.controller.tick()
        stuck = {n: rig.controller.node(n).state for n in NODES}
        assert not {n: s for n, s in stuck.items() if s in LADDER}, stuck

    # --- what people do --------------------------------------------------------------------

    @rule(node=nodes, validate=st.booleans())
    def person_releases(self, node: str, validate: bool) -> None:
        if self.rig.controller.node(node).state is NodeState.NEEDS_ATTENTION:
            self.rig.controller.release(node, "alice", "checked", validate)

    @precondition(lambda self: self.rig.controller.breaker.tripped)
    @rule()
    def person_resets_breaker(self) -> None:
        self.rig.controller.reset_breaker("carol", "looked")

    @rule(node=nodes, on=st.booleans())
    def person_cordons(self, node: str, on: bool) -> None:
        if on:
            self.rig.scheduler.person_cordon(node, "bob")
        else:
            self.rig.scheduler.person_uncordon(node, "bob")

    # --- what must always hold -------------------------------------------------------------

    @invariant()
    def removals_stay_within_the_breakers_limits(self) -> None:
        window = POLICY.breaker.window
        removals = [t for t in self.rig.store.transitions() if t.frm is NodeState.HEALTHY]
        for t in removals:
            recent = [r for r in removals if t.at - window < r.at <= t.at]
            assert len(recent) <= LIMIT, (t, len(recent))
            for domain in TOPOLOGY.of(t.node):
                same = [r for r in recent if domain in TOPOLOGY.of(r.node)]
                assert len(same) <= POLICY.breaker.domain_budget[domain.kind], (domain, same)
        out = [n for n in NODES if self.rig.controller.node(n).state in OUT_OF_SERVICE]
        assert len(out) <= OUT

    def _ours(self, node: str) -> bool:
        return self.rig.scheduler.owner in self.rig.scheduler.nodes[node].cordoned_by

    def _actions(self, *statuses: ActionStatus) -> dict[str, set[ActionKind]]:
        found: dict[str, set[ActionKind]] = {}
        for a in self.rig.store.actions():
            if a.status in statuses:
                found.setdefault(a.action.node, set()).add(a.action.kind)
        return found

    @invariant()
    def every_node_we_took_out_is_tracked_and_every_cordon_of_ours_has_a_record(self) -> None:
        # Tracked: the store holds the node out and our cordon is there, or the cordon (or the
        # resume that lifts it) is recorded as still to do or failed, for reconcile to retry.
        open_ = self._actions(ActionStatus.INTENDED, ActionStatus.FAILED)
        for name in NODES:
            state = self.rig.store.nodes.get(name, self.rig.controller.node(name)).state  # type: ignore[attr-defined]
            if state in OUT_OF_SERVICE:
                assert self._ours(name) or ActionKind.CORDON in open_.get(name, set()), name
            elif self._ours(name):
                assert ActionKind.RESUME in open_.get(name, set()), (name, state)

    @invariant()
    def software_faults_never_took_a_node(self) -> None:
        for name in set(NODES) - self.hardware_nodes:
            assert self.rig.controller.node(name).state is NodeState.HEALTHY
            assert self.rig.store.transitions(name) == []

    @invariant()
    def transitions_follow_the_table_in_order(self) -> None:
        for name in NODES:
            chain = self.rig.store.transitions(name)
            assert [t.seq for t in chain] == list(range(1, len(chain) + 1))
            for a, b in itertools.pairwise(chain):
                assert a.to is b.frm
            for t in chain:
                assert (t.frm, t.to) in TRANSITIONS
                assert ((t.frm, t.to) in PERSON_ONLY) == (t.by == "alice")

    @invariant()
    def nothing_is_done_twice(self) -> None:
        assert all(v == 1 for v in self.rig.scheduler.effects.values())


HardwareRecovery.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_hardware_recovery = HardwareRecovery.TestCase


def test_timeouts_cover_the_ladder() -> None:
    assert set(TIMEOUT) == LADDER
    assert all(t < timedelta(days=1) for t in TIMEOUT.values())
