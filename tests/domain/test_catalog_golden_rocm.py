"""Golden tests for the AMD GPU families (signatures-rocm.toml, signatures-amdgpu.toml).

The HIP runtime, ROCr, RCCL and the amdgpu kernel driver: real lines from public ROCm threads
(named beside each) must match with their captures and beat the generic exception entry;
healthy boot lines and look-alikes must not match; every signature's blame is pinned, and
only texts that say this node's GPU failed may name a node on their own. The shape rules must
read the AMD keys as the device family: the same GPU hang on every node is the job's, one
node's hang with its kernel's RAS error is that node's.
"""

from __future__ import annotations

import pytest

from autorecover.domain.attribution import attribute
from autorecover.domain.records import Blame, Cause, Source
from autorecover.domain.shape import family
from domain.golden import (
    CATALOG,
    SHAPE_NODES,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
    found,
    hits,
    shape_finding,
    shape_job,
    timeouts,
)

FILES = ("signatures-rocm.toml", "signatures-amdgpu.toml")
NAMESPACES = frozenset({"hip", "hsa", "rccl", "amdgpu", "amdsmi"})
FAMILY_KEYS = family_keys(FILES[0]) | family_keys(FILES[1])

REQUIRED: dict[str, Blame] = {
    # rocminfo's /dev/kfd check: the process's access (the job's) or the driver refusing (the node)
    "hsa.kfd_open_refused": Blame.APPLICATION,
    "hsa.kfd_open_failed": Blame.HARDWARE,
    # HIP runtime
    "hip.oom": Blame.APPLICATION,
    "hip.environment": Blame.APPLICATION,
    "hip.invalid_usage": Blame.APPLICATION,
    "hip.device_unavailable": Blame.HARDWARE,
    "hip.no_gpu_visible": Blame.APPLICATION,
    "hip.unknown_error": Blame.HARDWARE,
    # hipBLAS / rocBLAS statuses (s22-ddev depth review; tests/domain/test_catalog_depth_ddev.py)
    "hip.blas_bad_call": Blame.APPLICATION,
    "hip.blas_alloc_failed": Blame.APPLICATION,
    "hip.blas_execution_failed": Blame.SYMPTOM,
    "hip.blas_no_kernels_for_arch": Blame.APPLICATION,
    # ROCr
    "hsa.memory_fault": Blame.APPLICATION,
    "hsa.memory_fault_ecc": Blame.HARDWARE,
    "hsa.gpu_hang": Blame.HARDWARE,
    "hsa.hw_exception_ecc": Blame.HARDWARE,
    "hsa.kernel_fault": Blame.APPLICATION,
    "hsa.invalid_code": Blame.APPLICATION,
    "hsa.hardware_exception": Blame.SYMPTOM,
    "hsa.runtime_error": Blame.SYMPTOM,
    # RCCL's own lines
    "rccl.setup_warning": Blame.INFO,
    "rccl.rocr_failure": Blame.SYMPTOM,
    "rccl.hip_failure": Blame.SYMPTOM,
    "rccl.ipc_failed": Blame.SYMPTOM,
    "rccl.runtime_missing": Blame.APPLICATION,
    "rccl.topology_reverse_path": Blame.APPLICATION,
    # ROCm SMI
    "amdsmi.driver_not_loaded": Blame.HARDWARE,
    # amdgpu kernel driver
    "amdgpu.ring_timeout": Blame.TRANSIENT,
    "amdgpu.gpu_reset": Blame.INFO,
    "amdgpu.reset_failed": Blame.HARDWARE,
    "amdgpu.ras_uncorrectable": Blame.HARDWARE,
    "amdgpu.ras_fatal": Blame.HARDWARE,
    "amdgpu.ras_corrected": Blame.INFO,
    "amdgpu.bad_page_threshold": Blame.HARDWARE,
    "amdgpu.ras_poison_consumed": Blame.HARDWARE,
    "amdgpu.aca_error": Blame.HARDWARE,
    "amdgpu.vm_fault": Blame.APPLICATION,
    "amdgpu.init_failed": Blame.HARDWARE,
    "amdgpu.firmware_unresponsive": Blame.HARDWARE,
    "amdgpu.ip_early_init_failed": Blame.HARDWARE,
    "amdgpu.ring_test_failed": Blame.HARDWARE,
    # session 23 (mgpu) real-line mining; tests/domain/test_catalog_mined_mgpu.py
    "amdgpu.kfd_preemption_failed": Blame.TRANSIENT,
    # session 23 (m2accel) real-line mining; tests/domain/test_catalog_mined_m2accel.py
    "hip.miopen_kernel_build_failed": Blame.APPLICATION,
}

# The texts that say this node's GPU failed (ECC, a fatal RAS interrupt, uncorrectable counts, a
# failed reset, a retired-page table past its limit, a GPU the driver could not bring up): the
# only hardware entries heavy enough to name a node alone. The rest ("either") need company.
DECISIVE_HARDWARE = frozenset({
    "hsa.memory_fault_ecc", "hsa.hw_exception_ecc", "amdgpu.reset_failed",
    "amdgpu.ras_uncorrectable", "amdgpu.ras_fatal", "amdgpu.bad_page_threshold",
    "amdgpu.init_failed", "amdgpu.ras_poison_consumed",
})  # fmt: skip


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract(dict.fromkeys(FILES, NAMESPACES), REQUIRED)


def test_only_a_failed_gpu_names_a_node_alone() -> None:
    heavy = {
        k
        for k in FAMILY_KEYS
        if CATALOG.signatures[k].blame is Blame.HARDWARE and CATALOG.signatures[k].weight >= 60
    }
    assert heavy == DECISIVE_HARDWARE


def test_kernel_lines_come_from_the_system_log() -> None:
    for key in family_keys(FILES[1]):
        assert CATALOG.signatures[key].sources == frozenset({Source.SYSTEM}), key


def test_amd_keys_are_the_device_family() -> None:
    """Device keys are confined by key: the same one on every node is the job's or driver's."""
    for key in FAMILY_KEYS - {k for k in FAMILY_KEYS if k.startswith("rccl.")}:
        assert family(key) == "device", key
    assert family("rccl.ipc_failed") != "device"  # RCCL speaks for the collective, like NCCL


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # ROCm/ROCm issue #2216 (rocminfo; the render group hint follows)
        "hsa.kfd_open_refused",
        "Unable to open /dev/kfd read-write: Permission denied",
        {"error": "Permission denied"},
    ),
    (  # a public container build note (the container lacked --device /dev/kfd)
        "hsa.kfd_open_refused",
        "Unable to open /dev/kfd read-write: No such file or directory",
        {"error": "No such file or directory"},
    ),
    (  # ROCm/ROCm issue #5379 (a GPU stuck after VM passthrough; a reboot fixed it)
        "hsa.kfd_open_failed",
        "Unable to open /dev/kfd read-write: Invalid argument",
        {"error": "Invalid argument"},
    ),
    (  # ROCm/ROCm issue #1318 (its title)
        "hsa.kfd_open_failed",
        "Unable to open /dev/kfd read-write: Cannot allocate memory (DID 7340)",
        {"error": "Cannot allocate memory"},
    ),
    (  # pytorch/pytorch issue #164346 (torch 2.8+ raises AcceleratorError)
        "hip.environment",
        "torch.AcceleratorError: HIP error: invalid device function",
        {"error": "invalid device function"},
    ),
    (  # easydiffusion/easydiffusion issue #1400 (the runtime's quoted abort message)
        "hip.environment",
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"',
        {"error": "hipErrorNoBinaryForGpu"},
    ),
    (  # llnl/smith issue #1586 (a HIP program's own check, name and text)
        "hip.environment",
        "scan failed on 2nd step: hipErrorInvalidDeviceFunction: invalid device function",
        {"error": "hipErrorInvalidDeviceFunction"},
    ),
    (  # pytorch/pytorch issue #70036 (torch 1.10 printed the enum name)
        "hip.device_unavailable",
        "RuntimeError: HIP error: hipErrorNoDevice",
        {"error": "hipErrorNoDevice"},
    ),
    (  # ROCm/pytorch issue #639
        "hip.invalid_usage",
        "RuntimeError: HIP error: hipErrorInvalidValue",
        {"error": "hipErrorInvalidValue"},
    ),
    (  # keras-team/keras issue #13889 (TensorFlow's stream executor)
        "hip.oom",
        "2023-11-01 16:19:17.812101: E tensorflow/compiler/xla/stream_executor/rocm/"
        "rocm_driver.cc:606] failed to allocate 127.99TiB (140729850295296 bytes) from device: "
        "HIP_ERROR_OutOfMemory",
        {},
    ),
    (  # ROCm/legacy-rocm-build issue #1339 (address (nil))
        "hsa.memory_fault",
        "Memory access fault by GPU node-4 (Agent handle: 0x152e220) on address (nil). Reason: "
        "Page not present or supervisor privilege.",
        {"device": "node-4", "address": "(nil)"},
    ),
    (  # ROCm/legacy-rocm-build issue #5259 (gfx942, PyTorch)
        "hsa.gpu_hang",
        "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang",
        {"device": "node-4"},
    ),
    (  # ROCm/legacy-rocm-build issue #2153 (the older Device::callbackQueue wording)
        "hsa.kernel_fault",
        ":0:rocdevice.cpp :2672: 0696142325 us: 5999 : [tid:0x7f676e4c7640] "
        "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: "
        "The agent attempted to access memory beyond the largest legal address. code: 0x29",
        {"status": "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"},
    ),
    (  # doktor83/SRBMiner-Multi issue #206
        "hsa.kernel_fault",
        ":0:rocdevice.cpp            :2614: 102457364470 us: 6856 : [tid:0x7fe7bb747700] "
        "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_FAULT: Agent "
        "attempted to access an inaccessible address. code: 0x2b",
        {"status": "HSA_STATUS_ERROR_MEMORY_FAULT"},
    ),
    (  # ROCm/legacy-rocm-build issue #2533 (5.x DRM_ERROR form, no PCI address on the line)
        "amdgpu.ring_timeout",
        "Oct  7 12:58:23 Ubuntu-Desktop kernel: [ 2237.944235] [drm:amdgpu_job_timedout "
        "[amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=16060, emitted seq=16062",
        {"ring": "sdma0"},
    ),
    (  # ROCm/legacy-rocm-build issue #6127 (a compute ring on RDNA 4)
        "amdgpu.ring_timeout",
        "[   34.965321] amdgpu 0000:03:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=7, "
        "emitted seq=9",
        {"pci": "0000:03:00.0", "ring": "comp_1.1.0"},
    ),
    (  # ROCm/legacy-rocm-build issue #4021 (MI300X: RAS event id, no "amdgpu:" tag)
        "amdgpu.ras_fatal",
        "[13850.912648] amdgpu 0000:1c:00.0: {1}uncorrectable hardware error"
        "(ERREVENT_ATHUB_INTERRUPT) detected!",
        {"pci": "0000:1c:00.0", "event": "ERREVENT_ATHUB_INTERRUPT"},
    ),
    (  # rendered from kfd_int_process_v9.c through RAS_EVENT_LOG (6.10+: the "{N}" event id)
        "amdgpu.ras_poison_consumed",
        "kern  :err   : 2024-11-24T17:53:23,028841-06:00 amdgpu 0000:68:00.0: {14}poison is "
        "consumed by client 12, kick off gpu reset flow",
        {"pci": "0000:68:00.0", "client": "12"},
    ),
    (  # kfd_int_process_v9.c before 6.1
        "amdgpu.ras_poison_consumed",
        "amdgpu 0000:03:00.0: amdgpu: RAS poison consumption, fall back to gpu reset flow: "
        "client id 12",
        {"client_id": "12"},
    ),
    (  # amdgpu_ras_eeprom.c amdgpu_ras_eeprom_write
        "amdgpu.bad_page_threshold",
        "amdgpu 0000:08:00.0: amdgpu: Saved bad pages(176) reaches threshold value(128).",
        {"pci": "0000:08:00.0", "saved": "176", "limit": "128"},
    ),
    (  # rendered from amdgpu_ras.c's 6.8+ per-die format (the running total matches too)
        "amdgpu.ras_uncorrectable",
        "amdgpu 0000:05:00.0: amdgpu: socket: 0, die: 1, 3 uncorrectable hardware errors "
        "detected in total in umc block",
        {"count": "3", "block": "umc"},
    ),
    (  # ROCm/legacy-rocm-build issue #5616 (the kernel side of a ROCr memory access fault)
        "amdgpu.vm_fault",
        "[  178.460145] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 "
        "vmid:8 pasid:32786)",
        {"pci": "0000:c4:00.0", "hub": "gfxhub"},
    ),
    (  # ublue-os/bazzite issue #4464 (MES numbered per pipe)
        "amdgpu.firmware_unresponsive",
        "[32563.390101] amdgpu 0000:08:00.0: amdgpu: MES(1) failed to respond to msg=REMOVE_QUEUE",
        {"pci": "0000:08:00.0", "engine": "MES"},
    ),
    (  # ROCm/legacy-rocm-build issue #3265 (mes_v11_0.c's older wording)
        "amdgpu.firmware_unresponsive",
        "May 26 18:09:55 fedora kernel: [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0"
        " [amdgpu]] *ERROR* MES failed to response msg=3",
        {"engine": "MES"},
    ),
    (  # ellyq/coreboot issue #4 (the IP block that failed)
        "amdgpu.init_failed",
        "[    5.119896] [drm:amdgpu_device_init [amdgpu]] *ERROR* hw_init of IP block "
        "<gfx_v11_0> failed -110",
        {"block": "gfx_v11_0"},
    ),
    (  # ROCm/rccl issue #1026 (MI250X; the older init.cpp also asked for amd_iommu=on)
        "rccl.setup_warning",
        "g1072:1263985:1263985 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/"
        'extlibs/rccl/build/src/init.cpp:120 NCCL WARN Missing "amd_iommu=on" from kernel '
        "command line which can lead to system instablity or hang!",
        {"warning": 'Missing "amd_iommu=on" from kernel command line'},
    ),
    (  # ROCm/amdsmi issue #172 (amd-smi's wording)
        "amdsmi.driver_not_loaded",
        "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in modules)",
        {},
    ),
    (  # ROCm/hip issue #2265 (rocminfo)
        "amdsmi.driver_not_loaded",
        'Then I found that rocminfo: "ROCk module is NOT loaded, possibly no GPU devices".',
        {},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


def test_a_hip_error_beats_the_generic_exception() -> None:
    """The full scan of PyTorch's HIP error reads the build, not a bare Python exception."""
    assert found("RuntimeError: HIP error: invalid device function", Source.LOGS) == [
        ("hip.environment", Blame.APPLICATION, 65)
    ]


def test_torch_out_of_memory_is_counted_once() -> None:
    """torch 2.1+'s OutOfMemoryError is cuda.oom's; hip.oom steps aside (no double finding)."""
    line = (  # ROCm/legacy-rocm-build issue #4358
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.50 GiB. GPU 0 has a "
        "total capacity of 15.98 GiB of which 1.40 GiB is free."
    )
    assert [s for s, _, _ in found(line, Source.LOGS)] == ["cuda.oom"]


def test_cuda_entries_read_the_texts_hip_shares() -> None:
    """HIP keeps CUDA's words for these errors; the CUDA entries already judge them."""
    cases = {  # ROCm/legacy-rocm-build issue #5245; huggingface/autotrain-advanced issue #737
        "RuntimeError: HIP error: an illegal memory access was encountered": "cuda.illegal_memory_access",
        "RuntimeError: HIP error: no kernel image is available for execution on the device": "cuda.environment",
        "HIP error: uncorrectable ECC error encountered": "cuda.ecc_uncorrectable",
    }  # fmt: skip
    for line, key in cases.items():
        assert set(hits(line)) == {key}, line


def test_rccl_lines_are_read_by_the_nccl_entries() -> None:
    """RCCL keeps NCCL's wording: its CUDACHECK failure is nccl.cuda_failure's."""
    line = (  # ROCm/rccl issue #1454
        "UVOSLinux:19402:19419 [0] /usr/src/debug/rccl/build/hipify/src/transport/p2p.cc:237 "
        "NCCL WARN Cuda failure 'invalid argument'"
    )
    assert "nccl.cuda_failure" in hits(line)


NEGATIVE: list[tuple[str, str]] = [
    # healthy amdgpu boot and reset lines (ROCm/amdgpu issue #168, gnif/vendor-reset issue #3,
    # ROCm/legacy-rocm-build issues #1886, #6273 and #2533)
    ("*", "[    5.053960] amdgpu 0000:2b:00.0: amdgpu: RAS: optional ras ta ucode is not available"),
    ("*", "[    5.169022] amdgpu 0000:2b:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0"),
    ("*", "[    5.168158] amdgpu: Topology: Add dGPU node [0x743f:0x1002]"),
    ("*", "[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: MEM ECC is active."),
    ("*", "[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: SRAM ECC is active."),
    ("*", "[127037.809065] amdgpu 0000:c5:00.0: amdgpu: SMU is resumed successfully!"),
    ("*", "[41108.275168] [drm] VRAM is lost due to GPU reset!"),
    ("*", "[  312.774528] amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset failed"),
    ("*", "ROCk module version 6.10.5 is loaded"),
    ("*", "[   34.965512] amdgpu 0000:03:00.0: amdgpu: Ring comp_1.1.0 reset succeeded"),
    # a fault in the driver's own address space (vmid 0) during a reset is not the job's
    (
        "amdgpu.vm_fault",
        "amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:169 vmid:0 pasid:0, "
        "for process  pid 0 thread  pid 0)",
    ),
    # counts that are not errors, and corrected ones are not uncorrectable
    ("amdgpu.ras_uncorrectable", "amdgpu 0000:c3:00.0: amdgpu: 0 uncorrectable hardware errors detected in umc block"),
    ("amdgpu.ras_uncorrectable", "amdgpu 0000:0b:00.0: amdgpu: 3 correctable hardware errors detected in gfx block"),
    ("amdgpu.ras_corrected", "amdgpu 0000:0b:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block"),
    ("amdgpu.reset_failed", "amdgpu 0000:0c:00.0: amdgpu: GPU reset(2) succeeded!"),
    ("*", "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."),
    ("*", "For debugging consider passing AMD_SERIALIZE_KERNEL=3"),
    # an ECC memory fault is not the application's, a page fault is not ECC
    ("hsa.memory_fault", "Memory access fault by GPU node-3 (Agent handle: 0x55b017570c40) on address 0x7fcd499e6000. Reason: DRAM ECC failure."),
    ("hsa.memory_fault_ecc", "Memory access fault by GPU node-2 (Agent handle: 0x56468ab3bb50) on address 0x7fe55fb03000. Reason: Page not present or supervisor privilege."),
    # RCCL's ordinary INFO lines
    ("*", "nid001:5161:5196 [0] NCCL INFO RCCL version 2.20.5+hip6.2 HEAD:6b9b9d5"),
    ("*", "nid001:5161:5196 [0] NCCL INFO Channel 00/0 : 0[c000] -> 1[8000] via P2P/IPC comm 0x55"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)


# --- the shape rules on AMD findings -------------------------------------------------------------

NODES = SHAPE_NODES


def test_the_same_gpu_hang_on_every_node_is_the_job() -> None:
    fs = [shape_finding("hsa.gpu_hang", n, 60, Source.LOGS) for n in NODES]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_a_gpu_hang_with_a_fatal_ras_error_names_its_node() -> None:
    fs = [
        shape_finding("amdgpu.ras_fatal", "n3", 59, Source.SYSTEM),
        shape_finding("hsa.gpu_hang", "n3", 60, Source.LOGS),
        *timeouts("nccl.watchdog_timeout", but="n3"),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_a_gpu_hang_the_others_wait_on_names_its_node() -> None:
    """One node's GPU hang, with every other node waiting on it, is corroborated by the
    cascade: the node missing from it reported its own device fault."""
    fs = [
        shape_finding("hsa.gpu_hang", "n3", 60, Source.LOGS),
        *timeouts("nccl.watchdog_timeout", but="n3"),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_a_gpu_hang_with_nothing_around_it_names_no_node() -> None:
    """Weighed below 60, the hang alone is not enough to exclude a node."""
    v = attribute(shape_job(), [shape_finding("hsa.gpu_hang", "n3", 60, Source.LOGS)], [], {})
    assert v.suspect_nodes == ()


def test_a_memory_access_fault_is_the_application() -> None:
    fs = [
        shape_finding("hsa.memory_fault", "n2", 60, Source.LOGS),
        shape_finding("amdgpu.vm_fault", "n2", 60, Source.SYSTEM),
        *timeouts("nccl.watchdog_timeout", but="n2"),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
