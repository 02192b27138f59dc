"""CUDA error texts read the same through the wrappers that name the CUDA call before them
(issue 14, item 1, round 2).

A common text ("out of memory", "unknown error", "initialization error", "invalid argument")
is a CUDA one when a CUDA API name or a framework's CUDA check stands before it: the
hand-written `<cudaApi> failed: <text>` idiom, PyCUDA's `<routine> failed: <text>`,
TensorRT's `Error Code N: Cuda Runtime (<text>)` and older `Cuda Error in <fn>: N (<text>)`,
MXNet's `CUDA: <text>` and `ErrStr:<text>`, Caffe's `Check failed: error == cudaSuccess (N vs.
0)  <text>`, PaddlePaddle's `Cuda Error: <text>`, ONNX Runtime's and CNTK's `CUDA failure N:
<text> ; GPU=...`, TensorFlow's `CUDA_ERROR_<NAME>: <text>`. `scripts/catalog_emitters/cuda.toml`
lists them as carriers and `tests/test_bench_scripts.py` checks every `cudaError_t` text through
each. Before, each line below read as nothing or as the generic Python entry. Every line is a
real one from the public thread cited beside it, or a rendering of the emitter's format (said
so). Look-alikes without a CUDA call or check before the text stay unread.
"""

from __future__ import annotations

import pytest

from domain.golden import CATALOG, hits

GOLDEN = [
    # CuPy's own memory-pool wording: cupy/cupy issues #2537 (Chainer) and #7678 (a pool limit),
    # #1912 (before cupy/cupy PR #2242)
    ("Exception in main training loop: Out of memory allocating 25,600,000 bytes (allocated so "
     "far: 3,635,267,072 bytes).", "cuda.oom"),
    ("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes (allocated "
     "so far: 536,870,912 bytes, limit set to: 1,073,741,824 bytes).", "cuda.oom"),
    ("cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 1073741824 bytes (total "
     "12373894656 bytes)", "cuda.oom"),
    # ccsb-scripps/AutoDock-GPU issue #192 (a POWER9 cluster node; no colon after the call)
    ("cudaGetDeviceCount failed initialization error", "cuda.setup_either"),
    # apache/mxnet issues #17126 and #5340 (MXNet's pooled storage manager)
    ("mxnet.base.MXNetError: [18:53:03] src/storage/./pooled_storage_manager.h:157: cudaMalloc "
     "failed: out of memory", "cuda.oom"),
    # PyCUDA (cuda.hpp "%s failed: %s" with cuGetErrorString's text): mlcommons/inference_results_v3.0
    # issue #18, inducer/pycuda issues #231 and #276, cong/yolov5_deepsort_tensorrt issue #3
    ("pycuda._driver.LogicError: cuInit failed: initialization error", "cuda.setup_either"),
    ("pycuda._driver.LogicError: cuModuleLoadDataEx failed: initialization error -",
     "cuda.setup_either"),
    ("pycuda._driver.LogicError: cuDeviceGet failed: initialization error", "cuda.setup_either"),
    ("pycuda._driver.Error: cuInit failed: unknown error", "cuda.unknown_error"),
    # deviceQuery's check as many programs copy it onto one line ("cudaGetDeviceCount returned %d
    # -> %s\n"), rendered
    ("cudaGetDeviceCount returned 3 -> initialization error", "cuda.setup_either"),
    # ggml-org/llama.cpp ggml-cuda.cu ggml_cuda_init ("%s: failed to initialize CUDA: %s"), rendered
    ("ggml_cuda_init: failed to initialize CUDA: unknown error", "cuda.unknown_error"),
    # TensorRT 8+: NVIDIA/TensorRT issue #2198, ChuRuaNh0/FastSam_Awsome_TensorRT issue #9,
    # NVIDIA-AI-IOT/torch2trt issue #787 (the driver API's form)
    (" defaultAllocator.cpp::nvinfer1::internal::DefaultAllocator::allocate::63] Error Code 1: "
     "Cuda Runtime (out of memory).", "cuda.oom"),
    ("[TRT] [E] 1: [defaultAllocator.cpp::deallocate::42] Error Code 1: Cuda Runtime (invalid "
     "argument)", "cuda.invalid_usage"),
    ("08/06/2022-13:26:57] [TRT] [E] 1: [virtualMemoryBuffer.cpp::nvinfer1::"
     "StdVirtualMemoryBufferImpl::resizePhysical::148] Error Code 1: Cuda Driver (invalid argument)",
     "cuda.invalid_usage"),
    # TensorRT 7: linghu8812/tensorrt_inference issue #117, NVIDIA/TensorRT issue #948 (its title)
    ("[08/03/2022-23:18:05] [E] [TRT] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 "
     "(out of memory)", "cuda.oom"),
    ("[E] [TRT] C:\\source\\rtSafe\\safeRuntime.cpp (25) - Cuda Error in "
     "nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)", "cuda.oom"),
    # Caffe's CUDA_CHECK: houqb/DSS issue #25, MhLiao/TextBoxes_plusplus issue #132
    ("F0304 14:26:21.611594  4889 syncedmem.cpp:71] Check failed: error == cudaSuccess (2 vs. 0)  "
     "out of memory", "cuda.oom"),
    ("F0903 14:31:26.106397 92421 syncedmem.cpp:56] Check failed: error == cudaSuccess (2 vs. 0)  "
     "out of memory", "cuda.oom"),
    # MXNet / mshadow CUDA_CALL: apache/mxnet issues #1550 and #9031 (its title); the kernel
    # launch check's "Name: ... ErrStr:" form, apache/mxnet issue #10323
    ("mxnet.base.MXNetError: [16:52:49] src/storage/./gpu_device_storage.h:39: Check failed: e == "
     "cudaSuccess || e == cudaErrorCudartUnloading CUDA: out of memory", "cuda.oom"),
    ("cuda error:Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: unknown error",
     "cuda.unknown_error"),
    ("mxnet.base.MXNetError: [17:13:00] src/operator/nn/./../mxnet_op.h:576: Check failed: err == "
     "cudaSuccess (2 vs. 0) Name: mxnet_generic_kernel ErrStr:out of memory", "cuda.oom"),
    # PaddlePaddle/Paddle issue #8949 (its title; Paddle v1's check)
    ("Check failed: cudaSuccess == cudaStat (0 vs. 2) Cuda Error: out of memory", "cuda.oom"),
    # ONNX Runtime's CudaCall: hacksider/Deep-Live-Cam issue #584 (from "[ONNXRuntimeError]" on;
    # the progress bar before it left out); CNTK's, which it comes from: microsoft/CNTK issue #1769
    ("[ONNXRuntimeError] : 1 : FAIL : D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\"
     "cuda_call.cc:121 onnxruntime::CudaCall D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\"
     "cuda_call.cc:114 onnxruntime::CudaCall CUDA failure 2: out of memory ; GPU=0 ; "
     "hostname=DESKTOP-QUBEI ; file=D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\"
     "cuda_stream_handle.cc ; line=175 ; expr=cudaStreamCreateWithFlags(&stream, "
     "cudaStreamNonBlocking);", "cuda.oom"),
    ("CUDA failure 2: out of memory ; GPU=0 ; hostname=MSI ; expr=cudaMalloc((void**) "
     "&deviceBufferPtr, sizeof(AllocatedElemType) * numElements)", "cuda.oom"),
    # TensorFlow's stream executor (cuda_driver.cc: the driver's name and text):
    # google-research/football issue #104
    ("2019-12-13 09:36:23.878841: E tensorflow/stream_executor/cuda/cuda_driver.cc:1204] could not "
     "retrieve CUDA device count: CUDA_ERROR_NOT_INITIALIZED: initialization error",
     "cuda.setup_either"),
    # the CUDA library samples' CHECK_CUDA macro with a file name: szcompressor/cuSZ issue #43
    ("CUDA API failed at src/cusz.cu:154 with error: initialization error (3)", "cuda.setup_either"),
    # Numba's driver wrapper names the driver API's error ("[%d] Call to %s results in %s"):
    # ContinuumIO/numbapro-examples issue #10, numba/numba issue #8638 (its title)
    ("[3] Call to cuInit results in CUDA_ERROR_NOT_INITIALIZED:", "cuda.setup_either"),
    ("CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_UNKNOWN (999):",
     "cuda.unknown_error"),
    # AMReX's CUDA checks (AMReX_GpuError.H), as PeleC prints them: Pele-Suite/PeleC issue #809
    ("amrex::Abort::10::CUDA error 2 in file /nlsasfs/home/fdmod/srkumar/PeleC/Submodules/"
     "PelePhysics/Submodules/amrex/Src/Base/AMReX_Arena.cpp line 193: out of memory !!!", "cuda.oom"),
    ("amrex::Abort::4::GPU last error detected in file /nlsasfs/home/fdmod/srkumar/PeleC/Submodules/"
     "PelePhysics/Submodules/amrex/Src/Base/AMReX_GpuLaunchFunctsG.H line 749: invalid device "
     "function !!!", "cuda.invalid_usage"),
    # SPECFEM's exit_on_cuda_error: SPECFEM/specfem3d issue #1344
    ("CUDA error !!!!! <out of memory> !!!!! ", "cuda.oom"),
    # AdaptiveCpp's (hipSYCL's) result::dump, the backend's number only (1: invalid value in
    # cudaError_t, CUresult and hipError_t alike): GROMACS on an MI250X system, a cached buffer
    # cleared after its reallocation
    ("[hipSYCL Error] from /tmp/hellsvik/hipsycl/0.9.4/cpeGNU-22.06-rocm-5.3.3-llvm/hipSYCL-0.9.4/"
     "src/runtime/hip/hip_queue.cpp:355 @ submit_memset() : hip_queue: hipMemsetAsync() failed "
     "(error code = HIP:1)", "cuda.invalid_usage"),
    ("[AdaptiveCpp Error] from /opt/acpp/src/runtime/cuda/cuda_queue.cpp:189 @ submit_memcpy(): "
     "cuda_queue: Couldn't submit memcpy (error code = CUDA:700)", "cuda.illegal_memory_access"),
    # Marian's CUDA_CHECK (src/tensors/gpu/cuda_helpers.h): the code, the text in quotes, where
    ("[2025-01-21 16:30:37] Error: CUDA error 999 'unknown error' - /builds/worker/fetches/"
     "marian-source/src/tensors/gpu/algorithm.cu:54: cudaStreamSynchronize(0)", "cuda.unknown_error"),
    ("Error: CUDA error 2 'out of memory' - src/tensors/gpu/device.cu:32: cudaMalloc(&data_, size)",
     "cuda.oom"),
]  # fmt: skip

# Look-alikes: the same common texts without a CUDA call or check before them, and a CUDA
# check's benign text (process teardown).
NEGATIVE = [
    # Go's runtime when the host is out of memory (runtime/malloc.go throw), rendered
    "fatal error: runtime: out of memory",
    # PyCUDA's cleanup warning (src/cpp/cuda.hpp CUDAPP_CALL_GUARDED_CLEANUP), rendered
    "PyCUDA WARNING: a clean-up operation failed (dead context maybe?)",
    # ggml-org/llama.cpp ggml_cuda_init's healthy count (scripts/catalog_emitters/gpuusers.toml)
    "ggml_cuda_init: found 3 CUDA devices:",
    # MXNet's CUDA_CALL with cudaErrorCudartUnloading's text, rendered: the runtime unloading at
    # exit, which the check itself lets pass
    "Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: driver shutting down",
    # curl through libcurl's curl_easy_strerror after a function name, rendered: not a CUDA call
    "curl_easy_perform failed: unknown error",
    # AdaptiveCpp's report of a backend code no CUDA entry reads by number (10: invalid device)
    "[AdaptiveCpp Error] from q.cpp:7 @ f(): cuda_queue: x (error code = CUDA:10)",
]


@pytest.mark.parametrize(("line", "key"), GOLDEN)
def test_a_cuda_call_carrier_reads_as_the_error_s_own_entry(line: str, key: str) -> None:
    found = hits(line)
    assert key in found, found
    # the carried line reads with the blame of the CUDA error, not the generic Python entry's
    specific = {k for k in found if k not in {"python.exception", "python.exception_elsewhere"}}
    strongest = max(specific, key=lambda k: CATALOG.signatures[k].weight)
    assert CATALOG.signatures[strongest].blame is CATALOG.signatures[key].blame, found


@pytest.mark.parametrize("line", NEGATIVE)
def test_a_look_alike_without_a_cuda_call_stays_unread(line: str) -> None:
    assert not [k for k in hits(line) if k.startswith("cuda.")], hits(line)
