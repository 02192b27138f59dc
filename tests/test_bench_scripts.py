"""Smoke test of the benchmark scripts: the log generator, the scanning side of the bench, and
how the CLI bench reads `python -X importtime`.

No timing is asserted here; `scripts/bench_scan.py` and `scripts/bench_cli.py` measure, this
only checks that what they measure is sound.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
SIZE = 200 * 1024


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return _load("gen_mixed_log")


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load("bench_scan")


@pytest.fixture(scope="module")
def bench_cli() -> ModuleType:
    return _load("bench_cli")


@pytest.fixture(scope="module")
def small_log(gen: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    path = tmp_path_factory.mktemp("bench") / "mixed.log"
    return path, gen.generate(path, SIZE, fault_every=50)


def test_sizes_parse_in_binary_units(gen: ModuleType) -> None:
    assert gen.parse_size("1G") == 1 << 30
    assert gen.parse_size("100M") == 100 << 20
    assert gen.parse_size("200K") == 200 << 10
    assert gen.parse_size("1GiB") == 1 << 30
    assert gen.parse_size("4096") == 4096
    with pytest.raises(ValueError):
        gen.parse_size("lots")


def test_generated_log_has_the_size_and_the_mix(small_log: tuple[Path, Any]) -> None:
    path, stats = small_log
    size = path.stat().st_size
    assert SIZE - 1024 < size <= SIZE  # whole lines, at most one line short
    assert stats.bytes == size
    text = path.read_text(encoding="ascii")
    assert text.endswith("\n")
    assert text.count("\n") == stats.lines
    for shape in (
        "[titan]",
        " NCCL INFO ",
        '{"telemetry":"autorecover/1"',
        " systemd[1]: ",
        "] mlx5_core ",  # dmesg -T
        " INFO [train.py:",  # Python logging
    ):
        assert shape in text, shape
    # The rare faults, made frequent here so a small file holds every kind.
    assert set(stats.faults) == {"xid", "nccl_warn", "traceback", "link_down"}
    for fault in ("NVRM: Xid (PCI:", " NCCL WARN NET/IB : Got completion", "RuntimeError: "):
        assert fault in text, fault
    assert "Port: 1 Link DOWN" in text


def test_generation_is_deterministic_and_prefix_stable(gen: ModuleType, tmp_path: Path) -> None:
    a = gen.generate(tmp_path / "a.log", 64 * 1024, fault_every=50)
    b = gen.generate(tmp_path / "b.log", 64 * 1024, fault_every=50)
    c = gen.generate(tmp_path / "c.log", 32 * 1024, fault_every=50)
    assert a.path.read_bytes() == b.path.read_bytes()
    assert a.path.read_bytes().startswith(c.path.read_bytes())
    assert not (tmp_path / "a.log.part").exists()


def test_scan_file_reads_the_whole_log(bench: ModuleType, small_log: tuple[Path, Any]) -> None:
    path, stats = small_log
    text = path.read_text(encoding="ascii")
    result = bench.scan_file(path)
    assert result["bytes"] == path.stat().st_size
    assert result["lines"] == stats.lines
    assert result["progress_records"] == text.count('{"telemetry"')
    assert result["findings"] >= 1
    assert sum(result["signals"].values()) == result["findings"]
    assert result["anchors"] >= 1


def test_grep_command_spells_the_anchors_for_ere(bench: ModuleType) -> None:
    f = Path("f.log")
    assert bench.grep_command([(b"Xid", False), (b"a.b(c)", False)], f) == [
        "grep",
        "-cE",
        r"Xid|a\.b\(c\)",
        "f.log",
    ]
    assert bench.grep_command([(b"error", True)], f) == ["grep", "-ciE", "error", "f.log"]
    assert bench.grep_command([(b"Xid", False), (b"t-o", True)], f) == [
        "grep",
        "-cE",
        "-e",
        "Xid",
        "-e",
        "[tT]-[oO]",
        "f.log",
    ]


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep is not installed")
def test_grep_counts_the_lines_the_prefilter_selects(
    bench: ModuleType, small_log: tuple[Path, Any]
) -> None:
    path, _ = small_log
    anchors = bench.Scanner(bench.load_catalog()).anchors
    expected = 0
    for line in path.read_bytes().splitlines():
        low = line.lower()
        if any((a.lower() in low) if ci else (a in line) for a, ci in anchors):
            expected += 1
    out = subprocess.run(
        bench.grep_command(anchors, path),
        env={**os.environ, "LC_ALL": "C"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    assert int(out.stdout) == expected


IMPORTTIME = """\
import time: self [us] | cumulative | imported package
import time:       120 |        120 |     _io
import time:      1500 |      46700 |   click
import time:       900 |       1300 |     fastapi.routing
import time:      2000 |      80000 | autorecover.cli.main
Traceback: not an importtime line
"""


def test_cli_bench_reads_importtime(bench_cli: ModuleType) -> None:
    costs = bench_cli.parse_importtime(IMPORTTIME)
    assert [(c.module, c.self_us, c.cumulative_us, c.depth) for c in costs] == [
        ("_io", 120, 120, 2),
        ("click", 1500, 46700, 1),
        ("fastapi.routing", 900, 1300, 2),
        ("autorecover.cli.main", 2000, 80000, 0),
    ]
    assert bench_cli.heavy_imported(costs) == ["fastapi"]
    assert bench_cli.heavy_imported(bench_cli.parse_importtime("")) == []


def test_cli_bench_caches_bytecode_outside_the_tree(
    bench_cli: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    as_is = bench_cli.child_env(None)
    assert as_is["PYTHONDONTWRITEBYTECODE"] == "1" and "PYTHONPYCACHEPREFIX" not in as_is
    assert bench_cli.bytecode(as_is) == "not written"
    cached = bench_cli.child_env("/tmp/pyc")
    assert "PYTHONDONTWRITEBYTECODE" not in cached and cached["PYTHONPYCACHEPREFIX"] == "/tmp/pyc"
    assert bench_cli.bytecode(cached) == "cached"


def test_the_intake_bench_counts_a_batch_recorded_when_fewer_wait_than_came_after_it() -> None:
    bench_intake = _load("bench_intake")
    post, poll = bench_intake.Post, bench_intake.Poll
    posts = [post(0.0, 1.0, 202, 0), post(0.5, 2.0, 202, 1), post(0.6, 2.5, 429, 0)]
    polls = [poll(1.5, 1), poll(2.2, 2), poll(3.0, 1), poll(4.0, 0)]
    # at 1.5 one was acknowledged and one waits: none recorded; at 2.2 two acknowledged, two
    # wait; at 3.0 one waits: the first is recorded; at 4.0 both.
    assert bench_intake.recorded_times(posts, polls) == [3.0, 4.0]
    steady = list(bench_intake.paced(nodes=4, interval_s=2.0, seconds=4.0))
    assert [round(at, 2) for at, _, _ in steady] == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    assert [n for _, _, n in steady] == [1, 0, 0, 0, 0, 0, 0, 0]  # one batch in ten: a signal


def test_catalog_coverage_counts_each_family_through_the_scanner(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    coverage = _load("catalog_coverage")
    assert coverage.main([]) == 0
    table = capsys.readouterr().out
    assert "| **nccl** | all |" in table and "| **cuda** | all |" in table
    # A family of one known and one unknown text: counted by the scanner's own matcher.
    (tmp_path / "demo.toml").write_text(
        'family = "demo"\n'
        '[[text]]\nsource = "a.c"\nformat = "%s"\n'
        'text = "NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen off the bus."\n'
        '[[text]]\nsource = "a.c"\nformat = "%s"\ntext = "all is well"\n'
    )
    assert coverage.main(["--emitters", str(tmp_path), "--missing"]) == 0
    out = capsys.readouterr().out
    assert "| **demo** | all | **2** | **1** (50 %) | **0** |" in out  # kernel.xid is info
    assert "Not matched:\n- demo `a.c`: %s" in out


def test_every_cuda_and_nccl_error_reads_alike_whatever_program_carries_it() -> None:
    coverage = _load("catalog_coverage")
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.parsing.scanning import Scanner

    scanner = Scanner(builtin_catalog())
    rows = coverage.carried(
        coverage.load(coverage.EMITTERS), coverage.load_carriers(coverage.EMITTERS), scanner
    )
    carriers = {row.carrier.source for row in rows}
    assert len(carriers) >= 10 and len(rows) > 700
    assert [row.line for row in rows if row.carried is not row.own] == []
    # The NGC entrypoint upper-cases the first letter; the device fault still reads as one.
    ngc = {row.line: row.carried for row in rows if row.line.startswith("   [[ ")}
    assert ngc["   [[ System not yet initialized (error 802) ]]"].value == "hardware"
    assert {row.carrier.family for row in rows} >= {"cuda", "nccl", "errno"}


def test_catalog_coverage_reports_a_carrier_that_reads_a_text_otherwise(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    coverage = _load("catalog_coverage")
    (tmp_path / "demo.toml").write_text(
        'family = "demo"\n'
        '[[text]]\nsource = "cudaError_t 999 cudaErrorUnknown"\nformat = "CUDA error: %s"\n'
        'text = "CUDA error: unknown error"\n'
        '[[carrier]]\nsource = "alike"\nformat = "THCudaCheck FAIL file=a.cu line=1 error={code} : {text}"\n'
        '[[carrier]]\nsource = "otherwise"\nformat = "oops {code}: {Text}"\n'
    )
    assert coverage.main(["--emitters", str(tmp_path), "--missing"]) == 0
    out = capsys.readouterr().out
    assert "| demo | alike | 1 | 1 |" in out and "| demo | otherwise | 1 | 0 |" in out
    assert "- `oops 999: Unknown error`: None (own line: hardware)" in out


def test_node_logs_bench_writes_output_framed_as_a_kubelet_does() -> None:
    from autorecover.adapters.host.pod_logs import CriDecoder

    bench = _load("bench_node_logs")
    raw = b'[rank0]: step 1\n{"telemetry":"autorecover/1"}\nNVRM: Xid 79\n'
    framed = bench.cri_framed(raw)
    assert framed.count(b" stdout F ") == 3
    assert CriDecoder().feed(framed) == raw


def test_the_incidents_bench_fills_a_history_the_engine_reads_as_asked(tmp_path: Path) -> None:
    from autorecover.adapters.store.sqlite import SqliteStore
    from autorecover.server import views

    bench = _load("bench_incidents")
    url = f"sqlite:///{tmp_path / 'engine.db'}"
    transitions = bench.fill(url, incidents=30, nodes=4, still_open=3)
    assert transitions == 27 * 5 + 3
    store = SqliteStore(tmp_path / "engine.db")
    try:
        every = views.hardware_incidents(store)
        assert len(every) == 30 and sum(i.state == "open" for i in every) == 3
        assert [i.id for i in views.hardware_incidents(store, open_only=True)] == [
            i.id for i in every[-3:]
        ]  # the last three, each its node's latest, are the open ones
    finally:
        store.close()
