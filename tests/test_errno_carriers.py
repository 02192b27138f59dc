"""An errno reads the same whatever program prints it (sweep 8, the errno family).

`scripts/catalog_emitters/errno.toml` lists every Linux errno a training job can meet, as
CPython 3 prints it, and the other programs that carry the same strerror text: CPython 2's
IOError and socket.error, Rust's io::Error, PyTorch's MapAllocator, Go's PathError and OpError,
coreutils, bash and Node.js. `scripts/catalog_coverage.py` renders each text through each
carrier; here every rendering of an errno the catalog reads must read as CPython's line does.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def _errno_rows() -> list[Any]:
    coverage = _load("catalog_coverage")
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.parsing.scanning import Scanner

    scanner = Scanner(builtin_catalog())
    rows = coverage.carried(
        coverage.load(coverage.EMITTERS), coverage.load_carriers(coverage.EMITTERS), scanner
    )
    return [row for row in rows if row.carrier.family == "errno"]


def test_every_errno_reads_alike_whatever_program_carries_it() -> None:
    rows = _errno_rows()
    assert len({row.carrier.source for row in rows}) >= 10 and len(rows) > 100
    assert [row.line for row in rows if row.carried is not row.own] == []


def test_the_carriers_read_the_limits_and_the_network_as_cpython_does() -> None:
    lines = {row.line: row.carried for row in _errno_rows()}
    # Go lower-cases the text; Rust and PyTorch put the number after it.
    assert lines["open /data/shards/train-00017.tar: too many open files"].value == "application"
    assert lines["Error: Too many open files (os error 24)"].value == "application"
    assert lines["dial tcp 10.0.0.1:29500: connect: connection refused"].value == "symptom"
    assert lines["Error: Stale file handle (os error 116)"].value == "transient"
    mmap = "RuntimeError: unable to mmap 4294967296 bytes from file </torch_28471_3982737164_0>: "
    assert lines[mmap + "Cannot allocate memory (12)"].value == "application"


def test_healthy_limit_lines_stay_unmatched() -> None:
    coverage = _load("catalog_coverage")
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.parsing.scanning import Scanner

    scanner = Scanner(builtin_catalog())
    healthy = [
        t.text
        for t in coverage.load(coverage.EMITTERS)
        if t.family == "errno" and "(healthy)" in t.source
    ]
    assert healthy and all(scanner.match_line(text) == [] for text in healthy)
