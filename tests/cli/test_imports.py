"""What `autorecover` imports: the commands that only read (help, explain, catalog) must start
without the server, the demo, or the cluster and database clients (issue 11).

Each case runs `python -X importtime -m autorecover ...` in a fresh process and reads the
modules it imported from the importtime lines. No timing is asserted; `scripts/bench_cli.py`
measures.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import SAMPLES

HEAVY = (
    "fastapi", "uvicorn", "starlette", "pydantic", "lightkube", "psycopg", "prometheus_client",
    "autorecover.server", "autorecover.demo",
)  # fmt: skip
_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.MULTILINE)


def imported_by(*args: str) -> set[str]:
    """The modules a fresh `python -m autorecover ARGS` imports; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autorecover", *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout
    return set(_LINE.findall(done.stderr))


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("explain", str(SAMPLES / "xid79-fell-off-bus")),
        ("explain", "--json", str(SAMPLES)),
        ("catalog", "xids"),
    ],
    ids=["help", "explain", "explain-dir-json", "catalog-xids"],
)
def test_reading_commands_leave_the_heavy_modules_alone(args: tuple[str, ...]) -> None:
    modules = imported_by(*args)
    assert {"click", "autorecover.cli.main"} <= modules  # the lines were read at all
    heavy = sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == [], f"`autorecover {' '.join(args)}` imported {heavy}"
