"""CUDA and NCCL error texts read the same whatever program carries them (issue 14, item 1).

`scripts/catalog_emitters/cuda.toml` and `nccl.toml` list the carriers, and `tests/test_bench_scripts.py` checks
every `cudaError_t` text through each of them. Here are real lines, cited beside each, in the
wordings users paste: an old PyTorch's THC check, the CUDA samples' deviceQuery, an NGC
container's start-up banner (which upper-cases the first letter), cuda-samples' `code=N(name)`,
TensorFlow's first-use status. Before these carriers were read, the THC lines fell to the
generic Python entry (the application) and the banner lines to nothing.
"""

from __future__ import annotations

import pytest

from domain.golden import hits

GOLDEN = [
    # pytorch/pytorch issue #8039 (PyTorch 0.4: the driver not initialised for this user)
    ("RuntimeError: cuda runtime error (30) : unknown error at /pytorch/aten/src/THC/THCGeneral.cpp:70",
     "cuda.unknown_error"),
    ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=70 error=30 : unknown error",
     "cuda.unknown_error"),
    # jiesutd/NCRFpp issue #121
    ("THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 error=2 : out of memory",
     "cuda.oom"),
    # rowanz/neural-motifs issue #58
    ("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCTensorRandom.cu:25",
     "cuda.oom"),
    # NVIDIA/cuda-samples issue #13 (deviceQuery: "cudaGetDeviceCount returned 999")
    ("-> unknown error", "cuda.unknown_error"),
    # NVIDIA/TensorRT-LLM issue #398 (p4d without the fabric manager running)
    ("   [[ System not yet initialized (error 802) ]]", "cuda.device_unavailable"),
    # ai-dynamo/nixl issue #441
    ("   [[ System has unsupported display driver / cuda driver combination (error 803) ]]",
     "cuda.environment"),
    # lix19937/tensorrt-insight issue #36 (title)
    ("CUDA error code=999(cudaErrorUnknown)", "cuda.unknown_error"),
    # TensorFlow gpu_device.cc "CUDA runtime implicit initialization on GPU:%d failed. Status: %s",
    # rendered (the line is widely quoted in TF troubleshooting pages)
    ("tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization "
     "on GPU:0 failed. Status: out of memory", "cuda.oom"),
    # CuPy's CUDARuntimeError as cupy_backends/cuda/api/runtime.pyx formats it
    ("cupy.cuda.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory", "cuda.oom"),
    # NCCL's result texts in other programs' words, rendered from the formats in
    # scripts/catalog_emitters/nccl.toml: TensorFlow's nccl_manager, PaddlePaddle's enforce,
    # Transformer Engine's userbuffers NCCLCHECK (Megatron's tp-comm-overlap start-up)
    ("tensorflow.python.framework.errors_impl.InternalError: NCCL: invalid usage",
     "nccl.invalid_usage"),
    ("ExternalError: Nccl error(3), internal error", "nccl.internal_error"),
    ("Failed, NCCL error transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers.cu:412 "
     "'invalid usage (run with NCCL_DEBUG=WARN for details)'", "nccl.invalid_usage"),
    ("cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_INVALID_ARGUMENT: invalid argument (run "
     "with NCCL_DEBUG=WARN for details)", "nccl.invalid_usage"),
    # PyTorch's hint names the error it just printed: a paste that kept only the hint (the line
    # above cut off) still says which error it was
    ("Search for `cudaErrorUnknown' in https://docs.nvidia.com/cuda/ for more", "cuda.unknown_error"),
]  # fmt: skip

NEGATIVE = [
    ("cuda.unknown_error", "+ [[ -n unknown ]]"),
    ("cuda.oom", "-> retrying after out of memory on the host"),
    ("cuda.oom", "Status: out of memory budget recorded"),
    ("cuda.device_unavailable", "   [[ Possible MIG misconfiguration detected ]]"),
    ("nccl.internal_error", "NCCL: using internal error handler"),
    ("nccl.invalid_usage", "warning: NCCL: invalid usages are reported at WARN level"),
]


@pytest.mark.parametrize(("line", "key"), GOLDEN)
def test_a_carried_cuda_error_reads_as_its_own_entry(line: str, key: str) -> None:
    assert key in hits(line), hits(line)


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_a_look_alike_outside_a_carrier_stays_unread(key: str, line: str) -> None:
    assert key not in hits(line)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        # NVIDIA/TensorRT-LLM issue #11313
        ("Search for `cudaErrorIllegalInstruction' in https://docs.nvidia.com/cuda/cuda-runtime-"
         "api/group__CUDART__TYPES.html for more information.", "cuda.kernel_exception"),
        ("Search for `cudaErrorLaunchFailure' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
         "group__CUDART__TYPES.html for more information.", "cuda.launch_failed_code"),
        ("Search for `cudaErrorStreamCaptureUnsupported' in https://docs.nvidia.com/cuda/cuda-"
         "runtime-api/group__CUDART__TYPES.html for more information.", "cuda.invalid_usage"),
        ("Search for `hipErrorInvalidKernelFile' in https://rocm.docs.amd.com", "hip.environment"),
    ],
)  # fmt: skip
def test_pytorchs_search_hint_reads_as_the_error_it_names(line: str, key: str) -> None:
    """PyTorch (c10 CUDA check, 2.5 on) follows a CUDA or HIP error with "Search for `<name>'
    in <docs>": the error's own name. A paste often keeps the hint and loses the line above
    it, so the hint alone says which error it was; with the line above, the same entry reads
    both and the verdict is the same."""
    assert key in hits(line), hits(line)
