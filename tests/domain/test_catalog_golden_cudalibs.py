"""Golden lines for CUDA libraries, the runtime's view of the node and crash reports
(signatures-cudalibs.toml)."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import found


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
         "cuda.library_alloc_failed", Blame.APPLICATION),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
         "cuda.library_alloc_failed", Blame.APPLICATION),
        ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
         "passed in a non-contiguous input.", "cuda.library_bad_call", Blame.APPLICATION),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( "
         "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
         "cuda.library_execution_failed", Blame.SYMPTOM),
        ("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", "cuda.library_execution_failed",
         Blame.SYMPTOM),
        ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
         "NVIDIA GPU and installed a driver", "cuda.node_driver_missing", Blame.HARDWARE),
        ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
         "cuda.node_driver_missing", Blame.HARDWARE),
        ("RuntimeError: No CUDA GPUs are available", "cuda.no_gpu_visible", Blame.APPLICATION),
        # torch's XPU build, the same check (c10/xpu/XPUFunctions.cpp)
        ("RuntimeError: No XPU devices are available.", "cuda.no_gpu_visible", Blame.APPLICATION),
        # JAX's CUDA backend, the same finding (xla se_gpu_pjrt_client, stream_executor
        # platform_util.cc; jax-ml/jax's own warning names the second)
        ("RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU "
         "devices.", "cuda.no_gpu_visible", Blame.APPLICATION),
        ("RuntimeError: Unable to initialize backend 'cuda': INTERNAL: no supported devices found "
         "for platform CUDA", "cuda.no_gpu_visible", Blame.APPLICATION),
        ("RuntimeError: CUDA driver error: out of memory", "cuda.driver_oom", Blame.APPLICATION),
        ("/var/spool/slurmd/job4242/slurm_script: line 12: 81234 Segmentation fault      (core "
         "dumped) python train.py", "process.shell_crash_report", Blame.SYMPTOM),
        ("Bus error (core dumped)", "process.shell_crash_report", Blame.SYMPTOM),
        # xy-guo/MVSNet_pytorch issue #53 (bash's SIGFPE text, no space before the parenthesis)
        ("./train.sh: line 3:  1098 Floating point exception(core dumped) python train.py "
         "--dataset=dtu_yao --batch_size=1", "process.shell_crash_report", Blame.SYMPTOM),
        # Yugnaynehc/ssta-captioning issue #9
        ("Floating point exception (core dumped)", "process.shell_crash_report", Blame.SYMPTOM),
        # PaddlePaddle/Paddle issue #8307 (no core dumped: a cluster's ulimit -c 0)
        ("run.sh: line 5:  2581 Segmentation fault      ./python-gcc482-paddle/bin/python "
         "resnet50.py", "process.shell_crash_report", Blame.SYMPTOM),
        # bash jobs.c, an interactive shell's foreground job, alone and after mpirun's prefix
        ("Segmentation fault", "process.shell_crash_report", Blame.SYMPTOM),
        ("[1,0]<stderr>:Bus error", "process.shell_crash_report", Blame.SYMPTOM),
        # strsignal()'s SIGTRAP text (an abort through __builtin_trap)
        ("./run.sh: line 3:   812 Trace/breakpoint trap   (core dumped) ./a.out",
         "process.shell_crash_report", Blame.SYMPTOM),
        # pytorch/pytorch issue #2714 (a wheel built for newer CPUs)
        ("Illegal instruction (core dumped)", "process.shell_crash_report", Blame.SYMPTOM),
        ("OSError: [Errno 113] No route to host", "net.oserror_unreachable", Blame.SYMPTOM),
        ("OSError: [Errno 101] Network is unreachable", "net.oserror_unreachable", Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_library_and_runtime_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals


@pytest.mark.parametrize(
    "line",
    [
        "Segmentation fault handler installed",
        "cuDNN version 8902 loaded",
        "Aborted by user request",
        # a word at the end of someone else's sentence is not the shell's report
        "Run Aborted",
        "INFO checkpoint writer: Segmentation fault",
        "[2024-01-01 10:00:00] worker stopped: Bus error",
    ],
)
def test_neighbours_do_not_match(line: str) -> None:
    assert found(line, Source.LOGS) == []
