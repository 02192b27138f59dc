"""Golden lines from sweep 8 over what LLM serving and RL-rollout engines print when they fail
(signatures-serving.toml): vLLM's V1 executor, engine core and client, SGLang's overlap worker and
detokenizer, Text Generation Inference's launcher and warmup, Triton Inference Server's model
loading, LMDeploy's TurboMind and TRL's vLLM client.

Each line is a real one from the public thread cited beside it and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: an engine relaying that a worker, shard or
core died or raised is a low-weight symptom (the cause is in the lines before), a configuration
the engine refuses at start is the application's, and nothing here names a node. Look-alikes
(healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    golden_line_checks,
    hits,
)

BLAME: dict[str, Blame] = {
    "vllm.process_exception": Blame.SYMPTOM,
    "vllm.engine_core_died": Blame.SYMPTOM,
    "vllm.quantization_unsupported_gpu": Blame.APPLICATION,
    "vllm.max_model_len_invalid": Blame.APPLICATION,
    "vllm.prompt_too_long": Blame.APPLICATION,
    "sglang.mem_fraction_too_small": Blame.APPLICATION,
    "sglang.manager_exception": Blame.SYMPTOM,
    "tgi.shard_failed": Blame.SYMPTOM,
    "tgi.webserver_failed": Blame.SYMPTOM,
    "tgi.prefill_memory": Blame.APPLICATION,
    "tritonserver.model_load_failed": Blame.APPLICATION,
    "tritonserver.startup_failed": Blame.SYMPTOM,
    "lmdeploy.turbomind_assertion": Blame.APPLICATION,
    "lmdeploy.turbomind_unsupported": Blame.APPLICATION,
    "trl.vllm_server_unreachable": Blame.SYMPTOM,
    "sglang.warmup_failed": Blame.SYMPTOM,
    "sglang.memory_unbalanced": Blame.APPLICATION,
    "trtllm.executor_failed": Blame.SYMPTOM,
    "nvdynamo.etcd_unreachable": Blame.SYMPTOM,
    "nvdynamo.no_instances": Blame.SYMPTOM,
    "vllm.model_weights_missing": Blame.APPLICATION,
    "tgi.server_method_failed": Blame.SYMPTOM,
    "vllm.quantization_mismatch": Blame.APPLICATION,
    "lmdeploy.engine_loop_failed": Blame.SYMPTOM,
    "tritonserver.python_stub_unhealthy": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # vllm-project/vllm issue #15469 (early V1 logs the format's literal %s)
    (
        "(VllmWorker rank=1 pid=12231) ERROR 03-25 21:13:53 multiproc_executor.py:374] "
        "WorkerProc hit an exception: %s",
        "vllm.process_exception",
        {},
    ),
    # vllm-project/vllm issue #16655 (the engine core failing in _initialize_kv_caches)
    (
        "ERROR 04-15 17:47:45 [core.py:387] EngineCore hit an exception: Traceback (most recent "
        "call last):",
        "vllm.process_exception",
        {},
    ),
    # vllm-project/vllm issue #16655 (title: the tuple form)
    (
        "RuntimeError: ('Worker failed with error %s, please check the stack trace above for the "
        "root cause'",
        "vllm.process_exception",
        {},
    ),
    # vllm-project/vllm issue #46232 (title)
    ("RuntimeError: Worker failed with error ''float8_e8m0fnu''", "vllm.process_exception", {}),
    # ai-dynamo/dynamo issue #14281 (a vLLM worker under Dynamo)
    (
        "(EngineCore pid=309) RuntimeError: Worker failed with error 'torch_call_dispatcher( "
        '"aten::empty", "memory_format", stack.data(), TORCH_ABI_VERSION) API call failed at '
        "/opt/venv/lib/python3.12/site-packages/torch/include/torch/csrc/stable/ops.h, line 625', "
        "please check the stack trace above for the root cause",
        "vllm.process_exception",
        {},
    ),
    # verl-project/verl issue #3271 (verl's async rollout waking the engine up)
    (
        "(AsyncvLLMServer pid=4343) ERROR 08-29 10:18:10 [core.py:459] Invocation of wake_up "
        "method failed",
        "vllm.process_exception",
        {"method": "wake_up"},
    ),
    # vllm-project/vllm issue #6668 (title)
    ("ChildProcessError: worker died", "vllm.process_exception", {}),
    # vllm-project/vllm issue #11994 (V0's API server after its engine process exited)
    (
        "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
        "vllm.process_exception",
        {},
    ),
    # vllm-project/vllm issues #4333 (through Ray workers) and #3329
    (
        "(RayWorkerVllm pid=1842765) ERROR 04-24 09:33:04 ray_utils.py:44] RuntimeError: Cannot "
        "find any model weights with 'meta-llama/CodeLlama-7b-Instruct-hf'",
        "vllm.model_weights_missing",
        {"model": "meta-llama/CodeLlama-7b-Instruct-hf"},
    ),
    (
        "RuntimeError: Cannot find any model weights with `/home/huggingface_models/"
        "models--lmsys--vicuna-13b-v1.5/snapshots/3deb0106f72a3a433f0c6ea0cb978bdf14bcd3a6`",
        "vllm.model_weights_missing",
        {
            "model": "/home/huggingface_models/models--lmsys--vicuna-13b-v1.5/snapshots/"
            "3deb0106f72a3a433f0c6ea0cb978bdf14bcd3a6"
        },
    ),
    # LMCache/LMCache issue #411 (V0's client after the engine loop died)
    (
        "ERROR 03-17 08:02:04 serving_chat.py:596] vllm.engine.multiprocessing.MQEngineDeadError: "
        "Engine loop is not running. Inspect the stacktrace to find the original error: "
        "AssertionError('Error in model execution (input dumped to "
        "/tmp/err_execute_model_input_20250317-080027.pkl): ').",
        "vllm.process_exception",
        {},
    ),
    # vllm-project/vllm issues #5842 (title) and #3331 (the earlier wording)
    (
        "ValueError: Quantization method specified in the model config (gptq) does not match the "
        "quantization method specified in the `quantization` argument (gptq_marlin).",
        "vllm.quantization_mismatch",
        {"config": "gptq", "argument": "gptq_marlin"},
    ),
    (
        "ValueError: Quantization method specified in the model config (marlin) does not match "
        "the quantization method specified in the quantization argument (gptq).",
        "vllm.quantization_mismatch",
        {"config": "marlin", "argument": "gptq"},
    ),
    # vllm-project/vllm issue #19668 and kvcache-ai/Mooncake issue #1458 (V1's input dump after
    # execute_model raised)
    (
        "ERROR 06-15 13:57:57 [dump_input.py:79] Dumping scheduler output for model execution:",
        "vllm.process_exception",
        {},
    ),
    (
        "ERROR 01-29 10:27:47 [dump_input.py:69] Dumping input data for V1 LLM engine "
        "(v0.1.dev10025+gb76a25511.d20260106) with config: "
        "model='/home/manas/MiniMax-M2.1-26.1.RC2', speculative_config=None",
        "vllm.process_exception",
        {},
    ),
    # modelscope/ms-swift issue #7933 (a GRPO rollout engine's second DP rank)
    (
        "ERROR 01-29 08:37:48 [core_client.py:564] Engine core proc EngineCore_DP1 died "
        "unexpectedly, shutting down client.",
        "vllm.engine_core_died",
        {"proc": "EngineCore_DP1"},
    ),
    # vllm-project/vllm issue #32468 (at the end of a finished pooling script)
    (
        "ERROR 01-16 17:16:49 [core_client.py:605] Engine core proc EngineCore_DP0 died "
        "unexpectedly, shutting down client.",
        "vllm.engine_core_died",
        {"proc": "EngineCore_DP0"},
    ),
    # intel/llm-scaler issue #77 (after an RPC timeout)
    (
        "ERROR 09-06 04:14:11 [async_llm.py:416] AsyncLLM output_handler failed.",
        "vllm.engine_core_died",
        {},
    ),
    # vllm-project/vllm issues #14154 and #4327 (titles)
    (
        "ValueError: The quantization method bitsandbytes is not supported for the current GPU. "
        "Minimum capability: 70. Current capability: 52.",
        "vllm.quantization_unsupported_gpu",
        {"method": "bitsandbytes", "required": "70", "capability": "52"},
    ),
    (
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
        "capability: 90. Current capability: 86",
        "vllm.quantization_unsupported_gpu",
        {"method": "fp8", "required": "90", "capability": "86"},
    ),
    # vllm-project/vllm issue #14040 (title: compressed-tensors on a Turing GPU)
    (
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min "
        "capability: 80. ', 'Current capability: 75.')",
        "vllm.quantization_unsupported_gpu",
        {"min": "80"},
    ),
    # vllm-project/vllm issue #3676 (title)
    (
        "ValueError: User-specified max_model_len (131072) is greater than the derived "
        "max_model_len (None=8192 in model's config.json). This may lead to incorrect model",
        "vllm.max_model_len_invalid",
        {"requested": "131072"},
    ),
    # xorbitsai/inference issue #1715 (through Xinference's actor)
    (
        "ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len (4096) "
        "is greater than the derived max_model_len (seq_length=2048 or model_max_length=None in "
        "model's config.json).",
        "vllm.max_model_len_invalid",
        {"requested": "4096"},
    ),
    # unslothai/unsloth issue #2666 (GRPO with vLLM)
    (
        "ValueError: The decoder prompt (length 322) is longer than the maximum model length of "
        "256. Make sure that `max_model_len` is no smaller than the number of text tokens.",
        "vllm.prompt_too_long",
        {"length": "322", "limit": "256"},
    ),
    # hiyouga/LlamaFactory issue #7723 (title: the earlier wording)
    (
        "ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.",
        "vllm.prompt_too_long",
        {"prompt": "5016"},
    ),
    # gpustack/gpustack issue #3831 (SGLang 0.5.6 on Ascend)
    (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current "
        "value: self.server_args.mem_fraction_static=0.2",
        "sglang.mem_fraction_too_small",
        {},
    ),
    # sgl-project/sglang issue #4330 (speculative decoding on an L40S)
    (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
        "sglang.mem_fraction_too_small",
        {},
    ),
    # sgl-project/sglang issue #5284 (the overlap scheduler's worker thread)
    (
        "[2025-04-11 15:03:19 TP0] TpModelWorkerClient hit an exception: Traceback (most recent "
        "call last):",
        "sglang.manager_exception",
        {"process": "TpModelWorkerClient"},
    ),
    # sgl-project/sglang issue #9329 (InternS1's tokenizer)
    (
        "2025-08-15 14:25:48] DetokenizerManager hit an exception: Traceback (most recent call "
        "last):",
        "sglang.manager_exception",
        {"process": "DetokenizerManager"},
    ),
    # huggingface/text-generation-inference issue #1627 (signal 4: the CPU lacks an instruction)
    (
        "2024-03-06T17:53:31.149443Z ERROR text_generation_launcher: Shard 0 failed to start",
        "tgi.shard_failed",
        {"rank": "0"},
    ),
    (
        "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process "
        "was signaled to shutdown with signal 4 rank=0",
        "tgi.shard_failed",
        {"signal": "4"},
    ),
    (
        "2024-03-06T17:53:31.052367Z ERROR shard-manager: text_generation_launcher: Shard complete "
        "standard error output:",
        "tgi.shard_failed",
        {},
    ),
    ("Error: ShardCannotStart", "tgi.shard_failed", {}),
    # huggingface/text-generation-inference issue #1156 (the torch.distributed port in use)
    (
        "2023-10-16T06:54:28.059380Z ERROR text_generation_launcher: Shard 0 failed to start",
        "tgi.shard_failed",
        {"rank": "0"},
    ),
    # huggingface/text-generation-inference issue #2280 (a request crashing a shard)
    ("Error: ShardFailed", "tgi.shard_failed", {}),
    # huggingface/text-generation-inference issue #2823 (Qwen2-VL's warmup) and
    # TrelisResearch/one-click-llms issue #5 (DBRX)
    (
        "2024-12-11T10:04:03.877415Z ERROR text_generation_launcher: Method Warmup encountered an "
        "error.",
        "tgi.server_method_failed",
        {"method": "Warmup"},
    ),
    (
        "2024-03-30T14:16:55.617195Z ERROR text_generation_launcher: Method Warmup encountered an "
        "error.",
        "tgi.server_method_failed",
        {"method": "Warmup"},
    ),
    # huggingface/text-generation-inference issue #1795 (the router's panic)
    (
        "2024-04-23T08:26:48.209311Z ERROR text_generation_launcher: Webserver Crashed",
        "tgi.webserver_failed",
        {},
    ),
    # huggingface/text-generation-inference issue #1164 (title)
    (
        "ERROR warmup{max_input_length=64 max_prefill_tokens=256}:warmup: text_generation_client: "
        "router/client/src/lib.rs:33: Server error: Not enough memory to handle 256 prefill "
        "tokens. You need to decrease `--max-batch-prefill-tokens`",
        "tgi.prefill_memory",
        {"tokens": "256"},
    ),
    # triton-inference-server/server issue #1808 (a TorchScript module LibTorch cannot parse)
    (
        "E0720 03:42:54.944486 1 model_repository_manager.cc:810] failed to load 'hrnet_libtorch' "
        "version 1: Internal: load failed for libtorch model -> 'hrnet_libtorch': ",
        "tritonserver.model_load_failed",
        {"model": "hrnet_libtorch", "version": "1", "status": "Internal"},
    ),
    (
        "E0720 03:43:07.419723 1 main.cc:1099] error: creating server: INTERNAL - failed to load "
        "all models",
        "tritonserver.startup_failed",
        {},
    ),
    # triton-inference-server/server issue #2858
    (
        "error: creating server: Internal - failed to load all models",
        "tritonserver.startup_failed",
        {},
    ),
    # triton-inference-server/server issues #6480 and #3678, triton-inference-server/pytriton
    # issue #37 (title)
    (
        "E1025 09:40:38.075506 9121 python_be.cc:2066] Stub process is unhealthy and it will be "
        "restarted.",
        "tritonserver.python_stub_unhealthy",
        {},
    ),
    (
        "tritonclient.utils.InferenceServerException: [StatusCode.INTERNAL] Failed to process the "
        "request(s) for model instance 'damage_0', message: Stub process is not healthy.",
        "tritonserver.python_stub_unhealthy",
        {},
    ),
    (
        "Stub process 'REGIS_0' is not healthy",
        "tritonserver.python_stub_unhealthy",
        {"instance": "REGIS_0"},
    ),
    # InternLM/lmdeploy issue #3455 (--tp 2 on Windows)
    (
        "RuntimeError: [TM][ERROR]  Assertion fail: "
        "D:\\a\\lmdeploy\\lmdeploy\\src/turbomind/models/llama/Barrier.h:20",
        "lmdeploy.turbomind_assertion",
        {"where": "D:\\a\\lmdeploy\\lmdeploy\\src/turbomind/models/llama/Barrier.h:20"},
    ),
    # InternLM/lmdeploy issue #3065 (InternVL2.5 through TurbomindEngineConfig)
    (
        "RuntimeError: Error: turbomind has not been built with fp32 support.",
        "lmdeploy.turbomind_unsupported",
        {"feature": "fp32"},
    ),
    # InternLM/lmdeploy issues #3459 and #1290 (titles)
    ("ERROR - engine.py:781 - Task <EngineMainLoop> failed", "lmdeploy.engine_loop_failed", {}),
    ("ERROR - Engine main loop stopped.", "lmdeploy.engine_loop_failed", {}),
    # huggingface/open-r1 issue #543 (GRPO waiting for `trl vllm-serve`)
    (
        "2025-03-26 05:53:13 - INFO - trl.extras.vllm_client - Server is not up yet. Retrying in "
        "2.0 seconds...",
        "trl.vllm_server_unreachable",
        {},
    ),
    # philschmid/deep-learning-pytorch-huggingface issue #83 (the stdlib logging format)
    (
        "INFO:trl.extras.vllm_client:Server is not up yet. Retrying in 2.0 seconds...",
        "trl.vllm_server_unreachable",
        {},
    ),
    # sgl-project/sglang issues #2193 and #2468 (the warm-up request failing)
    (
        "[2024-11-26 14:25:58] Initialization failed. warmup error: Traceback (most recent call "
        "last):",
        "sglang.warmup_failed",
        {},
    ),
    (
        "[2024-12-13 01:47:34] Initialization failed. warmup error: Traceback (most recent call "
        "last):",
        "sglang.warmup_failed",
        {},
    ),
    # sgl-project/sglang issue #4233 (title) and #1533
    (
        "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other "
        "processes.",
        "sglang.memory_unbalanced",
        {},
    ),
    # NVIDIA/TensorRT-LLM issues #7706 and #8308 (trtllm-serve's proxy)
    ("RuntimeError: Executor worker returned error", "trtllm.executor_failed", {}),
    # apache/beam pull request #36966 (a Dynamo vLLM worker's panic)
    (
        "called `Result::unwrap()` on an `Err` value: BuildError(Unable to create lease. Check "
        "etcd server status at http://localhost:2379",
        "nvdynamo.etcd_unreachable",
        {},
    ),
    # ai-dynamo/dynamo issue #1280 (title: the frontend without a worker)
    (
        "2025-05-30T00:35:01.153Z ERROR chat_completions: dynamo_llm::http::service::openai: "
        "Internal server error: Failed to generate completions: no instances found for endpoint "
        '"instances"',
        "nvdynamo.no_instances",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # vLLM's healthy progress and start-up lines
    (
        "*",
        "INFO 07-28 23:02:37 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 12.4 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV "
        "cache usage: 0.1%, Prefix cache hit rate: 0.0%",
    ),
    ("*", "INFO:     Started server process [2120154]"),
    (
        "*",
        "(VllmWorker rank=0 pid=2120280) INFO 07-28 23:02:27 [gpu_worker.py:255] Available KV "
        "cache memory: 18.83 GiB",
    ),
    # the collective_rpc form is vllm.worker_process_died's, not a second entry's
    (
        "vllm.process_exception",
        "(EngineCore_DP0 pid=1) ERROR 10-01 10:00:00 [core.py:700] Invocation of collective_rpc "
        "method failed",
    ),
    # a request-size warning is not the refusal
    (
        "vllm.prompt_too_long",
        "WARNING 06-01 10:00:00 scheduler.py:700] Input prompt (5016 tokens) is too long and "
        "exceeds limit of 4096",
    ),
    # SGLang's healthy memory-pool line
    (
        "*",
        "[2025-08-04 10:10:08] KV Cache is allocated. #tokens: 30192, K size: 1.38 GB, V size: "
        "1.38 GB",
    ),
    # TGI's waiting and clean shutdown lines
    (
        "*",
        "2024-05-01T01:17:02.618817Z  INFO shard-manager: text_generation_launcher: Waiting for "
        "shard to be ready... rank=1",
    ),
    (
        "*",
        "2024-04-23T08:26:48.480196Z  INFO shard-manager: text_generation_launcher: Shard "
        "terminated rank=3",
    ),
    # another program's shard that fails to start is not TGI's
    ("tgi.shard_failed", "Primary shard failed to start on node-3; retrying allocation"),
    # Triton's healthy load
    (
        "*",
        "I0223 12:03:30.796012 120 model_lifecycle.cc:839] \"successfully loaded 'tensorrt_llm'\"",
    ),
    ("tritonserver.model_load_failed", "Warning: failed to load 'libfoo.so', using fallback"),
    # TRL's client once the server answers
    ("*", "2025-03-26 05:55:01 - INFO - trl.extras.vllm_client - Server is up!"),
    # another program's engine loop ending normally
    ("lmdeploy.engine_loop_failed", "2024-01-01 10:00:00 INFO Engine main loop stopped"),
    # another tool's retry loop
    ("trl.vllm_server_unreachable", "Server is not up yet. Retrying in 1 second"),
]

FAMILY = frozenset(BLAME)


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
        "signatures-serving.toml": frozenset(
            {"vllm", "sglang", "tgi", "tritonserver", "lmdeploy", "trl", "trtllm", "nvdynamo"}
        )
    },
    BLAME,
)


def test_healthy_lines_match_no_serving_entry() -> None:
    """Start-up banners, throughput logs and clean shutdowns are no failure of the family."""
    for key, line in NEGATIVE:
        if key == "*":
            assert not set(hits(line)) & FAMILY, line


def test_nothing_here_acts_on_a_node() -> None:
    """An engine's restatement or its refusal of a configuration never names the node."""
    assert_no_node_action(BLAME)


def test_restatements_stay_below_the_collective_weight() -> None:
    """A relay of a failure printed elsewhere must not outweigh that failure or a peer's
    collective complaint."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            assert CATALOG.signatures[key].weight < COLLECTIVE, key


def test_an_executor_failure_leaves_its_carried_error_to_its_own_entry() -> None:
    """TensorRT-LLM prints the worker's error on the same line: the NCCL entry still reads it
    (NVIDIA/TensorRT-LLM issue #9263), and the relay adds only who stopped."""
    found = hits(
        "[11/18/2025-09:33:30] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: "
        "[TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error "
        "../tensorrt_llm/runtime/ncclCommunicator.cpp:90 'invalid usage (run with "
        "NCCL_DEBUG=WARN for details)'"
    )
    assert found["trtllm.executor_failed"] == {"rank": "0"}
    assert "nccl.invalid_usage" in found
    assert "trtllm.assertion_failed" not in found


def test_configuration_refusals_are_the_application_s() -> None:
    """What the engine refuses at start fails the same way on any node: the job's."""
    for key in (
        "vllm.quantization_unsupported_gpu",
        "vllm.max_model_len_invalid",
        "sglang.mem_fraction_too_small",
        "tgi.prefill_memory",
        "vllm.model_weights_missing",
        "lmdeploy.turbomind_unsupported",
    ):
        assert 60 <= CATALOG.signatures[key].weight <= 70, key
