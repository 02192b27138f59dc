"""Failure domains: racks, NVLink domains (a GB200 NVL72 rack) and InfiniBand leaf switches.

Many nodes of one domain faulting together is one domain incident — a PDU, an NVLink switch
tray, a leaf switch — not N node faults: resetting GPUs one node at a time cannot fix it.
`faulting` finds such domains from recent faults; `advance` opens and closes incidents
with stable ids, so a restart or a recount never alerts twice for the same incident.

An NVLink domain is a clique (`nvidia.com/gpu.clique`, `<cluster uuid>.<clique id>`): the
node label where GPU feature discovery runs, the agent's `fabric.clique` report otherwise
(`Topology.with_cliques`). A fault of the fabric itself (the agent's `fabric.*` and `imex.*`
signals, the kernel's NVSwitch SXids) says more about the domain than any other: fewer nodes
of one NVLink domain reporting one (`Correlation.fabric_min_nodes`) make its incident.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType


class DomainKind(StrEnum):
    """A kind of failure domain (persisted: never rename a value)."""

    RACK = "rack"
    NVLINK = "nvlink"  # an NVLink domain: the GPUs one set of NVSwitches joins
    IB_LEAF = "ib_leaf"


@dataclass(frozen=True, slots=True)
class FailureDomain:
    """One rack, NVLink domain or IB leaf, by kind and name."""

    kind: DomainKind
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True, slots=True)
class Topology:
    """Which failure domains each node belongs to; nodes not listed belong to none."""

    domains: Mapping[str, tuple[FailureDomain, ...]]

    def of(self, node: str) -> tuple[FailureDomain, ...]:
        """The node's domains."""
        return self.domains.get(node, ())

    @classmethod
    def from_labels(cls, labels: Mapping[str, Mapping[str, str]]) -> Topology:
        """Build from {node: {"rack": "r1", "nvlink": "nvl-3", "ib_leaf": "leaf-7"}}."""
        out: dict[str, tuple[FailureDomain, ...]] = {}
        for node, kinds in labels.items():
            out[node] = tuple(
                FailureDomain(DomainKind(kind), name) for kind, name in sorted(kinds.items())
            )
        return cls(MappingProxyType(out))

    def members(self, domain: FailureDomain) -> frozenset[str]:
        """Every node the topology places in this domain."""
        return frozenset(n for n, ds in self.domains.items() if domain in ds)

    def nvlink_of(self, node: str) -> FailureDomain | None:
        """The node's NVLink domain (its clique), if it has one."""
        return next((d for d in self.of(node) if d.kind is DomainKind.NVLINK), None)

    def with_cliques(self, reported: Mapping[str, str]) -> Topology:
        """Add the cliques nodes reported themselves ({node: clique}) as NVLink domains, for
        nodes the labels gave none: a label, where there is one, is what placement reads."""
        out = dict(self.domains)
        for node, clique in reported.items():
            if clique and self.nvlink_of(node) is None:
                out[node] = (*out.get(node, ()), FailureDomain(DomainKind.NVLINK, clique))
        return Topology(MappingProxyType(out))


NO_TOPOLOGY = Topology(MappingProxyType({}))

CLIQUE_SIGNAL = "fabric.clique"  # the agent's report of its node's clique (details: clique)
FABRIC_SIGNALS = ("fabric.", "imex.", "nvswitch.")  # key prefixes of faults of the fabric


def is_fabric_fault(signal: str) -> bool:
    """A signal key that speaks of the NVLink fabric (its switches, manager, IMEX), not a GPU."""
    return signal != CLIQUE_SIGNAL and signal.startswith(FABRIC_SIGNALS)


@dataclass(frozen=True, slots=True)
class Correlation:
    """When faults of one domain count as one incident."""

    window: timedelta = timedelta(minutes=10)
    min_nodes: int = 3  # distinct nodes of one domain faulting within the window
    # Distinct nodes of one NVLink domain reporting a fault of the fabric itself within the
    # window: two nodes seeing their shared switch tray fail is already the tray.
    fabric_min_nodes: int = 2


@dataclass(frozen=True, slots=True)
class DomainIncident:
    """Many nodes of one domain faulting together: one incident for a person."""

    id: str
    domain: FailureDomain
    opened_at: datetime
    nodes: frozenset[str]
    closed_at: datetime | None = None


def incident_id(domain: FailureDomain, at: datetime) -> str:
    """A stable id: the domain and the moment its incident opened."""
    return f"domain/{domain.kind}/{domain.name}/{at:%Y%m%dT%H%M%SZ}"


def faulting(
    faults: Iterable[tuple[str, datetime]], topology: Topology, now: datetime, window: timedelta
) -> dict[FailureDomain, frozenset[str]]:
    """Per domain, the distinct nodes that faulted within `window` before `now`."""
    since = now - window
    found: dict[FailureDomain, set[str]] = {}
    for node, at in faults:
        if at <= since:
            continue
        for domain in topology.of(node):
            found.setdefault(domain, set()).add(node)
    return {d: frozenset(nodes) for d, nodes in found.items()}


def advance(
    open_incidents: Mapping[FailureDomain, DomainIncident],
    faulting_now: Mapping[FailureDomain, frozenset[str]],
    settings: Correlation,
    now: datetime,
    fabric_now: Mapping[FailureDomain, frozenset[str]] | None = None,
) -> tuple[dict[FailureDomain, DomainIncident], list[DomainIncident], list[DomainIncident]]:
    """Open incidents for domains over the threshold, grow open ones, close quiet ones.

    `fabric_now` holds, per NVLink domain, the nodes whose faults were of the fabric (a subset
    of `faulting_now`'s): `fabric_min_nodes` of them open the domain's incident.
    Returns (incidents open now, newly opened, newly closed).
    """
    fabric = fabric_now or {}
    current: dict[FailureDomain, DomainIncident] = {}
    opened: list[DomainIncident] = []
    closed: list[DomainIncident] = []
    for domain, incident in open_incidents.items():
        nodes = faulting_now.get(domain, frozenset())
        if not nodes:
            closed.append(
                DomainIncident(incident.id, domain, incident.opened_at, incident.nodes, now)
            )
            continue
        current[domain] = DomainIncident(
            incident.id, domain, incident.opened_at, incident.nodes | nodes
        )
    for domain, nodes in faulting_now.items():
        if domain in current or not _over(domain, nodes, fabric, settings):
            continue
        incident = DomainIncident(incident_id(domain, now), domain, now, nodes)
        current[domain] = incident
        opened.append(incident)
    return current, opened, closed


def _over(
    domain: FailureDomain,
    nodes: frozenset[str],
    fabric: Mapping[FailureDomain, frozenset[str]],
    settings: Correlation,
) -> bool:
    if len(nodes) >= settings.min_nodes:
        return True
    on_fabric = fabric.get(domain, frozenset()) & nodes
    return domain.kind is DomainKind.NVLINK and len(on_fabric) >= settings.fabric_min_nodes
