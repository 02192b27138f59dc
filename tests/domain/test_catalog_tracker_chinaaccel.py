"""Golden lines for the Chinese-ecosystem accelerators beyond Ascend (signatures-chinaaccel.toml):
Kunlunxin's XPU runtime (XPURT) codes as XPURT and Paddle print them, BKCL / XCCL, the kunlun
driver's C2C link; Cambricon's CNRT log, torch_mlu's CNRT / CNCL checks and the cambricon-mlu-driver's
CNRM Xid and heartbeat lines; torch_musa's MUSA errors and the mtgpu driver's lockup reports.

Each line is a real one from the public thread cited beside it, or, where no public line was
found, rendered from the emitter's own format and marked so; every one goes through the scanner's
own matcher. Blame is pinned to what the emitter means: an uncorrectable ECC, an HBM that did not
come up, a DMA timeout or an over-temperature power-off names the node's device; a kernel fault,
a lost heartbeat or a link complaint is weak (symptom, or hardware below 60 with `inspect`);
running out of device memory and a collective pattern the library refuses are the job's.
Look-alikes (healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    family_contract,
    golden_line_checks,
    hits,
)

BLAME: dict[str, Blame] = {
    "kunlun.xpu_uncorrectable_ecc": Blame.HARDWARE,
    "kunlun.xpu_device_fault": Blame.HARDWARE,
    "kunlun.xpu_kernel_fault": Blame.SYMPTOM,
    "kunlun.xpu_oom": Blame.APPLICATION,
    "kunlun.xpurt_ioctl_failed": Blame.SYMPTOM,
    "kunlun.c2c_out_of_lock": Blame.HARDWARE,
    "bkcl.init_failed": Blame.SYMPTOM,
    "bkcl.call_failed": Blame.SYMPTOM,
    "bkcl.group_send_unsupported": Blame.APPLICATION,
    "xccl.addr_window_check_failed": Blame.HARDWARE,
    "mlu.oom": Blame.APPLICATION,
    "cnrt.queue_sync_failed": Blame.SYMPTOM,
    "cndrv.invoke_error": Blame.APPLICATION,
    "cnrt.error": Blame.SYMPTOM,
    "cncl.error": Blame.SYMPTOM,
    "cnrm.xid_uncorrectable_ecc": Blame.HARDWARE,
    "cnrm.xid_device_fault": Blame.HARDWARE,
    "cnrm.xid_mlulink": Blame.HARDWARE,
    "cndrv.heartbeat_lost": Blame.HARDWARE,
    "musa.oom": Blame.APPLICATION,
    "musa.error": Blame.SYMPTOM,
    "mtgpu.guilty_lockup": Blame.HARDWARE,
    "mtgpu.innocent_lockup": Blame.SYMPTOM,
}

NAMESPACES = frozenset(
    {"kunlun", "bkcl", "xccl", "mlu", "cnrt", "cndrv", "cncl", "cnrm", "musa", "mtgpu"}
)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({"signatures-chinaaccel.toml": NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- Kunlunxin XPU runtime ---
    # rendered from XPURT's "ioctl() fail, (%d) %s" (as Paddle issue #66135 shows it) with
    # xpu/runtime.h's XPUERR_UCECC; Paddle's enforce_xpu.h "XPU Error <%d>, %s"; the kunlun
    # driver's xpu_irq.c "xpu%d: UnCorrectable ECC"
    (
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (718) Uncorrectable ECC",
        "kunlun.xpu_uncorrectable_ecc",
        {"code": "718"},
    ),
    (
        "OSError: (External) XPU Error <718>, Uncorrectable ECC ",
        "kunlun.xpu_uncorrectable_ecc",
        {"code": "718"},
    ),
    ("[ 8123.441201] xpu1: UnCorrectable ECC", "kunlun.xpu_uncorrectable_ecc", {"device": "1"}),
    # rendered from the same formats with XPUERR_DMATIMEOUT, XPUERR_HWEXCEPTION, XPUERR_HBM_INIT
    # and the driver's isr_mcu_warning "xpu%d: HBM overheat"
    (
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (808) DMA timed out, a reboot maybe needed",
        "kunlun.xpu_device_fault",
        {"code": "808", "text": "DMA timed out, a reboot maybe needed"},
    ),
    (
        "OSError: (External) XPU Error <802>, Hardware module exception ",
        "kunlun.xpu_device_fault",
        {"code": "802", "text": "Hardware module exception"},
    ),
    (
        "[WARN][XPURT][xpu_open:211] ioctl() fail, (803) Error init HBM",
        "kunlun.xpu_device_fault",
        {"code": "803", "text": "Error init HBM"},
    ),
    ("[ 9001.000112] xpu0: HBM overheat", "kunlun.xpu_device_fault", {"device": "0"}),
    # PaddlePaddle/Paddle issue #66135 (a self-built Paddle on an R200 failing run_check)
    (
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (714) Exception in kernel execution",
        "kunlun.xpu_kernel_fault",
        {"code": "714", "text": "Exception in kernel execution"},
    ),
    # rendered from Paddle's enforce_xpu.h with XPUERR_ABNORMAL and XPUERR_TIMEOUT
    (
        "OSError: (External) XPU Error <713>, Device abnormal due to previous error ",
        "kunlun.xpu_kernel_fault",
        {"code": "713", "text": "Device abnormal due to previous error"},
    ),
    (
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (715) Kernel execution timed out",
        "kunlun.xpu_kernel_fault",
        {"code": "715"},
    ),
    (
        "[WARN][XPURT][xpu_lllaunch_async:543] ioctl() fail, (712) Operation not supported",
        "kunlun.xpurt_ioctl_failed",
        {"code": "712", "text": "Operation not supported"},
    ),
    # PaddlePaddle/Paddle issue #56395 (VGG16 features, batch 64 on a K200)
    (
        "OSError: (External) XPU API return wrong value[-705], no enough memory",
        "kunlun.xpu_oom",
        {},
    ),
    # PaddlePaddle/PaddleDetection issue #4179 (YOLOv3 on an 8 GB XPU)
    ("ioctl() fail, (705) Device memory not enough", "kunlun.xpu_oom", {}),
    (
        "ExternalError: XPU conv kernel return wrong value[3 xpu api no enough workspace]",
        "kunlun.xpu_oom",
        {},
    ),
    # --- Kunlunxin collectives ---
    # PaddlePaddle/Paddle issue #56800 (two XPUs under paddle.distributed.launch)
    (
        "[WARN][BKCL][/workspace/kmis_release/kmis_2/kmis/source/bkcl/src/init.cpp:714] "
        "init_bkcl_context failed",
        "bkcl.init_failed",
        {},
    ),
    (
        "[WARN][BKCL][/workspace/kmis_release/kmis_2/kmis/source/bkcl/src/init.cpp:600] "
        "init device param failed",
        "bkcl.init_failed",
        {},
    ),
    # PaddlePaddle/Paddle issue #75925 (pipeline-parallel LoRA on P800s)
    (
        "[23:35:17][tjdm-p800-vd-xhl-node13.tjdm][4288][ERR][BKCL][init.cpp:1485] BKCL dont "
        "support send to one peer multi times in one group",
        "bkcl.group_send_unsupported",
        {},
    ),
    (
        "[23:35:17][tjdm-p800-vd-xhl-node13.tjdm][4288][WARN][BKCL][bkcl.cpp:534] group_enqueue "
        "call failed, expected 0, error code=2",
        "bkcl.call_failed",
        {"call": "group_enqueue", "code": "2"},
    ),
    # baidu/vLLM-Kunlun issue #295 (PP=2, TP=4 at exit)
    (
        "[16:35:25][ubuntu][230:230][WARN][XCCL][init.cpp:490] xpu_free error, expected 0, "
        "error code=-900",
        "bkcl.call_failed",
        {"call": "xpu_free", "code": "-900"},
    ),
    # baidu/vLLM-Kunlun issues #382 and #420 (8x P800, TP>1 fails at XCCL init)
    (
        "[XCCL][util.cpp:346] dev 0 addr_window not properly set",
        "xccl.addr_window_check_failed",
        {"device": "0"},
    ),
    (
        "[XCCL][init.cpp:1186] host <redacted-private-ip> addr_window check failed",
        "xccl.addr_window_check_failed",
        {"host": "<redacted-private-ip>"},
    ),
    # baidu/vLLM-Kunlun issue #382 (host/driver log beside the addr_window failure)
    ("c2c port1 AM out of lock!, reg_val: 0x0", "kunlun.c2c_out_of_lock", {"port": "1"}),
    ("c2c port3 AM out of lock!, reg_val: 0x0", "kunlun.c2c_out_of_lock", {"port": "3"}),
]

GOLDEN += [
    # --- Cambricon MLU ---
    # rendered from torch_mlu's MLUCachingAllocator ("MLU out of memory. Tried to allocate %s
    # (MLU %d; %s total capacity; ...)"), as raised by older torch_mlu
    (
        "RuntimeError: MLU out of memory. Tried to allocate 2.00 GiB (MLU 0; 23.31 GiB total "
        "capacity; 20.12 GiB already allocated; 1.02 GiB free; 20.50 GiB reserved in total by "
        "PyTorch)",
        "mlu.oom",
        {},
    ),
    # Cambricon/mlu-ops docs (the "MLU Unfinished" debugging section)
    (
        "2021-04-20 17:30:05.370267: [cnrtError] [11621] [Card : 0] cnrtQueueSync: MLU queue "
        "sync failed.",
        "cnrt.queue_sync_failed",
        {"card": "0"},
    ),
    # a Triton-on-MLU370 deployment note (BERT with variable input shapes)
    (
        "2022-10-21 09:21:39.667513: [cnrtError] [12905] [Card : 0] Return value is 100124, "
        'CN_INVOKE_ERROR_ADDRESS_SPACE, means that "operation not supported on global/shared '
        'address space"',
        "cndrv.invoke_error",
        {"code": "100124", "name": "CN_INVOKE_ERROR_ADDRESS_SPACE"},
    ),
    (
        "2022-10-21 09:21:39.667521: [cnrtError] [12905] [Card : 0] cnrtQueueSync: MLU queue "
        "sync failed.",
        "cnrt.queue_sync_failed",
        {"card": "0"},
    ),
    # rendered from torch_mlu's CNRT check ("CNRT error: " cnrtGetErrorStr); the texts as
    # FlagOS adaptation notes quote them
    ("RuntimeError: CNRT error: invalid argument.", "cnrt.error", {"text": "invalid argument"}),
    (
        "RuntimeError: CNRT error: failed to call the driver-api function.",
        "cnrt.error",
        {"text": "failed to call the driver-api function"},
    ),
    # rendered from torch_mlu's C10D_CNCL_CHECK and its watchdog's "CNCL error: "
    (
        "RuntimeError: CNCL error in: /torch_mlu/torch_mlu/csrc/framework/distributed/"
        "process_group_cncl.cpp:1038, CNCL_RET_ERR_INTERNAL",
        "cncl.error",
        {"where": "/torch_mlu/torch_mlu/csrc/framework/distributed/process_group_cncl.cpp:1038"},
    ),
    ("RuntimeError: CNCL error: CNCL_RET_ERR_INTERNAL", "cncl.error", {}),
    # rendered from cambricon-mlu-driver include/cndrv_xid.h ("CNRM: Xid [%s]: %u, ") with
    # mcc/ddr_mlu370.c, mcc/hbm_mlu290.c and mcc/ddr_mlu370.c's load-time check
    (
        "CNRM: Xid [Card0]: 3, DIE0_MEMSYS1_UMC chl 2 two bit ecc occured in address:0x1c2a40000",
        "cnrm.xid_uncorrectable_ecc",
        {"card": "Card0"},
    ),
    (
        "CNRM: Xid [Card5]: 3, mc[3] TWO_BIT_ECC_ERROR occurred",
        "cnrm.xid_uncorrectable_ecc",
        {"card": "Card5"},
    ),
    (
        "ERROR: [Card0][ddr_retire_init_mlu370][2372][CPU 3]: unprotect area have uncorrectable "
        "ecc error, driver is forbidden to load!",
        "cnrm.xid_uncorrectable_ecc",
        {},
    ),
    # rendered from the driver's XID_OVER_TEMP_ERR, XID_CRC_ERR and XID_HBM_ERR formats
    (
        "CNRM: Xid [Card3]: 9, Over temperature power-off: HBM 105 degrees celsius",
        "cnrm.xid_device_fault",
        {"card": "Card3", "xid": "9"},
    ),
    ("CNRM: Xid [Card1]: 6, D2D CRC Err", "cnrm.xid_device_fault", {"card": "Card1", "xid": "6"}),
    (
        "CNRM: Xid [Card2]: 8, Wait DDR Training Finish Timeout!!",
        "cnrm.xid_device_fault",
        {"card": "Card2", "xid": "8"},
    ),
    # rendered from sbts/ncs_task.c (XID_MLULINK_ERR)
    ("CNRM: Xid [Card1]: 7, MLULINK Err -5", "cnrm.xid_mlulink", {"card": "Card1", "err": "-5"}),
    # rendered from core/cndrv_core.c heartbeat_thread_fn through __core_print
    (
        "ERROR: [Card2][heartbeat_thread_fn][1718][CPU 12]: query heartbeat timeout",
        "cndrv.heartbeat_lost",
        {"card": "Card2"},
    ),
    (
        "INFO: [Card2][heartbeat_thread_fn][1729][CPU 12]: heartbeat exception",
        "cndrv.heartbeat_lost",
        {"card": "Card2"},
    ),
    # --- Moore Threads ---
    # MooreThreads/torch_musa issue #16 (its title) and #14; the remainder rendered from
    # torch_musa's MUSACachingAllocator
    (
        "RuntimeError: MUSA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.75 GiB total "
        "capacity; 14.88 GiB already allocated; 3.94 MiB free; 15.12 GiB reserved in total by "
        "PyTorch)",
        "musa.oom",
        {},
    ),
    # MooreThreads/torch_musa issue #75 (MTT S80, after the driver's Guilty Lockup)
    ("RuntimeError: MUSA error: unknown error", "musa.error", {"text": "unknown error"}),
    # MooreThreads/tutorial_on_musa issue #26 (its title)
    ("MUSA error: operation not supported", "musa.error", {"text": "operation not supported"}),
    # MooreThreads/torch_musa issue #75 (kernel log)
    (
        "[24078.925037] MTGPU:(Error): 56377:  PID 1747 experienced error Guilty Lockup (0x1) "
        "caller[CheckFWCCB CTX Reset Noticication] [188]",
        "mtgpu.guilty_lockup",
        {"pid": "1747"},
    ),
    (
        "[24082.378837] MTGPU:(Error): 56377:  PID 115094 experienced error Innocent Lockup (0x2) "
        "caller[CheckFWCCB CTX Reset Noticication] [188]",
        "mtgpu.innocent_lockup",
        {"pid": "115094"},
    ),
    # MooreThreads/torch_musa issue #22 (its title)
    (
        "GPU fault (1: Guilty Lockup) detected when processing kick",
        "mtgpu.guilty_lockup",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # XPURT's and Paddle's routine lines (PaddlePaddle/Paddle issues #66135 and #40403)
    (
        "kunlun.xpu_kernel_fault",
        "XPURT /usr/local/lib64/python3.7/site-packages/paddle/fluid/../libs/libxpurt.so loaded",
    ),
    (
        "kunlun.xpu_oom",
        "W0314 11:31:30.151136 41246 device_context.cc:221] Please NOTE: xpu device: 0",
    ),
    # the other XPURT codes of issue #66135 are not device faults
    (
        "kunlun.xpu_device_fault",
        "[WARN][XPURT][xpu_lllaunch_async:543] ioctl() fail, (712) Operation not supported",
    ),
    ("kunlun.xpu_uncorrectable_ecc", "Ecc-Error: 0 Uncorrected: 0"),
    (
        "kunlun.xpurt_ioctl_failed",
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (714) Exception in kernel execution",
    ),
    (
        "kunlun.xpurt_ioctl_failed",
        "[WARN][XPURT][xpu_llwait:675] ioctl() fail, (718) Uncorrectable ECC",
    ),
    ("kunlun.xpu_device_fault", "Overheat threshold: 95 C"),
    # BKCL's healthy start (FlagPerf pull request #33, Paddle issue #56800)
    (
        "bkcl.init_failed",
        "[INFO][BKCL][/root/ONLINE_SERVICE/other/ferry/task_workspace/baidu/xpu/bkcl/src/"
        "globals.cpp:52] set BKCL timeout to 1800 seconds",
    ),
    (
        "bkcl.init_failed",
        "I0830 15:51:15.667363 1142052 bkcl_context.cc:104] init BKCL context nranks: 2 local "
        "rank: 0 xpu id: 0 ring id: 0",
    ),
    (
        "bkcl.call_failed",
        "[23:35:17][tjdm-p800-vd-xhl-node13.tjdm][4288][DBG][BKCL][init.cpp:1469] group end done",
    ),
    (
        "bkcl.group_send_unsupported",
        "[DBG][BKCL][init.cpp:1394] myrank 0, recv 0 from 1, send 16777216 to 1",
    ),
    ("xccl.addr_window_check_failed", "export BKCL_CHECK_AW=0"),
    ("kunlun.c2c_out_of_lock", "c2c port1 AM locked, reg_val: 0x1"),
    # Cambricon's healthy lines (PaddlePaddle MLU install guides, cambricon-mlu-driver README)
    ("mlu.oom", "|  0%   41C         27 W/ 150 W |     0 MiB/ 23308 MiB | N/A         Exclusive |"),
    (
        "mlu.oom",
        "torch.OutOfMemoryError: MLU out of memory. Tried to allocate 2.00 GiB. MLU 0 has a total "
        "capacity of 23.31 GiB",
    ),
    (
        "cnrt.queue_sync_failed",
        "I0705 17:13:54.731010 42228 ir_params_sync_among_devices_pass.cc:142] Sync params from "
        "CPU to mlu:0",
    ),
    ("cnrt.error", "cntoolkit: 3.4.2"),
    ("cncl.error", "cncl: 1.9.3"),
    ("cnrm.xid_uncorrectable_ecc", "CNRM: Xid [Card0]: 3, DIE0_MEMSYS0_UMC chl 1 one bit ecc!"),
    (
        "cnrm.xid_device_fault",
        "CNRM: Xid [Card0]: 9, Over temperature underclock: 95 degrees celsius",
    ),
    ("cnrm.xid_device_fault", "CNRM: Xid [Card0]: 1, Invalid mode 3. [0, 1]"),
    (
        "cndrv.heartbeat_lost",
        "INFO: [Card0][heartbeat_thread_fn][1179][CPU 2]: heartbeat_thread init",
    ),
    # Moore Threads' healthy lines (ggml-org/llama.cpp issue #12779, tutorial_on_musa #26)
    ("musa.error", "llama_init_from_model:      MUSA0 compute buffer size =   632.01 MiB"),
    ("musa.oom", "    0      3230       44%        0%"),
    (
        "musa.oom",
        "torch.OutOfMemoryError: MUSA out of memory. Tried to allocate 896.00 MiB.",
    ),
    (
        "mtgpu.guilty_lockup",
        "[234620.922971] MTGPU:  550: ------------[ MTGPU DBG: END ]------------",
    ),
    ("mtgpu.innocent_lockup", "mthreads-gmi -pm -l 2"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_only_a_named_device_fault_names_the_node() -> None:
    """ECC, HBM, DMA, over-temperature faults the emitter names decide; the rest only inspect."""
    strong = {
        "kunlun.xpu_uncorrectable_ecc",
        "kunlun.xpu_device_fault",
        "cnrm.xid_uncorrectable_ecc",
        "cnrm.xid_device_fault",
    }
    for key, pinned in BLAME.items():
        sig = CATALOG.signatures[key]
        if pinned is not Blame.HARDWARE:
            continue
        if key in strong:
            assert sig.weight >= STRONG, key
            assert sig.node_action.value in {"reset_gpu", "drain_and_reset"}, key
        else:
            assert 0 < sig.weight < STRONG, key
            assert sig.node_action.value == "inspect", key


def test_restatements_stay_below_the_collective_weight() -> None:
    """Kernel faults, generic runtime errors and collective call failures decide nothing alone."""
    for key, pinned in BLAME.items():
        sig = CATALOG.signatures[key]
        if pinned is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key
            assert sig.node_action.value == "none", key


def test_generic_runtime_errors_are_not_read_as_the_job() -> None:
    """A bare 'MUSA error: unknown error' or 'CNRT error: ...' is not the job's bug: the generic
    Python entry gives way to the symptom, while the CUDA-worded texts keep their own reading."""
    for line in (
        "RuntimeError: MUSA error: unknown error",
        "RuntimeError: CNRT error: invalid argument.",
    ):
        assert "python.exception" not in hits(line), line
    found = hits("RuntimeError: MUSA error: an illegal memory access was encountered")
    assert "cuda.illegal_memory_access" in found
    assert "musa.error" not in found
