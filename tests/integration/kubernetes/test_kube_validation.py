"""`KubePairValidation` on the real control plane: an NCCL all-reduce MPIJob between two nodes.

Real here: the API server, kube-scheduler placing the two workers (one on the cordoned,
tainted node under test, one on its peer), the training operator turning the MPIJob into a
launcher and workers, the launcher's log read through `pods/log`, the parsing, the judging
and the clean-up. kwok runs no containers: the launcher's log is a recorded `all_reduce_perf`
output (tests/fixtures/nccl) that kwok serves through its `Logs` resource, and the test
decides when the launcher ends and how (kwok's `autorecover-pod-succeed` and
`autorecover-pod-fail` stages).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Node, Pod

from autorecover.adapters.kubernetes.stack import topology_from
from autorecover.adapters.kubernetes.validation import (
    ACTION,
    GRACE_S,
    NODE,
    PEER,
    KubePairValidation,
    MPIJob,
    launcher_argv,
    launcher_name,
    pair_name,
)
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.hardware.validation import NcclSettings
from autorecover.testing.kubernetes.harness import KubeHarness, Logs, wait

NCCL = Path(__file__).parents[2] / "fixtures" / "nccl"
RACKS = (("rack", "topology.kubernetes.io/zone"),)  # the plane: gpu-01..03 rack-1, 04..06 rack-2
IMAGE = "registry.example/nccl-tests:2.13"


class ShiftedClock:
    """The system clock, moved forward on demand (to pass a timeout without waiting)."""

    def __init__(self) -> None:
        self.shift = timedelta()

    def now(self) -> datetime:
        """Now, plus the shift."""
        return datetime.now(UTC) + self.shift


@pytest.fixture
def pairs(kube: KubeHarness) -> Iterator[KubeHarness]:
    """The harness; whatever MPIJob a failing test left behind is deleted first."""
    yield kube
    for job in kube.client.list(MPIJob, namespace=kube.namespace):
        kube.client.delete(MPIJob, job.metadata.name, namespace=kube.namespace)


def _topology(kube: KubeHarness) -> Topology:
    return topology_from([n.to_dict() for n in kube.client.list(Node)], RACKS)


def _port(kube: KubeHarness, clock: Any = None, **settings: Any) -> KubePairValidation:
    return KubePairValidation(kube.session, clock or kube.clock, kube.namespace, IMAGE,
                              NcclSettings(**settings), lambda: _topology(kube))  # fmt: skip


def _quarantine(kube: KubeHarness, node: str, why: str = "validate: XID 79") -> Any:
    prov = kube.provenance(why)
    kube.nodes.cordon(node, prov)
    kube.nodes.taint(node, QUARANTINE_TAINT, prov)
    return prov


def _serve_log(kube: KubeHarness, pod: str, recorded: str | None) -> None:
    """kwok serves this recorded output (CRI log format) as the pod's log."""
    path = kube.log_path(pod)
    text = (NCCL / recorded).read_text() if recorded else ""
    path.write_text("".join(f"2026-11-30T00:00:00.000000000Z stdout F {line}\n"
                            for line in text.splitlines()))  # fmt: skip
    kube.client.create(Logs(metadata=ObjectMeta(name=pod, namespace=kube.namespace),
                            spec={"logs": [{"containers": ["launcher"],
                                            "logsFile": str(path)}]}))  # fmt: skip


def _running(kube: KubeHarness, name: str) -> dict[str, dict[str, Any]]:
    """The pair's launcher and two workers once all three run, by pod name."""

    def three() -> dict[str, dict[str, Any]] | None:
        pods = {p.metadata.name: p.to_dict() for p in kube.client.list(Pod, namespace=kube.namespace)
                if p.metadata is not None and str(p.metadata.name).startswith(name)}  # fmt: skip
        live = [p for p in pods.values() if p.get("status", {}).get("phase") == "Running"]
        return pods if len(live) == 3 else None

    return wait(three, f"{name}'s launcher and workers running", 30)


def _gone(kube: KubeHarness, name: str) -> None:
    def nothing_left() -> bool:
        jobs = list(kube.client.list(MPIJob, namespace=kube.namespace))
        pods = [p for p in kube.client.list(Pod, namespace=kube.namespace)
                if p.metadata is not None and str(p.metadata.name).startswith(name)]  # fmt: skip
        return not jobs and not pods

    wait(nothing_left, f"{name} and its pods deleted", 30)


def _end(kube: KubeHarness, pod: str, exit_code: int) -> None:
    if exit_code:
        kube.fail_pod(pod, exit_code)
    else:
        kube.client.patch(Pod, pod, {"metadata": {"annotations": {"autorecover.test/succeed": "y"}}},
                          namespace=kube.namespace)  # fmt: skip


def test_kubernetes_pair_mpijob_spans_the_cordoned_node_and_a_rack_peer_and_passes(
    pairs: KubeHarness,
) -> None:
    kube = pairs
    node = kube.cluster.node_names[1]  # gpu-02, rack-1
    prov = _quarantine(kube, node)
    name = pair_name(prov.action_id)
    _serve_log(kube, launcher_name(name), "h100-2node-ok.txt")
    port = _port(kube)

    port.start(node, DiagnosticLevel.LOAD, prov)
    port.start(node, DiagnosticLevel.LOAD, prov)  # again (a crash): the same MPIJob
    pods = _running(kube, name)
    assert port.result(prov.action_id) is None  # running: not yet

    job = kube.client.get(MPIJob, name, namespace=kube.namespace).to_dict()
    peer = job["metadata"]["annotations"][PEER]
    assert peer in ("gpu-01", "gpu-03")  # the node's rack, in service
    assert job["metadata"]["annotations"][ACTION] == prov.action_id
    assert job["metadata"]["labels"][NODE] == node and job["metadata"]["labels"][PEER] == peer
    launcher = pods[launcher_name(name)]["spec"]
    assert launcher["nodeName"] == node
    assert launcher["containers"][0]["command"] == launcher_argv(NcclSettings())
    assert launcher["containers"][0]["image"] == IMAGE
    workers = [p for n, p in pods.items() if "-worker-" in n]
    assert sorted(w["spec"]["nodeName"] for w in workers) == sorted([node, peer])
    for worker in workers:
        spec = worker["spec"]
        assert spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
        assert not spec.get("hostNetwork")
        keys = {t.get("key") for t in spec["tolerations"]}
        assert {QUARANTINE_TAINT, "node.kubernetes.io/unschedulable"} <= keys
    assert kube.node(node)["spec"]["unschedulable"] is True  # cordoned throughout

    # An engine that restarts finds the MPIJob by the action's id: nothing made twice.
    again = _port(kube)
    again.start(node, DiagnosticLevel.LOAD, prov)
    assert again.result(prov.action_id) is None
    assert [j.metadata.name for j in kube.client.list(MPIJob, namespace=kube.namespace)] == [name]

    _end(kube, launcher_name(name), 0)
    result = wait(lambda: again.result(prov.action_id), "the pair test's result", 30)
    assert result.verdict is Verdict.PASS, result
    assert result.node == node and result.level is DiagnosticLevel.LOAD
    assert "expected within rack rack-1" in result.evidence[0], result
    assert any(f"on {node},{peer}" in e for e in result.evidence), result
    _gone(kube, name)
    assert again.result(prov.action_id) is result  # kept: asking again changes nothing


@pytest.mark.parametrize(
    ("recorded", "exit_code", "verdict", "evidence"),
    [
        ("rtx3090-2node-slow.txt", 0, Verdict.FAIL, "busbw 9.8 GB/s < 80% of 340 GB/s"),
        ("rtx3090-2node-wrong.txt", 0, Verdict.FAIL, "wrong all-reduce results"),
        ("a6000-2node-nccl-failure.txt", 1, Verdict.FAIL, "Test NCCL failure"),
        (None, 0, Verdict.ERROR, "no all_reduce_perf output"),
    ],
)
def test_kubernetes_pair_launcher_output_is_judged_through_the_api(
    pairs: KubeHarness, recorded: str | None, exit_code: int, verdict: Verdict, evidence: str
) -> None:
    kube = pairs
    node = kube.cluster.node_names[4]  # gpu-05, rack-2
    prov = _quarantine(kube, node)
    name = pair_name(prov.action_id)
    _serve_log(kube, launcher_name(name), recorded)
    port = _port(kube, min_bytes=1 << 28)  # the slow pair's table stops at 512 MiB
    port.start(node, DiagnosticLevel.LOAD, prov)
    _running(kube, name)
    _end(kube, launcher_name(name), exit_code)
    result = wait(lambda: port.result(prov.action_id), "the pair test's result", 30)
    assert result.verdict is verdict, result
    assert any(evidence in e for e in result.evidence), result
    _gone(kube, name)


def test_kubernetes_pair_past_its_time_is_an_error_and_deleted(pairs: KubeHarness) -> None:
    kube = pairs
    node = kube.cluster.node_names[2]  # gpu-03
    prov = _quarantine(kube, node)
    name = pair_name(prov.action_id)
    clock = ShiftedClock()
    port = _port(kube, clock, timeout_s=60.0)
    port.start(node, DiagnosticLevel.LOAD, prov)
    _running(kube, name)
    assert port.result(prov.action_id) is None
    clock.shift = timedelta(seconds=60.0 + GRACE_S + 5)
    result = port.result(prov.action_id)
    assert result is not None and result.verdict is Verdict.ERROR, result
    assert "launcher still Running after 60 s: deleted" in result.evidence[0], result
    _gone(kube, name)


def test_kubernetes_pair_without_a_peer_in_service_is_an_error_and_creates_nothing(
    pairs: KubeHarness,
) -> None:
    kube = pairs
    node = kube.cluster.node_names[3]  # gpu-04, rack-2 with gpu-05 and gpu-06
    prov = _quarantine(kube, node)
    for other in kube.cluster.node_names[4:]:
        kube.nodes.cordon(other, kube.provenance("somebody's maintenance"))
    port = _port(kube)
    port.start(node, DiagnosticLevel.LOAD, prov)
    result = port.result(prov.action_id)
    assert result is not None and result.verdict is Verdict.ERROR, result
    assert "no known-good peer for gpu-04 (rack:rack-2)" in result.evidence[0], result
    assert not list(kube.client.list(MPIJob, namespace=kube.namespace))
