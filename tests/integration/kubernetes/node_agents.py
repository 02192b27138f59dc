"""Real processes for the agent-actions tests on the control plane: the engine
(`autorecover serve --scheduler kubernetes --node-actions agent`) and one node agent
(`autorecover agent run`) per kwok node involved, each with its own token, a kernel-log file
the test appends to, stand-in executables first on its PATH, a boot-id file the test
controls and its own state folder. kwok nodes run no containers, so the chart's agent
DaemonSet cannot run here: the agents are processes on this machine named after the nodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from autorecover.server.tokens import Role, entry_text, new_token, token_hash
from autorecover.testing.kubernetes.harness import KubeHarness
from autorecover.testing.standins import StandIns
from server.support import free_port

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent"
ACTIONS = FIXTURES / "actions"
DCGM = FIXTURES / "dcgm"
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"


def until(what: str, check: Callable[[], Any], timeout_s: float, *alive: Any) -> Any:
    """Poll `check` until it is truthy; every process in `alive` must keep running."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for p in alive:
            p.assert_running()
        try:
            got = check()
            if got:
                return got
        except OSError:
            pass  # not listening yet
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Engine:
    """`autorecover serve --scheduler kubernetes --node-actions agent` on the test's plane."""

    def __init__(self, kube: KubeHarness, tmp: Path, *, pod_log_grace_s: float = 0.0) -> None:
        self.tmp = tmp
        self.operator = new_token()
        self.agents = {n: new_token() for n in kube.cluster.node_names}
        tokens = tmp / "tokens.toml"
        tokens.write_text(
            entry_text("ops", {Role.OPERATOR}, None, token_hash(self.operator))
            + "".join(entry_text(f"agent-{n}", {Role.AGENT}, n, token_hash(t))
                      for n, t in self.agents.items())
        )  # fmt: skip
        (tmp / "policy.toml").write_text(ROOMY)
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log_path = tmp / "engine.log"
        self.log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autorecover", "serve",
             "--scheduler", "kubernetes", "--kubeconfig", str(kube.cluster.kubeconfig),
             "--namespaces", kube.namespace, "--lease-namespace", kube.namespace,
             "--node-actions", "agent", "--store", f"sqlite:///{tmp / 'engine.db'}",
             "--listen", self.url.removeprefix("http://"), "--policy", str(tmp / "policy.toml"),
             "--spool-dir", str(tmp / "spool"), "--pod-log-grace-s", str(pod_log_grace_s), "--tick-s", "0.2", "--intake-s", "0.2",
             "--log-level", "warning", "--tokens-file", str(tokens)],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def assert_running(self) -> None:
        assert self.proc.poll() is None, f"engine exited {self.proc.returncode}: {self.output()}"

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def get(self, path: str) -> Any:
        """GET with the operator's token."""
        request = urllib.request.Request(
            self.url + path, headers={"Authorization": f"Bearer {self.operator}"}
        )
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.loads(r.read())

    def state(self, node: str) -> str:
        return str(self.get(f"/api/v1/nodes/{node}")["state"])

    def orders(self, node: str) -> list[dict[str, Any]]:
        """The node's orders as the store has them (operators may read them)."""
        return list(self.get(f"/api/v1/nodes/{urllib.parse.quote(node)}/orders"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def default_answers(kit: StandIns) -> None:
    """Recorded answers every scenario shares (added after a scenario's own, which win): a
    quick diagnostic that finds a memory fault, a diagnostic under load that passes, an idle
    GPU 0000:18:00.0 that resets, the bundle's collectors, a reboot systemctl accepts."""
    kit.answer("dcgmi", r"^diag -r 1 -j$", stdout=DCGM / "diag-4x-memory-isolate.json")
    kit.answer("dcgmi", r"^diag -r 3 -j$", stdout=DCGM / "diag-4x-pass.json")
    kit.answer("dcgmi", r"^health -c -j$", stdout=DCGM / "health-healthy.json")
    kit.answer("nvidia-smi", r"--query-compute-apps", stdout=ACTIONS / "compute-apps-idle.csv")
    kit.answer("nvidia-smi", r"^--gpu-reset -i 0000:18:00.0$",
               stdout=ACTIONS / "gpu-reset-ok-18.txt")  # fmt: skip
    kit.answer("nvidia-smi", r"^-q$", stdout=ACTIONS / "nvidia-smi-q.txt")
    kit.answer("journalctl", r"^-k ", stdout=ACTIONS / "journalctl-k.txt")
    kit.answer("systemctl", r"^reboot$")


class NodeAgent:
    """One `autorecover agent run` named after a kwok node, with its own stand-ins."""

    def __init__(self, engine: Engine, node: str, tmp: Path, pod_logs: Path | None = None) -> None:
        self.engine, self.node, self.pod_logs = engine, node, pod_logs
        self.dir = tmp / f"agent-{node}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.kit = StandIns(self.dir / "standins")
        self.kernel_log = self.dir / "kern.log"
        self.kernel_log.touch()
        self.boot = self.dir / "boot_id"
        self.boot.write_text("boot-a\n")
        self.log_path = self.dir / "agent.log"
        self.log = self.log_path.open("ab")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [
            sys.executable, "-m", "autorecover", "agent", "run", "--engine", self.engine.url,
            "--node", self.node, "--state-dir", str(self.dir / "state"),
            "--kernel-log", str(self.kernel_log), "--interval", "kernel=0.5",
            "--skip", "nvml", "--skip", "infiniband", "--skip", "pcie", "--skip", "dcgm",
            "--skip", "fabric",  # its `nvidia-smi -q` would be one more stand-in call
            "--orders-every-s", "0.2", "--boot-id-file", str(self.boot),
        ]  # fmt: skip
        if self.pod_logs is not None:
            args += ["--pod-logs", str(self.pod_logs)]
        env = {**os.environ, "PATH": self.kit.path(),
               "AUTORECOVER_TOKEN": self.engine.agents[self.node]}  # fmt: skip
        self.proc = subprocess.Popen(args, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def assert_running(self) -> None:
        assert self.proc is not None and self.proc.poll() is None, (
            f"agent on {self.node} exited: {self.output()}"
        )

    def xid(self, code: int = 48, bus: str = "0000:18:00") -> None:
        """Append an XID line to the node's kernel log, stamped now."""
        at = datetime.now(UTC).isoformat()
        text = {48: "An uncorrectable double bit error (DBE) has been detected on GPU in the "
                    "framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1."}[code]  # fmt: skip
        line = f"{at} {self.node} kernel: NVRM: Xid (PCI:{bus}): {code}, pid='<unknown>', "
        with self.kernel_log.open("a") as f:
            f.write(line + f"name=<unknown>, {text}\n")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the process: SIGTERM as systemd stops it (a reboot too), SIGKILL as it dies."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self) -> None:
        self.stop()
        self.log.close()

    def argv(self, name: str) -> list[list[str]]:
        """How each stand-in `name` was called, oldest first."""
        return [c.argv for c in self.kit.calls(name)]

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]
