"""Golden lines from the sweep over ML compilers and fused-kernel libraries
(signatures-mlcompile.toml): TorchDynamo's recompile limit and tracing failures, TorchInductor's
missing Triton, too-old GPU and missing C++ compiler, Triton's C compiler, libcuda.so, ptxas and
MLIR pass failures, FlashAttention's head-dimension limits and transformers' FlashAttention-2
check, CUTLASS's status errors, the CUDA-version checks of torch's extension builder, Apex and
DeepSpeed's op builder, DeepSpeed's JIT op loader and bitsandbytes' CPU-only fallback.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a kernel that cannot be traced, compiled or
built, or a toolkit out of step with torch, is the job's environment (application; at or below 50
where the node's setup or a compiler bug prints the same); a CUTLASS internal failure restates a
CUDA error; the recompile limit is a healthy run's notice. Look-alikes (healthy lines of the same
emitters, and lines other entries read) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    assert_no_node_action,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-mlcompile.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "dynamo.recompile_limit": Blame.INFO,
    "dynamo.trace_failed": Blame.APPLICATION,
    "inductor.triton_missing": Blame.APPLICATION,
    "inductor.gpu_too_old": Blame.APPLICATION,
    "inductor.no_cxx_compiler": Blame.APPLICATION,
    "triton.no_c_compiler": Blame.APPLICATION,
    "triton.libcuda_not_found": Blame.APPLICATION,
    "triton.ptxas_failed": Blame.APPLICATION,
    "ptxas.gpu_name_undefined": Blame.APPLICATION,
    "triton.pass_manager_failed": Blame.APPLICATION,
    "flashattn.head_dim_unsupported": Blame.APPLICATION,
    "flashattn.unavailable": Blame.APPLICATION,
    "cutlass.problem_unsupported": Blame.APPLICATION,
    "cutlass.internal_error": Blame.SYMPTOM,
    "cppext.cuda_version_mismatch": Blame.APPLICATION,
    "apex.cuda_version_mismatch": Blame.APPLICATION,
    "deepspeed.cuda_version_mismatch": Blame.APPLICATION,
    "deepspeed.op_jit_unavailable": Blame.APPLICATION,
    "bnb.compiled_without_gpu": Blame.APPLICATION,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # pytorch/torchdynamo issue #1955 (a Whisper model past the limit of 64)
    (
        "[2022-12-22 03:54:03,390] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
        "config.cache_size_limit (64)",
        "dynamo.recompile_limit",
        {"limit": "cache_size_limit", "value": "64"},
    ),
    # pytorch/torchdynamo issue #1673 (the pre-2.0 package name)
    (
        "[2022-10-14 15:59:22,874] torchdynamo.convert_frame: [WARNING] torchdynamo hit "
        "config.cache_size_limit (64)",
        "dynamo.recompile_limit",
        {"value": "64"},
    ),
    # rendered from torch/_dynamo/convert_frame.py (2.6+, the renamed limit; no public line cited)
    (
        "W1107 09:47:09.123000 4182 torch/_dynamo/convert_frame.py:964] [0/8] torch._dynamo hit "
        "config.recompile_limit (8)",
        "dynamo.recompile_limit",
        {"limit": "recompile_limit", "value": "8"},
    ),
    # vllm-project/vllm issue #38884 (the exception in its title)
    (
        "torch._dynamo.exc.TorchRuntimeError: Dynamo failed to run FX node with fake tensors",
        "dynamo.trace_failed",
        {"kind": "TorchRuntimeError"},
    ),
    # rusty1s/pytorch_sparse issue #400 (its title)
    (
        "torch._dynamo.exc.TorchRuntimeError: Failed running call_function torch_sparse.ind2ptr",
        "dynamo.trace_failed",
        {"kind": "TorchRuntimeError"},
    ),
    # kijai/ComfyUI-WanVideoWrapper issue #978 (torch 2.7 on Windows without Triton)
    (
        "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the "
        "package is not installed or it is too old. More information on installing Triton can be "
        "found at: https://github.com/triton-lang/triton",
        "inductor.triton_missing",
        {},
    ),
    # triton-lang/triton issue #4034 (the RuntimeError form before 2.6)
    (
        "RuntimeError: Cannot find a working triton installation. More information on installing "
        "Triton can be found at https://github.com/openai/triton",
        "inductor.triton_missing",
        {},
    ),
    # karpathy/nanoGPT issue #157 (GTX 1080)
    (
        "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the "
        "triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.1",
        "inductor.gpu_too_old",
        {"gpu": "NVIDIA GeForce GTX 1080", "capability": "6.1"},
    ),
    # vllm-project/vllm issue #13202 (Tesla P40)
    (
        "RuntimeError: Found Tesla P40 which is too old to be supported by the triton GPU "
        "compiler, which is used as the backend. Triton only supports devices of CUDA Capability "
        ">= 7.0, but your device is of CUDA capability 6.1",
        "inductor.gpu_too_old",
        {"gpu": "Tesla P40", "capability": "6.1"},
    ),
    # 2noise/ChatTTS issue #341 (relayed by Dynamo's warning when errors are suppressed)
    (
        "[2024-06-18 19:45:55,713] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found "
        "NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, "
        "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but "
        "your device is of CUDA capability 6.1",
        "inductor.gpu_too_old",
        {"gpu": "NVIDIA GeForce GTX 1080 Ti"},
    ),
    # pytorch/pytorch issue #92745 (an image without g++)
    (
        "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in "
        "torch._inductor.config.cpp.cxx: (None, 'g++')",
        "inductor.no_cxx_compiler",
        {"cxx": "(None, 'g++')"},
    ),
    # NixOS/nixpkgs pull request #446105 (inside InductorError, torch 2.8)
    (
        "torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in "
        "torch._inductor.config.cpp.cxx: (None, 'g++')",
        "inductor.no_cxx_compiler",
        {"cxx": "(None, 'g++')"},
    ),
    # thu-ml/SageAttention issue #7
    (
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.",
        "triton.no_c_compiler",
        {},
    ),
    # intel/torch-xpu-ops issue #3160 (Triton 3.4's wording, inside InductorError)
    (
        "torch._inductor.exc.InductorError: RuntimeError: Failed to find C compiler. Please "
        "specify via CC environment variable or set triton.knobs.build.impl.",
        "triton.no_c_compiler",
        {},
    ),
    # unslothai/unsloth issue #679 and MAGICS-LAB/DNABERT_2 issue #56
    ("AssertionError: libcuda.so cannot found!", "triton.libcuda_not_found", {}),
    # hiyouga/LlamaFactory issue #7417 (Unsloth's Triton kernels)
    (
        "RuntimeError: Internal Triton PTX codegen error",
        "triton.ptxas_failed",
        {"error": "Internal Triton PTX codegen error"},
    ),
    # kijai/ComfyUI-WanVideoWrapper issue #1208 (triton-windows)
    (
        "RuntimeError: `ptxas` failed with error code 4294967295:",
        "triton.ptxas_failed",
        {"error": "`ptxas` failed with error code 4294967295"},
    ),
    # rendered from third_party/nvidia/backend/compiler.py make_cubin (no public line cited)
    (
        "triton.runtime.errors.PTXASError: `ptxas` raised SIGSEGV",
        "triton.ptxas_failed",
        {"error": "`ptxas` raised SIGSEGV"},
    ),
    # Zyphra/Zonos issue #184 (an RTX 5070 Ti with Triton 3.2's ptxas)
    (
        "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'",
        "ptxas.gpu_name_undefined",
        {"arch": "sm_120"},
    ),
    # ELS-RD/kernl issue #142 (RTX 3080)
    (
        "ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'",
        "ptxas.gpu_name_undefined",
        {"arch": "sm_86"},
    ),
    # lllyasviel/FramePack issue #350; pytorch/pytorch issue #147377 (ROCm)
    ("RuntimeError: PassManager::run failed", "triton.pass_manager_failed", {}),
    # opendatahub-io documentation, deploying a Llama model with KServe (vLLM's prefix_prefill
    # kernel under --enable-chunked-prefill): MLIR's crash-recovery wording of the same failure
    (
        "/opt/vllm/lib64/python3.12/site-packages/vllm/attention/ops/prefix_prefill.py:36:0: "
        "error: Failures have been detected while processing an MLIR pass pipeline",
        "triton.pass_manager_failed",
        {},
    ),
    (
        "prefix_prefill.py:36:0: note: Pipeline failed while executing [`ConvertTritonGPUToLLVM` "
        "on 'builtin.module' operation]: reproducer generated at `std::errs, please share the "
        "reproducer above with Triton project.`",
        "triton.pass_manager_failed",
        {},
    ),
    # hiyouga/LlamaFactory issue #371 (flash-attn 1.x on A40s)
    (
        "RuntimeError: FlashAttention backward for head dim > 64 requires A100 or H100 GPUs as the "
        "implementation needs a large amount of shared memory.",
        "flashattn.head_dim_unsupported",
        {"headdim": "> 64", "gpus": "A100 or H100"},
    ),
    # rendered from csrc/flash_attn/flash_api.cpp mha_bwd and mha_fwd (2.x; no public line cited)
    (
        "RuntimeError: FlashAttention backward for head dim > 192 with dropout requires A100/A800 "
        "or H100/H800",
        "flashattn.head_dim_unsupported",
        {"headdim": "> 192", "gpus": "A100/A800 or H100/H800"},
    ),
    (
        "RuntimeError: FlashAttention forward only supports head dimension at most 256",
        "flashattn.head_dim_unsupported",
        {"pass": "forward", "max": "256"},
    ),
    # hiyouga/EasyR1 issue #384
    (
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the "
        "following error: the package flash_attn seems to be not installed. Please refer to the "
        "documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one"
        "#flashattention-2 to install Flash Attention 2",
        "flashattn.unavailable",
        {"reason": "the package flash_attn seems to be not installed"},
    ),
    # rendered from cutlass examples/common/helper.h CUTLASS_CHECK (no public line found)
    (
        "Got cutlass error: Error Misaligned Operand at: 455",
        "cutlass.problem_unsupported",
        {"status": "Error Misaligned Operand"},
    ),
    # rendered from PyTorch's cutlass kernels' TORCH_CHECK (no public line found)
    (
        "RuntimeError: Got CUTLASS error: Error Architecture Mismatch",
        "cutlass.problem_unsupported",
        {"status": "Error Architecture Mismatch"},
    ),
    # rendered from CUTLASS_CHECK (no public line found)
    (
        "Got cutlass error: Error Internal at: 363",
        "cutlass.internal_error",
        {"status": "Error Internal"},
    ),
    (
        "[/src/gemm.cu] Got cutlass error: Error Memory Allocation failed at: 88",
        "cutlass.internal_error",
        {"status": "Error Memory Allocation failed"},
    ),
    # qihao067/HUPOR issue #2 (its title)
    (
        "The detected CUDA version (12.0) mismatches the version that was used to compile PyTorch "
        "(11.6). Please make sure to use the same CUDA versions.",
        "cppext.cuda_version_mismatch",
        {"detected": "12.0", "torch": "11.6"},
    ),
    # lipzh5/ResearchProgress issue #11 (the message's first line, as pip relays it)
    (
        "      The detected CUDA version (10.1) mismatches the version that was used to compile",
        "cppext.cuda_version_mismatch",
        {"detected": "10.1"},
    ),
    # rendered from apex setup.py (NVIDIA/apex issue #550 pastes it up to the version, cut off)
    (
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
        "match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with "
        "Cuda 12.1.",
        "apex.cuda_version_mismatch",
        {"torch": "12.1"},
    ),
    # bytedance/lightseq issues #526 and #158 (titles; lightseq vendors DeepSpeed's op_builder)
    (
        "Exception: Installed CUDA version 12.3 does not match the version torch was compiled with "
        "12.1, unable to compile cuda/cpp extensions without a matching cuda version.",
        "deepspeed.cuda_version_mismatch",
        {"installed": "12.3", "torch": "12.1"},
    ),
    (
        "Exception: Installed CUDA version 9.0 does not match the version torch was compiled with "
        "10.1, unable to compile cuda/cpp extensions without a matching cuda version.",
        "deepspeed.cuda_version_mismatch",
        {"installed": "9.0", "torch": "10.1"},
    ),
    # rendered from deepspeed op_builder/builder.py assert_no_cuda_mismatch (CUDAMismatchException)
    (
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: "
        "Installed CUDA version 11.8 does not match the version torch was compiled with 12.1, "
        "unable to compile cuda/cpp extensions without a matching cuda version.",
        "deepspeed.cuda_version_mismatch",
        {"installed": "11.8", "torch": "12.1"},
    ),
    # rendered from deepspeed op_builder/builder.py jit_load (no public issue line cited)
    (
        "RuntimeError: Unable to JIT load the fused_adam op due to ninja not being installed.",
        "deepspeed.op_jit_unavailable",
        {"op": "fused_adam", "reason": "ninja not being installed"},
    ),
    (
        "RuntimeError: Unable to JIT load the async_io op due to it not being compatible due to "
        "hardware/software issue. ",
        "deepspeed.op_jit_unavailable",
        {"op": "async_io", "reason": "it not being compatible due to hardware/software issue"},
    ),
    # hyperonym/basaran issue #3 (bitsandbytes 0.37 in a CUDA container)
    (
        "/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:31: UserWarning: The "
        "installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and "
        "GPU quantization are unavailable.",
        "bnb.compiled_without_gpu",
        {},
    ),
    # nvidia-cosmos/cosmos-predict1 issue #35 (0.43+ logs it)
    (
        "[WARNING | bitsandbytes.cextension]: The installed version of bitsandbytes was compiled "
        "without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are "
        "unavailable.",
        "bnb.compiled_without_gpu",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # Dynamo's routine recompile logging (TORCH_LOGS=recompiles; pytorch/pytorch PR #110325)
    (
        "dynamo.recompile_limit",
        "[2023-11-06 14:54:08,549] torch._dynamo.guards.__recompiles: [DEBUG] Recompiling function "
        "forward in /data/users/williamwen/torchvision/torchvision/models/resnet.py:284",
    ),
    ("dynamo.recompile_limit", "torch._dynamo.config.recompile_limit = 64"),
    # the qualified names python.compile_failed reads stay its own
    (
        "dynamo.trace_failed",
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    ),
    (
        "dynamo.trace_failed",
        "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(ValueError) "
        "[ConstantVariable(str)] {}",
    ),
    # Triton found and used (the Inductor cache line of a working run)
    ("inductor.triton_missing", "triton not found; flop counting will not work for triton kernels"),
    (
        "inductor.gpu_too_old",
        "Found 8 GPUs with compute capability 9.0 supported by the triton GPU compiler",
    ),
    ("inductor.no_cxx_compiler", "torch._inductor.config.cpp.cxx = (None, 'g++')"),
    ("triton.no_c_compiler", "-- Check for working C compiler: /usr/bin/cc - skipped"),
    # bitsandbytes' own libcuda wording is another emitter's
    (
        "triton.libcuda_not_found",
        "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed?",
    ),
    ("triton.ptxas_failed", "ptxas info    : Used 168 registers, 384 bytes cmem[0]"),
    ("ptxas.gpu_name_undefined", "ptxas info    : Compiling entry function 'kernel' for 'sm_90a'"),
    ("triton.pass_manager_failed", "PassManager::run succeeded"),
    # flash-attn's other checks: flashattn.gpu_unsupported reads the GPU generation
    (
        "flashattn.head_dim_unsupported",
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    ),
    (
        "flashattn.unavailable",
        "Using the `SDPA` attention implementation on multi-gpu setup with ROCM may lead to "
        "performance issues due to the FA backend. Disabling it to use alternative backends.",
    ),
    ("cutlass.problem_unsupported", "Got cutlass error: Error Internal at: 363"),
    ("cutlass.internal_error", "Got cutlass error: Error Not Supported at: 712"),
    # a minor-version difference DeepSpeed accepts (a working run's log)
    (
        "deepspeed.cuda_version_mismatch",
        "Installed CUDA version 12.6 does not match the version torch was compiled with 12.4 but "
        "since the APIs are compatible, accepting this combination",
    ),
    (
        "cppext.cuda_version_mismatch",
        "The detected CUDA version (12.1) has a minor version mismatch with the version that was "
        "used to compile PyTorch (12.4). Most likely this shouldn't be a problem.",
    ),
    ("apex.cuda_version_mismatch", "Compiling cuda extensions with"),
    ("deepspeed.op_jit_unavailable", "Loading extension module fused_adam..."),
    (
        "bnb.compiled_without_gpu",
        "CUDA SETUP: Loading binary /usr/lib/libbitsandbytes_cuda118.so...",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(
        FILE,
        KEYS,
        frozenset(
            {"dynamo", "inductor", "triton", "ptxas", "flashattn", "cutlass", "cppext", "apex"}
            | {"deepspeed", "bnb"}
        ),
    )
    assert set(BLAME) == KEYS


def test_no_compile_line_names_a_node() -> None:
    """A kernel the job's stack cannot build fails the same on every node: no entry acts on the
    node it was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_either_way_texts_do_not_decide_alone() -> None:
    """Texts the node's setup or a compiler bug prints as well stay at or below 50; restatements
    stay below a collective complaint; the recompile limit decides nothing."""
    for key in (
        "triton.libcuda_not_found",
        "triton.pass_manager_failed",
        "bnb.compiled_without_gpu",
    ):
        assert CATALOG.signatures[key].weight < 50, key
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key
    assert CATALOG.signatures["dynamo.recompile_limit"].weight == 0


def test_an_illegal_access_inside_a_kernel_stays_the_cuda_entries() -> None:
    """A fault inside a compiled kernel is the cuda.* entries' to decide, never this family's."""
    line = "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"
    assert not set(hits(line)) & KEYS
    assert "cuda.illegal_memory_access" in hits(line)
