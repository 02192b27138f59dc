"""Golden lines from the fourth tracker sweep of issue 14 over the training frameworks and their
launchers: lines that reveal the job's own configuration (a checkpoint saved with another
parallel layout, a launch environment Megatron refuses, a SLURM script and a Lightning Trainer
that disagree, parallel degrees that do not multiply to the world size, a DeepSpeed --include
naming a GPU the host lacks, a Ray-based trainer asking for more GPUs than its cluster has, verl
batch sizes that do not divide, a vLLM rollout whose KV cache does not fit), the job's numerics
(fairseq), checkpoint files that cannot be read, and the wrappers that only restate a failure
(vLLM's worker and engine, Ray Train and Tune).

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the emitter means. Look-alikes that the same code paths print when nothing failed, or that
say something else, must not match; a restatement never reads as the application's error.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_no_node_action, golden_line_checks, hits

A, S = Blame.APPLICATION, Blame.SYMPTOM

BLAME: dict[str, Blame] = {
    "megatron.checkpoint_args_mismatch": A,
    "megatron.launch_env_required": A,
    "megatron.checkpoint_mismatch": A,
    "megatron.batch_indivisible": A,
    "trl.grpo_generations_indivisible": A,
    "hf.bf16_unsupported": A,
    "flashattn.gpu_unsupported": A,
    "deepspeed.memory_pressure": A,
    "lightning.slurm_layout_mismatch": A,
    "titan.parallel_dims_invalid": A,
    "checkpoint.file_unreadable": A,
    "fairseq.grad_inconsistent": A,
    "fairseq.non_finite": A,
    "vllm.kv_cache_too_small": A,
    "vllm.engine_restatement": S,
    "verl.batch_config_invalid": A,
    "deepspeed.include_invalid": A,
    "ray.gpu_request_exceeds_cluster": A,
    "ray.train_failed": S,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # NVIDIA/Megatron-LM issue #296 (fine-tuning with TP=2 from a TP=1 checkpoint)
    (
        "AssertionError: tensor_model_parallel_size value from checkpoint (1) is not equal to the "
        "input argument value (2).",
        "megatron.checkpoint_args_mismatch",
        {"arg": "tensor_model_parallel_size", "saved": "1", "given": "2"},
    ),
    # alibaba/Megatron-LLaMA issues #26 and #44 (the raise both quote)
    (
        "RuntimeError: Using sequence parallelism requires setting the environment variable "
        "CUDA_DEVICE_MAX_CONNECTIONS to 1",
        "megatron.launch_env_required",
        {},
    ),
    # ROCm/Megatron-LM pull request #91 (the FSDP assert of megatron/training/arguments.py)
    (
        "AssertionError: FSDP always requires CUDA_DEVICE_MAX_CONNECTIONS value large than one",
        "megatron.launch_env_required",
        {},
    ),
    # NVIDIA-NeMo/Speech issue #10386 (a TE _extra_state the converted checkpoint lacks)
    (
        "megatron.core.dist_checkpointing.core.CheckpointingException: Object shard /ckpt/"
        "model_weights/model.decoder.layers.self_attention.core_attention._extra_state/"
        "shard_0_80.pt not found",
        "megatron.checkpoint_mismatch",
        {},
    ),
    # a public model port's test docstring (a TP=2 load of shapes recorded per shard)
    (
        "CheckpointingException: Global shape mismatch for loaded (torch.Size([4])) and expected "
        "((2,)) tensor for key ...self_attention.A_log",
        "megatron.checkpoint_mismatch",
        {},
    ),
    # a public training note quoting Megatron's num_microbatches_calculator (code index)
    (
        "AssertionError: global batch size (16) is not divisible by micro batch size (2) times "
        "data parallel size (16)",
        "megatron.batch_indivisible",
        {"global_batch": "16", "micro_batch": "2", "data_parallel": "16"},
    ),
    # huggingface/open-r1 issue #249 (seven processes, eight generations)
    (
        "[rank1]: ValueError: The global train batch size (7 x 1) must be evenly divisible by the "
        "number of generations per prompt (8). Given the current train batch size, the valid "
        "values for the number of generations are: [7].",
        "trl.grpo_generations_indivisible",
        {"generations": "8"},
    ),
    # Mohammadjafari80/GSM8K-RLVR issue #3, modelscope/ms-swift issue #3980
    (
        "ValueError: The global train batch size (1 x 1) must be evenly divisible by the number of "
        "generations per prompt (6). Given the current train batch size, the valid values for the "
        "number of generations are: [].",
        "trl.grpo_generations_indivisible",
        {"generations": "6"},
    ),
    # lm-sys/FastChat issue #399 (8 x V100), OptimalScale/LMFlow issue #251 (T4)
    (
        "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU "
        "with cuda>=11.0",
        "hf.bf16_unsupported",
        {},
    ),
    # lm-sys/FastChat issue #1191 (the V100's next refusal once bf16 was off)
    (
        "ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7",
        "hf.bf16_unsupported",
        {},
    ),
    # zai-org/GLM-Edge issue #20 (the newer wording)
    (
        "ValueError: Your setup doesn't support bf16/gpu. You need Ampere+ GPU with cuda>=11.0",
        "hf.bf16_unsupported",
        {},
    ),
    # microsoft/MInference issue #51 (V100S), Dao-AILab/flash-attention issue #762 (T4)
    (
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        "flashattn.gpu_unsupported",
        {},
    ),
    # vllm-project/vllm issue #8189 (vLLM's model runner re-raising it)
    (
        "ERROR 01-11 13:09:40 engine.py:366] RuntimeError: Error in model execution (input dumped "
        "to /tmp/err_execute_model_input_20250111-130939.pkl): FlashAttention only supports "
        "Ampere GPUs or newer.",
        "flashattn.gpu_unsupported",
        {},
    ),
    # deepspeedai/DeepSpeedExamples issue #186 (an OOM despite ZeRO-3 followed)
    (
        "[2022-07-13 21:09:13,651] [WARNING] [stage3.py:2391:step] 2 pytorch allocator cache "
        "flushes since last step. this happens when there is high memory pressure and is "
        "detrimental to performance. if this is happening frequently consider adjusting settings "
        "to reduce memory consumption.",
        "deepspeed.memory_pressure",
        {"flushes": "2"},
    ),
    # huggingface/trl issue #1100 (DPO under ZeRO-3, one sample per device)
    (
        "1 pytorch allocator cache flushes since last step. this happens when there is high "
        "memory pressure and is detrimental to performance. if this is ",
        "deepspeed.memory_pressure",
        {"flushes": "1"},
    ),
    # a public multi-node DDP fix note (hurryingauto3/navsim-ijepa-planning-agent, Lightning)
    (
        "ValueError: You set `devices=4` in Lightning, but the number of tasks per node "
        "configured in SLURM `--ntasks-per-node=1` does not match. HINT: Set `devices=1`.",
        "lightning.slurm_layout_mismatch",
        {"setting": "devices"},
    ),
    # Lightning-AI/pytorch-lightning pull request #15011 (the check it added)
    (
        "RuntimeError: You set `--ntasks=8` in your SLURM bash script, but this variable is not "
        "supported. HINT: Use `--ntasks-per-node=8` instead.",
        "lightning.slurm_layout_mismatch",
        {},
    ),
    # pytorch/torchtitan pull request #27 (its test output) and a torchtitan experiment note
    (
        "AssertionError: Invalid parallel dims: dp(1) * sp(2) * pp(3) != WORLD_SIZE8",
        "titan.parallel_dims_invalid",
        {"world": "8"},
    ),
    (
        "Invalid parallel dims: dp_replicate(1) * dp_shard(2) * cp(2) * tp(1) * pp(1) != "
        "WORLD_SIZE(8)",
        "titan.parallel_dims_invalid",
        {"world": "8"},
    ),
    # openpsi-project/ReaLHF issue #44, lyogavin/airllm issue #137
    (
        "safetensors_rust.SafetensorError: Error while deserializing header: "
        "MetadataIncompleteBuffer",
        "checkpoint.file_unreadable",
        {"kind": "MetadataIncompleteBuffer"},
    ),
    # open-mmlab/mmdetection issue #4835; sml2h3/dddd_trainer issue #36 (after a full disk)
    (
        "RuntimeError: [enforce fail at inline_container.cc:144] . PytorchStreamReader failed "
        "reading zip archive: failed finding central directory",
        "checkpoint.file_unreadable",
        {},
    ),
    # facebookresearch/fairseq issues #1372 and #1404
    (
        "FloatingPointError: Fatal error: gradients are inconsistent between workers. Try "
        "--ddp-backend=no_c10d. Or are you mixing up different generation of GPUs in training?",
        "fairseq.grad_inconsistent",
        {},
    ),
    (
        "AssertionError: Fatal error: gradients are inconsistent between workers ",
        "fairseq.grad_inconsistent",
        {},
    ),
    # facebookresearch/fairseq issues #1529 and #4118
    (
        "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably "
        "exploding. Try lowering the learning rate, using gradient clipping or increasing the "
        "batch size.",
        "fairseq.non_finite",
        {},
    ),
    ("FloatingPointError: gradients are Nan/Inf", "fairseq.non_finite", {}),
    # OpenRLHF/OpenRLHF issue #336 (a 70B PPO rollout), hiyouga/LlamaFactory issue #6472
    (
        "ValueError: The model's max seq len (8192) is larger than the maximum number of tokens "
        "that can be stored in KV cache (6048). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        "vllm.kv_cache_too_small",
        {},
    ),
    # deepseek-ai/DeepSeek-V2 issue #83 (the backticks lost in the paste)
    (
        "ValueError: The model's max seq len (163840) is larger than the maximum number of tokens "
        "that can be stored in KV cache (13360). Try increasing gpu_memory_utilization or "
        "decreasing max_model_len when initializing the engine.",
        "vllm.kv_cache_too_small",
        {},
    ),
    # vLLM V1's check_enough_kv_cache_memory, as a workspace note quotes it
    (
        "ValueError: To serve at least one request with the model's max seq len (262144), (7.17 "
        "GiB KV cache is needed, which is larger than the available KV cache memory (6.74 GiB).",
        "vllm.kv_cache_too_small",
        {},
    ),
    # OpenRLHF/OpenRLHF issue #336, vllm-project/vllm issues #17363 and #13276
    (
        "(LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145] Error executing method "
        "initialize_cache. This might cause deadlock in distributed execution.",
        "vllm.engine_restatement",
        {},
    ),
    # vLLM v1's multiproc executor (vllm/v1/executor/multiproc_executor.py), as tracker sweep 6
    # found it in vLLM threads after a worker's own error
    (
        "Exception: WorkerProc initialization failed due to an exception in a background "
        "process. See stack trace for root cause.",
        "vllm.engine_restatement",
        {},
    ),
    (
        "[Bug]: Error executing method 'init_device'. This might cause deadlock in distributed "
        "execution.",
        "vllm.engine_restatement",
        {},
    ),
    (
        "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. This "
        "should never happen! Please open an issue on Github. See stack trace above for the "
        "actual cause.",
        "vllm.engine_restatement",
        {},
    ),
    # verl-project/verl issues #1785 and #1191; PRIME-RL/TTRL issue #43 (a verl fork)
    (
        "AssertionError: rollout world_size: 1 is not divisible by infer_tp: 2",
        "verl.batch_config_invalid",
        {},
    ),
    (
        "AssertionError: ppo_mini_batch_size 0 should be larger than 0 after normalization",
        "verl.batch_config_invalid",
        {},
    ),
    # 01-ai/Yi issue #392, deepspeedai/DeepSpeed issue #5818 (CUDA_VISIBLE_DEVICES=0,2)
    (
        "ValueError: No slot '1' specified on host 'localhost'",
        "deepspeed.include_invalid",
        {"slot": "1", "host": "localhost"},
    ),
    (
        "ValueError: No slot '2' specified on host 'localhost'",
        "deepspeed.include_invalid",
        {"slot": "2", "host": "localhost"},
    ),
    # verl-project/verl issues #2515 and #539
    (
        "ValueError: Total available GPUs 8.0 is less than total desired GPUs 16",
        "ray.gpu_request_exceeds_cluster",
        {},
    ),
    (
        "ValueError: Total available GPUs 0 is less than total desired GPUs 8",
        "ray.gpu_request_exceeds_cluster",
        {},
    ),
    # VITA-MLLM/VITA issue #42, vllm-project/vllm issue #26028
    (
        "ValueError: The number of required GPUs exceeds the total number of available GPUs in "
        "the placement group.",
        "ray.gpu_request_exceeds_cluster",
        {},
    ),
    # NVIDIA-NeMo/RL pull request #89
    (
        "ValueError: Not enough GPUs available. Requested 16 GPUs, but only 8 are available in "
        "the cluster.",
        "ray.gpu_request_exceeds_cluster",
        {},
    ),
    # ray-project/ray issues #39380 and #47974
    (
        "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect "
        "the previous error messages for a cause. After fixing the issue (assuming that the error "
        "is not caused by your own application logic, but rather an error such as OOM), you can "
        "restart the run from scratch or continue this run.",
        "ray.train_failed",
        {},
    ),
    # ray-project/ray issues #45825, #36537 and #23431
    (
        "2024-06-10 14:40:30,688\tERROR tune.py:1035 -- Trials did not complete: "
        "[TorchTrainer_1fa3e_00000] Training errored after 0 iterations at 2024-06-10 14:40:30.",
        "ray.train_failed",
        {},
    ),
    (
        "2023-06-17 02:16:38,194 ERROR tune_controller.py:905 -- Trial task failed for trial "
        "TransformersTrainer_31d61_00000",
        "ray.train_failed",
        {},
    ),
    (
        "(TrainTrainable pid=1236) RuntimeError: Training has failed even after 1 attempts. You "
        "can change the number of max failure attempts by setting the `max_retries` arg in your "
        "`Trainer`.",
        "ray.train_failed",
        {},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # Megatron's printout of the arguments, and the performance warnings, are not refusals
    ("megatron.checkpoint_args_mismatch", "  tensor_model_parallel_size ...................... 2"),
    (
        "megatron.launch_env_required",
        "UserWarning: When using sequence parallelism it is "
        "recommended to set the environment variable CUDA_DEVICE_MAX_CONNECTIONS to 1 for maximum "
        "speedup",
    ),
    (
        "megatron.launch_env_required",
        "WARNING: sequence parallelism and FSDP2 together. Try not "
        "to using them together since they require different CUDA_MAX_CONNECTIONS settings for best "
        "performance. sequence parallelism requires setting the environment variable "
        "CUDA_DEVICE_MAX_CONNECTIONS to 1 while FSDP2 requires not setting "
        "CUDA_DEVICE_MAX_CONNECTIONS=1 for better parallelization.",
    ),
    ("megatron.checkpoint_mismatch", "Loading object shard /ckpt/common.pt"),
    # Megatron's own arithmetic printout, and TRL's config docstring, are not refusals
    ("megatron.batch_indivisible", "setting number of micro-batches to constant 8"),
    (
        "trl.grpo_generations_indivisible",
        "num_generations: Number of generations per prompt to sample. The global batch size "
        "(num_processes * per_device_batch_size) must be divisible by this value.",
    ),
    # transformers choosing bf16 where it can, and flash-attn's own version notice
    ("hf.bf16_unsupported", "Using bf16 mixed precision (is_torch_bf16_gpu_available: True)"),
    ("flashattn.gpu_unsupported", "FlashAttention 2 is available: flash_attn 2.6.3"),
    # DeepSpeed's memory report is not the allocator's flush warning
    (
        "deepspeed.memory_pressure",
        "[INFO] [utils.py:803:see_memory_usage] MA 12.4 GB Max_MA 14.1 GB CA 15.0 GB Max_CA 15 GB",
    ),
    # Lightning's interactive-mode notice and its SLURM detection are not mismatches
    ("lightning.slurm_layout_mismatch", "SLURM auto-requeueing enabled. Setting signal handlers."),
    ("lightning.slurm_layout_mismatch", "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/8"),
    # torchtitan building the mesh it was asked for
    (
        "titan.parallel_dims_invalid",
        "[titan] Building 2-D device mesh with ['dp_shard', 'tp'], [4, 2]",
    ),
    # safetensors refusing shared tensors is hf.safetensors_shared_tensors, and a writer's
    # failure is the storage family's
    (
        "checkpoint.file_unreadable",
        "safetensors_rust.SafetensorError: Error while serializing: "
        'IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })',
    ),
    (
        "checkpoint.file_unreadable",
        "RuntimeError: [enforce fail at inline_container.cc:445] . "
        "PytorchStreamWriter failed writing file data/176: file write failed",
    ),
    # fairseq's per-step overflow and loss-scale halving are routine
    ("fairseq.non_finite", "| WARNING: overflow detected, setting loss scale to: 64.0"),
    ("fairseq.grad_inconsistent", "grad_norm across the workers:"),
    # vLLM sizing its cache, and the sleep-mode allocator's failure (vllm.cumem_oom)
    (
        "vllm.kv_cache_too_small",
        "INFO 06-28 06:11:45 distributed_gpu_executor.py:45] # GPU blocks: 378, # CPU blocks: 1638",
    ),
    (
        "vllm.kv_cache_too_small",
        "INFO 03-10 08:07:20 [kv_cache_utils.py:578] GPU KV cache size: 6,048 tokens",
    ),
    (
        "vllm.engine_restatement",
        "INFO 06-28 06:11:45 worker_base.py:145] Executing method initialize_cache",
    ),
    # verl normalizing a valid config prints nothing; its dataloader summary is no refusal
    ("verl.batch_config_invalid", "Size of train dataloader: 467, Size of val dataloader: 1"),
    # the DeepSpeed launcher deriving --include from CUDA_VISIBLE_DEVICES is routine
    ("deepspeed.include_invalid", "Detected CUDA_VISIBLE_DEVICES=1: setting --include=localhost:1"),
    (
        "deepspeed.include_invalid",
        "[WARNING] [runner.py:202:fetch_hostfile] Unable to find "
        "hostfile, will proceed with training with local resources only.",
    ),
    # Ray's autoscaler status and a pending placement group are not a refusal
    (
        "ray.gpu_request_exceeds_cluster",
        "Resources requested: 0/16 CPUs, 0/0 GPUs, 0.0/25.01 GiB heap, 0.0/2.0 GiB objects",
    ),
    ("ray.train_failed", "Number of errored trials: 1"),
    ("ray.train_failed", "Trial TorchTrainer_1fa3e_00000 completed. Last result: loss=0.12"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_none_acts_on_a_node() -> None:
    """None of these lines says a device failed: none may act on the node it was printed on."""
    assert_no_node_action(BLAME)


def test_restatements_decide_nothing() -> None:
    """vLLM's and Ray Train's restatements name neither a cause nor a node."""
    for key in ("vllm.engine_restatement", "ray.train_failed"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight < 30, key


def test_configuration_refusals_decide_over_a_collective_complaint() -> None:
    """A framework refusing the job's configuration must outweigh the generic exception (50),
    which attribution drops once the node's own collective complaint came first."""
    for key, blame in BLAME.items():
        weight = CATALOG.signatures[key].weight
        if blame is A and key not in ("deepspeed.memory_pressure",):
            assert weight >= 55, key


def test_memory_pressure_is_a_warning_not_a_verdict() -> None:
    """ZeRO-3's cache-flush warning repeats every step of a healthy run near its memory limit."""
    assert CATALOG.signatures["deepspeed.memory_pressure"].weight < 50


def test_a_restated_engine_failure_no_longer_reads_as_the_application() -> None:
    line = (
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
        "stack trace (above) for the root cause."
    )
    assert set(hits(line)) == {"vllm.engine_restatement"}
