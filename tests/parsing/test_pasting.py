"""What pasting does to a log, undone: typographic quotes, no-break spaces, a quote marker."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.parsing.pasting import unpasted
from autorecover.parsing.scanning import Scanner

SCANNER = Scanner(builtin_catalog())


def test_typographic_quotes_and_spaces_become_what_the_program_printed() -> None:
    pasted = "[rank0]: NCCL error: unhandled system error, NCCL version 2.18.1\u00a0“x” ‘y’"
    assert (
        unpasted(pasted)
        == "[rank0]: NCCL error: unhandled system error, NCCL version 2.18.1 \"x\" 'y'"
    )


def test_a_line_the_quotes_hid_reads_again() -> None:
    line = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure ‘out of memory’"
    before = {s.key for s, _ in SCANNER.match_line(line.split("\n")[-1])}
    after = {s.key for s, _ in SCANNER.match_line(unpasted(line).split("\n")[-1])}
    assert after - before


def test_a_quoted_paste_loses_its_markers_and_keeps_its_lines() -> None:
    pasted = '> [rank1]: Traceback (most recent call last):\n>   File "x.py", line 3\n>\n> RuntimeError: boom\n'
    assert (
        unpasted(pasted)
        == '[rank1]: Traceback (most recent call last):\n  File "x.py", line 3\n\nRuntimeError: boom\n'
    )


def test_a_log_that_prints_some_lines_with_a_marker_keeps_them() -> None:
    log = "step 1\n> shell continuation\nstep 2\n"
    assert unpasted(log) is log


def test_plain_text_is_returned_as_it_is() -> None:
    text = "Mar  2 11:31:52 gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen off the bus.\n"
    assert unpasted(text) is text


@pytest.mark.parametrize("catalog", [builtin_catalog()])
def test_every_signature_still_reads_its_example_with_plain_quotes(catalog: Catalog) -> None:
    # where a program prints typographic quotes, the signature must take the ASCII ones too
    for sig in catalog.active_signatures():
        if sig.example and any(c in sig.example for c in "\u2018\u2019\u201c\u201d"):
            assert sig.compiled().search(unpasted(sig.example)), sig.key


@given(st.text(max_size=300))
def test_never_raises_and_keeps_the_line_count(text: str) -> None:
    assert unpasted(text).count("\n") == text.count("\n")
