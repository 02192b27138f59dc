"""Golden lines from GPU debuggers' reports (signatures-gpudebug.toml): compute-sanitizer's
(and cuda-memcheck's) memcheck, initcheck and racecheck findings, its API-error reports and error
summary, and cuda-gdb's stop on a CUDA exception.

Each line is a real one from the public thread cited beside it, or, where none was found, the
tool's format rendered (said so beside it); every line goes through the scanner's own matcher.
Blame is pinned to what a careful SRE reads from the one line: a debugger's finding is the
program's own fault on the GPU (every cuda-gdb exception, "Device Hardware Stack Overflow"
included: the program's calls overflowed the GPU's call stack); an API error the sanitizer
reports may be one the program handles, and its summary restates the reports above it
(symptoms). Zero-error summaries and racecheck's possible hazards stay unread.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-gpudebug.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "sanitizer.invalid_access": Blame.APPLICATION,
    "sanitizer.uninitialized_read": Blame.APPLICATION,
    "sanitizer.race_hazard": Blame.APPLICATION,
    "sanitizer.api_error": Blame.SYMPTOM,
    "sanitizer.error_summary": Blame.SYMPTOM,
    "cudagdb.exception": Blame.APPLICATION,
    "cudagdb.unknown_exception": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: frozenset({"sanitizer", "cudagdb"})}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # NVIDIA/cccl issue #1898 (CUB's test under memcheck), issue #1229 (shared memory)
    ("  ========= Invalid __global__ read of size 4 bytes", "sanitizer.invalid_access",
     {"space": "__global__", "access": "read", "size": "4"}),
    ("========= Invalid __shared__ read of size 16 bytes", "sanitizer.invalid_access",
     {"space": "__shared__", "size": "16"}),
    # zama-ai/concrete-core issue #332
    ("========= Invalid __global__ read of size 8 bytes", "sanitizer.invalid_access", {"size": "8"}),
    # NVIDIA/cccl issues #2104 and #1891 (initcheck)
    ("========= Uninitialized __global__ memory read of size 4 bytes",
     "sanitizer.uninitialized_read", {"space": "__global__", "size": "4"}),
    ("========= Uninitialized __global__ memory read of size 8 bytes",
     "sanitizer.uninitialized_read", {"size": "8"}),
    # ORNL/HeCBench issue #264 (racecheck); NVIDIA/cccl issue #1903 (CUB, the Write side first)
    ("========= Error: Race reported between Read access at SSSP_gpu(const Node *, const Edge *, "
     "int *, int *, const int *, int *, const int *, int *, int *, int *, const int *, int *)+0x140 "
     "in main.cu:205", "sanitizer.race_hazard", {"first": "Read"}),
    ("  ========= Error: Race reported between Write access at void cub::CUB_200500_600_700_800_NS::"
     "BlockStore<float, (int)64, (int)1, (cub::CUB_200500_600_700_800_NS::BlockStoreAlgorithm)4, "
     "(int)1, (int)1, (int)0>::StoreInternal<(cub::CUB_200500_600_700_800_NS::BlockStoreAlgorithm)4, "
     "(int)0>::Store<float *>(T1, float (&)[1], int)+0xa70 in "
     "/home/coder/cccl/cub/cub/block/block_store.cuh:980", "sanitizer.race_hazard",
     {"first": "Write"}),
    # lattice/quda issue #222 (cuda-memcheck), StanfordLegion/realm issue #285 (compute-sanitizer),
    # cwpearson/stencil issue #21 (its title, cut by GitHub: an error the program expects)
    ("========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA "
     "API call to cuPointerGetAttribute. ", "sanitizer.api_error",
     {"error": "CUDA_ERROR_INVALID_VALUE", "code": "1", "text": "invalid argument",
      "call": "cuPointerGetAttribute"}),
    ("========= Program hit CUDA_ERROR_NOT_PERMITTED (error 800) due to \"operation not permitted\" "
     "on CUDA API call to cuMemCreate.", "sanitizer.api_error", {"code": "800", "call": "cuMemCreate"}),
    ("4-rank run under `cuda-memcheck` on css-host-yz-20 can fail with `Program hit "
     "cudaErrorPeerAccessAlreadyEnabled (error 704) due to \"peer access is already enabled\" on "
     "CUDA API call to cudaDeviceEnable", "sanitizer.api_error",
     {"error": "cudaErrorPeerAccessAlreadyEnabled"}),
    # NVIDIA/cccl issue #8288
    ("  ========= ERROR SUMMARY: 1 error", "sanitizer.error_summary", {"errors": "1"}),
    # compute-sanitizer's summary after several reports, rendered
    ("========= ERROR SUMMARY: 30335 errors", "sanitizer.error_summary", {"errors": "30335"}),
    # kysucix/gipuma issue #18 (older cuda-gdb: "Program received signal", the exception line first)
    ("Program received signal CUDA_EXCEPTION_5, Warp Out-of-range Address.", "cudagdb.exception",
     {"code": "5", "name": "Warp Out-of-range Address"}),
    ("CUDA Exception: Warp Out-of-range Address", "cudagdb.exception",
     {"name": "Warp Out-of-range Address"}),
    # turtlecoin/violetminer issue #43, ferdymercury/RayTraceDicom issue #2, tile-ai/tilelang pull
    # request #3249 (quoting an NVIDIA forum answer), apuaaChen/vectorSparse issue #2 (its title)
    ("Thread 6 \"violetminer\" received signal CUDA_EXCEPTION_5, Warp Out-of-range Address.",
     "cudagdb.exception", {"code": "5"}),
    ("Thread 1 \"RayTraceDicom\" received signal CUDA_EXCEPTION_1, Lane Illegal Address.",
     "cudagdb.exception", {"code": "1", "name": "Lane Illegal Address"}),
    ("Thread 1 \"benchmark.exe\" received signal CUDA_EXCEPTION_14, Warp Illegal Address.",
     "cudagdb.exception", {"code": "14", "name": "Warp Illegal Address"}),
    ("received signal CUDA_EXCEPTION_6, Warp Misaligned Address.", "cudagdb.exception",
     {"code": "6", "name": "Warp Misaligned Address"}),
    # cuda-gdb documentation, CUDA Exception Codes, rendered: the GPU's call stack the program's
    # divergent calls overflowed (not a hardware fault), and a device-side assert
    ("Thread 1 \"train\" received signal CUDA_EXCEPTION_3, Device Hardware Stack Overflow.",
     "cudagdb.exception", {"code": "3", "name": "Device Hardware Stack Overflow"}),
    ("Thread 1 \"train\" received signal CUDA_EXCEPTION_12, Warp Assert.", "cudagdb.exception",
     {"code": "12", "name": "Warp Assert"}),
    # the same table's code 0, rendered
    ("Thread 1 \"train\" received signal CUDA_EXCEPTION_0, Device Unknown Exception.",
     "cudagdb.unknown_exception", {}),
]  # fmt: skip

# (key, healthy look-alike it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # clean runs' summaries, as CI scripts assert them (rendered)
    ("sanitizer.error_summary", "========= ERROR SUMMARY: 0 errors"),
    ("sanitizer.race_hazard",
     "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"),
    # ORNL/HeCBench issue #133: racecheck's Warning severity (a possible hazard), left unread
    ("sanitizer.race_hazard",
     "========= Warning: Race reported between Read access at compress(const unsigned int *, const "
     "unsigned int *, uint2 *, int)+0x260"),
    # a program's own count of wrong values, not the sanitizer's (rendered from nccl-tests'
    # summary wording)
    ("sanitizer.error_summary", "# Out of bounds values : 0 OK"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_debugger_output_reads_as_nothing() -> None:
    for line in (
        "========= COMPUTE-SANITIZER",
        "========= ERROR SUMMARY: 0 errors",
        "========= LEAK SUMMARY: 0 bytes leaked in 0 allocations",
        "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
    ):
        assert not set(hits(line)) & FAMILY, line


def test_no_debugger_finding_names_a_node() -> None:
    """A debugger reports the program's use of the GPU: none of its lines acts on the node, and
    none is a hardware finding (cuda-gdb's 'Hardware Stack Overflow' names the GPU's call stack
    the program overflowed)."""
    assert_no_node_action(FAMILY)
    for key in sorted(FAMILY):
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_a_sanitizer_s_api_error_is_not_read_as_the_job_s_failure() -> None:
    """The sanitizer reports every failing CUDA call, handled or not: the error's name inside its
    report is not read as the job's CUDA error."""
    line = (
        'Program hit cudaErrorPeerAccessAlreadyEnabled (error 704) due to "peer access is already '
        'enabled" on CUDA API call to cudaDeviceEnablePeerAccess.'
    )
    blames = {CATALOG.signatures[k].blame for k in hits(line)}
    assert Blame.APPLICATION not in blames, hits(line)
