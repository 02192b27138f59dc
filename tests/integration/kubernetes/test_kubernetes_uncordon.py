"""A person's `kubectl uncordon` of a node hardware recovery holds out, on the real control
plane: reconcile reads it as intent, records what the API server shows, releases the node (our
taint and annotations lifted by the adapter's resume) and does not cordon it again."""

from __future__ import annotations

from datetime import datetime, timedelta

from lightkube.resources.core_v1 import Node
from lightkube.types import PatchType

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeDiagnostics, FakeNotifier
from autorecover.adapters.kubernetes import marks
from autorecover.adapters.store.memory import MemoryStore
from autorecover.controllers.hardware.controller import SOMEONE, HardwareController
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT, NodeState
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.testing.kubernetes.harness import KubeHarness, wait
from autorecover.testing.kubernetes.rig import ROOMY


class LaterClock:
    """The wall clock, moved on by the test (the controller's grace is 30 s)."""

    def __init__(self) -> None:
        self.ahead = timedelta()
        self._wall = SystemClock()

    def now(self) -> datetime:
        return self._wall.now() + self.ahead


def test_kubernetes_a_persons_uncordon_is_intent_and_not_fought(kube: KubeHarness) -> None:
    node = kube.cluster.node_names[1]
    clock = LaterClock()
    store = MemoryStore()
    diagnostics = FakeDiagnostics(clock, duration_s=3600)  # the node stays in diagnosis
    controller = HardwareController(
        store=store, scheduler=kube.nodes, diagnostics=diagnostics, notifier=FakeNotifier(),
        clock=clock, policy=ROOMY, fleet_size=len(kube.cluster.node_names),
    )  # fmt: skip
    controller.start()
    xid = NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, clock.now(),
        text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
    )  # fmt: skip
    controller.ingest([xid])
    assert controller.node(node).state is NodeState.QUARANTINED
    assert kube.node(node)["spec"]["unschedulable"] is True
    wait(lambda: "autorecover" in kube.nodes.observe([node])[node].cordoned_by, "our cordon")
    clock.ahead += timedelta(seconds=10)

    def diagnosing() -> bool:
        # drained (no pods): diagnosing, its result an hour away. A pod an earlier test left
        # terminating on the node holds the drain until the informer sees it gone.
        controller.tick()
        return controller.node(node).state is NodeState.DIAGNOSING

    wait(diagnosing, "the node drained and in diagnosis")

    # A person: `kubectl uncordon NODE` is exactly this merge patch, by another field manager.
    kube.client.patch(Node, node, {"spec": {"unschedulable": None}}, patch_type=PatchType.MERGE)
    wait(lambda: not kube.nodes.observe([node])[node].cordoned_by, "the informer to see it")
    clock.ahead += timedelta(seconds=60)
    controller.reconcile()

    assert controller.node(node).state is NodeState.HEALTHY
    last = store.transitions(node)[-1]
    assert (last.frm, last.to, last.by) == (NodeState.DIAGNOSING, NodeState.HEALTHY, SOMEONE)
    [event] = [e for e in store.events(node) if "outside autorecover" in e.text]
    assert f"{marks.CORDONED_BY}=autorecover still set: uncordoned outside autorecover" in (
        event.text
    )
    assert QUARANTINE_TAINT in event.text and "not re-cordoned" in event.text

    def lifted() -> bool:
        seen = kube.node(node)
        notes = seen["metadata"].get("annotations") or {}
        taints = [t["key"] for t in seen["spec"].get("taints") or []]
        return marks.CORDONED_BY not in notes and QUARANTINE_TAINT not in taints

    wait(lifted, "our taint and marks lifted by the resume")
    for _ in range(3):  # later reconciles leave the person's decision alone
        clock.ahead += timedelta(seconds=60)
        controller.reconcile()
        controller.tick()
    assert not kube.node(node)["spec"].get("unschedulable")
    assert controller.node(node).state is NodeState.HEALTHY
