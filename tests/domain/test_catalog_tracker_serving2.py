"""Golden lines from the second serving sweep (signatures-serving2.toml): TensorRT-LLM's and
TensorRT's engine loading and runtime CUDA check, Triton Inference Server's model repository and
Python backend, Text Generation Inference's launcher and shards, LMDeploy's TurboMind CUDA check,
SGLang's Rust router, NVIDIA Dynamo's NATS connection and the inference gateway's endpoint picker
that llm-d deploys.

Each line is a real one from the public thread cited beside it and goes through the scanner's
own matcher. Blame is pinned to what the emitter means: an engine, model or configuration the
server refuses (an incompatible plan, a missing plugin or backend, a sharding the model cannot
take, a /dev/shm too small, device memory the budgets exceed) is the application's; a relayed
failure, a router without healthy workers and an unreachable control plane are low-weight
symptoms; nothing here names a node. Look-alikes (healthy lines of the same emitters) must not
match.
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

FAMILY = family_keys("signatures-serving2.toml")

BLAME: dict[str, Blame] = {
    "trtllm.engine_plan_incompatible": Blame.APPLICATION,
    "trtllm.engine_deserialize_failed": Blame.SYMPTOM,
    "trtllm.plugin_not_found": Blame.APPLICATION,
    "trtllm.cuda_oom": Blame.APPLICATION,
    "trtllm.cuda_runtime_error": Blame.SYMPTOM,
    "tritonserver.backend_not_found": Blame.APPLICATION,
    "tritonserver.poll_failed": Blame.APPLICATION,
    "tritonserver.shm_too_small": Blame.APPLICATION,
    "tritonserver.stub_init_failed": Blame.SYMPTOM,
    "tritonserver.unknown_model": Blame.SYMPTOM,
    "tgi.argument_validation": Blame.APPLICATION,
    "tgi.sharding_unsupported": Blame.APPLICATION,
    "tgi.model_init_failed": Blame.SYMPTOM,
    "lmdeploy.turbomind_cuda_oom": Blame.APPLICATION,
    "lmdeploy.turbomind_cuda_error": Blame.SYMPTOM,
    "lmdeploy.turbomind_cuda_usage": Blame.APPLICATION,
    "sglang.router_workers_unhealthy": Blame.SYMPTOM,
    "nvdynamo.nats_unreachable": Blame.SYMPTOM,
    "llmd.no_target_pod": Blame.SYMPTOM,
    # m2serve (session 23); their look-alikes: tests/domain/test_catalog_mined_m2serve.py
    "trtllm.peer_access_unavailable": Blame.APPLICATION,
    "trtllm.ncclcheck_failed": Blame.SYMPTOM,
    "tritonserver.unexpected_platform": Blame.APPLICATION,
    "ggml.cuda_error_abort": Blame.SYMPTOM,
    "trtllm.mpicheck_failed": Blame.SYMPTOM,
    "ollama.runner_failed": Blame.SYMPTOM,
    "tgi.shard_rpc_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # run-llama/llama_index issue #12318 (a compute 8.0 engine on an 8.9 GPU)
    (
        "`[03/27/2024-11:09:02] [TRT] [E] 6: The engine plan file is generated on an incompatible "
        "device, expecting compute 8.0 got compute 8.9, please rebuild.",
        "trtllm.engine_plan_incompatible",
        {"expected_compute": "8.0", "got_compute": "8.9"},
    ),
    (
        "[03/27/2024-11:09:02] [TRT] [E] 2: [engine.cpp::deserializeEngine::1148] Error Code 2: "
        "Internal Error (Assertion engine->deserialize(start, size, allocator, runtime) failed. )",
        "trtllm.engine_deserialize_failed",
        {},
    ),
    # triton-inference-server/triton_cli pull request #59 (TensorRT 9.3 pulled in over 9.2)
    (
        "[TensorRT-LLM][ERROR] 6: The engine plan file is not compatible with this version of "
        "TensorRT, expecting library version 9.2.0.5 got 9.3.0.1, please rebuild.",
        "trtllm.engine_plan_incompatible",
        {"expected": "9.2.0.5", "got": "9.3.0.1"},
    ),
    (
        "[TensorRT-LLM][ERROR] 2: [engine.cpp::deserializeEngine::1148] Error Code 2: Internal "
        "Error (Assertion engine->deserialize(start, size, allocator, runtime) failed. )",
        "trtllm.engine_deserialize_failed",
        {},
    ),
    # triton-inference-server/tensorrtllm_backend issue #194 (23.11 image against a v0.6.1 engine)
    (
        "The engine plan file is not compatible with this version of TensorRT, expecting library "
        "version 9.2.0.4 got 9.2.0.5, please rebuild",
        "trtllm.engine_plan_incompatible",
        {"expected": "9.2.0.4", "got": "9.2.0.5"},
    ),
    # enazoe/yolo-tensorrt issue #157 (the Python API after a plugin not found)
    (
        "[TensorRT] ERROR: INVALID_CONFIG: Deserialize the cuda engine failed.",
        "trtllm.engine_deserialize_failed",
        {},
    ),
    # NVIDIA/TensorRT-LLM issue #107 (building BLOOM without the plugin library loaded)
    (
        "[10/25/2023-03:51:35] [TRT] [E] 3: getPluginCreator could not find plugin: "
        "Gemmtensorrt_llm version: 1",
        "trtllm.plugin_not_found",
        {"plugin": "Gemmtensorrt_llm", "version": "1"},
    ),
    # NVIDIA/TensorRT-LLM issue #452 (trtexec on a TensorRT-LLM engine)
    (
        "[11/22/2023-10:48:15] [E] [TRT] 3: getPluginCreator could not find plugin: "
        "Gemmtensorrt_llm version: 1",
        "trtllm.plugin_not_found",
        {"plugin": "Gemmtensorrt_llm", "version": "1"},
    ),
    # NVIDIA/TensorRT issue #3982 (trex / trtexec on a Phi-3 engine)
    (
        "Error[1]: [pluginV2Runner.cpp::load::294] Error Code 1: Serialization (Serialization "
        "assertion creator failed.Cannot deserialize plugin since corresponding IPluginCreator "
        "not found in Plugin Registry)",
        "trtllm.plugin_not_found",
        {},
    ),
    # NVIDIA/TensorRT-LLM issue #1060 (mpt-7b on 8x A100 40G)
    (
        "RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in error: out of memory "
        "(/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/"
        "runtime/ipcUtils.cpp:48)",
        "trtllm.cuda_oom",
        {"call": "error"},
    ),
    # NVIDIA/TensorRT-LLM issue #498 (gptSessionBenchmark, vicuna-13b on 2x V100)
    (
        "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in "
        "::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory "
        "(/data/TensorRT-LLM/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)",
        "trtllm.cuda_oom",
        {"call": "::cudaMallocAsync(ptr, n, mCudaStream->get())"},
    ),
    # triton-inference-server/tensorrtllm_backend issue #281 (mistral-7b, max_input_len 32256)
    (
        "Model 'tensorrt_llm' loading failed with error: version 1 is at UNAVAILABLE state: "
        "Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA "
        "runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory "
        "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)",
        "trtllm.cuda_oom",
        {"call": "::cudaMallocAsync(ptr, n, mCudaStream->get())"},
    ),
    # triton-inference-server/tensorrtllm_backend issue #363 (the model table on a vGPU)
    (
        "| tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating "
        "modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in "
        "cudaDeviceGetDefaultMemPool(&memPool, device): operation no |",
        "trtllm.cuda_runtime_error",
        {"call": "cudaDeviceGetDefaultMemPool(&memPool, device)", "error": "operation no"},
    ),
    # triton-inference-server/server issue #8342 (an ONNX model in the TensorRT-LLM image)
    (
        "failed to load 'ambernet' version 1: Invalid argument: unable to find backend library "
        "for backend 'onnxruntime', try specifying runtime on the model configuration.",
        "tritonserver.backend_not_found",
        {"backend": "onnxruntime"},
    ),
    # triton-inference-server/tensorrtllm_backend issue #662 (title)
    (
        "Invalid argument: unable to find backend library for backend 'tensorrtllm', try "
        "specifying runtime on the model configuration.",
        "tritonserver.backend_not_found",
        {"backend": "tensorrtllm"},
    ),
    # triton-inference-server/server issue #2179 (Triton 2.3.0 on a densenet_onnx example)
    (
        "E1027 16:50:45.050672 129238 model_repository_manager.cc:899] failed to load "
        "'densenet_onnx' version 1: Invalid argument: unknown platform 'onnxruntime_onnx'",
        "tritonserver.backend_not_found",
        {"platform": "onnxruntime_onnx"},
    ),
    # triton-inference-server/server issue #2911 (a repository path one level too deep)
    (
        "failed to load 'simple' version 1: Invalid argument: unable to find "
        "'libtriton_tensorflow1.so' for model 'simple', searched: "
        "/home/alpha/inference-server/docs/examp",
        "tritonserver.backend_not_found",
        {"library": "tensorflow1"},
    ),
    (
        "error: failed to get model metadata: Request for unknown model: 'inception_graphdef' "
        "is not found",
        "tritonserver.unknown_model",
        {"model": "inception_graphdef"},
    ),
    (
        "error: failed to get model config: Request for unknown model: 'inception_graphdef' is "
        "not found",
        "tritonserver.unknown_model",
        {"model": "inception_graphdef"},
    ),
    # triton-inference-server/server issue #6989 (a model directory without a backend)
    (
        "E0319 17:48:18.714876 193 model_repository_manager.cc:1325] Poll failed for model "
        "directory 'reports': Invalid model name: Could not determine backend for model "
        "'reports' with no backend in model configuration. Expected model name of the form "
        "'model.<backend_name>'.",
        "tritonserver.poll_failed",
        {"model": "reports"},
    ),
    # triton-inference-server/server issue #6195 (two Python-backend models, docker's 64 MB shm)
    (
        "UNAVAILABLE: Internal: Unable to initialize shared memory key "
        "'triton_python_backend_shm_region_3' to requested size (67108864 bytes). If you are "
        "running Triton inside docker, use '--shm-size' flag to control the shared memory region "
        "size. Each Python backend model instance requires at least 64MBs of shared memory. "
        "Error: No space left on device",
        "tritonserver.shm_too_small",
        {"key": "triton_python_backend_shm_region_3", "bytes": "67108864"},
    ),
    # kserve/modelmesh-serving issue #78 (Triton under ModelMesh without a /dev/shm volume)
    (
        "model_lifecycle.cc:596] failed to load 'python_backend_model__isvc-bdae6e6fbc' version "
        "1: Internal: Unable to initialize shared memory key 'triton_python_backend_shm_region_1' "
        "to requested size (67108864 bytes). If you are running Triton inside docker, use "
        "'--shm-size' flag to control the shared memory region size. Each Python backend model "
        "instance requires at least 64MBs of shared memory. Error: No such file or directory",
        "tritonserver.shm_too_small",
        {"key": "triton_python_backend_shm_region_1", "bytes": "67108864"},
    ),
    # triton-inference-server/server issue #3094 (title: a custom Python execution environment)
    (
        "Internal: Failed to initialize stub, stub process exited unexpectedly",
        "tritonserver.stub_init_failed",
        {},
    ),
    # bytedance/UI-TARS issue #153 (an Inference Endpoint's launcher)
    (
        ': ArgumentValidation("`max_input_tokens`(65537) must be < `max_total_tokens`(65536)")',
        "tgi.argument_validation",
        {"message": "`max_input_tokens`(65537) must be < `max_total_tokens`(65536)"},
    ),
    # huggingface/text-generation-inference issue #574 (a model TGI 0.9 could not shard)
    (
        "NotImplementedError: sharded is not supported for this model",
        "tgi.sharding_unsupported",
        {},
    ),
    # huggingface/text-generation-inference issue #2146 (title: DeepSeek Coder V2 on 8 shards)
    (
        "DeepSeek Coder V2: sharded is not supported for AutoModel",
        "tgi.sharding_unsupported",
        {},
    ),
    # huggingface/text-generation-inference issue #686 (V100 without flash attention)
    (
        "NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
        "tgi.sharding_unsupported",
        {"model": "Llama"},
    ),
    # huggingface/text-generation-inference issue #1354 (Falcon's 71 heads over 2 shards)
    (
        "ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71 and "
        "`num_shards`: 2",
        "tgi.sharding_unsupported",
        {"heads": "71", "shards": "2"},
    ),
    # huggingface/text-generation-inference issue #523 (title)
    (
        "AssertionError: The choosen size 65027 is not compatible with sharding on 4 shards",
        "tgi.sharding_unsupported",
        {"size": "65027", "on": "4"},
    ),
    # huggingface/text-generation-inference issue #606 (Falcon-40B-Instruct on two shards)
    (
        "2023-07-13T13:36:36.063775Z ERROR shard-manager: text_generation_launcher: Error when "
        "initializing model",
        "tgi.model_init_failed",
        {},
    ),
    # huggingface/text-generation-inference issue #3133 (Mistral Small 3.1, under compose)
    (
        "inference-1  | 2025-03-26T11:05:12.546170Z ERROR text_generation_launcher: Error when "
        "initializing model",
        "tgi.model_init_failed",
        {},
    ),
    # InternLM/lmdeploy issue #2236 (title, and the C++ abort under concurrent load in a comment)
    (
        "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory "
        "/lmdeploy/src/turbomind/utils/memory_utils.cu:32",
        "lmdeploy.turbomind_cuda_oom",
        {"where": "/lmdeploy/src/turbomind/utils/memory_utils.cu:32"},
    ),
    (
        "  what():  [TM][ERROR] CUDA runtime error: out of memory "
        "/lmdeploy/src/turbomind/utils/allocator.h:233",
        "lmdeploy.turbomind_cuda_oom",
        {"where": "/lmdeploy/src/turbomind/utils/allocator.h:233"},
    ),
    # InternLM/lmdeploy issue #2414 (an A100 MIG slice through vGPU)
    (
        "RuntimeError: [TM][ERROR] CUDA runtime error: operation not supported "
        "/lmdeploy/src/turbomind/utils/allocator.h:197",
        "lmdeploy.turbomind_cuda_error",
        {
            "error": "operation not supported",
            "where": "/lmdeploy/src/turbomind/utils/allocator.h:197",
        },
    ),
    # InternLM/lmdeploy issue #340 (driver 450 under a newer CUDA build)
    (
        "RuntimeError: [TM][ERROR] CUDA runtime error: API call is not supported in the installed "
        "CUDA driver /lmdeploy/src/turbomind/utils/allocator.h:163 ",
        "lmdeploy.turbomind_cuda_error",
        {
            "error": "API call is not supported in the installed CUDA driver",
            "where": "/lmdeploy/src/turbomind/utils/allocator.h:163",
        },
    ),
    # rendered from TurboMind's check() (depth review s22-dapp): the job's own use of CUDA
    (
        "RuntimeError: [TM][ERROR] CUDA runtime error: invalid argument "
        "/lmdeploy/src/turbomind/utils/allocator.h:197",
        "lmdeploy.turbomind_cuda_usage",
        {"error": "invalid argument"},
    ),
    # sgl-project/sglang issue #2778 (title: --enable-torch-compile outlasting the 300 s wait)
    (
        "[Bug] Failed to create router: Timeout 300s waiting for workers to become healthy",
        "sglang.router_workers_unhealthy",
        {"seconds": "300"},
    ),
    # ai-dynamo/dynamo pull request #3612 (python -m dynamo.frontend without NATS, both wordings)
    (
        "Exception: Failed to connect to NATS: IO error: Connection refused (os error 111)",
        "nvdynamo.nats_unreachable",
        {},
    ),
    (
        "Exception: Failed to connect to NATS: IO error: Connection refused (os error 111). "
        "Verify NATS server is running and accessible.",
        "nvdynamo.nats_unreachable",
        {},
    ),
    # kubernetes-sigs/gateway-api-inference-extension issue #1697 (two scheduling profiles)
    (
        "inference gateway: InferencePoolResourceExhausted - failed to find target pod: single "
        "profile handler is intended to be used with a single profile, failed to process "
        "multiple profiles",
        "llmd.no_target_pod",
        {},
    ),
    # m2serve (session 23): NVIDIA/TensorRT-LLM issue #1374, #1039; server issue #2674; ollama #3701
    (
        "RuntimeError: Can't enable access between nodes 0 and 1",
        "trtllm.peer_access_unavailable",
        {"src": "0", "dest": "1"},
    ),
    (
        "Failed, NCCL error /home/jenkins/agent/workspace/LLM/main/L0_MergeRequest/tensorrt_llm/"
        "cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:183 'unknown result code'",
        "trtllm.ncclcheck_failed",
        {"line": "183", "error": "unknown result code"},
    ),
    # session 25: NVIDIA/TransformerEngine issue #994 (userbuffers bootstrap, an empty quote)
    (
        "Failed, NCCL error TransformerEngine_official/transformer_engine/pytorch/csrc/"
        "userbuffers/userbuffers-host.cpp:223 ''",
        "trtllm.ncclcheck_failed",
        {"line": "223", "error": ""},
    ),
    (
        "E0327 01:23:03.176953 1 model_repository_manager.cc:1682] unexpected platform type "
        "caffe2_netdef for resnet50_netdef",
        "tritonserver.unexpected_platform",
        {"platform": "caffe2_netdef", "model": "resnet50_netdef"},
    ),
    (
        'GGML_ASSERT: /go/src/github.com/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:60: !"CUDA error"',
        "ggml.cuda_error_abort",
        {},
    ),
    # ollama/ollama pull request #11090 (a runner killed), issue #4427 (a runner that never came up)
    (
        'time=2025-06-27T14:42:08.637Z level=ERROR source=server.go:415 msg="llama runner '
        'terminated" error="signal: killed"',
        "ollama.runner_failed",
        {},
    ),
    ("Error: timed out waiting for llama runner to start:", "ollama.runner_failed", {}),
    # huggingface/text-generation-inference issues #1207 (a shard gone) and #375 (relayed to the client)
    (
        "(task, pid=12148) 2023-10-25T12:24:19.123838Z ERROR batch{batch_size=1}:decode:decode{size=1}"
        ":decode{size=1}: text_generation_client: router/client/src/lib.rs:33: Server error: "
        "transport error",
        "tgi.shard_rpc_failed",
        {},
    ),
    (
        '{"error":"Request failed during generation: Server error: attention_scores_2d must be a '
        'CUDA tensor","error_type":"generation"}',
        "tgi.shard_rpc_failed",
        {},
    ),
    # NVIDIA/TensorRT-LLM issue #1826 (AllreducePlugin::initialize under mpirun -n 4)
    (
        "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /home/jenkins/agent/"
        "workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/common/mpiUtils.cpp:211 '6' "
        "(/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/common/"
        "mpiUtils.cpp:211)",
        "trtllm.mpicheck_failed",
        {"line": "211", "code": "6"},
    ),
]

# (key, look-alike line it must not match); "*": no entry of the family may match
NEGATIVE: list[tuple[str, str]] = [
    # TensorRT-LLM's healthy engine load (NVIDIA/TensorRT-LLM issue #1060's version banner)
    ("*", "[TensorRT-LLM] TensorRT-LLM version: 0.9.0.dev2024020600"),
    ("*", "[TensorRT-LLM][INFO] Engine version 0.9.0.dev2024020600 found in the config file."),
    ("*", "[TensorRT-LLM][INFO] Loaded engine size: 12855 MiB"),
    (
        "trtllm.plugin_not_found",
        "[10/02/2022-14:40:17] [I] [TRT] Searching for plugin: Custom, plugin_version: 1, "
        "plugin_namespace: ",
    ),
    ("trtllm.engine_plan_incompatible", "[TRT-LLM] [I] Engine plan file written to rank0.engine"),
    # the TensorRT out-of-memory line is cuda.oom's (pytorch/TensorRT issue #2836)
    (
        "trtllm.cuda_oom",
        "[05/08/2024-20:47:56] [TRT] [E] 1: [defaultAllocator.cpp::allocate::19] Error Code 1: "
        "Cuda Runtime (out of memory)",
    ),
    # Triton's healthy model loading (triton-inference-server/server issues #2179, #6989, #3036)
    (
        "*",
        "I0319 17:48:18.714938 193 model_lifecycle.cc:461] loading: nllb:1",
    ),
    (
        "*",
        "I0628 16:09:16.586164 25 python.cc:918] Starting Python backend stub: exec "
        "/opt/tritonserver/backends/python/triton_python_backend_stub /tmp/foldernvoPPf/1/model.py "
        "/tokenize_0_CPU_0 67108864 67108864 1 /opt/tritonserver/backends/python",
    ),
    (
        "*",
        "I0319 17:48:18.719683 193 onnxruntime.cc:2610] TRITONBACKEND_Initialize: onnxruntime",
    ),
    (
        "*",
        "I0809 10:19:07.022014 3254750 cuda_memory_manager.cc:107] CUDA memory pool is created "
        "on device 0 with size 67108864",
    ),
    # TGI's healthy launch (huggingface/text-generation-inference issue #606)
    ("*", "2023-07-13T13:36:28.050508Z  INFO text_generation_launcher: Starting shard 0"),
    (
        "*",
        "2024-11-26T19:35:36.328028Z  INFO text_generation_launcher: Sharding model on 8 processes",
    ),
    ("tgi.argument_validation", "ArgumentValidation passed for max_total_tokens"),
    # LMDeploy's routine TurboMind lines (InternLM/lmdeploy issue #1813)
    ("*", "[TM][INFO] NCCL group_id = 0"),
    ("*", "[TM][INFO] [BlockManager] block_size = 32 MB"),
    # the router's start-up wait, before a worker is ready (sgl-project/sglang issue #4208)
    (
        "sglang.router_workers_unhealthy",
        "[Router (Rust)] 2025-03-08 02:33:09 - INFO - Worker http://0.0.0.0:31000 health check "
        "is pending with error: error sending request for url (http://0.0.0.0:31000/health)",
    ),
    ("*", "Waiting for workers to become healthy..."),
    # Dynamo and the endpoint picker at work
    ("nvdynamo.nats_unreachable", "Connected to NATS server at nats://localhost:4222"),
    ("llmd.no_target_pod", "InferencePool vllm-llama3-8b-instruct has 2 ready pods"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, [(k, line) for k, line in NEGATIVE if k != "*"], BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract(
    {
        "signatures-serving2.toml": frozenset(
            {
                "trtllm",
                "tritonserver",
                "tgi",
                "lmdeploy",
                "sglang",
                "nvdynamo",
                "llmd",
                "ggml",
                "ollama",
            }
        )
    },
    BLAME,
)


def test_healthy_lines_match_no_serving2_entry() -> None:
    """Start-up banners, model loading and routine engine lines are no failure of the family."""
    for key, line in NEGATIVE:
        if key == "*":
            assert not set(hits(line)) & FAMILY, line


def test_nothing_here_acts_on_a_node() -> None:
    """An engine's refusal or relay never names the node it was printed on."""
    assert_no_node_action(BLAME)


def test_restatements_stay_below_the_collective_weight() -> None:
    """A relay of a failure printed elsewhere must not outweigh that failure or a peer's
    collective complaint."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            assert CATALOG.signatures[key].weight < COLLECTIVE, key


def test_only_out_of_memory_in_an_engine_cuda_check_is_the_job_s() -> None:
    """TensorRT-LLM's and TurboMind's CUDA checks relay any CUDA error: out of memory is the
    engine's budget (the application's, decisive), any other error a symptom the CUDA families
    read, and the two entries of each engine never both match one line."""
    pairs = (
        ("trtllm.cuda_oom", "trtllm.cuda_runtime_error"),
        ("lmdeploy.turbomind_cuda_oom", "lmdeploy.turbomind_cuda_error"),
    )
    for oom, other in pairs:
        assert CATALOG.signatures[oom].blame is Blame.APPLICATION
        assert CATALOG.signatures[oom].weight >= 60
        assert CATALOG.signatures[other].blame is Blame.SYMPTOM
    for line, key, _ in GOLDEN:
        for oom, other in pairs:
            if key in (oom, other):
                assert not {oom, other} <= set(hits(line)), line


def test_refusals_at_start_are_decisive() -> None:
    """What the server refuses at start fails the same way on any node: the job's, decisive."""
    for key, blame in BLAME.items():
        if blame is Blame.APPLICATION:
            assert 50 <= CATALOG.signatures[key].weight <= 70, key


def test_a_cuda_error_relayed_by_tensorrt_llm_keeps_its_own_meaning() -> None:
    """TensorRT-LLM's CUDA check is a carrier like PyTorch's: the error it names is read by the
    CUDA entries (an invalid ordinal the job's, an unknown error weak hardware), so the relay
    does not silence it (the tune bundle app-trtllm-tp2-two-single-t4-nodes-rank1-...)."""
    from domain.golden import hits

    line = (
        "1: RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaSetDevice(device): "
        "invalid device ordinal (/home/jenkins/agent/workspace/LLM/release-0.9/L0_PostMerge/"
        "tensorrt_llm/cpp/tensorrt_llm/runtime/utils/sessionUtils.cpp:66)"
    )
    assert "cuda.invalid_usage" in hits(line)
