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
