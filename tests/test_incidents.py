"""Every sample and corpus incident gets its expected verdict (regression tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autorecover.adapters.bundles import explain
from autorecover.domain.catalog import Catalog
from autorecover.parsing.scanning import Scanner
from conftest import CORPUS, SAMPLES


def _bundles(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "expected.json").exists())


ALL = _bundles(SAMPLES) + (_bundles(CORPUS) if CORPUS.exists() else [])


def test_there_are_enough_incidents() -> None:
    assert len(_bundles(SAMPLES)) == 8
    assert CORPUS.exists() and len(_bundles(CORPUS)) >= 30


@pytest.mark.parametrize("bundle", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_verdict_matches_expected(bundle: Path, catalog: Catalog, scanner: Scanner) -> None:
    expected = json.loads((bundle / "expected.json").read_text())
    verdict = explain(bundle, catalog, scanner).verdict
    got = {
        "cause": str(verdict.cause),
        "suspect_nodes": sorted(verdict.suspect_nodes),
        "action": str(verdict.action),
    }
    want = {k: expected[k] for k in ("cause", "action")}
    want["suspect_nodes"] = sorted(expected["suspect_nodes"])
    assert got == want, verdict.summary


@pytest.mark.parametrize("bundle", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_evidence_points_at_real_lines(bundle: Path, catalog: Catalog, scanner: Scanner) -> None:
    verdict = explain(bundle, catalog, scanner).verdict
    if verdict.cause.value == "hardware":
        assert verdict.evidence, "a hardware verdict must show its proof"
        first = verdict.evidence[0]
        assert first.node in verdict.suspect_nodes or any(
            n in first.text for n in verdict.suspect_nodes
        )
    for e in verdict.evidence:
        if e.line == 0:  # derived evidence (a node that stopped progressing)
            continue
        name = "job.json" if e.source.value == "job" else f"{e.source}/{e.node}.log"
        lines = (bundle / name).read_text(errors="replace").splitlines()
        assert 1 <= e.line <= len(lines)
        assert e.text in lines[e.line - 1]
