"""The agent scans CRI records with their prefixes on (only kept lines lose them): every
signature of the catalog must find its example line framed as it finds it bare."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from autorecover.adapters.host.pod_logs import CriDecoder
from autorecover.agent.logs.excerpts import marks
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Source
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
REF = datetime(2026, 3, 2, tzinfo=UTC)
EXAMPLES = sorted(
    (s.key, s.example)
    for s in CATALOG.active_signatures()
    if s.example and Source.LOGS in s.sources
)


def signals(data: bytes) -> set[str]:
    result = SCANNER.scan(io.BytesIO(data), node="n1", source=Source.LOGS, reference=REF)
    return {f.signal for f in result.findings}


def test_the_catalog_has_examples_to_check() -> None:
    assert len(EXAMPLES) > 200


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_every_example_is_found_the_same_framed(stream: str) -> None:
    differ = []
    for key, example in EXAMPLES:
        bare = "".join(f"{line}\n" for line in example.splitlines()).encode()
        framed = b"".join(
            f"2026-03-02T09:58:00.123456789Z {stream} F ".encode() + line
            for line in bare.splitlines(keepends=True)
        )
        assert CriDecoder().feed(framed) == bare
        if signals(bare) != signals(framed):
            differ.append((key, sorted(signals(bare) ^ signals(framed))))
    assert differ == []


def test_partial_records_are_noticed() -> None:
    assert marks(b"2026-03-02T09:58:00Z stdout F whole\n") == ([], False)
    assert marks(b"2026-03-02T09:58:00Z stderr P half\n")[1] is True
    ends, partial = marks(b'2026-03-02T09:58:00Z stdout F {"telemetry":"autorecover/1"}\n')
    assert len(ends) == 1 and not partial
