"""The telemetry-only install, for real: build ``autorecover-telemetry`` (packaging/), install
it alone into a fresh virtual environment, and train a few steps there.

What docs/telemetry.md promises a training image: ``autorecover.telemetry`` with nothing but
the standard library, and no ``autorecover`` command (the engine is not there).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import autorecover

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "packaging" / "autorecover-telemetry"
SOURCE = ROOT / "src" / "autorecover" / "telemetry"
UV = os.environ.get("UV") or shutil.which("uv")  # `uv run` names itself in $UV
TRAIN = """
import json, sys
from pathlib import Path
from autorecover import telemetry

out = Path(sys.argv[1])
rec = telemetry.init(output=out, env={"SLURM_JOB_ID": "77", "SLURM_PROCID": "3"}, log_interval=5)
for i in range(7):
    rec.step(i, samples=8, loss=1.0 / (i + 1))
rec.close()
lines = [json.loads(line) for line in out.read_text().splitlines()]
try:
    import click  # the engine's first dependency
    engine_deps = True
except ImportError:
    engine_deps = False
print(json.dumps({"events": [(r["event"], r.get("step")) for r in lines], "rank": lines[0]["rank"],
                  "module": telemetry.__file__, "engine_deps": engine_deps}))
"""


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command; no PYTHONPATH, so the new environment sees only what was installed."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60,
                          check=False, env=env, cwd=cwd)  # fmt: skip


def _build(out: Path) -> Path:
    """The wheel, built offline from uv's cached backend if it can be, else fetching it."""
    assert UV is not None
    proc = _run(UV, "build", "--wheel", "--offline", "-o", out, PROJECT)
    if proc.returncode != 0:
        proc = _run(UV, "build", "--wheel", "-o", out, PROJECT)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = out.glob("autorecover_telemetry-*.whl")
    return wheel


def test_the_distribution_has_the_engines_version() -> None:
    meta = tomllib.loads(PROJECT.joinpath("pyproject.toml").read_text())["project"]
    engine = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text())["project"]
    assert meta["version"] == engine["version"] == autorecover.__version__
    assert meta["dependencies"] == [] and "scripts" not in meta
    assert PROJECT.joinpath("autorecover", "telemetry").resolve() == SOURCE


@pytest.mark.skipif(UV is None, reason="needs uv (the project's tool) to build and install")
def test_telemetry_only_install_trains_and_has_no_engine(tmp_path: Path) -> None:
    wheel = _build(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as whl:
        names = sorted(n for n in whl.namelist() if ".dist-info/" not in n)
        metadata = whl.read(next(n for n in whl.namelist() if n.endswith("/METADATA"))).decode()
    sources = sorted(
        f"autorecover/telemetry/{p.relative_to(SOURCE).as_posix()}" for p in SOURCE.rglob("*.py")
    )
    assert names == sources  # every telemetry module, nothing else of autorecover
    assert "Requires-Dist" not in metadata

    venv = tmp_path / "venv"
    assert _run(UV, "venv", "--python", sys.executable, venv).returncode == 0
    python = venv / "bin" / "python"
    installed = _run(UV, "pip", "install", "--python", python, "--offline", "--no-index", wheel)
    assert installed.returncode == 0, installed.stderr

    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    proc = _run(python, script, tmp_path / "tel.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["module"].startswith(str(venv))  # the installed copy, not this checkout
    assert seen["engine_deps"] is False
    assert seen["rank"] == 3
    assert seen["events"] == [["init", None], ["step", 4], ["summary", 4], ["step", 6],
                              ["summary", 6]]  # fmt: skip

    # the engine is absent, and says so in one line rather than a traceback
    assert not (venv / "bin" / "autorecover").exists()
    engine = _run(python, "-m", "autorecover", cwd=tmp_path)
    assert engine.returncode != 0 and "Traceback" not in engine.stderr
    assert engine.stderr.strip().endswith(
        "No module named autorecover.__main__; 'autorecover' is a package and cannot be "
        "directly executed"
    )
