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
    CATALOG,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
    found,
)

FAMILY_FILE = "signatures-glibc.toml"
NAMESPACES = frozenset({"glibc", "libstdcxx"})  # the C and C++ runtimes' abort texts

REQUIRED: dict[str, Blame] = {
    "glibc.heap_corruption": Blame.APPLICATION,
    "glibc.assert_failed": Blame.APPLICATION,
    "libstdcxx.terminate": Blame.APPLICATION,
}

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_heap_corruption_names_no_node() -> None:
    """A heap check is the software's: it must never exclude the node it ran on."""
    for key in FAMILY_KEYS:
        assert CATALOG.signatures[key].node_action.value == "none", key


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
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


def test_a_heap_abort_reads_as_the_application() -> None:
    """A full scan of the bare glibc line finds the application's fault and nothing else."""
    assert found("free(): corrupted unsorted chunks", Source.LOGS) == [
        ("glibc.heap_corruption", Blame.APPLICATION, 55)
    ]


NEGATIVE: list[tuple[str, str]] = [
    ("*", "malloc(): allocated 4096 bytes for the receive ring"),
    ("*", "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
    ("*", "free(): releasing 12 cached blocks"),
    ("*", "node1:1:2 [0] NCCL INFO free(): buffer pool drained"),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
