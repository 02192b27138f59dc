"""What pasting does to a log, undone: typographic quotes, no-break spaces, a quote marker,
colour codes that lost their escape."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.parsing.lines import parse_line
from autorecover.parsing.pasting import uncoloured, unpasted
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


def test_colour_codes_whose_escape_a_page_dropped_are_taken_off() -> None:
    # vLLM on Ray, as pasted into an issue: the prefix and the level lose their colours
    pasted = (
        "[36m(RayWorkerWrapper pid=2871, ip=10.0.0.2)[0m ERROR 07-02 22:31:21 "
        "[worker_base.py:275] Error executing method 'load_model'.\n"
        "[2m[38;5;208m[1mWARNING[0m step 3\n"
    )
    out = uncoloured(pasted)
    assert out == (
        "(RayWorkerWrapper pid=2871, ip=10.0.0.2) ERROR 07-02 22:31:21 "
        "[worker_base.py:275] Error executing method 'load_model'.\nWARNING step 3\n"
    )
    parsed = parse_line(out.split("\n")[0], datetime(2026, 7, 2, tzinfo=UTC))
    assert parsed.via == "10.0.0.2" and parsed.at == datetime(2026, 7, 2, 22, 31, 21, tzinfo=UTC)


def test_bracketed_text_that_is_no_colour_code_stays() -> None:
    # no reset code: nothing was coloured; `[512m` has a three-digit last parameter; a whole
    # escape sequence is the scanner's to take off
    assert uncoloured("heap [36m]\n") == "heap [36m]\n"
    assert uncoloured("-Xmx[512m] [0m\n") == "-Xmx[512m] \n"
    assert uncoloured("\x1b[31merror\x1b[0m\n") == "\x1b[31merror\x1b[0m\n"


def test_a_pages_character_references_become_the_characters() -> None:
    # a log taken from a page's HTML source: what html.escape wrote, undone in one pass
    page = "raise TypeError(&quot;x&quot;) &lt;class &#39;RuntimeError&#39;&gt; a &amp;lt; b\n"
    assert unpasted(page) == "raise TypeError(\"x\") <class 'RuntimeError'> a &lt; b\n"
    # no numeric reference beyond the quotes: the line count stays
    assert unpasted("&lt;x&gt;&#10;y\n") == "<x>&#10;y\n"
    assert unpasted("R&amp;D\n") == "R&amp;D\n"  # an ampersand alone is no page's sign
    assert unpasted("can&#x27;t open file\n") == "can't open file\n"  # Python's html.escape
