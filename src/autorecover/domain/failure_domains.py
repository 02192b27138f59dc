"""Failure domains: racks, NVLink domains (a GB200 NVL72 rack) and InfiniBand leaf switches.

Many nodes of one domain faulting together is one domain incident — a PDU, an NVLink switch
tray, a leaf switch — not N node faults: resetting GPUs one node at a time cannot fix it.
`correlate` finds such domains from recent faults; `advance` opens and closes incidents
with stable ids, so a restart or a recount never alerts twice for the same incident.
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


NO_TOPOLOGY = Topology(MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class Correlation:
    """When faults of one domain count as one incident."""

    window: timedelta = timedelta(minutes=10)
    min_nodes: int = 3  # distinct nodes of one domain faulting within the window


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
) -> tuple[dict[FailureDomain, DomainIncident], list[DomainIncident], list[DomainIncident]]:
    """Open incidents for domains over the threshold, grow open ones, close quiet ones.

    Returns (incidents open now, newly opened, newly closed).
    """
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
        if domain in current or len(nodes) < settings.min_nodes:
            continue
        incident = DomainIncident(incident_id(domain, now), domain, now, nodes)
        current[domain] = incident
        opened.append(incident)
    return current, opened, closed
