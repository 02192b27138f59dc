"""Golden tests for the glibc heap-check family (signatures-glibc.toml).

glibc's allocator aborts the process with one fixed text when it finds its own bookkeeping
damaged (malloc_printerr in malloc/malloc.c): memory corrupted by the code running in the
process, the job's or a library's, so the application's. Real lines (named beside each) must
match, and lines that only mention malloc or free must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    assert_matches,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
)

FAMILY_FILE = "signatures-glibc.toml"
NAMESPACES = frozenset({"glibc", "libstdcxx", "ldso", "mkl", "tcmalloc"})  # C/C++ runtimes, loader

REQUIRED: dict[str, Blame] = {
    "glibc.heap_corruption": Blame.APPLICATION,
    "glibc.assert_failed": Blame.APPLICATION,
    "libstdcxx.terminate": Blame.APPLICATION,
    "libstdcxx.uncaught_exception": Blame.SYMPTOM,
    "libstdcxx.bad_alloc": Blame.APPLICATION,
    "tcmalloc.large_alloc_failed": Blame.APPLICATION,
    "glibc.stack_smashing": Blame.APPLICATION,
    "ldso.version_not_found": Blame.APPLICATION,
    "ldso.undefined_symbol": Blame.APPLICATION,
    "ldso.library_not_loadable": Blame.APPLICATION,
    "mkl.fatal_error": Blame.APPLICATION,
    "libstdcxx.logic_error": Blame.APPLICATION,  # mapp (session 23): test_catalog_mined_mapp.py
}

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_heap_corruption_names_no_node() -> None:
    """A heap check is the software's: it must never exclude the node it ran on."""
    assert_no_node_action(FAMILY_KEYS)


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # NVIDIA/nccl issue #1611 (nccl-tests all_reduce_perf on 10 GB200 nodes, NCCL 2.21.5)
        "glibc.heap_corruption",
        "free(): corrupted unsorted chunks",
        {"check": "free(): corrupted unsorted chunks"},
    ),
    (  # NVIDIA/nccl issue #1043 (nccl-tests on H100 nodes with NVLS, NCCL 2.19)
        "glibc.heap_corruption",
        "free(): invalid next size (fast)",
        {"check": "free(): invalid next size (fast)"},
    ),
    (  # glibc before 2.26 wraps the same text (__libc_message "*** Error in `%s': %s: 0x%s ***")
        "glibc.heap_corruption",
        "*** Error in `python': double free or corruption (fasttop): 0x00007f5d203fc2b0 ***",
        {"check": "double free or corruption (fasttop)"},
    ),
    (  # glibc malloc/malloc.c, _int_malloc (2.26 and later)
        "glibc.heap_corruption",
        "malloc(): unaligned tcache chunk detected",
        {"check": "malloc(): unaligned tcache chunk detected"},
    ),
    (  # glibc malloc/malloc.c, unlink_chunk
        "glibc.heap_corruption",
        "corrupted size vs. prev_size",
        {"check": "corrupted size vs. prev_size"},
    ),
    (  # bahlolab/superSTR issue #21 (glibc 2.26+: debug/fortify_fail.c, no program name)
        "glibc.stack_smashing",
        "*** stack smashing detected ***: <unknown> terminated",
        {"check": "stack smashing detected"},
    ),
    (  # gnss-sdr/gnss-sdr issue #794
        "glibc.stack_smashing",
        "*** stack smashing detected ***: terminated",
        {"check": "stack smashing detected"},
    ),
    (  # CK7/abawaca issue #7 (glibc before 2.26 names the program)
        "glibc.stack_smashing",
        "*** stack smashing detected ***: abawaca terminated",
        {"check": "stack smashing detected"},
    ),
    (  # dmtcp/dmtcp issue #790 (elf/dl-version.c, printed by ld.so for bash's preload)
        "ldso.version_not_found",
        "/bin/bash: /lib64/libstdc++.so.6: version `CXXABI_1.3.9' not found (required by "
        "/gpfs/fs1/home/a/ap248/ap248/dmtcp/lib/dmtcp/libdmtcp_ipc.so)",
        {
            "version": "CXXABI_1.3.9",
            "by": "/gpfs/fs1/home/a/ap248/ap248/dmtcp/lib/dmtcp/libdmtcp_ipc.so",
        },
    ),
    (  # antimatter15/alpaca.cpp issue #146
        "ldso.version_not_found",
        "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by ./chat)",
        {"version": "GLIBC_2.34", "by": "./chat"},
    ),
    (  # OpenGVLab/InternVL issue #467 (flash-attn built against another torch)
        "ldso.undefined_symbol",
        "/home/ubuntu/miniconda3/envs/llm/lib/python3.9/site-packages/flash_attn_2_cuda.cpython-39-"
        "x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops9_pad_enum4callERKNS_6TensorEN3c108Array"
        "RefINS5_6SymIntEEElNS5_8optionalIdEE",
        {"library": "flash_attn_2_cuda.cpython-39-x86_64-linux-gnu.so"},
    ),
    (  # LLaVA-VL/LLaVA-NeXT issue #308 (libcudart of CUDA 11 under a CUDA 12.4 image)
        "ldso.library_not_loadable",
        "libcudart.so.11.0: cannot open shared object file: No such file or directory",
        {"library": "libcudart.so.11.0", "error": "cannot open shared object file"},
    ),
    (  # DFHack/dfhack issue #164 (ld.so at start: elf/dl-load.c)
        "ldso.library_not_loadable",
        "hack/dfhack-run: error while loading shared libraries: libz.so.1: wrong ELF class: "
        "ELFCLASS64",
        {"library": "libz.so.1", "error": "wrong ELF class: ELFCLASS64"},
    ),
    (  # lvc/vtable-dumper issue #9 (dlopen of a 32-bit library)
        "ldso.library_not_loadable",
        "./libsample.so: wrong ELF class: ELFCLASS32",
        {"library": "libsample.so", "error": "wrong ELF class: ELFCLASS32"},
    ),
    (  # pytorch/pytorch issue #149762 (vterminate.cc names the type; its what() line decides)
        "libstdcxx.uncaught_exception",
        "terminate called after throwing an instance of 'c10::Error'",
        {"type": "c10::Error"},
    ),
    (  # hpcaitech/ColossalAI issue #318
        "libstdcxx.uncaught_exception",
        "terminate called after throwing an instance of 'c10::CUDAError'",
        {"type": "c10::CUDAError"},
    ),
    (  # tensorflow/tensor2tensor issue #192 (training ran out of host memory at evaluation)
        "libstdcxx.bad_alloc",
        "  what():  std::bad_alloc",
        {},
    ),
    (  # flashlight/wav2letter issue #277 (the terminate line names it too)
        "libstdcxx.bad_alloc",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        {},
    ),
    (  # jax-ml/jax issue #12550 (every host of a TPU pod, jax 0.3.19 with a mismatched libtpu)
        "tcmalloc.large_alloc_failed",
        "tcmalloc: large alloc 377396076847104 bytes == (nil) @  0x7fefdec9d680 0x7fefdecbe824",
        {"bytes": "377396076847104"},
    ),
    (  # facebookresearch/faiss issue #1226
        "mkl.fatal_error",
        "Intel MKL FATAL ERROR: Cannot load libmkl_avx2.so or libmkl_def.so.",
        {"error": "Cannot load libmkl_avx2.so or libmkl_def.so."},
    ),
    (  # ContinuumIO/anaconda-issues issue #698
        "mkl.fatal_error",
        "Intel MKL FATAL ERROR: Error on loading function mkl_blas_avx_xdcopy",
        {"error": "Error on loading function mkl_blas_avx_xdcopy"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


def test_a_heap_abort_reads_as_the_application() -> None:
    """A full scan of the bare glibc line finds the application's fault and nothing else."""
    assert found("free(): corrupted unsorted chunks", Source.LOGS) == [
        ("glibc.heap_corruption", Blame.APPLICATION, 55)
    ]


def test_the_terminate_handler_is_a_weak_symptom_its_what_line_decides() -> None:
    """libstdc++ names the uncaught exception's type; what failed is the what() line after it,
    read on its own: the terminate line never outweighs it (and is no collective complaint)."""
    assert found("terminate called after throwing an instance of 'c10::Error'",
                 Source.LOGS) == [("libstdcxx.uncaught_exception", Blame.SYMPTOM, 10)]  # fmt: skip
    what = "  what():  CUDA error: an illegal memory access was encountered"
    assert [s for s, _, _ in found(what, Source.LOGS)] == ["cuda.illegal_memory_access"]


NEGATIVE: list[tuple[str, str]] = [
    ("*", "malloc(): allocated 4096 bytes for the receive ring"),
    # a name that only starts like bad_alloc, and a caught one logged by the program
    ("libstdcxx.bad_alloc", "  what():  std::bad_array_new_length"),
    ("libstdcxx.uncaught_exception", "caught an instance of 'c10::Error' and recovered"),
    # tcmalloc's report of a large allocation that succeeded (gperftools ReportLargeAlloc)
    (
        "tcmalloc.large_alloc_failed",
        "tcmalloc: large alloc 1073741824 bytes == 0x55d5c7a4e000 @  0x7f1a2b3c4d5e 0x7f1a2b3c4f00",
    ),
    ("*", "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
    ("*", "free(): releasing 12 cached blocks"),
    ("*", "node1:1:2 [0] NCCL INFO free(): buffer pool drained"),
    # TensorFlow's dso_loader warning falls back to the CPU: not a failed load of the job
    # (ali-vilab/dreamtalk issue #32)
    (
        "ldso.library_not_loadable",
        "2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64]"
        " Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
        "open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/lib64-nvidia",
    ),
    # the NVIDIA driver's libraries are the node's or the container runtime's, not the image's
    (
        "ldso.library_not_loadable",
        "OSError: libcuda.so.1: cannot open shared object file: No such file or directory",
    ),
    ("ldso.library_not_loadable", "OSError: libnvidia-ml.so.1: cannot open shared object file"),
    # Open MPI's loader skipping an optional MCA component it could not load, and saying so
    # (opal/mca/base/mca_base_component_repository.c: "unable to open %s: %s (ignored)")
    (
        "ldso.library_not_loadable",
        "[dcs211.ccni.rpi.edu:118501] mca_base_component_repository_open: unable to open "
        "mca_plm_lsf: libbat.so: cannot open shared object file: No such file or directory "
        "(ignored)",
    ),
    (
        "ldso.undefined_symbol",
        "[ivy4:27085] mca_base_component_repository_open: unable to open mca_btl_usnic: "
        "/opt/ompi/lib/libmca_common_libfabric.so.0: undefined symbol: psmx_eq_open (ignored)",
    ),
    # RCCL's (and NCCL 2.19+'s) wording of the same INFO note (ROCm/rccl issue #1026)
    (
        "ldso.library_not_loadable",
        "z292:58192:58192 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : librccl-net.so: cannot "
        "open shared object file: No such file or directory : when loading librccl-net.so",
    ),
    # NCCL trying its optional network plugin, at INFO, in healthy runs too
    (
        "ldso.library_not_loadable",
        "gpu-a01:2041:2041 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
        "libnccl-net.so: cannot open shared object file: No such file or directory",
    ),
    # a model or file the job cannot find is not a symbol version
    ("ldso.version_not_found", "ERROR: model 'llama3' not found (required by config)"),
    ("ldso.undefined_symbol", "NameError: name 'undefined_symbol' is not defined"),
    ("glibc.stack_smashing", "compiled with -fstack-protector: stack smashing detection enabled"),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
