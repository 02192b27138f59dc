"""`serve --scheduler slurm`: everything the engine needs from one Slurm cluster.

Slurm's own command-line tools, run as argument lists with the environment the engine was
started with (`SLURM_CONF` from there, or `--slurm-conf`): `SlurmScheduler` is hardware
recovery's scheduler (drains with our reason, resumes only our drains, `scontrol reboot`),
`SlurmJobs` over it is job recovery's (jobs opt in by `--comment` under the site's default,
requeues with exclusions, each job's output files followed).

Failure domains come from node features when `--slurm-domain-feature KIND=PREFIX` names
them: with `rack=rack_`, a node whose features include `rack_r1` is in rack `r1`. Every node
is in the topology, with or without domains: the breaker's fleet is the cluster's nodes.

Diagnostics: the node's own run on the node, through its agent (`serve --node-actions agent`
hands `dcgmi diag` to the agent as an order and replaces `stack.diagnostics`). Without agents
the stack holds `UnvalidatedDiagnostics`, which pass at once and say so in their evidence.
With `--nccl-spool DIR`, validation under load adds the NCCL pair test as a Slurm job in a
maintenance reservation (`SlurmPairValidation`, `stack.pair`), its output under DIR.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autorecover.adapters.notifiers import LogNotifier
from autorecover.adapters.schedulers import SchedulerOptions, SchedulerStack
from autorecover.adapters.slurm.commands import Commands, SubprocessRunner
from autorecover.adapters.slurm.jobs import SlurmJobs
from autorecover.adapters.slurm.names import InvalidNameError, node_name
from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.validation import SlurmPairValidation
from autorecover.controllers.hardware.ports import DiagnosticsPort
from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.failure_domains import DomainKind, Topology
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.hardware.validation import NcclSettings
from autorecover.domain.jobs.settings import SitePolicy

UNVALIDATED = "not validated: no diagnostics run without the node agents (--node-actions agent)"


class UnvalidatedDiagnostics:
    """`DiagnosticsPort` placeholder: every run passes at once, its evidence saying that
    nothing ran. Stands where the agent-backed diagnostics go (see the module docstring)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._started: dict[str, tuple[str, DiagnosticLevel, datetime]] = {}

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Note the run, once per action id."""
        self._started.setdefault(provenance.action_id, (node, level, self._clock.now()))

    def result(self, action_id: str) -> DiagnosticResult | None:
        """A pass that says nothing ran; None for a run never started here."""
        found = self._started.get(action_id)
        if found is None:
            return None
        node, level, at = found
        return DiagnosticResult(action_id, node, level, Verdict.PASS, at, evidence=(UNVALIDATED,))


@dataclass(frozen=True, slots=True)
class DomainFeature:
    """`KIND=PREFIX`: a node feature starting with PREFIX names the node's domain of KIND."""

    kind: DomainKind
    prefix: str


def domain_features_from(items: Sequence[str]) -> tuple[DomainFeature, ...]:
    """`--slurm-domain-feature KIND=PREFIX` flags as records; ValueError says what is wrong."""
    out = []
    for item in items:
        kind, sep, prefix = item.partition("=")
        if not sep or not prefix or kind not in {k.value for k in DomainKind}:
            allowed = ", ".join(k.value for k in DomainKind)
            raise ValueError(
                f"--slurm-domain-feature {item!r}: expected KIND=PREFIX, KIND one of {allowed}"
            )
        out.append(DomainFeature(DomainKind(kind), prefix))
    return tuple(out)


def topology_from_features(
    features: dict[str, tuple[str, ...]], domains: Sequence[DomainFeature]
) -> Topology:
    """Failure domains from node features (pure): {node: {kind: the feature less its prefix}}.
    A node with two features of one kind keeps the first in Slurm's order."""
    found: dict[str, dict[str, str]] = {}
    for node, names in features.items():
        mine: dict[str, str] = {}
        for domain in domains:
            for feature in names:
                rest = feature.removeprefix(domain.prefix)
                if feature.startswith(domain.prefix) and rest and domain.kind not in mine:
                    mine[domain.kind.value] = rest
        found[node] = mine
    return Topology.from_labels(found)


def read_features(commands: Commands) -> dict[str, tuple[str, ...]]:
    """Every node's available features: `sinfo --Node --format=%N|%f` (one line per node and
    partition; the same features on each)."""
    done = commands.read(["sinfo", "--noheader", "--Node", "--format=%N|%f"])
    out: dict[str, tuple[str, ...]] = {}
    for line in done.stdout.splitlines():
        name, sep, listed = line.strip().partition("|")
        if not sep:
            continue
        try:
            node = node_name(name)
        except InvalidNameError:
            continue  # not a name we could act on anyway
        words = tuple(f for f in listed.split(",") if f and f != "(null)")
        out[node] = tuple(dict.fromkeys(out.get(node, ()) + words))
    return out


def slurm_stack(
    scheduler: SlurmScheduler,
    clock: Clock,
    site: SitePolicy,
    domains: Sequence[DomainFeature] = (),
    *,
    diagnostics: DiagnosticsPort | None = None,
    nccl_spool: Path | None = None,
    nccl: NcclSettings | None = None,
) -> SchedulerStack:
    """The stack on a scheduler built elsewhere (tests build their own on a test cluster);
    with `nccl_spool`, the NCCL pair test as the stack's `pair`."""
    topology = topology_from_features(read_features(scheduler.commands), domains)
    pair = None
    if nccl_spool is not None:
        nccl_spool.mkdir(parents=True, exist_ok=True)
        pair = SlurmPairValidation(scheduler, nccl or NcclSettings(), topology, nccl_spool,
                                   user=getpass.getuser())  # fmt: skip
    return SchedulerStack(
        nodes=scheduler,
        diagnostics=diagnostics or UnvalidatedDiagnostics(clock),
        notifier=LogNotifier(),
        topology=topology,
        jobs=SlurmJobs(scheduler, site),
        pair=pair,
    )


def open_stack(options: SchedulerOptions, clock: Clock, site: SitePolicy) -> SchedulerStack:
    """`serve --scheduler slurm`: Slurm's tools with this environment (`options.slurm_conf`
    as SLURM_CONF when given), failure domains from `options.slurm_domain_features`."""
    env = {"SLURM_CONF": str(options.slurm_conf)} if options.slurm_conf is not None else {}
    if options.slurm_conf is not None and not options.slurm_conf.is_file():
        raise ValueError(f"--slurm-conf {options.slurm_conf}: no such file")
    scheduler = SlurmScheduler(SubprocessRunner(env))
    domains = domain_features_from(options.slurm_domain_features)
    return slurm_stack(scheduler, clock, site, domains, nccl_spool=options.nccl_spool,
                       nccl=options.nccl)  # fmt: skip
