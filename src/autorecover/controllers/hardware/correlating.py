"""Domain correlation in the controller: recent faults in, domain incidents out.

Faults are signals that would mark a node suspect or quarantine it, counted when they arrive
(after a restart, when they were observed). When enough nodes of one rack, NVLink domain or
IB leaf fault together, one domain incident opens (one alert), its nodes are kept off new jobs
but not put through node remedies, and it closes once the domain has been quiet for the
correlation window. Faults of the NVLink fabric itself (`is_fabric_fault`) are also counted
apart, so fewer nodes of one NVLink domain make its incident. Incident ids are stable from
opening to closing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from autorecover.controllers.counting import FaultWindow
from autorecover.domain.failure_domains import (
    Correlation,
    DomainIncident,
    FailureDomain,
    Topology,
    advance,
    incident_id,
    is_fabric_fault,
)
from autorecover.domain.hardware.lifecycle import FLEET, Action, ActionKind


@dataclass(frozen=True, slots=True)
class Changed:
    """Incidents to record and alerts to send after one correlation step."""

    incidents: tuple[DomainIncident, ...] = ()
    alerts: tuple[Action, ...] = ()


NO_CHANGE = Changed()


class Correlator:
    """Keeps recent faults and the open domain incidents."""

    def __init__(
        self,
        topology: Topology,
        settings: Correlation,
        by: str,
        open_incidents: Iterable[DomainIncident] = (),
    ) -> None:
        self._settings = settings
        self._by = by
        self._faults = FaultWindow(settings.window, topology)
        self._fabric = FaultWindow(settings.window, topology)
        self.open: dict[FailureDomain, DomainIncident] = {i.domain: i for i in open_incidents}

    def learn(self, topology: Topology) -> None:
        """Count later faults with this topology (a node's clique became known)."""
        self._faults.topology = self._fabric.topology = topology

    def remember(self, faults: Iterable[tuple[str, datetime, str]]) -> None:
        """Faults known before a restart (node, when, signal key: the node records' marks)."""
        for node, at, key in sorted(faults, key=lambda f: f[1]):
            self._faults.add(node, at)
            if is_fabric_fault(key):
                self._fabric.add(node, at)

    def of(self, domains: Iterable[FailureDomain]) -> DomainIncident | None:
        """The open incident of one of these domains, if any."""
        for domain in domains:
            incident = self.open.get(domain)
            if incident is not None:
                return incident
        return None

    def step(self, now: datetime, faulted: Iterable[str], fabric: Iterable[str] = ()) -> Changed:
        """Take in the nodes that faulted in this pass (`fabric`: those whose faults were of the
        NVLink fabric, also in `faulted`); open, grow or close incidents."""
        touched = self._faults.expire(now)
        self._fabric.expire(now)
        for node in faulted:
            touched.update(self._faults.add(node, now))
        for node in fabric:
            self._fabric.add(node, now)
        if not touched:
            return NO_CHANGE
        # Only domains whose counts changed can open, grow or close an incident.
        now_faulting = {d: self._faults.nodes(d) for d in touched}
        current, opened, closed = advance(
            {d: self.open[d] for d in touched if d in self.open},
            {d: nodes for d, nodes in now_faulting.items() if nodes},
            self._settings,
            now,
            {d: self._fabric.nodes(d) for d in touched},
        )
        grown = [i for d, i in current.items() if d in self.open and i.nodes != self.open[d].nodes]
        for incident in closed:
            del self.open[incident.domain]
        self.open.update(current)
        alerts = tuple(self._alert(i, now) for i in opened)
        return Changed((*opened, *grown, *closed), alerts)

    def budget_spent(self, domain: FailureDomain, node: str, now: datetime) -> Changed:
        """A domain's removal budget is spent: its faults become one incident if not yet one."""
        if domain in self.open:
            return NO_CHANGE
        incident = DomainIncident(incident_id(domain, now), domain, now, frozenset({node}))
        self.open[domain] = incident
        return Changed((incident,), (self._alert(incident, now, "removal budget spent"),))

    def _alert(self, incident: DomainIncident, now: datetime, why: str = "") -> Action:
        nodes = ", ".join(sorted(incident.nodes))
        window = int(self._settings.window.total_seconds())
        fabric = self._fabric.nodes(incident.domain)
        what = "reported a fault of the NVLink fabric" if len(fabric) > 1 else "faulted"
        cause = why or f"{len(incident.nodes)} nodes {what} within {window}s"
        text = f"domain incident {incident.domain}: {cause} ({nodes})"
        return Action(
            incident.id, FLEET, ActionKind.ALERT, now, self._by, text, incident=incident.id
        )
