"""The pair test's pure parts: which peer, and the MPIJob it runs (no cluster)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from autorecover.adapters.kubernetes.names import valid_object_name
from autorecover.adapters.kubernetes.stack import topology_from
from autorecover.adapters.kubernetes.validation import (
    NODE,
    PAIR,
    PEER,
    choose_peer,
    in_service,
    launcher_argv,
    launcher_name,
    mpijob_body,
    pair_name,
)
from autorecover.controllers.ports import Provenance
from autorecover.domain.failure_domains import DomainKind, FailureDomain
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.validation import NcclSettings

LABELS = (("rack", "rack"), ("nvlink", "clique"))
READY = {"conditions": [{"type": "Ready", "status": "True"}],
         "allocatable": {"nvidia.com/gpu": "8"}}  # fmt: skip


def _node(name: str, rack: str = "", clique: str = "", **spec: Any) -> dict[str, Any]:
    labels = {k: v for k, v in (("rack", rack), ("clique", clique)) if v}
    return {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": READY}


def _peer(node: str, nodes: list[dict[str, Any]], **kw: Any) -> Any:
    settings = kw.pop("settings", NcclSettings())
    return choose_peer(node, nodes, topology_from(nodes, LABELS), settings, **kw)


def test_kubernetes_peer_is_in_the_tightest_shared_domain_with_free_gpus_first() -> None:
    nodes = [_node("n1", "r1", "c1"), _node("n2", "r1"), _node("n3", "r1", "c1"),
             _node("n4", "r1", "c1"), _node("n5", "r2")]  # fmt: skip
    assert _peer("n1", nodes) == ("n3", FailureDomain(DomainKind.NVLINK, "c1"))
    assert _peer("n1", nodes, busy={"n3": 8}) == ("n4", FailureDomain(DomainKind.NVLINK, "c1"))
    assert _peer("n1", nodes, taken=frozenset({"n3", "n4"})) == (
        "n2", FailureDomain(DomainKind.RACK, "r1"))  # fmt: skip
    assert _peer("n5", nodes) is None  # alone in its rack; no expectation for `cluster`
    anywhere = NcclSettings(busbw_gbps={"rack": 340.0, "cluster": 100.0})
    assert _peer("n5", nodes, settings=anywhere) == ("n1", None)


def test_kubernetes_peer_must_be_in_service() -> None:
    tainted = _node("t", "r1", taints=[{"key": QUARANTINE_TAINT, "effect": "NoSchedule"}])
    theirs = _node("x", "r1", taints=[{"key": "maintenance", "effect": "NoExecute"}])
    cordoned = _node("c", "r1", unschedulable=True)
    not_ready = {**_node("u", "r1"), "status": {"conditions": [{"type": "Ready",
                                                                 "status": "Unknown"}]}}  # fmt: skip
    small = {**_node("s", "r1"), "status": {**READY, "allocatable": {"nvidia.com/gpu": "4"}}}
    for node in (tainted, theirs, cordoned, not_ready):
        assert not in_service(node)
    assert in_service(_node("ok", "r1", taints=[{"key": "soft", "effect": "PreferNoSchedule"}]))
    assert _peer("n1", [_node("n1", "r1"), tainted, theirs, cordoned, not_ready, small]) is None


def test_kubernetes_pair_mpijob_names_its_nodes_and_runs_only_numbers() -> None:
    prov = Provenance("hw/act-1#pair", "engine", "validate", datetime.now(UTC), (), "inc-1")
    name = pair_name(prov.action_id)
    assert name == pair_name("hw/act-1#pair") and valid_object_name(launcher_name(name))
    long_node = "n" * 70  # a valid node name, too long for a label value
    body = mpijob_body(name, "ops", long_node, "peer-1", "img:1", NcclSettings(), prov)
    meta = body["metadata"]
    assert meta["annotations"][NODE] == long_node and meta["annotations"][PEER] == "peer-1"
    assert NODE not in meta["labels"] and meta["labels"][PEER] == "peer-1"
    assert meta["annotations"]["autorecover.io/incident"] == "inc-1"
    specs = body["spec"]["mpiReplicaSpecs"]
    launcher = specs["Launcher"]["template"]["spec"]
    assert launcher["nodeName"] == long_node and "resources" not in launcher["containers"][0]
    assert launcher["containers"][0]["command"] == launcher_argv(NcclSettings())
    assert launcher_argv(NcclSettings(end_bytes=1 << 30)) == [
        "mpirun", "--allow-run-as-root", "--tag-output", "-np", "2", "--bind-to", "none",
        "all_reduce_perf", "-b", "8", "-e", "1073741824", "-f", "2", "-g", "8", "-n", "20",
        "-w", "5", "-c", "1"]  # fmt: skip
    worker = specs["Worker"]
    assert worker["replicas"] == 2
    affinity = worker["template"]["spec"]["affinity"]
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == [long_node, "peer-1"]
    anti = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["labelSelector"]["matchLabels"][PAIR] == name
    assert body["spec"]["runPolicy"]["activeDeadlineSeconds"] == 1800
