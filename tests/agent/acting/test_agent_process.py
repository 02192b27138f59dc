"""`autorecover agent run` as a real process against the orders contract (agent_actions).

The engine here is a small HTTP server implementing the contract (a fake of our own API);
the commands are stand-in executables first on the agent's PATH, replaying recorded outputs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.acting.support import (
    ACTIONS,
    DCGM,
    NODE,
    ContractEngine,
    ContractServer,
    order,
    standins,
    wait_for,
)
from autorecover.testing.standins import StandIns


@pytest.fixture
def engine() -> Iterator[tuple[ContractEngine, ContractServer]]:
    e = ContractEngine()
    server = ContractServer(e)
    try:
        yield e, server
    finally:
        server.close()


class AgentProcess:
    """One `autorecover agent run` for NODE, stand-ins first on its PATH."""

    def __init__(self, tmp: Path, url: str, kit: StandIns) -> None:
        self.tmp, self.url, self.kit = tmp, url, kit
        self.boot = tmp / "boot_id"
        if not self.boot.exists():
            self.boot.write_text("boot-a\n")
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = (tmp / "agent.log").open("ab")

    def start(self, *extra: str) -> None:
        args = [
            sys.executable, "-m", "autorecover", "agent", "run", "--engine", self.url,
            "--node", NODE, "--state-dir", str(self.tmp / "state"), "--kernel-source", "none",
            "--skip", "nvml", "--skip", "infiniband", "--skip", "pcie", "--skip", "dcgm",
            "--skip", "fabric", "--orders-every-s", "0.2", "--boot-id-file", str(self.boot), *extra,
        ]  # fmt: skip
        env = {**os.environ, "PATH": self.kit.path()}
        self.proc = subprocess.Popen(args, env=env, stdout=self.log, stderr=self.log)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def output(self) -> str:
        return (self.tmp / "agent.log").read_text(errors="replace")


@pytest.fixture
def agent(tmp_path: Path, engine: tuple[ContractEngine, ContractServer]) -> Iterator[AgentProcess]:
    a = AgentProcess(tmp_path, engine[1].url, standins(tmp_path / "kit"))
    try:
        yield a
    finally:
        a.stop()


def test_agent_actions_kill_9_while_a_diagnostic_runs_runs_it_once(
    agent: AgentProcess, engine: tuple[ContractEngine, ContractServer]
) -> None:
    contract, _ = engine
    agent.kit.clear("dcgmi")
    agent.kit.answer("dcgmi", r"^diag -r 3 -j$", stdout=DCGM / "diag-4x-pass.json", sleep_s=2.0)
    oid = f"{NODE}/7/diagnose"
    contract.place(order("diagnose", {"level": 3}, id=oid))
    agent.start()
    wait_for(lambda: agent.kit.calls("dcgmi"), what="dcgmi to start")
    agent.kill9()  # while dcgmi runs (its detached runner survives)
    assert not contract.finals(oid)
    agent.start()
    final = wait_for(lambda: contract.finals(oid), what="the final report", timeout_s=60)
    time.sleep(1.0)  # a second report, if there were one, would come within a poll or two
    assert len(contract.finals(oid)) == 1, agent.output()
    assert (final[0]["status"], final[0]["verdict"]) == ("done", "pass")
    assert [c.argv for c in agent.kit.calls("dcgmi")] == [["diag", "-r", "3", "-j"]]


def test_agent_actions_reset_refused_while_the_gpu_is_busy(
    agent: AgentProcess, engine: tuple[ContractEngine, ContractServer]
) -> None:
    contract, _ = engine
    agent.kit.clear("nvidia-smi")
    agent.kit.answer(
        "nvidia-smi", r"--query-compute-apps", stdout=ACTIONS / "compute-apps-busy.csv"
    )
    agent.kit.answer("nvidia-smi", r"--gpu-reset", stdout=ACTIONS / "gpu-reset-ok-18.txt")
    oid = f"{NODE}/7/reset_gpu"
    contract.place(order("reset_gpu", {"gpus": ["0000:18:00.0"]}, id=oid))
    agent.start()
    final = wait_for(lambda: contract.finals(oid), what="the final report", timeout_s=60)[0]
    assert final["status"] == "refused"
    assert "GPU 0000:18:00.0 is held by pid 31337 (python3)" in final["detail"]
    assert not [c for c in agent.kit.calls("nvidia-smi") if "--gpu-reset" in c.argv]


def test_agent_actions_reboot_is_done_after_the_boot_id_changed(
    agent: AgentProcess, engine: tuple[ContractEngine, ContractServer]
) -> None:
    contract, _ = engine
    rebooted = agent.tmp / "rebooted"
    agent.kit.answer("systemctl", r"^reboot$", touch=rebooted)
    oid = f"{NODE}/7/reboot"
    contract.place(order("reboot", id=oid))
    agent.start()
    wait_for(rebooted.exists, what="systemctl reboot")
    wait_for(lambda: [b for i, b in contract.reports if i == oid], what="the running report")
    time.sleep(0.5)
    assert not contract.finals(oid)  # not done before the node came back
    agent.kill9()  # the reboot ends the agent
    agent.boot.write_text("boot-b\n")
    agent.start()
    final = wait_for(lambda: contract.finals(oid), what="the final report", timeout_s=60)[0]
    assert final["status"] == "done"
    assert final["detail"] == "rebooted (boot id boot-a -> boot-b)"
    assert [c.argv for c in agent.kit.calls("systemctl")] == [["reboot"]]
    assert [b["status"] for i, b in contract.reports if i == oid] == ["running", "done"]


def test_agent_actions_reboot_in_the_hosts_namespace_through_nsenter(
    agent: AgentProcess, engine: tuple[ContractEngine, ContractServer]
) -> None:
    contract, _ = engine
    rebooted = agent.tmp / "rebooted"
    agent.kit.answer("nsenter", r"^--target 1 --mount -- systemctl reboot$", touch=rebooted)
    oid = f"{NODE}/8/reboot"
    contract.place(order("reboot", id=oid))
    agent.start("--reboot-in-host")  # as the chart's DaemonSet runs it (hostPID)
    wait_for(rebooted.exists, what="nsenter ... systemctl reboot")
    agent.kill9()
    agent.boot.write_text("boot-b\n")
    agent.start("--reboot-in-host")
    final = wait_for(lambda: contract.finals(oid), what="the final report", timeout_s=60)[0]
    assert final["status"] == "done", agent.output()
    assert [c.argv for c in agent.kit.calls("nsenter")] == [
        ["--target", "1", "--mount", "--", "systemctl", "reboot"]
    ]
    assert not agent.kit.calls("systemctl")  # the container's own systemctl is never used
