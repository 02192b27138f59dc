"""A person's `scontrol update State=RESUME` of a node hardware recovery drained, on the real
Slurm cluster: reconcile reads it as intent, records what Slurm shows, releases the node and
does not drain it again."""

from __future__ import annotations

from datetime import datetime, timedelta

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeDiagnostics, FakeNotifier
from autorecover.adapters.slurm.states import NodeCondition, node_status
from autorecover.adapters.store.memory import MemoryStore
from autorecover.controllers.hardware.controller import SOMEONE, HardwareController
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.slurm.rig import ROOMY


class LaterClock:
    """The wall clock, moved on by the test (the controller's grace is 30 s)."""

    def __init__(self) -> None:
        self.ahead = timedelta()
        self._wall = SystemClock()

    def now(self) -> datetime:
        return self._wall.now() + self.ahead


def test_slurm_a_persons_resume_is_intent_and_not_fought(slurm: SlurmHarness) -> None:
    node, clock, store = "gpu03", LaterClock(), MemoryStore()
    controller = HardwareController(
        store=store, scheduler=slurm.scheduler,
        diagnostics=FakeDiagnostics(clock, duration_s=3600),  # the node stays in diagnosis
        notifier=FakeNotifier(), clock=clock, policy=ROOMY, fleet_size=4,
    )  # fmt: skip
    controller.start()
    controller.ingest([
        NodeSignal(node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT,
                   clock.now(), text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.")
    ])  # fmt: skip
    assert node_status(slurm.scheduler.reader.node(node)).ours
    clock.ahead += timedelta(seconds=10)
    controller.tick()  # idle, so drained: diagnosing, its result an hour away
    assert controller.node(node).state is NodeState.DIAGNOSING

    slurm.cluster._scontrol(["scontrol", "update", f"NodeName={node}", "State=RESUME"])
    assert node_status(slurm.scheduler.reader.node(node)).condition is NodeCondition.UP
    clock.ahead += timedelta(seconds=60)
    controller.reconcile()

    assert controller.node(node).state is NodeState.HEALTHY
    last = store.transitions(node)[-1]
    assert (last.frm, last.to, last.by) == (NodeState.DIAGNOSING, NodeState.HEALTHY, SOMEONE)
    [event] = [e for e in store.events(node) if "outside autorecover" in e.text]
    assert "the scheduler shows: state idle" in event.text and "not re-cordoned" in event.text
    for _ in range(3):  # later reconciles leave the person's decision alone
        clock.ahead += timedelta(seconds=60)
        controller.reconcile()
        controller.tick()
    assert node_status(slurm.scheduler.reader.node(node)).condition is NodeCondition.UP
    assert controller.node(node).state is NodeState.HEALTHY
