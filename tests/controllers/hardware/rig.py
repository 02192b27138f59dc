"""The hardware recovery test rig: the hardware controller wired to the fakes, on a virtual clock."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from autorecover.adapters.fakes.cluster import (
    FakeClock,
    FakeDiagnostics,
    FakeNotifier,
    FakeScheduler,
)
from autorecover.adapters.store.memory import MemoryStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.hardware.executing import NO_HOOKS, Hooks
from autorecover.controllers.hardware.ports import PowerPort, StorePort
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.policy import HardwarePolicy
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import HealthReport, NodeSignal, Probe

POLICY = load_policy()
# Small test fleets would otherwise allow one removal an hour (5 % of 20 nodes): the tests
# that are about the breaker set its limits themselves.
ROOMY = replace(POLICY, breaker=replace(POLICY.breaker, max_fraction=1.0, max_out_fraction=1.0))
MAX_PASSES = 50  # every loop in these tests is bounded


def rack_topology(count: int, per_rack: int = 4) -> Topology:
    """Nodes n0.. in racks (and NVLink domains) of `per_rack`, IB leaves of twice that."""
    return Topology.from_labels(
        {
            f"n{i}": {
                "rack": f"r{i // per_rack}",
                "nvlink": f"nvl{i // per_rack}",
                "ib_leaf": f"leaf{i // (2 * per_rack)}",
            }
            for i in range(count)
        }
    )


@dataclass
class Rig:
    """The controller and its fakes; `restart` builds a fresh controller on the same store."""

    nodes: list[str]
    policy: HardwarePolicy = ROOMY
    topology: Topology = field(default_factory=lambda: Topology.from_labels({}))
    store: StorePort = field(default_factory=MemoryStore)
    dry_run: bool = False
    hooks: Hooks = NO_HOOKS
    clock: FakeClock = field(default_factory=FakeClock)
    power: PowerPort | None = None  # out-of-band power (a Redfish emulator's BMCs)

    def __post_init__(self) -> None:
        self.scheduler = FakeScheduler(self.clock, self.nodes)
        self.diagnostics = FakeDiagnostics(self.clock)
        self.notifier = FakeNotifier()
        self.controller = self.build()

    def build(self, hooks: Hooks | None = None) -> HardwareController:
        return HardwareController(
            store=self.store,
            scheduler=self.scheduler,
            diagnostics=self.diagnostics,
            notifier=self.notifier,
            clock=self.clock,
            policy=self.policy,
            topology=self.topology,
            dry_run=self.dry_run,
            fleet_size=len(self.nodes),
            hooks=self.hooks if hooks is None else hooks,
            power=self.power,
        )

    def restart(self, store: StorePort | None = None, hooks: Hooks | None = None) -> None:
        if store is not None:
            self.store = store
        self.controller = self.build(hooks)
        self.controller.start()

    def signal(
        self,
        node: str,
        key: str = "xid.79",
        action: NodeAction = NodeAction.REBOOT,
        blame: Blame = Blame.HARDWARE,
        probe: Probe = Probe.KERNEL,
        **kw: Any,
    ) -> NodeSignal:
        return NodeSignal(node, probe, key, blame, 90, action, self.clock.now(), text="line", **kw)

    def report(self, *signals: NodeSignal) -> None:
        by_node: dict[str, list[NodeSignal]] = {}
        for s in signals:
            by_node.setdefault(s.node, []).append(s)
        self.controller.ingest(
            HealthReport(n, self.clock.now(), NodeAction.NONE, tuple(found))
            for n, found in by_node.items()
        )

    def settle(self, step_s: float = 10, until: Callable[[], bool] | None = None) -> int:
        """Tick until nothing changes (or `until` holds); bounded."""
        for i in range(MAX_PASSES):
            self.clock.advance(step_s)
            summary = self.controller.tick()
            if until is not None and until():
                return i
            if until is None and not summary.transitions and not summary.executed:
                return i
        raise AssertionError("did not settle")

    def states(self, nodes: Iterable[str] | None = None) -> dict[str, str]:
        return {n: self.controller.node(n).state.value for n in (nodes or self.nodes)}


def tight(policy: HardwarePolicy = ROOMY, **breaker: Any) -> HardwarePolicy:
    """The policy with other breaker limits."""
    return replace(policy, breaker=replace(policy.breaker, **breaker))
