"""Golden lines for Python's own exception classes (signatures-python.toml)."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import found


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        ("09:14:37 TimeoutError: RPC call to sample_tokens timed out.", "python.timeout",
         Blame.SYMPTOM),
        ("asyncio.exceptions.TimeoutError", "python.timeout", Blame.SYMPTOM),
        # myc634/UltraLiDAR_nusc_waymo issue #1 (`sudo` ran the system python)
        ("/usr/bin/python: No module named torch.distributed", "python.run_module_not_found",
         Blame.APPLICATION),
        # S95Sedan/Deepspeed-Windows issue #2 (a package without __main__)
        ("D:\\anaconda3\\envs\\cyh-Fuyu\\python.exe: No module named deepspeed.__main__; "
         "'deepspeed' is a package and cannot be directly executed",
         "python.run_module_not_found", Blame.APPLICATION),
        ("[rank3]: AssertionError", "python.bare_exception", Blame.APPLICATION),
        ("[1,4]<stderr>:AssertionError", "python.bare_exception", Blame.APPLICATION),  # mpirun
        ("UnavailableError (see above for traceback): Socket closed",  # TensorFlow 1.x's form
         "python.exception_elsewhere", Blame.SYMPTOM),
        ("Exception: The checkpoint you are trying to load has model type `llama` but "
         "Transformers does not recognize this architecture.", "hf.unknown_model_type",
         Blame.APPLICATION),  # a bare Exception with a specific entry: that entry reads it
        ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
         "python.compile_failed", Blame.APPLICATION),
        ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
         "262144, Hardware limit: 232448.", "python.compile_failed", Blame.APPLICATION),
        ("Rank 3: found NaN in local grad norm in backward pass before data-parallel "
         "communication collective. Device: 3, node: gpu-a01", "training.non_finite",
         Blame.APPLICATION),
        ("Loss is NaN, stopping training", "training.non_finite", Blame.APPLICATION),
        ("[rank3]: KeyboardInterrupt", "python.keyboard_interrupt", Blame.SYMPTOM),
        ("MemoryError: Unable to allocate 38.1 GiB for an array with shape (5120, 1000000)",
         "python.memory_error", Blame.APPLICATION),
        # MIC-DKFZ/nnUNet issue #2213 (numpy 1.20+: the subclass, named with its module)
        ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 1.61 GiB for an array with "
         "shape (753, 536, 536) and data type float64", "python.memory_error", Blame.APPLICATION),
        # open-mmlab/mmhuman3d issue #331 (numpy 1.17-1.19 named it MemoryError in its module)
        ("numpy.core._exceptions.MemoryError: Unable to allocate 7.91 GiB for an array with shape "
         "(1396913, 190, 4) and data type float64", "python.memory_error", Blame.APPLICATION),
        # rapidsai/ucx-py issue #412 (a Dask worker's log quotes the message alone)
        ("distributed.worker - ERROR - Unable to allocate 6.34 EiB for an array with shape "
         "(7306152994899395474,) and data type uint8", "python.memory_error", Blame.APPLICATION),
        # d60/twikit issue #292; tf-encrypted/tf-encrypted issue #368; OpenHands/OpenHands #1008
        ("httpx.ConnectError: All connection attempts failed", "python.exception_elsewhere",
         Blame.SYMPTOM),
        ("tensorflow.python.framework.errors_impl.UnavailableError: Socket closed",
         "python.exception_elsewhere", Blame.SYMPTOM),
        ("openai.APIConnectionError: Connection error.", "python.exception_elsewhere",
         Blame.SYMPTOM),
        ("httpx.ReadTimeout: timed out", "python.exception_elsewhere", Blame.SYMPTOM),
        # the API clients' own 5xx/429 wording is the service's (signatures-services.toml)
        ("anthropic.InternalServerError: Error code: 529", "service.llm_api_unavailable",
         Blame.TRANSIENT),
        ("concurrent.futures.process.BrokenProcessPool: A process in the process pool was "
         "terminated abruptly while the future was running or pending.",
         "python.broken_process_pool", Blame.SYMPTOM),
        # ray-project/ray issue #8546 (Ray workers each starting an OpenMP pool)
        ("(pid=116340) libgomp: Thread creation failed: Resource temporarily unavailable",
         "python.thread_limit", Blame.APPLICATION),
        # MIC-DKFZ/nnUNet issue #1343 (OpenBLAS prints the limit right after the failed create)
        ("OpenBLAS blas_thread_init: RLIMIT_NPROC 4096 current, 513046 max",
         "python.thread_limit", Blame.APPLICATION),
        # InternLM/lmdeploy issue #2451 (raised from the autotuner's module path)
        ("triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: "
         "108672, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
         "python.compile_failed", Blame.APPLICATION),
        # FlashML-org/FreeToken issue #246 (bare, under a serving framework's logger)
        ("[16:10:42] health/ERROR  OutOfResources: out of resource: shared memory, Required: "
         "98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.  (×5)",
         "python.compile_failed", Blame.APPLICATION),
        # triton-lang/triton issue #384 (triton before 2.0)
        ("triton.code_gen.OutOfResources: out of resource: shared memoryRequired: 110592Hardware "
         "limit: 101376", "python.compile_failed", Blame.APPLICATION),
        # patrickloeber/snake-ai-pytorch issue #18 (CPython's fatal_error with the function name)
        ("Fatal Python error: PyEval_RestoreThread: the function must be called with the GIL "
         "held, but the GIL is released (the current Python thread state is NULL)",
         "python.fatal_error", Blame.APPLICATION),
        # intrepidcs/python_ics issue #175
        ("Fatal Python error: PyEval_SaveThread: the function must be called with the GIL held, "
         "but the GIL is released (the current Python thread state is NULL)",
         "python.fatal_error", Blame.APPLICATION),
        # MichalBusta/FASText issue #40 (an extension built against another Python, before 3.8)
        ("Fatal Python error: PyThreadState_Get: no current thread", "python.fatal_error",
         Blame.APPLICATION),
    ],
)  # fmt: skip
def test_python_classes(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals
    assert "python.exception" not in signals  # the specific reading replaces the generic one


@pytest.mark.parametrize(
    "line",
    [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "TimeoutError: [Errno 110] Connection timed out",
        "set NCCL_TIMEOUT_ERROR_HANDLING=1",
        "Caught AssertionError in worker, retrying",
        "ValueError: the loss is non-negative",
        "Unexpected result nan on rank 3 at iteration #120 invocation #1 (message='found NaN in "
        "local grad norm in backward pass before data-parallel communication collective')",
        # faulthandler's signal reports have no "FUNC:": they stay process.crashed (symptom)
        "Fatal Python error: Segmentation fault",
        "Fatal Python error: Aborted",
    ],
)
def test_not_these(line: str) -> None:
    signals = {s for s, _, _ in found(line, Source.LOGS)}
    assert not signals & {
        "python.timeout",
        "python.memory_error",
        "python.bare_exception",
        "training.non_finite",
        "python.fatal_error",
    }


@pytest.mark.parametrize(
    "line",
    [
        "Fatal Python error: Segmentation fault",  # ziyanx02/Genesis-backflip issue #2
        "Fatal Python error: Aborted",  # vllm-project/vllm issue #5458
        "Fatal Python error: Floating point exception",  # CPython Modules/faulthandler.c
        "Fatal Python error: Illegal instruction",  # CPython Modules/faulthandler.c
    ],
)
def test_faulthandler_reports_are_crash_symptoms(line: str) -> None:
    """faulthandler restates a signal: a crash whose cause is elsewhere, never the job's code."""
    assert found(line, Source.LOGS) == [("process.crashed", Blame.SYMPTOM, 45)]


def test_a_logged_nan_is_weak_evidence_for_the_job_not_a_stop() -> None:
    """tensorboardX's warning says a NaN was logged and the run went on: the job's numerics, but
    below a stop alone, so that a job failing for another reason is not blamed on it."""
    line = "WARNING:tensorboardX.x2num:NaN or Inf found in input tensor."
    signals = {s: (b, w) for s, b, w in found(line, Source.LOGS)}
    assert signals == {"training.nan_logged": (Blame.APPLICATION, 30)}


def test_a_rerun_tracker_line_quoting_a_nan_check_is_read_by_the_tracker_entry_alone() -> None:
    """Megatron's rerun tracker quotes the check that fired (message='...'); the first rerun not
    reproducing it is the GPU's, which the quoted check must not outvote as the job's."""
    for message in ("found NaN in local grad norm for bucket #0", "loss is nan",
                    "found Inf in local grad norm for bucket #0"):  # fmt: skip
        line = (
            "ts=2025-06-12 03:41:27.512093 node=gpu-b17 device=5 jobID=418233 rank=45 "
            f"iteration=18212 status=first_rerun_not_reproducible result=nan message='{message}'"
        )
        signals = {s for s, _, _ in found(line, Source.LOGS)}
        assert signals == {"rerunsm.tracker_not_reproducible"}, (message, signals)
        # the rerun-enabled log line: the rerun's verdict decides, not the quoted check
        rerun = (
            "ERROR:megatron.core.rerun_state_machine:Unexpected result tensor(inf, device='cuda:5')"
            f" on rank 5 at iteration #123 invocation #1 (message='{message}')"
        )
        assert {s for s, _, _ in found(rerun, Source.LOGS)} == {
            "megatronrerun.unexpected_result_tensor"
        }, message
        # reruns disabled: the job stops on the check, the job's numerics
        stop = (
            "RuntimeError: Rank 4, node gpu-a01, device 4, iteration 1532: Unexpected result inf "
            f"(message='{message}')"
        )
        assert any(b is Blame.APPLICATION and w >= 60 for _, b, w in found(stop, Source.LOGS))


def test_tensorflow_1s_last_traceback_line_is_a_python_exception() -> None:
    # tensorflow/ecosystem issue #28: TensorFlow 1.x's session ends the traceback with the class
    # and "(see above for traceback)" before the colon
    line = (
        "NotFoundError (see above for traceback): /train_dir/model.ckpt-0_temp_5fcd97c881a7428d"
        "b8eded829b964618/part-00000-of-00002.index"
    )
    assert {s: b for s, b, _ in found(line, Source.LOGS)} == {"python.exception": Blame.APPLICATION}
