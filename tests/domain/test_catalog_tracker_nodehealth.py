"""Golden lines from the thirteenth session over what node health checkers and auto-repair report
about a GPU node (signatures-nodehealth.toml): kubelet's pressure conditions, garbage collection
and route conditions, node-problem-detector's XFS, conntrack and image-store events, gpud's
remapped-rows, GPU-count and NVLink states, NVSentinel's health events, the NVIDIA device plugin's
unhealthy devices, the GPU Operator's validator, AKS node auto-repair and the EKS node monitoring
agent's conditions.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a checker that names this
node's GPU fault with its evidence is hardware; one that says "unhealthy" or asks for an action
without the why stays below the naming threshold; pressure, garbage collection and validator
retries are symptoms; auto-repair taking the node away is transient. Healthy look-alikes must not
match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FILE = "signatures-nodehealth.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "kubelet.node_pressure": Blame.SYMPTOM,
    "kubelet.garbage_collection_failed": Blame.SYMPTOM,
    "kubelet.network_unavailable": Blame.SYMPTOM,
    "npd.xfs_shutdown": Blame.HARDWARE,
    "npd.conntrack_full": Blame.SYMPTOM,
    "npd.corrupt_docker_image": Blame.SYMPTOM,
    "gpud.row_remap_rma": Blame.HARDWARE,
    "gpud.row_remap_pending": Blame.HARDWARE,
    "gpud.gpu_count_mismatch": Blame.HARDWARE,
    "gpud.nvlink_threshold_violated": Blame.HARDWARE,
    "nvsentinel.remediation_requested": Blame.HARDWARE,
    "nvsentinel.xid": Blame.INFO,
    "deviceplugin.device_unhealthy": Blame.HARDWARE,
    "gpuoperator.driver_validation_retry": Blame.SYMPTOM,
    "gpuoperator.validation_failed": Blame.HARDWARE,
    "aks.node_auto_repair": Blame.TRANSIENT,
    "eks.accelerated_hardware_not_ready": Blame.HARDWARE,
    "eks.node_condition_not_ready": Blame.SYMPTOM,
}

NAMESPACES = frozenset(
    {"kubelet", "npd", "gpud", "nvsentinel", "deviceplugin", "gpuoperator", "aks", "eks"}
)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # k3s-io/k3s issue #6290 (a node's events under disk pressure)
    (
        "  Normal   NodeHasDiskPressure      12m                    kubelet     Node node1 status "
        "is now: NodeHasDiskPressure",
        "kubelet.node_pressure",
        {"event": "DiskPressure"},
    ),
    (
        "  Warning  EvictionThresholdMet     9m18s (x15 over 12m)   kubelet     Attempting to "
        "reclaim ephemeral-storage",
        "kubelet.node_pressure",
        {},
    ),
    # kubernetes/kubernetes issue #45558 (the DiskPressure condition's YAML)
    ("    reason: KubeletHasDiskPressure", "kubelet.node_pressure", {"reason": "DiskPressure"}),
    ("    message: kubelet has disk pressure", "kubelet.node_pressure", {}),
    # kubelet nodestatus setters, rendered (memory)
    (
        "  Normal   NodeHasInsufficientMemory  3m   kubelet     Node gpu-node-7 status is now: "
        "NodeHasInsufficientMemory",
        "kubelet.node_pressure",
        {"event": "InsufficientMemory"},
    ),
    # llmos-ai/llmos issue #21 (FreeDiskSpaceFailed and ImageGCFailed)
    (
        "  Warning  FreeDiskSpaceFailed   59m                  kubelet  Failed to garbage collect "
        "required amount of images. Attempted to free 4783028633 bytes, but only found 0 bytes "
        "eligible to free.",
        "kubelet.garbage_collection_failed",
        {"reason": "FreeDiskSpaceFailed"},
    ),
    (
        "  Warning  ImageGCFailed         59m                  kubelet  Failed to garbage collect "
        "required amount of images. Attempted to free 4783028633 bytes, but only found 0 bytes "
        "eligible to free.",
        "kubelet.garbage_collection_failed",
        {"reason": "ImageGCFailed"},
    ),
    # k3s-io/k3s issue #6290 (the older wording)
    (
        "  Warning  FreeDiskSpaceFailed      11m                    kubelet     failed to garbage "
        "collect required amount of images. Wanted to free 15152714547 bytes, but freed 0 bytes",
        "kubelet.garbage_collection_failed",
        {},
    ),
    # kubernetes/kops issue #4918 (kubectl describe nodes of a 50-node cluster) and
    # kubernetes/kubernetes issue #27347 (the condition's YAML on AWS)
    (
        "  NetworkUnavailable   True    Wed, 18 Apr 2018 15:01:44 +0100   Wed, 18 Apr 2018 "
        "15:01:44 +0100   NoRouteCreated               RouteController failed to create a route",
        "kubelet.network_unavailable",
        {},
    ),
    ("      reason: NoRouteCreated", "kubelet.network_unavailable", {}),
    # node-problem-detector config/kernel-monitor.json, network-problem-monitor.json and
    # docker-monitor.json, the events rendered
    (
        "Warning  XfsHasShutdown  2m  kernel-monitor, gpu-node-7  Node condition XfsShutdown is "
        "now: True, reason: XfsHasShutdown",
        "npd.xfs_shutdown",
        {},
    ),
    (
        "Warning  ConntrackFull  30s  network-custom-plugin-monitor, gpu-node-7  Conntrack table full",
        "npd.conntrack_full",
        {},
    ),
    (
        "Warning  CorruptDockerImage  1m  docker-monitor, gpu-node-7  Error trying v2 registry: "
        "failed to register layer: rename /var/lib/docker/image/overlay2/layerdb/tmp/write-set-091 "
        "/var/lib/docker/image/overlay2/layerdb/sha256/7a5f: directory not empty",
        "npd.corrupt_docker_image",
        {},
    ),
    # leptonai/gpud components/accelerator/nvidia/remapped-rows, rendered
    (
        "00000000:18:00.0 qualifies for RMA (row remapping failed, remapped due to 2 uncorrectable "
        "error(s))",
        "gpud.row_remap_rma",
        {"pci": "00000000:18:00.0", "errors": "2"},
    ),
    (
        "00000000:18:00.0 needs reset (detected pending row remapping)",
        "gpud.row_remap_pending",
        {"pci": "00000000:18:00.0"},
    ),
    # gpud components/accelerator/nvidia/gpu-counts (its tests' rendering)
    (
        "nvidia gpu count mismatch (found 2, expected 8)",
        "gpud.gpu_count_mismatch",
        {"found": "2", "expected": "8"},
    ),
    # leptonai/gpud pull request #944 (the component's first, lspci-based form)
    (
        "\u2718 nvidia gpu count mismatch (lspci 8, expected 10)",
        "gpud.gpu_count_mismatch",
        {"counter": "lspci", "found": "8", "expected": "10"},
    ),
    # gpud components/accelerator/nvidia/nvlink/evaluate_threshold.go, rendered
    (
        "nvlink threshold violated: require >=8 GPUs with all links active; got 7",
        "gpud.nvlink_threshold_violated",
        {"required": "8", "active": "7"},
    ),
    # NVIDIA/NVSentinel issue #1299 (a condition's message)
    (
        "ErrorCode:POD_STUCK_AFTER_DELETION v1/Pod:prod/61f345d08c9a432a-134... Recommended "
        "Action=RESTART_VM",
        "nvsentinel.remediation_requested",
        {"code": "POD_STUCK_AFTER_DELETION", "action": "RESTART_VM"},
    ),
    # an NVSentinel end-to-end test (the GpuXidError condition's message)
    (
        "ErrorCode:79 gpu:0 XID error occured Recommended Action=NODE_REBOOT;",
        "nvsentinel.remediation_requested",
        {"code": "79", "action": "NODE_REBOOT"},
    ),
    (
        "ErrorCode:79 gpu:0 XID error occured Recommended Action=NODE_REBOOT;",
        "nvsentinel.xid",
        {"xid": "79"},
    ),
    # NVIDIA/k8s-device-plugin issue #189
    (
        "2020/08/10 19:09:42 'nvidia.com/gpu' device marked unhealthy: "
        "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8",
        "deviceplugin.device_unhealthy",
        {"device": "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8"},
    ),
    # NVIDIA/k8s-device-plugin internal/rm/health.go, rendered
    (
        "I0304 11:41:58.102113       1 health.go:126] Error waiting for event: ERROR_UNKNOWN; "
        "Marking all devices as unhealthy",
        "deviceplugin.device_unhealthy",
        {"wait_error": "ERROR_UNKNOWN"},
    ),
    (
        "I0304 11:41:58.102113       1 health.go:109] Marking device GPU-d23d91a3 as unhealthy: "
        "ERROR_GPU_IS_LOST",
        "deviceplugin.device_unhealthy",
        {"marked": "GPU-d23d91a3", "error": "ERROR_GPU_IS_LOST"},
    ),
    # NVIDIA/gpu-operator issue #1687 (driver-validation looping)
    (
        "WARN[0005] failed to validate the driver, retrying after 5 seconds",
        "gpuoperator.driver_validation_retry",
        {},
    ),
    # NVIDIA/gpu-operator cmd/nvidia-validator/main.go, rendered
    (
        "Error: error validating plugin installation: GPU resources are not discovered by the node",
        "gpuoperator.validation_failed",
        {"component": "plugin"},
    ),
    (
        "Error: error validating cuda workload: gave up waiting for pod "
        "nvidia-cuda-validator-7bx2q to be available",
        "gpuoperator.validation_failed",
        {"workload": "cuda workload"},
    ),
    # the AKS node auto-repair events' documented messages, rendered as kubectl prints them
    (
        "Normal   NodeRebootStart   2m   aks-auto-repair   Node auto-repair is initiating a reboot "
        "action due to NotReady status persisting for more than 5 minutes.",
        "aks.node_auto_repair",
        {"event": "Reboot"},
    ),
    (
        "Node auto-repair is initiating a redeploy action due to NotReady status persisting more "
        "than 5 minutes.",
        "aks.node_auto_repair",
        {"action": "redeploy"},
    ),
    # aws/eks-node-monitoring-agent issue #272 (the condition row)
    (
        "AcceleratedHardwareReady   False   NvidiaXID79Error   GPU 0 has fallen off the bus",
        "eks.accelerated_hardware_not_ready",
        {},
    ),
    # the EKS agent's NetworkingReady condition row, rendered
    (
        "  NetworkingReady      False   Mon, 01 Dec 2026 10:02:11 +0000   Mon, 01 Dec 2026 "
        "09:31:40 +0000",
        "eks.node_condition_not_ready",
        {"condition": "NetworkingReady"},
    ),
]

# (key, a healthy or other look-alike it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # k3s-io/k3s issue #6290: the node recovered
    (
        "kubelet.node_pressure",
        "  Normal   NodeHasNoDiskPressure    3m46s (x7 over 3m52s)  kubelet     Node node1 status "
        "is now: NodeHasNoDiskPressure",
    ),
    (
        "kubelet.node_pressure",
        "  Normal   NodeHasSufficientMemory  3m46s (x7 over 3m52s)  kubelet     Node node1 status "
        "is now: NodeHasSufficientMemory",
    ),
    # kubernetes/minikube issue #6820's healthy DiskPressure row (rendered from its columns) and a
    # DaemonSet pod's tolerations (rendered)
    (
        "kubelet.node_pressure",
        "  DiskPressure     False   Thu, 05 Mar 2020 20:32:46 -0800   Thu, 05 Mar 2020 20:26:07 "
        "-0800   KubeletHasNoDiskPressure     kubelet has no disk pressure",
    ),
    (
        "kubelet.node_pressure",
        "                 node.kubernetes.io/disk-pressure:NoSchedule op=Exists",
    ),
    # kubernetes/kops issue #4918 (the nodes whose route was created)
    (
        "kubelet.network_unavailable",
        "  NetworkUnavailable   False   Wed, 18 Apr 2018 12:56:46 +0100   Wed, 18 Apr 2018 "
        "12:56:46 +0100   RouteCreated                 RouteController created a route",
    ),
    # hetznercloud/hcloud-cloud-controller-manager issue #52 (the route controller at start-up)
    (
        "kubelet.network_unavailable",
        "I0624 07:26:43.749754       1 route_controller.go:269] node kubeworker3 has no routes "
        "assigned to it. NodeNetworkUnavailable will be set to true",
    ),
    # kubermatic/kubermatic issue #5025 (a healthy node's pressure conditions)
    (
        "kubelet.node_pressure",
        "  MemoryPressure       False   Sun, 02 Feb 2020 00:19:25 +0100   Sun, 02 Feb 2020 00:12:04 "
        "+0100   KubeletHasSufficientMemory   kubelet has sufficient memory available",
    ),
    (
        "kubelet.node_pressure",
        "  PIDPressure          False   Sun, 02 Feb 2020 00:19:25 +0100   Sun, 02 Feb 2020 00:12:04 "
        "+0100   KubeletHasSufficientPID      kubelet has sufficient PID available",
    ),
    (
        "npd.xfs_shutdown",
        "  XfsShutdown          False   Mon, 01 Dec 2026 10:02:11 +0000   Mon, 01 Dec 2026 "
        "09:31:40 +0000   XfsHasNotShutDown            XFS has not shutdown",
    ),
    ("npd.conntrack_full", "Conntrack table available"),
    # gpud's healthy states (rendered)
    ("gpud.row_remap_rma", "8 devices support remapped rows and found no issue"),
    ("gpud.gpu_count_mismatch", "nvidia gpu count matching thresholds (8)"),
    # leptonai/gpud pull request #351 (an RTX 4090 without row remapping: the check's own failure)
    (
        "gpud.row_remap_rma",
        "nvidia-smi GPU GPU 00000000:E1:00.0 failed to determine if it qualifies for RMA: invalid "
        'remapping failure occurred value: "", GPU product name "NVIDIA GeForce RTX 4090" does not '
        "support row remapping",
    ),
    (
        "gpud.nvlink_threshold_violated",
        "nvlink threshold satisfied: require >=8 GPUs with all links active; got 8",
    ),
    # NVSentinel: no action asked, and a healthy condition
    (
        "nvsentinel.remediation_requested",
        "ErrorCode:28002 NVSWITCH:0 Therm Warn Deactivated Recommended Action=NONE;",
    ),
    ("nvsentinel.remediation_requested", "No Health Failures"),
    # an SXID's five-digit code is not an XID
    (
        "nvsentinel.xid",
        "ErrorCode:28002 NVSWITCH:0 Therm Warn Deactivated Recommended Action=NONE;",
    ),
    # the device plugin's XID line is deviceplugin.xid's, not this entry's
    (
        "deviceplugin.device_unhealthy",
        "I0304 11:41:58.102113       1 health.go:177] XidCriticalError: Xid=94 on "
        "Device=GPU-d23d91a3; marking device as unhealthy.",
    ),
    # Project-HAMi/mock-device-plugin issue #14 (a mock plugin with no such device on the node)
    (
        "deviceplugin.device_unhealthy",
        "I0109 07:18:25.574948       1 device.go:174] device NVIDIA is unhealthy on this node",
    ),
    # the validator's healthy progress (NVIDIA/gpu-operator issue #1687)
    (
        "gpuoperator.driver_validation_retry",
        "INFO[0005] Attempting to validate a driver container installation",
    ),
    # AKS: the repair's end event
    (
        "aks.node_auto_repair",
        "Normal   NodeRebootEnd   1m   aks-auto-repair   Reboot action from node auto-repair has "
        "completed.",
    ),
    (
        "eks.accelerated_hardware_not_ready",
        "  AcceleratedHardwareReady   True    Mon, 01 Dec 2026 10:02:11 +0000   Mon, 01 Dec 2026 "
        "09:31:40 +0000",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_checker_output_matches_nothing_of_the_family() -> None:
    """Healthy states and progress lines read as nothing of this family."""
    healthy = [
        "  Normal   NodeHasSufficientPID     3m46s (x7 over 3m52s)  kubelet     Node node1 status "
        "is now: NodeHasSufficientPID",
        "No Health Failures",
        "8 devices support remapped rows and found no issue",
        "INFO[0005] Attempting to validate a driver container installation",
        "Conntrack table available",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_only_a_checker_with_its_evidence_names_the_node() -> None:
    """gpud's failed or pending row remapping reaches the naming threshold (60); checkers that say
    "unhealthy", ask for an action or count GPUs stay below it; symptoms and auto-repair act on no
    node."""
    naming = {"gpud.row_remap_rma", "gpud.row_remap_pending"}
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if key in naming:
            assert sig.blame is Blame.HARDWARE and 60 <= sig.weight <= 75, key
        else:
            assert sig.weight < 60, key
        if sig.blame in (Blame.SYMPTOM, Blame.TRANSIENT, Blame.INFO):
            assert sig.node_action.value == "none", key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= 30, key


def test_nvsentinel_xid_is_read_through_the_xid_catalog() -> None:
    """NVSentinel's XID 79 reads as the XID catalog's fallen-off-the-bus, beside its request."""
    signals = {s for s, _, _ in found("ErrorCode:79 gpu:0 XID error occured Recommended "
                                      "Action=NODE_REBOOT;", Source.SYSTEM)}  # fmt: skip
    assert "nvsentinel.remediation_requested" in signals
    assert any(s != "nvsentinel.remediation_requested" for s in signals), signals
