"""The Helm chart on the real API server. Its RBAC is enough, and no more: the adapter run as
the chart's engine service account (its ClusterRole, Roles and bindings applied) cordons,
taints, drains, requeues, runs a diagnostic and leads on its Lease, and cannot do what it
never needs. And every manifest it renders is admitted (a server-side dry run: validation and
admission, stricter than the schemas): with no values at all (one engine on SQLite on a
PersistentVolumeClaim, which a default StorageClass binds) and with values-ha.yaml (two
replicas on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from lightkube import ApiError, Client
from lightkube.resources.apps_v1 import Deployment
from lightkube.resources.core_v1 import Node, PersistentVolumeClaim, Pod, Secret
from lightkube.resources.storage_v1 import StorageClass

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.kubernetes.client import load_config
from autorecover.adapters.kubernetes.stack import KubeSettings, KubeStack
from autorecover.adapters.kubernetes.validation import MPIJob, launcher_name, pair_name
from autorecover.adapters.validating import LoadValidation
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.testing.kubernetes.harness import KubeHarness, wait
from deploy.rendering import CHART, build_helm, helm_run, render

RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
ENGINE = "ar-autorecover-engine"


def test_kubernetes_the_charts_rbac_is_what_the_engine_needs(kube: KubeHarness) -> None:
    ns = kube.namespace
    manifests = render(build_helm(), {"store": {"url": "postgresql://db/ar"}, "namespaces": [ns]},
                       namespace=ns)  # fmt: skip
    for manifest in manifests:
        if manifest["kind"] in RBAC_KINDS:
            kube.cluster.apply(manifest)
    config = kube.cluster.user_kubeconfig(f"system:serviceaccount:{ns}:{ENGINE}",
                                          ["system:serviceaccounts"])  # fmt: skip
    settings = KubeSettings(kubeconfig=config, namespaces=(ns,), diagnostics_namespace=ns)
    stack = KubeStack.connect(settings, SystemClock())
    try:
        node = kube.cluster.node_names[4]
        prov = kube.provenance("quarantine: XID 79")
        stack.nodes.cordon(node, prov)
        assert kube.events("Node", node)  # its Event was allowed too
        stack.nodes.taint(node, QUARANTINE_TAINT, prov)
        stack.nodes.drain(node, prov)
        stack.diagnostics.start(node, DiagnosticLevel.QUICK, prov)
        result = wait(lambda: stack.diagnostics.result(prov.action_id), "a diagnostic result")
        assert result.verdict is Verdict.ERROR  # no dcgmi report in a kwok pod's log: no verdict
        stack.nodes.resume(node, kube.provenance("validated"))

        job = kube.submit(workers=1)
        first = kube.placement(count=2)
        bad = first["train-worker-0"]
        kube.fail_pod("train-worker-0")
        stack.jobs.requeue(job, [bad], 0.0, kube.provenance("hardware"))
        assert bad not in kube.placement(attempt=1, count=2).values()
        assert [w.job for w in stack.jobs.watched()] == [job]

        lease = stack.lease(ns, ENGINE)
        assert lease.acquire("engine-0", kube.clock.now(), 15).holder == "engine-0"

        # ... and nothing more: no secrets, no deleting nodes, no Lease of another name.
        engine = Client(load_config(config))
        for forbidden in (lambda: list(engine.list(Secret, namespace=ns)),
                          lambda: engine.delete(Node, node)):  # fmt: skip
            with pytest.raises(ApiError) as refused:
                forbidden()
            assert refused.value.status.code == 403
        with pytest.raises(Exception, match="forbidden"):
            stack.lease(ns, "someone-elses").acquire("engine-0", kube.clock.now(), 15)
        engine.close()
    finally:
        stack.close()


def test_kubernetes_the_charts_rbac_runs_the_nccl_pair_test(kube: KubeHarness) -> None:
    """With `validation.ncclImage`, the engine's account creates, reads and deletes the pair's
    MPIJob and reads its launcher's log (kwok serves none here: the verdict is ERROR)."""
    ns = kube.namespace
    values = {"store": {"url": "postgresql://db/ar"}, "namespaces": [ns],
              "validation": {"ncclImage": "registry.example/nccl-tests:2.13"}}  # fmt: skip
    for manifest in render(build_helm(), values, namespace=ns):
        if manifest["kind"] in RBAC_KINDS:
            kube.cluster.apply(manifest)
    config = kube.cluster.user_kubeconfig(f"system:serviceaccount:{ns}:{ENGINE}",
                                          ["system:serviceaccounts"])  # fmt: skip
    settings = KubeSettings(kubeconfig=config, namespaces=(ns,), diagnostics_namespace=ns,
                            nccl_image="registry.example/nccl-tests:2.13",
                            domain_labels=(("rack", "topology.kubernetes.io/zone"),))  # fmt: skip
    stack = KubeStack.connect(settings, SystemClock())
    try:
        assert isinstance(stack.diagnostics, LoadValidation)
        pair = stack.diagnostics.pair
        node = kube.cluster.node_names[0]
        prov = kube.provenance("validate: XID 79")
        stack.nodes.cordon(node, prov)
        pair.start(node, DiagnosticLevel.LOAD, prov)
        launcher = launcher_name(pair_name(prov.action_id))
        wait(lambda: _phase(kube, launcher) == "Running", "the pair's launcher running", 30)
        assert pair.result(prov.action_id) is None
        kube.client.patch(Pod, launcher, {"metadata": {"annotations": {
            "autorecover.test/succeed": "y"}}}, namespace=ns)  # fmt: skip
        result = wait(lambda: pair.result(prov.action_id), "the pair test's result", 30)
        assert result.verdict is Verdict.ERROR and "no all_reduce_perf output" in result.evidence[0]
        assert not list(kube.client.list(MPIJob, namespace=ns))  # deleted, as the engine
    finally:
        stack.close()


def _phase(kube: KubeHarness, pod: str) -> str | None:
    try:
        status = kube.client.get(Pod, pod, namespace=kube.namespace).status
    except ApiError:
        return None
    return status.phase if status is not None else None


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"dryRun": False, "taintEffect": "NoExecute", "agent": {"kernelSource": "journal"}},
        {"policies": {"site.toml": "[breaker]\nmax_nodes = 8\n"}, "engine": {"replicas": 3}},
        {
            "alerting": {
                "alertmanagers": ["http://am.monitoring:9093"],
                "webhooks": ["https://hooks.example/ar"],
                "webhookSecret": {"existingSecret": "ar-hooks"},
                "externalUrl": "https://ar.example",
            },
            "auth": {"tokens": "# hashes only\n"},
            "tls": {"secretName": "ar-engine-tls"},
            "networkPolicy": {"extraFrom": [{"podSelector": {"matchLabels": {"app": "cli"}}}]},
        },
    ],
)
def test_kubernetes_the_real_api_server_admits_every_chart_manifest(
    kube: KubeHarness, values: dict[str, object]
) -> None:
    ns = kube.namespace
    manifests = render(build_helm(), {"store": {"url": "postgresql://db/ar"}, **values},
                       namespace=ns)  # fmt: skip
    kinds = set()
    for manifest in manifests:
        if manifest["kind"] == "ServiceMonitor":
            continue  # the Prometheus Operator's CRD is not installed here
        if manifest["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            manifest["metadata"].setdefault("namespace", ns)
        kube.cluster.apply(manifest, dry_run=True)  # validated and admitted, nothing stored
        kinds.add(manifest["kind"])
    assert {"Deployment", "DaemonSet", "Service", "ClusterRole", "Role", "NetworkPolicy"} <= kinds


@pytest.fixture
def default_storage_class(kube: KubeHarness) -> Iterator[str]:
    """A default StorageClass, as every managed cluster has one (removed after the test)."""
    name = f"{kube.namespace}-default"
    kube.cluster.apply({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                        "metadata": {"name": name, "annotations": {
                            "storageclass.kubernetes.io/is-default-class": "true"}},
                        "provisioner": "example.com/none"})  # fmt: skip
    try:
        yield name
    finally:
        kube.client.delete(StorageClass, name)


def _dry_run_every_manifest(kube: KubeHarness, values: dict[str, Any]) -> dict[str, Any]:
    """Every manifest the chart renders with these values, as the API server admitted it
    (validated, defaulted and mutated; nothing stored), by `Kind/name`."""
    admitted = {}
    for manifest in render(build_helm(), values, namespace=kube.namespace):
        if manifest["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            manifest["metadata"].setdefault("namespace", kube.namespace)
        name = f"{manifest['kind']}/{manifest['metadata']['name']}"
        admitted[name] = kube.cluster.apply(manifest, dry_run=True)
    return admitted


def test_kubernetes_the_chart_with_no_values_is_admitted_on_sqlite(
    kube: KubeHarness, default_storage_class: str
) -> None:
    """`helm install` with no values: every object is admitted, and the engine's claim gets
    the cluster's default StorageClass (the DefaultStorageClass admission plugin sets it)."""
    admitted = _dry_run_every_manifest(kube, {})
    claim = admitted[f"PersistentVolumeClaim/{ENGINE}-data"]
    assert claim["spec"]["storageClassName"] == default_storage_class
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    engine = admitted[f"Deployment/{ENGINE}"]
    assert engine["spec"]["replicas"] == 1
    assert engine["spec"]["strategy"] == {"type": "Recreate"}
    [volume] = [v for v in engine["spec"]["template"]["spec"]["volumes"]
                if "persistentVolumeClaim" in v]  # fmt: skip
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert {k.split("/")[0] for k in admitted} >= {"DaemonSet", "Service", "NetworkPolicy",
                                                   "Role", "ClusterRole"}  # fmt: skip
    assert not [k for k in admitted if k.startswith(("ServiceMonitor/", "PrometheusRule/"))]


def test_kubernetes_the_chart_with_values_ha_is_admitted_on_postgresql(
    kube: KubeHarness,
) -> None:
    values = yaml.safe_load((CHART / "values-ha.yaml").read_text(encoding="utf-8"))
    admitted = _dry_run_every_manifest(kube, values)
    engine = admitted[f"Deployment/{ENGINE}"]
    assert engine["spec"]["replicas"] == 2
    assert engine["spec"]["strategy"]["type"] == "RollingUpdate"  # the API server's default
    assert f"PodDisruptionBudget/{ENGINE}" in admitted
    assert not [k for k in admitted if k.startswith("PersistentVolumeClaim/")]


@pytest.mark.parametrize("shape", ["default", "ha"])
def test_kubernetes_helm_install_as_shipped(
    kube: KubeHarness, default_storage_class: str, shape: str
) -> None:
    """A real `helm install` (no --wait: kwok runs no containers) with no values, and with
    values-ha.yaml; its notes name the store; `helm uninstall` removes what it made."""
    helm, ns = build_helm(), kube.namespace
    values = {} if shape == "default" else yaml.safe_load(
        (CHART / "values-ha.yaml").read_text(encoding="utf-8"))  # fmt: skip
    release = f"shipped-{shape}"  # not `ar`: other tests apply ar-autorecover-engine's roles
    target = ["--namespace", ns, "--kubeconfig", str(kube.cluster.kubeconfig)]
    notes = helm_run(helm, ["install", release, str(CHART), *target], values)
    try:
        engine = f"{release}-autorecover-engine"
        deployment = kube.client.get(Deployment, engine, namespace=ns)
        assert deployment.spec is not None
        claims = list(kube.client.list(PersistentVolumeClaim, namespace=ns))
        if shape == "default":
            assert "Store: SQLite on the PersistentVolumeClaim" in notes
            assert deployment.spec.replicas == 1
            [claim] = claims
            assert claim.spec is not None
            assert claim.spec.storageClassName == default_storage_class
        else:
            assert "Store: PostgreSQL (the URL from Secret autorecover-store)" in notes
            assert deployment.spec.replicas == 2
            assert not claims
    finally:
        helm_run(helm, ["uninstall", release, *target])
    assert not list(kube.client.list(Deployment, namespace=ns))
