"""Golden lines from the round-2 sweep of the training trackers (issue 14): Ray as verl, OpenRLHF
and Ray Train run it (a worker's exit detail alone, the raylet's disk monitor, OutOfDiskError,
xgboost_ray giving up on dead actors), torch.compile's Inductor errors, and the C/C++ runtimes'
abort texts that end multi-GPU runs (glibc's assert, libstdc++'s terminate handler). Each real
line (thread beside it) must read as its signal and blame with no generic reading left; the
look-alikes must not match, and a restatement of another process's death must never read as
the application's."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, assert_matches, found, hits

A, S = Blame.APPLICATION, Blame.SYMPTOM

SWEEP_KEYS: dict[str, Blame] = {
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


def test_warnings_and_runtime_aborts_stay_weak() -> None:
    """A disk-space warning and an abort with no reason named must lose to any real cause."""
    for key in ("ray.local_disk_nearly_full", "libstdcxx.terminate", "glibc.assert_failed"):
        assert CATALOG.signatures[key].weight < 50, key


REAL: list[tuple[str, str, dict[str, str]]] = [
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
