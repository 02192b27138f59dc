"""Bundles from real multi-node torchrun runs (tests/torchrun) get their expected verdicts.

The bundles were made by `scripts/torchrun_incidents.py` with a pinned torch; a bundle made by
another torch version than the pin fails here, so changing the pin means regenerating. With
`AUTORECOVER_TORCHRUN=1` and torch in /work/torchenv (or `AUTORECOVER_TORCH_PYTHON`), one quick
scenario is run again for real and its fresh bundle checked too; with torch in the test
environment (the `training` dependency group), that run is on by default (~30 s).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autorecover.adapters.bundles import explain
from autorecover.domain.catalog import Catalog
from autorecover.parsing.scanning import Scanner
from conftest import TESTS

TORCHRUN = TESTS / "torchrun"
SCRIPT = TESTS.parent / "scripts" / "torchrun_incidents.py"
BUNDLES = sorted(p for p in TORCHRUN.iterdir() if (p / "expected.json").exists())

# Misses of the attribution rules (not of the catalog): the verdict the engine should give is
# in expected.json; these stay strict xfails until the rule named here exists.
ENGINE_MISSES: dict[str, str] = {}


def _pinned_version() -> str:
    """TORCH_VERSION from the generator, read without importing it (it needs torch)."""
    tree = ast.parse(SCRIPT.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "TORCH_VERSION" for t in node.targets
        ):
            assert isinstance(node.value, ast.Constant)
            return str(node.value.value)
    raise AssertionError("TORCH_VERSION not found in the generator")


def _verdict(bundle: Path, catalog: Catalog, scanner: Scanner) -> tuple[dict[str, object], str]:
    verdict = explain(bundle, catalog, scanner).verdict
    got = {
        "cause": str(verdict.cause),
        "suspect_nodes": sorted(verdict.suspect_nodes),
        "action": str(verdict.action),
    }
    return got, verdict.summary


def _want(bundle: Path) -> dict[str, object]:
    expected = json.loads((bundle / "expected.json").read_text())
    return {
        "cause": expected["cause"],
        "suspect_nodes": sorted(expected["suspect_nodes"]),
        "action": expected["action"],
    }


def _params() -> list[object]:
    out: list[object] = []
    for b in BUNDLES:
        reason = ENGINE_MISSES.get(b.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(b, id=b.name, marks=marks))
    return out


def test_every_scenario_has_a_bundle() -> None:
    # runs.txt has a line per scenario; an incident's ends with the verdict it expects
    runs = (TORCHRUN / "runs.txt").read_text().splitlines()
    incidents = [line.split(": ", 1)[0] for line in runs if " -> " in line]
    assert len(incidents) >= 16
    assert [b.name for b in BUNDLES] == incidents


@pytest.mark.parametrize("bundle", _params())
def test_verdict_matches_expected(bundle: Path, catalog: Catalog, scanner: Scanner) -> None:
    got, summary = _verdict(bundle, catalog, scanner)
    assert got == _want(bundle), summary


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_evidence_points_at_real_lines(bundle: Path, catalog: Catalog, scanner: Scanner) -> None:
    verdict = explain(bundle, catalog, scanner).verdict
    for e in verdict.evidence:
        if e.line == 0:  # derived evidence (a node that stopped progressing)
            continue
        name = "job.json" if e.source.value == "job" else f"{e.source}/{e.node}.log"
        lines = (bundle / name).read_text(errors="replace").splitlines()
        assert e.text in lines[e.line - 1]


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_bundle_made_by_the_pinned_torch(bundle: Path) -> None:
    made_by = json.loads((bundle / "expected.json").read_text())["generated_by"]
    assert made_by == {"torch": _pinned_version(), "script": "scripts/torchrun_incidents.py"}


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_bundle_is_a_real_run(bundle: Path) -> None:
    """Real times and a torchrun log for every node that ran; no invented system log."""
    job = json.loads((bundle / "job.json").read_text())
    assert job["started"] <= job["collected"]
    assert job["ended"] is None or job["started"] <= job["ended"] <= job["collected"]
    assert (job["ended"] is None) == (job["state"] == "RUNNING")
    assert not (bundle / "system").exists()
    logs = {p.stem for p in (bundle / "logs").glob("*.log")}
    assert logs <= set(job["nodes"]) and logs
    texts = [(bundle / "logs" / f"{n}.log").read_text() for n in logs]
    assert all(texts)
    assert any("torch/distributed" in t for t in texts)  # torchrun's own lines, not made up


def _torch_python() -> Path | None:
    """A Python with torch: `AUTORECOVER_TORCH_PYTHON`, else this one when torch is installed
    here (the `training` dependency group), else /work/torchenv's."""
    named = os.environ.get("AUTORECOVER_TORCH_PYTHON")
    if named is None and _TORCH_HERE:
        return Path(sys.executable)
    path = Path(named or "/work/torchenv/bin/python")
    return path if path.exists() else None


_TORCH_HERE = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(
    _torch_python() is None or not (_TORCH_HERE or os.environ.get("AUTORECOVER_TORCHRUN") == "1"),
    reason="needs torch here, or AUTORECOVER_TORCHRUN=1 and torch in /work/torchenv",
)
def test_regenerated_scenario_gets_its_verdict(
    tmp_path: Path, catalog: Catalog, scanner: Scanner
) -> None:
    python = _torch_python()
    assert python is not None
    name = "01-worker-sigkill"
    subprocess.run(
        [str(python), str(SCRIPT), "--out", str(tmp_path), "--only", name],
        check=True,
        timeout=300,
    )
    bundle = tmp_path / name
    got, summary = _verdict(bundle, catalog, scanner)
    assert got == _want(bundle) == _want(TORCHRUN / name), summary
