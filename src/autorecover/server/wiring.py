"""Wiring the engine for `autorecover serve`: store, cluster ports, services, leadership.

The cluster a serving engine acts on is chosen by name. `fake` is the journaled fake cluster
(`adapters.journal_fakes`): for trying the engine out and the crash tests. `local` is the
demonstration's `LocalScheduler` (`local_cluster`): real training processes on simulated
nodes, serving both hardware recovery (cordon, drain, simulated reset and reboot) and job
recovery (`sqlite_jobs` with the same scheduler). SEAM(scheduler): the Slurm adapter plugs in
here, as another entry of `CLUSTERS`.
Job recovery (`controllers.jobs.JobRecoveryController`) is hosted by passing `jobs=` — e.g.
`sqlite_jobs(path, scheduler, ...)` with a scheduler that watches jobs (the local scheduler,
Slurm); SEAM(jobs): `serve` passes it once such a scheduler is one of `CLUSTERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autorecover.adapters.engine_store import EngineStore, Fence
from autorecover.adapters.journal_fakes import (
    Journal,
    JournalDiagnostics,
    JournalScheduler,
    LogNotifier,
)
from autorecover.adapters.local_scheduler import LocalScheduler
from autorecover.controllers.hardware import HardwareController
from autorecover.controllers.job_ports import HandoverOutbox, JobSchedulerPort, JobStorePort
from autorecover.controllers.jobs import JobRecoveryController, JobSettings
from autorecover.controllers.ports import Clock, DiagnosticsPort, Notifier, SchedulerPort
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.server.engine import Engine, EngineSettings
from autorecover.server.fencing import FencedStore
from autorecover.server.hosting import Hosted, HostedHardware, Service
from autorecover.server.jobs_view import NO_JOBS, StoreJobsView
from autorecover.server.leadership import DbLeadership
from autorecover.server.policies import Policies


@dataclass(frozen=True, slots=True)
class Cluster:
    """The ports hardware recovery acts through."""

    scheduler: SchedulerPort
    diagnostics: DiagnosticsPort
    notifier: Notifier
    topology: Topology = NO_TOPOLOGY


def fake_cluster(clock: Clock, state: Path | None = None, diagnostics_s: float = 0.0) -> Cluster:
    """The journaled fake cluster (its journal at `state`; in memory when None)."""
    journal = Journal(state)
    return Cluster(
        JournalScheduler(clock, journal),
        JournalDiagnostics(clock, journal, duration_s=diagnostics_s),
        LogNotifier(),
    )


def local_cluster(clock: Clock, scheduler: LocalScheduler, diagnostics_s: float = 0.0) -> Cluster:
    """The local scheduler's nodes: it cordons and drains them; diagnostics are simulated
    (the journaled fake's, in memory, passing after `diagnostics_s`)."""
    return Cluster(
        scheduler, JournalDiagnostics(clock, Journal(None), duration_s=diagnostics_s), LogNotifier()
    )


CLUSTERS = ("fake", "local")  # SEAM(scheduler): "slurm"


def cluster_for(
    kind: str,
    clock: Clock,
    policies: Policies,
    *,
    store_path: str | None,
    dry_run: bool,
    fake_state: Path | None = None,
    diagnostics_s: float = 0.0,
    local_root: Path | None = None,
    local_nodes: Sequence[str] = (),
) -> tuple[Cluster, JobsWiring | None]:
    """The cluster `serve --scheduler KIND` acts on, and job recovery when it can be hosted."""
    if kind == "fake":
        return fake_cluster(clock, fake_state, diagnostics_s), None
    if kind == "local":
        if local_root is None or not local_nodes:
            raise ValueError("--scheduler local needs --local-root and --local-nodes")
        if store_path is None:
            raise ValueError(
                "--scheduler local hosts job recovery, whose store is SQLite: use sqlite:///"
            )
        scheduler = LocalScheduler(local_root, local_nodes, clock)
        jobs = sqlite_jobs(store_path, scheduler, clock, policies, dry_run)
        return local_cluster(clock, scheduler, diagnostics_s), jobs
    raise ValueError(f"unknown scheduler {kind!r} (expected one of {', '.join(CLUSTERS)})")


@dataclass(frozen=True, slots=True)
class JobsWiring:
    """SEAM(jobs): job recovery's store and a factory for its controller."""

    store: JobStorePort
    outbox: HandoverOutbox | None
    build: Callable[[], JobRecoveryController]


def sqlite_jobs(
    path: str,
    scheduler: JobSchedulerPort,
    clock: Clock,
    policies: Policies,
    dry_run: bool,
    settings: JobSettings | None = None,
) -> JobsWiring:
    """Job recovery on the engine's SQLite file (its `job_` tables beside hardware's)."""
    from autorecover.adapters.job_store import SqliteJobStore  # only when jobs are hosted

    store = SqliteJobStore(path)
    catalog = builtin_catalog()

    def build() -> JobRecoveryController:
        return JobRecoveryController(
            store, scheduler, store, clock, policies.jobs, catalog, dry_run,
            notifier=LogNotifier(), settings=settings or JobSettings(),
        )  # fmt: skip

    return JobsWiring(store, store, build)


def hardware_service(
    store: EngineStore,
    cluster: Cluster,
    clock: Clock,
    policies: Policies,
    settings: EngineSettings,
    handovers: HandoverOutbox | None = None,
) -> Service:
    """Hardware recovery, built afresh under each fence."""

    def build(fence: Fence) -> Hosted:
        view = FencedStore(store, fence)
        controller = HardwareController(
            store=view, scheduler=cluster.scheduler, diagnostics=cluster.diagnostics,
            notifier=cluster.notifier, clock=clock, policy=policies.hardware,
            topology=cluster.topology, dry_run=settings.dry_run,
        )  # fmt: skip
        return HostedHardware(controller, view, store, clock, handovers)

    return Service("hardware", build, settings.tick_s, settings.reconcile_s, settings.intake_s)


class HostedJobs:
    """Job recovery as the runner drives it: every pass is `run_once` (level-triggered)."""

    def __init__(self, controller: JobRecoveryController) -> None:
        self.controller = controller

    def start(self) -> None:
        """Execute what was recorded, look at every job."""
        self.controller.run_once()

    def intake(self) -> int:
        """Job recovery reads its jobs itself: nothing to take in."""
        return 0

    def tick(self) -> None:
        """One pass over every watched job."""
        self.controller.run_once()

    def reconcile(self) -> None:
        """`run_once` is level-triggered: a tick reconciles already."""


def jobs_service(jobs: JobsWiring, settings: EngineSettings) -> Service:
    """Job recovery. SEAM(jobs): its store is not fenced by the lease yet — only the runner's
    leadership check guards it — until job recovery's store takes the same `Fence`."""
    return Service(
        "jobs", lambda fence: HostedJobs(jobs.build()), settings.tick_s, settings.reconcile_s
    )


def build_engine(
    store: EngineStore,
    clock: Clock,
    cluster: Cluster,
    policies: Policies,
    settings: EngineSettings,
    *,
    replica: str | None = None,
    jobs: JobsWiring | None = None,
    background: bool = True,
    owns_store: bool = True,
) -> Engine:
    """The engine with hardware recovery (and job recovery, when wired) on one store."""
    services = [
        hardware_service(store, cluster, clock, policies, settings, jobs.outbox if jobs else None)
    ]
    if jobs is not None:
        services.append(jobs_service(jobs, settings))
    leadership = DbLeadership(store, clock, replica, ttl_s=settings.lease_ttl_s)
    return Engine(
        store=store, clock=clock, leadership=leadership,
        services=services, settings=settings, policies=policies,
        jobs=StoreJobsView(jobs.store) if jobs else NO_JOBS, background=background,
        owns_store=owns_store,
    )  # fmt: skip
