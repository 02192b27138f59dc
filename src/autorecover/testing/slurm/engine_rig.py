"""The engine as a site runs it, on the real Slurm test cluster: real processes throughout.

`EngineRig` starts, each as its own process with its output captured to a file:

* `python -m autorecover serve --scheduler slurm` on a PostgreSQL database, with the cluster's
  environment (its `SLURM_CONF`), a tokens file (an operator token, one agent token per
  node), a roomy breaker policy (four nodes: one out is 25 % of the fleet; `policy` adds
  tables after it) and short passes;
* one `python -m autorecover agent run` per Slurm node, following that node's kernel-log
  file (`SlurmTestCluster.kernel_log`), named as the Slurm node, reporting to the engine with
  its own agent token. `standins` (a folder of stand-in executables,
  `autorecover.testing.standins`) goes first on the agents' and the engine's PATH, for the
  node actions that run `dcgmi`, `nvidia-smi` or `systemctl` (each agent's environment names
  its node in `AUTORECOVER_RIG_NODE`, so a stand-in's recorded call says which agent ran it),
  and for the `all_reduce_perf` of the NCCL pair job (`sbatch` passes the engine's PATH on).

Each `Process` starts, stops (SIGTERM), is killed (SIGKILL) and restarts; `EngineRig.api`
reads the engine's HTTP API with the operator token, `wait` polls with a bound and puts every
process's log tail in the failure message. Jobs are the wrapped training jobs of `rig.py`.

    rig = EngineRig(cluster, postgres_url, tmp_path)
    rig.start()
    job = rig.submit(nodes=2)
    rig.fault(node)             # XID 79 in the node's kernel log
    rig.wait(lambda: ..., "drained")
    rig.close()
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from autorecover.adapters.slurm.commands import SubprocessRunner
from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.adapters.store.sql.jobs import SqlJobStore, open_job_store
from autorecover.server.failpoints import ENV as FAILPOINT_ENV
from autorecover.server.tokens import Role, entry_text, new_token, token_hash
from autorecover.testing.postgres import free_port
from autorecover.testing.slurm.cluster import SlurmTestCluster
from autorecover.testing.slurm.rig import XID_79, E2EJob, fault, rank_pid, sinfo_reason, submit_e2e

T = TypeVar("T")
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"
SKIPPED = ("nvml", "infiniband", "pcie", "dcgm", "fabric")  # no GPUs: the kernel log is the probe
LOG_TAIL = 40
# The metric the engine sets for each node whose agent batch (or heartbeat) it received.
HEARD = re.compile(
    r'^autorecover_agent_clock_measured_timestamp_seconds\{node="([^"]+)"\}', re.MULTILINE
)
NODE_ENV = "AUTORECOVER_RIG_NODE"  # in each agent's environment: a stand-in's call names its node


@dataclass
class Process:
    """One child process: its command, environment and log file; started on demand."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    starts: int = 0

    def start(self, extra_env: Mapping[str, str] | None = None) -> None:
        """Start it (a second start while it runs is an error)."""
        if self.alive():
            raise RuntimeError(f"{self.name} is already running")
        with self.log.open("ab") as out:
            out.write(f"\n=== start {self.starts + 1}: {' '.join(self.argv)}\n".encode())
            self.popen = subprocess.Popen(  # noqa: S603 (our own argv)
                self.argv, env={**self.env, **(extra_env or {})}, stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        self.starts += 1

    def alive(self) -> bool:
        """True while it runs."""
        return self.popen is not None and self.popen.poll() is None

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout_s`; its exit status (None: never started)."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
        return self.popen.returncode

    def kill(self) -> int | None:
        """kill -9: no clean-up of any kind."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            self.popen.kill()
        return self.popen.wait(5)

    def wait_exit(self, timeout_s: float) -> int:
        """Wait for it to end on its own; its exit status."""
        if self.popen is None:
            raise RuntimeError(f"{self.name} was never started")
        return self.popen.wait(timeout_s)

    def restart(self, extra_env: Mapping[str, str] | None = None) -> None:
        """Stop it (if running) and start it again."""
        self.stop()
        self.start(extra_env)

    def tail(self, lines: int = LOG_TAIL) -> str:
        """The end of its log."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class EngineRig:
    """The engine process, one agent process per node, PostgreSQL and the Slurm cluster."""

    def __init__(
        self,
        cluster: SlurmTestCluster,
        store_url: str,
        workdir: Path,
        *,
        tick_s: float = 0.2,
        settle_s: float = 1.0,
        standins: Path | None = None,
        serve_args: Sequence[str] = (),
        agent_args: Sequence[str] = (),
        policy: str = "",
    ) -> None:
        self.cluster = cluster
        self.store_url = store_url
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.operator = new_token()
        self.agent_tokens = {node: new_token() for node in cluster.node_names}
        self.tokens_file = workdir / "tokens.toml"
        self.tokens_file.write_text(
            entry_text("rig-operator", {Role.OPERATOR}, None, token_hash(self.operator))
            + "".join(entry_text(f"agent-{n}", {Role.AGENT}, n, token_hash(t))
                      for n, t in self.agent_tokens.items())
        )  # fmt: skip
        (workdir / "policy.toml").write_text(ROOMY + policy)
        env = dict(cluster.env)
        if standins is not None:
            env["PATH"] = f"{standins}{os.pathsep}{env['PATH']}"
        env.pop(FAILPOINT_ENV, None)
        self.scheduler = SlurmScheduler(SubprocessRunner(cluster.env, inherit=False))
        self.engine = Process("engine", [
            sys.executable, "-m", "autorecover", "serve", "--scheduler", "slurm",
            "--store", store_url, "--listen", f"127.0.0.1:{self.port}",
            "--tokens-file", str(self.tokens_file), "--policy", str(workdir / "policy.toml"),
            "--tick-s", str(tick_s), "--intake-s", str(min(tick_s, 0.5)),
            "--settle-s", str(settle_s), "--lease-ttl-s", "3", "--rate-per-s", "0",
            "--log-level", "info", *serve_args,
        ], env, workdir / "engine.log")  # fmt: skip
        self._job_store: SqlJobStore | None = None
        self.agents: dict[str, Process] = {}
        for node in cluster.node_names:
            token = workdir / f"agent-{node}.token"
            token.write_text(self.agent_tokens[node] + "\n")
            token.chmod(0o600)
            skips = [a for s in SKIPPED for a in ("--skip", s)]
            self.agents[node] = Process(f"agent {node}", [
                sys.executable, "-m", "autorecover", "agent", "run", "--engine", self.url,
                "--node", node, "--kernel-log", str(cluster.kernel_log(node)), *skips,
                "--state-dir", str(workdir / f"agent-{node}"), "--token-file", str(token),
                "--interval", "kernel=0.5", "--heartbeat-s", "5", *agent_args,
            ], {**env, NODE_ENV: node}, workdir / f"agent-{node}.log")  # fmt: skip

    # --- processes -------------------------------------------------------------------------

    @property
    def processes(self) -> list[Process]:
        """The engine and every agent."""
        return [self.engine, *self.agents.values()]

    def start(self, failpoint: str | None = None, timeout_s: float = 30.0) -> None:
        """Empty the kernel logs (lines of earlier tests are history), start the engine and
        wait until it answers, then start every agent."""
        for node in self.cluster.node_names:
            self.cluster.kernel_log(node).write_text("")
        self.start_engine(failpoint, timeout_s)
        for agent in self.agents.values():
            agent.start()

    def start_engine(self, failpoint: str | None = None, timeout_s: float = 30.0) -> None:
        """Start the engine (with a test failpoint, `HOOK:KIND`, when given); wait until it
        is ready: the API answers and it leads."""
        self.engine.start({FAILPOINT_ENV: failpoint} if failpoint else None)
        self.wait(self._ready, "the engine ready", timeout_s)

    def _ready(self) -> bool:
        if not self.engine.alive():
            code = self.engine.popen.returncode if self.engine.popen else None
            raise AssertionError(f"the engine exited ({code})\n{self.logs()}")
        try:
            with urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as r:  # noqa: S310 (http://127.0.0.1)
                return bool(r.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def close(self) -> None:
        """Stop every process (agents first), whatever state it is in."""
        for agent in self.agents.values():
            with contextlib.suppress(Exception):
                agent.stop(5)
        with contextlib.suppress(Exception):
            self.engine.stop(10)
        if self._job_store is not None:
            self._job_store.close()

    def logs(self, lines: int = LOG_TAIL) -> str:
        """Every process's log tail, and the cluster's, for a failure message."""
        parts = [f"--- {p.name} ({p.log})\n{p.tail(lines)}" for p in self.processes]
        return "\n".join(parts) + "\n" + self.cluster.log_tail(10)

    # --- the engine's API ------------------------------------------------------------------

    def api(self, path: str) -> Any:
        """GET `/api/v1/...` with the operator token; the decoded JSON."""
        return json.loads(self._get(f"/api/v1/{path.lstrip('/')}"))

    def heard(self) -> set[str]:
        """The nodes whose agents' batches (heartbeats included) this engine has received:
        the nodes its metrics carry a clock measurement for."""
        return set(HEARD.findall(self._get("/metrics").decode()))

    def _get(self, path: str) -> bytes:
        """GET a path of the engine with the operator token; the body."""
        url = f"{self.url}{path}"  # http://127.0.0.1 only
        headers = {"Authorization": f"Bearer {self.operator}"}
        request = urllib.request.Request(url, headers=headers)  # noqa: S310
        with urllib.request.urlopen(request, timeout=5) as r:  # noqa: S310
            body: bytes = r.read()
        return body

    def node(self, name: str) -> dict[str, Any] | None:
        """The engine's record of a node (None: it has none)."""
        try:
            found: dict[str, Any] = self.api(f"nodes/{name}")
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise
        return found

    def job_store(self) -> SqlJobStore:
        """Job recovery's records in the engine's database, read directly (opened once)."""
        if self._job_store is None:
            self._job_store = open_job_store(self.store_url)
        return self._job_store

    def wait(self, check: Callable[[], T | None], what: str, timeout_s: float = 60.0,
             poll_s: float = 0.1) -> T:  # fmt: skip
        """Poll `check` until it gives something; on timeout fail with every log's tail."""
        deadline = time.monotonic() + timeout_s
        last = ""
        while True:
            try:
                got = check()
            except (urllib.error.URLError, OSError) as exc:
                got, last = None, f" (last error: {exc})"
            if got is not None and got is not False:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"not {what} after {timeout_s:.0f} s{last}\n{self.logs()}")
            time.sleep(poll_s)

    # --- Slurm -----------------------------------------------------------------------------

    def submit(self, *, nodes: int = 2, comment: str = "autorecover:on",
               sbatch: tuple[str, ...] = ()) -> E2EJob:  # fmt: skip
        """The wrapped training job (`rig.submit_e2e`), opted in by its comment."""
        return submit_e2e(self.cluster, nodes=nodes, comment=comment, sbatch=sbatch)

    def slurm_job(self, job: E2EJob | str) -> SlurmJob:
        """The job as Slurm reports it now."""
        return self.scheduler.reader.job(job.job_id if isinstance(job, E2EJob) else job)

    def slurm_node(self, node: str) -> SlurmNode:
        """The node as Slurm reports it now."""
        return self.scheduler.reader.node(node)

    def fault(self, node: str, line: str = XID_79) -> None:
        """A kernel line in the node's kernel log (default: the catalog's XID 79)."""
        fault(self.cluster, node, line)

    def rank_pid(self, job: E2EJob, node: str, restart: int = 0) -> int:
        """The PID of the job's rank on `node` in that attempt."""
        return rank_pid(job, node, restart)

    def kill_rank(self, job: E2EJob, node: str, restart: int = 0) -> None:
        """SIGKILL the job's rank on `node`, as a GPU falling off the bus takes it down."""
        os.kill(self.rank_pid(job, node, restart), signal.SIGKILL)

    def sinfo_reason(self, node: str) -> str:
        """`sinfo -R` for the node: `NODE|REASON`."""
        return sinfo_reason(self.cluster, node)
