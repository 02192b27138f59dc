"""Kubeflow Trainer v2 (`github.com/kubeflow/trainer/v2`) in the test control plane.

Built by `scripts/kube-binaries trainer` and started once per session by the first test
that asks (`KubeTestCluster.start_trainer`), after JobSet (a TrainJob runs as a JobSet):

- its CRDs (TrainJob, TrainingRuntime, ClusterTrainingRuntime) from the same module version;
- its namespace (`kubeflow-system`, its default when no service-account namespace file is
  mounted), the Secret its certificate rotator fills and an empty
  `ValidatingWebhookConfiguration` for the rotator to inject its CA into: as for the training
  operator, no Service network reaches its webhook here, so none is registered and the
  API server admits TrainJobs without Trainer's validation;
- the manager (its webhook server on a free port, metrics and probes off);
- two ClusterTrainingRuntimes made from the module's `torch-distributed`, with Jobs that fail
  on a pod's failure (`backoffLimit: 0`, `restartPolicy: Never`, as the tests' JobSets):
  `torch-fail-fast`, and `torch-fail-fast-kai` with `schedulerName: kai-scheduler` (a
  TrainJob cannot name a scheduler itself).
"""

from __future__ import annotations

import copy

from autorecover.testing.kubernetes.cluster import (
    ClusterError,
    KubeTestCluster,
    build_binaries,
    free_port,
    place_webhook_certs,
)

TRAINER_VERSION = "v2.0.0"  # scripts/kube-binaries' TRAINER_VERSION
PROCESS = "trainer-controller"
NAMESPACE = "kubeflow-system"
RUNTIME, KAI_RUNTIME = "torch-fail-fast", "torch-fail-fast-kai"


def start(cluster: KubeTestCluster) -> None:
    """CRDs, the manager and two runtimes; `ClusterError` with the log."""
    if PROCESS in cluster.processes:
        return
    import yaml

    cluster.start_jobset()
    build_binaries(extras=("trainer",))
    home = cluster.binaries / f"trainer-{TRAINER_VERSION}"
    if not (home / "manager").exists():
        raise ClusterError(f"{home}/manager missing: scripts/kube-binaries trainer built "
                           "another version")  # fmt: skip
    for crd in sorted((home / "crds").glob("trainer.kubeflow.org_*.yaml")):
        cluster.apply(yaml.safe_load(crd.read_text()))
    for api in ("trainjobs", "clustertrainingruntimes"):
        cluster._wait(f"trainer.kubeflow.org {api} served",
                      lambda a=api: cluster.get(f"/apis/trainer.kubeflow.org/v1alpha1/{a}")  # type: ignore[misc]
                      is not None)  # fmt: skip
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    secret = {"name": "kubeflow-trainer-webhook-cert", "namespace": NAMESPACE}
    cluster.apply({"apiVersion": "v1", "kind": "Secret", "metadata": secret})
    cluster.apply({"apiVersion": "admissionregistration.k8s.io/v1",
                   "kind": "ValidatingWebhookConfiguration",
                   "metadata": {"name": "validator.trainer.kubeflow.org"},
                   "webhooks": []})  # fmt: skip
    place_webhook_certs(cluster.pki.path("apiserver.crt"), cluster.pki.path("apiserver.key"))
    cluster._spawn(PROCESS, [str(home / "manager"), "--kubeconfig", str(cluster.kubeconfig),
                             f"--webhook-server-port={free_port()}",
                             "--health-probe-bind-address=0", "--metrics-bind-address=0"],
                   binary=False)  # fmt: skip
    module_runtime = yaml.safe_load((home / "crds" / "torch_distributed.yaml").read_text())
    for name, scheduler in ((RUNTIME, None), (KAI_RUNTIME, "kai-scheduler")):
        runtime = copy.deepcopy(module_runtime)
        runtime["metadata"]["name"] = name
        for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
            job["template"]["spec"]["backoffLimit"] = 0
            pod = job["template"]["spec"]["template"]["spec"]
            pod["restartPolicy"] = "Never"
            if scheduler:
                pod["schedulerName"] = scheduler
        cluster.apply(runtime)
    cluster._save_state()
