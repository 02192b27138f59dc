"""Failure domains: many nodes of one domain faulting together are one incident."""

from __future__ import annotations

from datetime import timedelta

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.failure_domains import (
    Correlation,
    DomainKind,
    FailureDomain,
    Topology,
    advance,
    faulting,
    incident_id,
)

TOPO = Topology.from_labels(
    {
        f"n{i}": {"rack": f"r{i // 4}", "nvlink": f"nvl{i // 4}", "ib_leaf": f"leaf{i // 8}"}
        for i in range(16)
    }
)
RACK0 = FailureDomain(DomainKind.RACK, "r0")
LEAF0 = FailureDomain(DomainKind.IB_LEAF, "leaf0")
SETTINGS = Correlation(window=timedelta(minutes=10), min_nodes=3)


def test_topology_from_labels() -> None:
    assert TOPO.of("n5") == (
        FailureDomain(DomainKind.IB_LEAF, "leaf0"),
        FailureDomain(DomainKind.NVLINK, "nvl1"),
        FailureDomain(DomainKind.RACK, "r1"),
    )
    assert TOPO.of("elsewhere") == ()
    assert str(RACK0) == "rack:r0"


def test_faulting_counts_distinct_nodes_within_the_window() -> None:
    faults = [("n0", START), ("n0", START), ("n1", START), ("n9", START - timedelta(hours=1))]
    found = faulting(faults, TOPO, START, SETTINGS.window)
    assert found[RACK0] == frozenset({"n0", "n1"})
    assert found[LEAF0] == frozenset({"n0", "n1"})
    assert FailureDomain(DomainKind.RACK, "r2") not in found


def test_an_incident_opens_at_the_threshold_grows_and_closes_when_quiet() -> None:
    two = faulting([("n0", START), ("n1", START)], TOPO, START, SETTINGS.window)
    current, opened, closed = advance({}, two, SETTINGS, START)
    assert current == {} and opened == [] and closed == []

    later = START + timedelta(minutes=1)
    three = faulting([("n0", START), ("n1", START), ("n2", later)], TOPO, later, SETTINGS.window)
    current, opened, closed = advance({}, three, SETTINGS, later)
    assert {i.domain for i in opened} == {RACK0, FailureDomain(DomainKind.NVLINK, "nvl0"), LEAF0}
    incident = current[RACK0]
    assert incident.id == incident_id(RACK0, later)
    assert incident.nodes == frozenset({"n0", "n1", "n2"})

    grown = faulting([("n3", later)], TOPO, later, SETTINGS.window)
    current2, opened2, _ = advance(current, grown, SETTINGS, later)
    assert opened2 == []
    assert current2[RACK0].id == incident.id  # a stable id: one alert
    assert current2[RACK0].nodes == frozenset({"n0", "n1", "n2", "n3"})

    quiet = START + timedelta(hours=1)
    current3, _, closed3 = advance(current2, {}, SETTINGS, quiet)
    assert current3 == {}
    assert {i.id for i in closed3} == {i.id for i in current2.values()}
    assert all(i.closed_at == quiet for i in closed3)


NVL0 = FailureDomain(DomainKind.NVLINK, "nvl0")


def test_a_fault_of_the_fabric_on_two_nodes_of_an_nvlink_domain_is_its_incident() -> None:
    two = faulting([("n0", START), ("n1", START)], TOPO, START, SETTINGS.window)
    fabric = {d: nodes for d, nodes in two.items()}  # both faults were of the fabric
    current, opened, _ = advance({}, two, SETTINGS, START, fabric)
    # Only the NVLink domain opens: two nodes of a rack or a leaf are still two node faults.
    assert [i.domain for i in opened] == [NVL0]
    assert current[NVL0].nodes == frozenset({"n0", "n1"})
    # One of the two a GPU fault: no incident yet.
    one = {NVL0: frozenset({"n0"})}
    assert advance({}, two, SETTINGS, START, one)[1] == []
    # A fabric fault counts only with a fault in the same window (a subset of the faulting).
    assert advance({}, {}, SETTINGS, START, fabric)[1] == []


def test_fabric_signal_keys() -> None:
    from autorecover.domain.failure_domains import CLIQUE_SIGNAL, is_fabric_fault

    assert all(
        is_fabric_fault(k)
        for k in ("fabric.route_unhealthy", "imex.domain_down", "nvswitch.sxid_fatal")
    )
    assert not any(is_fabric_fault(k) for k in (CLIQUE_SIGNAL, "xid.79", "nvml.nvlink_down"))


def test_cliques_reported_by_agents_join_the_topology_where_labels_say_nothing() -> None:
    racks = Topology.from_labels({"a": {"rack": "r1"}, "b": {"nvlink": "label"}})
    learned = racks.with_cliques({"a": "uuid.1", "b": "uuid.2", "c": "uuid.1", "d": ""})
    assert learned.nvlink_of("a") == FailureDomain(DomainKind.NVLINK, "uuid.1")
    assert learned.nvlink_of("b") == FailureDomain(DomainKind.NVLINK, "label")  # label wins
    assert learned.of("a") == (
        FailureDomain(DomainKind.RACK, "r1"),
        FailureDomain(DomainKind.NVLINK, "uuid.1"),
    )
    assert learned.members(FailureDomain(DomainKind.NVLINK, "uuid.1")) == {"a", "c"}
    assert learned.nvlink_of("d") is None and racks.nvlink_of("a") is None
