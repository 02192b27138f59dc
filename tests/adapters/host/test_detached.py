"""Detached runs: a child that outlives its starter and leaves its exit status (agent_actions)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from autorecover.adapters.host.detached import Launcher


def wait_result(launcher: Launcher, run: Path) -> object:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        result = launcher.result(run)
        if result is not None:
            return result
        time.sleep(0.05)
    raise AssertionError("no result")


def test_agent_actions_child_keeps_output_and_exit_status(tmp_path: Path) -> None:
    launcher = Launcher()
    run = tmp_path / "run"
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    pid = launcher.start(run, [sys.executable, "-c", code], 30)
    result = wait_result(launcher, run)
    assert (result.rc, result.stdout, result.stderr) == (3, "out\n", "err\n")  # type: ignore[attr-defined]
    assert launcher.child_pid(run) == pid
    assert not launcher.alive(pid, run)


def test_agent_actions_a_second_launcher_finds_a_running_child(tmp_path: Path) -> None:
    first, second = Launcher(), Launcher()
    run = tmp_path / "run"
    pid = first.start(run, [sys.executable, "-c", "import time; time.sleep(1)"], 30)
    end = time.monotonic() + 10
    while second.child_pid(run) is None and time.monotonic() < end:
        time.sleep(0.05)
    assert second.alive(pid, run)  # through /proc, as an agent restarted after kill -9 does
    assert not second.alive(pid, tmp_path / "another-run")
    assert wait_result(first, run).rc == 0  # type: ignore[attr-defined]


def test_agent_actions_timeouts_and_missing_commands(tmp_path: Path) -> None:
    launcher = Launcher()
    slow = tmp_path / "slow"
    launcher.start(slow, [sys.executable, "-c", "import time; time.sleep(30)"], 0.5)
    result = wait_result(launcher, slow)
    assert (result.rc, result.timed_out) == (124, True)  # type: ignore[attr-defined]
    missing = tmp_path / "missing"
    launcher.start(missing, ["/nonexistent/dcgmi", "diag"], 5)
    result = wait_result(launcher, missing)
    assert result.rc == 127 and "cannot run" in result.error  # type: ignore[attr-defined]
