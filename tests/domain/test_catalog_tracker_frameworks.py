"""Golden lines from the tracker sweeps of issue 14 (two rounds) over the training frameworks and
their launchers: DeepSpeed, Megatron-LM, NeMo, TransformerEngine, Hydra, safetensors, vLLM's
sleep-mode allocator, Ray and xgboost_ray, Inductor, filelock, glibc's assert and libstdc++'s
terminate, the DeepSpeed launcher's ssh pre-check, pdsh, and SIGTERM handlers that bypass the
scheduler's signal. Each real line (thread beside it) must read as its signal and blame with no
generic reading left; the look-alikes the same code paths print when nothing failed must not
match. Restatements of another process's failure must never read as the application's."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, assert_matches, found, hits

A, S = Blame.APPLICATION, Blame.SYMPTOM

SWEEP_KEYS: dict[str, Blame] = {
    "deepspeed.zero3_inflight_params": A,
    "deepspeed.cuda_home_missing": A,
    "te.cudnn_frontend_error": A,
    "hydra.job_failed": S,
    "hf.safetensors_shared_tensors": A,
    "ray.system_error": S,
    "deepspeed.ssh_check_failed": A,
    "pdsh.ssh_exited": S,
    "launcher.sigterm_bypassed": S,
    "vllm.cumem_oom": A,
    "ray.worker_died": S,
    "ray.actor_died": S,
    "ray.raylet_died": S,
    "ray.local_disk_nearly_full": A,
    "ray.out_of_disk": A,
    "ray.train_actor_retries_exhausted": S,
    "python.compile_failed": A,
    "python.file_lock_timeout": A,
    "glibc.assert_failed": A,
    "libstdcxx.terminate": A,
}


@pytest.mark.parametrize(("key", "blame"), sorted(SWEEP_KEYS.items()))
def test_blame_and_no_node_action(key: str, blame: Blame) -> None:
    """None of these texts says a device failed: none may act on the node it was printed on."""
    sig = CATALOG.signatures[key]
    assert sig.blame is blame
    assert sig.node_action.value == "none"
    if blame is S:
        assert sig.weight < 30, "a restatement must stay weaker than any cause"


REAL: list[tuple[str, str, dict[str, str]]] = [
    (  # deepspeedai/DeepSpeed issue #5828 / OpenRLHF/OpenRLHF issue #312
        "deepspeed.zero3_inflight_params",
        "RuntimeError: still have inflight params [{'id': 723, 'status': 'AVAILABLE', 'numel': "
        "4194304, 'ds_numel': 4194304, 'shape': (512, 8192), 'ds_shape': (512, 8192)",
        {},
    ),
    (  # deepspeedai/DeepSpeed issue #3156 (the raise line printed by the traceback)
        "deepspeed.zero3_inflight_params",
        '    raise RuntimeError(f"still have inflight params "RuntimeError:',
        {},
    ),
    (  # deepspeedai/DeepSpeed issue #2772
        "deepspeed.cuda_home_missing",
        "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable "
        "to compile CUDA op(s)",
        {},
    ),
    (  # deepspeedai/DeepSpeed issue #2337 (the assert of DeepSpeed before 0.8)
        "deepspeed.cuda_home_missing",
        'assert cuda_home is not None, "CUDA_HOME does not exist, unable to compile CUDA op(s)"',
        {},
    ),
    (  # NVIDIA/TransformerEngine issue #651
        "te.cudnn_frontend_error",
        "RuntimeError: /fsx/sbuasai/test_te/deps/TransformerEngine/transformer_engine/common/"
        "fused_attn/fused_attn_f16_arbitrary_seqlen.cu:227 in function operator(): cuDNN Error: "
        "[cudnn_frontend] Error: No execution plans built successfully.. For more information, "
        "enable cuDNN error logging by setting CUDNN_LOGERR_DBG=1 and CUDNN_LOGDEST_DBG=stderr in "
        "the environment.",
        {"error": "No execution plans built successfully"},
    ),
    (  # NVIDIA/Megatron-LM issue #1882 / NVIDIA/TransformerEngine issue #1591
        "te.cudnn_frontend_error",
        "[rank13]: RuntimeError: /opt/TransformerEngine/transformer_engine/common/fused_attn/"
        "fused_attn_f16_arbitrary_seqlen.cu:373 in function operator(): cuDNN Error: "
        "[cudnn_frontend] Error: No execution plans support the graph.. For more information, "
        "enable cuDNN error logging by setting CUDNN_LOGERR_DBG=1 and CUDNN_LOGDEST_DBG=stderr in "
        "the environment.",
        {"error": "No execution plans support the graph"},
    ),
    (  # NVIDIA-NeMo/Speech issue #4338
        "hydra.job_failed",
        "Error executing job with overrides: []",
        {},
    ),
    (  # verl-project/verl issue #10
        "hydra.job_failed",
        "Error executing job with overrides: ['data.train_files=/hyzhou/gsm8k/train.parquet', "
        "'data.val_files=/hyzhou/gsm8k/test.parquet']",
        {},
    ),
    (  # hydra-ecosystem/hydra issue #2289
        "hydra.job_failed",
        "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
        {},
    ),
    (  # hiyouga/LlamaFactory issue #3400
        "hf.safetensors_shared_tensors",
        "RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk and "
        "potential differences when loading them again: [{'pretrained_model.base_model.model."
        "lm_head.weight', 'pretrained_model.base_model.model.transformer.output_layer.weight'}].",
        {},
    ),
    (  # kohya-ss/sd-scripts issue #629 (the message on its own line after "RuntimeError:")
        "hf.safetensors_shared_tensors",
        "            Some tensors share memory, this will lead to duplicate memory on disk and "
        "potential differences when loading them again: [{`",
        {},
    ),
    (  # verl-project/verl issue #302 and hiyouga/EasyR1's FAQ (the Python raise of the same text)
        "vllm.cumem_oom",
        "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
        {},
    ),
    (  # vllm-project/vllm pull request #12981 (CUDA_CHECK's own stderr line, an RLHF user's)
        "vllm.cumem_oom",
        "CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:56",
        {},
    ),
    (  # verl-project/verl issue #1299
        "ray.system_error",
        "ray.exceptions.RaySystemError: System error: Failed to unpickle serialized exception",
        {"text": "Failed to unpickle serialized exception"},
    ),
    (  # hpcac/2023-APAC-HPC-AI issue #1 (DeepSpeed launcher, multi-node)
        "deepspeed.ssh_check_failed",
        "RuntimeError: Using hostfile at /home/552/dz9214/hostfile but host=gadi-gpu-v100-0011 was "
        "not reachable via ssh. If you are running with a single node please remove "
        "/home/552/dz9214/hostfile or setup passwordless ssh.",
        {"host": "gadi-gpu-v100-0011"},
    ),
    (  # deepspeedai/DeepSpeed issue #5709
        "pdsh.ssh_exited",
        "pdsh@jiaming-Precision-7960-Tower: localhost: ssh exited with exit code 255",
        {"host": "localhost", "code": "255"},
    ),
    (  # chaos/pdsh issue #109
        "pdsh.ssh_exited",
        "pdsh@rocks7: compute-0-0: ssh exited with exit code 127",
        {"host": "compute-0-0", "code": "127"},
    ),
    (  # facebookincubator/submitit issue #1708
        "launcher.sigterm_bypassed",
        "submitit WARNING (2022-08-12 02:06:12,301) - Bypassing signal SIGTERM",
        {},
    ),
    (  # Lightning-AI/pytorch-lightning issue #5969 (Lightning before 1.0, log.info)
        "launcher.sigterm_bypassed",
        "bypassing sigterm",
        {},
    ),
    (  # ray-project/ray issue #42864 (dashboard events: the exit detail on its own)
        "ray.worker_died",
        "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly. Worker "
        "exits with an exit code 1. The worker may have exceeded K8s pod memory limits. The "
        "process receives a SIGTERM",
        {},
    ),
    (  # OpenRLHF/OpenRLHF issue #339 (a 3-node PPO run; Ray's ActorUnavailableError text)
        "ray.actor_died",
        "Status message: Unexpected error occurred: The actor 2c5251641e72297b4e3f4d7f01000000 is "
        "unavailable",
        {},
    ),
    (  # RL trainers' notes quoting Ray 2.x after host memory ran out during vLLM start-up
        "ray.actor_died",
        "ray.exceptions.ActorUnavailableError: The actor is temporarily unavailable: RpcError: RPC "
        "Error message: Socket closed",
        {},
    ),
    (  # a Ray driver log quoted in a public RL training script's notes (core_worker_process.cc)
        "ray.raylet_died",
        "[2026-03-03 21:12:46,736 E 46008 46008] core_worker_process.cc:232: Failed to register "
        "worker to Raylet: IOError: Failed to read data from the socket: End of file "
        "worker_id=01000000ffffffffffffffffffffffffffffffffffffffffffffffff",
        {},
    ),
    (  # InternLM/lmdeploy issue #3457 (Ray 2.2+: GB and capacity)
        "ray.local_disk_nearly_full",
        "(raylet) [2025-04-21 10:05:37,313 E 959680 959717] file_system_monitor.cc:116: "
        "/tmp/ray/session_2025-03-25_17-33-57_554404_959134 is over 95% full, available space: "
        "42.6695 GB; capacity: 876.137 GB. Object creation will fail if spilling is required.",
        {},
    ),
    (  # ray-project/ray pull request #26143 (the threshold printed as a fraction, no capacity)
        "ray.local_disk_nearly_full",
        "(raylet, ip=172.31.58.175) [2022-06-28 03:48:42,324 E 702775 702805] (raylet) "
        "file_system_monitor.cc:105: /mnt/data0/ray is over 0.95% full, available space: "
        "50637901824. Object creation will fail if spilling is required.",
        {},
    ),
    (  # ray-project/ray issue #36959 (bytes with capacity)
        "ray.local_disk_nearly_full",
        "(raylet) file_system_monitor.cc:111: /tmp/ray/session_2023-06-29_11-21-28_818264_5598 "
        "is over 95% full, available space: 1392345088; capacity: 269427478528. Object creation "
        "will fail if spilling is required.",
        {},
    ),
    (  # a Modin-on-Azure write-up quoting Ray's exception
        "ray.out_of_disk",
        "ray.exceptions.OutOfDiskError: Local disk is full",
        {},
    ),
    (  # ray-project/xgboost_ray xgboost_ray/main.py (max_actor_restarts spent)
        "ray.train_actor_retries_exhausted",
        "RuntimeError: A Ray actor died during training and the maximum number of retries (0) is "
        "exhausted. Checkpoints have been stored at `/tmp` with prefix `xgb` - you can pass these "
        "parameters as `checkpoint_path` and `checkpoint_prefix` to `train()` to resume training.",
        {},
    ),
    (  # vllm-project/vllm issue #41106 (title)
        "python.compile_failed",
        "torch._inductor.exc.InductorError: AssertionError:",
        {"kind": "InductorError"},
    ),
    (  # a Triton JIT with no C compiler in the image (InductorError wraps it since PyTorch 2.7)
        "python.compile_failed",
        "torch._inductor.exc.InductorError: RuntimeError: Failed to find C compiler. Please "
        "specify via CC environment variable or set triton.knobs.build.impl.",
        {"kind": "InductorError"},
    ),
    (  # NVIDIA-NeMo/Megatron-Bridge pull request #6162 (8 nodes x 4 GPUs, every rank)
        "python.file_lock_timeout",
        "filelock._error.Timeout: The file lock '/root/.cache/huggingface/.megatron_config_lock_"
        "fe96e83596e6dfb94d32c391d3b8772e.lock' could not be acquired.",
        {
            "path": "/root/.cache/huggingface/.megatron_config_lock_fe96e83596e6dfb94d32c391d3b8772e"
            ".lock"
        },
    ),
    (  # huggingface/datasets issue #368 (filelock before 3.9)
        "python.file_lock_timeout",
        "    filelock.Timeout: The file lock '/home/XXX/.cache/huggingface/metrics/glue/1.0.0/"
        "1-glue-0.arrow.lock' could not be acquired.",
        {},
    ),
    (  # NVIDIA-NeMo/Megatron-Bridge issue #3599 (DeepEP HybridEP on 8 B200 nodes)
        "glibc.assert_failed",
        "python3: /opt/DeepEP/csrc/hybrid_ep/extension/permute.cu:412: void permute_launcher("
        "PermuteArgs) [with DType = short unsigned int; ProbType = float; ScalarType = float]: "
        "Assertion `args.output_tokens_ptr != nullptr' failed.",
        {"expr": "args.output_tokens_ptr != nullptr"},
    ),
    (  # NVIDIA/Megatron-LM issue #1874; microsoft/TRELLIS.2 issue #88
        "libstdcxx.terminate",
        "terminate called without an active exception",
        {"kind": "terminate called without an active exception"},
    ),
    (  # NVIDIA/Megatron-LM issue #1874 (the line before it)
        "libstdcxx.terminate",
        "pure virtual method called",
        {"kind": "pure virtual method called"},
    ),
]


@pytest.mark.parametrize(("key", "line", "captures"), REAL)
def test_real_line_reads_as_its_signal(key: str, line: str, captures: dict[str, str]) -> None:
    assert_matches(key, line, captures)
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(key) is SWEEP_KEYS[key], signals
    assert "python.exception" not in signals  # the specific reading replaces the generic one


@pytest.mark.parametrize(
    "line",
    [line for key, line, _ in REAL if SWEEP_KEYS[key] is S],
)
def test_a_restatement_never_reads_as_the_application(line: str) -> None:
    blames = {CATALOG.signatures[k].blame for k in hits(line)}
    assert Blame.APPLICATION not in blames, blames


NEGATIVE: list[tuple[str, str]] = [
    ("deepspeed.zero3_inflight_params", "Invalidate trace cache @ step 14: expected module 19, "
     "but got module 34"),  # DeepSpeed's warning before it, not the failure
    ("deepspeed.cuda_home_missing", "cpu_adam cuda is missing or is incompatible with installed "
     "torch, only cpu ops can be compiled!"),
    ("deepspeed.cuda_home_missing", "CUDA_HOME is set to /usr/local/cuda-12.1"),
    ("te.cudnn_frontend_error", "RuntimeError: /opt/TransformerEngine/transformer_engine/common/"
     "gemm/cublaslt_gemm.cu:259 in function cublas_gemm: Assertion failed: status != "
     "CUBLAS_STATUS_NOT_SUPPORTED. Unable to find suitable cuBLAS GEMM algorithm"),
    ("te.cudnn_frontend_error", "[cudnn_frontend] INFO: Execution plan built successfully"),
    ("hydra.job_failed", "[2024-11-18 21:25:24,018][HYDRA] \t#0 : model.litmodule.loss=SIGLIP "
     "launcher=icb"),
    ("hydra.job_failed", "HYDRA_FULL_ERROR is not set"),
    ("hf.safetensors_shared_tensors", "Removed shared tensor {'lm_head.weight'} while saving. "
     "This should be OK, but check by verifying that you don't receive any warning while "
     "reloading"),
    ("ray.system_error", "ray.exceptions.RayTaskError(RuntimeError): ray::ActorModelRayActor.fit() "
     "(pid=128582, ip=10.52.117.19)"),
    ("vllm.cumem_oom", "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:57"),
    ("vllm.cumem_oom", "INFO 03-10 08:07:20 [gpu_worker.py:104] Sleep mode freed 61.2 GiB memory, "
     "cumem_allocator in use"),
    ("deepspeed.ssh_check_failed", "[INFO] [runner.py:283:main] Using IP address of "
     "192.168.2.57 for node 192.168.2.57"),
    ("pdsh.ssh_exited", "node002: ssh: connect to host node002 port 22: No route to host"),
    ("pdsh.ssh_exited", "ssh exited with exit code: 255"),  # no pdsh prefix, no host
    ("launcher.sigterm_bypassed", "[rank: 1] Received SIGTERM: 15"),
    ("launcher.sigterm_bypassed", "Signal handler called with signal 15"),
    # the memory monitor's own kill is ray.oom_killed, not a worker exiting on its own
    ("ray.worker_died", "Worker exit type: NODE_OUT_OF_MEMORY Worker exit detail: Task was killed "
     "due to the node running low on memory."),
    ("ray.worker_died", "Worker exit type: INTENDED_USER_EXIT Worker exit detail: Worker exits "
     "by an user request. exit_actor() is called."),
    ("ray.actor_died", "Service Unavailable: The actor service is unavailable"),
    ("ray.raylet_died", "Registered worker 01000000ffff with the raylet"),
    ("ray.local_disk_nearly_full", "Plasma memory usage 50 MiB, 1 objects, 50.0% full"),
    ("ray.local_disk_nearly_full", "/dev/nvme0n1p1  900G  860G   40G  96% /"),
    ("ray.out_of_disk", "ray.exceptions.ObjectStoreFullError: Failed to put object "
     "ffffffffffffffffffffffffffffffffffffffff0100000001000000 in object store because it is "
     "full."),
    ("ray.train_actor_retries_exhausted", "A Ray actor died during training. Trying to restart and "
     "continue training from last checkpoint."),  # the retry, not the give-up
    ("python.compile_failed", "torch._dynamo.exc.TorchRuntimeError: Failed running call_function "
     "<built-in function add>"),  # the job's own op failing under tracing, not a build failure
    ("python.compile_failed", "I0305 torch/_inductor/codecache.py:1234] [0/0] compiling kernel"),
    # a CUDA device-side assert closes with a backtick: cuda.device_side_assert reads it
    ("glibc.assert_failed", "python: /opt/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: "
     "nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion "
     "`t >= 0 && t < n_classes` failed."),
    ("glibc.assert_failed", "AssertionError: Check batch related parameters."),
    # huggingface_hub's periodic wait message is a stall in progress, not the give-up
    ("python.file_lock_timeout", "still waiting to acquire lock on /home/austin/.cache/"
     "huggingface/hub/.locks/models--NousResearch--Meta-Llama-3.1-8B-Instruct/fc1c.lock"),
    ("python.file_lock_timeout", "ValueError: Couldn't acquire lock on /.hf_cache/metrics/accuracy/"
     "default/exp-16-rdv.lock from process 4."),
    # the handler naming what was thrown is read by the entry for that exception
    ("libstdcxx.terminate", "terminate called after throwing an instance of "
     "'c10::DistBackendError'"),
    ("libstdcxx.terminate", '    // Fixes the "terminate called without an active exception" '
     "crash"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_look_alike_does_not_match(key: str, line: str) -> None:
    assert key not in hits(line), f"{key} must not match {line!r}"


def test_warnings_and_runtime_aborts_stay_weak() -> None:
    """A disk-space warning and an abort with no reason named must lose to any real cause."""
    for key in ("ray.local_disk_nearly_full", "libstdcxx.terminate", "glibc.assert_failed"):
        assert CATALOG.signatures[key].weight < 50, key
