"""Wording drift across GPU runtime and driver releases (s23-dgpu): DCGM's failure reasons as
DCGM 2.1-4.5 worded them (dcgmlib/dcgm_errors.h), NVIDIA's kernel driver messages across
515-580 (open-gpu-kernel-modules), and ROCm's HIP, HSA and RCCL texts across releases. Each line
is rendered from the format string of the release, file and function named beside it; the
catalog must read every release's wording of a message, not only the one an entry was written
from, and must keep leaving alone the look-alikes listed at the end."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import hits
from domain.golden import scanned_blames as found
from domain.golden import scanned_details as details

DCGM = [
    # rendered: DCGM v2.3.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_BROKEN_P2P_MEMORY_DEVICE_MSG
    (
        "GPU 2 was unsuccessfully written to in a peer-to-peer test: Memory mismatch",
        "dcgm.broken_p2p",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.3.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_BROKEN_P2P_WRITER_DEVICE_MSG
    (
        "GPU 0 unsuccessfully wrote data in a peer-to-peer test: cudaMemcpy returned an error",
        "dcgm.broken_p2p",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v4.0.0-v4.4.1 dcgmlib/dcgm_errors.h DCGM_FR_FABRIC_MANAGER_TRAINING_ERROR_MSG
    (
        "Fabric Manager (Cluster UUID: 7a9c1c1e-0000-0000-0000-000000000000, Clique ID: 32766): "
        "Fabric training failed.",
        "dcgm.fabric_manager",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v4.5.2 dcgmlib/dcgm_errors.h DCGM_FR_FIELD_THRESHOLD_DBL_MSG
    (
        "Detected 12.5 pcie_replay_counter for GPU 3 which is above the threshold 10.0",
        "dcgm.field_violation",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.3.4-v3.2.6 dcgmlib/dcgm_errors.h DCGM_FR_PENDING_ROW_REMAP_MSG
    (
        "GPU 1 has uncorrectable memory errors and row remappings are pending",
        "dcgm.row_remap_pending",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4 dcgmlib/dcgm_errors.h DCGM_FR_ROW_REMAP_FAILURE_MSG
    ("Error: Row remapping failed.", "dcgm.row_remap_failure", Blame.HARDWARE),
    # rendered: DCGM v3.2.5-v3.2.6 dcgmlib/dcgm_errors.h DCGM_FR_PCIE_REPLAYS_MSG (code 98)
    ("GPU 4 had PCIe replays, see dmesg for more information", "dcgm.pcie_replay", Blame.HARDWARE),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_CLOCK_THROTTLE_THERMAL_MSG
    (
        "Detected clock throttling due to thermal violation in GPU 2.",
        "dcgm.thermal",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4 dcgmlib/dcgm_errors.h DCGM_FR_THERMAL_VIOLATIONS_TS_MSG
    (
        "Thermal violations totaling 12 samples started at 3.0 seconds into the test for GPU 5",
        "dcgm.thermal",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_CLOCK_THROTTLE_POWER_MSG
    (
        "Detected clock throttling due to power violation in GPU 6.",
        "dcgm.power_clocks",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_THROTTLING_VIOLATION_MSG
    (
        "Clocks are being throttled for GPU 1 because of clock throttling starting 4.0 seconds into "
        "the test. HW Slowdown is engaged",
        "dcgm.power_clocks",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.1.8 dcgmlib/dcgm_errors.h DCGM_FR_PERSISTENCE_MODE_MSG
    (
        "Persistence mode for GPU 0 is currently disabled. The DCGM diagnostic requires peristence "
        "mode to be enabled.",
        "dcgm.diagnostic_setup",
        Blame.INFO,
    ),
    # rendered: DCGM v2.1.4-v4.0.0 dcgmlib/dcgm_errors.h DCGM_FR_TEST_DISABLED_MSG
    ("The Diagnostic test is skipped for this GPU.", "dcgm.diagnostic_setup", Blame.INFO),
    # rendered: DCGM v2.1.4-v2.4.7 dcgmlib/dcgm_errors.h DCGM_FR_BLACKLISTED_DRIVER_MSG
    ("Found blacklisted driver: nouveau", "dcgm.diagnostic_setup", Blame.INFO),
]


@pytest.mark.parametrize(("line", "signal", "blame"), DCGM)
def test_older_and_newer_wordings(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


NVRM = [
    # rendered: open-gpu-kernel-modules 525.147.05 src/nvidia/src/kernel/gpu/gsp/arch/turing/
    # kernel_gsp_tu102.c kgspWaitForGfwBootOk_TU102 (525-530; 545 adds ", VBIOS version %s")
    (
        "NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW_BOOT: 0x0 (progress 0x3)",
        "nvrm.gpu_boot_failed",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 545.29.06 same function
    (
        "NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW_BOOT: 0x0 (progress 0x3, VBIOS "
        "version 96.00.89.00.01)",
        "nvrm.gpu_boot_failed",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 530.41.03 kernel_gsp_tu102.c kgspWaitForGfwBootOk_TU102
    (
        "NVRM: kgspWaitForGfwBootOk_TU102: Timeout waiting for GFW_BOOT to complete",
        "nvrm.gpu_boot_failed",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 515.105.01 src/common/nvswitch/kernel/inc/
    # intr_nvswitch.h NVSWITCH_REPORT_FATAL ("Fatal, %s, instance=%d, chiplet=%d", 515-580)
    (
        "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 22013, Fatal, Minion Link DLREQ interrupt, "
        "instance=3, chiplet=1",
        "nvswitch.sxid_fatal",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 535.288.01 common/nvswitch (SOE command timeout)
    (
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 26005, Fatal, Timed out while waiting for SOE "
        "command completion. Data {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, "
        "0x00000000}",
        "nvswitch.sxid_fatal",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 515.105.01 intr_nvswitch.h NVSWITCH_REPORT_NONFATAL
    (
        "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12022, Non-fatal, ingress header DBE, "
        "instance=3, chiplet=1",
        "nvswitch.sxid_nonfatal",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 515.105.01 src/nvidia/kernel/vgpu/nv/rpc.c _issueRpcAsync
    (
        "NVRM: _issueRpcAsync: rpcSendMessage failed with status 0x00000065 for fn 76!",
        "nvrm.gsp_rpc_failed",
        Blame.SYMPTOM,
    ),
    # rendered: open-gpu-kernel-modules 580.142 src/nvidia/src/kernel/vgpu/rpc.c _issueRpcLarge
    (
        "NVRM: GPU0 _issueRpcLarge: rpcSendMessage failed with status 0x0000000f for fn 76!",
        "nvrm.gsp_rpc_gpu_lost",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 515.105.01 kernel_gsp.c _kgspRpcDrainOneEvent (decimal)
    (
        "NVRM: _kgspRpcDrainOneEvent: Failed to process received event 4098: status=0x0000000f",
        "nvrm.gsp_rpc_failed",
        Blame.SYMPTOM,
    ),
    # rendered: open-gpu-kernel-modules 525.147.05 kernel_gsp.c _kgspRpcDrainOneEvent
    (
        "NVRM: _kgspRpcDrainOneEvent: Failed to process received event 0x1002 (RUN_CPU_SEQUENCER): "
        "status=0x00000065",
        "nvrm.gsp_rpc_failed",
        Blame.SYMPTOM,
    ),
    # rendered: open-gpu-kernel-modules 565.77 src/nvidia/src/kernel/gpu/fsp/kern_fsp.c
    # kfspPollForCanSend_IMPL (565, 575)
    (
        "NVRM: kfspPollForCanSend_IMPL: Timed out waiting for FSP command queue to be empty.",
        "nvrm.fsp_timeout",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 570.211.01 kern_fsp.c kfspPollForCanSend_IMPL (570, 580)
    (
        "NVRM: kfspPollForCanSend_IMPL: Timed out waiting for FSP queues to be empty.",
        "nvrm.fsp_timeout",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 550.163.01 src/nvidia/src/kernel/gpu/mem_sys/arch/hopper/
    # kern_mem_sys_gh100.c kmemsysDoCacheOp_GH100 ("should not timeout, except for a HW bug")
    (
        "NVRM: GPU3 kmemsysDoCacheOp_GH100: - timeout error waiting for reg 0x1e42c update "
        "cnt=2000001",
        "nvrm.memsys_error",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 525.147.05 src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c
    # _kgspLogXid119 (525-530; "GSP Timeout" from 535) and arch/turing/kernel_gsp_tu102.c before
    # XID 120 (525-535)
    (
        "NVRM: _kgspLogXid119: ********************************* GSP Failure "
        "**********************************",
        "nvrm.gsp_timeout",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 525.147.05 kernel_gsp.c kgspInitRm_IMPL
    (
        "NVRM: kgspInitRm_IMPL: cannot bootstrap riscv/gsp: 0x65",
        "nvrm.gsp_init_failed",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 580.142 kernel_gsp.c kgspInitRm_IMPL
    (
        "NVRM: GPU0 kgspInitRm_IMPL: Max GSP-RM boot attempts exceeded: 3/3",
        "nvrm.gsp_init_failed",
        Blame.HARDWARE,
    ),
    # rendered: open-gpu-kernel-modules 515.105.01-580.142 kernel-open/nvidia/nv.c nvidia_init_module
    ("NVRM: No NVIDIA GPU found.", "nvrm.no_device_initialized", Blame.HARDWARE),
    # rendered: open-gpu-kernel-modules 535.288.01-580.142 kernel-open/nvidia/nv-pci.c nv_pci_probe
    ("NVRM: Fatal Error while attempting to resize PCIe BARs.", "nvrm.bar_invalid", Blame.HARDWARE),
    # rendered: open-gpu-kernel-modules 535.288.01-580.142 nv-pci.c nv_resize_pcie_bars
    ("NVRM: FATAL: Failed to re-allocate BAR1.", "nvrm.bar_invalid", Blame.HARDWARE),
]


@pytest.mark.parametrize(("line", "signal", "blame"), NVRM)
def test_driver_wordings_across_releases(line: str, signal: str, blame: Blame) -> None:
    signals = found(line, Source.SYSTEM)
    assert signals.get(signal) is blame, signals


ROCM = [
    # rendered: ROCm/rccl rocm-5.1.3 src/transport/p2p.cc p2pSendSetup ("[Rem Allocator]" prefix,
    # dropped in rocm-5.3.0)
    (
        "node01:5161:5196 [1] NCCL WARN [Rem Allocator] hipIpcGetMemHandle failed : invalid argument",
        "rccl.ipc_failed",
        Blame.SYMPTOM,
    ),
]


@pytest.mark.parametrize(("line", "signal", "blame"), ROCM)
def test_rocm_wordings_across_releases(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_captures_survive_the_wider_patterns() -> None:
    line = "GPU 2 was unsuccessfully written to in a peer-to-peer test: Memory mismatch"
    assert details(line, "dcgm.broken_p2p")["gpu"] == "2"
    line = "GPU 2 was unsuccessfully written to by GPU 0 over NVLink in a peer-to-peer test: x"
    assert details(line, "dcgm.broken_p2p") == {"gpu": "2", "writer": "0", "link": "NVLink"}
    line = "Fabric Manager (Cluster UUID: 7a9c, Clique ID: 32766): Fabric training failed."
    assert details(line, "dcgm.fabric_manager") == {"cluster": "7a9c", "clique": "32766"}
    line = "Detected 12.5 pcie_replay_counter for GPU 3 which is above the threshold 10.0"
    assert details(line, "dcgm.field_violation")["entity"] == "3"
    line = "GPU 1 has uncorrectable memory errors and row remappings are pending"
    assert details(line, "dcgm.row_remap_pending") == {"pending_gpu": "1"}
    line = "nvidia-nvswitch1: SXid (PCI:0000:aa:00.0): 20034, Fatal, Link 32 LTSSM Fault Up"
    assert details(line, "nvswitch.sxid_fatal", Source.SYSTEM) == {
        "pci": "0000:aa:00.0",
        "sxid": "20034",
        "link": "32",
    }
    line = "NVRM: _kgspRpcDrainOneEvent: Failed to process received event 4098: status=0x0000000f"
    assert details(line, "nvrm.gsp_rpc_failed", Source.SYSTEM) == {"event": "4098"}
    line = "n1:5161:5196 [1] NCCL WARN [Rem Allocator] hipIpcGetMemHandle failed : invalid argument"
    assert details(line, "rccl.ipc_failed") == {
        "call": "hipIpcGetMemHandle",
        "error": "invalid argument",
    }


LOOK_ALIKES = [
    # nvidia-smi -q's row-remapper section: a yes/no field, not a failure
    ("        Remapping Failure Occurred        : No", "dcgm.row_remap_failure"),
    ("Row remapping failed to allocate a spare row", "dcgm.row_remap_failure"),
    # an integer over threshold stays dcgm.field_threshold's (monitor), not the violation's
    ("Detected 12 xid_errors for GPU 3 which is above the threshold 10", "dcgm.field_violation"),
    # a non-fatal SXid is never the fatal entry's, a fatal one never the non-fatal's
    (
        "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12022, Non-fatal, ingress header DBE, "
        "instance=3, chiplet=1",
        "nvswitch.sxid_fatal",
    ),
    (
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 26005, Fatal, Unexpected PRI error",
        "nvswitch.sxid_nonfatal",
    ),
    # the driver's own "GSP" words that are not a failure banner
    ("NVRM: GSP Failure handling disabled by regkey", "nvrm.gsp_timeout"),
    ("NVRM: No NVIDIA GPU found in the list of supported devices", "nvrm.no_device_initialized"),
    # the GPU's SEC2 queue (580) is not the FSP
    (
        "NVRM: ksec2PollForCanSend: Timed out waiting for SEC2 command queue to be empty.",
        "nvrm.fsp_timeout",
    ),
    # another RPC path's own words are not rpcSendMessage's
    ("NVRM: _issueRpcAndWaitLarge: rpcRecvPoll timedout for fn 76!", "nvrm.gsp_rpc_gpu_lost"),
]


@pytest.mark.parametrize(("line", "signal"), LOOK_ALIKES)
def test_look_alikes_do_not_match(line: str, signal: str) -> None:
    assert signal not in hits(line)
