"""Golden lines for the driver's non-XID reports (signatures-nvrm.toml): NV_STATUS codes,
adapter init and GSP boot failures, NVSwitch SXids, CUDA driver device-fault codes, DCGM."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import found


@pytest.mark.parametrize(
    ("line", "signal", "blame", "source"),
    [
        ("NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus "
         "[NV_ERR_GPU_IS_LOST] (0x0000000F) returned from pRmApi->Control(...)",
         "nvrm.gpu_lost_status", Blame.HARDWARE, Source.SYSTEM),
        ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] "
         "(0x00000062) returned from kchannelCtrlCmdResetIsolatedChannel",
         "nvrm.device_fault_status", Blame.HARDWARE, Source.SYSTEM),
        ("NVRM: knvlinkCoreTrainLinks: Nvlink Training Error [NV_ERR_NVLINK_TRAINING_ERROR]",
         "nvrm.device_fault_status", Blame.HARDWARE, Source.SYSTEM),
        ("kernel: NVRM: GPU 0000:b5:00.0: RmInitAdapter failed! (0x62:0x55:2477)",
         "nvrm.init_adapter_failed", Blame.HARDWARE, Source.SYSTEM),
        # awslabs/amazon-eks-ami pull request #2769 (a g7 node's proprietary module, then
        # RmInitAdapter failed: the image, not the GPU)
        ("kernel: NVRM: installed in this system requires use of the NVIDIA open kernel modules.",
         "nvrm.open_modules_required", Blame.APPLICATION, Source.SYSTEM),
        ("kernel: NVRM: _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP",
         "nvrm.gsp_wpr2_up", Blame.HARDWARE, Source.SYSTEM),
        ("nvidia-nvswitch1: SXid (PCI:0000:aa:00.0): 24007, Severity 1 Engine instance 12 "
         "Sub-engine instance 00", "nvswitch.sxid_fatal", Blame.HARDWARE, Source.SYSTEM),
        ("nvidia-nvswitch2: SXid (PCI:0000:06:00.0): 12028, Fatal, Link 44 egress non-posted PRIV "
         "error", "nvswitch.sxid_fatal", Blame.HARDWARE, Source.SYSTEM),
        ("nvidia-nvswitch3: SXid (PCI:0000:07:00.0): 20034, Non-fatal, Link 32 LTSSM Fault Up",
         "nvswitch.sxid_nonfatal", Blame.HARDWARE, Source.SYSTEM),
        ("[ 4012.113350] nvidia-nvswitch0: SXid (PCI:0004:00:00.0): 26006, SOE HALTED",
         "nvswitch.soe_failure", Blame.HARDWARE, Source.SYSTEM),
        ("nvidia-nvswitch0: SXid (PCI:0004:00:00.0): 26008, SOE Watchdog error",
         "nvswitch.soe_failure", Blame.HARDWARE, Source.SYSTEM),
        ("Accelerator Fatal Error: call to cuCtxCreate returned error 214 "
         "(CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered",
         "cuda.driver_device_fault", Blame.HARDWARE, Source.LOGS),
        ("nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a FAILURE in health system "
         "Memory: 'A double bit ECC error occurred on GPU 5.", "dcgm.health_failure",
         Blame.HARDWARE, Source.SYSTEM),
        ("nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a WARNING in health system "
         "Thermal: 'Detected clocks event due to thermal violation in GPU 2.",
         "dcgm.health_warning", Blame.HARDWARE, Source.SYSTEM),
        ("Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error",
         "nvml.device_handle_failed", Blame.HARDWARE, Source.SYSTEM),
        # vllm-project/vllm pull request #37210 (one node's faulted GPU, at `from vllm import LLM`)
        ("vllm.third_party.pynvml.NVMLError_Unknown: Unknown Error", "nvml.py_unknown_error",
         Blame.HARDWARE, Source.LOGS),
        # rendered: nvidia-ml-py pynvml.py's class for NVML_ERROR_CORRUPTED_INFOROM
        ("pynvml.NVMLError_CorruptedInforom: Corrupted infoROM", "nvml.py_device_fault",
         Blame.HARDWARE, Source.LOGS),
        ("pcieport 0000:c0:03.1: AER: Uncorrected (Fatal) error received: id=c018",
         "pcie.aer_fatal_received", Blame.HARDWARE, Source.SYSTEM),
        ("ib0: transmit timeout: latency 9864 msecs", "ib.ipoib_tx_timeout", Blame.HARDWARE,
         Source.SYSTEM),
    ],
)  # fmt: skip
def test_driver_lines(line: str, signal: str, blame: Blame, source: Source) -> None:
    signals = {s: b for s, b, _ in found(line, source)}
    assert signals.get(signal) is blame, signals


@pytest.mark.parametrize(
    "line",
    [
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15",
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Invalid argument [NV_ERR_INVALID_ARGUMENT]",
        "nvidia-nvswitch0: NVLink training complete on all links",
        "nvidia-nvswitch0: SXid (PCI:0004:00:00.0): 26006, SOE HALT data[0] = 0x               0",
        "cuInit returned CUDA_ERROR_NO_DEVICE on a login node",
        # cuda.h: a kernel's stack overflow is the job's; a contained error is either way
        "RuntimeError: CUDA driver error: CUDA_ERROR_HARDWARE_STACK_ERROR",
        "failed with CUDA_ERROR_CONTAINED",
        "pcieport 0000:00:02.0: AER: Uncorrected (Non-Fatal) error received: 0000:02:00.0",
        # pynvml codes that are the caller's, not the device's (rendered)
        "pynvml.NVMLError_NotSupported: Not Supported",
        "pynvml.nvml.NVMLError_NoPermission: Insufficient Permissions",
    ],
)
def test_driver_neighbours_name_no_device_fault(line: str) -> None:
    assert all(b is not Blame.HARDWARE for _, b, _ in found(line))


def test_a_failed_probe_is_a_missing_gpu() -> None:
    line = "[Mon Jul 20 01:15:52 2026] NVRM: The NVIDIA probe routine failed for 1 device(s)."
    assert {s: b for s, b, _ in found(line)}.get("nvrm.probe_failed") is Blame.HARDWARE
