"""Golden tests for the other accelerators (signatures-accelerators.toml).

AWS Neuron's runtime and driver, Intel Gaudi's SynapseAI and habanalabs driver, Intel GPUs'
Level Zero / Unified Runtime, oneCCL and i915: real lines from public threads (named beside
each; the rest rendered from the emitter's format, as the catalog file says) must match with
their captures; healthy lines and look-alikes must not; every signature's blame is pinned, and
only texts that say this node's device failed may name a node on their own. The shape rules
must read the keys as the device family: the same lost device on every node is the job's.
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
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
    hits,
    shape_finding,
    shape_job,
    timeouts,
)

FILE = "signatures-accelerators.toml"
NAMESPACES = frozenset({"neuron", "neuroncoll", "habana", "xpu", "i915"})
FAMILY_KEYS = family_keys(FILE)

REQUIRED: dict[str, Blame] = {
    # AWS Neuron runtime and driver
    "neuron.hw_uncorrectable": Blame.HARDWARE,
    "neuron.dma_abort": Blame.HARDWARE,
    "neuron.exec_error": Blame.HARDWARE,
    "neuron.oom": Blame.APPLICATION,
    "neuron.invalid_usage": Blame.APPLICATION,
    "neuron.cores_unavailable": Blame.HARDWARE,
    "neuron.driver_mismatch": Blame.HARDWARE,
    "neuron.driver_mempool_full": Blame.APPLICATION,
    "neuroncoll.exec_timeout": Blame.SYMPTOM,
    "neuroncoll.net_setup_failed": Blame.SYMPTOM,
    # Intel Gaudi
    "habana.device_acquire_failed": Blame.HARDWARE,
    "habana.oom": Blame.APPLICATION,
    "habana.device_reset": Blame.SYMPTOM,
    "habana.reset_failed": Blame.HARDWARE,
    "habana.init_failed": Blame.HARDWARE,
    "habana.heartbeat_failed": Blame.HARDWARE,
    "habana.gpu_reset": Blame.INFO,
    # Intel GPUs
    "xpu.device_lost": Blame.HARDWARE,
    "xpu.oom": Blame.APPLICATION,
    "xpu.invalid_usage": Blame.APPLICATION,
    "i915.gpu_hang": Blame.TRANSIENT,
    # session 23 (m2accel) real-line mining; tests/domain/test_catalog_mined_m2accel.py
    "neuron.nrt_failure": Blame.SYMPTOM,
    "habana.launch_thread_exception": Blame.SYMPTOM,
    "neuron.compile_failed": Blame.APPLICATION,
}

# The texts that say this node's device or its driver stack failed: the only hardware entries
# heavy enough to name a node alone. The rest ("either") need company.
DECISIVE_HARDWARE = frozenset({
    "neuron.hw_uncorrectable", "neuron.driver_mismatch", "habana.reset_failed",
    "habana.init_failed",
})  # fmt: skip

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, REQUIRED)


def test_only_a_failed_device_names_a_node_alone() -> None:
    heavy = {
        k
        for k in FAMILY_KEYS
        if CATALOG.signatures[k].blame is Blame.HARDWARE and CATALOG.signatures[k].weight >= 60
    }
    assert heavy == DECISIVE_HARDWARE


def test_the_jobs_errors_do_not_act_on_the_node() -> None:
    assert_no_node_action(
        k for k in FAMILY_KEYS if CATALOG.signatures[k].blame in {Blame.APPLICATION, Blame.SYMPTOM}
    )


def test_kernel_lines_come_from_the_system_log() -> None:
    kernel = {"habana.reset_failed", "habana.init_failed", "habana.heartbeat_failed",
              "habana.gpu_reset", "i915.gpu_hang", "neuron.driver_mempool_full"}  # fmt: skip
    for key in FAMILY_KEYS:
        wanted = {Source.SYSTEM} if key in kernel else {Source.LOGS}
        assert CATALOG.signatures[key].sources == frozenset(wanted), key


def test_device_keys_are_the_device_family() -> None:
    """Device keys are confined by key: the same one on every node is the job's or driver's."""
    for key in FAMILY_KEYS - {k for k in FAMILY_KEYS if k.startswith("neuroncoll.")}:
        assert family(key) == "device", key
    assert family("neuroncoll.exec_timeout") != "device"  # the collective's, like NCCL's


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # aws-neuron/aws-neuron-sdk issue #351 (TensorFlow's Neuron op)
        "neuron.exec_error",
        "2021-11-01 06:02:18.992183: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES "
        "failed at neuron_op.cc:44 : Internal: tensorflow/neuron/runtime/direct/adaptor.cc:446:"
        'Execute failed: nrt_execute: status=1004, error message="Execution was completed with '
        'other errors".',
        {"code": "1004"},
    ),
    (  # vllm-project/vllm issue #12443 (transformers-neuronx on inf2)
        "neuron.oom",
        "ERROR 02-11 14:20:32 engine.py:389] RuntimeError: nrt_tensor_allocate status=4 "
        'message="Allocation Failure"',
        {},
    ),
    (  # aws-neuron-sdk nrt-troubleshoot.rst ("Neuron Core is in use")
        "neuron.cores_unavailable",
        "2021-Aug-27 23:22:12.0323 28078:28078 ERROR   NRT:nrt_allocate_neuron_cores         "
        "      NeuronCore(s) not available - Requested:nc1-nc1 Available:0",
        {},
    ),
    (  # aws-neuron/aws-neuron-samples issue #44 (a notebook left holding the device)
        "neuron.cores_unavailable",
        "RuntimeError: Neuron runtime cannot be initialized; cannot determine the number of "
        "available NeuronCores",
        {},
    ),
    (  # aws-neuron/aws-neuron-sdk issue #851
        "neuron.cores_unavailable",
        "2024-May-21 16:08:34.244955 58100:58100 ERROR  TDRV:tdrv_init_mla_phase1             "
        "       Could not open the nd3",
        {},
    ),
    (  # aws-neuron-sdk nrt-troubleshoot.rst ("Application fails to start")
        "neuron.driver_mismatch",
        "2021-Aug-11 18:38:27.0917 13713:13713 ERROR   NRT:nrt_init      Unable to determine "
        "Neuron Driver version. Please check aws-neuron-dkms package is installed.",
        {},
    ),
    (  # aws-neuron-sdk nrt-troubleshoot.rst ("Unsupported NEFF Version")
        "neuron.invalid_usage",
        "NEFF version mismatch supported: 1.1 received: 2.0",
        {},
    ),
    (  # aws-neuron/aws-neuron-parallelcluster-samples issue #25 (NeMo on 4 trn1 nodes)
        "neuroncoll.net_setup_failed",
        "2024-Jan-11 19:01:15.502435 18506:21252 ERROR   ENC:configure_net_connector          "
        "       [rank 0, channel 0] failed to register channel buffer, addr: 0x0x7fd881000000, "
        "len: 50331648",
        {},
    ),
    (  # aws-neuron/aws-neuron-sdk issue #1390 (the status name as reported)
        "neuron.dma_abort",
        "indirect dma_transpose with invalid index with OOB skip will fail with "
        "`NRT_EXEC_HW_ERR_DMA_ABORT`",
        {},
    ),
    (  # huggingface/tgi-gaudi issue #93
        "habana.device_acquire_failed",
        "RuntimeError: synStatus=20 [Device already acquired] Device acquire failed.",
        {"status": "20", "text": "Device already acquired"},
    ),
    (  # HabanaAI/hccl_demo issue #44
        "habana.device_acquire_failed",
        "HCCL demo error: In function initDevice(): synDeviceAcquire(&resources.deviceHandle, "
        "nullptr) failed with synapse error: 20",
        {"code": "20"},
    ),
    (  # HabanaAI/Setup_and_Install issue #1 (the same boot, the device CPU first)
        "habana.heartbeat_failed",
        "[   72.993087] habanalabs hl2: Failed to communicate with Device CPU (CPU-CP timeout)",
        {"device": "hl2"},
    ),
    (  # rendered from device.c hl_device_heartbeat (6.7+)
        "habana.heartbeat_failed",
        "habanalabs hl5: Device heartbeat failed! PCI link is broken",
        {"device": "hl5", "link": "broken"},
    ),
    (  # intel/intel-extension-for-pytorch issue #640
        "xpu.oom",
        "terminate called after throwing an instance of 'ccl::v1::exception'  what():  oneCCL: "
        "ze_call.cpp:28 do_call: EXCEPTION: ze error at zeCommandQueueExecuteCommandLists, code: "
        "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
        {},
    ),
    (  # ALCF's Aurora known issues (DPC++'s PI names, before the Unified Runtime)
        "xpu.invalid_usage",
        "  what():  The device does not have the ext_intel_free_memory aspect -33 "
        "(PI_ERROR_INVALID_DEVICE)",
        {"name": "PI_ERROR_INVALID_DEVICE"},
    ),
    (  # NixOS/nixos-hardware pull request #1790
        "i915.gpu_hang",
        "i915 0000:00:02.0: [drm] GT0: Resetting chip for stopped heartbeat on rcs0",
        {"pci": "0000:00:02.0", "reason": "stopped heartbeat on rcs0"},
    ),
    (  # FreeBSDDesktop/DEPRECATED-freebsd-base-graphics issue #2 (the older form)
        "i915.gpu_hang",
        "[drm] GPU HANG: ecode 7:0:0x87c3ffff, reason: Ring hung, action: reset",
        {},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


def test_status_names_and_codes_read_alike() -> None:
    """A status printed by name reads as the same entry as its number."""
    cases = {
        "NRT_EXEC_HW_ERR_HBM_UE": "neuron.hw_uncorrectable",
        "NRT_EXEC_HW_ERR_NC_UE": "neuron.hw_uncorrectable",
        "NRT_EXEC_HW_ERR_COLLECTIVES": "neuroncoll.exec_timeout",
        "NRT_TIMEOUT": "neuroncoll.exec_timeout",
        "NRT_EXEC_BAD_INPUT": "neuron.invalid_usage",
        "NRT_EXEC_NC_BUSY": "neuron.cores_unavailable",
    }
    for name, key in cases.items():
        assert set(hits(f"Execute failed with status {name}")) & FAMILY_KEYS == {key}, name


def test_a_device_error_beats_the_generic_exception() -> None:
    """The full scan of a Python exception carrying a device error reads the device."""
    line = "RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)"
    assert found(line, Source.LOGS) == [("xpu.device_lost", Blame.HARDWARE, 45)]


def test_torch_xpu_out_of_memory_is_cuda_ooms() -> None:
    """torch XPU's OutOfMemoryError keeps CUDA's words: cuda.oom judges it, once."""
    line = (  # intel/torch-xpu-ops (c10/xpu allocator's message, as reported)
        "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 59.61 GiB. GPU 0 has a "
        "total capacity of 28.55 GiB of which 12.01 GiB is free."
    )
    assert [s for s, _, _ in found(line, Source.LOGS)] == ["cuda.oom"]


NEGATIVE: list[tuple[str, str]] = [
    # healthy Neuron runtime lines (aws-neuron/aws-neuron-sdk issue #1018)
    ("*", "2024-Oct-21 20:16:04.966660  7838:7838   INFO   NRT:nrt_init                                Neuron Runtime 2.22.14.0 built on Sep  4 2024"),
    ("*", "2024-Oct-21 20:16:04.966686  7838:7838   INFO   NRT:nrt_init                                Found neuron driver: 2.18"),
    ("*", "2024-Oct-21 20:16:04.966842  7838:7838   INFO   NRT:nrt_allocate_neuron_cores               Instance info:: device count:1 cores per device:2 architecture:TRN"),
    # success and pending statuses, and other tools' "status=" fields
    ("*", "nrt_execute status=0"),
    ("*", 'nrt_execute: status=1100, error message="collective operation is still pending".'),
    ("*", "HTTP/1.1 request done status=5 retries=2"),
    ("neuroncoll.exec_timeout", "nrt_execute status=50"),
    # healthy habanalabs boot lines (HabanaAI/Setup_and_Install issue #1, a journald listing)
    ("*", "[   43.051361] habanalabs hl1: Successfully loaded firmware to device"),
    ("*", "habanalabs hl0: Loading secured firmware to device, may take some time..."),
    ("*", "Habanalabs hl-smi/hlml version hl-1.11.0-fw-45.1.1.1 (Aug 04 2023 - 02:48:21)"),
    # a successful status and the driver resetting after a user released the device
    ("*", "synStatus=0 [Success] Device acquired."),
    ("habana.gpu_reset", "habanalabs hl0: Going to reset device after release by user"),
    # Level Zero's success and not-ready results, and a benign i915 line
    ("*", "zeCommandQueueSynchronize returned ZE_RESULT_SUCCESS"),
    ("*", "zeEventQueryStatus: ZE_RESULT_NOT_READY"),
    ("*", "i915 0000:00:02.0: [drm] GT0: GUC: submission enabled"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)


# --- the shape rules on these findings -----------------------------------------------------------

NODES = SHAPE_NODES


def test_the_same_lost_device_on_every_node_is_the_job() -> None:
    fs = [shape_finding("xpu.device_lost", n, 60, Source.LOGS) for n in NODES]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_an_uncorrectable_hbm_error_names_its_node() -> None:
    fs = [
        shape_finding("neuron.hw_uncorrectable", "n3", 60, Source.LOGS),
        *timeouts("neuroncoll.exec_timeout", but="n3"),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_a_dma_abort_alone_names_no_node() -> None:
    """Weighed below 60, a DMA abort alone is not enough to exclude a node."""
    v = attribute(shape_job(), [shape_finding("neuron.dma_abort", "n2", 60, Source.LOGS)], [], {})
    assert v.suspect_nodes == ()


def test_a_failed_gaudi_reset_names_its_node() -> None:
    fs = [
        shape_finding("habana.heartbeat_failed", "n4", 58, Source.SYSTEM),
        shape_finding("habana.reset_failed", "n4", 59, Source.SYSTEM),
        shape_finding("habana.device_reset", "n4", 60, Source.LOGS),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n4",))


def test_neuron_out_of_memory_is_the_application() -> None:
    fs = [
        shape_finding("neuron.oom", "n1", 30, Source.LOGS),
        *timeouts("neuroncoll.exec_timeout", but="n1"),
    ]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
