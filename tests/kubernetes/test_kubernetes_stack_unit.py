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
    with pytest.raises(ValueError, match="KIND=LABEL"):
        domain_labels_from(["row=topology.kubernetes.io/row"])
