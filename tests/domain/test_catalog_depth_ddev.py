"""Depth review of the device-runtime families (s22-ddev): the status codes that older entries read
by a shared prefix, or not at all, and whose meaning the emitter's own header or source makes
clear. cuDNN 9's sub-codes and cuFFT's argument statuses (signatures-cudalibs.toml), hipBLAS's
statuses and rocBLAS's missing Tensile library (signatures-rocm.toml). Each line is quoted from
the public issue named beside it, or rendered from the format string where the comment says so."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    Golden,
    assert_no_node_action,
    found,
    golden_line_checks,
    hits,
)

GOLDEN: Golden = [
    # rendered from PyTorch's "cuDNN error: %s" with cuDNN 9's enum names (cudnn_graph.h 4003/4004)
    ("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
     "cuda.cudnn_alloc_failed", {"what": "DEVICE"}),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
     "cuda.cudnn_alloc_failed", {"what": "HOST"}),
    # mav-rik/facerestore_cf issue #27 (cured by reinstalling nvidia-cudnn-cu12)
    ("cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "cuda.cudnn_library_mismatch",
     {"status": "SUBLIBRARY_VERSION_MISMATCH"}),
    # rendered (cudnn_graph.h 1008, cuDNN 9.2+; 1003)
    ("RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
     "cuda.cudnn_library_mismatch", {"status": "SUBLIBRARY_LOADING_FAILED"}),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
     "cuda.cudnn_library_mismatch", {"status": "SERIALIZATION_VERSION_MISMATCH"}),
    # INVOKERer/DeepRFT issue #44
    ("RuntimeError: cuFFT error: CUFFT_INVALID_SIZE", "cuda.cufft_bad_call",
     {"status": "INVALID_SIZE"}),
    # cupy/cupy issue #9229 (an input not 16-byte aligned)
    ("cupy.cuda.cufft.CuFFTError: CUFFT_INVALID_VALUE", "cuda.cufft_bad_call",
     {"status": "INVALID_VALUE"}),
    # pytorch/pytorch issue #55032
    ("  what():  cuFFT error: CUFFT_INVALID_PLAN (CUFFT_CHECK at /pytorch/aten/src/ATen/native/"
     "cuda/CuFFTUtils.h:70)", "cuda.cufft_bad_call", {"status": "INVALID_PLAN"}),
    # warpem/warp issue #444
    ("  what():  cuFFT error: CUFFT_INVALID_SIZE at /tmp/eb-build/warp/2.0.0dev35/foss-2022a-CUDA-"
     "11.8.0/warp-2.0.0dev35/NativeAcceleration/gtom/src/FFT/FFT.cu:23", "cuda.cufft_bad_call",
     {"status": "INVALID_SIZE"}),
    # Comfy-Org/ComfyUI issue #3698 (hipBLASLt on a GPU it did not support); ROCm/rocm-libraries
    # issue #3550 (the same on an MI300 for a shape hipBLASLt does not cover)
    ("RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling "
     "`HIPBLAS_STATUS_NOT_SUPPORTED`", "hip.blas_bad_call", {"status": "NOT_SUPPORTED"}),
    # rendered from PyTorch's TORCH_CUDABLAS_CHECK format with the hipBLAS names
    ("RuntimeError: CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasGemmEx(handle)`",
     "hip.blas_bad_call", {"status": "INVALID_VALUE"}),
    ("RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`",
     "hip.blas_alloc_failed", {}),
    ("RuntimeError: CUDA error: HIPBLAS_STATUS_INTERNAL_ERROR when calling `hipblasGemmEx( handle, "
     "opa, opb, m, n, k, &falpha, a, HIPBLAS_R_16F, lda, b, HIPBLAS_R_16F, ldb, &fbeta, c, "
     "HIPBLAS_R_16F, ldc, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT)`", "hip.blas_execution_failed",
     {"status": "INTERNAL_ERROR"}),
    # brknsoul/ROCmLibs issue #4 (a HIP SDK without gfx1103)
    (r"rocBLAS error: Cannot read C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/"
     "TensileLibrary.dat: No such file or directory for GPU arch : gfx1103",
     "hip.blas_no_kernels_for_arch", {"arch": "gfx1103"}),
    # ROCm/rocBLAS issue #1339 (a stale errno after the failed lookup)
    ("rocBLAS error: Cannot read /opt/rocm-5.4.0/lib/rocblas/library/TensileLibrary.dat: Illegal "
     "seek", "hip.blas_no_kernels_for_arch",
     {"path": "/opt/rocm-5.4.0/lib/rocblas/library/TensileLibrary.dat"}),
    # ROCm/rocBLAS issue #1299 (PyTorch 2.0's bundled rocBLAS; the reporter's line, cut there)
    ("rocBLAS error: Cannot read /home/chen/.local/lib/python3.8/site-packages/torch/lib/rocblas/"
     "library/TensileLibrary.dat", "hip.blas_no_kernels_for_arch", {}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # the older cuDNN names and the statuses left with their prefix entries
    ("cuda.cudnn_alloc_failed", "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED"),
    ("cuda.cudnn_alloc_failed", "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"),
    ("cuda.cudnn_alloc_failed",
     "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED"),
    ("cuda.cudnn_library_mismatch", "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH"),
    ("cuda.cudnn_library_mismatch",
     "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE"),
    # TensorFlow's own version check, not a cuDNN status (colabtools issue #2329)
    ("cuda.cudnn_library_mismatch",
     "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library "
     "needs to have matching major version and equal or higher minor version."),
    # cuFFT's failures of its own, and the ones whose cause is not the call alone
    ("cuda.cufft_bad_call", "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR"),
    ("cuda.cufft_bad_call", "RuntimeError: cuFFT error: CUFFT_EXEC_FAILED"),
    ("cuda.cufft_bad_call", "RuntimeError: cuFFT error: CUFFT_SETUP_FAILED"),
    ("cuda.cufft_bad_call", "RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED"),
    # HIPFFT names, and a longer enum name that only starts like one of ours
    ("cuda.cufft_bad_call", "RuntimeError: hipFFT error: HIPFFT_INVALID_SIZE"),
    ("cuda.cufft_bad_call", "CUFFT_INVALID_SIZE_HINT"),
    # hipBLAS statuses left out, and the CUDA names (cuda.library_* read those)
    ("hip.blas_bad_call", "RuntimeError: CUDA error: HIPBLAS_STATUS_UNKNOWN when calling `x`"),
    ("hip.blas_bad_call",
     "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx(x)`"),
    ("hip.blas_execution_failed",
     "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(x)`"),
    ("hip.blas_execution_failed",
     "RuntimeError: CUDA error: HIPBLAS_STATUS_MAPPING_ERROR when calling `x`"),
    ("hip.blas_alloc_failed", "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `x`"),
    # rocBLAS's other Tensile lines: no devices (either way) and a missing solution
    ("hip.blas_no_kernels_for_arch",
     "rocBLAS error: Could not initialize Tensile host: No devices found"),
    ("hip.blas_no_kernels_for_arch", "rocBLAS error: No Tensile solution found for foo"),
    ("hip.blas_no_kernels_for_arch", "rocBLAS error: Cannot read /etc/rocblas.conf: Permission denied"),
]  # fmt: skip

BLAME: dict[str, Blame] = {
    "cuda.cudnn_alloc_failed": Blame.APPLICATION,
    "cuda.cudnn_library_mismatch": Blame.APPLICATION,
    "cuda.cufft_bad_call": Blame.APPLICATION,
    "hip.blas_bad_call": Blame.APPLICATION,
    "hip.blas_alloc_failed": Blame.APPLICATION,
    "hip.blas_execution_failed": Blame.SYMPTOM,
    "hip.blas_no_kernels_for_arch": Blame.APPLICATION,
}

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_entry_of_this_review_acts_on_the_node() -> None:
    # every code split here is the job's (its call, memory or image) or either way: none names
    # a node or asks for its repair
    assert_no_node_action(BLAME)
    assert all(CATALOG.signatures[key].blame is not Blame.HARDWARE for key in BLAME)


@pytest.mark.parametrize("key", sorted(k for k, b in BLAME.items() if b is Blame.APPLICATION))
def test_the_application_codes_stop_the_job(key: str) -> None:
    assert 50 <= CATALOG.signatures[key].weight <= 60


def test_a_cudnn_allocation_failure_decides_where_its_internal_error_prefix_did_not() -> None:
    line = "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED"
    matched = hits(line)
    # the older prefix entry still reads it, weaker: the specific one decides
    assert {"cuda.cudnn_alloc_failed", "cuda.library_execution_failed"} <= set(matched)
    sigs = CATALOG.signatures
    assert (
        sigs["cuda.cudnn_alloc_failed"].weight >= 50 > sigs["cuda.library_execution_failed"].weight
    )
    assert ("cuda.cudnn_alloc_failed", Blame.APPLICATION, 60) in found(line, Source.LOGS)
    # a cuDNN 9 kernel that failed under a CUDA call stays open, as before
    cudart = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED_CUDART"
    assert set(hits(cudart)) == {"cuda.library_execution_failed"}


def test_a_refused_hipblas_call_decides_but_a_failed_hipblas_kernel_does_not() -> None:
    refused = found("RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling "
                    "`HIPBLAS_STATUS_NOT_SUPPORTED`", Source.LOGS)  # fmt: skip
    failed = found("RuntimeError: CUDA error: HIPBLAS_STATUS_INTERNAL_ERROR when calling "
                   "`hipblasGemmEx(handle)`", Source.LOGS)  # fmt: skip
    assert ("hip.blas_bad_call", Blame.APPLICATION, 55) in refused
    # the kernel failure weighs under a collective symptom's 20, as cuda.library_execution_failed
    assert failed == [("hip.blas_execution_failed", Blame.SYMPTOM, 15)]


def test_the_cufft_statuses_left_open_stay_open() -> None:
    assert set(hits("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR")) == {
        "cuda.library_execution_failed"
    }
    assert "cuda.cufft_bad_call" not in hits("RuntimeError: cuFFT error: CUFFT_MISSING_DEPENDENCY")
