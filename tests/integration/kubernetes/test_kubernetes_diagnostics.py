"""`KubeDiagnostics` on the real control plane: a `dcgmi diag` pod on the node, its log judged.

kwok runs the pod (it ends Succeeded, as a finished dcgmi run does) and serves its log from
a file: a recorded `dcgmi diag -j` report (tests/fixtures/agent/dcgm) in the CRI log format.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Pod

from autorecover.adapters.kubernetes.diagnostics import KubeDiagnostics, pod_name
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.testing.kubernetes.harness import KubeHarness, Logs, wait

DCGM = Path(__file__).parents[2] / "fixtures" / "agent" / "dcgm"


def _serve_log(kube: KubeHarness, pod: str, text: str) -> None:
    path = kube.log_path(pod)
    path.write_text("".join(f"2026-11-30T00:00:00.000000000Z stdout F {line}\n"
                            for line in text.splitlines()))  # fmt: skip
    kube.client.create(Logs(metadata=ObjectMeta(name=pod, namespace=kube.namespace),
                            spec={"logs": [{"containers": ["dcgm-diag"],
                                            "logsFile": str(path)}]}))  # fmt: skip


@pytest.mark.parametrize(
    ("report", "verdict", "evidence"),
    [
        ("diag-4x-pass.json", Verdict.PASS, "none failed"),
        ("diag-4x-memory-isolate.json", Verdict.FAIL, "Fail"),
        (None, Verdict.ERROR, "not dcgmi diag JSON"),
    ],
)
def test_kubernetes_diagnostic_pod_runs_on_the_cordoned_node_and_is_judged(
    kube: KubeHarness, report: str | None, verdict: Verdict, evidence: str
) -> None:
    node = kube.cluster.node_names[5]
    prov = kube.provenance("diagnose: XID 48")
    kube.nodes.cordon(node, prov)
    kube.nodes.taint(node, QUARANTINE_TAINT, prov)
    diagnostics = KubeDiagnostics(kube.session, kube.clock, kube.namespace)
    name = pod_name(prov.action_id)
    _serve_log(kube, name, (DCGM / report).read_text() if report else "dcgmi: command not found")

    diagnostics.start(node, DiagnosticLevel.QUICK, prov)
    diagnostics.start(node, DiagnosticLevel.QUICK, prov)  # again (a crash): the same pod
    result = wait(lambda: diagnostics.result(prov.action_id), "the diagnostic's result")
    assert result.verdict is verdict, result
    assert result.node == node and any(evidence in e for e in result.evidence), result
    pod = kube.client.get(Pod, name, namespace=kube.namespace)
    assert pod.spec is not None and pod.spec.nodeName == node
    assert pod.spec.containers[0].command == ["dcgmi", "diag", "-r", "1", "-j"]
    assert [p.metadata.name for p in kube.client.list(Pod, namespace=kube.namespace)] == [name]
