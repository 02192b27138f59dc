"""Golden lines from the round-5 tracker sweep of issue 14 over hardware faults as training jobs
see them: the node's own health check (LBNL NHC and the Azure HPC checks built on it),
`nvidia-smi`'s reports of an inactive NVLink, a failed row remapping and an engaged hardware
slowdown, the CUDA driver's contained-error code, NCCL's IB resiliency and its last error as
PyTorch quotes it, and the EFA completion statuses that say a request failed the device's checks.

Each line is cited beside it and goes through the scanner's own matcher. A line names a node's
part as failed only when it says so; where the same text comes from a check's configuration or the
job's own use (the NHC hardware checks, an inactive link without a fabric manager, a contained
error that was an invalid peer access) the weight stays under the threshold of 60, so other
evidence on the node must agree before it is named.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, golden_line_checks

BLAME: dict[str, Blame] = {
    "nhc.hardware_check_failed": Blame.HARDWARE,
    "nhc.health_check_failed": Blame.SYMPTOM,
    "nvml.nvlink_inactive": Blame.HARDWARE,
    "nvml.smi_row_remap_failure": Blame.HARDWARE,
    "nvml.hw_slowdown_active": Blame.HARDWARE,
    "cuda.contained_error": Blame.HARDWARE,
    "nccl.last_error_cuda_failure": Blame.SYMPTOM,
    "nccl.last_error_cuda_oom": Blame.APPLICATION,
    "nccl.ib_resiliency_failure": Blame.SYMPTOM,
    "nvml.smi_reset_required": Blame.HARDWARE,
    "nvml.not_ready": Blame.HARDWARE,
    "efa.request_invalid": Blame.SYMPTOM,
    "nic.mlx5_fatal_sensor": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # mej/nhc issue #147 (a custom XID check on a node with XID 63)
    (
        "ERROR:  nhc:  Health check failed:  Check check_xid_errors returned 1",
        "nhc.hardware_check_failed",
        {"check": "check_xid_errors"},
    ),
    # mej/nhc pull request #152 (a full /tmp made the hardware checks fail: not a broken part)
    (
        "ERROR:  nhc:  Health check failed:  check_hw_cpuinfo:  Actual CPU socket count (1) does "
        "not match expected (2).",
        "nhc.hardware_check_failed",
        {"check": "check_hw_cpuinfo"},
    ),
    # NVIDIA/deepops pull request #660 (a deliberately wrong GPU count in nhc.conf)
    (
        "ERROR:  nhc:  Health check failed:  Check check_nv_gpu_count 2 returned 1",
        "nhc.hardware_check_failed",
        {"check": "check_nv_gpu_count"},
    ),
    # the Azure HPC health checks' troubleshooting notes (check_gpu_bw on an H100 node)
    (
        "ERROR:  nhc:  Health check failed:  check_gpu_bw: P2P test on GPU 1 to GPU 0 failed. "
        "Bandwidth 162.45 is less than 335. FaultCode: NHC2020",
        "nhc.hardware_check_failed",
        {"check": "check_gpu_bw"},
    ),
    (
        "ERROR:  nhc:  Health check failed:  collect_nccl_allreduce_data: nccl_allreduce returned "
        "error code 3. FaultCode: NHCNA",
        "nhc.hardware_check_failed",
        {"check": "collect_nccl_allreduce_data"},
    ),
    # mej/nhc issue #161 (the syslog form; the check that timed out was the site's hook)
    (
        "2025-06-11T19:12:23.050922+00:00 cpu001 nhc[1013622]: Health check failed:  Script timed "
        "out.",
        "nhc.health_check_failed",
        {"reason": "Script timed out."},
    ),
    # mej/nhc issue #134 (NHC itself hung on a problematic node)
    (
        "ERROR:  nhc:  Health check failed:  Watchdog timer unable to terminate hung NHC process "
        "16263.",
        "nhc.health_check_failed",
        {"reason": "Watchdog timer unable to terminate hung NHC process 16263."},
    ),
    # a check of free memory measures load, not a part (the form of mej/nhc's own test lines)
    (
        "ERROR:  nhc:  Health check failed:  check_hw_mem_free:  1mb",
        "nhc.health_check_failed",
        {"reason": "check_hw_mem_free:  1mb"},
    ),
    # Azure/azhpc-diagnostics issue #73 (`nvidia-smi nvlink -s`, GPU 3 of a V100 node)
    ("         Link 3: <inactive>", "nvml.nvlink_inactive", {"link": "3"}),
    # NVIDIA/open-gpu-kernel-modules issue #1150 (title; after XID 149 on one GPU)
    (
        "NVML:Unable to retrieve Nvlink information as all links are inActive",
        "nvml.nvlink_inactive",
        {},
    ),
    # nvidia-smi -q's Remapped Rows section as leptonai/gpud pull request #80 quotes it, with the
    # failure a public health-check fixture renders (aws/eks-node-monitoring-agent issue #245)
    ("    Remapping Failure Occurred        : Yes", "nvml.smi_row_remap_failure", {}),
    # the rows as kubeflow/kubeflow issue #68 and mlfoundations/open_clip issue #703 quote them
    # (there Not Active), with the value a throttled GPU shows
    (
        "            HW Thermal Slowdown           : Active",
        "nvml.hw_slowdown_active",
        {"reason": "Thermal"},
    ),
    ("        HW Slowdown                       : Active", "nvml.hw_slowdown_active", {}),
    (
        "            HW Power Brake Slowdown       : Active",
        "nvml.hw_slowdown_active",
        {"reason": "Power Brake"},
    ),
    # marin-community/marin issue #8870 (GB200: the first node of the domain that faulted)
    (
        "CUDA_ERROR_CONTAINED: Invalid access of peer GPU memory over nvlink or a hardware error",
        "cuda.contained_error",
        {},
    ),
    # NVIDIA-NeMo/Megatron-Bridge issue #1901 (GB200, under ncclUnhandledCudaError)
    ("[rank112]: Cuda failure 2 'out of memory'", "nccl.last_error_cuda_oom", {}),
    # a public project's notes found through the code index (NCCL before 2.19: no code)
    ("[rank2]: Cuda failure 'out of memory'", "nccl.last_error_cuda_oom", {}),
    # a public launcher's diagnostics test found through the code index, quoting a recorded
    # failure (802 after NVLS setup, read by cuda.device_unavailable beside it)
    (
        "[rank0]: Cuda failure 802 'system not yet initialized'",
        "nccl.last_error_cuda_failure",
        {"code": "802", "text": "system not yet initialized"},
    ),
    # NVIDIA/nccl issue #2157 (a maintainer's analysis: a port taken down on one host, 2.28+)
    (
        "[2026-05-04 19:55:27] GPU-606:534134:535429 [1] transport/net_ib/p2p_resiliency.cc:325 "
        "NCCL WARN NET/IB: ncclIbResiliencyHandleDeviceFailure: Device 0 marked as failed. "
        "Initiating recovery? Yes (send comm=0x7f03e8086000, outstandingRecovery=0)",
        "nccl.ib_resiliency_failure",
        {"device": "0"},
    ),
    # NVIDIA/nccl src/transport/net_ib/p2p_resiliency.cc (its fatal branch, as a log prints it)
    (
        "NCCL WARN NET/IB: The error is fatal (No functional devices left). Cannot continue.",
        "nccl.ib_resiliency_failure",
        {"reason": "No functional devices left"},
    ),
    # a public server hand-over note found through the code index (`nvidia-smi -i 2 -q` on the
    # one GPU of eight whose CUDA initialisation failed)
    (
        "    Reset Required                    : Yes",
        "nvml.smi_reset_required",
        {"field": "Reset Required"},
    ),
    ("Fan Speed                             : System is not in ready state", "nvml.not_ready", {}),
    ("Graphics                              : System is not in ready state", "nvml.not_ready", {}),
    # libfabric prov/efa/src/efa_errno.h statuses 7 and 6 in efa_rdm_txe_handle_error()'s warn
    # line, as scripts/catalog_emitters/efa.toml renders it (no public line found)
    (
        "libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: "
        "Remote memory registration is invalid, has insufficient access flags or does not match "
        "IOVA My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: "
        "i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 "
        "Peer host id: i-0ce6d3d57139f053c (7)",
        "efa.request_invalid",
        {"error": "Remote memory registration is invalid"},
    ),
    (
        "err: 5, message: Message too long My EFA addr: N/A My host id: N/A Peer EFA addr: N/A "
        "Peer host id: N/A (6)",
        "efa.request_invalid",
        {"error": "Message too long"},
    ),
    # torvalds/linux mlx5 health.c poll_health, as scripts/catalog_emitters/kernel.toml renders it
    (
        "mlx5_core 0000:41:00.0: mlx5_health_check_fatal_sensors:220:(pid 0): Fatal error 1 "
        "detected",
        "nic.mlx5_fatal_sensor",
        {"sensor": "1"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # a passed check, and health checks of other software
    (
        "nhc.health_check_failed",
        "SUCCESS:  nhc:  Health check passed:  check_gpu_count: Expected 8 and found 8",
    ),
    (
        "nhc.hardware_check_failed",
        "SUCCESS:  nhc:  Health check passed:  check_gpu_xid:  GPU XID error check passed.",
    ),
    ("nhc.health_check_failed", "Elasticsearch health check failed:  timeout"),
    # a hardware check is not also the generic one, and a mount check is not hardware
    (
        "nhc.health_check_failed",
        "ERROR:  nhc:  Health check failed:  check_gpu_ecc: GPU id 3: SRAM Uncorrectable ECC",
    ),
    (
        "nhc.hardware_check_failed",
        "ERROR:  nhc:  Health check failed:  check_fs_mount:  /home not mounted",
    ),
    # an active link reports its speed; an NHC script's grep for the word
    ("nvml.nvlink_inactive", "         Link 0: 25.781 GB/s"),
    ("nvml.nvlink_inactive", 'if [[ $nvlink_output == *"inactive"* ]]; then'),
    # the healthy state of the same fields
    ("nvml.smi_row_remap_failure", "    Remapping Failure Occurred        : No"),
    ("nvml.hw_slowdown_active", "        HW Slowdown                       : Not Active"),
    ("nvml.hw_slowdown_active", "        SW Thermal Slowdown               : Active"),
    # other contained errors: XID 94's own line is the XID catalog's, a contained NVSwitch error
    (
        "cuda.contained_error",
        "NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained: SM (0x1).",
    ),
    # NCCL's own WARN line is nccl.cuda_failure / nccl.cuda_oom, nccl-tests' is its own wording
    (
        "nccl.last_error_cuda_failure",
        "x:1:2 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
    ),
    (
        "nccl.last_error_cuda_oom",
        "x:1:2 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
    ),
    ("nccl.last_error_cuda_oom", "[rank0]: Cuda failure 'invalid argument'"),
    ("nccl.last_error_cuda_failure", "[rank112]: Cuda failure 2 'out of memory'"),
    # a device already failed over is not a new failure; a Python error's own "fatal" wording
    ("nccl.ib_resiliency_failure", "NCCL INFO NET/IB: Device 1 was already marked as failed"),
    ("nccl.ib_resiliency_failure", "RuntimeError: The error is fatal (see above)."),
    # a socket's EMSGSIZE is not EFA's; the peer-side statuses are efa.peer_unreachable's
    ("efa.request_invalid", "sendmsg: Message too long"),
    (
        "efa.request_invalid",
        "err: 5, message: Connection was reset by remote peer My EFA addr: N/A My host id: N/A "
        "Peer EFA addr: N/A Peer host id: N/A (8)",
    ),
    # a reset requested on purpose (NIC_SW_RESET) and another driver's fatal error
    (
        "nic.mlx5_fatal_sensor",
        "mlx5_core 0000:41:00.0: poll_health:720:(pid 0): Fatal error 4 detected",
    ),
    ("nic.mlx5_fatal_sensor", "ice 0000:3b:00.0: Fatal error 1 detected"),
    # the healthy and unsupported states of the reset fields; XID 154's own line is the XID's
    ("nvml.smi_reset_required", "        Reset Required                    : No"),
    ("nvml.smi_reset_required", "        Drain and Reset Recommended       : N/A"),
    (
        "nvml.smi_reset_required",
        "NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU "
        "Reset Required)",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_texts_that_software_prints_as_well_stay_under_the_threshold() -> None:
    """A health check's configuration, a stopped fabric manager or an invalid peer access reads
    the same as the part failing: these name no node alone."""
    for key in ("nhc.hardware_check_failed", "nvml.nvlink_inactive", "nvml.hw_slowdown_active",
                "cuda.contained_error", "nvml.not_ready"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.weight < 60, key
        assert sig.node_action.value == "inspect", key


def test_a_gpu_the_driver_holds_failed_decides() -> None:
    """A failed row remapping (an RMA criterion, as XID 64) and a GPU that requires a reset are
    the driver's own statement that this GPU cannot run work: they name its node."""
    for key in ("nvml.smi_row_remap_failure", "nvml.smi_reset_required"):
        sig = CATALOG.signatures[key]
        assert sig.weight >= 60, key
        assert sig.node_action.value != "none", key
