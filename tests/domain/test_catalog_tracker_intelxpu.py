"""Golden lines from the second sweep over Intel's GPU stack (signatures-intelxpu.toml): the
Level Zero and Unified Runtime results the first sweep left open, DPC++'s older "Native API
failed" text, torch's XPU device check, IPEX's torch version check, oneCCL's KVS bootstrap
timeout, and the i915 and xe drivers' engine resets, timed-out jobs, failed resets and wedged
GPUs.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a driver that could not reset its GPU, or
wedged it, names the node; a driver that would not initialise, or a device asking for a reset,
is weakly the node's; a timed-out xe job is the hang i915.gpu_hang reads; engine and context
resets, unspecific runtime results and oneCCL's bootstrap wait restate a fault another line
names; no visible XPU, an IPEX built for another torch and an out-of-resources result are the
job's. Look-alikes (healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.attribution import attribute
from autorecover.domain.records import Blame, Cause, Source
from autorecover.domain.shape import COLLECTIVE, STRONG, family
from domain.golden import (
    CATALOG,
    SHAPE_NODES,
    assert_family_keys,
    family_keys,
    golden_line_checks,
    hits,
    shape_finding,
    shape_job,
)

FILE = "signatures-intelxpu.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "xpu.uninitialized": Blame.HARDWARE,
    "xpu.device_requires_reset": Blame.HARDWARE,
    "xpu.out_of_resources": Blame.APPLICATION,
    "xpu.runtime_error_unspecific": Blame.SYMPTOM,
    "xpu.no_gpus_available": Blame.APPLICATION,
    "ipex.torch_version_mismatch": Blame.APPLICATION,
    "oneccl.kvs_connect_timeout": Blame.SYMPTOM,
    "i915.context_reset": Blame.SYMPTOM,
    "i915.engine_reset": Blame.SYMPTOM,
    "i915.engine_reset_failed": Blame.SYMPTOM,
    "i915.reset_failed": Blame.HARDWARE,
    "xe.job_timedout": Blame.TRANSIENT,
    "xe.engine_reset": Blame.SYMPTOM,
    "xe.gt_reset_failed": Blame.HARDWARE,
    "xe.device_wedged": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # oneapi-src/level-zero issue #7 (a Level Zero sample's zeInit without a compute runtime)
    (
        "Non-successful return code 2013265921 (ZE_RESULT_ERROR_UNINITIALIZED) for zeInit.  "
        "Exiting.",
        "xpu.uninitialized",
        {"name": "ZE_RESULT_ERROR_UNINITIALIZED"},
    ),
    # rendered from the SYCL runtime's backend error report (no public line found)
    (
        "RuntimeError: level_zero backend failed with error: 2013265921 "
        "(UR_RESULT_ERROR_UNINITIALIZED)",
        "xpu.uninitialized",
        {"name": "UR_RESULT_ERROR_UNINITIALIZED"},
    ),
    # rendered from the same report with ur_api.h's result 21 (no public line found)
    (
        "RuntimeError: level_zero backend failed with error: 21 "
        "(UR_RESULT_ERROR_DEVICE_REQUIRES_RESET)",
        "xpu.device_requires_reset",
        {"name": "UR_RESULT_ERROR_DEVICE_REQUIRES_RESET"},
    ),
    # intel/torch-xpu-ops issue #1526 (a distributed test on XPU)
    (
        "RuntimeError: UR backend failed. UR backend returns:40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)",
        "xpu.out_of_resources",
        {"name": "UR_RESULT_ERROR_OUT_OF_RESOURCES"},
    ),
    # intel/ipex-llm issue #9467 (Baichuan2-13B on an Arc GPU; its title)
    (
        "RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES) -5 "
        "(PI_ERROR_OUT_OF_RESOURCES)",
        "xpu.out_of_resources",
        {"name": "PI_ERROR_OUT_OF_RESOURCES"},
    ),
    # vladmandic/sdnext issue #1526 (Stable Diffusion on an Arc GPU, the VAE decode at 100%)
    (
        "23:58:13-803766 ERROR    Exception: Native API failed. Native API returns: -5 "
        "(PI_ERROR_OUT_OF_RESOURCES) -5",
        "xpu.out_of_resources",
        {"name": "PI_ERROR_OUT_OF_RESOURCES"},
    ),
    # intel/intel-extension-for-pytorch issue #359 (an Arc A770 after a GPU hang)
    (
        "RuntimeError: Native API failed. Native API returns: -997 (The plugin has emitted a "
        "backend specific error) -997 (The plugin has emitted a backend specific error)",
        "xpu.runtime_error_unspecific",
        {"code": "-997"},
    ),
    (
        "Exception: Native API failed. Native API returns: -1 (PI_ERROR_DEVICE_NOT_FOUND) -1 "
        "(PI_ERROR_DEVICE_NOT_FOUND)",
        "xpu.runtime_error_unspecific",
        {"name": "PI_ERROR_DEVICE_NOT_FOUND"},
    ),
    # intel/intel-extension-for-pytorch issue #643 (its title: IPEX on Windows)
    (
        "Native API failed. Native API returns: -2 (PI_ERROR_DEVICE_NOT_AVAILABLE) -2 "
        "(PI_ERROR_DEVICE_NOT_AVAILABLE)",
        "xpu.runtime_error_unspecific",
        {"name": "PI_ERROR_DEVICE_NOT_AVAILABLE"},
    ),
    # rendered from the SYCL runtime's backend error report with UR's unknown result (no public
    # line found in an issue thread)
    (
        "RuntimeError: level_zero backend failed with error: 2147483646 (UR_RESULT_ERROR_UNKNOWN)",
        "xpu.runtime_error_unspecific",
        {"name": "UR_RESULT_ERROR_UNKNOWN"},
    ),
    # rendered from pytorch/pytorch c10/xpu/XPUFunctions.cpp and torch/csrc/api/src/xpu.cpp
    ("RuntimeError: No XPU GPUs are available", "xpu.no_gpus_available", {}),
    ("RuntimeError: No XPU are available", "xpu.no_gpus_available", {}),
    # vllm-project/vllm issue #17225 (vLLM's CPU server after PyTorch 2.7.0 was released)
    (
        "ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.6.*, but PyTorch "
        "2.7.0+cpu is found. Please switch to the matching version and run again.",
        "ipex.torch_version_mismatch",
        {"wanted": "2.6", "found": "2.7.0+cpu"},
    ),
    # rendered from an IPEX release whose source continues the string with a backslash
    (
        "ERROR! Intel® Extension for PyTorch* needs to work with PyTorch       2.1.*, but "
        "PyTorch 2.2.0 is found. Please switch to the matching version           and run again.",
        "ipex.torch_version_mismatch",
        {"wanted": "2.1", "found": "2.2.0"},
    ),
    # rendered from IPEX's C++ frontend check (csrc: "PyTorch/libtorch %d.%d.*")
    (
        "ERROR! Intel® Extension for PyTorch* needs to work with PyTorch/libtorch 2.3.*, but "
        "PyTorch/libtorch 2.4.0 is found. Please switch to the matching version and run again.",
        "ipex.torch_version_mismatch",
        {"wanted": "2.3", "found": "2.4.0"},
    ),
    # rendered from oneCCL internal_kvs.cpp kvs_init with oneCCL's log prefix (no public line found)
    (
        "2024:05:29-19:16:18:(202165) |CCL_ERROR| internal_kvs.cpp:390 kvs_init: connection time "
        "(120) >= limit (120)",
        "oneccl.kvs_connect_timeout",
        {"elapsed": "120", "limit": "120"},
    ),
    # intel/intel-extension-for-pytorch issue #359 (dmesg beside the -997 above)
    (
        "[  106.297079 <    0.000004>] i915 0000:09:00.0: [drm] python[3084] context reset due to "
        "GPU hang",
        "i915.context_reset",
        {"process": "python", "pid": "3084"},
    ),
    # Hans de Goede, "5.13 i915/PAT regression on Brasswell" (intel-gfx and LKML, May 2021)
    (
        "[   58.341267] i915 0000:00:02.0: [drm] gnome-shell[632] context reset due to GPU hang",
        "i915.context_reset",
        {"process": "gnome-shell", "pid": "632"},
    ),
    (
        "[   58.341161] i915 0000:00:02.0: [drm] Resetting rcs0 for stopped heartbeat on rcs0",
        "i915.engine_reset",
        {"engine": "rcs0", "reason": "stopped heartbeat on rcs0"},
    ),
    # rendered from gt/intel_reset.c __intel_engine_reset_bh with a GT prefix and the preemption
    # timeout reason (the reason as dmesg pastes in the i915 threads show it)
    (
        "i915 0000:00:02.0: [drm] GT0: Resetting ccs0 for preemption time out",
        "i915.engine_reset",
        {"engine": "ccs0", "reason": "preemption time out"},
    ),
    # clearlinux/distribution issue #2907 (an Alder Lake desktop's i915 under GuC submission)
    (
        "22:39:31 kernel: i915 0000:00:02.0: [drm] *ERROR* GT0: GUC: Engine reset failed on 0:0 "
        "(rcs0) because 0x00000000",
        "i915.engine_reset_failed",
        {"engine": "rcs0"},
    ),
    (
        "22:39:31 kernel: i915 0000:00:02.0: [drm] *ERROR* rcs0 reset request timed out: "
        "{request: 00000001, RESET_CTL: 00000001}",
        "i915.engine_reset_failed",
        {"engine2": "rcs0"},
    ),
    # dri-devel / intel-gfx, "drm/i915: Make IRQ reset and postinstall multi-gt aware" (April
    # 2023: GuC init timing out on a Meteor Lake media GT)
    (
        "[drm] *ERROR* GT1: Failed to initialize GPU, declaring it wedged!",
        "i915.reset_failed",
        {"what": "Failed to initialize GPU, declaring it wedged"},
    ),
    # rendered from gt/intel_reset.c intel_gt_reset and intel_wedge_me (no public line found)
    (
        "i915 0000:03:00.0: [drm] *ERROR* GT0: Failed to reset chip",
        "i915.reset_failed",
        {"what": "Failed to reset chip"},
    ),
    (
        "i915 0000:03:00.0: [drm] *ERROR* intel_gt_reset_global timed out, cancelling all "
        "in-flight rendering.",
        "i915.reset_failed",
        {"what": "intel_gt_reset_global timed out, cancelling all in-flight rendering"},
    ),
    # vllm-project/vllm issue #55425 (Arc Pro B60/B70 under vLLM; the numbers elided there)
    (
        "xe 0000:0b:00.0: [drm] Tile0: GT0: Timedout job: seqno=..., lrc_seqno=..., guc_id=2, "
        "flags=0x20 in <proc>",
        "xe.job_timedout",
        {"guc_id": "2", "flags": "0x20"},
    ),
    # rendered from xe_guc_submit.c guc_exec_queue_timedout_job, older and newer forms
    (
        "xe 0000:03:00.0: [drm] Timedout job: seqno=4294967169, guc_id=5, flags=0x0",
        "xe.job_timedout",
        {"seqno": "4294967169", "guc_id": "5", "flags": "0x0"},
    ),
    (
        "xe 0000:03:00.0: [drm] Tile0: GT0: Timedout job: seqno=12345, lrc_seqno=12345, "
        "guc_id=7, flags=0x0 in python [48213]",
        "xe.job_timedout",
        {"seqno": "12345", "guc_id": "7", "process": "python"},
    ),
    (
        "xe 0000:0b:00.0: [drm] Tile0: GT0: Engine reset: engine_class=ccs, logical_mask: 0x1, "
        "guc_id=2, state=0x3",
        "xe.engine_reset",
        {"engine_class": "ccs", "mask": "0x1", "guc_id": "2"},
    ),
    # rendered from xe_gt.c gt_reset, newer and older forms (no public line found)
    (
        "xe 0000:03:00.0: [drm] *ERROR* Tile0: GT0: reset failed (-ETIMEDOUT)",
        "xe.gt_reset_failed",
        {"gt": "0", "err": "-ETIMEDOUT"},
    ),
    (
        "xe 0000:03:00.0: [drm] *ERROR* GT reset failed, err=-110",
        "xe.gt_reset_failed",
        {"errno": "-110"},
    ),
    # rendered from xe_device.c xe_device_declare_wedged (no public line found)
    (
        "xe 0000:03:00.0: [drm] *ERROR* CRITICAL: Xe has declared device 0000:03:00.0 as wedged.",
        "xe.device_wedged",
        {"pci": "0000:03:00.0"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # hwloc's harmless zeInit result on a node without an Intel GPU (open-mpi/hwloc issue #741)
    ("xpu.uninitialized", "hwloc/levelzero: Failed to initialize in zeInit(): 0x78000001"),
    # the first sweep's results stay theirs
    (
        "xpu.out_of_resources",
        "RuntimeError: Native API failed. Native API returns: 39 "
        "(UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)",
    ),
    (
        "xpu.runtime_error_unspecific",
        "RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)",
    ),
    (
        "xpu.runtime_error_unspecific",
        "Native API failed. Native API returns: -30 (PI_ERROR_INVALID_VALUE) -30 "
        "(PI_ERROR_INVALID_VALUE)",
    ),
    ("xpu.runtime_error_unspecific", "zeEventQueryStatus: ZE_RESULT_NOT_READY"),
    # cuda.no_gpu_visible's older XPU text, and torch's healthy device count
    ("xpu.no_gpus_available", "RuntimeError: No XPU devices are available."),
    ("xpu.no_gpus_available", "XPU available: True, device count: 8"),
    # the Hugging Face transformers warning that only disables IPEX (transformers'
    # is_ipex_available)
    (
        "ipex.torch_version_mismatch",
        "Intel Extension for PyTorch 2.1 needs to work with PyTorch 2.1.*, but PyTorch 2.2.0 is "
        "found. Please switch to the matching version and run again.",
    ),
    # oneCCL's routine KVS lines
    ("oneccl.kvs_connect_timeout", "export CCL_KVS_CONNECTION_TIMEOUT=600"),
    # i915's healthy start and the chip reset i915.gpu_hang reads
    (
        "i915.engine_reset",
        "i915 0000:00:02.0: [drm] GT0: Resetting chip for stopped heartbeat on rcs0",
    ),
    ("i915.engine_reset", "i915 0000:00:02.0: [drm] GT0: GUC: submission enabled"),
    ("i915.reset_failed", "i915 0000:00:02.0: [drm] GT0: GuC firmware i915/tgl_guc_70.bin version 70.5.1"),
    (
        "i915.context_reset",
        "[  118.576118 <   12.279039>] Fence expiration time out i915-0000:09:00.0:python[3084]:a22!",
    ),
    # xe's healthy reset and its debug-only signalled-job line
    ("xe.gt_reset_failed", "xe 0000:03:00.0: [drm] Tile0: GT0: reset done"),
    (
        "xe.job_timedout",
        "xe 0000:03:00.0: [drm:guc_exec_queue_timedout_job [xe]] Timedout signaled job: seqno=5, "
        "guc_id=2, flags=0x0",
    ),
    ("xe.device_wedged", "xe 0000:03:00.0: [drm] Tile0: GT0: Using GuC firmware from xe/bmg_guc_70.bin version 70.44.1"),
]  # fmt: skip


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(FILE, KEYS, frozenset({"xpu", "ipex", "oneccl", "i915", "xe"}))
    assert set(BLAME) == KEYS


def test_a_wedged_gpu_names_its_node_and_weaker_device_lines_do_not() -> None:
    """A driver that could not reset its GPU, or wedged it, decides alone and asks for a reboot;
    a driver that would not initialise, or a device asking for a reset, needs corroboration."""
    for key in ("i915.reset_failed", "xe.gt_reset_failed", "xe.device_wedged"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and sig.weight >= STRONG, key
        assert sig.node_action.value == "reboot", key
    for key in ("xpu.uninitialized", "xpu.device_requires_reset"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and 0 < sig.weight < STRONG, key


def test_restatements_stay_below_a_collective_complaint() -> None:
    """Engine and context resets, unspecific results and a bootstrap wait that ran out decide
    nothing; none acts on the node, and the xe job timeout weighs as i915's GPU HANG."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= COLLECTIVE, key
            assert sig.node_action.value == "none", key
    hang, timedout = CATALOG.signatures["i915.gpu_hang"], CATALOG.signatures["xe.job_timedout"]
    assert (timedout.blame, timedout.weight) == (hang.blame, hang.weight)


def test_the_first_sweeps_results_keep_their_meaning() -> None:
    """A lost device and an out-of-memory result read only as the first sweep's entries."""
    for line, key in (
        ("RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)",
         "xpu.device_lost"),
        ("RuntimeError: Native API failed. Native API returns: 39 "
         "(UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)", "xpu.oom"),
    ):  # fmt: skip
        found = set(hits(line))
        assert key in found
        assert not found & KEYS, line


def test_the_same_uninitialised_driver_on_every_node_names_no_node() -> None:
    """`xpu.` keys are the shape rules' device family: one driver that will not start on every
    node is the image or the request, not four broken nodes; weighed below 60, no node is
    named."""
    assert family("xpu.uninitialized") == "device"
    assert family("xe.device_wedged") == family("i915.reset_failed") == "device"
    fs = [shape_finding("xpu.uninitialized", n, 1, Source.LOGS) for n in SHAPE_NODES]
    v = attribute(shape_job(), fs, [], {})
    assert v.cause is not Cause.HARDWARE and v.suspect_nodes == ()


def test_a_wedged_xe_device_names_its_node() -> None:
    fs = [shape_finding("xe.device_wedged", "n2", 60, Source.SYSTEM)]
    v = attribute(shape_job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))
