"""Files a person hands the CLI (issue 12): `explain` refuses what is not a regular file
instead of hanging on it, and `catalog check` explains a binary or broken file in one line."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autorecover.cli.main import main
from conftest import SAMPLES


def run_bounded(*args: str, timeout_s: float = 30.0) -> tuple[int, str]:
    """Run the CLI on a thread: a hang fails the test instead of stalling the suite."""
    out: list[tuple[int, str]] = []

    def go() -> None:
        result = CliRunner().invoke(main, list(args))
        out.append((result.exit_code, result.output))

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(timeout_s)
    assert out, f"autorecover {' '.join(args)} still running after {timeout_s} s"
    return out[0]


@pytest.mark.parametrize("where", ["logs/gpu-a01.log", "system/gpu-a02.log", "job.json"])
def test_security_explain_refuses_a_named_pipe_in_a_bundle(tmp_path: Path, where: str) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "slurm-preempted", bundle)
    (bundle / where).unlink()
    os.mkfifo(bundle / where)  # nobody ever writes to it: a read would wait forever
    code, output = run_bounded("explain", str(bundle))
    assert code != 0
    assert f"{where}: not a regular file (a named pipe): refusing to read it" in output
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (bytes(range(256)) * 8, "not UTF-8 text"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "not UTF-8 text"),
        (b"a = 1\n" + b"\x00" * 100, "not valid TOML"),
        (b"[xid.79\nweight = 1\n", "not valid TOML"),
        (b"a = " + b"[" * 100_000, "not valid TOML"),
        (b"[xid.79]\nweight = 1e999\n", "field 'weight'"),
        (b"[signature.\"s\"]\npattern = '('\n", '[signature."s"]'),
    ],
)
def test_security_catalog_check_explains_a_binary_or_broken_file_in_one_line(
    tmp_path: Path, content: bytes, says: str
) -> None:
    override = tmp_path / "site.toml"
    override.write_bytes(content)
    code, output = run_bounded("catalog", "check", str(override))
    assert code == 1 and says in output and "Traceback" not in output
    assert len(output.strip().splitlines()) == 1, output


def test_security_catalog_check_refuses_a_named_pipe(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "site.toml")
    code, output = run_bounded("catalog", "check", str(tmp_path / "site.toml"))
    assert code == 1 and "not a regular file (a named pipe)" in output


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(content=st.binary(max_size=2000) | st.text(max_size=2000).map(str.encode))
def test_security_catalog_check_never_crashes_on_any_bytes(tmp_path: Path, content: bytes) -> None:
    override = tmp_path / "any.toml"
    override.write_bytes(content)
    result = CliRunner().invoke(main, ["catalog", "check", str(override)])
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert len(result.output.strip().splitlines()) == 1
