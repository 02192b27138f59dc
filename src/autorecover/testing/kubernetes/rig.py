"""End-to-end recovery on the real control plane, composed in-process as the engine composes it.

`Rig` puts together, on one temporary SQLite file: the harness's `KubeNodes` and `KubeJobs`
(or another jobs port: `JobSetHarness.jobs`; informers on the real API server),
`SqliteJobStore` + `SqliteStore`, `JobRecoveryController`, `HardwareController` (with
`FakeDiagnostics`: validation passes), and the node agent's real kernel probe
(`--kernel-source file`) on one kernel-log file per kwok node, whose signals go to
`hardware.ingest`. `step()` is one pass of everything; `until()` repeats it, every wait
bounded.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from autorecover.adapters.fakes.cluster import FakeDiagnostics, FakeNotifier
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.agent.probes.base import NodeProbe
from autorecover.agent.thresholds import load_thresholds
from autorecover.agent.wiring import AgentConfig, build_probes
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import JobRecoveryController, JobSettings
from autorecover.controllers.jobs.ports import JobSchedulerPort
from autorecover.domain import catalog as catalog_module
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.hardware.policy import HardwarePolicy
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.jobs.policy import builtin_job_policy
from autorecover.domain.signals import Probe
from autorecover.testing.kubernetes.harness import KubeHarness
from autorecover.testing.passes import one_pass
from autorecover.testing.waiting import wait

T = TypeVar("T")
XIDS = Path(catalog_module.__file__).parent / "data" / "xids.toml"
XID_79 = tomllib.loads(XIDS.read_text())["xid"]["79"]["example"]  # the catalog's real line
POLICY = load_policy()
# Six nodes: one out is 17 % of the fleet, past the default blast-radius limits.
ROOMY = replace(POLICY, breaker=replace(POLICY.breaker, max_fraction=1.0, max_out_fraction=1.0))


class Rig:
    """Job and hardware recovery on the real control plane, on one SQLite file."""

    def __init__(self, kube: KubeHarness, db: Path, policy: HardwarePolicy = ROOMY,
                 settle_s: float = 0.0, jobs: JobSchedulerPort | None = None) -> None:  # fmt: skip
        self.kube = kube
        self.port = jobs or kube.jobs  # the harness's PyTorchJobs unless told (JobSets)
        self.clock = kube.clock
        self.hw_store = SqliteStore(db)
        self.job_store = SqliteJobStore(db)
        self.diagnostics = FakeDiagnostics(self.clock)
        self.notifier = FakeNotifier()
        self.hardware = HardwareController(
            store=self.hw_store, scheduler=kube.nodes, diagnostics=self.diagnostics,
            notifier=self.notifier, clock=self.clock, policy=policy,
            fleet_size=len(kube.cluster.node_names),
        )  # fmt: skip
        self.hardware.start()
        self.jobs = JobRecoveryController(
            self.job_store, self.port, self.job_store, self.clock, builtin_job_policy(),
            builtin_catalog(), dry_run=False, notifier=self.notifier,
            settings=JobSettings(settle_s=settle_s),
        )  # fmt: skip
        skip = frozenset({Probe.NVML, Probe.INFINIBAND, Probe.PCIE, Probe.DCGM, Probe.FABRIC})
        since = self.clock.now() - timedelta(seconds=1)
        self.kernel_logs = kube.tmp / "kernel"
        self.kernel_logs.mkdir()
        self.probes: list[NodeProbe] = []
        for node in kube.cluster.node_names:
            self.kernel_log(node).touch()
            config = AgentConfig(node=node, kernel_source="file",
                                 kernel_log=self.kernel_log(node), skip=skip,
                                 kernel_not_before=since)  # fmt: skip
            self.probes.extend(build_probes(config, builtin_catalog(), load_thresholds()))

    def kernel_log(self, node: str) -> Path:
        """The node's kernel log, as the agent on it would read it."""
        return self.kernel_logs / f"{node}.log"

    def fault(self, node: str, line: str = XID_79) -> None:
        """Append a kernel line to the node's kernel log (what the driver would print)."""
        with self.kernel_log(node).open("a") as f:
            f.write(line + "\n")

    def step(self, *, hardware: bool = True) -> None:
        """One pass: node agents -> hardware.ingest, job recovery, hand-overs, hardware tick."""
        one_pass(self.probes, self.hardware, self.jobs, self.job_store, self.clock,
                 tick_hardware=hardware)  # fmt: skip

    def until(self, check: Callable[[], T | None], what: str, timeout_s: float = 60.0,
              *, hardware: bool = True, context: Callable[[], str] | None = None) -> T:  # fmt: skip
        """Run passes until `check()` gives something; fail after `timeout_s`, saying what
        job recovery recorded (and what `context()` says: the cluster's side)."""

        def one() -> T | None:
            self.step(hardware=hardware)
            return check()

        try:
            return wait(one, what, timeout_s)
        except AssertionError as exc:
            extra = f"\n{context()}" if context is not None else ""
            raise AssertionError(f"{exc}\n{self.describe()}{extra}") from None

    def describe(self) -> str:
        """What job recovery recorded and what the scheduler shows: for a failure message."""
        lines = [f"incident {i.id} {i.phase} verdict={i.verdict} decided={i.decided}"
                 for i in self.job_store.incidents()]  # fmt: skip
        lines += [f"action {a}" for a in self.job_store.actions()]
        lines += [f"event {e}" for e in self.job_store.events()]
        for w in self.port.watched():
            s = w.status
            spooled = {n: len(self.port.read_output(s.job, s.attempt, n, 0, 1 << 20))
                       for n in s.nodes}  # fmt: skip
            lines.append(f"watched {s}; bytes of attempt {s.attempt}'s output by node: {spooled}")
        lines.append(f"log streams started: {self.kube.spool.streams}")
        return "\n".join(lines)

    def close(self) -> None:
        """Close the probes' files and both stores."""
        for probe in self.probes:
            probe.close()
        self.job_store.close()
        self.hw_store.close()
