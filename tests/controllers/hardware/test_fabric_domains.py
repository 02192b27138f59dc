"""NVLink cliques in hardware recovery, with the in-memory fakes: a node's clique from its
agent where no label gives one, and a fault of the fabric on two nodes of one clique is one
domain incident (the domain's budget), not two node remedies."""

from __future__ import annotations

from autorecover.domain.failure_domains import CLIQUE_SIGNAL, Topology
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from controllers.hardware.rig import Rig

NODES = [f"n{i}" for i in range(8)]
# Racks come from labels; no NVLink labels (no GPU feature discovery on this cluster).
RACKS = Topology.from_labels({n: {"rack": f"r{i // 4}"} for i, n in enumerate(NODES)})
CLIQUES = {n: f"5c6c21a4-9f0b-4d8b-a1c3-2e7f1b0d9a44.{1 + i // 4}" for i, n in enumerate(NODES)}


def clique(rig: Rig, node: str) -> NodeSignal:
    return rig.signal(
        node, CLIQUE_SIGNAL, NodeAction.NONE, Blame.INFO, Probe.FABRIC,
        details=(("clique", CLIQUES[node]),),
    )  # fmt: skip


def unhealthy(rig: Rig, node: str) -> NodeSignal:
    return rig.signal(node, "fabric.route_unhealthy", NodeAction.INSPECT, probe=Probe.FABRIC)


def with_cliques() -> Rig:
    rig = Rig(NODES, topology=RACKS)
    rig.report(*(clique(rig, n) for n in NODES))
    assert rig.states() == dict.fromkeys(NODES, "healthy")  # an info signal removes nothing
    return rig


def test_two_nodes_of_a_clique_reporting_the_fabric_are_one_domain_incident() -> None:
    rig = with_cliques()
    rig.report(unhealthy(rig, "n0"))
    assert rig.states(["n0"]) == {"n0": "quarantined"}  # one node: its own ladder
    rig.clock.advance(5)
    rig.report(unhealthy(rig, "n1"))
    assert rig.states(["n1"]) == {"n1": "suspect"}  # kept off jobs, not put through remedies
    domain_alerts = [a for a in rig.notifier.alerts.values() if a.id.startswith("domain/")]
    (alert,) = domain_alerts  # the clique's; two nodes are no rack incident (that takes three)
    assert alert.id.startswith(f"domain/nvlink/{CLIQUES['n0']}/")
    assert "reported a fault of the NVLink fabric" in alert.summary
    incident = rig.controller.node("n1").incident
    assert incident is not None and incident == alert.id
    # The other clique is untouched, and no node remedy ran for the suspects.
    assert rig.controller.node("n4").incident is None
    rig.settle(step_s=600, until=lambda: rig.controller.node("n1").state.value == "healthy")
    assert rig.scheduler.nodes["n1"].reboots == 0


def test_two_gpu_faults_in_a_clique_stay_node_faults() -> None:
    rig = with_cliques()
    rig.report(rig.signal("n0"), rig.signal("n1"))  # XID 79 twice: the GPUs', not the fabric's
    assert rig.states(["n0", "n1"]) == {"n0": "quarantined", "n1": "quarantined"}
    assert not [a for a in rig.notifier.alerts.values() if a.id.startswith("domain/")]


def test_without_a_clique_the_fabric_faults_stay_on_each_node() -> None:
    rig = Rig(NODES, topology=RACKS)
    rig.report(unhealthy(rig, "n0"), unhealthy(rig, "n1"))
    assert rig.states(["n0", "n1"]) == {"n0": "quarantined", "n1": "quarantined"}


def test_a_label_wins_over_the_agents_report() -> None:
    labelled = Topology.from_labels({n: {"nvlink": "label-clique"} for n in NODES})
    rig = Rig(NODES, topology=labelled)
    rig.report(*(clique(rig, n) for n in NODES))
    rig.report(unhealthy(rig, "n0"), unhealthy(rig, "n5"))  # one label clique: one incident
    (alert,) = [a for a in rig.notifier.alerts.values() if a.id.startswith("domain/")]
    assert alert.id.startswith("domain/nvlink/label-clique/")
