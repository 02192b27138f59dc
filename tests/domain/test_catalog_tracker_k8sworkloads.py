"""Golden lines from the Kubernetes workload-controller sweep (signatures-k8sworkloads.toml): the
API server's admission refusals of a training job's pods as the workload controllers relay them
(ResourceQuota, LimitRanger, PodSecurity, ServiceAccount, Priority), the scheduler's fit failures
that are not an accelerator shortage or a taint, the kubelet's rejection of a placed pod, node
objects deleted under the job, the Kubeflow training-operator's lower-case restart / fail lines,
Kueue's queue lookups and evictions, KubeRay's submitter and pod-creation messages, Volcano's PVC
and gang-waiting lines, JobSet's exclusive placement, Trainer v2's reconcile failure and the
controllers' completions.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format where no public paste was found (marked so), and goes through the scanner's own matcher.
Blame is pinned to what the emitter means: a spec admission refuses is the job's, a controller
restating a replica's failure or a pending pod a symptom below the collective weight, an eviction
by the queueing system transient. Look-alikes (healthy lines of the same emitters, and the lines
other families already read) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    golden_line_checks,
    hits,
)

FILE = "signatures-k8sworkloads.toml"
NAMESPACES = frozenset(
    {
        "k8sadmit",
        "k8ssched",
        "k8snode",
        "k8spod",
        "k8sjob",
        "kftrain",
        "kueue",
        "kuberay",
        "volcano",
        "jobset",
        "trainjob",
    }
)

BLAME: dict[str, Blame] = {
    "k8sadmit.quota_exceeded": Blame.SYMPTOM,
    "k8sadmit.quota_requires_limits": Blame.APPLICATION,
    "k8sadmit.podsecurity_violation": Blame.APPLICATION,
    "k8sadmit.limitrange_violation": Blame.APPLICATION,
    "k8sadmit.serviceaccount_missing": Blame.APPLICATION,
    "k8sadmit.priority_class_missing": Blame.APPLICATION,
    "k8ssched.no_fit": Blame.SYMPTOM,
    "k8sadmit.kubelet_rejected": Blame.SYMPTOM,
    "k8snode.object_removed": Blame.SYMPTOM,
    "k8spod.lifecycle_hook_failed": Blame.APPLICATION,
    "kftrain.replica_failed": Blame.SYMPTOM,
    "kftrain.nonretryable_exit": Blame.SYMPTOM,
    "kueue.local_queue_missing": Blame.APPLICATION,
    "kueue.queue_unavailable": Blame.SYMPTOM,
    "kueue.queue_stopped_eviction": Blame.TRANSIENT,
    "kueue.tas_node_failures_eviction": Blame.TRANSIENT,
    "kuberay.cluster_selector_missing": Blame.APPLICATION,
    "kuberay.create_failed": Blame.SYMPTOM,
    "kuberay.submitter_failed": Blame.SYMPTOM,
    "volcano.pod_create_failed": Blame.SYMPTOM,
    "volcano.pvc_missing": Blame.APPLICATION,
    "volcano.gang_member_waiting": Blame.SYMPTOM,
    "jobset.exclusive_placement_violation": Blame.SYMPTOM,
    "trainjob.resources_failed": Blame.SYMPTOM,
    "k8sjob.completed": Blame.INFO,
}

VOLCANO_3456 = (
    "Failed to create pod job-lhjob4-20240508150346338940-task-0 for Job "
    "job-lhjob4-20240508150346338940, err &errors.StatusError{ErrStatus:v1.Status{TypeMeta:"
    'v1.TypeMeta{Kind:"", APIVersion:""}, ListMeta:v1.ListMeta{SelfLink:"", ResourceVersion:"", '
    'Continue:"", RemainingItemCount:(*int64)(nil)}, Status:"Failure", Message:"pods '
    '\\"job-lhjob4-20240508150346338940-task-0\\" is forbidden: exceeded quota: '
    "naie-resource-job-quota, requested: requests.huawei.com/Ascend910=1, used: "
    'requests.huawei.com/Ascend910=1, limited: requests.huawei.com/Ascend910=1", Reason:'
    '"Forbidden", Details:(*v1.StatusDetails)(0x400057cde0), Code:403}}'
)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # volcano-sh/volcano issue #3456 (a vcjob's pod refused by an Ascend quota)
    (
        VOLCANO_3456,
        "k8sadmit.quota_exceeded",
        {
            "quota": "naie-resource-job-quota",
            "requested": "requests.huawei.com/Ascend910=1",
            "limited": "requests.huawei.com/Ascend910=1",
        },
    ),
    # dask/dask-kubernetes pull request #683 (the API's 403 body, quotes escaped)
    (
        'HTTP response body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        '"message":"pods \\"simple-job-default-worker-288aa47864\\" is forbidden: exceeded quota: '
        "default-quota, requested: requests.cpu=500m,requests.memory=500Mi, used: "
        'requests.cpu=1,requests.memory=1000Mi, limited: requests.cpu=1,requests.memory=1Gi",'
        '"reason":"Forbidden","details":{"name":"simple-job-default-worker-288aa47864","kind":'
        '"pods"},"code":403}',
        "k8sadmit.quota_exceeded",
        {
            "quota": "default-quota",
            "requested": "requests.cpu=500m,requests.memory=500Mi",
            "limited": "requests.cpu=1,requests.memory=1Gi",
        },
    ),
    # timescale/helm-charts issue #259 (job-controller FailedCreate)
    (
        "  Warning  FailedCreate  30m                job-controller  Error creating: pods "
        '"timescaledb-patroni-0u-kf7t9" is forbidden: failed quota: anais-quota: must specify '
        "limits.cpu,limits.memory",
        "k8sadmit.quota_requires_limits",
        {"quota": "anais-quota", "resources": "limits.cpu,limits.memory"},
    ),
    # haproxytech/helm-charts issue #236 (the newer per-container wording)
    (
        'Warning  FailedCreate  36s   job-controller  Error creating: pods "hap-operator-kubernetes-'
        'ingress-crdjob-1-6nxxb" is forbidden: failed quota: ingress-stack: must specify '
        "limits.cpu for: crd; limits.memory for: crd; requests.cpu for: crd; requests.memory for: "
        "crd</code>",
        "k8sadmit.quota_requires_limits",
        {"quota": "ingress-stack"},
    ),
    # kubeflow/kubeflow issue #7409 (a Kubeflow namespace's quota)
    (
        "53m         Warning   FailedCreate   replicaset/mnist-cnn-6bdd8cfc8   Error creating: pods "
        '"mnist-cnn-6bdd8cfc8-kxvsr" is forbidden: failed quota: kf-resource-quota: must specify '
        "cpu,memory",
        "k8sadmit.quota_requires_limits",
        {"quota": "kf-resource-quota", "resources": "cpu,memory"},
    ),
    # pulp/pulp-operator issue #1315 (job-controller, restricted:latest)
    (
        "  Warning  FailedCreate  5m43s (x34 over 3h23m)  job-controller  (combined from similar "
        'events): Error creating: pods "pulp-reset-admin-password-qph9d-7jfr2" is forbidden: '
        'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container '
        '"reset-admin-password" must set securityContext.allowPrivilegeEscalation=false)',
        "k8sadmit.podsecurity_violation",
        {"level": "restricted", "version": "latest", "checks": "allowPrivilegeEscalation != false"},
    ),
    # open-policy-agent/gatekeeper issue #2695 (a Job's hook pod, restricted:v1.24)
    (
        "Warning  FailedCreate  3m16s  job-controller  Error creating: pods "
        '"gatekeeper-update-crds-hook-rgzh6" is forbidden: violates PodSecurity "restricted:v1.24":'
        ' seccompProfile (pod or container "install-oneagent" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
        "k8sadmit.podsecurity_violation",
        {"level": "restricted", "version": "v1.24", "checks": "seccompProfile"},
    ),
    # zalando-incubator/kubernetes-on-aws issue #278 (replicaset-controller, older wording)
    (
        "  1m\t\t21s\t\t26\t{replicaset-controller }\t\t\tWarning\t\tFailedCreate\tError creating: "
        'pods "hjacobs-test-1668339668-" is forbidden: maximum cpu usage per Container is 16, but '
        "request is 17.",
        "k8sadmit.limitrange_violation",
        {"bound": "maximum", "resource": "cpu", "allowed": "16", "asked": "17"},
    ),
    # rendered from kubernetes plugin/pkg/admission/limitranger ("... but limit is %s")
    (
        'Error creating: pods "train-worker-0" is forbidden: maximum memory usage per Container is '
        "64Gi, but limit is 128Gi",
        "k8sadmit.limitrange_violation",
        {"resource": "memory", "allowed": "64Gi", "asked": "128Gi"},
    ),
    # FairwindsOps/goldilocks issue #173 (a Job's pod)
    (
        'Error creating: pods "goldilocks-vpa-install-" is forbidden: error looking up service '
        'account default/goldilocks-vpa-install: serviceaccount "goldilocks-vpa-install" not found',
        "k8sadmit.serviceaccount_missing",
        {"namespace": "default", "account": "goldilocks-vpa-install"},
    ),
    # fabric8io/fabric8 issue #5972 (the older wording)
    (
        'Error creating: pods "fluentd-" is forbidden: service account default/fluentd was not '
        "found, retry after the service account is created",
        "k8sadmit.serviceaccount_missing",
        {"old_namespace": "default", "old_account": "fluentd"},
    ),
    # openshift/origin pull request #23352 (a DaemonSet naming a missing PriorityClass)
    (
        "Nov 29 10:29:19.104 W ns/openshift-service-catalog-apiserver daemonset/apiserver Error "
        'creating: pods "apiserver-" is forbidden: no PriorityClass with name test was found',
        "k8sadmit.priority_class_missing",
        {"class": "test"},
    ),
    # rendered from kubernetes-sigs/kueue jobframework/reconciler.go (WorkloadPriorityClassNotFound)
    (
        "  Warning  WorkloadPriorityClassNotFound  2s  kueue-job-controller  WorkloadPriorityClass "
        '"high-priority" not found',
        "k8sadmit.priority_class_missing",
        {"workload_class": "high-priority"},
    ),
    # kyma-project/test-infra issue #8582 (FailedScheduling on a node selector)
    (
        "Warning  FailedScheduling   90s (x3 over 6m51s)    gke.io/optimize-utilization-scheduler  "
        "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling..",
        "k8ssched.no_fit",
        {"count": "4", "reason": "node(s) didn't match Pod's node affinity/selector"},
    ),
    # kubernetes/kubernetes issue #100400 (affinity and node selector)
    (
        "11s   Warning FailedScheduling pod/nmap     0/20 nodes are available: 1 node(s) didn't "
        "match pod affinity/anti-affinity, 19 node(s) didn't match node selector.",
        "k8ssched.no_fit",
        {"count": "1", "reason": "node(s) didn't match pod affinity/anti-affinity"},
    ),
    # kubernetes/kubernetes issue #109663 (pods left Failed after kubelet admission)
    ("Message:        Pod Predicate NodeAffinity failed", "k8sadmit.kubelet_rejected", {}),
    # rendered from kubernetes pkg/kubelet/lifecycle/predicate.go (OutOfcpu)
    (
        "  Warning  OutOfcpu  21s   kubelet  Node didn't have enough resource: cpu, requested: "
        "5000, used: 1450, capacity: 4000",
        "k8sadmit.kubelet_rejected",
        {"resource": "cpu", "requested": "5000", "capacity": "4000"},
    ),
    # rendered from kubernetes pkg/controller/nodelifecycle (RemovingNode) and podgc
    (
        "  Normal  RemovingNode  2m  node-controller  Node gpu-node-7 event: Removing Node "
        "gpu-node-7 from Controller",
        "k8snode.object_removed",
        {"node": "gpu-node-7"},
    ),
    ("      message: 'PodGC: node no longer exists'", "k8snode.object_removed", {}),
    (
        "I0301 04:12:09.551203       1 node_lifecycle_controller.go:184] Deleting node "
        "ip-10-0-12-7.ec2.internal because it does not exist in the cloud provider",
        "k8snode.object_removed",
        {"cloud_node": "ip-10-0-12-7.ec2.internal"},
    ),
    # rendered from kubernetes pkg/kubelet/lifecycle/handlers.go
    (
        "  Warning  FailedPostStartHook  12s  kubelet  Exec lifecycle hook ([/bin/sh -c "
        '/opt/setup.sh]) for Container "pytorch" in Pod "bert-worker-0_default(6e8f0c2d-1b1a-4f7e-'
        "9a0c-2d6c1c7f4b11)\" failed - error: command '/bin/sh -c /opt/setup.sh' exited with 1: , "
        'message: ""',
        "k8spod.lifecycle_hook_failed",
        {"container": "pytorch"},
    ),
    # rendered from kubeflow/trainer v1.9 pkg/controller.v1/common/pod.go
    (
        "0s   Warning   PyTorchJobRestarting      pytorchjob/ddp-demo   job ddp-demo is restarting "
        "because Worker replica(s) failed.",
        "kftrain.replica_failed",
        {"job": "ddp-demo", "verdict": "restarting", "rtype": "Worker"},
    ),
    (
        '  Warning  PyTorchJobFailed  3s  pytorchjob-controller  job "bert-pretrain" is failing '
        'because "Worker" replica(s) failed.',
        "kftrain.replica_failed",
        {"job": "bert-pretrain", "verdict": "failing", "rtype": "Worker"},
    ),
    (
        'I0307 10:22:41.118204       1 pod.go:367] Pod "kubeflow/bert-worker-3" has a '
        "non-retryable exit code. Failing job.",
        "kftrain.nonretryable_exit",
        {"pod": "kubeflow/bert-worker-3"},
    ),
    # kubernetes-sigs/kueue site docs tasks/troubleshooting/troubleshooting_jobs.md
    (
        "    message: LocalQueue user-queue doesn't exist",
        "kueue.local_queue_missing",
        {"queue": "user-queue"},
    ),
    # rendered from kubernetes-sigs/kueue workload_controller.go and scheduler.go
    (
        "    message: ClusterQueue cluster-queue is inactive",
        "kueue.queue_unavailable",
        {"queue": "cluster-queue", "state": "is inactive"},
    ),
    (
        "    message: LocalQueue team-a is stopped",
        "kueue.queue_unavailable",
        {"local_queue": "team-a", "local_state": "is stopped"},
    ),
    (
        "  Normal  EvictedDueToClusterQueueStopped  3s  kueue-workload-controller  The "
        "ClusterQueue is stopped",
        "kueue.queue_stopped_eviction",
        {"reason": "ClusterQueueStopped", "kind": "ClusterQueue"},
    ),
    # rendered from kubernetes-sigs/kueue pkg/controller/tas/node_controller.go
    (
        "  Normal  EvictedDueToNodeFailures  4s  kueue-tas-node-controller  Workload eviction "
        "triggered due to multiple TAS assigned node failures, including: gke-a3-pool-7c1f, "
        "gke-a3-pool-9d2e",
        "kueue.tas_node_failures_eviction",
        {"nodes": "gke-a3-pool-7c1f, gke-a3-pool-9d2e"},
    ),
    # a public KubeRay history-server walkthrough (kubectl describe rayjob)
    (
        "  Warning  RayClusterNotFound  15s (x13 over 35s)  rayjob-controller  RayCluster "
        "default/raycluster-historyserver set in the clusterSelector is not found. It must be "
        "created manually",
        "kuberay.cluster_selector_missing",
        {"cluster": "default/raycluster-historyserver"},
    ),
    # rendered from ray-project/kuberay raycluster_controller.go and rayjob_controller.go
    (
        "  Warning  FailedToCreateHeadPod  8s  raycluster-controller  Failed to create head Pod "
        "default/raycluster-gpu-head-4xq2z, Internal error occurred: failed calling webhook "
        '"mutate.kyverno.svc-fail": context deadline exceeded',
        "kuberay.create_failed",
        {"what": "head Pod", "object": "default/raycluster-gpu-head-4xq2z"},
    ),
    (
        "    message: 'Ray head pod container ray-job-submitter terminated with exit code 1: "
        "Error'",
        "kuberay.submitter_failed",
        {"container": "ray-job-submitter", "code": "1"},
    ),
    (
        "    message: The RayJob submitter finished at 2026-03-04 10:02:11 but the ray job did not "
        "reach terminal state within 30s",
        "kuberay.submitter_failed",
        {"timeout": "30s"},
    ),
    # rendered from volcano-sh/volcano job_controller_actions.go
    (
        "  Warning  FailedCreatePod  6s  vc-controller-manager  Error creating pods: [failed to "
        "create pod mpi-job-worker-3, err: Internal error occurred: failed calling webhook "
        '"validatepod.volcano.sh": context deadline exceeded]',
        "volcano.pod_create_failed",
        {"pod": "mpi-job-worker-3"},
    ),
    (
        "E0412 08:15:02.331870       1 job_controller.go:320] pvc imagenet-data is not found, the "
        "job will be in the Pending state until the PVC is created",
        "volcano.pvc_missing",
        {"pvc": "imagenet-data"},
    ),
    # volcano-sh/volcano design docs (the wording before the typo fix)
    (
        "Pod ns1/task-1 can possibly be assgined to node1, once minAvailable is satisfied",
        "volcano.gang_member_waiting",
        {"pod": "ns1/task-1", "node": "node1"},
    ),
    # rendered from volcano-sh/volcano pkg/scheduler/api/job_info.go
    (
        "Pod default/llm-worker-2 can possibly be assigned to gpu-node-4, once resource is "
        "released and minAvailable is satisfied",
        "volcano.gang_member_waiting",
        {"pod": "default/llm-worker-2", "node": "gpu-node-4"},
    ),
    # rendered from kubernetes-sigs/jobset pkg/constants
    (
        "    message: Pod violated JobSet exclusive placement policy",
        "jobset.exclusive_placement_violation",
        {},
    ),
    # rendered from kubeflow/trainer pkg/controller/trainjob_controller.go
    (
        "  Warning  TrainJobResourcesCreationFailed  5s  trainjob-controller  TrainJob resources "
        'reconciliation failed: trainingruntimes.trainer.kubeflow.org "torch-distributed" not found',
        "trainjob.resources_failed",
        {},
    ),
    # rendered from kubeflow/trainer v1.9 pytorchjob_controller.go and jobset pkg/constants
    (
        "  Normal  PyTorchJobSucceeded  38s  pytorchjob-controller  PyTorchJob pytorch-simple is "
        "successfully completed.",
        "k8sjob.completed",
        {"kind": "PyTorchJob", "job": "pytorch-simple"},
    ),
    ("    message: jobset completed successfully", "k8sjob.completed", {}),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # healthy training-operator events (volcano-sh/volcano issue #2534)
    (
        "kftrain.replica_failed",
        "  Normal  SuccessfulCreatePod      2m14s  pytorchjob-controller  Created pod: "
        "pytorch-simple2-master-0",
    ),
    # the capitalised per-kind form is cloud.kubeflow_replicas_failed's
    (
        "kftrain.replica_failed",
        "PyTorchJob kfto-01 is restarting because 1 Master replica(s) failed.",
    ),
    # a GPU shortage or a taint is the other families' (loft-sh/devpod-provider-kubernetes #63)
    (
        "k8ssched.no_fit",
        "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 Insufficient "
        "nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for "
        "scheduling, 3 No preemption victims found for incoming pod.",
    ),
    (
        "k8ssched.no_fit",
        "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: "
        "}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    ),
    (
        "k8ssched.no_fit",
        "  Normal  Scheduled  5s  default-scheduler  Successfully assigned default/x to node-1",
    ),
    # the accelerator form of the kubelet's rejection is k8sevent.admission_out_of_device's
    (
        "k8sadmit.kubelet_rejected",
        "  Warning  OutOfnvidia.com/gpu  2m  kubelet  Node didn't have enough resource: "
        "nvidia.com/gpu, requested: 1, used: 8, capacity: 8",
    ),
    # Kueue's healthy admission events
    (
        "kueue.queue_unavailable",
        "  Normal  QuotaReserved  5s  kueue-admission  Quota reserved in ClusterQueue "
        "cluster-queue, wait time since queued was 0s",
    ),
    (
        "kueue.queue_unavailable",
        "  Normal  Admitted  5s  kueue-admission  Admitted by ClusterQueue cluster-queue, wait "
        "time since reservation was 0s",
    ),
    ("kueue.queue_stopped_eviction", "The ClusterQueue was restarted after being stopped"),
    ("kueue.local_queue_missing", "LocalQueue user-queue is active"),
    # KubeRay's healthy creation events
    (
        "kuberay.create_failed",
        "  Normal  CreatedWorkerPod  8s  raycluster-controller  Created worker Pod default/raycluster-gpu-worker-x",
    ),
    (
        "kuberay.create_failed",
        "  Normal  CreatedRayJobSubmitter  3s  rayjob-controller  Created Kubernetes Job default/rayjob-sample",
    ),
    ("kuberay.submitter_failed", "Ray head pod container ray-head is running"),
    # the admission plugins' own healthy or unrelated lines
    (
        "k8sadmit.quota_exceeded",
        'Warning: would violate PodSecurity "restricted:latest": runAsNonRoot != true',
    ),
    (
        "k8sadmit.podsecurity_violation",
        'Warning: would violate PodSecurity "restricted:latest": runAsNonRoot != true',
    ),
    ("k8sadmit.serviceaccount_missing", "serviceaccount/default created"),
    ("k8sadmit.priority_class_missing", "priorityclass.scheduling.k8s.io/high-priority created"),
    (
        "volcano.pod_create_failed",
        "  Normal  SuccessfulCreate  6s  vc-controller-manager  Create pod mpi-job-worker-3",
    ),
    ("jobset.exclusive_placement_violation", "in order startup policy has completed"),
    ("k8sjob.completed", "PyTorchJob pytorch-simple is running."),
    (
        "k8snode.object_removed",
        "  Normal  RegisteredNode  2m  node-controller  Node gpu-node-7 event: Registered Node gpu-node-7 in Controller",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)


def test_no_workload_line_acts_on_a_node() -> None:
    """Controllers and admission plugins speak about the job's spec or the cluster, never a device."""
    assert_no_node_action(BLAME)
    for key in BLAME:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_restatements_stay_below_the_collective_weight() -> None:
    """A controller restating a replica's failure or a pending pod is not a collective complaint."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            assert CATALOG.signatures[key].weight < COLLECTIVE, key


def test_refusals_that_can_clear_never_decide_alone() -> None:
    """A used-up quota is a wait for capacity and a service account not yet created can clear on
    its own: neither decides, while a spec the admission plugins refuse every time decides as the
    job's."""
    assert CATALOG.signatures["k8sadmit.quota_exceeded"].blame is Blame.SYMPTOM
    assert CATALOG.signatures["k8sadmit.serviceaccount_missing"].weight < 50
    for key in (
        "k8sadmit.quota_requires_limits",
        "k8sadmit.podsecurity_violation",
        "k8sadmit.limitrange_violation",
        "k8sadmit.priority_class_missing",
    ):
        assert CATALOG.signatures[key].weight >= 50, key


def test_a_wrapped_refusal_reads_as_both_wrapper_and_cause() -> None:
    """A controller's FailedCreate relays the API's refusal: the wrapper is a symptom, the
    wrapped quota decides (volcano-sh/volcano issue #3456)."""
    found = hits(VOLCANO_3456)
    assert {"volcano.pod_create_failed", "k8sadmit.quota_exceeded"} <= set(found)
