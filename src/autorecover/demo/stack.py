"""The demonstration's world in one process: simulated nodes with their agents, the local
scheduler running the training job, and the engine with both recovery services on one SQLite
file (`DIR/state.db`), built with the same wiring as `autorecover serve --scheduler local`.

The engine runs without threads: `Demo.tick()` is one round — every node's agent polls its
probes into the engine's inbox, the engine steps its loops (hardware intake, tick and
reconcile; job recovery's pass), the scheduler reaps and starts ranks.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.local.scheduler import LocalJobSpec, LocalScheduler
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.controllers.jobs.controller import JobSettings
from autorecover.demo.dashboard import DashboardServer
from autorecover.demo.nodes import NodeAgent, node_names, sim_nodes
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.jobs.health import HealthThresholds
from autorecover.server.engine import Engine, EngineSettings
from autorecover.server.policies import Policies, load_policies
from autorecover.server.wiring import build_engine, local_cluster, sqlite_jobs

JOB = "train"


@dataclass(frozen=True, slots=True)
class DemoSettings:
    """Short everything, so a scenario takes seconds."""

    nodes: int = 4
    job_nodes: int = 3  # one node spare, for the job to move to
    step_s: float = 0.03
    log_interval: int = 5
    checkpoint_every: int = 20
    lag: int = 40  # steps a rank may run ahead of the slowest (the loose collective)
    tick_s: float = 0.05  # the demo loop's round
    settle_s: float = 1.0
    hang_floor_s: float = 1.5
    hang_intervals: float = 8.0
    dashboard: str | None = None  # HOST:PORT to serve the web dashboard on (None: none)


def demo_policies() -> Policies:
    """The built-in policies with short backoffs and a breaker a 4-node cluster can live with."""
    base = load_policies()
    hardware = load_policy()
    # The agents of healthy nodes send nothing, so the fleet the breaker sees is tiny: let it
    # count removals over a second, not an hour, or the first quarantine would trip it.
    breaker = dataclasses.replace(
        hardware.breaker, max_fraction=1.0, max_out_fraction=1.0, window=timedelta(seconds=1)
    )
    jobs = base.jobs.merged({"transient_backoff_s": [1, 1, 1, 1]}, "demo")
    return dataclasses.replace(
        base, hardware=dataclasses.replace(hardware, breaker=breaker), jobs=jobs,
        origins=("demo",),
    )  # fmt: skip


class Demo:
    """Nodes, agents, scheduler and engine under one directory."""

    def __init__(self, directory: Path, settings: DemoSettings | None = None) -> None:
        self.dir = directory.resolve()
        self.dir.mkdir(parents=True, exist_ok=True)
        self.settings = s = settings or DemoSettings()
        self.clock = SystemClock()
        names = node_names(s.nodes)
        self.nodes = sim_nodes(self.dir, names)
        db = self.dir / "state.db"
        self.store = SqliteStore(db)
        self.job_store = SqliteJobStore(db)
        self.agents = [NodeAgent(n, self.store) for n in self.nodes]
        self.scheduler = LocalScheduler(self.dir / "jobs", names, self.clock, kill_grace_s=0.5)
        self.policies = demo_policies()
        job_settings = JobSettings(
            health=HealthThresholds(hang_floor_s=s.hang_floor_s, hang_intervals=s.hang_intervals),
            settle_s=s.settle_s, mutations_per_s=20.0,
        )  # fmt: skip
        wiring = sqlite_jobs(
            str(db), self.scheduler, self.clock, self.policies, False, settings=job_settings
        )
        engine_settings = EngineSettings(
            tick_s=0.1, reconcile_s=5.0, intake_s=0.05, lease_ttl_s=15.0, retry_s=0.5,
        )  # fmt: skip
        self.engine: Engine = build_engine(
            self.store, self.clock, local_cluster(self.clock, self.scheduler), self.policies,
            engine_settings, replica="demo", jobs=wiring, background=False, owns_store=False,
        )  # fmt: skip
        # The API's and the dashboard's fleet: every simulated node, in no failure domain (the
        # demo has none). Hardware recovery reads its own topology (the cluster's), not this.
        self.engine.topology = Topology(MappingProxyType({n: () for n in names}))
        self.dashboard: DashboardServer | None = None
        self.dashboard_error = ""  # why the dashboard is not served, when it was asked for
        if s.dashboard:
            try:
                self.dashboard = DashboardServer(self.engine, s.dashboard).start()
            except OSError as exc:  # taken since the command line probed it (another demo)
                self.dashboard_error = f"dashboard not served: {s.dashboard}: {exc.strerror}"

    def submit(self) -> str:
        """Start the training job on `job_nodes` nodes, one rank each."""
        s = self.settings
        argv = (
            sys.executable, "-m", "autorecover.demo.train", "--dir", str(self.dir),
            "--step-s", str(s.step_s), "--log-interval", str(s.log_interval),
            "--checkpoint-every", str(s.checkpoint_every), "--lag", str(s.lag),
            "--parent", str(os.getpid()),
        )  # fmt: skip
        return self.scheduler.submit(LocalJobSpec(JOB, argv, nodes=s.job_nodes))

    def tick(self) -> None:
        """One round: agents → inbox, the engine's due passes, the scheduler."""
        now = self.clock.now()
        for agent in self.agents:
            agent.tick(now)
        self.engine.step()
        self.scheduler.poll()

    def close(self) -> None:
        """Stop the ranks, give the lease up, close the stores."""
        if self.dashboard is not None:
            self.dashboard.stop()
        self.scheduler.shutdown()
        for agent in self.agents:
            agent.close()
        self.engine.stop()
        self.job_store.close()
        self.store.close()
