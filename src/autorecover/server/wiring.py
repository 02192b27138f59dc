"""Wiring the engine for `autorecover serve`: store, cluster ports, services, leadership.

The cluster a serving engine acts on is chosen by name from the scheduler registry
(`adapters.schedulers`: `fake`, `local`, `kubernetes`, `slurm`; `CLUSTERS`), whose
`open_stack` builds that scheduler's ports from one options record. `cluster_for` turns the
stack into hardware recovery's `Cluster` and, when the scheduler has a jobs port, hosts job
recovery on it; with `--node-actions agent` it hands the on-node actions (GPU resets, reboots
where the scheduler does not reboot, DCGM diagnostics, bundles) to the nodes' agents as
orders (`with_agent_actions`, `adapters.agents`). `fake_cluster` and `local_cluster` build
the journaled fake and the demonstration's `LocalScheduler` for callers that wire an engine
themselves (the tests, the demonstration).
Job recovery (`controllers.jobs.JobRecoveryController`) is hosted by passing `jobs=` — e.g.
`jobs_on(store_url, scheduler, ...)` (SQLite or PostgreSQL: its `job_` tables beside
hardware's in the engine's database; or the engine's `memory://` store itself) with a scheduler
that watches jobs (the local scheduler, Kubernetes, Slurm); `sqlite_jobs(path, ...)` is the
same on one SQLite file. Every job-recovery commit is fenced by the leader's lease, as
hardware recovery's are (`FencedJobStore`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from autorecover.adapters.kubernetes.settings import KubeSettings
from autorecover.adapters.local.scheduler import LocalScheduler
from autorecover.adapters.local.stack import local_stack
from autorecover.adapters.notifiers import LogNotifier
from autorecover.adapters.schedulers import (
    AUTO,
    SCHEDULERS,
    ExternalLease,
    PodLogSink,
    SchedulerOptions,
    SchedulerStack,
    open_stack,
)
from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.hardware.executing import NO_HOOKS, Hooks
from autorecover.controllers.hardware.ports import DiagnosticsPort, PowerPort, SchedulerPort
from autorecover.controllers.jobs.acting import NO_JOB_HOOKS, JobHooks
from autorecover.controllers.jobs.controller import JobRecoveryController, JobSettings
from autorecover.controllers.jobs.ports import (
    HandoverOutbox,
    JobSchedulerPort,
    JobStorePort,
    SignalSource,
)
from autorecover.controllers.jobs.records import (
    JobActionRecord,
    JobChanges,
    JobEvent,
    JobIncident,
    JobSnapshot,
    TimelineMark,
)
from autorecover.controllers.orders import OrderBook
from autorecover.controllers.ports import Clock, Notifier
from autorecover.controllers.requests import Control, Controls, OperatorRequest
from autorecover.controllers.topologies import TopologyBook
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.settings import SitePolicy
from autorecover.server.alerting import Alerting, alerts_service
from autorecover.server.engine import Engine, EngineSettings
from autorecover.server.fencing import FencedStore
from autorecover.server.hosting import Hosted, HostedHardware, Service
from autorecover.server.jobs_view import NO_JOBS, JobRequests, StoreJobsView
from autorecover.server.leadership import ClusterLeaseLeadership, DbLeadership, Leadership
from autorecover.server.policies import Policies


@dataclass(frozen=True, slots=True)
class Cluster:
    """The ports hardware recovery acts through."""

    scheduler: SchedulerPort
    diagnostics: DiagnosticsPort
    notifier: Notifier
    topology: Topology = NO_TOPOLOGY
    leases: Callable[[str, str], ExternalLease] | None = None  # (namespace, name) -> a Lease
    close: Callable[[], None] = lambda: None
    power: PowerPort | None = None  # out-of-band power through BMCs (`serve --bmc-inventory`)
    pair: DiagnosticsPort | None = None  # the scheduler's pair test, already in `diagnostics`
    # The labels' domains plus the cliques agents report: hardware recovery learns them, job
    # recovery reads them (controllers/topologies.py). None: a book on `topology`, made here.
    cliques: TopologyBook | None = None

    def __post_init__(self) -> None:
        if self.cliques is None:
            object.__setattr__(self, "cliques", TopologyBook(self.topology))

    def book(self) -> TopologyBook:
        """The failure-domain map both services share."""
        assert self.cliques is not None  # set by __post_init__
        return self.cliques

    @classmethod
    def of(cls, stack: SchedulerStack) -> Cluster:
        """Hardware recovery's part of a scheduler's stack: its diagnostics, with the pair
        test after the node's own diagnostic when the scheduler has one."""
        return cls(stack.nodes, under_load(stack.diagnostics, stack.pair), stack.notifier,
                   stack.topology, stack.leases, stack.close, pair=stack.pair,
                   cliques=TopologyBook(stack.topology))  # fmt: skip


def under_load(own: DiagnosticsPort, pair: DiagnosticsPort | None) -> DiagnosticsPort:
    """The node's own diagnostic, followed under load by the pair test when there is one."""
    if pair is None:
        return own
    from autorecover.adapters.validating import LoadValidation

    return LoadValidation(inner=own, pair=pair)


CLUSTERS = tuple(SCHEDULERS)  # the schedulers by name
SCHEDULER_CHOICES = (AUTO, *CLUSTERS)  # what `serve --scheduler` takes (auto: detected)
NODE_ACTIONS = ("none", "agent")  # the values `serve --node-actions` takes
# Schedulers that reboot a node themselves when the agent runs node actions (Slurm's
# `scontrol reboot` through its RebootProgram); on every other one the agent reboots its host.
SCHEDULER_REBOOTS = frozenset({"slurm"})


def with_agent_actions(
    cluster: Cluster, orders: OrderBook, clock: Clock, *, reboot_by_agent: bool = True
) -> Cluster:
    """The cluster with its on-node actions (GPU resets, reboots unless the scheduler does
    them, DCGM diagnostics, bundles) handed to each node's agent as orders in `orders`."""
    from autorecover.adapters.agents.actions import AgentNodeActions
    from autorecover.adapters.agents.diagnostics import AgentDiagnostics

    nodes = AgentNodeActions(cluster.scheduler, orders, clock, reboot_by_agent=reboot_by_agent)
    own = AgentDiagnostics(orders, clock)
    return replace(cluster, scheduler=nodes, diagnostics=under_load(own, cluster.pair))


def fake_cluster(clock: Clock, state: Path | None = None, diagnostics_s: float = 0.0) -> Cluster:
    """The journaled fake cluster (its journal at `state`; in memory when None)."""
    options = SchedulerOptions(fake_state=state, diagnostics_s=diagnostics_s)
    return Cluster.of(open_stack("fake", options, clock))


def local_cluster(clock: Clock, scheduler: LocalScheduler, diagnostics_s: float = 0.0) -> Cluster:
    """The local scheduler's nodes: it cordons and drains them; diagnostics are simulated
    (passing after `diagnostics_s`)."""
    return Cluster.of(local_stack(scheduler, clock, diagnostics_s))


def cluster_for(
    kind: str,
    clock: Clock,
    policies: Policies,
    *,
    store: str | EngineStore | None = None,
    store_path: str | None = None,
    dry_run: bool,
    fake_state: Path | None = None,
    diagnostics_s: float = 0.0,
    local_root: Path | None = None,
    local_nodes: Sequence[str] = (),
    kube: KubeSettings | None = None,
    slurm_conf: Path | None = None,
    slurm_domain_features: Sequence[str] = (),
    nccl_spool: Path | None = None,
    jobs_settings: JobSettings | None = None,
    node_actions: str = "none",
    orders: OrderBook | None = None,
    job_hooks: JobHooks = NO_JOB_HOOKS,
) -> tuple[Cluster, JobsWiring | None]:
    """The cluster `serve --scheduler KIND` acts on, and job recovery when its scheduler has
    a jobs port: on `store` (the engine's store URL, or its memory store; see `jobs_on`), or
    on the SQLite file `store_path`. With `node_actions="agent"` the on-node actions are
    orders in `orders` (the engine store's) that each node's agent runs."""
    if node_actions not in NODE_ACTIONS:
        choices = ", ".join(NODE_ACTIONS)
        raise ValueError(f"--node-actions is one of {choices}, not {node_actions!r}")
    if node_actions == "agent" and orders is None:
        raise ValueError("--node-actions agent needs the engine store's order book")
    options = SchedulerOptions(
        fake_state=fake_state, diagnostics_s=diagnostics_s, local_root=local_root,
        local_nodes=tuple(local_nodes), kube=kube or KubeSettings(), slurm_conf=slurm_conf,
        slurm_domain_features=tuple(slurm_domain_features), nccl_spool=nccl_spool,
        nccl=policies.hardware.validation.nccl,
    )  # fmt: skip
    stack = open_stack(
        kind, options, clock, SitePolicy(base=policies.jobs, ceilings=policies.job_ceilings)
    )
    cluster = Cluster.of(stack)
    if orders is not None and node_actions == "agent":
        reboots = kind not in SCHEDULER_REBOOTS
        cluster = with_agent_actions(cluster, orders, clock, reboot_by_agent=reboots)
    if stack.jobs is None:
        return cluster, None
    try:
        if store is not None:
            jobs = jobs_on(store, stack.jobs, clock, policies, dry_run, jobs_settings, job_hooks,
                           topology=cluster.book().current)  # fmt: skip
        elif store_path is not None:
            jobs = sqlite_jobs(store_path, stack.jobs, clock, policies, dry_run, jobs_settings,
                               job_hooks, topology=cluster.book().current)  # fmt: skip
        else:
            raise ValueError(
                f"--scheduler {kind} hosts job recovery: it needs the engine's store "
                "(a URL or its memory store) or a SQLite file"
            )
    except BaseException:
        stack.close()
        raise
    return cluster, replace(jobs, pod_logs=stack.pod_logs)


FencedCommit = Callable[[JobChanges, Fence], None]


@dataclass(frozen=True, slots=True)
class JobsWiring:
    """SEAM(jobs): job recovery's store and factories for its controller (`fenced`, when
    set, builds one on a `FencedJobStore` committing through `commit_fenced`: the runner
    uses it)."""

    store: JobStorePort
    outbox: HandoverOutbox | None
    build: Callable[[], JobRecoveryController]
    fenced: Callable[[Fence], JobRecoveryController] | None = None
    commit_fenced: FencedCommit | None = None
    requests: JobRequests | None = None  # where people's retries and stops are recorded
    pod_logs: PodLogSink | None = None  # where node agents ship the job output they read


class FencedJobStore:
    """`JobStorePort` for a job controller built under one fence: each commit records the
    pass only while the lease holds (else `LeaseLostError`, and nothing is recorded)."""

    def __init__(self, store: JobStorePort, commit: FencedCommit, fence: Fence) -> None:
        self._store, self._commit, self.fence = store, commit, fence

    def load(self) -> JobSnapshot:
        """Everything the controller needs to resume."""
        return self._store.load()

    def commit(self, changes: JobChanges) -> None:
        """Record one pass, if the fence still holds."""
        self._commit(changes, self.fence)

    def history(self, job: str) -> JobHistory:
        """A job's history."""
        return self._store.history(job)

    def incidents(
        self, job: str | None = None, *, newest: int | None = None, open_only: bool = False
    ) -> list[JobIncident]:
        """Recorded incidents, oldest first: of one job or all, only the `newest` so many,
        only the open ones."""
        return self._store.incidents(job, newest=newest, open_only=open_only)

    def timeline(self, incident: str) -> list[TimelineMark]:
        """An incident's timeline, in order of time."""
        return self._store.timeline(incident)

    def actions(self, job: str | None = None) -> list[JobActionRecord]:
        """Recorded actions, oldest first."""
        return self._store.actions(job)

    def events(self, job: str | None = None) -> list[JobEvent]:
        """Recorded events, oldest first."""
        return self._store.events(job)

    def controls(self) -> Controls:
        """The operator's switches in force."""
        return self._store.controls()

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Requests about jobs not yet settled, oldest first."""
        return self._store.pending_requests(kinds)


def jobs_on(
    store: str | EngineStore,
    scheduler: JobSchedulerPort,
    clock: Clock,
    policies: Policies,
    dry_run: bool,
    settings: JobSettings | None = None,
    hooks: JobHooks = NO_JOB_HOOKS,
    *,
    topology: Callable[[], Topology] | None = None,
) -> JobsWiring:
    """Job recovery on the engine's store, whatever its backend: a store URL (`sqlite:///`,
    `postgresql://`: its `job_` tables beside hardware's, fenced in the same transaction), or
    the engine's memory store itself (`memory://` names a new, empty one)."""
    from autorecover.adapters.store.memory import MemoryStore
    from autorecover.adapters.store.memory_jobs import MemoryJobStore, MemorySignals
    from autorecover.adapters.store.sql.jobs import open_job_store

    if isinstance(store, str):
        if store.split(":", 1)[0].lower() == "memory":
            raise ValueError("job recovery on memory://: pass the engine's store itself")
        sql = open_job_store(store)

        def sql_commit(changes: JobChanges, fence: Fence) -> None:
            sql.commit(changes, fence=fence)

        return _wired(
            sql,
            sql,
            sql,
            sql_commit,
            scheduler,
            clock,
            policies,
            dry_run,
            settings,
            hooks,
            topology,
        )
    if isinstance(store, MemoryStore):
        engine, memory = store, MemoryJobStore(controls=store.controls)

        def memory_commit(changes: JobChanges, fence: Fence) -> None:
            # In memory the check and the commit are two steps: memory is for trying out.
            engine.commit_pass(None, now=changes.at, fence=fence)
            memory.commit(changes)

        signals = MemorySignals(store.signals)
        return _wired(memory, memory, signals, memory_commit, scheduler, clock, policies,
                      dry_run, settings, hooks, topology)  # fmt: skip
    raise ValueError("job recovery: pass the engine's store URL (sqlite:/// or postgresql://)")


def sqlite_jobs(
    path: str,
    scheduler: JobSchedulerPort,
    clock: Clock,
    policies: Policies,
    dry_run: bool,
    settings: JobSettings | None = None,
    hooks: JobHooks = NO_JOB_HOOKS,
    *,
    topology: Callable[[], Topology] | None = None,
) -> JobsWiring:
    """Job recovery on the engine's SQLite file (its `job_` tables beside hardware's)."""
    from autorecover.adapters.store.sqlite import SqliteJobStore

    store = SqliteJobStore(path)

    def commit(changes: JobChanges, fence: Fence) -> None:
        store.commit(changes, fence=fence)

    return _wired(store, store, store, commit, scheduler, clock, policies, dry_run, settings,
                  hooks, topology)  # fmt: skip


class _RequestingJobStore(JobStorePort, JobRequests, Protocol):
    """Job recovery's store that also keeps people's requests about jobs (SQL, memory)."""


def _wired(
    store: _RequestingJobStore,
    outbox: HandoverOutbox,
    signals: SignalSource,
    fenced_commit: FencedCommit,
    scheduler: JobSchedulerPort,
    clock: Clock,
    policies: Policies,
    dry_run: bool,
    settings: JobSettings | None,
    hooks: JobHooks = NO_JOB_HOOKS,
    topology: Callable[[], Topology] | None = None,
) -> JobsWiring:
    catalog = builtin_catalog()

    def controller(on: JobStorePort) -> JobRecoveryController:
        return JobRecoveryController(
            on, scheduler, signals, clock, policies.jobs, catalog, dry_run,
            notifier=LogNotifier(), settings=settings or JobSettings(),
            ceilings=policies.job_ceilings, hooks=hooks, topology=topology,
        )  # fmt: skip

    return JobsWiring(
        store,
        outbox,
        lambda: controller(store),
        lambda fence: controller(FencedJobStore(store, fenced_commit, fence)),
        fenced_commit,
        store,
    )


def hardware_service(
    store: EngineStore,
    cluster: Cluster,
    clock: Clock,
    policies: Policies,
    settings: EngineSettings,
    handovers: HandoverOutbox | None = None,
    hooks: Hooks = NO_HOOKS,
) -> Service:
    """Hardware recovery, built afresh under each fence."""

    book = cluster.book()

    def build(fence: Fence) -> Hosted:
        view = FencedStore(store, fence)

        def controller() -> HardwareController:
            return HardwareController(
                store=view, scheduler=cluster.scheduler, diagnostics=cluster.diagnostics,
                notifier=cluster.notifier, clock=clock, policy=policies.hardware,
                topology=cluster.topology, dry_run=settings.dry_run,
                fleet_size=settings.fleet_size, power=cluster.power, hooks=hooks, book=book,
            )  # fmt: skip

        return HostedHardware(
            controller, view, store, clock, handovers,
            chunk=settings.intake_chunk, budget_s=settings.intake_budget_s,
        )  # fmt: skip

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
    """Job recovery, built afresh under each fence (its commits fenced, when it can be)."""

    def build(fence: Fence) -> Hosted:
        return HostedJobs(jobs.fenced(fence) if jobs.fenced is not None else jobs.build())

    return Service("jobs", build, settings.tick_s, settings.reconcile_s)


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
    cluster_lease: ExternalLease | None = None,
    alerting: Alerting | None = None,
    hardware_hooks: Hooks = NO_HOOKS,
) -> Engine:
    """The engine with hardware recovery (and job recovery, when wired) on one store, and
    the alerting pass when `alerting` names where alerts go (`server.alerting.open_alerting`)."""
    outbox = jobs.outbox if jobs else None
    services = [hardware_service(store, cluster, clock, policies, settings, outbox, hardware_hooks)]
    if jobs is not None:
        services.append(jobs_service(jobs, settings))
    if alerting is not None:
        jobs_store = jobs.store if jobs is not None else None
        services.append(alerts_service(store, alerting, clock, cluster.topology, jobs_store))
    db = DbLeadership(store, clock, replica, ttl_s=settings.lease_ttl_s)
    leadership: Leadership = (
        db if cluster_lease is None else ClusterLeaseLeadership(cluster_lease, db, clock)
    )
    return Engine(
        store=store, clock=clock, leadership=leadership,
        services=services, settings=settings, policies=policies,
        jobs=StoreJobsView(jobs.store, jobs.requests) if jobs else NO_JOBS, background=background,
        owns_store=owns_store, alerting=alerting, topology=cluster.topology,
        pod_logs=jobs.pod_logs if jobs else None,
    )  # fmt: skip
