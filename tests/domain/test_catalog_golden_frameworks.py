"""Golden lines for the training frameworks' own messages (signatures-frameworks.toml): NVRx,
Megatron, DeepSpeed, TransformerEngine, HF Trainer/accelerate, Lightning, torchtitan, FSDP, DCP,
NeMo. Each example reads as its signal and blame; the neighbours that must not match are texts
the same code paths print when nothing is wrong."""

from __future__ import annotations

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, Source
from autorecover.parsing.scanning import Scanner
from domain.golden import found

H, S, A, N = Blame.HARDWARE, Blame.SYMPTOM, Blame.APPLICATION, Blame.INFO  # N: info (noise)


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # NVRx: this node's own health checks
        ("GPU health check failed for node gpu-a03_48120_0: Node gpu-a03_48120_0 has an "
         "unhealthy GPU.", "nvrx.gpu_health_check_failed", H),
        ("nvidia_resiliency_ext.inprocess.exception.HealthCheckError: GPU health check failed",
         "nvrx.gpu_health_check_failed", H),
        ("GPU 5: Requires a reset to recover. Terminate GPU processes and reset the GPU.",
         "nvrx.gpu_reset_required", H),
        ("GPU 2: Requires a node reboot to recover. Reboot the system.",
         "nvrx.gpu_reboot_required", H),
        ("GPU 7: Operating at reduced capacity. Drain existing work and reset the GPU.",
         "nvrx.gpu_drain_and_reset", H),
        ("GPU 3: NVL link 11 is in DISABLED state", "nvrx.nvlink_unhealthy", H),
        ("NVLinkWindowHealthCheck: GPU 6 unhealthy -- 2 NVLink ports flagged for replay/recovery "
         "events (gpu_ports_threshold=2, per-port threshold=3): port 4 (5/10 flagged).",
         "nvrx.nvlink_unhealthy", H),
        ("NIC device mlx5_3: Port state changed from ACTIVE to DOWN. Health check FAILED.",
         "nvrx.nic_health_check_failed", H),
        ("Node health check failed for node gpu-b11_90211_0: Node gpu-b11_90211_0 is unhealthy.",
         "nvrx.node_health_check_failed", H),
        ("Storage health check failed for node gpu-a07_1822_0: Node gpu-a07_1822_0 has unhealthy "
         "storage state.", "nvrx.storage_health_check_failed", S),
        # NVRx: detectors, restarts, decisions
        ("STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: "
         "{StragglerId(rank=2, node='gpu-b05')}", "nvrx.straggler", S),
        ("[2026-05-02 11:20:41.112093] rank=6 term_ex: RankShouldRestart('Interruption.HARD_TIMEOUT"
         " affecting ranks {3}')", "nvrx.inprocess_restart", S),
        ("[default] Another launcher reported a no-restart decision (no_progress); terminating "
         "workers.", "nvrx.no_restart_relayed", S),
        ("[default] Attribution recommended stopping the job; terminating workers and signalling "
         "the rest of the job.", "nvrx.attribution_stop", A),
        # NVIDIA/nvidia-resiliency-ext issue #348 (hot spares started with --nnodes 4)
        ("[default] ft_rendezvous_barrier.py:1458 [b300-n01] Maximum number of nodes (4) exceeded. "
         "Active participant count would be 5 (joined=5, left=0). This is likely a configuration "
         "error - please check max_nodes setting.", "nvrx.max_nodes_exceeded", A),
        # Megatron
        ("[rank2]: RuntimeError: Rank 2, node dcfai-xe9680-01, device 2, iteration -1: Unexpected "
         "result nan (message='found NaN in local grad norm for bucket #0 in backward pass before "
         "data-parallel communication collective')", "megatron.validation_failed", A),
        ("ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 "
         "invocation #2 (message='loss is NaN')", "megatron.validation_rerun", S),
        ("Rank 3, node gpu-a01, device 3, iteration #3: First rerun: unexpected result is "
         "reproducible within the tolerance (nan = nan). Need to rerun on a different GPU to "
         "verify correctness.!", "megatron.rerun_needs_other_gpu", S),
        ("Rank 5, node gpu-a04, device 5, iteration #812: Possible transient error!!",
         "megatron.rerun_not_reproducible", H),
        ("Rank 1, node gpu-b02, device 1, iteration #812: Possible persistent error!!",
         "megatron.rerun_earlier_gpu_faulty", S),
        ("Second rerun: unexpected result is reproducible on a different GPU, therefore it was "
         "likely correct (nan = nan)", "megatron.rerun_application_error", A),
        ("Exiting now. Please resume the job from the same checkpoint to rerun the last iteration "
         "and establish a diagnostic", "megatron.rerun_exit", N),
        ("found Inf in local grad norm for bucket #1 in backward pass before data-parallel "
         "communication collective", "megatron.non_finite", A),
        ("AssertionError: world size (64) is not divisible by tensor model parallel size (8) "
         "times pipeline model parallel size (3)", "megatron.world_size_indivisible", A),
        ("15: [rank15]: AssertionError: num_layers should be divisible by "
         "pipeline_model_parallel_size", "megatron.parallel_split", A),
        ("AssertionError: First dimension of the tensor should be divisible by tensor parallel "
         "size", "megatron.parallel_split", A),
        ("Unexpected keys (not found in the checkpoint) encountered in the provided sharded state "
         "dict. ", "megatron.checkpoint_mismatch", A),
        ("megatron.core.dist_checkpointing.core.CheckpointingException: ShardedTensor."
         "flattened_range is not supported.",
         "megatron.checkpoint_mismatch", A),  # areal-project/AReaL#1468 (megatron-core 0.17)
        ("megatron.core.dist_checkpointing.core.CheckpointingException: Invalid access pattern: 2 "
         "ShardedObject are missing.", "megatron.checkpoint_mismatch", A),  # validation.py
        ("[exiting program after receiving SIGTERM.] datetime: 2026-03-04 11:02:45 ",
         "megatron.exit_on_signal", S),
        ("[exiting program at iteration 5000] datetime: 2026-03-04 11:02:45 ",
         "megatron.exit_planned", N),
        # DeepSpeed
        ("Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
         "Exiting run.", "deepspeed.loss_scale_at_minimum", A),
        ("[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss scale: 4096, "
         "reducing to 2048", "deepspeed.fp16_overflow", N),
        ("[2021-02-04 15:06:19,825] [INFO] [stage2.py:1357:step] [deepscale] OVERFLOW! Rank 0 "
         "Skipping step. Attempted loss scale: 134217728.0, reducing to 67108864.0",
         "deepspeed.fp16_overflow", N),
        ("deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP "
         "world size of 8 but the current world size is 16. Automatic adjustment of ZeRO's "
         "optimizer state partitioning with a new world size is not currently supported.",
         "deepspeed.checkpoint_world_size_mismatch", A),
        ("AssertionError: Micro batch size per gpu: 0 has to be greater than 0",
         "deepspeed.batch_size_mismatch", A),
        ("AssertionError: The parameter 255 has already been reduced.                     Gradient "
         "computed twice for this partition.                     Multiple gradient reduction is "
         "currently not supported.", "deepspeed.gradient_reduced_twice", A),
        ("RuntimeError: Error building extension 'fused_adam'", "deepspeed.op_build_failed", A),
        ("SystemError: Cannot use fp16 without accelerator.", "deepspeed.no_accelerator", A),
        # TransformerEngine
        ("RuntimeError: /TransformerEngine/transformer_engine/common/util/cuda_driver.cpp:42 in "
         "function get_symbol: Assertion failed: driver_result == cudaDriverEntryPointSuccess.",
         "te.check_failed", A),
        ('[default0]:ValueError: No dot product attention support for the provided inputs!',
         "te.no_attention_backend", A),
        ("AssertionError: Device compute capability 10.0 or higher required for MXFP8 execution.",
         "te.fp8_unsupported", A),
        # Hugging Face
        ("ValueError: No valid checkpoint found in output directory (./outputs)",
         "hf.checkpoint_not_found", A),
        ("ValueError: You can't train a model that has been loaded in 8-bit precision on a "
         "different device than the one you're training on.", "hf.quantized_training_placement", A),
        # Lightning
        ("Monitored metric val_loss = inf is not finite. Previous best value was 0.512. Signaling "
         "Trainer to stop.", "lightning.metric_not_finite", A),
        ("RuntimeError: Early stopping conditioned on metric `val_acc` which is not available. "
         "Pass in or modify your `EarlyStopping` callback to use any of the following: "
         "`train_loss`", "lightning.monitor_missing", A),
        ("pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested gpu: "
         "[0, 1] But your machine only has: [0]", "lightning.misconfiguration", A),
        ("[rank: 3] Received SIGTERM: 15", "lightning.sigterm", S),
        ("Handling auto-requeue signal: 10", "lightning.auto_requeue", N),
        # torchtitan
        ("RuntimeError: Loss or gradient norm is not finite on at least one rank at step 4210. "
         "Stopping training before the optimizer update.", "titan.non_finite_step", A),
        ("FileNotFoundError: --checkpoint.load_step=3000 not found because checkpoint.folder "
         "./outputs/checkpoint does not exist", "titan.load_step_missing", A),
        # FSDP and DCP
        ("ValueError: `FlatParameter` requires uniform dtype but got torch.float16 and "
         "torch.float32", "fsdp.mixed_dtype", A),
        ("ValueError: Inconsistent compute device and `device_id` on rank 0: cuda:1 vs cuda:0",
         "fsdp.device_mismatch", A),
        ("[rank3]: RuntimeError: Missing key in checkpoint state_dict: model.2.weight.",
         "dcp.missing_key", A),
        ("ValueError: Size mismatch between saved torch.Size([257152, 2048]) and current: "
         "torch.Size([131661824]) for model.embed_tokens.weight", "dcp.size_mismatch", A),
        # NeMo
        ("nemo.utils.exp_manager.NotFoundError: There were no checkpoints found in checkpoint_dir "
         "or no checkpoint folder at checkpoint_dir :/results/checkpoints. Cannot resume.",
         "nemo.no_checkpoint_to_resume", A),
        ("ValueError: Found /results/checkpoints/megatron_gpt-end.ckpt indicating that the last "
         "training run has already completed.", "nemo.resume_ambiguous", A),
        ("Received signal 15, initiating graceful stop", "nemo.preemption", S),
        # Hydra / OmegaConf: the experiment's configuration
        ("omegaconf.errors.MissingMandatoryValue: Missing mandatory value: model full_key: model "
         "reference_type=Optional[FairseqConfig] object_type=FairseqConfig",
         "hydra.config_error", A),  # facebookresearch/fairseq#5073
        ("hydra.errors.ConfigCompositionException: Could not override 'task.data'.",
         "hydra.config_error", A),  # facebookresearch/fairseq#5048
        # SGLang: a rank that loaded waits for the others at the loader's barrier
        ("ValueError: TP rank 1 could finish the model loading, but there are other ranks that "
         "didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow "
         "node.", "sglang.unbalanced_model_loading", S),  # sgl-project/sglang#5457
        ("ValueError: TP rank 2 could finish the model loading, but there are other ranks that "
         "didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow "
         "node.", "sglang.unbalanced_model_loading", S),  # kvcache-ai/ktransformers#1666
        # round 5: restatements of a failed SGLang child and vLLM worker, vLLM's placement
        ("[2025-03-25 14:34:11 TP10] Scheduler hit an exception: Traceback (most recent call "
         "last):", "sglang.child_failed", S),  # sgl-project/sglang#4766
        ("[12-16 14:27:08] Rank 0 scheduler is dead. Please check if there are relevant logs.",
         "sglang.scheduler_died", S),  # sgl-project/sglang#15235
        ("[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs.",
         "sglang.scheduler_died", S),  # gpustack/gpustack#3848
        ("ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker proc VllmWorker-1 died "
         "unexpectedly, shutting down executor.", "vllm.worker_process_died", S),  # OpenPipe/ART#201
        ("ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the "
         "Ray placement group or running the driver on a GPU node.",
         "vllm.placement_group_unavailable", A),  # vllm-project/vllm#2406
        ("ValueError: Total number of attention heads (32) must be divisible by tensor parallel "
         "size (3).", "vllm.parallel_layout_invalid", A),  # containers/ai-lab-recipes#514
        ("[2025-09-17 16:23:13 TP2] Decode transfer failed for request rank=2 decode_req.req.rid="
         "'3ce84ffb82764f45b028dd8e6c4beed1' decode_req.req.bootstrap_room=1655955501905217457 "
         "with exception KVTransferError(bootstrap_room=1655955501905217457): Failed due to an "
         "unknown reason from another rank", "sglang.kv_transfer_failed", S),  # sglang#10560
        ("AssertionError: Error in memory profiling. Initial free memory 30.3 GiB, current free "
         "memory 30.3 GiB. This happens when other processes sharing the same container release "
         "GPU memory while vLLM is profiling during initialization.",
         "vllm.startup_memory_taken", A),  # vllm-project/vllm#33358
        ("No available shared memory broadcast block found in 60 seconds. This typically happens "
         "when some processes are hanging or doing some time-consuming work (e.g. compilation).",
         "vllm.shm_broadcast_stalled", S),  # gpustack/gpustack#3888
        # torchft: a step not committed, an error reported, the manager giving up
        ("should_commit=False enough_replicas=True, errored='NoneType' object has no attribute "
         "'wait’", "torchft.step_not_committed", S),  # pytorch/torchtitan#1170
        ("[titan] 2025-07-16 13:49:32,462 - torchft.manager - INFO - [torchtitan_ft_0:6cc4c926-56d9"
         "-4bb9-96f6-544803cae49c/0 - step 21] should_commit=False enough_replicas=True, "
         "errored=aborted", "torchft.step_not_committed", S),
        ("[train_ddp_0:4e6f882a/0 - step 12] got exception in all reduce -- skipping remaining: "
         "NCCL communicator was aborted on rank 0.", "torchft.error_reported", S),
        ("RuntimeError: lighthouse quorum failed after 3 retries.", "torchft.gave_up", S),
        ("RuntimeError: should_commit failed 4 times consecutively, exceeding max_retries=3",
         "torchft.gave_up", S),
        # TensorFlow: a cancelled or aborted step restates an earlier failure
        # (tensorflow/tensorflow issue #51676; #35697)
        ("tensorflow.python.framework.errors_impl.CancelledError:  [_Derived_]RecvAsync is "
         "cancelled.", "tf.step_cancelled", S),
        ("tensorflow.python.framework.errors_impl.CancelledError: Cancelled", "tf.step_cancelled",
         S),
        # an input pipeline that ran out inside a step (tensorflow/tensorflow issue #36153,
        # lines from #33531: MultiWorkerMirroredStrategy's partial last batch)
        ("tensorflow.python.framework.errors_impl.OutOfRangeError:  [_Derived_]End of sequence",
         "tf.input_exhausted", A),
        ("tensorflow.python.framework.errors_impl.OutOfRangeError: End of sequence",
         "tf.input_exhausted", A),
    ],
)  # fmt: skip
def test_framework_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals
    assert "python.exception" not in signals  # the specific reading replaces the generic one


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        ("GPU health check passed for node gpu-a03_48120_0", "nvrx.gpu_health_check_failed"),
        ("NIC device mlx5_0: Port state changed from DOWN to ACTIVE",
         "nvrx.nic_health_check_failed"),
        ("GPU 3: NVL link 11 is in ACTIVE state", "nvrx.nvlink_unhealthy"),
        ("Storage health check passed", "nvrx.storage_health_check_failed"),
        ("Unexpected result from the metadata server, retrying", "megatron.validation_failed"),
        ("Unexpected result from the metadata server, retrying", "megatron.validation_rerun"),
        ("world size (16) is divisible by 8", "megatron.world_size_indivisible"),
        ("AssertionError: 25 is not divisible by 4", "megatron.world_size_indivisible"),
        ("pipeline_model_parallel_size ........................ 4", "megatron.parallel_split"),
        ("Monitored metric val_loss did not improve in the last 3 records. Best score: 0.512.",
         "lightning.metric_not_finite"),
        ("`Trainer.fit` started", "lightning.fit_stopped"),
        ("Assertion failed: x > 0, file main.c, line 12", "te.check_failed"),
        ("FP8 execution enabled with DelayedScaling recipe", "te.fp8_unsupported"),
        ("Missing key(s) in state_dict: \"lm_head.weight\".", "dcp.missing_key"),
        # the bare exception (a failed save or load on some ranks) stays a symptom
        ("torch.distributed.checkpoint.api.CheckpointException: CheckpointException "
         "ranks:dict_keys([0, 1, 2, 3, 4, 5, 6, 7])", "megatron.checkpoint_mismatch"),
        ("megatron.core.dist_checkpointing.core.CheckpointingException: Checkpoint directory "
         "/ckpt/iter_0001000 does not exist", "megatron.checkpoint_mismatch"),
        ("size mismatch for gpt.h.15.ln_1.weight: copying a param with shape torch.Size([1280]) "
         "from checkpoint, the shape in current model is torch.Size([1024]).",
         "dcp.size_mismatch"),
        ("There were no checkpoints found in checkpoint_dir or no checkpoint folder at "
         "checkpoint_dir :/results/checkpoints. Training from scratch.",
         "nemo.no_checkpoint_to_resume"),
        ("Received SIGTERM, saving checkpoint and exiting", "lightning.sigterm"),
        ("[deepspeed] loss scale 65536 is stable", "deepspeed.fp16_overflow"),
        ("see omegaconf.errors.MissingMandatoryValue in the docs", "hydra.config_error"),
        ("[2026-09-15 10:09:12 TP1] Load weight end. type=DeepseekV3ForCausalLM, "
         "dtype=torch.bfloat16, avail mem=70.12 GB, mem usage=64.31 GB.",
         "sglang.unbalanced_model_loading"),
        ("[2025-03-17 17:15:55 TP1] Scheduler hit an exception: Traceback (most recent call "
         "last):", "sglang.scheduler_died"),
        # torchft's healthy commit, and an Ethereum client's own "lighthouse"
        ("[titan] 2025-07-16 13:49:33,101 - torchft.manager - INFO - [torchtitan_ft_0:6cc4c926/0 "
         "- step 22] should_commit=True enough_replicas=True, errored=None",
         "torchft.step_not_committed"),
        ("2025-07-16T13:49:41.512 [INFO] [torchft::lighthouse] - Detected quorum change, bumping "
         "quorum_id to 3", "torchft.gave_up"),
        ("Failed to connect to lighthouse: dial tcp 10.0.0.3:8000: connection refused",
         "torchft.gave_up"),
        # asyncio's own CancelledError, and TensorFlow's other errors, are not a cancelled step
        ("asyncio.exceptions.CancelledError", "tf.step_cancelled"),
        # the executors' notes at every ordinary epoch end are not a failed step
        ("W tensorflow/core/framework/local_rendezvous.cc:404] Local rendezvous is aborting with "
         "status: OUT_OF_RANGE: End of sequence", "tf.input_exhausted"),
        ("W tensorflow/core/common_runtime/base_collective_executor.cc:216] "
         "BaseCollectiveExecutor::StartAbort Out of range: End of sequence", "tf.input_exhausted"),
        ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Incompatible shapes: "
         "[32,10] vs. [16,10]", "tf.step_cancelled"),
    ],
)  # fmt: skip
def test_not_these(line: str, signal: str) -> None:
    assert signal not in {s for s, _, _ in found(line, Source.LOGS)}


def test_health_checks_and_detectors_capture_who() -> None:
    """The node a health check failed on, the ranks a detector names: details, never blame of
    another node (`host` / `straggler_node`, not `peer` or `failed_host`)."""
    scanner = Scanner(builtin_catalog())
    line = ("STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected "
            "ranks: {StragglerId(rank=13, node='gpu-a02')}")  # fmt: skip
    (sig, match), *_ = [h for h in scanner.match_line(line) if h[0].key == "nvrx.straggler"]
    assert match.group("rank") == "13" and match.group("straggler_node") == "gpu-a02"
    assert {"peer", "failed_host"}.isdisjoint(sig.compiled().groupindex)
    line = ("GPU health check failed for node gpu-a03_48120_0: Node gpu-a03_48120_0 has an "
            "unhealthy GPU.")  # fmt: skip
    hits = {s.key: m for s, m in scanner.match_line(line)}
    assert hits["nvrx.gpu_health_check_failed"].group("host") == "gpu-a03"
