"""Golden tests for the lifecycle family (signatures-lifecycle.toml): what the cloud family did not
read yet of a provider, a cluster or a node agent taking a node away, maintaining, repairing it or
finding it sick. Azure scheduled events as AKS node-problem-detector, the Scheduled Events sample
and termination handlers report them; Cloud TPU, Compute Engine and GKE; node-problem-detector's
conditions and events; Karpenter; the cluster-autoscaler's removal events; SageMaker HyperPod.

A provider or cluster taking capacity away is transient and names no one, and every such entry
that decides sits in the `cloud.` namespace, where clearing and history look for reclaims. A
provider or node agent saying the host itself is faulty is hardware of moderate weight; the rest
of what node-problem-detector says about a node is a symptom, and its OOMKilling the job's own
memory. Real lines are named beside each; the rest are rendered from the emitter's format (said
so).
"""

from __future__ import annotations

import tomllib
from datetime import timedelta

import pytest

from autorecover.domain.clearing import RECLAIM_PREFIXES, RECLAIM_WEIGHT, SECOND_HAND, cleared
from autorecover.domain.records import Blame, Finding, JobRecord, Source
from domain.golden import (
    CATALOG,
    DATA,
    SHAPE_T0,
    Golden,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-lifecycle.toml"
NAMESPACES = frozenset(
    {"cloud", "k8s", "npd", "karpenter", "autoscaler", "iris", "hyperpod", "megascale"}
)
FAMILY_KEYS = family_keys(FAMILY_FILE)

REQUIRED: dict[str, Blame] = {
    # Azure
    "cloud.azure_vm_event_scheduled": Blame.TRANSIENT,
    "cloud.azure_freeze_scheduled": Blame.TRANSIENT,
    # Google Cloud
    "cloud.tpu_preempted": Blame.TRANSIENT,
    "cloud.tpu_maintenance": Blame.TRANSIENT,
    "cloud.tpu_bad_chip": Blame.HARDWARE,
    # Megascale's hang digests (MaxText's hang playbook)
    "megascale.bad_tpu_host": Blame.HARDWARE,
    "megascale.inconsistent_programs": Blame.APPLICATION,
    "megascale.hang_detected": Blame.SYMPTOM,
    "cloud.gce_terminated_by_platform": Blame.TRANSIENT,
    "cloud.gke_node_maintenance": Blame.TRANSIENT,
    "cloud.gke_node_upgrade": Blame.TRANSIENT,
    "cloud.gke_node_auto_repair": Blame.TRANSIENT,
    # AKS
    "cloud.aks_node_upgrade_drain": Blame.TRANSIENT,
    # Karpenter
    "cloud.karpenter_capacity_interruption": Blame.TRANSIENT,
    "cloud.karpenter_node_terminating": Blame.TRANSIENT,
    "cloud.karpenter_instance_unhealthy": Blame.TRANSIENT,
    "karpenter.node_repair": Blame.SYMPTOM,
    # cluster-autoscaler
    "cloud.autoscaler_node_removed": Blame.TRANSIENT,
    "autoscaler.scale_down_candidate": Blame.INFO,
    # Kubernetes node taints
    "k8s.node_gone_taint": Blame.SYMPTOM,
    # SageMaker HyperPod
    "cloud.hyperpod_node_replace": Blame.HARDWARE,
    "cloud.hyperpod_node_reboot": Blame.HARDWARE,
    "hyperpod.auto_resume_failed": Blame.SYMPTOM,
    "hyperpod.auto_resume_kept": Blame.SYMPTOM,
    # Iris (marin-community/marin's cluster manager)
    "iris.parent_preempted": Blame.TRANSIENT,
    # node-problem-detector
    "npd.task_hung": Blame.SYMPTOM,
    "npd.kernel_oops": Blame.HARDWARE,
    "npd.oom_killing": Blame.APPLICATION,
    "npd.node_runtime_unhealthy": Blame.SYMPTOM,
    "npd.hardware_error": Blame.HARDWARE,
    "npd.disk_bad_blocks": Blame.HARDWARE,
    "npd.unregister_netdevice": Blame.SYMPTOM,
    "npd.aks_gpu_fault": Blame.HARDWARE,
    "npd.aks_ib_link_flapping": Blame.HARDWARE,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)

GOLDEN: Golden = [
    # --- Azure ---
    # maksim-paskal/aks-node-termination-handler issue #98 (a spot node's events, no handler)
    ('Warning  VMEventScheduled  14s               custom-scheduledevents-consolidated-condition-'
     'plugin-monitor  Node condition VMEventScheduled is now: True, reason: VMEventScheduled, '
     'message: "Preempt Scheduled: Wed, 26 Feb 2025 10:13:13 GMT. DurationInSeconds: -1.  For '
     'more information, see https://aka.ms/aks/scheduledevents."',
     "cloud.azure_vm_event_scheduled", {"event": "Preempt"}),
    # same issue, the next event (cut short in the issue)
    ("Warning  PreemptScheduled  2s (x8 ov", "cloud.azure_vm_event_scheduled",
     {"reason": "Preempt"}),
    # rendered from AKS NPD's message for a deletion (VMSS terminate notification)
    ('Node condition VMEventScheduled is now: True, reason: VMEventScheduled, message: "Terminate '
     'Scheduled: Thu, 27 Feb 2025 09:00:05 GMT. DurationInSeconds: -1.  For more information, see '
     'https://aka.ms/aks/scheduledevents."', "cloud.azure_vm_event_scheduled",
     {"event": "Terminate"}),
    # rendered from the learn.microsoft.com Scheduled Events Python sample's print
    ("+ Scheduled Event. This host trainer-vm-3 is scheduled for Preempt not before "
     "Tue,_16_Mar_2021_00:58:46_GMT", "cloud.azure_vm_event_scheduled",
     {"node": "trainer-vm-3", "sample_event": "Preempt"}),
    # rendered from aks-node-termination-handler's default alert message (pkg/config)
    ("Draining node=aks-spotgpu-21249019-vmss000006, type=Preempt",
     "cloud.azure_vm_event_scheduled",
     {"node": "aks-spotgpu-21249019-vmss000006", "sample_event": "Preempt"}),
    # rendered from aks-node-termination-handler's node event (reason = the event type)
    ("Warning  Preempt  35s  aks-node-termination-handler  Azure API sended schedule event for "
     "this node", "cloud.azure_vm_event_scheduled", {"handler_event": "Preempt"}),
    # rendered from the handler's taint (pkg/api getTaintKey)
    ("Taints:             aks-node-termination-handler/preempt=9F3C0E1A-77B2-4D0A-9C55-"
     "2F3E4A1B6C7D:NoExecute", "cloud.azure_vm_event_scheduled", {"taint_event": "preempt"}),
    # rendered: a Python script printing the Scheduled Events dict
    ("{'EventId': 'A123BC45-1234-5678-AB90-ABCDEF123456', 'EventStatus': 'Scheduled', "
     "'EventType': 'Redeploy', 'ResourceType': 'VirtualMachine', 'Resources': ['myspotvm']}",
     "cloud.azure_vm_event_scheduled", {"dump_event": "Redeploy"}),
    # rendered from AKS node auto-drain's taint (learn.microsoft.com aks/node-auto-drain)
    ("Taints:             remediator.kubernetes.azure.com/unschedulable:NoSchedule",
     "cloud.azure_vm_event_scheduled", {}),
    # rendered from AKS NPD's message for a Freeze
    ('Node condition VMEventScheduled is now: True, reason: VMEventScheduled, message: "Freeze '
     'Scheduled: Mon, 05 Jun 2023 16:27:30 GMT. DurationInSeconds: 5.  For more information, see '
     'https://aka.ms/aks/scheduledevents."', "cloud.azure_freeze_scheduled", {}),
    ("+ Scheduled Event. This host trainer-vm-3 is scheduled for Freeze not before "
     "Tue,_16_Mar_2021_00:58:46_GMT", "cloud.azure_freeze_scheduled", {"node": "trainer-vm-3"}),
    # --- Google Cloud ---
    # cloud.google.com/tpu/docs/preemptible ("Detecting if a TPU has been preempted")
    ("demo-tpu   us-central1-b  v2-8              10.240.1.2:8470    default  10.240.1.0/29  "
     "PREEMPTED", "cloud.tpu_preempted", {}),
    # rendered after a TPU operator's run note quoting describe output (queued resource, node)
    ("QR state: SUSPENDED (stateInitiator=SERVICE); TPU state: PREEMPTED; healthDescription: "
     "maintenance event at 2026-05-10T10:30:12Z.", "cloud.tpu_preempted", {}),
    # rendered from `gcloud compute tpus queued-resources describe`
    ("  stateInitiator: SERVICE", "cloud.tpu_preempted", {}),
    ('  "state": "PREEMPTED",', "cloud.tpu_preempted", {}),
    # rendered from `gcloud compute tpus tpu-vm describe` (Node.health)
    ("health: UNHEALTHY_MAINTENANCE", "cloud.tpu_maintenance", {}),
    # rendered from TPU health monitoring's metric labels (docs troubleshooting/tpu-health)
    ('health_status: "UNHEALTHY" unhealthy_category: "BAD_SC_CHIP"', "cloud.tpu_bad_chip",
     {"category": "BAD_SC_CHIP"}),
    # scylladb/scylla-cluster-tests unit tests (a GCE system_event audit record, hostError)
    ("                'status': {'message': 'Instance terminated by Compute Engine.'},",
     "cloud.gce_terminated_by_platform", {}),
    # rendered from `gcloud compute operations list` (the system event after a termination)
    ("systemevent-1571318547035  compute.instances.automaticRestart  us-central1-a/instances/"
     "gpu-node-7  200  DONE  2019-10-17T06:25:12.511-07:00", "cloud.gce_terminated_by_platform",
     {}),
    # rendered from GKE's maintenance labels and taints (kubectl describe node)
    ("                    cloud.google.com/active-node-maintenance=ONGOING",
     "cloud.gke_node_maintenance", {}),
    ("Taints:             cloud.google.com/maintenance-window-started:NoSchedule",
     "cloud.gke_node_maintenance", {"taint": "maintenance-window-started"}),
    # rendered from `gcloud container operations list`
    ("operation-1737000000000-4a5b6c7d  UPGRADE_NODES      us-central1-a  gpu-pool        DONE    "
     "2025-01-16T04:00:00.123Z  2025-01-16T04:41:12.456Z", "cloud.gke_node_upgrade", {}),
    ("operation-1737000000000-8e9f0a1b  AUTO_REPAIR_NODES  us-central1-a  gpu-pool        DONE    "
     "2025-01-16T07:12:03.000Z  2025-01-16T07:19:44.000Z", "cloud.gke_node_auto_repair", {}),
    # --- Megascale: the digests of MaxText's Megascale hang playbook (rendered) ---
    ("The host that have bad TPUs are: mxt-llama3-8b-2xv5p32-slice-job-1-2",
     "megascale.bad_tpu_host", {"about": "mxt-llama3-8b-2xv5p32-slice-job-1-2"}),
    ("2025-12-02T14:18:01.417502Z Megascale detects a hang that is likely caused by inconsistent "
     "HLO module compilation across workers. This can be caused by some workers running with "
     "different JIT functions or a bug in the XLA compiler.", "megascale.inconsistent_programs",
     {}),
    ("  Potential cause: INCONSISTENT_TPU_PROGRAM", "megascale.inconsistent_programs", {}),
    ("Megascale detects a hang but cannot determine the root cause. Please inspect the full "
     "digest below.", "megascale.hang_detected", {}),
    # --- AKS: Azure/AKS issue #2692 (an auto-upgrade's node events under running pods) ---
    ("Normal   Drain   node/aks-gpunp-38164027-vmss000000   Draining node: "
     "[aks-gpunp-38164027-vmss000000]", "cloud.aks_node_upgrade_drain",
     {"node": "aks-gpunp-38164027-vmss000000"}),
    # --- Karpenter (rendered from the events and log lines in the sources named in the file) ---
    ("Warning  CapacityReservationInstanceInterrupted  node/ip-10-0-42-17.ec2.internal  Capacity "
     "Reservation interruption warning was triggered", "cloud.karpenter_capacity_interruption", {}),
    ("Warning  TerminatingOnInterruption  nodeclaim/gpu-x8k2p  Interruption triggered termination "
     "for the NodeClaim", "cloud.karpenter_capacity_interruption", {}),
    # kubernetes-sigs/aws-load-balancer-controller issue #4023 names the v1 taint
    ("Taints:             karpenter.sh/disrupted:NoSchedule", "cloud.karpenter_node_terminating",
     {}),
    # kubernetes-sigs/karpenter pull request #1180 spells v0.3x's taint (rendered as describe)
    ("Taints:             karpenter.sh/disruption=disrupting:NoSchedule",
     "cloud.karpenter_node_terminating", {}),
    ("Normal  Disrupted  pod/trainer-0  Deleting the pod to accommodate the terminationTime "
     "2025-03-04 10:31:17 +0000 UTC of the node. The pod was granted 30 seconds of grace-period "
     "of its 30 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the "
     "do-not-disrupt annotation.", "cloud.karpenter_node_terminating", {}),
    ('{"level":"INFO","time":"2026-05-02T11:03:09.118Z","logger":"controller","message":"detected '
     'unhealthy instance owned by cluster","controller":"interruption.instancestatus","instanceID"'
     ':"i-0a1b2c3d4e5f67890","category":"SystemStatus"}', "cloud.karpenter_instance_unhealthy", {}),
    ('{"level":"INFO","time":"2026-07-01T02:11:40.000Z","logger":"controller","message":"deleting '
     'unhealthy node that never initialized","condition":"AcceleratedHardwareReady","status":'
     '"False","reason":"NvidiaDeviceCountMismatch"}', "karpenter.node_repair", {}),
    # --- cluster-autoscaler (rendered from delete_in_batch.go; kubernetes/autoscaler #3639) ---
    ("Normal  ScaleDown  node/gpu-node-7  nodes removed by cluster autoscaler",
     "cloud.autoscaler_node_removed", {}),
    ("I0312 09:14:51.008213       1 event_sink_logging_wrapper.go:48] Event(v1.ObjectReference{"
     'Kind:"ConfigMap", Namespace:"kube-system", Name:"cluster-autoscaler-status"}): type: '
     "'Normal' reason: 'ScaleDownEmpty' Scale-down: empty node gpu-node-7 removed",
     "cloud.autoscaler_node_removed", {"node": "gpu-node-7"}),
    ("I1022 19:05:28.819900       1 scale_down.go:647] ip-172-31-1-217.us-west-2.compute.internal "
     "was unneeded for 9m52.692595989s", "autoscaler.scale_down_candidate", {}),
    ("Taints:             DeletionCandidateOfClusterAutoscaler=1757310488:PreferNoSchedule",
     "autoscaler.scale_down_candidate", {}),
    # --- node taints (rendered from the kubernetes docs' and cloud-provider's taints) ---
    ("Taints:             node.cloudprovider.kubernetes.io/shutdown:NoSchedule",
     "k8s.node_gone_taint", {}),
    # --- SageMaker HyperPod ---
    # the ai-on-sagemaker-hyperpod guide's resiliency overview (a deep health check failure)
    ('{"level":"error","ts":"2024-06-18T21:15:22Z","msg":"Encountered FaultyInstance. Replace the '
     "Instance. Region: us-west-2, InstanceType: p4d.24xlarge. ERROR:Bandwidth has less than "
     'threshold: Expected minimum threshold :80,NCCL Test output Bw: 30"}',
     "cloud.hyperpod_node_replace", {}),
    # rendered from the HyperPod resiliency labels page
    ("  sagemaker.amazonaws.com/deep-health-check-status: Failed", "cloud.hyperpod_node_replace",
     {}),
    ("                    sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReboot",
     "cloud.hyperpod_node_reboot", {}),
    # the ai-on-sagemaker-hyperpod guide's Slurm resiliency page (srun --auto-resume=1): the step
    # failed, the plugin drops the nodes the cluster agent found unhealthy and keeps the rest
    ("[Auto Resume] Info: JobID: 82 StepID: 0 Job failed - replacing nodes",
     "hyperpod.auto_resume_failed", {}),
    ("[Auto Resume] Info: JobID: 82 StepID: 0 Job failed - Droping unhealthy nodes",
     "hyperpod.auto_resume_failed", {}),
    ("[Auto Resume] Info: JobID: 123 StepID: 0 Job failed - Dropping unhealthy nodes",
     "hyperpod.auto_resume_failed", {}),
    ("[Auto Resume] Info: JobID: 82 StepID: 0 Succesfully shrink job to retain healthy nodes "
     "ip-10-1-10-50,ip-10-1-25-242,ip-10-1-65-[134,171],ip-10-1-85-226",
     "hyperpod.auto_resume_kept",
     {"healthy_hosts": "ip-10-1-10-50,ip-10-1-25-242,ip-10-1-65-[134,171],ip-10-1-85-226"}),
    # --- Iris ---
    # marin-community/marin's debugging notes (the children of an RL root whose worker failed)
    ("2026-11-18 18:07:15,801 ERROR iris.client: job /ahmed/irl-e4p-100/train KILLED: Parent "
     "task preempted", "iris.parent_preempted", {}),
    ('  error: "Parent task preempted"', "iris.parent_preempted", {}),
    # --- node-problem-detector ---
    # linux-cifs mailing list, "Deadlock in Ubuntu 5.4 kernel" (an AKS node's NPD log, rejoined)
    ("I1210 09:07:48.142691  562992 log_monitor.go:160] New status generated: &{Source:kernel-"
     "monitor Events:[{Severity:warn Timestamp:2022-12-10 09:07:47.636272174 +0000 UTC "
     "m=+63284.134685121 Reason:TaskHung Message:INFO: task cifsd:981715 blocked for more than 604 "
     "seconds.}] Conditions:[{Type:KernelDeadlock Status:False Transition:2022-12-09 "
     "15:33:03.569676476 +0000 UTC m=+0.068089323 Reason:KernelHasNoDeadlock Message:kernel has no "
     "deadlock}]}", "npd.task_hung", {}),
    # rendered from kernel-monitor.json's permanent DockerHung rule (the condition-change event)
    ('Node condition KernelDeadlock is now: True, reason: DockerHung, message: "kernel: INFO: task '
     'docker:20744 blocked for more than 120 seconds."', "npd.task_hung", {}),
    # rendered from abrt-adaptor.json's rules
    ("abrt-notification[1211]: System encountered a fatal error in nv_kthread_q_run_self_test()",
     "npd.kernel_oops", {}),
    # kubernetes/node-problem-detector issue #766 (the OOMKilling event, as JSON)
    ('    "reason": "OOMKilling",', "npd.oom_killing", {}),
    # sapcc/kubernikus pull request #321 (a custom PodOOMKilling rule's event)
    ("  Warning  PodOOMKilling  2m    kernel-monitor, <node>  Memory cgroup out of memory: Kill "
     "process 25169 (hyperkube) score 2109 or sacrifice child", "npd.oom_killing", {}),
    # kubernetes/node-problem-detector issue #666 (the health-checker's condition-change event)
    ("  Normal  KubeletUnhealthy         12m   health-checker  Node condition KubeletUnhealthy is "
     "now: True, reason: KubeletUnhealthy", "npd.node_runtime_unhealthy",
     {"condition": "KubeletUnhealthy"}),
    # rendered from cmd/healthchecker's message as a describe row (health-checker-containerd)
    ("  ContainerRuntimeUnhealthy     True    Sun, 28 Jul 2024 16:19:26 +0000   Sun, 28 Jul 2024 "
     "16:19:25 +0000   ContainerdUnhealthy             cri:containerd was found unhealthy; repair "
     "flag : true", "npd.node_runtime_unhealthy", {"condition": "ContainerRuntimeUnhealthy"}),
    # rendered from AKS NPD's KubeletProblem condition (learn.microsoft.com aks/node-problem-detector)
    ('Warning  KubeletIsDown  26m  kubelet-custom-plugin-monitor  Node condition KubeletProblem is '
     'now: True, reason: KubeletIsDown, message: "Kubelet service is not running"',
     "npd.node_runtime_unhealthy", {"reason": "KubeletIsDown"}),
    # rendered from systemd-monitor-counter.json (log-counter's message)
    ("  FrequentKubeletRestart        True    Tue, 11 Mar 2025 10:54:34 +0000   Tue, 11 Mar 2025 "
     "10:44:03 +0000   FrequentKubeletRestart          Found 5 matching logs, which meets the "
     "threshold of 5", "npd.node_runtime_unhealthy", {"condition": "FrequentKubeletRestart"}),
    # rendered from kernel-monitor.json's CperHardwareErrorRecoverable rule (the event)
    ("Warning  CperHardwareErrorRecoverable  5m  kernel-monitor, gpu-node-7  {2}[Hardware Error]: "
     "event severity: recoverable", "npd.hardware_error", {"severity": "Recoverable"}),
    # UbuntuDDE/bugs issue #68 (smartd's line)
    ("dez 07 19:32:41 edson-p6540br smartd[2977]: Device: /dev/sda [SAT], 1 Currently unreadable "
     "(pending) sectors", "npd.disk_bad_blocks", {"device": "/dev/sda", "count": "1"}),
    # openstreetmap/operations issue #88 (smartd's mail, an Areca controller's disk)
    ("Device: /dev/sg3 [areca_disk#03_enc#02], 1 Currently unreadable (pending) sectors",
     "npd.disk_bad_blocks", {"device": "/dev/sg3", "count": "1"}),
    # moby/moby issue #5618 (journalctl on a docker host)
    ("Nov 19 12:02:55 hostname kernel: unregister_netdevice: waiting for lo to become free. Usage "
     "count = 1", "npd.unregister_netdevice", {"device": "lo", "count": "1"}),
    # rendered from AKS NPD's GPU conditions (learn.microsoft.com aks/gpu-health-monitoring)
    ("  NVLinkStatusInactive          True    Tue, 10 Jun 2025 08:12:40 +0000   Tue, 10 Jun 2025 "
     "08:02:11 +0000   NVLinkStatusInactive", "npd.aks_gpu_fault",
     {"condition": "NVLinkStatusInactive"}),
    ("  IBLinkFlapping                True    Tue, 10 Jun 2025 08:12:40 +0000   Tue, 10 Jun 2025 "
     "08:02:11 +0000   IBLinkFlapping", "npd.aks_ib_link_flapping", {}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # the digest's other lines: a culprit list is no verdict of bad chips
    ("megascale.bad_tpu_host", "  Potential culprit workers: mxt-llama3-8b-2xv5p32-slice-job-1-2"),
    ("megascale.inconsistent_programs", "  Potential cause: Bad TPU chips"),
    # AKS's surge line disrupts nothing; the node-termination handler's own wording is the
    # scheduled-event entry's
    ("cloud.aks_node_upgrade_drain",
     "Normal   Surge   node/aks-gpunp-38164027-vmss000002   Created a surge node "
     "[aks-gpunp-38164027-vmss000002 gpunp] for agentpool %!s(MISSING)"),
    ("cloud.aks_node_upgrade_drain", "Draining node=aks-gpu-1, type=Preempt"),
    # healthy condition rows: AKS NPD's consolidated and older per-type conditions
    # (chkpwd/iac-style describe output; kubernetes/node-problem-detector issue #252)
    ("cloud.azure_vm_event_scheduled",
     "  VMEventScheduled              False   Wed, 12 Mar 2025 10:54:34 -0700   Wed, 12 Mar 2025 "
     "10:44:32 -0700   NoVMEventScheduled              VM has no scheduled event"),
    ("cloud.azure_vm_event_scheduled",
     "  PreemptScheduled              False   Wed, 12 Mar 2025 10:54:34 -0700   Wed, 12 Mar 2025 "
     "10:44:32 -0700   NoPreemptScheduled              VM has no scheduled Preempt event"),
    ("cloud.azure_freeze_scheduled",
     "  FreezeScheduled               False   Wed, 12 Mar 2025 10:54:34 -0700   Wed, 12 Mar 2025 "
     "10:44:32 -0700   NoFreezeScheduled               VM has no scheduled Freeze event"),
    # a freeze is not a reclaim, a reclaim not a freeze
    ("cloud.azure_vm_event_scheduled",
     "+ Scheduled Event. This host trainer-vm-3 is scheduled for Freeze not before now"),
    ("cloud.azure_freeze_scheduled", "Draining node=aks-spot-vmss000001, type=Preempt"),
    # the JSON document is the cloud family's (cloud.azure_scheduled_event), not read twice here
    ("cloud.azure_vm_event_scheduled", '      "EventType": "Preempt",'),
    # ROS's actionlib and Slurm's docs say "Preempted" in other words
    ("cloud.tpu_preempted", '        case actionlib::SimpleClientGoalState::PREEMPTED: '
                            'ROS_INFO(">>> State: Preempted <<<"); break;'),
    ("cloud.tpu_preempted", "   JobState=PREEMPTED Reason=None Dependency=(null)"),
    # a script's guess ("failed or ... preempted") is not the provider's word
    ("cloud.tpu_preempted", 'echo "Inference failed or TPU was preempted. Retrying..."'),
    ("cloud.tpu_preempted", "state: READY"),
    ("cloud.tpu_preempted", "  stateInitiator: USER"),
    ("cloud.tpu_maintenance", "health: HEALTHY"),
    ("cloud.tpu_bad_chip", 'health_status: "UNHEALTHY" unhealthy_category: "NETWORKING_ISSUE"'),
    # a pod tolerating GKE's taint is not the node being terminated
    ("cloud.gke_node_maintenance",
     "Tolerations:                 cloud.google.com/impending-node-termination:NoSchedule op=Exists"),
    # the upcoming-maintenance label only announces
    ("cloud.gke_node_maintenance",
     "                    cloud.google.com/scheduled-maintenance-time=1737100800"),
    ("cloud.gke_node_maintenance",
     "                    cloud.google.com/active-node-maintenance=PENDING"),
    # a spot rebalance recommendation is only a warning (cloud.aws_rebalance_recommendation)
    ("*", "Normal  SpotRebalanceRecommendation  node/ip-10-0-42-17.ec2.internal  Spot rebalance "
          "recommendation was triggered"),
    # a repair Karpenter refused removed nothing
    ("*", "Warning  NodeRepairBlocked  node/ip-10-0-42-17.ec2.internal  more then 20% nodes are "
          "unhealthy in the cluster"),
    # kubernetes-sigs/karpenter issue #651: the do-not-disrupt annotation blocks a disruption
    ("cloud.karpenter_node_terminating",
     'Cannot disrupt Node: Pod \\"default/cdp-default-2ekrbha7\\" has \\"karpenter.sh/do-not-'
     'disrupt\\" annotation'),
    # a failed scale-down removed nothing; a wait is not a removal
    ("*", "Warning  ScaleDownFailed  node/gpu-node-7  failed to drain and delete node: failed to "
          "evict pods from node"),
    ("*", "I0515 19:40:30.284386       1 actuator.go:244] Scale-down: waiting 5s before trying to "
          "delete nodes"),
    # HyperPod's healthy labels and passing checks
    ("*", "                    sagemaker.amazonaws.com/node-health-status=Schedulable"),
    ("*", "  sagemaker.amazonaws.com/deep-health-check-status: Passed"),
    ("*", "2024-08-20T22:25:02Z info DCGM diagnostic health summary: dcgmCheckLevel: 0 "
          "dcgmVersion: 3.3.7 gpuDriverVersion: 535.183.01, gpuDeviceIds: [2237] "
          "replacementRequired: false rebootRequired:false"),
    # kubernetes/node-problem-detector issue #252: every healthy NPD condition row
    ("*", "  KernelDeadlock                False   Thu, 24 Jan 2019 15:32:05 -0500   Tue, 04 Dec "
          "2018 15:44:07 -0500   KernelHasNoDeadlock             kernel has no deadlock"),
    ("*", "  FrequentContainerdRestart     False   Tue, 11 Mar 2025 10:54:34 +0000   Tue, 11 Mar "
          "2025 10:44:03 +0000   NoFrequentContainerdRestart     containerd is functioning properly"),
    ("*", "  CperHardwareErrorFatal        False   Tue, 11 Mar 2025 10:54:34 +0000   Tue, 11 Mar "
          "2025 10:44:03 +0000   CperHardwareHasNoFatalError     UEFI CPER has no fatal error"),
    ("*", "  DiskBadBlock                  False   Tue, 11 Mar 2025 10:54:34 +0000   Tue, 11 Mar "
          "2025 10:44:03 +0000   DiskBadBlock                    Disk no bad block"),
    # kubernetes/node-problem-detector issue #683: the custom plugin monitor's config dump
    ("*", "I0921 22:49:45.966322       1 plugin.go:280] Start logs from plugin {Type:permanent "
          "Condition:KubeletUnhealthy Reason:KubeletUnhealthy Path:/home/kubernetes/bin/health-"
          "checker Args:[--component=kubelet --enable-repair=true --cooldown-time=1m "
          "--loopback-time=0 --health-check-timeout=10s] TimeoutString:0xc0004645a0 Timeout:3m0s}"),
    # corrected errors are not uncorrected ones
    ("npd.hardware_error", "Warning  CperHardwareErrorCorrected  5m  kernel-monitor, gpu-node-7  "
                           "{3}[Hardware Error]: event severity: corrected"),
    # a parent that failed on its own (not preempted) is not this cascade
    ("iris.parent_preempted", "job /ahmed/irl-e4p-100/train KILLED: Parent task failed"),
    # smartd's healthy attribute report names no pending sector count
    ("npd.disk_bad_blocks", "Current_Pending_Sector   val=099 worst=098 thresh=000  raw=624"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, [(k, line) for k, line in NEGATIVE if k != "*"], REQUIRED)


@pytest.mark.parametrize("line", [line for key, line in NEGATIVE if key == "*"])
def test_no_family_signature_reads_a_healthy_or_undecided_line(line: str) -> None:
    assert not set(hits(line)) & FAMILY_KEYS, f"{sorted(set(hits(line)) & FAMILY_KEYS)}: {line!r}"


def test_keys_are_defined_in_no_other_catalog_file() -> None:
    """Files merge by key in name order: a key defined twice would silently override one entry."""
    for entry in DATA.iterdir():
        if entry.name == FAMILY_FILE or not entry.name.startswith("signatures"):
            continue
        other = tomllib.loads(entry.read_text(encoding="utf-8")).get("signature", {})
        assert not FAMILY_KEYS & set(other), f"{entry.name}: {sorted(FAMILY_KEYS & set(other))}"


def test_a_reclaim_names_no_node_and_is_seen_as_a_reclaim() -> None:
    """Capacity taken away never acts on the node, and every entry that decides a reclaim sits
    where clearing and history look for one (the `cloud.` prefix)."""
    for key in FAMILY_KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is not Blame.HARDWARE:
            assert sig.node_action.value == "none", key
        if sig.blame is Blame.TRANSIENT and sig.weight >= RECLAIM_WEIGHT:
            assert key.startswith(RECLAIM_PREFIXES), key


def test_a_provider_saying_the_host_is_faulty_weighs_moderately() -> None:
    """Hardware from a provider or a node agent restates a fault; never above the kernel's own
    uncorrected-error weight, and only where the text says the host itself failed."""
    for key in FAMILY_KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.HARDWARE:
            assert sig.weight <= 65, key
            assert sig.node_action.value != "none", key


def _finding(key: str, node: str, line: str) -> Finding:
    sig = CATALOG.signatures[key]
    details = tuple(hits(line)[key].items())
    return Finding(signal=key, node=node, source=Source.SYSTEM, line=1, text=line, blame=sig.blame,
                   weight=sig.weight, at=SHAPE_T0 + timedelta(minutes=30), details=details)  # fmt: skip


_JOB = JobRecord(scheduler="kubernetes", job="1", nodes=("n1", "n2", "n3"), started=SHAPE_T0,
                 ended=SHAPE_T0 + timedelta(hours=1), collected=SHAPE_T0 + timedelta(hours=1),
                 state="FAILED")  # fmt: skip


@pytest.mark.parametrize(
    ("key", "seen_on", "line"),
    [
        ("cloud.azure_vm_event_scheduled", "n2",
         'Node condition VMEventScheduled is now: True, reason: VMEventScheduled, message: "Preempt '
         'Scheduled: Wed, 26 Feb 2025 10:13:13 GMT. DurationInSeconds: -1."'),
        ("cloud.tpu_preempted", "n2", "state: PREEMPTED"),
        ("cloud.gke_node_maintenance", "n2",
         "Taints:             cloud.google.com/impending-node-termination:NoSchedule"),
        ("cloud.karpenter_capacity_interruption", "n2",
         "Warning  TerminatingOnInterruption  node/n2  Interruption triggered termination for the "
         "Node"),
        # seen in the controller's output on n1, naming n2
        ("cloud.autoscaler_node_removed", "n1", "Scale-down: node n2 removed with drain"),
        ("cloud.azure_vm_event_scheduled", "n1", "Draining node=n2, type=Preempt"),
        ("cloud.aks_node_upgrade_drain", "n1", "Normal   Drain   node/n2   Draining node: [n2]"),
    ],
)  # fmt: skip
def test_a_reclaimed_node_is_cleared_of_second_hand_evidence(
    key: str, seen_on: str, line: str
) -> None:
    """The trap of the family: a reclaimed node goes silent and the scheduler or its peers name it.
    With only second-hand evidence against it, the reclaim clears it."""
    second_hand = Finding(signal=sorted(SECOND_HAND)[0], node="n2", source=Source.JOB, line=0,
                          text="", blame=Blame.HARDWARE, weight=70)  # fmt: skip
    seen = [_finding(key, seen_on, line), second_hand]
    assert cleared(_JOB, seen, {"n2": [second_hand]}, ["n2"]) == []


def test_a_freeze_or_an_auto_repair_clears_nobody() -> None:
    """A pause of seconds or a repair of a node that failed its health checks is no reclaim."""
    second_hand = Finding(signal=sorted(SECOND_HAND)[0], node="n2", source=Source.JOB, line=0,
                          text="", blame=Blame.HARDWARE, weight=70)  # fmt: skip
    for key, line in [
        ("cloud.azure_freeze_scheduled", "Freeze Scheduled: Mon, 05 Jun 2023 16:27:30 GMT."),
        ("cloud.gke_node_auto_repair", "operation-1  AUTO_REPAIR_NODES  us-central1-a  gpu-pool"),
    ]:
        seen = [_finding(key, "n2", line), second_hand]
        assert cleared(_JOB, seen, {"n2": [second_hand]}, ["n2"]) == ["n2"], key


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # the scanner's own verdict on a whole line, beside what the kernel's catalog reads in it
        ('    "message": "Memory cgroup out of memory: Killed process 3504804 (kubectl) total-vm:'
         '753508kB, anon-rss:58776kB, file-rss:29400kB, shmem-rss:0kB, UID:0 pgtables:288kB '
         'oom_score_adj:999",', "kernel.oom_kill", Blame.APPLICATION),
        ("Warning  OOMKilling  40s  kernel-monitor, gpu-node-7  Memory cgroup out of memory: Killed "
         "process 48211 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:0kB",
         "npd.oom_killing", Blame.APPLICATION),
        ("Warning  KernelOops  3m  kernel-monitor, gpu-node-7  BUG: unable to handle kernel NULL "
         "pointer dereference at 0000000000000008", "npd.kernel_oops", Blame.HARDWARE),
        ("Warning  TaskHung  2m  kernel-monitor, gpu-node-7  INFO: task python:48211 blocked for "
         "more than 120 seconds.", "npd.task_hung", Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_npd_restates_the_kernel_and_keeps_its_blame(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line)}
    assert signals.get(signal) is blame, signals
