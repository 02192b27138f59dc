"""Real-line mining of the inference-serving emitters (session 23, m2serve): lines users posted
publicly that the catalog did not read, each fixed from its emitter's own source. The KV-cache
transfer libraries of disaggregated serving (NIXL, Mooncake) get their own family,
signatures-kvxfer.toml; TensorRT-LLM's peer-access check and NCCL check, Triton's platform check
and ggml's CUDA abort join signatures-serving2.toml (pinned also in its tracker test).

Each golden line is the real one from the public thread cited beside it and goes through the
scanner's own matcher. Blame follows the emitter: a transfer library's status or timeout is the
state of a path between two instances, a symptom whose peer decides; a refusal that fails the
same way on every node (no peer access for the custom all-reduce, a platform no backend serves)
is the application's; registering a buffer with the NIC the deployment's, informing only.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

KVXFER = family_keys("signatures-kvxfer.toml")

BLAME: dict[str, Blame] = {
    # signatures-kvxfer.toml
    "nixl.remote_disconnect": Blame.SYMPTOM,
    "nixl.status_error": Blame.SYMPTOM,
    "nixl.ucx_backend_failed": Blame.SYMPTOM,
    "mooncake.register_memory_failed": Blame.APPLICATION,
    "mooncake.transfer_timeout": Blame.SYMPTOM,
    "mooncake.store_transfer_failed": Blame.SYMPTOM,
    "mooncake.segment_descriptor_missing": Blame.SYMPTOM,
    # signatures-serving2.toml
    # (its other five new keys, with their real lines: test_catalog_tracker_serving2.py)
    "trtllm.ncclcheck_failed": Blame.SYMPTOM,
    "ggml.cuda_error_abort": Blame.SYMPTOM,
    # widened in signatures-frameworks.toml
    "vllm.engine_restatement": Blame.SYMPTOM,
    "vllm.shm_broadcast_stalled": Blame.SYMPTOM,
    # widened in signatures-serving.toml
    "nvdynamo.etcd_unreachable": Blame.SYMPTOM,
}

# (real line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # wtdcode/vllm-backport issue #33 (four decode workers in the same second, postXferReq)
    ("nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT", "nixl.remote_disconnect", {}),
    # ai-dynamo/nixl issue #503 (SGLang decode with the NIXL backend)
    (
        "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND",
        "nixl.status_error",
        {"status": "ERR_BACKEND"},
    ),
    # wtdcode/vllm-backport issue #33 (after the disconnect)
    ("nixlNotFoundError: NIXL_ERR_NOT_FOUND", "nixl.status_error", {"status": "ERR_NOT_FOUND"}),
    # sgl-project/sglang pull request #27894 (a CI node whose mlx5 device refused the CQ)
    (
        "W0717 07:30:06.719567  994396 ucx_enums.cpp:58] Unexpected UCX error: Out of memory",
        "nixl.ucx_backend_failed",
        {"status": "Out of memory"},
    ),
    (
        "E0717 07:30:06.719633  994396 ucx_utils.cpp:537] UCX endpoint create failed: failed to "
        "create ep",
        "nixl.ucx_backend_failed",
        {},
    ),
    (
        "E0717 07:30:06.719655  994396 nixl_agent.cpp:359] createBackend: backend 'UCX' "
        "encountered error during intra-agent transfer setup with status NIXL_ERR_BACKEND",
        "nixl.ucx_backend_failed",
        {"backend": "UCX"},
    ),
    # sgl-project/sglang issue #6894
    (
        "E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory "
        "0x7b375b400000: Invalid argument [22]",
        "mooncake.register_memory_failed",
        {"error": "Invalid argument", "errno": "22"},
    ),
    (
        "[2025-06-05 10:48:27 TP7] Mooncake memory registration failed.",
        "mooncake.register_memory_failed",
        {},
    ),
    # kvcache-ai/Mooncake issue #454 (PPU)
    (
        "E0605 17:54:16.878770 178707 rdma_context.cpp:198] Failed to register memory "
        "0x7f56e6600000: Numerical result out of range [34]",
        "mooncake.register_memory_failed",
        {"error": "Numerical result out of range", "errno": "34"},
    ),
    # kvcache-ai/Mooncake issue #1088 (SGLang HiCache)
    (
        "E1120 11:10:27.133715 203020 transfer_task.cpp:305] Failed to complete transfers after "
        "60 seconds for batch 2586731328",
        "mooncake.transfer_timeout",
        {"timeout": "60"},
    ),
    # vllm-project/vllm-ascend issue #7846
    (
        "I0331 02:49:30.617945 803444 transfer_engine_py.cpp:454] Sync batch data transfer "
        "timeout after 33061142969ns",
        "mooncake.transfer_timeout",
        {"ns": "33061142969"},
    ),
    # kvcache-ai/Mooncake issue #397 (vLLM with the Mooncake store)
    (
        "E0523 06:50:40.085733   223 store_py.cpp:367] Put operation failed with error: "
        "TRANSFER_FAIL",
        "mooncake.store_transfer_failed",
        {},
    ),
    (
        "E0523 06:50:40.084792   223 client.cpp:460] transfer_incomplete max_attempts=3",
        "mooncake.store_transfer_failed",
        {},
    ),
    # vllm-project/vllm-ascend issue #7792
    (
        "E0328 09:06:16.412825 114360 client_service.cpp:1126] Transfer failed for key "
        "0318-GLM-5-w4a8@pcp0@dcp0@head_or_tp_rank:0@pp_rank:0@4c67fd4f7e2de4f575e8cc9209391b6f9"
        "0a04ac0c2938f5921a25668a26eaf57: TRANSFER_FAIL (Transfer 0 failed)",
        "mooncake.store_transfer_failed",
        {},
    ),
    # sgl-project/sglang pull request #4880 (the metadata server answering 404)
    (
        "W0414 03:56:41.856264 77969 transfer_metadata.cpp:153] Failed to retrieve segment "
        "descriptor, name 10.6.131.6_58f33e4e-7c3e-443f-97b8-ec267c066c4f",
        "mooncake.segment_descriptor_missing",
        {},
    ),
    # kvcache-ai/Mooncake issue #2177
    (
        "E0521 16:22:21.694042   162 transfer_metadata.cpp:877] Local segment descriptor not found",
        "mooncake.segment_descriptor_missing",
        {},
    ),
    (
        "I0521 16:41:11.701406  4064 transfer_metadata_dump.cpp:51] Failed to get segment "
        "descriptor for segment 10.112.116.43:16917 address 0x7152b4276000--0x7152b4288000",
        "mooncake.segment_descriptor_missing",
        {},
    ),
    # NVIDIA/TensorRT-LLM issue #213 (the real lines of the serving2 entries that
    # tests/domain/test_catalog_tracker_serving2.py pins are kept there, not repeated here)
    (
        "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/"
        "allreducePlugin.cpp:295 'internal error - please report this issue to the NCCL "
        "developers'",
        "trtllm.ncclcheck_failed",
        {
            "line": "295",
            "error": "internal error - please report this issue to the NCCL developers",
        },
    ),
    # InternLM/lmdeploy issue #3286 (TurboMind's copy of the check)
    (
        "Failed, NCCL error /opt/lmdeploy/src/turbomind/utils/nccl_utils.cc:213 'unhandled "
        "system error (run with NCCL_DEBUG=INFO for details)'",
        "trtllm.ncclcheck_failed",
        {"line": "213"},
    ),
    # LostRuins/koboldcpp issue #612
    ('[BUG] (v1.55.1) - MULTI GPU - ggml-cuda.cu:229: !"CUDA error"', "ggml.cuda_error_abort", {}),
    # ai-dynamo/dynamo issue #1188 (a worker started without etcd on localhost)
    (
        "ERROR dynamo_runtime::worker: Application shutdown with error: Failed to connect to etcd "
        'server with config ClientOptions { etcd_url: ["http://localhost:2379"], '
        "etcd_connect_options: None, attach_lease: true }",
        "nvdynamo.etcd_unreachable",
        {},
    ),
    # vllm-project/vllm issue #5443 (V0's async engine, 0.4.3 and 0.5.0)
    (
        "ERROR 06-13 02:36:52 async_llm_engine.py:532] Engine iteration timed out. This should "
        "never happen!",
        "vllm.engine_restatement",
        {},
    ),
    (
        "ERROR 06-13 02:36:52 async_llm_engine.py:52] Engine background task failed",
        "vllm.engine_restatement",
        {},
    ),
    # vllm-project/vllm issue #5901 (0.5.3.post1 under Triton's vLLM backend)
    (
        "\x1b[1;36m(VllmWorkerProcess pid=340358)\x1b[0;0m WARNING 08-28 14:16:50 "
        "shm_broadcast.py:404] No available block found in 60 second.",
        "vllm.shm_broadcast_stalled",
        {},
    ),
]

# Look-alikes: healthy lines of the same emitters, other statuses, other programs' wordings.
NEGATIVE: list[tuple[str, str]] = [
    # NIXL at work (vllm-project/vllm pull request #42703) and its healthy statuses
    (
        "nixl.status_error",
        "(APIServer pid=388692) INFO 05-15 02:58:00 [metrics.py:103] KV Transfer metrics: Num "
        "successful transfers=2, Avg xfer time (ms)=63.33",
    ),
    ("nixl.status_error", "nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT"),
    ("nixl.remote_disconnect", "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND"),
    ("nixl.status_error", "xfer state: NIXL_IN_PROG"),
    # UCX's own lines stay the UCX families'
    (
        "nixl.ucx_backend_failed",
        "[1784273406.719544] [iv-ydzf15rfggbw80bfv8sr:994396:0]           mpool.c:246  UCX  "
        "ERROR   Failed to allocate memory pool (name=gdaki_channel_pool) chunk: Input/output "
        "error",
    ),
    # Mooncake start-up (kvcache-ai/Mooncake issue #281) and healthy transfers
    (
        "mooncake.register_memory_failed",
        "I0421 09:34:39.689913  4670 rdma_context.cpp:125] RDMA device: mlx5_bond_5, LID: 0, "
        "GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:1e:f6:db:2f",
    ),
    (
        "mooncake.register_memory_failed",
        "I0326 11:28:41.305171 222467 rdma_context.cpp:199] length:1073741824",
    ),
    # the Store's bare log without the errno, and the CXI transport's chunk message
    ("mooncake.register_memory_failed", "real_client.cpp:2428] Failed to register memory"),
    (
        "mooncake.transfer_timeout",
        "I1222 07:16:53.143682 60597 transfer_engine.cpp:200] Topology discovery complete. Found "
        "1 HCAs.",
    ),
    (
        "mooncake.store_transfer_failed",
        "W0523 06:50:40.064657   223 client.cpp:450] Transfer incomplete, retrying... (attempt "
        "2/3)",
    ),
    ("mooncake.store_transfer_failed", "Transfer completed successfully for key: k1"),
    (
        "mooncake.segment_descriptor_missing",
        "Transfer Engine RPC using P2P handshake, listening on localhost:16027",
    ),
    # NCCL's own multi-GPU lines and peer access that works
    (
        "trtllm.peer_access_unavailable",
        "RuntimeError: CUDART error: peer access is not supported between these two devices",
    ),
    (
        "trtllm.ncclcheck_failed",
        "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled cuda "
        "error",
    ),
    ("trtllm.ncclcheck_failed", "[TensorRT-LLM][INFO] MPI size: 2, rank: 0"),
    # TensorRT-LLM's own consistency check (NVIDIA/TensorRT-LLM issue #1796) stays the assertion's
    ("trtllm.mpicheck_failed", "[TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp"),
    # Triton loading models
    (
        "tritonserver.unexpected_platform",
        "I1108 08:59:47.916477 20039 model_lifecycle.cc:819] successfully loaded 'postprocessing'",
    ),
    (
        "tritonserver.unexpected_platform",
        "E0605 06:26:38.150360 1 model_repository_manager.cc:1004] Poll failed for model "
        "directory '1': Invalid model name",
    ),
    # vLLM's healthy engine lines
    (
        "vllm.engine_restatement",
        "INFO 06-13 02:36:50 async_llm_engine.py:529] Received request cmpl-1",
    ),
    (
        "vllm.shm_broadcast_stalled",
        "INFO 09-09 13:07:40 shm_broadcast.py:241] vLLM message queue "
        "communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1])",
    ),
    # ollama loading a model, and its warning about slow VRAM release (just a warning, ollama
    # issue #9160)
    (
        "ollama.runner_failed",
        'level=INFO source=server.go:545 msg="llama runner started in 3.21 seconds"',
    ),
    (
        "ollama.runner_failed",
        'level=INFO source=server.go:591 msg="waiting for llama runner to start responding"',
    ),
    (
        "ollama.runner_failed",
        'level=WARN source=sched.go:646 msg="gpu VRAM usage didn\'t recover within timeout"',
    ),
    # TGI's router at work, and its healthy warm-up
    (
        "tgi.shard_rpc_failed",
        "2024-04-13T07:15:09.806984Z  INFO text_generation_router: router/src/main.rs:311: Warming "
        "up model",
    ),
    ("tgi.shard_rpc_failed", "Connected to Text Generation server"),
    # ggml's healthy start-up and the error line the abort follows
    ("ggml.cuda_error_abort", "ggml_cuda_init: found 4 CUDA devices:"),
    (
        "ggml.cuda_error_abort",
        "current device: 0, in function ggml_cuda_mul_mat_batched_cublas at "
        "/go/src/github.com/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:1855",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract(
    {"signatures-kvxfer.toml": frozenset({"nixl", "mooncake"})},
    {key: blame for key, blame in BLAME.items() if key in KVXFER},
)


def test_nothing_mined_here_acts_on_a_node() -> None:
    """A transfer library's status and a server's refusal never name the node it was printed on."""
    assert_no_node_action(BLAME)


def test_transfer_statuses_stay_below_the_collective_weight() -> None:
    """A transfer library reports a path between two instances: its statuses and timeouts must
    not outweigh the peer's own failure or a collective complaint."""
    for key in KVXFER:
        if CATALOG.signatures[key].blame is Blame.SYMPTOM:
            assert CATALOG.signatures[key].weight < COLLECTIVE, key


def test_registering_a_buffer_informs_but_does_not_stop_the_job() -> None:
    """ibv_reg_mr refused is the deployment's configuration, read as rdma.mr_register_failed is:
    below the application's stopping weight."""
    assert CATALOG.signatures["mooncake.register_memory_failed"].weight < 50
    assert CATALOG.signatures["rdma.mr_register_failed"].blame is Blame.APPLICATION


def test_the_nccl_check_carries_the_nccl_error_it_quotes() -> None:
    """The engines' NCCL check is a carrier: the NCCL entries still read the error it quotes."""
    line = (
        "Failed, NCCL error /opt/lmdeploy/src/turbomind/utils/nccl_utils.cc:213 'unhandled "
        "system error (run with NCCL_DEBUG=INFO for details)'"
    )
    assert {"trtllm.ncclcheck_failed", "nccl.unhandled_system_error"} <= set(hits(line))
