"""Failure domains from node labels, and the flags that name the labels (pure)."""

from __future__ import annotations

import pytest

from autorecover.adapters.kubernetes.stack import domain_labels_from, topology_from
from autorecover.domain.failure_domains import DomainKind, FailureDomain


def test_failure_domains_come_from_node_labels() -> None:
    nodes = [
        {"metadata": {"name": "gpu-01", "labels": {"topology.kubernetes.io/zone": "rack-1",
                                                   "nvidia.com/gpu.clique": "c1.0"}}},
        {"metadata": {"name": "gpu-02", "labels": {"topology.kubernetes.io/zone": "rack-1"}}},
        {"metadata": {"name": "gpu-03", "labels": {}}},
    ]  # fmt: skip
    pairs = domain_labels_from(["rack=topology.kubernetes.io/zone", "nvlink=nvidia.com/gpu.clique"])
    topology = topology_from(nodes, pairs)
    assert topology.of("gpu-01") == (FailureDomain(DomainKind.NVLINK, "c1.0"),
                                     FailureDomain(DomainKind.RACK, "rack-1"))  # fmt: skip
    assert topology.of("gpu-02") == (FailureDomain(DomainKind.RACK, "rack-1"),)
    assert topology.of("gpu-03") == ()
    assert len(topology.domains) == 3  # every node counts in the breaker's fleet
    with pytest.raises(ValueError, match="KIND=LABEL"):
        domain_labels_from(["row=topology.kubernetes.io/row"])


def test_event_names_repeat_per_action_and_notes_say_why() -> None:
    from datetime import UTC, datetime

    from autorecover.adapters.kubernetes.events import Regarding, event_name, note_of
    from autorecover.controllers.ports import Provenance

    at = datetime(2026, 11, 30, tzinfo=UTC)
    prov = Provenance("hw/gpu-01/1/cordon", "autorecover", "suspect: XID 79", at,
                      ("gpu-01 kernel [xid.79] NVRM: Xid 79",), "hw/gpu-01/1")  # fmt: skip
    node = Regarding("Node", "gpu-01")
    assert event_name(node, "Cordon", prov) == event_name(node, "Cordon", prov)  # a repeat
    assert event_name(node, "Cordon", prov) != event_name(node, "Taint", prov)
    assert event_name(node, "Cordon", prov).startswith("gpu-01.autorecover-")
    assert note_of(prov) == ("suspect: XID 79; incident hw/gpu-01/1; "
                             "evidence: gpu-01 kernel [xid.79] NVRM: Xid 79")  # fmt: skip
    long = Provenance("a", "b", "x" * 5000, at)
    assert len(note_of(long)) == 1024
