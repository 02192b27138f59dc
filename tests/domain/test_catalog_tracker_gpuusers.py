"""Golden lines from the sixth tracker sweep over GPU faults as users paste them from job output:
PyTorch, TensorFlow, JAX, CuPy, Numba, CUDA.jl, llama.cpp/ggml, ONNX Runtime, TensorRT and
Caffe-era CUDA errors, ROCm's HSA and HIP errors, nvidia-smi's lost-GPU answers and NCCL's
restatement of a CUDA failure, each with the public thread (repository and issue number) it was
pasted in.

Each line goes through the scanner's own matcher. The blame is the emitter's meaning: an
uncorrectable ECC error or a lost GPU names the node; a launch failure, an unknown error or a
hardware exception can be the kernel or the GPU (a symptom, or below the weight that names a node);
an illegal address or instruction is the job's kernel. The error's name printed without its text
(signatures-gpuusers.toml) keeps the blame its text has; a wrapper that restates an error printed
elsewhere decides nothing. Look-alikes must not match.
"""

from __future__ import annotations

from autorecover.domain.context import DEVICE_OR_SOFTWARE_SIGNALS, ONE_NODE_SIGNALS
from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-gpuusers.toml"
NAMESPACES = frozenset({"cuda", "torch", "xla", "tf", "ort", "ggml", "nvml", "vgpu"})

BLAME: dict[str, Blame] = {
    "cuda.ecc_uncorrectable": Blame.HARDWARE,
    "cuda.launch_failure": Blame.SYMPTOM,
    "cuda.launch_failed_code": Blame.SYMPTOM,
    "ggml.cuda_error_site": Blame.INFO,
    "ggml.cuda_op_failed": Blame.SYMPTOM,
    "cuda.kernel_exception": Blame.APPLICATION,
    "torch.cuda_error_search_hint": Blame.INFO,
    "nvml.device_handle_failed": Blame.HARDWARE,
    "nvml.handle_by_index_unknown": Blame.SYMPTOM,
    "cuda.device_unavailable": Blame.HARDWARE,
    "cuda.launch_timeout": Blame.HARDWARE,
    "cuda.illegal_memory_access": Blame.APPLICATION,
    "xla.stream_error_state": Blame.SYMPTOM,
    "ort.cuda_unknown_error": Blame.SYMPTOM,
    "hsa.hardware_exception": Blame.SYMPTOM,
    "hip.device_unavailable": Blame.HARDWARE,
    "nccl.unhandled_cuda_error": Blame.SYMPTOM,
    "cuda.unknown_error": Blame.HARDWARE,
    "glog.fatal": Blame.SYMPTOM,
    "nvml.gpu_is_lost": Blame.HARDWARE,
    "nvml.no_devices_found": Blame.HARDWARE,
    "nvrm.init_adapter_failed": Blame.HARDWARE,
    "cuda.illegal_address_code": Blame.APPLICATION,
    "tf.cuinit_failed": Blame.SYMPTOM,
    "torch.thc_cublas_failed": Blame.SYMPTOM,
    "vgpu.share_exceeded": Blame.APPLICATION,
    "vgpu.share_accounting_wrapped": Blame.TRANSIENT,
    "vgpu.illegal_device_id": Blame.APPLICATION,
    "cuda.unrecognized_error_code": Blame.SYMPTOM,
}

# (real line, signal, captures the line must yield). Left out: xingyizhou/CenterNet issue #759
# ("cuda error: all cuda-capable devices are busy or unavailable(malloc at ...)", retyped in lower
# case from a screenshot, not a line the runtime prints) and numba/numba issue #2393 (Numba's
# "UNKNOWN_CUDA_ERROR" for code 716, a misaligned address: the generic Python exception reads it
# as the job's, which it is).
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # huggingface/accelerate issue #1192
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "cuda.ecc_uncorrectable", {}),
    # NVIDIA/semantic-segmentation issue #33
    (
        "RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # kohya-ss/sd-scripts issue #1434
    (
        "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # ostris/ai-toolkit issue #470
    (
        "CUDA error: uncorrectable ECC error encountered Search for `cudaErrorECCUncorrectable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # nagadit/DeepFaceLab_Linux issue #89
    (
        "F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error Internal: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # JuliaGPU/CUDAdrv.jl issue #106
    (
        "  CUDA error: uncorrectable ECC error encountered (code #214, ERROR_ECC_UNCORRECTABLE)",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # PaddlePaddle/Paddle issue #10239
    (
        "F0426 17:52:54.043815 30811 hl_cuda_device.cc:565] Check failed: cudaSuccess == cudaStat (0 vs. 39) Cuda Error: uncorrectable ECC error encountered",
        "cuda.ecc_uncorrectable",
        {},
    ),
    # deepseek-ai/DeepSeek-MoE issue #47
    (
        "[rank1]:[E410 01:50:33.889423318 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # hao-ai-lab/FastVideo issue #1008
    (
        "[rank9]:[E113 11:43:02.241131296 ProcessGroupNCCL.cpp:1899] [PG ID 5 PG GUID 55(mesh_replicate) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # NVIDIA-NeMo/Megatron-Bridge issue #836
    (
        "[rank29]:[E1002 12:20:55.123831168 ProcessGroupNCCL.cpp:1923] [PG ID 5 PG GUID 83(TENSOR_MODEL_PARALLEL_GROUP) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # pytorch/pytorch issue #49832
    (
        "  what():  CUDA error: unspecified launch failure (insert_events at /pytorch/c10/cuda/CUDACachingAllocator.cpp:764)",
        "cuda.launch_failure",
        {},
    ),
    # pytorch/pytorch issue #2567
    (
        "RuntimeError: cuda runtime error (4) : unspecified launch failure at /home/ubuntu/pytorch/torch/lib/THC/THCTensorCopy.cu:85",
        "cuda.launch_failure",
        {},
    ),
    # karpathy/neuraltalk2 issue #127
    (
        "THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-6961/cutorch/lib/THC/generic/THCStorage.c line=147 error=4 : unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # JuliaGPU/CUDAdrv.jl issue #210
    (
        "ERROR: LoadError: CUDA error: unspecified launch failure (code 719, ERROR_LAUNCH_FAILED)",
        "cuda.launch_failure",
        {},
    ),
    # numba/numba issue #3788
    (
        "2019-02-21 10:15:18,210 - ERROR - Call to cuMemcpyDtoH results in CUDA_ERROR_LAUNCH_FAILED",
        "cuda.launch_failed_code",
        {"code": "CUDA_ERROR_LAUNCH_FAILED"},
    ),
    # ollama/ollama issue #9247
    (
        "Error: an error was encountered while running the model: CUDA error: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # ollama/ollama issue #9247
    (
        "  current device: 0, in function ggml_backend_cuda_synchronize at llama/ggml-cuda/ggml-cuda.cu:2317",
        "ggml.cuda_error_site",
        {"device": "0", "function": "ggml_backend_cuda_synchronize"},
    ),
    # nextcloud/llm2 issue #50
    ("ggml_cuda_compute_forward: RMS_NORM failed", "ggml.cuda_op_failed", {"op": "RMS_NORM"}),
    # NVIDIA/TensorRT-LLM issue #11313
    (
        "[02/05/2026-06:58:48] [TRT-LLM] [E] Encountered an error in forward function: CUDA error: an illegal instruction was encountered",
        "cuda.kernel_exception",
        {"error": "an illegal instruction was encountered"},
    ),
    # ostris/ai-toolkit issue #470 (the hint under an uncorrectable ECC error)
    (
        "Search for `cudaErrorECCUncorrectable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
        "torch.cuda_error_search_hint",
        {"error": "cudaErrorECCUncorrectable"},
    ),
    # AlexeyAB/darknet issue #8656
    (
        " CUDA Error: an illegal instruction was encountered",
        "cuda.kernel_exception",
        {"error": "an illegal instruction was encountered"},
    ),
    # fireice-uk/xmr-stak issue #1414
    (
        "libc++abi.dylib: terminating with uncaught exception of type std::runtime_error: [CUDA] Error: an illegal instruction was encountered",
        "cuda.kernel_exception",
        {"error": "an illegal instruction was encountered"},
    ),
    # NVIDIA/nvidia-docker issue #1553
    (
        "Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:09:00.0", "error": "Unknown Error"},
    ),
    # NVIDIA/dcgm-exporter issue #604
    (
        "Unable to determine the device handle for GPU 000:BA:80.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "000:BA:80.0", "error": "Unknown Error"},
    ),
    # meta-llama/llama-models issue #200
    (
        "Unable to determine the device handle for GPU0000:17:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:17:00.0", "error": "Unknown Error"},
    ),
    # jamesstringer90/Easy-GPU-PV issue #276
    (
        "Error: nvmlDeviceGetHandleByIndex(): Unknown Error",
        "nvml.handle_by_index_unknown",
        {"error": "Unknown Error"},
    ),
    # ggml-org/llama.cpp issue #11841
    (
        "CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        "cuda.device_unavailable",
        {"error": "CUDA-capable device(s) is/are busy or unavailable"},
    ),
    # NVIDIA/DIGITS issue #2005
    (
        "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
        "cuda.device_unavailable",
        {"error": "all CUDA-capable devices are busy or unavailable"},
    ),
    # pytorch/pytorch issue #2704
    (
        "THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/THCStorage.cu line=66 error=46 : all CUDA-capable devices are busy or unavailable",
        "cuda.device_unavailable",
        {"error": "all CUDA-capable devices are busy or unavailable"},
    ),
    # opencv/opencv issue #8029
    (
        "error: (-217) all CUDA-capable devices are busy or unavailable in function setDevice",
        "cuda.device_unavailable",
        {"error": "all CUDA-capable devices are busy or unavailable"},
    ),
    # happynear/caffe-windows issue #250
    (
        "Check failed: error == cudaSuccess (6 vs. 0)  the launch timed out and was terminated",
        "cuda.launch_timeout",
        {},
    ),
    # cudpp/cudpp issue #146
    ("67 : the launch timed out and was terminated.", "cuda.launch_timeout", {}),
    # AlexeyAB/darknet issue #6381
    (
        "F0730 15:51:34.761026 13923 math_functions.cu:79] Check failed: error == cudaSuccess (6 vs. 0)  the launch timed out and was terminated",
        "cuda.launch_timeout",
        {},
    ),
    # mrnabati/CenterFusion issue #76
    (
        "RuntimeError: CUDA error: the launch timed out and was terminated",
        "cuda.launch_timeout",
        {},
    ),
    # jaxleyverse/jaxley issue #53
    (
        "INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: fusion_1560 with block dimensions: 160x1x1 and grid dimensions: 1x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.",
        "cuda.illegal_memory_access",
        {},
    ),
    # jax-ml/jax issue #13951
    (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to complete all kernels launched on stream 0x557b78e02e40: stream did not block host until done; was already in an error state",
        "xla.stream_error_state",
        {},
    ),
    # microsoft/onnxruntime issue #14211
    (
        "RuntimeError: /onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc:122 bool onnxruntime::CudaCall(ERRTYPE, const char*, const char*, ERRTYPE, const char*) [with ERRTYPE = cudaError; bool THRW = true] CUDA failure 999: unknown error ; GPU=192915439 ; expr=cudaSetDevice(info_.device_id); ",
        "ort.cuda_unknown_error",
        {"gpu": "192915439"},
    ),
    # vllm-project/vllm issue #20007
    (
        ":0:rocdevice.cpp :3020: 5875275709338d us: Callback: Queue 0x7f4580c00000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016",
        "hsa.hardware_exception",
        {},
    ),
    # ROCm/legacy-rocm-build issue #6023
    (
        ":0:rocdevice.cpp:3586: Callback: Queue 0x7f78cb400000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016",
        "hsa.hardware_exception",
        {},
    ),
    # ROCm/hip issue #3805
    (
        'checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file <C:\\constructicon\\builds\\gfx\\eleven\\24.20\\drivers\\compute\\hip-tests\\samples\\1_Utils\\hipInfo\\hipInfo.cpp>, line 192.',
        "hip.device_unavailable",
        {"error": "no ROCm-capable device is detected"},
    ),
    # pytorch/pytorch issue #70036
    (
        "RuntimeError: HIP error: hipErrorNoDevice",
        "hip.device_unavailable",
        {"error": "hipErrorNoDevice"},
    ),
    # meta-llama/llama-cookbook issue #290
    (
        "  what():  [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # TheAtticusProject/cuad issue #9
    ("what(): NCCL Error 1: unhandled cuda error", "nccl.unhandled_cuda_error", {}),
    # NVIDIA/nccl issue #1935
    (
        "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown error'",
        "cuda.unknown_error",
        {},
    ),
    # NVIDIA/DeepLearningExamples issue #3
    (
        "E0628 19:13:22.730840  3624 net_dag.cc:195] Exception from operator chain starting at '' (type 'Concat'): caffe2::EnforceNotMet: [enforce fail at context_gpu.h:156] . Encountered CUDA error: unspecified launch failure Error from operator:",
        "cuda.launch_failure",
        {},
    ),
    # tensorflow/tensorflow issue #20356
    (
        "2018-06-27 21:10:37.421165: E tensorflow/stream_executor/cuda/cuda_driver.cc:1110] could not synchronize on CUDA context: CUDA_ERROR_LAUNCH_FAILED :: No stack trace available",
        "cuda.launch_failed_code",
        {"code": "CUDA_ERROR_LAUNCH_FAILED"},
    ),
    # tensorflow/tensorflow issue #20356
    (
        "2018-06-27 21:10:37.421173: E tensorflow/stream_executor/cuda/cuda_event.cc:49] Error polling for event status: failed to query event: CUDA_ERROR_LAUNCH_FAILED",
        "cuda.launch_failed_code",
        {"code": "CUDA_ERROR_LAUNCH_FAILED"},
    ),
    # tensorflow/tensorflow issue #20356
    (
        "2018-06-27 21:10:37.421198: F tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc:203] Unexpected Event status: 1",
        "glog.fatal",
        {"message": "Unexpected Event status: 1"},
    ),
    # openai/baselines issue #621
    (
        "2018-09-27 09:41:31.439167: E tensorflow/stream_executor/cuda/cuda_driver.cc:1078] failed to synchronize the stop event: CUDA_ERROR_LAUNCH_FAILED",
        "cuda.launch_failed_code",
        {"code": "CUDA_ERROR_LAUNCH_FAILED"},
    ),
    # tensorflow/tensorflow issue #25866
    (
        "2019-02-19 13:19:12.200064: E tensorflow/stream_executor/event.cc:34] error destroying CUDA event in context 000001A6735E4ED0: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure",
        "cuda.launch_failure",
        {},
    ),
    # JosephKJ/OWOD issue #81
    (
        "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
        "nvml.gpu_is_lost",
        {},
    ),
    # marian-nmt/marian issue #251
    (
        "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot the system to recover this GPU",
        "nvml.gpu_is_lost",
        {},
    ),
    # enazoe/yolo-tensorrt issue #59
    (
        "Cuda failure: unspecified launch failure in file /home/ws/projects/yolo-trt/yolo.cpp at line 924",
        "cuda.launch_failure",
        {},
    ),
    # NVIDIA/TensorRT issue #4372
    (
        "[TensorRT] 1: [defaultAllocator.cpp::nvinfer1::internal::DefaultAllocator::deallocate::61] Error Code 1: Cuda Runtime (unspecified launch failure)",
        "cuda.launch_failure",
        {},
    ),
    # pytorch/pytorch issue #167118
    ("No devices were found", "nvml.no_devices_found", {}),
    # microsoft/pai issue #4344
    (
        "[   38.773115] NVRM: RmInitAdapter failed! (0x26:0xffff:1127)",
        "nvrm.init_adapter_failed",
        {"code": "0x26:0xffff:1127"},
    ),
    # xg-chu/CrowdDet issue #26
    (
        "RuntimeError:copy_if failed to synchronize:cudaErrorIllegalAddress",
        "cuda.illegal_address_code",
        {"code": "cudaErrorIllegalAddress"},
    ),
    # mljar/mljar-supervised issue #107
    (
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)",
        "tf.cuinit_failed",
        {"code": "303"},
    ),
    # secretflow/secretflow issue #255
    (
        "2023-01-09 14:54:41.439076: W tensorflow/stream_executor/cuda/cuda_driver.cc:263] failed call to cuInit: UNKNOWN ERROR (303)",
        "tf.cuinit_failed",
        {"code": "303"},
    ),
    # open-mmlab/mmskeleton issue #121
    (
        "RuntimeError: cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:258",
        "torch.thc_cublas_failed",
        {"error": "the GPU program failed to execute"},
    ),
    # fairy-stockfish/variant-nnue-pytorch issue #39
    (
        "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
        "cuda.illegal_memory_access",
        {},
    ),
    # tensorflow/tensorflow issue #7653
    (
        "2017-08-14 07:28:29.379866: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE",
        "cuda.device_unavailable",
        {},
    ),
    # avisingh599/reward-learning-rl issue #15
    (
        "Error: (pid=3343) 2019-08-13 11:02:51.856630: E tensorflow/stream_executor/cuda/cuda_driver.cc:300] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        "cuda.device_unavailable",
        {},
    ),
    # tensorflow/models issue #4227
    (
        "2018-05-09 09:37:18.401609: E tensorflow/stream_executor/stream.cc:306] Error recording event in stream: error recording CUDA event on stream 0x8dcbec0: CUDA_ERROR_LAUNCH_FAILED; not marking stream as bad, as the Event object may be at fault. Monitor for further errors.",
        "cuda.launch_failed_code",
        {"code": "CUDA_ERROR_LAUNCH_FAILED"},
    ),
    # rwth-i6/returnn issue #1486
    (
        "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
        "nvml.device_handle_failed",
        {"pci": "0000:03:00.0", "error": "Unknown Error"},
    ),
    # Project-HAMi/HAMi issue #1003 (HAMi-core refusing an allocation past the pod's share)
    (
        "[HAMI-core ERROR (pid:25 thread=139892685178688 allocator.c:53)]: Device 0 OOM 27147995136 / 25757220864",
        "vgpu.share_exceeded",
        {"device": "0", "wanted": "27147995136", "limit": "25757220864"},
    ),
    # HAMi-core under its first name (a HAMi-core issue, above PyTorch's unrecognized error code)
    (
        "[4pdvGPU ERROR (pid:8 thread=139937750087232 allocator.c:53)]: Device 0 OOM 1559232512 / 1048576000",
        "vgpu.share_exceeded",
        {"wanted": "1559232512", "limit": "1048576000"},
    ),
    # Project-HAMi/HAMi issue #1181's figures: a counter wrapped below zero (rendered)
    (
        "[HAMI-core ERROR (pid:1 thread=139872475981632 allocator.c:53)]: Device 0 OOM 18446744073707737660 / 24146608128",
        "vgpu.share_accounting_wrapped",
        {"wanted": "18446744073707737660"},
    ),
    # Project-HAMi/HAMi-core issue #169 (HAMi 2.8.0, vLLM's NCCL start-up through cuMemCreate)
    (
        "[HAMI-core ERROR (pid:565 thread=140267266266944 multiprocess_memory_limit.c:831)]: "
        "Illegal device id: 850725928",
        "vgpu.illegal_device_id",
        {"device": "850725928"},
    ),
    # PyTorch after HAMi-core refused an allocation with -1 (before HAMi-core pull request #56)
    ("RuntimeError: CUDA error: unrecognized error code", "cuda.unrecognized_error_code", {}),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the name beside its text is the text's entry's
    (
        "cuda.launch_failed_code",
        "2019-02-19 13:19:12.200064: E tensorflow/stream_executor/event.cc:34] error destroying "
        "CUDA event in context 000001A6735E4ED0: CUDA_ERROR_LAUNCH_FAILED: unspecified launch "
        "failure",
    ),
    (
        "cuda.illegal_address_code",
        "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal "
        "memory access was encountered",
    ),
    # a longer name that merely starts the same
    ("cuda.launch_failed_code", "CUDA_ERROR_LAUNCH_FAILED_PENDING_RETRY"),
    # PyTorch's hint for another runtime's documentation, a plain mention of the docs
    ("torch.cuda_error_search_hint", "See https://docs.nvidia.com/cuda/cuda-runtime-api/ for more"),
    # a stream that completed, a cuInit that succeeded or named its error
    ("xla.stream_error_state", "stream did not block host until done"),
    (
        "tf.cuinit_failed",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: "
        "CUDA_ERROR_NO_DEVICE",
    ),
    # cuBLAS statuses of the job's own call are not an execution failure
    ("torch.thc_cublas_failed", "RuntimeError: cublas runtime error : an invalid value was used"),
    # ONNX Runtime's other CUDA failures are read by their text's entries
    ("ort.cuda_unknown_error", "CUDA failure 2: out of memory ; GPU=0 ; hostname=n1 ; expr=x"),
    # ggml's healthy device listing, and a failed op of another backend
    ("ggml.cuda_op_failed", "ggml_cuda_init: found 3 CUDA devices:"),
    ("ggml.cuda_op_failed", "ggml_vk_compute_forward: RMS_NORM failed"),
    (
        "ggml.cuda_error_site",
        "  current device: 0, in function aclnn_add at ggml-cann/aclnn_ops.cpp:9",
    ),
    # NVML answering
    ("nvml.handle_by_index_unknown", "nvmlDeviceGetHandleByIndex() returned NVML_SUCCESS"),
    # HAMi-core's routine lines, and its debug line of the memory in use
    ("vgpu.share_exceeded", "[HAMI-core Msg(30:140387636202368:libvgpu.c:855)]: Initialized"),
    (
        "vgpu.share_exceeded",
        "[HAMI-core Debug(30:140387636202368:allocator.c:60)]: Device 0 current memory 1048576 / 3145728000",
    ),
    # the wrapped counter is not a share exceeded
    (
        "vgpu.share_exceeded",
        "[HAMI-core ERROR (pid:1 thread=1 allocator.c:53)]: Device 0 OOM 18446744073707737660 / 24146608128",
    ),
    # a known error's text is its own entry's
    ("cuda.unrecognized_error_code", "RuntimeError: CUDA error: unknown error"),
]

REQUIRED: dict[str, Blame] = {key: BLAME[key] for key in family_keys(FILE)}

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, REQUIRED)


def test_the_family_names_no_node() -> None:
    """A name without its text, or a wrapper of an error printed elsewhere, is never enough to
    isolate a node: nothing here is hardware, none acts on the node."""
    for key in family_keys(FILE):
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE, key
        assert sig.weight < 60 or sig.blame is Blame.APPLICATION, key
    assert_no_node_action(family_keys(FILE))


def test_a_name_keeps_the_blame_of_its_text() -> None:
    """CUDA's error name alone reads as its text does in the core catalog."""
    for name_key, text_key in (
        ("cuda.launch_failed_code", "cuda.launch_failure"),
        ("cuda.illegal_address_code", "cuda.illegal_memory_access"),
    ):
        name, text = CATALOG.signatures[name_key], CATALOG.signatures[text_key]
        assert (name.blame, name.weight) == (text.blame, text.weight), name_key


def test_a_wrapped_gpu_error_is_not_the_jobs_exception() -> None:
    """XLA's failed stream, ONNX Runtime's unknown CUDA error and THC's cuBLAS failure used to
    read as the job's Python exception; they are symptoms of a GPU error."""
    for line, key in (
        (GOLDEN_BY_KEY["xla.stream_error_state"], "xla.stream_error_state"),
        (GOLDEN_BY_KEY["ort.cuda_unknown_error"], "ort.cuda_unknown_error"),
        (GOLDEN_BY_KEY["torch.thc_cublas_failed"], "torch.thc_cublas_failed"),
    ):
        assert set(hits(line)) == {key}, line


GOLDEN_BY_KEY = {key: line for line, key, _ in GOLDEN}


def test_every_device_or_software_signal_is_a_catalog_key() -> None:
    # context.py re-reads these as the job's when every node reports one: a typo there, or a
    # renamed key, would silently drop the rule for it
    assert not DEVICE_OR_SOFTWARE_SIGNALS - set(CATALOG.signatures)
    for key in ("cuda.launch_failed_code", "ort.cuda_unknown_error", "torch.thc_cublas_failed"):
        assert key in DEVICE_OR_SOFTWARE_SIGNALS


def test_every_one_node_signal_is_a_device_or_software_signal() -> None:
    # named on one node of several only because it is either alone, and the job's everywhere
    assert set(ONE_NODE_SIGNALS) <= DEVICE_OR_SOFTWARE_SIGNALS
