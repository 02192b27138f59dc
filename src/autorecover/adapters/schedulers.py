"""The scheduler packages `serve` can act on, by name, and what each one's stack hands over.

Each scheduler is a package under `adapters/` whose modules are named by role: `nodes.py`
(hardware recovery's `SchedulerPort`), `jobs.py` (job recovery's `JobSchedulerPort`),
`policy.py` (per-job opt-in and policy), `states.py` (its states in the domain's words) and
`stack.py`, whose `open_stack(options, clock, site)` builds a `SchedulerStack`: everything
the engine needs from that cluster. `SCHEDULERS` maps each name to its stack module, imported
only when that scheduler is opened, so importing this registry imports no cluster client
(lightkube) or database driver: the CLI's start time.

Adding a scheduler is a new package of that shape and one entry here (docs/architecture.md,
"Extending").

`DEFAULT` (`auto`) is what `serve` runs on when no `--scheduler` is given: `detect` picks
Kubernetes inside a pod and Slurm where `scontrol` is on the PATH, and asks for a name
otherwise. The fake and the local scheduler are used only when named.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from autorecover.adapters.kubernetes.settings import KubeSettings
from autorecover.controllers.hardware.ports import DiagnosticsPort, SchedulerPort
from autorecover.controllers.jobs.ports import JobSchedulerPort
from autorecover.controllers.ports import Clock, Notifier
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.hardware.validation import NcclSettings
from autorecover.domain.jobs.settings import SitePolicy

SCHEDULERS: Mapping[str, str] = MappingProxyType(
    {
        "fake": "autorecover.adapters.fakes.stack",
        "local": "autorecover.adapters.local.stack",
        "kubernetes": "autorecover.adapters.kubernetes.stack",
        "slurm": "autorecover.adapters.slurm.stack",
    }
)
AUTO = "auto"


def detect(env: Mapping[str, str], which: Callable[[str], str | None]) -> str:
    """The scheduler `--scheduler auto` means here: `kubernetes` inside a pod
    (KUBERNETES_SERVICE_HOST set), `slurm` where `scontrol` is found; else a ValueError
    asking for `--scheduler` (never the fake: it acts on nothing real)."""
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if which("scontrol") is not None:
        return "slurm"
    raise ValueError(
        "--scheduler auto: not in a Kubernetes pod (no KUBERNETES_SERVICE_HOST) and no "
        "`scontrol` on the PATH; name the cluster with --scheduler "
        "kubernetes|slurm (or fake|local to try the engine out on a simulated one)"
    )


@dataclass(frozen=True, slots=True)
class SchedulerOptions:
    """What `serve`'s flags say about the cluster; each scheduler reads the fields it needs."""

    fake_state: Path | None = None  # fake: its journal file (in memory when None)
    diagnostics_s: float = 0.0  # fake, local: how long a simulated diagnostic runs
    local_root: Path | None = None  # local: where its jobs' files go
    local_nodes: tuple[str, ...] = ()  # local: its simulated nodes
    kube: KubeSettings = field(default_factory=KubeSettings)  # kubernetes
    slurm_conf: Path | None = None  # slurm: SLURM_CONF for its tools (None: the environment's)
    slurm_domain_features: tuple[str, ...] = ()  # slurm: KIND=PREFIX, domains from features
    # slurm: run the NCCL pair test before a node returns, its output under this folder (shared
    # by the engine's host and the nodes); None: no pair test
    nccl_spool: Path | None = None
    nccl: NcclSettings = field(default_factory=NcclSettings)  # `[validation.nccl]`


class HeldLease(Protocol):
    """An external lease as seen after a take-or-renew: its holder and expiry."""

    @property
    def holder(self) -> str | None:
        """Who holds it (None: nobody)."""
        ...

    @property
    def expires_at(self) -> datetime | None:
        """When it runs out unless renewed."""
        ...


class ExternalLease(Protocol):
    """A lease kept outside the store (a Kubernetes Lease), for leader election."""

    def acquire(self, holder: str, now: datetime, ttl_s: float) -> HeldLease:
        """Take or renew it if free, expired or ours; the lease as it now stands."""
        ...

    def release(self, holder: str) -> None:
        """Give it up if ours."""
        ...


def _nothing() -> None:
    """Nothing to close."""


@dataclass(frozen=True, slots=True)
class AgentLogSource:
    """A container an agent should read on its node, and where the engine's copy ends (the
    log file's inode and the offset the last excerpt was read to; 0, 0: from the start)."""

    namespace: str
    pod: str
    uid: str
    container: str
    inode: int = 0
    offset: int = 0


class PodLogSink(Protocol):
    """Job output the node agents read where it is written (Kubernetes' `LogSpool`)."""

    def agent_sources(self, node: str) -> list[AgentLogSource]:
        """The containers `node`'s agent should read; from now on its agent counts as alive."""
        ...

    def agent_excerpt(
        self, node: str, uid: str, container: str, inode: int, offset: int, text: bytes
    ) -> bool:
        """Take one excerpt; False when it is not that node's agent's to ship."""
        ...


@dataclass(frozen=True, slots=True)
class SchedulerStack:
    """Everything the engine needs from one cluster: hardware recovery's ports, job
    recovery's scheduler (None: this scheduler hosts no job recovery), a lease factory for
    leader election (None: none), `close`, called once when the engine stops, and the pair
    test validation under load adds (None: none)."""

    nodes: SchedulerPort
    diagnostics: DiagnosticsPort  # the node's own diagnostics (DCGM)
    notifier: Notifier
    topology: Topology = NO_TOPOLOGY
    jobs: JobSchedulerPort | None = None
    leases: Callable[[str, str], ExternalLease] | None = None  # (namespace, name) -> a lease
    close: Callable[[], None] = _nothing
    # Validation under load through the scheduler (an NCCL pair job), run after the node's own
    # diagnostic passes (`adapters.validating.LoadValidation`); None: the diagnostic alone.
    pair: DiagnosticsPort | None = None
    # Where node agents ship the job output they read on their node (None: nowhere).
    pod_logs: PodLogSink | None = None


class OpenStack(Protocol):
    """`open_stack` in every scheduler's `stack.py`."""

    def __call__(self, options: SchedulerOptions, clock: Clock, site: SitePolicy) -> SchedulerStack:
        """Build the scheduler's stack; a ValueError names an option it lacks."""
        ...


def stack_opener(name: str) -> OpenStack:
    """The `open_stack` of the scheduler called `name` (its package imported now)."""
    path = SCHEDULERS.get(name)
    if path is None:
        raise ValueError(f"unknown scheduler {name!r} (expected one of {', '.join(SCHEDULERS)})")
    opener: OpenStack | None = getattr(importlib.import_module(path), "open_stack", None)
    if not callable(opener):
        raise TypeError(f"scheduler {name!r}: {path} has no open_stack(options, clock, site)")
    return opener


def open_stack(
    name: str, options: SchedulerOptions, clock: Clock, site: SitePolicy | None = None
) -> SchedulerStack:
    """The stack of the scheduler called `name`, built from `options`."""
    return stack_opener(name)(options, clock, site or SitePolicy())
