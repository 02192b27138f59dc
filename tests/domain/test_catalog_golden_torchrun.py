"""Golden tests for `signatures-torchrun.toml`: texts real torchrun runs printed that nothing matched.

Each golden line is a line of a committed bundle in tests/torchrun (made by
scripts/torchrun_incidents.py with real torch); it must yield its signal with its captures and
blame, the lines around it in the same run must not, and every entry of the file has one.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
FAMILY_FILE = "signatures-torchrun.toml"
FAMILY_KEYS = frozenset(
    tomllib.loads(
        (resources.files("autorecover.domain") / "data" / FAMILY_FILE).read_text(encoding="utf-8")
    )["signature"]
)
BUNDLES = Path(__file__).resolve().parents[1] / "torchrun"

# (bundle it comes from, line, signal, captures, blame)
GOLDEN: list[tuple[str, str, str, dict[str, str], Blame]] = [
    (
        "09-allreduce-shape-mismatch",
        "[default0]:  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:464] op.preamble.length <= op.nbytes. 32 vs 16. Received data size "
        "doesn't match expected size. Is there a distributed collective mismatch in your code?",
        "gloo.collective_mismatch",
        {"received": "32", "expected": "16"},
        Blame.APPLICATION,
    ),
]

# (signal, a line of the same runs that must NOT match it)
NEGATIVE: list[tuple[str, str]] = [
    (
        "gloo.collective_mismatch",
        "[default0]:terminate called after throwing an instance of 'gloo::EnforceNotMet'",
    ),
    (
        "gloo.collective_mismatch",
        "[default0]:[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/"
        "tcp/pair.cc:545] Read error [127.0.0.1]:50596: Connection reset by peer. This is "
        "typically caused by a remote worker hanging or bugs in the application. Check the logs "
        "of the remote worker before reporting an error. GLHF! \N{BEACH WITH UMBRELLA}\N{VARIATION SELECTOR-16}",
    ),
]


def _hits(line: str) -> dict[str, tuple[dict[str, str], Blame]]:
    return {
        sig.key: ({k: v for k, v in m.groupdict().items() if v is not None}, sig.blame)
        for sig, m in SCANNER.match_line(line)
    }


@pytest.mark.parametrize(("bundle", "line", "key", "captures", "blame"), GOLDEN)
def test_golden_line_yields_its_signal(
    bundle: str, line: str, key: str, captures: dict[str, str], blame: Blame
) -> None:
    hits = _hits(line)
    assert key in hits, f"{key} should match {line!r}; got {sorted(hits)}"
    got, got_blame = hits[key]
    assert {k: got[k] for k in captures} == captures
    assert got_blame is blame


@pytest.mark.parametrize(("bundle", "line", "key", "captures", "blame"), GOLDEN)
def test_golden_line_is_from_a_real_run(
    bundle: str, line: str, key: str, captures: dict[str, str], blame: Blame
) -> None:
    logs = [p.read_text(errors="replace").splitlines() for p in (BUNDLES / bundle).glob("logs/*")]
    assert any(line in lines for lines in logs)


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_line(key: str, line: str) -> None:
    assert key not in _hits(line), f"{key} must not match {line!r}"


def test_every_family_entry_has_a_golden_line() -> None:
    assert {key for _, _, key, _, _ in GOLDEN} == FAMILY_KEYS
    for key in FAMILY_KEYS:
        assert CATALOG.signatures[key].example
