"""Golden tests for the native-build family (signatures-toolchain.toml).

torch.utils.cpp_extension, ninja, nvcc and the host compiler print their own failure when a
job builds an extension at start (flash-attn, apex, DeepSpeed ops, a repository's CUDA layers).
A failed build is the job's toolchain, sources or build settings: the application's, naming no
node. Real lines (named beside each) must match; look-alike lines must not.
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

FAMILY_FILE = "signatures-toolchain.toml"
NAMESPACES = frozenset(
    {"cppext", "ninja", "nvcc", "gcc", "llvm", "ld", "make", "cmake", "setuptools"}
)

REQUIRED: dict[str, Blame] = {
    "cppext.build_failed": Blame.APPLICATION,
    "cppext.cuda_home_unset": Blame.APPLICATION,
    "ninja.build_stopped": Blame.APPLICATION,
    "nvcc.fatal": Blame.APPLICATION,
    "nvcc.unsupported_host_compiler": Blame.APPLICATION,
    "gcc.compiler_killed": Blame.APPLICATION,
    "llvm.fatal_error": Blame.APPLICATION,
    # mapp (session 23); golden lines in tests/domain/test_catalog_mined_mapp.py
    "gcc.header_not_found": Blame.APPLICATION,
    "ld.library_not_found": Blame.APPLICATION,
    "gcc.link_failed": Blame.APPLICATION,
    "make.target_failed": Blame.APPLICATION,
    "cmake.configure_failed": Blame.APPLICATION,
    "cmake.cuda_toolkit_not_found": Blame.APPLICATION,
    "setuptools.command_failed": Blame.APPLICATION,
    "nvcc.ptxas_fatal": Blame.APPLICATION,
    "gcc.compile_error": Blame.APPLICATION,
    "ld.undefined_reference": Blame.APPLICATION,
    "nvcc.tool_died": Blame.APPLICATION,
    "gcc.unrecognized_option": Blame.APPLICATION,
}

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_a_failed_build_names_no_node() -> None:
    """A build's failure is the software's: it must never exclude the node it ran on."""
    assert_no_node_action(FAMILY_KEYS)


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # zzangjinsun/NLSPN_ECCV20 issue #50 (cpp_extension's _write_ninja_file_and_compile_objects)
        "cppext.build_failed",
        "RuntimeError: Error compiling objects for extension",
        {"text": "Error compiling objects for extension"},
    ),
    (  # NVlabs/denoising-diffusion-gan issue #25 (cpp_extension's _run_ninja_build)
        "cppext.build_failed",
        "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
        {"text": "Command '['ninja', '-v']' returned non-zero exit status 1"},
    ),
    (  # junshengzhou/LevelSetUDF issue #7 (cpp_extension's _join_cuda_home)
        "cppext.cuda_home_unset",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install "
        "root.",
        {},
    ),
    (  # open-mmlab/mmdetection issue #2514 (ninja src/build.cc)
        "ninja.build_stopped",
        "ninja: build stopped: subcommand failed.",
        {},
    ),
    (  # ROCm/aiter issue #4986 (a MoE kernel gfx1250 cannot lower, under SGLang)
        "llvm.fatal_error",
        "LLVM ERROR: Do not know how to expand this operator's operand!",
        {"reason": "Do not know how to expand this operator's operand!"},
    ),
    (  # NVlabs/tiny-cuda-nn issue #239 (CUDA 11.3 for an RTX 4090)
        "nvcc.fatal",
        "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
        {"error": "Unsupported gpu architecture 'compute_89'"},
    ),
    (  # ninja-build/ninja issue #2595 (the CUDA toolkit's crt/host_config.h)
        "nvcc.unsupported_host_compiler",
        "/usr/include/crt/host_config.h:139:2: error: #error -- unsupported GNU version! gcc "
        "versions later than 11 are not supported! The nvcc flag '-allow-unsupported-compiler' can "
        "be used to override this version check; however, using an unsupported host compiler may "
        "cause compilation failure or incorrect run time execution. Use at your own risk.",
        {"compiler": "GNU"},
    ),
    (  # hoytech/strfry issue #41 (make -j4 on a 4 GB machine; GCC gcc.cc execute())
        "gcc.compiler_killed",
        "g++: fatal error: Killed signal terminated program cc1plus",
        {"signal": "Killed", "program": "cc1plus"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


def test_the_ninja_restatement_reads_as_the_application() -> None:
    """The launcher entry restates any CalledProcessError as a symptom; the build's own command
    reads as the application's, which outweighs it."""
    signals = {
        key: (blame, weight)
        for key, blame, weight in found(
            "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
            "status 1.",
            Source.LOGS,
        )
    }
    assert signals["cppext.build_failed"] == (Blame.APPLICATION, 60)
    assert max(w for _, w in signals.values()) == 60


NEGATIVE: list[tuple[str, str]] = [
    # a training script's own subprocess is not a build (launcher.subprocess_failed's)
    (
        "*",
        "subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero "
        "exit status 1.",
    ),
    ("*", "ninja: no work to do."),
    # a word that only ends like LLVM's prefix
    ("llvm.fatal_error", "pip: building wheel for llvmlite-LLVM ERROR: skipped"),
    ("*", "[1/12] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -c flash_api.cu"),
    ("*", "warning: nvcc: unsupported flag -fno-plt ignored"),
    ("*", "kernel: oom-kill:constraint=CONSTRAINT_NONE,task=cc1plus,pid=4242,uid=0"),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
