"""Golden tests for the cloud and cluster lifecycle family (signatures-cloud.toml).

A node taken away on purpose (spot or preemptible reclaim, scheduled maintenance, autoscaler
scale-down, consolidation, scheduler preemption) is transient and names no one: real lines
(named beside each; a few are the providers' documented formats) must match, and the
handlers' and autoscalers' ordinary chatter must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-cloud.toml"
NAMESPACES = frozenset({"cloud"})

REQUIRED: dict[str, Blame] = {
    "cloud.aws_spot_interruption": Blame.TRANSIENT,
    "cloud.aws_batch_host_terminated": Blame.TRANSIENT,
    "cloud.aws_scheduled_event": Blame.TRANSIENT,
    "cloud.aws_rebalance_recommendation": Blame.INFO,
    "cloud.gce_preempted": Blame.TRANSIENT,
    "cloud.gce_host_maintenance": Blame.TRANSIENT,
    "cloud.gce_live_migration": Blame.TRANSIENT,
    "cloud.azure_scheduled_event": Blame.TRANSIENT,
    "cloud.azure_freeze": Blame.TRANSIENT,
    "cloud.k8s_autoscaler_scale_down": Blame.TRANSIENT,
    "cloud.karpenter_disruption": Blame.TRANSIENT,
    "cloud.slurm_preempted_requeue": Blame.TRANSIENT,
    "cloud.ray_node_preempted": Blame.TRANSIENT,
    "cloud.skypilot_preempted": Blame.TRANSIENT,
    # golden lines of these two: test_catalog_tracker_clusters.py
    "cloud.azureml_preempted": Blame.TRANSIENT,
    "cloud.k8s_node_shutdown": Blame.TRANSIENT,
    "cloud.sagemaker_capacity": Blame.TRANSIENT,
    "cloud.k8s_storage_limit_eviction": Blame.APPLICATION,
    # golden lines of these two: test_catalog_tracker_clusters.py
    "cloud.k8s_gpu_unschedulable": Blame.SYMPTOM,
    "cloud.volcano_gang_unschedulable": Blame.SYMPTOM,
    # sweep L4 (issue 14): golden lines in test_catalog_tracker_platforms.py
    "cloud.capacity_unavailable": Blame.TRANSIENT,
    "cloud.quota_exceeded": Blame.APPLICATION,
    "cloud.k8s_image_not_found": Blame.APPLICATION,
    "cloud.k8s_image_pull_backoff": Blame.SYMPTOM,
    "cloud.k8s_config_missing": Blame.APPLICATION,
    # sweep round 6 (issue 14, helper s20e): queueing and job controllers, node lifecycle
    "cloud.kueue_podsready_timeout": Blame.SYMPTOM,
    "cloud.jobset_failed": Blame.SYMPTOM,
    "cloud.kubeflow_replicas_failed": Blame.SYMPTOM,
    "cloud.k8s_node_not_ready": Blame.SYMPTOM,
    "cloud.gce_mig_recreate": Blame.TRANSIENT,
    # helper k8sev (issue 14): Kubernetes about a failed training pod
    "cloud.k8s_job_backoff_limit": Blame.SYMPTOM,
    "cloud.k8s_active_deadline": Blame.TRANSIENT,
    "cloud.k8s_pod_failure_policy": Blame.SYMPTOM,
    "cloud.k8s_pod_node_lost": Blame.SYMPTOM,
    "cloud.k8s_volume_mount_failed": Blame.SYMPTOM,
    "cloud.k8s_volume_mount_timeout": Blame.SYMPTOM,
    "cloud.k8s_liveness_probe_failed": Blame.SYMPTOM,
    "cloud.k8s_taint_unschedulable": Blame.SYMPTOM,
}


def test_a_reclaim_decides_and_names_no_node() -> None:
    """Every reclaim or preemption signature is above the transient threshold and carries no
    node action: the node it took away must never be excluded."""
    for key in FAMILY_KEYS:
        sig = CATALOG.signatures[key]
        assert sig.node_action.value == "none", key
        if (
            key not in {"cloud.gce_live_migration", "cloud.azure_freeze"}
            and sig.blame is Blame.TRANSIENT
        ):
            assert sig.weight >= 50, key


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # skypilot-org/skypilot pull request #804 (the managed spot job's controller)
        "cloud.skypilot_preempted",
        "(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.",
        {},
    ),
    (  # skypilot-org/skypilot pull request #1500 (a later controller's wording, a spot TPU)
        "cloud.skypilot_preempted",
        "(sky-de99-weichiang, pid=734143) I 12-10 21:39:39 controller.py:118] Cluster is "
        "preempted (status: INIT). Recovering...",
        {"status": "INIT"},
    ),
    (  # sky/spot/controller.py of 2022 (logger.info('The cluster is Preempted.'))
        "cloud.skypilot_preempted",
        "I 03-02 11:40:02 controller.py:98] The cluster is Preempted.",
        {},
    ),
    (  # azavea/raster-vision-aws issue #15 (as the console shows it)
        "cloud.aws_batch_host_terminated",
        "Status Reason: Host EC2 Terminated",
        {},
    ),
    (  # the statusReason AWS Batch's API returns (rendered from its documented form)
        "cloud.aws_batch_host_terminated",
        "statusReason: Host EC2 (instance i-0a1b2c3d4e5f67890) terminated.",
        {"instance": "i-0a1b2c3d4e5f67890"},
    ),
    (  # documented EventBridge event (docs.aws.amazon.com spot-instance-termination-notices)
        "cloud.aws_spot_interruption",
        '  "detail-type": "EC2 Spot Instance Interruption Warning",',
        {},
    ),
    (  # documented instance-metadata item (same page)
        "cloud.aws_spot_interruption",
        '{"action": "terminate", "time": "2017-09-18T08:22:00Z"}',
        {},
    ),
    (  # runs-on/runs-on issue #277: the notice quoted inside the spot watcher's JSON record
        "cloud.aws_spot_interruption",
        '{"level":"warn","time":"2025-03-12T10:01:02Z","message":"Spot interruption payload '
        'received: {\\"action\\":\\"terminate\\",\\"time\\":\\"2025-03-12T10:03:02Z\\"}"}',
        {},
    ),
    (  # runs-on/runs-on issue #277: the watcher's own warning
        "cloud.aws_spot_interruption",
        '{"level":"warn","time":"2025-03-12T10:01:02Z","message":"Instance is going to be '
        'interrupted in 2 minutes. Exiting..."}',
        {},
    ),
    (  # stackhpc/magnum-terraform README.md (three empty nodes removed in a row)
        "cloud.k8s_autoscaler_scale_down",
        "        I1017 14:00:17.891315       1 scale_down.go:882] Scale-down: removing empty "
        "node k8s-sb7k6mtqieim-minion-3",
        {"node": "k8s-sb7k6mtqieim-minion-3"},
    ),
    (  # kubernetes-sigs/karpenter issue #1256 (line cut short by the issue excerpt)
        "cloud.karpenter_disruption",
        '{"level":"INFO","time":"2024-05-14T10:19:48.204Z","logger":"controller.disruption",'
        '"message":"disrupting via consolidation delete, terminating 1 nodes (1 pods) '
        "ip-10-2-131-28.eu-central-1.compute.internal/c6gn",
        {},
    ),
    (  # kubernetes-sigs/karpenter issue #2549 (v1's structured disruption log, cut short)
        "cloud.karpenter_disruption",
        '2025-09-29 17:22:27.740\t{"level":"INFO","time":"2025-09-29T17:22:27.740Z",'
        '"logger":"controller","caller":"disruption/queue.go:309","message":"disrupting node(s)",'
        '"commit":"54ada83","controller":"disruption","reason":"drifted","decision":"delete"}',
        {},
    ),
    (  # aws/karpenter-provider-aws issue #5786 (v0.3x: "candidates", not "nodes")
        "cloud.karpenter_disruption",
        '2024-03-05 10:30:14\t {"level":"INFO","time":"2024-03-05T09:30:14.357Z",'
        '"logger":"controller.disruption","message":"disrupting via consolidation delete, '
        'terminating 1 candidates ip-10-3-166-58.eu-central-1.compute.internal/t3.large/spot",'
        '"commit":"596ea97","command-id":"296e8d57-8002-4e62-99fe-951d4bd3bb77"}',
        {},
    ),
    (  # karpenter docs (the DisruptionTerminating event's reason "Drift", not only "Drifted")
        "cloud.karpenter_disruption",
        "Normal  DisruptionTerminating  node/gpu-node-7  Disrupting Node: Drift",
        {"reason": "Drift"},
    ),
    (  # aws/karpenter-provider-aws issue #4028 (the interruption controller acting on a spot ITN)
        "cloud.karpenter_disruption",
        '2024-01-18T01:50:34.693075244Z {"level":"INFO","time":"2024-01-18T01:50:34.692Z",'
        '"logger":"controller.interruption","message":"initiating delete from interruption '
        'message","commit":"a70b39e","queue":"KarpenterInterruptionQueue","messageKind":'
        '"SpotInterruptionKind","nodeclaim":"production-cltmx","action":"CordonAndDrain"}',
        {},
    ),
    (  # aws/karpenter-provider-aws pull request #8289 (the SpotInterrupted event's message)
        "cloud.karpenter_disruption",
        '+\t\t\tMessage:        "Spot interruption warning was triggered",',
        {},
    ),
    (  # kubernetes-sigs/kueue issue #3366 (the Workload's Evicted condition)
        "cloud.kueue_podsready_timeout",
        '            Message: "Exceeded the PodsReady timeout podsready-v4pth/prod1",',
        {"workload": "podsready-v4pth/prod1"},
    ),
    (  # kubernetes-sigs/jobset pull request #23 (the JobSet's Failed condition)
        "cloud.jobset_failed",
        '+\t\t\tMessage: "jobset failed due to reaching max number of restarts",',
        {"reason": "reaching max number of restarts"},
    ),
    (  # kubeflow/trainer issue #2044 (the PyTorchJobRestarting event in the operator's log)
        "cloud.kubeflow_replicas_failed",
        "2024-04-05T11:12:25-04:00\tDEBUG\tevents\tPyTorchJob kfto-01 is restarting because 1 "
        'Master replica(s) failed.\t{"type": "Warning", "object": {"kind":"PyTorchJob",'
        '"namespace":"default","name":"kfto-01"}, "reason": "PyTorchJobRestarting"}',
        {"kind": "PyTorchJob", "count": "1", "rtype": "Master"},
    ),
    (  # kubernetes/kubernetes issue #101599 (the node lifecycle controller's event)
        "cloud.k8s_node_not_ready",
        'I0423 18:26:09.261277       1 event.go:291] "Event occurred" object="172.160.14.239" '
        'kind="Node" apiVersion="v1" type="Normal" reason="NodeNotReady" message="Node '
        '172.160.14.239 status is now: NodeNotReady"',
        {},
    ),
    (  # kubernetes/kubernetes issue #77981 (describe node after the kubelet went silent)
        "cloud.k8s_node_not_ready",
        "  MemoryPressure   Unknown   Thu, 16 May 2019 11:20:20 -0400   Thu, 16 May 2019 "
        "11:21:41 -0400   NodeStatusUnknown   Kubelet stopped posting node status.",
        {},
    ),
    (  # vmware-tanzu/kubeapps issue #1141 (a GKE node pool's VM recreated by its MIG)
        "cloud.gce_mig_recreate",
        "  \\ initiated recreateInstance on instance "
        "'projects/<>/zones/us-east1-d/instances/<>-cluster-default-pool-0d14fd5a-2vn6'.\\",
        {
            "instance": "projects/<>/zones/us-east1-d/instances/<>-cluster-default-pool-0d14fd5a-2vn6"
        },
    ),
    (  # documented Scheduled Events document (learn.microsoft.com scheduled-events)
        "cloud.azure_scheduled_event",
        '"EventType": "Redeploy",',
        {"event": "Redeploy"},
    ),
    # --- helper k8sev (issue 14): Kubernetes about a failed training pod ---
    (  # kubernetes/kubernetes issue #92245 (the Job's Failed condition)
        "cloud.k8s_job_backoff_limit",
        "      message: Job has reached the specified backoff limit",
        {},
    ),
    (  # kubernetes/kubernetes issue #92245 (the Job's events, kubectl describe job)
        "cloud.k8s_job_backoff_limit",
        "  Warning  BackoffLimitExceeded  37m   job-controller  Job has reached the specified "
        "backoff limit",
        {},
    ),
    (  # WebLogic Kubernetes Operator sample-domain events (kubectl get events)
        "cloud.k8s_active_deadline",
        "2m30s       Warning   DeadlineExceeded            job/sample-domain1-introspector      "
        "   Job was active longer than specified deadline",
        {},
    ),
    (  # argoproj/argo-workflows issue #6135 (the pod's own activeDeadlineSeconds)
        "cloud.k8s_active_deadline",
        "        message: Pod was active on the node longer than the specified deadline",
        {},
    ),
    (  # kubernetes/website content/en/docs/tasks/job/pod-failure-policy.md
        "cloud.k8s_pod_failure_policy",
        "Container main for pod default/job-pod-failure-policy-failjob-8ckj8 failed with exit "
        "code 42 matching FailJob rule at index 0",
        {
            "container": "main",
            "pod": "default/job-pod-failure-policy-failjob-8ckj8",
            "code": "42",
            "action": "FailJob",
            "index": "0",
        },
    ),
    (  # kubernetes/kubernetes issue #61263 (the pod's NodeLost status)
        "cloud.k8s_pod_node_lost",
        "  message: Node ubuntu-1604-001 which was running pod mysql-0 is unresponsive",
        {"node": "ubuntu-1604-001", "pod": "mysql-0"},
    ),
    (  # bsycorp/kind issue #46 (kube-controller-manager's log, the pod's NodeNotReady event)
        "cloud.k8s_pod_node_lost",
        '{"log":"I0901 00:25:09.311469       1 event.go:291] \\"Event occurred\\" '
        'object=\\"kube-system/coredns-f9fd979d6-w9lb9\\" kind=\\"Pod\\" apiVersion=\\"v1\\" '
        'type=\\"Warning\\" reason=\\"NodeNotReady\\" message=\\"Node is not ready\\"\\n",'
        '"stream":"stderr","time":"2021-09-01T00:25:09.311544102Z"}',
        {},
    ),
    (  # format of kubernetes pkg/controller/tainteviction (TaintManagerEviction event)
        "cloud.k8s_pod_node_lost",
        "11m         Normal    TaintManagerEviction   pod/train-worker-3    Marking for deletion "
        "Pod default/train-worker-3",
        {"deleted_pod": "default/train-worker-3"},
    ),
    (  # GoogleCloudPlatform/gcs-fuse-csi-driver issue #283
        "cloud.k8s_volume_mount_failed",
        "Warning  FailedMount  3m58s (x890 over 30h)  kubelet  MountVolume.SetUp failed for "
        'volume "gcs-fuse-csi-ephemeral" : rpc error: code = Internal desc = the webhook failed '
        "to inject the sidecar container into the Pod spec",
        {"volume": "gcs-fuse-csi-ephemeral", "code": "Internal"},
    ),
    (  # kubernetes/kubernetes issue #96142 (attachdetach-controller event)
        "cloud.k8s_volume_mount_failed",
        "  Warning  FailedAttachVolume      71s   attachdetach-controller  Multi-Attach error "
        'for volume "pvc-7a81d56f-1cf9-11eb-8295-b6961e0a47ed" Volume is already exclusively '
        "attached to one node and can't be attached to another",
        {"multi_volume": "pvc-7a81d56f-1cf9-11eb-8295-b6961e0a47ed"},
    ),
    (  # openshift/openshift-docs pull request #24970
        "cloud.k8s_volume_mount_timeout",
        "Unable to attach or mount volumes: unmounted volumes=[sso-mysql-pvol], unattached "
        "volumes=[sso-mysql-pvol default-token-x4rzc]: timed out waiting for the condition",
        {"volumes": "sso-mysql-pvol"},
    ),
    (  # kubernetes/website configure-liveness-readiness-startup-probes.md (kubectl describe)
        "cloud.k8s_liveness_probe_failed",
        "  Warning  Unhealthy  21s (x3 over 31s)  kubelet            Liveness probe failed: "
        "cat: can't open '/tmp/healthy': No such file or directory",
        {},
    ),
    (  # same page: the kubelet's Killing event
        "cloud.k8s_liveness_probe_failed",
        "  Normal   Killing    21s                kubelet            Container liveness failed "
        "liveness probe, will be restarted",
        {"container": "liveness", "probe": "liveness"},
    ),
    (  # hystax/optscale issue #568 (kubectl get events)
        "cloud.k8s_taint_unschedulable",
        "0/1 nodes are available: 1 node(s) had untolerated taint "
        "{node.kubernetes.io/unreachable: }. preemption: 0/1 nodes are available: 1 Preemption "
        "is not helpful for scheduling.",
        {"count": "1", "taint": "node.kubernetes.io/unreachable"},
    ),
    (  # NVIDIA/k8s-device-plugin issue #421 (title)
        "cloud.k8s_taint_unschedulable",
        "0/1 nodes are available: 1 node(s) had untolerated taint {gpu: }. preemption: 0/1 "
        "nodes are available: 1 Preemption is not helpful for scheduling..",
        {"count": "1", "taint": "gpu"},
    ),
    (  # kubernetes-sigs/kubespray issue #9989 (title)
        "cloud.k8s_taint_unschedulable",
        "kubernetes-dashboard 0/3 nodes are available: 3 node(s) had untolerated taint "
        "{node.kubernetes.io/not-ready: }",
        {"count": "3", "taint": "node.kubernetes.io/not-ready"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # an EC2 host named in prose without AWS Batch's status reason
    ("cloud.aws_batch_host_terminated", "Terminated EC2 host ip-10-0-1-2 after the job finished"),
    # helper k8sev: a gRPC deadline is not the Job's activeDeadlineSeconds
    (
        "cloud.k8s_active_deadline",
        "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
    ),
    # a readiness probe kills nothing (kubernetes/website probes page)
    (
        "cloud.k8s_liveness_probe_failed",
        "  Warning  Unhealthy  2m  kubelet  Readiness probe "
        "failed: HTTP probe failed with statuscode: 503",
    ),
    # a missing Secret is the job's configuration, cloud.k8s_config_missing's line
    (
        "cloud.k8s_volume_mount_failed",
        "  Warning  FailedMount  63s (x16 over 17m)  kubelet  "
        'MountVolume.SetUp failed for volume "missing-secret" : secret '
        '"rc-definitely-missing-secret" not found',
    ),
    # the node-level NotReady event is cloud.k8s_node_not_ready's, not the pod's
    ("cloud.k8s_pod_node_lost", "Node gpu-node-7 status is now: NodeNotReady"),
    # a Job that completed is not one that hit its limit
    ("cloud.k8s_job_backoff_limit", "  Normal  Completed  12s  job-controller  Job completed"),
    # sky/jobs/utils.py's log tailer cannot tell a reclaim from a failure
    ("cloud.skypilot_preempted", "The job cluster is preempted or failed."),
    # documentation prose, not a controller's finding
    ("cloud.skypilot_preempted", "When a spot cluster is preempted, this strategy recovers by"),
    (  # ray-project/ray pull request #58638: Ray's list of possible causes is not a reclaim
        "cloud.ray_node_preempted",
        "Task failed because the node it was running on is dead or unavailable. Node IP: "
        "10.8.0.23, node ID: b157c93de9603b1458ae4bd22668b46a4f0ae249bf9467072ba6fd45. This can "
        "happen if the node was preempted, had a hardware failure, or its raylet crashed "
        "unexpectedly.",
    ),
    (  # aws/aws-node-termination-handler issue #207: start-up, no event
        "*",
        "2020/07/16 17:31:46 Kubernetes AWS Node Termination Handler has started successfully!",
    ),
    (  # aws/aws-node-termination-handler issue #146: a metadata poll failing is not an event
        "*",
        "2020/04/28 23:00:46 There was a problem monitoring for Scheduled Maintenance events: "
        "Unable to parse metadata response: Metadata request received http status code: 404",
    ),
    (  # kubernetes-retired/kube-aws issue #1302: the autoscaler deciding nothing
        "*",
        "I0514 08:53:03.149510       1 utils.go:398] Skipping ip-10-0-0-48.ec2.internal - no "
        "node group config",
    ),
    (  # aws/karpenter-provider-aws pull request #2123: cordon after the decision, not the decision
        "*",
        "karpenter-68d787db56-6x6q8 controller 2022-07-18T02:44:31.248Z\tINFO\t"
        'controller.termination\tCordoned node\t{"commit": "63daf4b", "node": '
        '"ip-192-168-166-214.us-west-2.compute.internal"}',
    ),
    # the Freeze pause is not a reclaim, and a reclaim is not a pause
    ("cloud.azure_scheduled_event", '      "EventType": "Freeze",'),
    ("cloud.azure_freeze", '      "EventType": "Preempt",'),
    (  # aws/karpenter-provider-aws issue #4028: the taint after the decision, not the decision
        "*",
        '2024-01-18T01:50:34.741894846Z {"level":"INFO","time":"2024-01-18T01:50:34.741Z",'
        '"logger":"controller.node.termination","message":"tainted node","commit":"a70b39e",'
        '"node":"i-09b7740c6dd970471.eu-west-1.compute.internal"}',
    ),
    (  # kubernetes/autoscaler issue #4406: a node found unneeded is not yet removed
        "*",
        "I1011 18:33:31.893414       1 scale_down.go:790] ip-172-16-207-18.ec2.internal was "
        "unneeded for 0s",
    ),
    (  # kubernetes/autoscaler issue #248: a scale-down that failed removed nothing
        "*",
        'I0822 11:30:07.277750       1 event.go:218] Event(v1.ObjectReference{Kind:"Node", '
        'Namespace:"", Name:"ip-10-0-0-142.us-east-2.compute.internal"}): type: \'Warning\' '
        "reason: 'ScaleDownFailed' failed to drain the node, aborting ScaleDown",
    ),
    # Kueue's PodsReady condition while it waits is not the eviction (kubernetes-sigs/kueue #707)
    ("cloud.kueue_podsready_timeout", '      "message": "Not all pods are ready or succeeded",'),
    # the ready-again event is not NotReady (kubernetes pkg/controller/nodelifecycle)
    ("cloud.k8s_node_not_ready", 'message="Node 172.160.14.239 status is now: NodeReady"'),
    # the JobSet restarting is not the JobSet failing (kubernetes-sigs/jobset pull request #23)
    ("cloud.jobset_failed", "restarting jobset, attempt 1"),
    # a replica exiting is the pod's report, not the operator's restart (kubeflow/trainer #2044)
    (
        "cloud.kubeflow_replicas_failed",
        "INFO[0289] Pod: default.kfto-01-master-0 exited with code 1  job=default.kfto-01",
    ),
    # a rebalance recommendation is only a warning
    ("cloud.aws_spot_interruption", '  "detail-type": "EC2 Instance Rebalance Recommendation",'),
]

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    hits = assert_matches(key, line, expected)
    assert "python.exception" not in hits, "a specific signature must win over the generic one"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
