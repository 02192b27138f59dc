"""Golden lines from the third tracker sweep of issue 14 over JAX/XLA/TPU and AMD ROCm failure
output: libtpu's session master and initialization, XLA's StreamExecutor set-up, abseil's
failure-signal report, HIP's kernel-file error, RCCL's topology check and the amdgpu driver's
init and ring self-tests.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a session master's report about another worker a symptom, a
host without usable TPUs or a wrong GPU ordinal the job's configuration, a driver that could not
bring up or self-test a GPU below the hardware threshold). Look-alikes must not match, and none
of these lines may read as the application's error unless the entry means it.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "xla.tpu_session_failure": Blame.SYMPTOM,
    "xla.tpu_no_device": Blame.APPLICATION,
    "xla.tpu_in_use": Blame.SYMPTOM,
    "xla.tpu_device_busy": Blame.HARDWARE,
    "xla.stream_executor_bad_ordinal": Blame.APPLICATION,
    "xla.fatal_signal": Blame.SYMPTOM,
    "hip.environment": Blame.APPLICATION,
    "rccl.topology_reverse_path": Blame.APPLICATION,
    "amdgpu.ip_early_init_failed": Blame.HARDWARE,
    "amdgpu.ring_test_failed": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # AI-Hypercomputer/maxtext#2041 (benchmarks/maxtest/getting_started.md: the session master)
    (
        "E0511 18:18:50.796514     915 session_master.cc:505] Session is failing with the "
        "following status: Session master detected TPU session error from worker "
        "tpu-job-jax-v6e-8-5-15.headless-svc:8471. The reporting TPU chip locations "
        "are:tpu31:pe4:3,",
        "xla.tpu_session_failure",
        {"worker": "tpu-job-jax-v6e-8-5-15"},
    ),
    # AI-Hypercomputer/maxtext#2041 (tpunetd, the same failure)
    (
        "E0511 18:18:50.796852     915 tpunetd_client.cc:311] Detected failure "
        "SLICE_FAILURE_CHIP_DRIVER_ERROR in session e6c885828b538167; Start failure handling",
        "xla.tpu_session_failure",
        {"failure": "SLICE_FAILURE_CHIP_DRIVER_ERROR"},
    ),
    # AI-Hypercomputer/maxtext#87 (Colab)
    (
        "XlaRuntimeError: UNKNOWN: TPU initialization failed: No ba16c7433 device found.",
        "xla.tpu_no_device",
        {"reason": "ba16c7433 device found"},
    ),
    # Ray TPU workers whose visible chips named chips the host lacks (public bug notes)
    (
        "pjrt_state.cc:247] PjrtBackend::GetClient failed to initialize: FAILED_PRECONDITION: "
        "GetPjrtClient failed: TPU initialization failed: No TPU devices found after filtering",
        "xla.tpu_no_device",
        {"reason": "TPU devices found after filtering"},
    ),
    # huggingface/community-events#157 (libtpu's older lockfile wording)
    (
        "libtpu.so already in used by another process. Not attempting to load libtpu.so in this "
        "process.",
        "xla.tpu_in_use",
        {},
    ),
    # marin-community/marin#2618 (the older TPU-system wording of a busy VFIO group)
    (
        "Failed to initialize TPU system with error: FAILED_PRECONDITION: open(/dev/vfio/0): "
        "Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0",
        "xla.tpu_device_busy",
        {"group": "0"},
    ),
    # jax-ml/jax#23452 (Slurm, one GPU per task)
    (
        "2024-09-05 07:57:34.555804: W external/xla/xla/service/platform_util.cc:199] unable to "
        "create StreamExecutor for CUDA:1: failed initializing StreamExecutor for CUDA device "
        "ordinal 1: INTERNAL: Failed call to cuDeviceGet: CUDA_ERROR_INVALID_DEVICE: invalid "
        "device ordinal",
        "xla.stream_executor_bad_ordinal",
        {"platform": "CUDA", "ordinal": "1"},
    ),
    # the TensorFlow-era wording of the same (cuDevicePrimaryCtxRetain)
    (
        "unable to create StreamExecutor for CUDA:0: failed initializing StreamExecutor for CUDA "
        "device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: "
        "CUDA_ERROR_INVALID_DEVICE: invalid device ordinal 0",
        "xla.stream_executor_bad_ordinal",
        {"ordinal": "0"},
    ),
    # jax-ml/jax#9642 (abseil's failure-signal handler on a TPU VM)
    (
        "*** SIGABRT received by PID 545434 (TID 545434) on cpu 25 from PID 545434; stack "
        "trace: ***",
        "xla.fatal_signal",
        {"signal": "SIGABRT"},
    ),
    # ROCm/rocm-systems#5229 (an RCCL build without code for gfx1201)
    ("RuntimeError: HIP error: hipErrorInvalidKernelFile", "hip.environment", {}),
    # ROCm/rccl#1728 (4x MI300X, every rank)
    (
        "[rank2]: Failed to find reverse path from remNode 0/200000 nlinks 3 to node 0/700000",
        "rccl.topology_reverse_path",
        {},
    ),
    # ROCm/legacy-rocm-build#4021 (MI300X under SR-IOV)
    (
        "[   15.144375] [drm:amdgpu_device_ip_early_init [amdgpu]] *ERROR* early_init of IP "
        "block <psp> failed -22",
        "amdgpu.ip_early_init_failed",
        {"block": "psp", "code": "-22"},
    ),
    # a missing sdma firmware file (public kernel patch notes, amdgpu_device.c)
    (
        "[drm:amdgpu_device_init [amdgpu]] *ERROR* early_init of IP block <sdma_v4_0> failed -19",
        "amdgpu.ip_early_init_failed",
        {"block": "sdma_v4_0", "code": "-19"},
    ),
    # ellyq/coreboot#4 (the MES KIQ ring at init)
    (
        "[    5.101754] amdgpu 0000:03:00.0: [drm:amdgpu_ring_test_helper [amdgpu]] *ERROR* ring "
        "mes_kiq_3.1.0 test failed (-110)",
        "amdgpu.ring_test_failed",
        {"pci": "0000:03:00.0", "ring": "mes_kiq_3.1.0", "code": "-110"},
    ),
    # public amd-gfx bug reports (the IB tests after an SMU hang)
    (
        " amdgpu 0000:04:00.0: amdgpu: ib ring test failed (-110).",
        "amdgpu.ring_test_failed",
        {"pci": "0000:04:00.0", "code": "-110"},
    ),
    (
        "[drm:amdgpu_ib_ring_tests [amdgpu]] *ERROR* IB test failed on gfx_0.0.0 (-110).",
        "amdgpu.ring_test_failed",
        {"ib_ring": "gfx_0.0.0"},
    ),
]

# (signal, line that must NOT match it)
NEGATIVE: list[tuple[str, str]] = [
    # a session that is merely created or closed is no failure
    (
        "xla.tpu_session_failure",
        "I0511 18:10:02.000000   915 session_master.cc:200] Session started",
    ),
    # libtpu refusing a device it may not open is the EPERM entry's, not "no device"
    (
        "xla.tpu_no_device",
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: open(/dev/accel2): "
        "Operation not permitted",
    ),
    # another reason for a StreamExecutor that could not start is the device's, not the ordinal
    (
        "xla.stream_executor_bad_ordinal",
        "2025-09-01 18:38:59.204949: W external/xla/xla/service/platform_util.cc:220] unable to "
        "create StreamExecutor for CUDA:0: CUDA error: : CUDA_ERROR_UNKNOWN: unknown error",
    ),
    # a Python fault handler's own wording is not abseil's report
    ("xla.fatal_signal", "Fatal Python error: Segmentation fault"),
    # an RCCL topology INFO line is no failed path search
    ("rccl.topology_reverse_path", "NCCL INFO Connected all rings, use ring PXN 0 GDR 1"),
    # an IP block the driver skips (ENOENT is not a failure) prints no error; a passing test neither
    (
        "amdgpu.ip_early_init_failed",
        "amdgpu 0000:03:00.0: amdgpu: detected ip block number 3 <psp>",
    ),
    ("amdgpu.ring_test_failed", "[drm] ring test on sdma0 succeeded in 1 usecs"),
    (
        "amdgpu.ring_test_failed",
        "amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_another_workers_failure_names_no_host_here() -> None:
    """The session master reports a failure found on some worker: never decisive for this host."""
    sig = CATALOG.signatures["xla.tpu_session_failure"]
    assert sig.weight < 50
    assert sig.node_action.value == "none"


def test_driver_init_and_ring_self_tests_stay_below_the_hardware_threshold() -> None:
    """Missing firmware files, an unsupported virtualization mode or a firmware hang print the
    same lines as a failing GPU: alone they name no node, but the node is to be looked at."""
    for key in ("amdgpu.ip_early_init_failed", "amdgpu.ring_test_failed"):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < 60, key
        assert sig.node_action.value in {"inspect", "monitor"}, key
