"""Golden lines from the round-4 tracker sweep of issue 14 over the NVIDIA driver, its GSP
firmware and the node's GPU stack: what the driver prints after `RmInitAdapter failed!` names the
stage that failed (the GSP firmware, the GPU's own boot firmware, a GPU in a bad state), the
unified-memory driver's reboot-required line, nvidia-smi's recovery action, the fabric manager's
version check and the GPU operator's renamed container CLI.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (open-gpu-kernel-modules' own sources are quoted in the catalog
entries). Look-alikes must not match, and a GPU that asks for nothing (`None`) is not a fault.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    found,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "nvrm.gsp_init_failed": Blame.HARDWARE,
    "nvrm.gpu_boot_failed": Blame.HARDWARE,
    "nvrm.uvm_fatal_reboot": Blame.HARDWARE,
    "nvml.recovery_action_required": Blame.HARDWARE,
    "fabricmanager.version_mismatch": Blame.HARDWARE,
    "container.driver_libraries_missing": Blame.HARDWARE,
    "nvrm.gsp_rpc_device_status": Blame.HARDWARE,
    "nvrm.gsp_firmware_missing": Blame.HARDWARE,
    "nccl.qp_setup_config": Blame.APPLICATION,
    "gpud.xid": Blame.INFO,
    "nvrm.fallen_off_bus": Blame.HARDWARE,
    "nccl.internal_error": Blame.SYMPTOM,
    "nvml.smi_field_error": Blame.HARDWARE,
    "nvml.smi_gpu_unreadable": Blame.HARDWARE,
    "nvrm.pmu_halted": Blame.HARDWARE,
    "nvrm.gsp_timeout": Blame.HARDWARE,
    "cuda.invalid_usage": Blame.APPLICATION,
    "gpud.fabric_manager_inactive": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # NVIDIA/open-gpu-kernel-modules issue #789 (dmesg of a 3090 host: no devices found)
    ("[  903.609564] NVRM: RmInitAdapter: Cannot initialize GSP firmware RM", "nvrm.gsp_init_failed", {}),
    # NVIDIA/open-gpu-kernel-modules issue #1230 (an H100 host's GPU6, the GPU index first)
    ("[   88.669358] NVRM: GPU6 RmInitAdapter: Cannot initialize GSP firmware RM", "nvrm.gsp_init_failed", {}),
    # NVIDIA/open-gpu-kernel-modules issue #789 (the GPU's VBIOS boot never finished)
    (
        "[ 2052.745833] NVRM: gpuWaitForGfwBootComplete_TU102: failed to wait for GFW_BOOT: "
        "(progress 0x3)",
        "nvrm.gpu_boot_failed",
        {},
    ),
    (
        "[ 2052.745838] NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: "
        "0x65 VBIOS version 94.02.59.00.05",
        "nvrm.gpu_boot_failed",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issues #1230 and #1058 (after the WPR2 line)
    (
        "[   88.669328] NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need "
        "to be reset)",
        "nvrm.gpu_boot_failed",
        {},
    ),
    # public session notes found through the code index (after XID 79, before XID 154)
    (
        "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os "
        "reboot to recover.",
        "nvrm.uvm_fatal_reboot",
        {"status": "0x60"},
    ),
    # utkuozdemir/nvidia_gpu_exporter issue #393 (nvidia-smi -q of a GPU shown as ERR!)
    ("    GPU Recovery Action                   : Reset", "nvml.recovery_action_required", {"action": "Reset"}),
    # public run notes found through the code index (cured by a reboot)
    ("GPU Recovery Action: Reboot", "nvml.recovery_action_required", {"action": "Reboot"}),
    # NVIDIA/gpu-operator issue #544 (journal of nv-fabricmanager)
    (
        "nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 "
        "don't match with driver version 530.41.03. Please update with matching NVIDIA driver "
        "package.",
        "fabricmanager.version_mismatch",
        {"fm": "530.30.02", "driver": "530.41.03"},
    ),
    # NVIDIA/nvtrust issue #55 (a typographic apostrophe, as pasted)
    (
        "fabric manager NVIDIA GPU driver interface version 550.90.07 don\u2019t match with driver "
        "version 550.107.02. Please update with matching NVIDIA driver package",
        "fabricmanager.version_mismatch",
        {"fm": "550.90.07", "driver": "550.107.02"},
    ),
    # akash-network/website pull request #632 (the newer wording)
    (
        "Nov 05 13:55:26 node1 nv-fabricmanager[104230]: fabric manager NVIDIA GPU driver "
        "interface version 550.127.05 doesn't match with driver version 550.120. Please update "
        "with the matching NVIDIA driver package.",
        "fabricmanager.version_mismatch",
        {"fm": "550.127.05", "driver": "550.120"},
    ),
    # NVIDIA/gpu-operator issue #511 (the operator's validator pods: nvidia-container-cli.real)
    (
        'Error: failed to create containerd task: OCI runtime create failed: nvidia-container-cli.real: '
        "initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object "
        "file: no such file or directory: unknown",
        "container.driver_libraries_missing",
        {"library": "libnvidia-ml.so.1"},
    ),
    # scitix/sichek issue #51 (before the Reset required assertion; nccl-tests on that GPU failed)
    (
        "[Sun Jan 11 09:52:01 2026] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; "
        "hParent=0x5c000054; hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; "
        "paramsStatus=0x00000062; status=0x00000062",
        "nvrm.gsp_rpc_device_status",
        {"rpc": "Alloc", "status": "0x00000062"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #639 (the kernel's firmware loader, file missing)
    (
        "[   12.036183] nvidia 0000:01:00.0: Direct firmware load for nvidia/550.76/gsp_ga10x.bin "
        "failed with error -2",
        "nvrm.gsp_firmware_missing",
        {"version": "550.76", "error": "-2"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #943 (the full path, as newer kernels print it)
    (
        "NVRM: loading /lib/firmware/nvidia/570.133.20/gsp_ga10x.bin failed with error -4",
        "nvrm.gsp_firmware_missing",
        {"version": "570.133.20", "error": "-4"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #116 (the older prefix without a colon)
    ("[    3.596583] NVRM RmInitAdapter: Cannot initialize GSP firmware RM", "nvrm.gsp_init_failed", {}),
    # NVIDIA/nccl issue #769 (NCCL_IB_GID_INDEX=1, a link-local GID; index 3 worked)
    (
        "_ibvwrap.cc: NCCL WARN Call to ibv_modify_qp failed with error Connection timed out",
        "nccl.qp_setup_config",
        {"error": "Connection timed out"},
    ),
    # NVIDIA/nccl-tests issue #185 (title)
    (
        "misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable",
        "nccl.qp_setup_config",
        {"error": "Network is unreachable"},
    ),
    # NVIDIA/nccl issue #799 (a RoCE port the container has no network device for)
    (
        "72bf7b08-26f3-4ebc-8b9d-85df3e4414c0:76786:77145 [3] misc/ibvwrap.cc:284 NCCL WARN Call to "
        "ibv_modify_qp failed with error No such device",
        "nccl.qp_setup_config",
        {"error": "No such device"},
    ),
    # NVIDIA/nccl issue #2013 (a comment; host and GIDs elided by the reporter)
    (
        "[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to "
        "ibv_modify_qp failed with 110 Connection timed out, on dev mlx_x:1, curr state INIT, next "
        "state RTR, local GID index 3, local GID ::ffff:xxx.xx.xx.xx, remote GID ::ffff:xxx.xx.xxx.xx",
        "nccl.qp_setup_config",
        {"error": "Connection timed out"},
    ),
    # NVIDIA/nccl src/misc/ibvwrap.cc printIbModifyQpHint, as NCCL_DEBUG=INFO prints it
    (
        "gpu-a02:71174:72905 [4] NCCL INFO HINT: In many cases this error occurs when the incorrect "
        "GID index is forced by NCCL_IB_GID_INDEX",
        "nccl.qp_setup_config",
        {"hint": "the incorrect GID index is forced by NCCL_IB_GID_INDEX"},
    ),
    # leptonai/gpud issue #1072 (newer gpud names the GPU and its UUID; read through the catalog)
    (
        '"reason":"XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00 '
        'UUID:GPU-c44c6e5f-72cf-8200-97c2-f9b9ebcf2dbb",',
        "gpud.xid",
        {"xid": "48", "pci": "0000:6b:00"},
    ),
    # leptonai/gpud's xid component tests (the mnemonic form, and an NVLink5 sub-code)
    (
        "XID 79 ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS GPU has fallen off the bus detected on "
        "GPU PCI:0000:01:00",
        "gpud.xid",
        {"xid": "79", "pci": "0000:01:00"},
    ),
    (
        "XID 149.37 (err status 0x00000000) NVLINK_NETIR_ERROR detected on GPU PCI:0000:00:00",
        "gpud.xid",
        {"xid": "149", "pci": "0000:00:00"},
    ),
    # NVIDIA/NVSentinel issue #155 (the three-line notice as a reporter pastes it on one line)
    (
        "NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen "
        "off the bus and is not responding to commands.",
        "nvrm.fallen_off_bus",
        {},
    ),
    # NVIDIA/nccl-tests issue #231 (nccl-tests quoting ncclInternalError's text)
    ("Test NCCL failure common.cu:997 'internal error'", "nccl.internal_error", {}),
    # utkuozdemir/nvidia_gpu_exporter issue #393 (the row of the GPU whose recovery action was Reset)
    (
        "|ERR!   68C    P2             99W /  130W |       1MiB /  20475MiB |     93%      Default |",
        "nvml.smi_field_error",
        {},
    ),
    # pytorch/test-infra pull request #3967 (a g5 runner's crashed GPU: even its name ERR!)
    (
        "|   0  ERR!                Off  | 00000000:00:1E.0 Off |                 ERR! |",
        "nvml.smi_gpu_unreadable",
        {},
    ),
    # the NVIDIA developer forum's Xid 62 report (RTX 5080, between XID 62 and XID 154)
    (
        "NVRM: GPU0 _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted.",
        "nvrm.pmu_halted",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1200 (the RPC poll's view of the same GSP stall)
    ("NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out", "nvrm.gsp_timeout", {}),
    ("NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out", "nvrm.gsp_timeout", {}),
    # vllm-project/vllm issue #9774 (the CUDACHECK macro's form, custom all-reduce under -tp 2)
    (
        "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:336 'invalid argument'",
        "cuda.invalid_usage",
        {"error": "invalid argument"},
    ),
    # leptonai/gpud pull request #1151 (an H100 node's fabric-manager component)
    (
        '"reason": "NVIDIA-H100-80GB-HBM3 checked fabric state; fabric manager found but not active",',
        "gpud.fabric_manager_inactive",
        {},
    ),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # the healthy state's reason
    ("gpud.fabric_manager_inactive", '"reason": "fabric manager found and active",'),
    # a job's own heartbeat is not the GPU's firmware
    ("nvrm.gsp_timeout", "torch elastic: worker heartbeat timed out after 30s"),
    # the healthy neighbour in the same table, and a passive card's N/A fan
    (
        "nvml.smi_field_error",
        "| 30%   33C    P8              4W /  130W |       1MiB /  20475MiB |      0%      Default |",
    ),
    (
        "nvml.smi_field_error",
        "| N/A   37C    P0             56W /  400W |       1MiB /  40960MiB |      0%      Default |",
    ),
    # a GPU that answers with its name, whatever its ECC column says
    (
        "nvml.smi_gpu_unreadable",
        "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                 ERR! |",
    ),
    # CTest's report of a test subprocess that died is not a Python exception
    (
        "python.base_exception",
        "1/1 Test #2: miopen_gtest_standard_suite ......Subprocess aborted***Exception: 85",
    ),
    # another tool's internal error quoted is not NCCL's
    ("nccl.internal_error", "Test failure: 'internal error in the tokenizer'"),
    # a sentence about an XID names no device
    ("gpud.xid", "XID 79 is usually detected on GPUs that overheat"),
    # the retry NCCL logs before giving up is not the failure; other errnos are not routing
    (
        "nccl.qp_setup_config",
        "NCCL INFO Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, "
        "curr state INIT, next state RTR, retrying 1/7 after 1000 msec of sleep",
    ),
    (
        "nccl.qp_setup_config",
        "NCCL WARN Call to ibv_modify_qp failed with 12 Cannot allocate memory",
    ),
    # another device's firmware missing is not the GPU's
    (
        "nvrm.gsp_firmware_missing",
        "iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-86.ucode failed with "
        "error -2",
    ),
    # a monitoring query the firmware does not support (NV_ERR_NOT_SUPPORTED) is the caller's
    (
        "nvrm.gsp_rpc_device_status",
        "NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00027; hObject=0x00000000; "
        "cmd=0x20800a4c; paramsSize=0x00000008; paramsStatus=0x00000056; status=0x00000056",
    ),
    # the DCE (Tegra display) firmware is not the GPU's GSP
    ("nvrm.gsp_init_failed", "NVRM: RmInitAdapter: Cannot initialize DCE firmware RM"),
    # a user's sentence about GSP names no failure
    ("nvrm.gsp_init_failed", "Should I disable GSP firmware RM with NVreg_EnableGpuFirmware=0?"),
    # a successful boot's progress is not a failure
    ("nvrm.gpu_boot_failed", "NVRM: GFW_BOOT completed (progress 0xff)"),
    ("nvrm.gpu_boot_failed", "the cluster is likely in a bad state after the upgrade"),
    # another driver's fatal error text
    ("nvrm.uvm_fatal_reboot", "amdgpu: encountered fatal error, requiring reset"),
    # a GPU that needs nothing, and the field's name in a script
    ("nvml.recovery_action_required", "    GPU Recovery Action                   : None"),
    ("nvml.recovery_action_required", "grep -A 2 'GPU Recovery Action'"),
    # the fabric manager starting fine prints its own version, not a mismatch
    (
        "fabricmanager.version_mismatch",
        "nv-fabricmanager[4177]: Fabric Manager version 550.90.07 is running with the following "
        "configuration options",
    ),
    # another library that failed to load is not the driver's
    (
        "container.driver_libraries_missing",
        "nvidia-container-cli.real: initialization error: load library failed: libfoo.so: "
        "cannot open shared object file",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_driver_lines_that_say_this_gpu_cannot_be_used_decide() -> None:
    """The driver's own words that a GPU failed to come up or needs a reset or a reboot name
    its node: they are the node's state, whatever set it off."""
    for key in ("nvrm.gsp_init_failed", "nvrm.gpu_boot_failed", "nvrm.uvm_fatal_reboot",
                "nvml.recovery_action_required", "fabricmanager.version_mismatch"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.weight >= 60, key
        assert sig.node_action.value != "none", key


def test_a_mismatched_installation_is_inspected_not_reset() -> None:
    """A fabric manager of another version is fixed by installing the right package: a GPU reset
    or a reboot alone does not cure it."""
    assert CATALOG.signatures["fabricmanager.version_mismatch"].node_action.value == "inspect"


LOCAL_CUDA_FAILURES = (
    "cuda.launch_failure",
    "cuda.library_execution_failed",
    "cuda.setup_either",
    "cuda.device_count_failed",
    "nccl.unhandled_cuda_error",
    "nccl.cuda_failure",
)


def test_one_process_cuda_failure_is_not_a_collective_symptom() -> None:
    """A CUDA call failing in one process is its own crash, not a peer's loss: below the 20 of
    a collective symptom, so alone it leaves the cause open rather than reading as a collective
    failure to retry; still a symptom, never the node's or the job's alone."""
    for key in LOCAL_CUDA_FAILURES:
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM, key
        assert 0 < sig.weight < 20, key


def test_an_agents_xid_is_read_through_the_xid_catalog() -> None:
    """gpud's newer reason names the GPU: the XID still decides through the catalog."""
    line = (
        '"reason":"XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00 '
        'UUID:GPU-c44c6e5f-72cf-8200-97c2-f9b9ebcf2dbb",'
    )
    assert [(signal, blame) for signal, blame, _ in found(line)] == [("xid.48", Blame.HARDWARE)]


def test_a_gpu_that_answers_in_part_stays_below_the_hardware_threshold() -> None:
    """ERR! in nvidia-smi's table and the PCI core's failed wake point at a GPU but may be a fan
    sensor or a laptop's power management: the driver's own lines decide."""
    for key in ("nvml.smi_field_error", "pcie.gpu_inaccessible", "gpud.fabric_manager_inactive"):
        assert 0 < CATALOG.signatures[key].weight < 60, key
