"""Smoke test of `scripts/bench_hardware.py`: it runs, on a small fleet, and reports the
numbers the benchmark document quotes. No timing is asserted here."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "bench_hardware.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_hardware", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_hardware"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_bench_runs_both_stores_and_writes_its_numbers(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.json"
    args = ["--nodes", "400", "--seconds", "3", "--mix-scale", "20", "--no-pin"]
    bench.main([*args, "--json", str(out), "--db-dir", str(tmp_path)])
    printed = capsys.readouterr().out
    assert "memory:" in printed and "sqlite (WAL, synchronous=FULL):" in printed
    data = json.loads(out.read_text())
    assert {r["store"].split()[0] for r in data["results"]} == {"memory", "sqlite"}
    for r in data["results"]:
        assert r["reports"] == 400 * 3  # each node once a virtual second
        assert r["signals"] > 0 and r["transitions"] > 0
        assert r["latency_p99_ms"] >= r["latency_p50_ms"] > 0
        ratio = r["reports_per_s"] / 1250  # printed rounded to one decimal
        assert r["ratio_to_required"] == pytest.approx(ratio, abs=0.051)
    assert data["machine"]["nproc"] >= 1


def test_percentiles(bench: ModuleType) -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench._pct(values, 50) == 51.0
    assert bench._pct(values, 99) == 99.0
    assert bench._pct([], 99) == 0.0
