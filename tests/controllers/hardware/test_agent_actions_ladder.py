"""Hardware recovery with node actions run by the node's agent: the controller on the fake
scheduler and the memory order book, with the agent's answers posted through the order book
as the HTTP API records them. A reset refused while processes hold the GPU climbs to a reboot;
an order nobody answers times out into the next rung; every order is placed once."""

from __future__ import annotations

from dataclasses import dataclass, field

from autorecover.adapters.agents.actions import AgentNodeActions
from autorecover.adapters.agents.diagnostics import AgentDiagnostics
from autorecover.adapters.fakes.cluster import FakeClock, FakeNotifier, FakeScheduler
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.memory_orders import MemoryOrderBook
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.orders import NodeOrder, OrderKind, OrderReport, OrderStatus, OrderVerdict
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import HealthReport, NodeSignal, Probe
from controllers.hardware.rig import ROOMY

S, N = OrderStatus, NodeState


@dataclass
class AgentRig:
    """The controller with agent-run node actions; `agent` answers orders as an agent would."""

    clock: FakeClock = field(default_factory=FakeClock)
    store: MemoryStore = field(default_factory=MemoryStore)
    book: MemoryOrderBook = field(default_factory=MemoryOrderBook)

    def __post_init__(self) -> None:
        self.scheduler = FakeScheduler(self.clock, ["n1", "n2"])
        self.nodes = AgentNodeActions(self.scheduler, self.book, self.clock)
        self.controller = HardwareController(
            store=self.store, scheduler=self.nodes,
            diagnostics=AgentDiagnostics(self.book, self.clock), notifier=FakeNotifier(),
            clock=self.clock, policy=ROOMY, fleet_size=2,
        )  # fmt: skip

    def fault(self, key: str, action: NodeAction, component: str | None = None) -> None:
        signal = NodeSignal("n1", Probe.KERNEL, key, Blame.HARDWARE, 90, action, self.clock.now(),
                            component=component, text=f"NVRM: Xid {key}")  # fmt: skip
        report = HealthReport("n1", self.clock.now(), NodeAction.NONE, (signal,))
        self.controller.ingest([report])

    def tick(self, seconds: float = 10) -> NodeState:
        self.clock.advance(seconds)
        self.controller.tick()
        return self.controller.node("n1").state

    def live(self, *kinds: OrderKind) -> list[NodeOrder]:
        return [o for o in self.book.pending_for("n1") if not kinds or o.kind in kinds]

    def agent(self, kind: OrderKind, status: S, detail: str = "", **kw: object) -> NodeOrder:
        """The agent answers its one live order of `kind`: running, then `status`."""
        (order,) = [o for o in self.live() if o.kind is kind]
        now = self.clock.now()
        assert self.book.report(order.id, OrderReport("n1", S.RUNNING), now) is not None
        after = self.book.report(order.id, OrderReport("n1", status, detail, **kw), now)  # type: ignore[arg-type]
        assert isinstance(after, NodeOrder) and after.status is status
        return after


def test_agent_actions_a_refused_reset_climbs_to_a_reboot_then_validation_returns_the_node() -> (
    None
):
    rig = AgentRig()
    rig.fault("xid.48", NodeAction.RESET_GPU, component="0000:18:00")  # a DBE: reset first
    assert rig.controller.node("n1").state is N.QUARANTINED
    assert rig.tick() is N.DIAGNOSING
    kinds = {o.kind for o in rig.live()}
    assert kinds == {OrderKind.DIAGNOSE, OrderKind.COLLECT_BUNDLE}
    assert rig.tick() is N.DIAGNOSING  # no report yet: it waits
    rig.agent(OrderKind.DIAGNOSE, S.DONE, "dcgmi diag -r 1", verdict=OrderVerdict.FAIL,
              findings=("Memory: Fail: DBE on GPU 0",))  # fmt: skip
    rig.agent(OrderKind.COLLECT_BUNDLE, S.DONE, "collected",
              attachments={"kernel.log": "NVRM: Xid (PCI:0000:18:00): 48"})  # fmt: skip

    assert rig.tick() is N.REMEDIATING
    (reset,) = rig.live()
    assert reset.kind is OrderKind.RESET_GPU and reset.args["gpus"] == ("0000:18:00.0",)
    assert rig.controller.waiting == 1  # intended while the agent has it
    for _ in range(3):
        assert rig.tick() is N.REMEDIATING  # asked again: the same order, no second one
    rig.agent(OrderKind.RESET_GPU, S.REFUSED, "processes hold the GPU: python (pid 4242)")

    rig.tick()  # the reset fails ...
    assert rig.tick() is N.REMEDIATING  # ... and the ladder climbs: reboot
    record = rig.controller.node("n1")
    assert record.step == "reboot" and "processes hold the GPU" in record.evidence[-1]
    (reboot,) = rig.live()
    assert reboot.kind is OrderKind.REBOOT
    rig.agent(OrderKind.REBOOT, S.DONE, "rebooted; up 42 s")

    rig.tick()
    assert rig.tick() is N.VALIDATING
    (validate,) = rig.live()
    assert validate.kind is OrderKind.DIAGNOSE and validate.args == {"level": 3}
    rig.agent(OrderKind.DIAGNOSE, S.DONE, "dcgmi diag -r 3", verdict=OrderVerdict.PASS)
    assert rig.tick() is N.HEALTHY
    assert rig.scheduler.schedulable("n1")

    ladder = [(t.frm.value, t.to.value) for t in rig.store.transitions("n1")]
    assert ladder == [
        ("healthy", "quarantined"), ("quarantined", "diagnosing"), ("diagnosing", "remediating"),
        ("remediating", "remediating"), ("remediating", "validating"), ("validating", "healthy"),
    ]  # fmt: skip
    outcomes = {a.action.kind.value: (a.status, a.result) for a in rig.store.actions("n1")}
    assert outcomes["reset_gpu"][0] is ActionStatus.FAILED
    assert "refused by the agent on n1: processes hold the GPU" in outcomes["reset_gpu"][1]
    assert outcomes["reboot"] == (ActionStatus.DONE, "")
    assert [o.kind.value for o in rig.book.for_node("n1")] == [
        "diagnose",
        "collect_bundle",
        "reset_gpu",
        "reboot",
        "diagnose",
    ]  # each placed once
    assert rig.scheduler.log[-1][0] == "resume" and rig.scheduler.nodes["n1"].reboots == 0


def test_agent_actions_an_order_that_never_gets_a_report_times_out_into_the_next_rung() -> None:
    rig = AgentRig()
    rig.fault("xid.48", NodeAction.RESET_GPU)
    rig.tick()
    rig.agent(OrderKind.DIAGNOSE, S.DONE, verdict=OrderVerdict.FAIL)  # the bundle: unanswered
    assert rig.tick() is N.REMEDIATING
    (reset,) = rig.live(OrderKind.RESET_GPU)
    assert reset.args["gpus"] == ()  # no bus id in the evidence: every GPU
    assert rig.tick(299) is N.REMEDIATING  # the agent is silent
    rig.tick(1)  # past the deadline: the order expires, the reset fails
    assert rig.book.get(reset.id).status is S.EXPIRED  # type: ignore[union-attr]
    assert rig.tick() is N.REMEDIATING and rig.controller.node("n1").step == "reboot"
    (reboot,) = rig.live(OrderKind.REBOOT)
    assert rig.tick(900) is N.REMEDIATING
    rig.tick()  # the reboot's order expires too: no rung is left
    assert rig.book.get(reboot.id).status is S.EXPIRED  # type: ignore[union-attr]
    state = rig.tick()
    assert state is N.NEEDS_ATTENTION
    assert "no report from the agent within 900 s" in rig.controller.node("n1").reason


def test_agent_actions_xid_79_asks_for_a_reboot_the_agent_runs() -> None:
    rig = AgentRig()
    rig.fault("xid.79", NodeAction.REBOOT, component="0000:3b:00")
    rig.tick()
    rig.agent(OrderKind.DIAGNOSE, S.DONE, verdict=OrderVerdict.FAIL)
    assert rig.tick() is N.REMEDIATING
    (order,) = rig.live(OrderKind.RESET_GPU, OrderKind.REBOOT)
    assert order.kind is OrderKind.REBOOT  # the catalog asks a reboot for a GPU off the bus
    rig.agent(OrderKind.REBOOT, S.DONE)
    rig.tick()
    assert rig.tick() is N.VALIDATING
