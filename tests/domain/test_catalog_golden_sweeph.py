"""Golden lines from the sweep of the framework and launcher trackers (issue 14): DeepSpeed,
TransformerEngine, Hydra (NeMo, verl), safetensors (transformers), vLLM's sleep-mode allocator
and Ray (verl, OpenRLHF), the
DeepSpeed launcher's ssh pre-check and pdsh runner, and SIGTERM handlers that bypass the
scheduler's signal (Lightning, submitit). Each real line (thread beside it) must read as its
signal and blame with no generic reading left; the look-alikes the same code paths print when
nothing failed must not match. Restatements of another process's failure must never read as
the application's."""

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
]  # fmt: skip


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_look_alike_does_not_match(key: str, line: str) -> None:
    assert key not in hits(line), f"{key} must not match {line!r}"
