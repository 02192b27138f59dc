"""A pytest run stopped with SIGTERM tears its session fixtures down (testing/stopping.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CONFTEST = """
import pytest
from autorecover.testing.stopping import interrupt_on_sigterm

def pytest_configure(config):
    if {install}:
        interrupt_on_sigterm()

@pytest.fixture(scope="session")
def system(tmp_path_factory):
    (STARTED).write_text("up")
    yield
    (STOPPED).write_text("down")
"""
TEST = """
import time

def test_runs_until_stopped(system):
    time.sleep(60)
"""


def _run_and_terminate(tmp_path: Path, install: bool) -> Path:
    started, stopped = tmp_path / "started", tmp_path / "stopped"
    conftest = CONFTEST.replace("(STARTED)", f"__import__('pathlib').Path({str(started)!r})")
    conftest = conftest.replace("(STOPPED)", f"__import__('pathlib').Path({str(stopped)!r})")
    (tmp_path / "conftest.py").write_text(conftest.replace("{install}", str(install)))
    (tmp_path / "test_long.py").write_text(TEST)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    proc = subprocess.Popen(
        [*cmd, "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not started.exists():
            assert time.monotonic() < deadline, "the session fixture never started"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return stopped


def test_a_terminated_run_tears_its_session_fixtures_down(tmp_path: Path) -> None:
    assert _run_and_terminate(tmp_path, install=True).read_text() == "down"


def test_without_it_a_terminated_run_leaves_them_up(tmp_path: Path) -> None:
    # Python's default for SIGTERM: the teardown never runs (what the helper above changes)
    assert not _run_and_terminate(tmp_path, install=False).exists()


def test_it_declines_outside_the_main_thread() -> None:
    import threading

    from autorecover.testing.stopping import interrupt_on_sigterm

    result: list[bool] = []
    t = threading.Thread(target=lambda: result.append(interrupt_on_sigterm()))
    t.start()
    t.join()
    assert result == [False]


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
