"""Golden lines from sweep 8 over what Kubernetes batch and gang-scheduling layers say about a
training job, as users paste it into threads: Volcano's scheduler and job controller,
LeaderWorkerSet, Kueue, KubeRay, the MPI Operator, the Kubeflow training-operator, JobSet's
failure policy, the KAI scheduler, Karpenter and the cluster autoscaler.

Each line is cited beside it (or said to be rendered from its emitter's format) and goes through
the scanner's own matcher; the blame is pinned to what the line's emitter means (a gang or a
quota that keeps the job waiting, a controller restating a replica's failure or a spent restart
budget: symptoms; an eviction, preemption or consolidation by the cluster: transient; a custom
resource the operator's validation rejects: the application's). Healthy look-alikes (a pod
placed, a workload admitted, a completion action, a scale-up triggered) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FAMILY = "signatures-batchops.toml"
NAMESPACES = frozenset(
    [
        "volcano",
        "lws",
        "kueue",
        "kuberay",
        "mpijob",
        "trainjob",
        "jobset",
        "kai",
        "karpenter",
        "autoscaler",
    ]
)

BLAME: dict[str, Blame] = {
    "volcano.podgroup_not_ready": Blame.SYMPTOM,
    "volcano.queue_quota": Blame.SYMPTOM,
    "volcano.policy_action": Blame.SYMPTOM,
    "volcano.action_retry_exhausted": Blame.SYMPTOM,
    "volcano.scheduler_evicted": Blame.TRANSIENT,
    "lws.group_recreate": Blame.SYMPTOM,
    "kueue.workload_deactivated": Blame.SYMPTOM,
    "kueue.admission_check_rejected": Blame.SYMPTOM,
    "kueue.unhealthy_node_eviction": Blame.TRANSIENT,
    "kueue.max_execution_time": Blame.SYMPTOM,
    "kuberay.head_pod_lost": Blame.SYMPTOM,
    "kuberay.deadline_exceeded": Blame.SYMPTOM,
    "kuberay.job_status_unreachable": Blame.SYMPTOM,
    "kuberay.invalid_spec": Blame.APPLICATION,
    "kuberay.entrypoint_failed": Blame.SYMPTOM,
    "mpijob.workers_evicted": Blame.TRANSIENT,
    "mpijob.failed": Blame.SYMPTOM,
    "trainjob.backoff_limit": Blame.SYMPTOM,
    "trainjob.active_deadline": Blame.SYMPTOM,
    "trainjob.replica_error": Blame.SYMPTOM,
    "jobset.failure_policy_action": Blame.SYMPTOM,
    "kai.quota_refused": Blame.SYMPTOM,
    "kai.consolidation_evicted": Blame.TRANSIENT,
    "kai.gang_eviction": Blame.SYMPTOM,
    "karpenter.nodeclaim_disrupted": Blame.TRANSIENT,
    "karpenter.no_capacity": Blame.SYMPTOM,
    "autoscaler.no_scale_up": Blame.SYMPTOM,
    "autoscaler.scale_up_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- Volcano ---
    # volcano-sh/volcano issue #4311 (a pod's event from an under-resourced queue)
    (
        "  Warning  FailedScheduling  4m31s  volcano  pod group is not ready, 1 Pending, "
        "1 minAvailable; Pending: 1 Unschedulable",
        "volcano.podgroup_not_ready",
        {"pending": "1", "min_available": "1"},
    ),
    # volcano-sh/volcano issue #1094 (kubectl describe pg) and issue #604 (the same as YAML)
    ("    Reason:                NotEnoughResources", "volcano.podgroup_not_ready", {}),
    ("    reason: NotEnoughResources", "volcano.podgroup_not_ready", {}),
    # volcano-sh/volcano issues #4479, #3198 and #3220 (the queue's quota keeps the job out)
    (
        "  Normal   Unschedulable  15s (x13 over 28s)  volcano  queue resource quota insufficient",
        "volcano.queue_quota",
        {"what": "queue resource quota insufficient"},
    ),
    (
        "- podGroup event：Normal   Unschedulable  92s (x13 over 105s)  volcano  queue resource "
        "quota insufficient",
        "volcano.queue_quota",
        {},
    ),
    ("queue resource quota insufficient", "volcano.queue_quota", {}),
    # rendered from the proportion plugin's FormatResourceNames (the resource named)
    (
        "  Normal   Unschedulable  2m  volcano  queue resource quota insufficient: insufficient "
        "nvidia.com/gpu",
        "volcano.queue_quota",
        {"resource": "nvidia.com/gpu"},
    ),
    # volcano-sh/volcano issue #4814 (a PodEvicted -> RestartTask policy at work)
    (
        "I1215 12:28:18.432174       1 job_controller.go:356] Try to handle request <Queue: , "
        "Job: default/vjtest, Task:task0, Pod:vjtest-task0-1, Event:PodEvicted, ExitCode:0, "
        "Action:, JobVersion: 0>",
        "volcano.policy_action",
        {"event": "PodEvicted", "exit_code": "0"},
    ),
    (
        "I1215 12:28:18.432203       1 job_controller.go:385] Execute <RestartTask> on Job "
        "<default/vjtest> in <Running> by <*state.runningState>.",
        "volcano.policy_action",
        {"klog_action": "RestartTask", "job": "default/vjtest"},
    ),
    (
        'I1215 12:28:18.432592       1 event.go:377] Event(v1.ObjectReference{Kind:"Job", '
        'Namespace:"default", Name:"vjtest", UID:"d95e4746-3074-47ce-856f-34d314a0bda1", '
        'APIVersion:"batch.volcano.sh/v1alpha1", ResourceVersion:"21658", FieldPath:""}): type: '
        "'Normal' reason: 'ExecuteAction' Start to execute action RestartTask",
        "volcano.policy_action",
        {"action": "RestartTask"},
    ),
    # rendered from job_controller.go (a delayed policy action)
    (
        "  Normal   ExecuteAction  1m  vc-controller-manager  Execute action RestartJob after 10s",
        "volcano.policy_action",
        {"delayed_action": "RestartJob", "delay": "10s"},
    ),
    # rendered from job_controller.go handleJobError
    (
        "  Normal   ExecuteAction  3m  vc-controller-manager  Job failed on action RestartJob for "
        "retry limit reached",
        "volcano.action_retry_exhausted",
        {"action": "RestartJob"},
    ),
    # rendered from the scheduler cache's defaultEvictor (preempt and reclaim actions)
    (
        "  Warning  Evict      12s   volcano  Pod is evicted, because of reclaim",
        "volcano.scheduler_evicted",
        {"reason": "reclaim"},
    ),
    (
        "  Warning  Evict      40s   volcano  Pod is evicted, because of preempt",
        "volcano.scheduler_evicted",
        {"reason": "preempt"},
    ),
    # --- LeaderWorkerSet ---
    # kubernetes-sigs/lws issue #998 (the group index rendered from the format)
    (
        "19:42:52  Worker pod lws-0-1 failed, deleted leader pod lws-0 to recreate group 0",
        "lws.group_recreate",
        {"worker": "lws-0-1", "leader": "lws-0", "group": "0"},
    ),
    # --- Kueue ---
    # kubernetes-sigs/kueue pull request #2219 (the condition message it introduced)
    (
        "When the workload is deactivated by exceeding the backoffLimitCount, the workload is "
        "added the `The workload is deactivated due to exceeding the maximum number of re-queuing "
        "retries`.",
        "kueue.workload_deactivated",
        {"cause": "exceeding the maximum number of re-queuing retries"},
    ),
    # rendered from kueue's Requeued condition reason (workload_controller.go)
    (
        "    reason: DeactivatedDueToRequeuingLimitExceeded",
        "kueue.workload_deactivated",
        {"reason": "DeactivatedDueToRequeuingLimitExceeded"},
    ),
    # rendered from workload_controller.go reconcileCheckBasedEviction
    (
        "  Warning  AdmissionCheckRejected  10s  kueue-workload-controller  Deactivated due to "
        'AdmissionCheck in Rejected state: "dws-prov" (Provisioning request failed)',
        "kueue.admission_check_rejected",
        {"verdict": "Deactivated", "state": "Rejected", "check": "dws-prov"},
    ),
    (
        "    message: 'Evicted due to AdmissionCheck in Retry state: \"multikueue\"'",
        "kueue.admission_check_rejected",
        {"verdict": "Evicted", "state": "Retry", "check": "multikueue"},
    ),
    # rendered from scheduler.go (topology-aware node replacement)
    (
        "Workload was evicted as there was no replacement for unhealthy node(s): "
        "gke-tas-pool-a3-5c6e",
        "kueue.unhealthy_node_eviction",
        {"nodes": "gke-tas-pool-a3-5c6e"},
    ),
    # rendered from workload_controller.go (maximumExecutionTimeSeconds)
    (
        "  Warning  MaximumExecutionTimeExceeded  5s  kueue-workload-controller  The maximum "
        "execution time (3600s) exceeded",
        "kueue.max_execution_time",
        {"seconds": "3600"},
    ),
    # --- KubeRay ---
    # ray-project/kuberay pull request #4080 (the RayJob message when the head pod is gone)
    (
        "    message: Ray head pod is terminated, and sidecar mode's restart policy is never.",
        "kuberay.head_pod_lost",
        {},
    ),
    # rendered from rayjob_controller.go and raycluster_controller.go
    ("  message: Ray head pod not found.", "kuberay.head_pod_lost", {}),
    (
        "  Normal   DeletedHeadPod  2m  raycluster-controller  Deleted head Pod "
        "default/raycluster-kuberay-head-x7k2p; Pod status: Failed; Pod restart policy: Never; "
        "Ray container terminated status: &ContainerStateTerminated{ExitCode:137,}",
        "kuberay.head_pod_lost",
        {"pod": "default/raycluster-kuberay-head-x7k2p", "phase": "Failed"},
    ),
    # ray-project/kuberay issue #1489 (a RayJob stuck after its head pod was preempted)
    ("  jobDeploymentStatus: FailedToGetJobStatus", "kuberay.job_status_unreachable", {}),
    # rendered from rayjob_controller.go (JobStatusCheckTimeoutExceeded)
    (
        "  message: Job status checks have been failing since 2025-06-01 10:02:11; exceeded "
        "timeout of 900s",
        "kuberay.job_status_unreachable",
        {"timeout": "900"},
    ),
    # rendered from validation.go (ray-project/kuberay issue #3980: a RayJob name too long)
    (
        "The RayJob metadata is invalid: RayJob name should be no more than 47 characters",
        "kuberay.invalid_spec",
        {"kind": "Job", "part": "metadata"},
    ),
    # rendered from the InvalidRayJobSpec event (ray-project/kuberay pull request #2441)
    (
        "  Warning  InvalidRayJobSpec  3s  rayjob-controller  The RayJob spec is invalid: one of "
        "RayClusterSpec or ClusterSelector must be set",
        "kuberay.invalid_spec",
        {"kind": "Job", "part": "spec"},
    ),
    # rendered from rayjob_controller.go (the two deadlines)
    (
        "  message: 'The RayJob has passed the preRunningDeadlineSeconds. StartTime: 2025-03-01 "
        "10:02:11 +0000 UTC. PreRunningDeadlineSeconds: 300'",
        "kuberay.deadline_exceeded",
        {"deadline": "preRunningDeadlineSeconds"},
    ),
    # rendered from rayjob_controller.go (a restarted head that forgot the job)
    (
        "  message: Submitter completed but Ray job not found in RayCluster.",
        "kuberay.head_pod_lost",
        {},
    ),
    # ray-project/ray issue #40768 (the job manager's status message, relayed into the RayJob)
    (
        "Job entrypoint command failed with exit code -11, last available logs (truncated to "
        "20,000 chars):",
        "kuberay.entrypoint_failed",
        {"code": "-11"},
    ),
    # rendered from ray's job_supervisor.py (the same failure in the supervisor's log)
    (
        "2025-09-01 03:14:31,512\tERROR job_supervisor.py:196 -- Job entrypoint command failed "
        "with exit code 1",
        "kuberay.entrypoint_failed",
        {"code": "1"},
    ),
    # --- MPI Operator ---
    # kubeflow/mpi-operator issue #647 (one of eight workers evicted)
    ("    message: 1/8 workers are evicted", "mpijob.workers_evicted", {"evicted": "1"}),
    ("    reason: MPIJobEvicted", "mpijob.workers_evicted", {}),
    # rendered from mpi_job_controller.go
    (
        "    message: MPIJob default/tensorflow-mnist has failed",
        "mpijob.failed",
        {"job": "default/tensorflow-mnist"},
    ),
    (
        "  Warning  MPIJobFailed  5s  mpi-job-controller  worker pod created failed: pods "
        '"pi-worker-1" is forbidden: exceeded quota: gpu-quota',
        "mpijob.failed",
        {"role": "worker"},
    ),
    # --- Kubeflow training-operator ---
    # rendered from pkg/controller.v1/common/job.go (a public AscendJob guide shows the same text)
    (
        '    message: "Job test-job has failed because it has reached the specified backoff limit"',
        "trainjob.backoff_limit",
        {"kind": "Job", "job": "test-job"},
    ),
    (
        '    message: "PyTorchJob bert-pretrain has failed because it was active longer than '
        'specified deadline"',
        "trainjob.active_deadline",
        {"kind": "PyTorchJob", "job": "bert-pretrain"},
    ),
    # rendered from kubeflow/trainer pkg/constants (TrainJob's own deadline)
    ("    message: TrainJob exceeded its active deadline", "trainjob.active_deadline", {}),
    # kubeflow/trainer issue #2008 (the training-operator's Error event for a replica)
    (
        "1.708507856644096e+09\tDEBUG\tevents\tError pod pytorch-simple-worker-0 container "
        'pytorch exitCode: 1 terminated message: \t{"type": "Warning", "object": '
        '{"kind":"PyTorchJob","namespace":"kubeflow","name":"pytorch-simple"}, "reason": "Error"}',
        "trainjob.replica_error",
        {"pod": "pytorch-simple-worker-0", "container": "pytorch", "code": "1"},
    ),
    # --- JobSet ---
    # kubernetes-sigs/jobset issue #1219 (the RestartJobSet rule's message)
    (
        "    message: applying RestartJobSet failure policy action (first failed job: "
        "jobset-rj-0-0)",
        "jobset.failure_policy_action",
        {"action": "RestartJobSet", "job": "jobset-rj-0-0"},
    ),
    # rendered from pkg/constants (the event reason the same issue names)
    (
        "12s  Warning  RestartJobSetFailurePolicyAction  jobset/js  applying "
        "RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: js-w-0)",
        "jobset.failure_policy_action",
        {"action": "RestartJobSetAndIgnoreMaxRestarts", "job": "js-w-0"},
    ),
    # --- KAI scheduler ---
    # kai-scheduler/KAI-Scheduler issue #2209 (a fractional-GPU workload over quota)
    (
        "Non-preemptible workload is over quota. Workload requested 0.2 GPUs, but aafa quota is "
        "0.3 GPUs, while 0.1 GPUs are already allocated for non-preemptible pods.",
        "kai.quota_refused",
        {"requested": "0.2", "resource": "GPUs", "queue": "aafa"},
    ),
    # rendered from unschedule_info.go (a queue at its limit)
    (
        "  Normal  Unschedulable  1m  kai-scheduler  team-a quota has reached the allowable limit "
        "of GPUs. Limit is 8 GPUs, currently 8 GPUs allocated and workload requested 4 GPUs",
        "kai.quota_refused",
        {"limit_queue": "team-a", "limit_resource": "GPUs"},
    ),
    (
        "  Normal  Evict  30s  kai-scheduler  Pod team-a/train-worker-3 was preempted and "
        "rescheduled due to bin packing (resource consolidation) procedure",
        "kai.consolidation_evicted",
        {"pod": "team-a/train-worker-3"},
    ),
    (
        "Workload doesn't have the minimum required number of pods (8), evicting remaining pod: "
        "team-a/train-worker-5",
        "kai.gang_eviction",
        {"minimum": "8", "pod": "team-a/train-worker-5"},
    ),
    # --- Karpenter ---
    # aws/karpenter-provider-aws issue #4758 (the v0.31 deprovisioning controller)
    (
        "2023-10-06T12:16:21.132Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via "
        "consolidation delete, terminating 5 machines ip-10-11-2-6.us-west-2.compute.internal/"
        "t3.xlarge/spot, ip-10-11-5-164.us-west-2.compute.internal/t3.xlarge/spot",
        "karpenter.nodeclaim_disrupted",
        {"method": "consolidation delete", "count": "5"},
    ),
    # rendered from pkg/controllers/disruption/events (the NodeClaim's DisruptionTerminating)
    (
        "  Normal  DisruptionTerminating  2m  karpenter  Disrupting NodeClaim: Underutilized",
        "karpenter.nodeclaim_disrupted",
        {"reason": "Underutilized"},
    ),
    # aws/karpenter-provider-aws issue #6643 (GPU NodeClaims that could not launch)
    (
        '{"level":"ERROR","time":"2024-08-04T21:21:43.196Z","logger":"controller","message":'
        '"failed launching nodeclaim","commit":"490ef94","controller":"nodeclaim.lifecycle",'
        '"NodeClaim":{"name":"gpu-g5-4-kpxk7"},"error":"insufficient capacity, all requested '
        'instance types were unavailable during launch"}',
        "karpenter.no_capacity",
        {},
    ),
    # aws/karpenter-provider-aws issue #5527 (no GPU instance type fits the NodePool)
    (
        '{"level":"ERROR","time":"2024-01-25T11:31:43.932Z","logger":"controller.provisioner",'
        '"message":"Could not schedule pod, incompatible with nodepool \\"gpu\\", daemonset '
        'overhead={\\"cpu\\":\\"185m\\",\\"memory\\":\\"240Mi\\",\\"pods\\":\\"6\\"}',
        "karpenter.no_capacity",
        {},
    ),
    # --- Cluster autoscaler ---
    # kubernetes/autoscaler issue #2506 (a GPU pool on EKS)
    (
        'event.go:209] Event(v1.ObjectReference{Kind:"Pod", Namespace:"default", '
        'Name:"gpu3-5vrjp", UID:"cf6affef-fc40-11e9-ab2d-12c6abee5b20", APIVersion:"v1", '
        "ResourceVersion:\"180529\", FieldPath:\"\"}): type: 'Normal' reason: 'NotTriggerScaleUp' "
        "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 6 Insufficient "
        "nvidia.com/gpu",
        "autoscaler.no_scale_up",
        {"reason": "6 Insufficient nvidia.com/gpu"},
    ),
    # kubernetes/autoscaler issue #929 (scale-up from zero GPU nodes)
    (
        'I0605 11:27:30.008919       1 factory.go:33] Event(v1.ObjectReference{Kind:"Pod", '
        'Namespace:"default", Name:"simple-gpu-test-6f48d9555d-l9822", '
        'UID:"3416d787-68b3-11e8-8e8f-0639a6e973b0", APIVersion:"v1", ResourceVersion:"12429157", '
        "FieldPath:\"\"}): type: 'Normal' reason: 'NotTriggerScaleUp' pod didn't trigger scale-up "
        "(it wouldn't fit if a new node is added)",
        "autoscaler.no_scale_up",
        {},
    ),
    # cortexlabs/cortex issue #1685 (a GPU quota exceeded on GCP)
    (
        "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 in backoff after "
        "failed scale-up",
        "autoscaler.no_scale_up",
        {"reason": "1 in backoff after failed scale-up"},
    ),
    # 2i2c-org/infrastructure issue #2185 (the newer per-node-group reasons)
    (
        "2023-02-08T18:24:48Z [Normal] pod didn't trigger scale-up: 1 node(s) didn't match Pod's "
        "node affinity/selector, 1 node(s) had taint {k8s.dask.org_dedicated: worker}, that the "
        "pod didn't tolerate, 1 in backoff after failed scale-up",
        "autoscaler.no_scale_up",
        {},
    ),
    # huggingface/Google-Cloud-Containers issue #126 (a GKE Autopilot GPU pod)
    (
        "There's this error Node scale up in zones us-central1-c associated with this pod failed: "
        "GCE quota exceeded. Pod is at risk of not being scheduled.",
        "autoscaler.scale_up_failed",
        {"zones": "us-central1-c", "reason": "GCE quota exceeded"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the gang-prefixed form is cloud.volcano_gang_unschedulable's; a ready pod group is healthy
    (
        "volcano.podgroup_not_ready",
        "  Warning  Unschedulable  6m18s (x12 over 6m29s)  volcano  1/1 tasks in gang "
        "unschedulable: pod group is not ready, 1 Pending, 1 minAvailable; Pending: 1 "
        "Unschedulable",
    ),
    ("volcano.podgroup_not_ready", "  Normal   Scheduled  5s  volcano  pod group is ready"),
    ("volcano.podgroup_not_ready", "  Phase:                   Inqueue"),
    # a pod placed by Volcano
    (
        "volcano.scheduler_evicted",
        "  Normal   Scheduled  10s  volcano  Successfully assigned default/job-1-nginx-0 to node-1",
    ),
    # a task completing the job, and the controller's own sync
    (
        "volcano.policy_action",
        "type: 'Normal' reason: 'ExecuteAction' Start to execute action CompleteJob",
    ),
    (
        "volcano.policy_action",
        "I1215 12:28:18.432174       1 job_controller.go:356] Try to handle request <Queue: , "
        "Job: default/vjtest, Task:, Pod:, Event:OutOfSync, ExitCode:0, Action:, JobVersion: 0>",
    ),
    # LWS creating the group's workers
    (
        "lws.group_recreate",
        "  Normal  GroupsProgressing  3s  lws  Created worker statefulset for leader pod lws-0",
    ),
    # Kueue admitting and reactivating a workload
    (
        "kueue.workload_deactivated",
        "  Normal  Admitted  65s (x2 over 3m5s)  kueue-admission  Admitted by ClusterQueue "
        "cluster-queue, wait time since reservation was 0s",
    ),
    ("kueue.workload_deactivated", "    message: The workload is reactivated"),
    (
        "kueue.admission_check_rejected",
        "    message: 'AdmissionCheck in Ready state: \"dws-prov\"'",
    ),
    # KubeRay's own status check, and a cluster coming up
    (
        "kuberay.invalid_spec",
        "The RayJob status is invalid: JobDeploymentStatus cannot be `Waiting` when "
        "SubmissionMode is not InteractiveMode",
    ),
    ("kuberay.head_pod_lost", "    message: RayCluster Pods are being provisioned for first time"),
    ("kuberay.job_status_unreachable", "  jobDeploymentStatus: Running"),
    # a Ray job that succeeded; a replica that is still running
    ("kuberay.entrypoint_failed", "Job 'raysubmit_73nQ2jgcpZATWrNN' succeeded"),
    (
        "trainjob.replica_error",
        'time="2024-02-21T09:31:59Z" level=info msg="PyTorchJob=pytorch-simple, ReplicaType=Master '
        'expected=1, running=1, succeeded=0, failed=0, Replicas=1"',
    ),
    # the MPI Operator's healthy conditions
    ("mpijob.failed", "    message: MPIJob default/tensorflow-mnist is running."),
    ("mpijob.workers_evicted", "    message: MPIJob default/tensorflow-mnist is created."),
    # a training job completing or suspended
    ("trainjob.backoff_limit", "    message: TrainJob is suspended"),
    ("jobset.failure_policy_action", "    message: jobset completed successfully"),
    # KAI placing a pod; preemption and reclaim are k8s.preempted's
    (
        "kai.quota_refused",
        "  Normal   Scheduled  10s  kai-scheduler  Successfully assigned kaitest/cpu-only-pod to "
        "kind-worker",
    ),
    (
        "kai.consolidation_evicted",
        "Pod team-a/train-worker-3 was preempted by higher priority workload team-b/serve",
    ),
    # Karpenter launching the replacement, blocked disruption, a nomination
    (
        "karpenter.nodeclaim_disrupted",
        "  Normal  DisruptionLaunching  2m  karpenter  Launching NodeClaim: Underutilized",
    ),
    (
        "karpenter.nodeclaim_disrupted",
        '"reason":"DisruptionBlocked","eventMessage":"Cannot disrupt Node: Pod '
        '\\"default/cdp-default\\" has \\"karpenter.sh/do-not-disrupt\\" annotation"',
    ),
    (
        "karpenter.no_capacity",
        "  Normal   Nominated  6m21s  karpenter  Pod should schedule on: "
        "nodeclaim/default-uswest2aprod-mf7bc",
    ),
    # the autoscaler scaling up for the pod
    (
        "autoscaler.no_scale_up",
        "  Normal   TriggeredScaleUp  3m5s  cluster-autoscaler  pod triggered scale-up: "
        "[{aks-gpunp-98036146-vmss 1->2 (max: 2)}]",
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
) = family_contract(
    {FAMILY: NAMESPACES},
    BLAME,
)


def test_no_entry_acts_on_a_node() -> None:
    """A batch layer's word never names a faulty node: no entry of the family acts on one."""
    for key in family_keys(FAMILY):
        assert CATALOG.signatures[key].node_action.value == "none", key


def test_restatements_and_waits_decide_nothing() -> None:
    """A gang waiting, a quota refusal or a controller restating a failure is weak evidence."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            assert CATALOG.signatures[key].weight <= 15, key


def test_the_clusters_own_evictions_are_a_plain_requeue() -> None:
    """An eviction, preemption or consolidation by the cluster: transient, in 55-65."""
    for key, blame in BLAME.items():
        if blame is Blame.TRANSIENT:
            assert 55 <= CATALOG.signatures[key].weight <= 65, key


def test_a_gang_line_already_read_is_not_read_twice() -> None:
    """Volcano's gang-prefixed event stays cloud.volcano_gang_unschedulable's alone."""
    line = (
        "  Warning  PodGroupPending  7m43s  vc-controller-manager  PodGroup default:job-sample "
        "unschedule,reason: 1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, "
        "1 minAvailable; Pending: 1 Unschedulable"
    )
    found = hits(line)
    assert "cloud.volcano_gang_unschedulable" in found
    assert not set(found) & family_keys(FAMILY)
