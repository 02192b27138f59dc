"""Golden lines for NVIDIA's node software stack (signatures-nvstack.toml): NVML,
libnvidia-container, the device plugin, kubelet admission, and agents restating XIDs."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import found


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # agents restating an XID: read through the XID catalog, like the driver's own line
        ("XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00", "xid.79", Blame.HARDWARE),
        ("XID 74 (NVLINK Error) detected on PCI:0000:04:00", "xid.74", Blame.HARDWARE),
        ("I0304 11:41:58.102113       1 health.go:177] XidCriticalError: Xid=48 on "
         "Device=GPU-d23d91a3; marking device as unhealthy.", "xid.48", Blame.HARDWARE),
        ("XID 13(Graphics Engine Exception) detected on PCI:0000:9b:00", "xid.13",
         Blame.APPLICATION),
        # the EKS node monitoring agent: rendered from its reason formats
        # (aws/eks-node-monitoring-agent reasons.yaml, dcgm tests; sweep round 6, no public line)
        ("AcceleratedHardwareReady   False   NvidiaXID79Error   GPU 0 has fallen off the bus",
         "xid.79", Blame.HARDWARE),
        ("Warning  NvidiaXID13Warning  node/ip-10-0-1-2.ec2.internal  XID 13 on GPU 0",
         "xid.13", Blame.APPLICATION),
        ('{"Reason":"NvidiaDeviceCountMismatch","Message":"DCGM detected 8 GPUs but 7 nvidia '
         'device files were detected at /dev","Severity":"Fatal"}',
         "eksagent.accelerated_hardware_fault", Blame.HARDWARE),
        # NVML and the driver
        ("Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the "
         "system to recover this GPU", "nvml.gpu_is_lost", Blame.HARDWARE),
        ("failed to get device remapped rows: ERROR_GPU_IS_LOST", "nvml.gpu_is_lost",
         Blame.HARDWARE),
        ("Failed to initialize NVML: Driver/library version mismatch", "nvml.version_mismatch",
         Blame.HARDWARE),
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make "
         "sure that the latest NVIDIA driver is installed and running.",
         "nvml.driver_unreachable", Blame.HARDWARE),
        ("Failed to initialize NVML: Unknown Error", "nvml.container_lost_devices",
         Blame.TRANSIENT),
        # libnvidia-container and kubelet
        ("stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, "
         "please update your driver to a newer version, or use an earlier cuda container: "
         "unknown.", "container.cuda_requirement", Blame.APPLICATION),
        ("nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
         "cannot open shared object file: no such file or directory: unknown",
         "container.driver_libraries_missing", Blame.HARDWARE),
        ("Warning  UnexpectedAdmissionError  12s  kubelet  Allocate failed due to no healthy "
         "devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is "
         "unexpected", "k8s.unexpected_admission", Blame.TRANSIENT),
    ],
)  # fmt: skip
def test_stack_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line)}
    assert signals.get(signal) is blame, signals


@pytest.mark.parametrize(
    "line",
    [
        "GPU 0: NVIDIA A10 (UUID: GPU-0b4ae1d2-83bd-4c5b-2a7f-2d6f1b6c9e01)",
        "NVML initialized successfully",
        "Device plugin registered with kubelet: nvidia.com/gpu",
        "the data loader lost its worker; is lost a word you would log?",
        # the agent failing to reach DCGM is no fault of the GPU (aws/containers-roadmap #2555)
        '{"level":"error","ts":"2025-03-04T07:57:23Z","msg":"failed to reconcile DCGM state",'
        '"hostname":"ip-10-10-15-1.eu-west-1.compute.internal","monitor":"nvidia","error":'
        '"failed to initialize DCGM: Error connecting to nv-hostengine: Host engine connection '
        'invalid/disconnected"}',
    ],
)
def test_stack_neighbours_do_not_match(line: str) -> None:
    assert found(line) == []


@pytest.mark.parametrize(
    "line",
    [
        "h100-s02:41230:41230 [3] transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'",
        "gpu7:2212:2290 [7] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'",
    ],
)
def test_nvls_setup_failures_point_at_the_node_fabric(line: str) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get("nccl.nvls_setup_failure") is Blame.HARDWARE, signals
    assert signals.get("nccl.cuda_failure") is Blame.SYMPTOM  # the generic reading stays
