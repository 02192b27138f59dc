"""Golden lines from the round-3 tracker sweep of issue 14 over what users paste about the
NVIDIA driver and GPU health around training failures: NVRM kernel lines in their older and
GSP-era wordings, nvidia-smi's messages, and CUDA sample tools naming error 802.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a GPU gone from the bus on this host decides; a GSP banner or an
empty nvidia-smi listing stays below the hardware threshold because a driver bug or a container
given no GPU prints them too). Look-alikes must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "nvrm.gpu_off_bus_legacy": Blame.HARDWARE,
    "nvrm.gsp_timeout": Blame.HARDWARE,
    "nvml.no_devices_found": Blame.HARDWARE,
    "cuda.runtime_system_not_ready": Blame.HARDWARE,
    "nvrm.api_mismatch": Blame.HARDWARE,
    "nvml.version_mismatch": Blame.HARDWARE,
    "nvml.device_handle_failed": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # Bumblebee-Project/Bumblebee issue #554 (dmesg, the older driver's wording)
    (
        "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
        "nvrm.gpu_off_bus_legacy",
        {"pci": "0000:01:00.0"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1230 (the heartbeat, then the banner before XID 119)
    (
        "[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs "
        "812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200",
        "nvrm.gsp_timeout",
        {},
    ),
    (
        "[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP "
        "Timeout **********************************",
        "nvrm.gsp_timeout",
        {},
    ),
    # the shorter banner of _kgspLogXid119 in later drivers, as a journal line
    (
        "Dec 02 03:11:09 gpu-n3 kernel: NVRM: _kgspLogXid119: ***** GSP Timeout *****",
        "nvrm.gsp_timeout",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #789 (nvidia-smi with RmInitAdapter failed in dmesg)
    ("No devices were found", "nvml.no_devices_found", {}),
    # pytorch/pytorch issue #35710 (cuda-samples' bandwidthTest, no fabric manager)
    (
        "CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "
        '"cudaSetDevice(currentDevice)"',
        "cuda.runtime_system_not_ready",
        {},
    ),
    # stackhpc/ansible-slurm-appliance issue #287 (syslog with #012 for the newlines)
    (
        "Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03, "
        "but#012NVRM: this kernel module has the version 530.30.02.  Please#012NVRM: make sure "
        "that this kernel module and all NVIDIA driver#012NVRM: components have the same version.",
        "nvrm.api_mismatch",
        {"client": "535.54.03"},
    ),
    # saharmor/dalle-playground issue #104 (dmesg, the first line of the older wording)
    (
        "[ 7386.259769] NVRM: API mismatch: the client has the version 515.48.07, but",
        "nvrm.api_mismatch",
        {"client": "515.48.07"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #829 (the newer wording names the process)
    (
        "Apr 19 12:34:42 Kyrios kernel: NVRM: API mismatch: the client 'nvidia-powerd' (pid 849)",
        "nvrm.api_mismatch",
        {"process": "nvidia-powerd"},
    ),
    # saharmor/dalle-playground issue #104 (libnvidia-container prints NVML's text lowercased)
    (
        "stderr: nvidia-container-cli: initialization error: nvml error: driver/library version "
        "mismatch: unknown",
        "nvml.version_mismatch",
        {},
    ),
    # nvidia-smi 610.57.04 in a public session log (the index before the PCI address)
    (
        "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:34:00.0", "error": "Unknown Error"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #387 (the older form, a GPU that fell off)
    (
        "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:0B:00.0"},
    ),
    # cihlab/fics-cluster-guide issue #53 (no space, next to NVSwitch SXid errors)
    (
        "Unable to determine the device handle for GPU0000:20:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:20:00.0"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # the current wording is gpu.fell_off_bus's, with its own PCI form
    ("nvrm.gpu_off_bus_legacy", "NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus."),
    # a user's sentence about it names no device
    ("nvrm.gpu_off_bus_legacy", "I think the GPU at slot 2 has fallen off the bus again"),
    # a job's own RPC timeout is not the GPU's firmware
    ("nvrm.gsp_timeout", "RuntimeError: RPC Timeout after 60000 ms (rpc_timeout)"),
    ("nvrm.gsp_timeout", "grpc heartbeat timed out after 30s"),
    # other tools' empty listings carry more words
    ("nvml.no_devices_found", "No devices were found matching the filter 'mlx5_*'"),
    ("nvml.no_devices_found", "lspci: No devices were found on bus 3, continuing"),
    # the success code and other codes are not 802
    ("cuda.runtime_system_not_ready", "cudaGetDeviceCount returned 0 -> cudaSuccess"),
    ("cuda.runtime_system_not_ready", "CUDA error at x.cu:10 code=100(cudaErrorNoDevice)"),
    # another program's API version check is not the driver's
    ("nvrm.api_mismatch", "grpc: API mismatch: the client has the version 1.2, but server 1.3"),
    ("nvml.version_mismatch", "tokenizer/library version mismatch: 0.13 vs 0.15"),
    # an error NVML returns for a caller's mistake is not a wedged GPU
    (
        "nvml.device_handle_failed",
        "Unable to determine the device handle for GPU 7: Invalid Argument",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_a_gpu_gone_from_the_bus_decides() -> None:
    sig = CATALOG.signatures["nvrm.gpu_off_bus_legacy"]
    assert sig.weight >= 60
    assert sig.node_action.value == "reboot"


def test_lines_that_may_be_software_stay_below_the_hardware_threshold() -> None:
    """A GSP banner may be a driver bug, error 802 a fabric manager not started: alone they name
    no node; the XID or RmInitAdapter lines do."""
    for key in ("nvrm.gsp_timeout", "cuda.runtime_system_not_ready"):
        assert 0 < CATALOG.signatures[key].weight < 60, key


def test_nvidia_smi_finding_no_gpu_names_the_node() -> None:
    """nvidia-smi ignores CUDA_VISIBLE_DEVICES: 'No devices were found' with the driver loaded is
    the node's GPUs, driver or container device set-up (pytorch/pytorch #87890 and #167118), so
    it reaches the weight that names a node; on every node at once the shape rule names none."""
    sig = CATALOG.signatures["nvml.no_devices_found"]
    assert (sig.blame, sig.weight) == (Blame.HARDWARE, 60)
