"""The stand-in executables answer by rule and record every call."""

from __future__ import annotations

import subprocess
from pathlib import Path

from autorecover.testing.standins import StandIns


def test_standin_answers_the_first_matching_rule_and_records_the_call(tmp_path: Path) -> None:
    kit = StandIns(tmp_path / "kit")
    busy = tmp_path / "busy.csv"
    busy.write_text("1234, 00000000:18:00.0\n")
    touched = tmp_path / "rebooted"
    kit.answer("nvidia-smi", r"--query-compute-apps", stdout=busy)
    kit.answer("nvidia-smi", r"--gpu-reset", exit=3, stderr="in use\n")
    kit.answer("systemctl", r"^reboot$", touch=touched)
    env = {"PATH": kit.path()}
    apps = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_bus_id", "--format=csv"],
                          env=env, capture_output=True, text=True, check=False)  # fmt: skip
    reset = subprocess.run(["nvidia-smi", "--gpu-reset", "-i", "0"], env=env,
                           capture_output=True, text=True, check=False)  # fmt: skip
    subprocess.run(["systemctl", "reboot"], env=env, check=True)
    assert (apps.returncode, apps.stdout) == (0, busy.read_text())
    assert (reset.returncode, reset.stderr) == (3, "in use\n")
    assert touched.read_text() == "reboot\n"
    assert [c.argv for c in kit.calls("nvidia-smi")] == [
        ["--query-compute-apps=pid,gpu_bus_id", "--format=csv"],
        ["--gpu-reset", "-i", "0"],
    ]
    assert [c.name for c in kit.calls()] == ["nvidia-smi", "nvidia-smi", "systemctl"]
    assert kit.calls("systemctl")[0].env == {}


def test_standin_without_a_rule_exits_127_like_a_missing_command(tmp_path: Path) -> None:
    kit = StandIns(tmp_path / "kit")
    kit.answer("dcgmi", r"^health")
    done = subprocess.run(["dcgmi", "diag", "-r", "3"], env={"PATH": kit.path()},
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 127
    assert "no recorded answer for: diag -r 3" in done.stderr
    kit.clear("dcgmi")
    assert subprocess.run(["dcgmi", "health"], env={"PATH": kit.path()},
                          capture_output=True, check=False).returncode == 127  # fmt: skip
