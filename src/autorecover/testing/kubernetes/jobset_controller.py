"""The JobSet controller (`sigs.k8s.io/jobset`) in the test control plane, with its webhooks.

Built by `scripts/kube-binaries jobset` (cached beside the other binaries) and started once
per session by the first test that asks (`KubeTestCluster.start_jobset`), so the tests that
never use JobSets pay nothing:

- its CRD, from the same module version as the binary;
- kube-controller-manager again, now with `job-controller`: JobSet makes batch Jobs and the
  job controller makes their pods;
- the manager, configured by file: no leader election, its internal certificate management
  off (it would wait for a Service to exist), its webhook server on a free loopback port
  serving the API server's own certificate;
- its JobSet webhooks registered by URL (there is no Service network here): the mutating one
  defaults a JobSet as an installation does, and the validating one refuses what an
  installation refuses, notably any change to `spec.replicatedJobs` except, while the JobSet
  is suspended, the pod templates' labels, annotations, node selector, tolerations and
  scheduling gates. Its pod webhooks (exclusive placement only) are not registered.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from autorecover.testing.kubernetes.cluster import (
    ClusterError,
    KubeTestCluster,
    build_binaries,
    free_port,
)

JOBSET_VERSION = "v0.10.1"  # scripts/kube-binaries' JOBSET_VERSION
PROCESS = "jobset-controller"
WEBHOOKS = {
    "MutatingWebhookConfiguration": ("autorecover-test-jobset-mutating", "mjobset.kb.io",
                                     "/mutate-jobset-x-k8s-io-v1alpha2-jobset", ["CREATE"]),
    "ValidatingWebhookConfiguration": ("autorecover-test-jobset-validating", "vjobset.kb.io",
                                       "/validate-jobset-x-k8s-io-v1alpha2-jobset",
                                       ["CREATE", "UPDATE"]),
}  # fmt: skip


def start(cluster: KubeTestCluster) -> None:
    """CRD, job controller, the JobSet manager and its webhooks; `ClusterError` with the log."""
    if PROCESS in cluster.processes:
        return
    import yaml

    build_binaries(extras=("jobset",))
    home = cluster.binaries / f"jobset-{JOBSET_VERSION}"
    if not (home / "manager").exists():
        raise ClusterError(f"{home}/manager missing: scripts/kube-binaries jobset built "
                           "another version")  # fmt: skip
    crd = yaml.safe_load((home / "crds" / "jobset.x-k8s.io_jobsets.yaml").read_text())
    cluster.apply(crd)
    cluster._wait(
        "the JobSet CRD established",
        lambda: cluster.get("/apis/jobset.x-k8s.io/v1alpha2/jobsets") is not None,
    )
    cluster.start_controller_manager("job-controller")

    certs = cluster.base / "jobset-certs"
    certs.mkdir(exist_ok=True)
    for src, dst in (("apiserver.crt", "tls.crt"), ("apiserver.key", "tls.key")):
        (certs / dst).write_bytes(cluster.pki.path(src).read_bytes())
    port = free_port()
    config = cluster.base / "jobset-config.yaml"
    config.write_text(json.dumps({  # JSON is YAML
        "apiVersion": "config.jobset.x-k8s.io/v1alpha1", "kind": "Configuration",
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "webhook": {"port": port, "host": "127.0.0.1", "certDir": str(certs)},
        "metrics": {"bindAddress": "0"},
        "health": {"healthProbeBindAddress": "0"},
    }))  # fmt: skip
    cluster._spawn(PROCESS, [str(home / "manager"), "--kubeconfig", str(cluster.kubeconfig),
                             "--config", str(config), "--zap-log-level=info"],
                   binary=False)  # fmt: skip
    ca = base64.b64encode(cluster.pki.path("ca.crt").read_bytes()).decode()
    for kind, (name, hook, path, operations) in WEBHOOKS.items():
        cluster.apply({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": name},
            "webhooks": [{
                "name": hook, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                "failurePolicy": "Fail",
                "clientConfig": {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca},
                "rules": [{"apiGroups": ["jobset.x-k8s.io"], "apiVersions": ["v1alpha2"],
                           "operations": operations, "resources": ["jobsets"]}],
            }],
        })  # fmt: skip
    cluster._wait("the JobSet webhooks answering", _admits(cluster), PROCESS)
    cluster._save_state()


def _admits(cluster: KubeTestCluster) -> Callable[[], bool]:
    """A check: a JobSet passes both webhooks in a server-side dry run."""
    probe = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "webhook-probe", "namespace": "default"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
            "template": {"spec": {"restartPolicy": "Never",
                                  "containers": [{"name": "c", "image": "x"}]}}}}}]},
    }  # fmt: skip

    def check() -> bool:
        try:
            admitted = cluster.apply(probe, dry_run=True)
        except ClusterError:
            return False
        # the mutating webhook ran: it defaults the success policy
        return bool(admitted.get("spec", {}).get("successPolicy"))

    return check
