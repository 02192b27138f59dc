"""Golden tests for GPU-initiated communication (signatures-nvshmem.toml, catalog round 8).

Real lines from NVSHMEM (bootstrap, the IBGDA/IBRC transports, the symmetric heap), DeepEP and
TransformerEngine's comm+GEMM overlap (each cited; a few rendered from the emitter's format string
where no public line exists, said so beside them) go through the scanner's own matcher. A NIC
NVSHMEM cannot drive from the GPU, a heap too small, a bad `NVSHMEM_` setting or an overlap the
platform cannot run is the job's configuration; a completion error or a timeout waiting for a peer
is a symptom; the wrappers only restate. Only the NVLS multicast mapping the driver refuses speaks
against the node, and too weakly to name it alone. Look-alikes must not match, and every entry of
the family file has a golden line.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    Golden,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
)

FAMILY_FILE = "signatures-nvshmem.toml"
NAMESPACES = frozenset({"nvshmem", "deepep", "te"})
KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "nvshmem.init_failed": Blame.SYMPTOM,
    "nvshmem.transport_init_failed": Blame.APPLICATION,
    "nvshmem.ibgda_unsupported": Blame.APPLICATION,
    "nvshmem.qp_connect_failed": Blame.APPLICATION,
    "nvshmem.heap_alloc_failed": Blame.APPLICATION,
    "nvshmem.symmetric_heap_exhausted": Blame.APPLICATION,
    "nvshmem.nvls_map_failed": Blame.HARDWARE,
    "nvshmem.completion_error": Blame.SYMPTOM,
    "nvshmem.device_wait_timeout": Blame.SYMPTOM,
    "nvshmem.env_invalid": Blame.APPLICATION,
    "nvshmem.device_skipped": Blame.INFO,
    "deepep.kernel_timeout": Blame.SYMPTOM,
    "deepep.cpu_timeout": Blame.SYMPTOM,
    "deepep.host_assert": Blame.APPLICATION,
    "deepep.device_assert": Blame.APPLICATION,
    "te.ub_multicast_unsupported": Blame.APPLICATION,
    "te.ub_bootstrap_config": Blame.APPLICATION,
    "te.ub_no_p2p": Blame.APPLICATION,
    "te.ub_timeout": Blame.SYMPTOM,
    "te.ub_ipc_socket_failed": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # deepseek-ai/DeepEP issue #55: IBGDA would not start on an H100 node, then the wrappers
    ("/workspace/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:275: init "
     "failed for transport: IBGDA", "nvshmem.transport_init_failed", {"transport": "IBGDA"}),
    ("WARN: init failed for remote transport: ibrc", "nvshmem.transport_init_failed",
     {"transport": "ibrc"}),
    ("/workspace/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:287: Unable "
     "to initialize any transports. returning error.", "nvshmem.init_failed", {}),
    ("/workspace/nvshmem_src/src/host/init/init.cu:989: non-zero status: 7 nvshmem detect topo "
     "failed ", "nvshmem.init_failed", {"step": "detect topo failed"}),
    # NVIDIA/nvshmem issue #45: NVSHMEM_IB_TRAFFIC_CLASS on an InfiniBand fabric
    ("15:35:48.149 /opt/nvshmem/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:1393: non-zero "
     "status: 121 Error in mlx5dv_devx_obj_modify for INIT2RTR_QP with syndrome 764216",
     "nvshmem.qp_connect_failed", {"transition": "INIT2RTR_QP", "syndrome": "764216"}),
    ("15:35:48.149 /opt/nvshmem/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:3005: non-zero "
     "status: 7 ibgda_rc_init2rtr failed on RC #0.", "nvshmem.qp_connect_failed", {}),
    ("15:35:48.149 /opt/nvshmem/nvshmem_src/src/host/init/init.cu:1044: non-zero status: 7 "
     "nvshmem setup connections failed ", "nvshmem.init_failed",
     {"step": "setup connections failed"}),
    # NVIDIA/nvshmem issue #33 (B300 + CX8: ibv_create_ah failed)
    ("/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:"
     "2234: NULL value Unable to create ah.", "nvshmem.qp_connect_failed", {}),
    ("/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/host/transport/transport.cpp:420: "
     "non-zero status: 7 connect EPS failed ", "nvshmem.init_failed", {}),
    # deepseek-ai/DeepEP issue #38 (RoCE, a wrong NVSHMEM_IB_ADDR_FAMILY)
    ("/work/nvshmem_src/src/modules/transport/ibrc/ibrc.cpp:418: non-zero status: 110 "
     "ibv_modify_qp failed ", "nvshmem.qp_connect_failed", {"status": "110"}),
    # sgl-project/sglang issue #12533: IBGDA in an unprivileged CI container
    ("/opt/nvshmem/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1889: NULL value cannot allocate "
     "mlx5dv_devx_uar", "nvshmem.ibgda_unsupported", {}),
    # NVIDIA/nvshmem issue #51
    ("/home/bit/zhangzhiwei/nvshmem-3.5.19-1/src/modules/transport/ibgda/ibgda.cpp 4820 no active "
     "IB device that supports GPU-initiated communication is found, exiting...",
     "nvshmem.ibgda_unsupported", {}),
    ("WARN: device mlx5_3 cannot allocate buffer on the specified memory type. Skipping...",
     "nvshmem.device_skipped", {"nic": "mlx5_3"}),
    # deepseek-ai/DeepEP issue #202 (an erdma NIC)
    ("WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...",
     "nvshmem.device_skipped", {"nic": "erdma_0"}),
    # deepseek-ai/DeepEP issue #157 (cuMemCreate out of memory)
    ("/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed ",
     "nvshmem.heap_alloc_failed", {"status": "2"}),
    ("/nvshmem/src/host/mem/mem_heap.cpp:1590: non-zero status: 7 allocate_physical_memory_to_heap "
     "failed", "nvshmem.heap_alloc_failed", {}),
    # rendered from mem_heap.cpp allocate_symmetric_memory's NVSHMEMI_ERROR_EXIT
    ("/nvshmem/src/host/mem/mem_heap.cpp:allocate_symmetric_memory:2266: nvshmem malloc failed "
     "(hint: check if total allocation has exceeded NVSHMEM symmetric size = 1073741824, NVSHMEM "
     "symmetric size can be increased using NVSHMEM_SYMMETRIC_SIZE environment variable) ",
     "nvshmem.symmetric_heap_exhausted", {"size": "1073741824"}),
    # NVIDIA/nvshmem issue #40 (NVLink fabric state out of sync) and pytorch/pytorch PR #169879
    ("/home/szegel/Nvshmem/src/host/team/team_internal_nvls.cpp:254: non-zero status: 401 cuMemMap "
     "failed to map 274877906944 bytes handle at address: 0x1320000000 offset 0 on device 7",
     "nvshmem.nvls_map_failed", {"code": "401", "device": "7"}),
    ("/home/szegel/Nvshmem/src/host/mem/mem_heap.cpp:1573: non-zero status: 7 Mapping mem size "
     "274877906944 to MC group 101602722380032 failed ", "nvshmem.nvls_map_failed", {}),
    ("/home/szegel/Nvshmem/src/host/team/team_internal.cpp:786: non-zero status: 7 Mapping "
     "multicast groups for UC heap failed for pe 7 team ID 1", "nvshmem.nvls_map_failed", {}),
    ("2025-12-08T12:46:36.6792068Z cuMemMap failed to map 137438953472 bytes handle at address: "
     "0x17700000000 offset 0 on device 1", "nvshmem.nvls_map_failed", {"device": "1"}),
    # NVIDIA/multi-gpu-programming-models issue #21 (title)
    ("non-zero status: 4 ibv_poll_cq failed, status: 4", "nvshmem.completion_error",
     {"status": "4"}),
    # rendered from ibgda_device.cuh and proxy.cpp (no public line found)
    ("ibgda_poll_cq failed with error=21.", "nvshmem.completion_error", {"syndrome": "21"}),
    ("/nvshmem/src/host/proxy/proxy.cpp:progress_timeout_polling:1406: received timeout signal "
     "from GPU thread(s) in nvshmemi_call_site_amo_fetch_wait_flag",
     "nvshmem.device_wait_timeout", {"call_site": "nvshmemi_call_site_amo_fetch_wait_flag"}),
    # rendered from ibgda.cpp and bootstrap_uid.cpp (no public line found)
    ("/nvshmem/src/modules/transport/ibgda/ibgda.cpp:434: non-zero status: 3 "
     "NVSHMEM_IBGDA_NIC_HANDLER=cpu requires GDRCopy.", "nvshmem.env_invalid", {}),
    ("/nvshmem/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_uid_get_unique_id:139: Invalid "
     "NVSHMEM_BOOTSTRAP_UID_SESSION_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or "
     "<hostname>:<port>", "nvshmem.env_invalid", {}),
    # sgl-project/sglang issue #7888 (title: a rank whose NVSHMEM init had failed)
    ("[Bug] xPyD Deepseek with DeepEP failed: NVSHMEM API called before NVSHMEM initialization has "
     "completed", "nvshmem.init_failed", {}),
    # deepseek-ai/DeepEP pull request #181 (dispatch timeouts), issue #382 (timeout check)
    ("DeepEP dispatch NVL receiver timeout, channel: 0, RDMA: 0, nvl: 2, src RDMA: 1, src nvl: 6, "
     "start: 0, end: 0", "deepep.kernel_timeout", {}),
    ("DeepEP dispatch forwarder timeout (RDMA meta), channel: 8, RDMA: 0, nvl: 6, src RDMA lane: 1, "
     "dst NVL: 6, meta: 0, 0, 0, 0", "deepep.kernel_timeout", {}),
    # rendered from csrc/kernels/utils.cuh and intranode.cu
    ("DeepEP timeout check failed: rank = 0, thread = 0, value = 0)", "deepep.kernel_timeout",
     {"rank": "0"}),
    ("DeepEP timeout for dispatch receivers, rank 3, responsible_channel = 2, tokens remained: 17",
     "deepep.kernel_timeout", {}),
    # sgl-project/sglang issue #6701 and deepseek-ai/DeepEP issue #424 (titles)
    ("RuntimeError: DeepEP error: CPU recv timeout", "deepep.cpu_timeout", {}),
    ("RuntimeError: DeepEP error: timeout (dispatch CPU)", "deepep.cpu_timeout", {}),
    # deepseek-ai/DeepEP issues #114, #255 and #125 (title)
    ("RuntimeError: Failed: Assertion error /workspace/DeepEP_splitChannel/csrc/kernels/"
     "internode.cu:1713 'num_max_nvl_chunked_recv_tokens / num_rdma_ranks > std::max("
     "num_max_rdma_chunked_send_tokens, num_max_nvl_chunked_send_tokens)'", "deepep.host_assert",
     {"file": "/workspace/DeepEP_splitChannel/csrc/kernels/internode.cu", "line": "1713"}),
    ("RuntimeError: Failed: Assertion error /data1/workdata/DeepEP/csrc/kernels/internode.cu:328 "
     "'false and \"Unsupported RDMA ranks\"'", "deepep.host_assert", {"line": "328"}),
    ("RuntimeError: Failed: Assertion error /***/csrc/deep_ep.cpp:629 "
     "'num_tokens_per_rdma_rank.has_value()'", "deepep.host_assert", {"line": "629"}),
    # rendered from EPv2 exception.cuh ("<name> exception (<file>:<line>): <message>")
    ("RuntimeError: Assertion exception (/opt/DeepEP/csrc/elastic/buffer.hpp:211): num_ranks <= 8",
     "deepep.host_assert", {"v2_line": "211"}),
    # deepseek-ai/DeepEP issue #49
    ("Assertion failed: /mnt/fs/DeepEP/csrc/kernels/internode_ll.cu:259, condition: "
     "num_recv_tokens != 0", "deepep.device_assert",
     {"line": "259", "condition": "num_recv_tokens != 0"}),
    # NVIDIA-NeMo/Megatron-Bridge issue #650 (a workstation)
    ("[rank0]: AssertionError: CUDA device, driver and/or toolkit version does not support "
     "comm+GEMM overlap with CUDA Multicast. Launch app with UB_SKIPMC=1 to try CUDA IPC instead.",
     "te.ub_multicast_unsupported", {}),
    # rendered from userbuffers-host.cpp, pytorch/csrc/extensions/comm_gemm_overlap.cpp and
    # userbuffers.cu (no public line found)
    ("RuntimeError: /opt/TransformerEngine/transformer_engine/common/comm_gemm_overlap/userbuffers/"
     "userbuffers-host.cpp:442 in function create_communicator_grouped2_mpi: Bootstrapping "
     "Userbuffers with MPI requires buildingTransformer Engine with NVTE_UB_WITH_MPI=1 and "
     "MPI_HOME=/path/to/mpi", "te.ub_bootstrap_config", {}),
    ("RuntimeError: /opt/TransformerEngine/transformer_engine/common/comm_gemm_overlap/userbuffers/"
     "userbuffers-host.cpp:707 in function register_user_buffer_collective: No peer-to-peer access "
     "available between GPUs. This platform does not support the GPU-to-GPU communication required "
     "for multi-GPU userbuffers. Consider using single-GPU mode.", "te.ub_no_p2p", {}),
    ("[userbuffers.cu:userbuffers_fp16_sum_inplace_gpu_rr_rs:285] [3] Reduce-scatter: SM 0 [0]: "
     "expecting 8 got 7", "te.ub_timeout", {"rank": "3", "op": "Reduce-scatter"}),
    ("[userbuffers.cu:kuserbuffers_pushrecv:2073] pushrecv [grank dst:2 global src:3][nvrank(GPU) "
     "dst: 2 src: 3]: expecting 5, observed 4", "te.ub_timeout",
     {"op": "pushrecv", "src_rank": "3"}),
    ("[userbuffers.cu:kuserbuffers_pushrecv:2078] pushrecv: CE deadlock DETECTED: 6 (ce_start) != 5 "
     "(ce_end)", "te.ub_timeout", {}),
    ("Failed, UDS error /opt/TransformerEngine/transformer_engine/common/comm_gemm_overlap/"
     "userbuffers/userbuffers-host.cpp:297 'Internal error'", "te.ub_ipc_socket_failed",
     {"error": "Internal error"}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # NVSHMEM's start-up banner and debug output (deepseek-ai/DeepEP issues #126, #223; NVIDIA/nvshmem
    # issues #7, #51)
    ("nvshmem.symmetric_heap_exhausted", "  NVSHMEM_SYMMETRIC_SIZE       1073741824 (type: size, "
     "default: 1073741824)"),
    ("nvshmem.env_invalid", "  NVSHMEM_SYMMETRIC_SIZE       1073741824 (type: size, default: "
     "1073741824)"),
    ("nvshmem.env_invalid", "\tAn invalid value for NVSHMEM_SYMMETRIC_SIZE is an error, which the "
     "NVSHMEM"),
    ("nvshmem.transport_init_failed", "gpu38ubuntu:4073:4073 [0] NVSHMEM INFO P2P list: 0 "),
    ("nvshmem.ibgda_unsupported", "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/"
     "modules/transport/common/transport_gdr_common.cpp 26 GDRCopy library not found. disabling "
     "GDRCopy."),
    ("nvshmem.heap_alloc_failed", "nid001500:60831:60831 [0] NVSHMEM INFO NVSHMEM symmetric heap "
     "kind = DEVICE selected"),
    # Mooncake's own cuMemCreate (kvcache-ai/Mooncake issue #1297) is not NVSHMEM's heap
    ("nvshmem.heap_alloc_failed", "NvlinkTransport: cuMemCreate failed: 800"),
    # NCCL's completion error is NCCL's (NVIDIA/nccl-tests issue #24)
    ("nvshmem.completion_error", "gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : "
     "Got completion with error 12, opcode 1, len 0, vendor err 129"),
    # DeepEP's healthy output (deepseek-ai/DeepEP issues #114, #202)
    ("deepep.kernel_timeout", "[tuning] SMs 24, NVL chunk 1, RDMA chunk 8: 29.99 GB/s (RDMA), "
     "57.96 GB/s (NVL) "),
    ("deepep.kernel_timeout", "Allocating buffer size: 2115.111296 MB ..."),
    ("deepep.kernel_timeout", "DeepEP initialized with NCCL version: 2.27.3 (loaded library)"),
    # a C assert in DeepEP's HybridEP extension is glibc's (NVIDIA-NeMo/Megatron-Bridge issue #3599)
    ("deepep.device_assert", "python3: /opt/DeepEP/csrc/hybrid_ep/extension/permute.cu:412: void "
     "permute_launcher(PermuteArgs) [with DType = short unsigned int; ProbType = float; ScalarType "
     "= float]: Assertion `args.output_tokens_ptr != nullptr' failed."),
    ("deepep.host_assert", "AssertionError: Device compute capability 8.9 or higher required for "
     "FP8 execution."),
    # Userbuffers' informational prints (userbuffers-host.cpp, comm_gemm_overlap.cpp)
    ("te.ub_timeout", "UB_TIMEOUT is set to 110 sec, 217800000000 cycles, freq: 1980000khz"),
    ("te.ub_timeout", "!!! [UB] Register UBuf 1"),
    ("te.ub_multicast_unsupported", "MC initialized succesfully, window size = 549755813888"),
    # Megatron-LM's warning about TE's bootstrap backend decides nothing (NVIDIA/Megatron-LM #1274)
    ("te.ub_bootstrap_config", "/home/Megatron-LM/megatron/training/initialize.py:227: "
     "UserWarning: Transformer Engine v1.5.0+6a9edc3 supports only MPI bootstrap backend."),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_only_the_nvls_mapping_speaks_against_the_node_and_never_alone() -> None:
    """No entry of the family may name a node by itself: the one hardware reading stays below
    attribution's threshold (60) and asks a person to look."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.HARDWARE:
            assert key == "nvshmem.nvls_map_failed"
            assert sig.weight < 60 and sig.node_action.value == "inspect"
        else:
            assert sig.node_action.value == "none", key


def test_deepep_timeouts_replace_the_generic_python_exception() -> None:
    """DeepEP raises its CPU timeout as a RuntimeError: the rank waited for a peer, which is a
    collective symptom, not the job's own exception."""
    signals = {s: (b, w) for s, b, w in found("RuntimeError: DeepEP error: CPU recv timeout",
                                                Source.LOGS)}  # fmt: skip
    assert signals == {"deepep.cpu_timeout": (Blame.SYMPTOM, 30)}


def test_a_cuda_error_deepep_wraps_is_read_by_its_text() -> None:
    """DeepEP's CUDA_CHECK wrapper carries CUDA's own text, which the CUDA entries read."""
    line = ("RuntimeError: Failed: CUDA error /sgl-workspace/DeepEP/csrc/deep_ep.cpp:100 'an "
            "illegal memory access was encountered'")  # fmt: skip
    signals = {s for s, _, _ in found(line, Source.LOGS)}
    assert "cuda.illegal_memory_access" in signals
    assert not signals & KEYS
