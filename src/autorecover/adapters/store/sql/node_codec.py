"""Records to and from JSON-ready values, for stores that keep them as text.

The names written here are persisted: change them only with a store migration. Times are
ISO 8601 strings with their UTC offset.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from autorecover.domain.failure_domains import DomainIncident, DomainKind, FailureDomain
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.hardware.policy import Mark, SignalClass
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.hardware.remediation import Attempt, Step
from autorecover.domain.signals import Probe


def when(value: datetime) -> str:
    """A time as stored."""
    return value.isoformat()


def parse_when(value: str) -> datetime:
    """A stored time."""
    return datetime.fromisoformat(value)


def _maybe(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def record_body(rec: NodeRecord) -> str:
    """The parts of a node record kept in its JSON column (the rest are columns)."""
    body: dict[str, Any] = {}
    if rec.reason:
        body["reason"] = rec.reason
    if rec.evidence:
        body["evidence"] = list(rec.evidence)
    if rec.marks:
        body["marks"] = [[m.key, m.probe.value, m.cls.value, when(m.at)] for m in rec.marks]
    if rec.held is not None:
        body["held"] = [rec.held.value, _maybe(rec.held_since)]
    if rec.wanted is not None:
        body["wanted"] = rec.wanted.value
    if rec.step is not None:
        body["step"] = rec.step.value
    if rec.component is not None:
        body["component"] = rec.component
    if rec.attempts:
        body["attempts"] = [[a.step.value, when(a.at)] for a in rec.attempts]
    if rec.returns:
        body["returns"] = [when(t) for t in rec.returns]
    if rec.tries:
        body["tries"] = rec.tries
    return json.dumps(body, separators=(",", ":")) if body else "{}"


def node_record(
    node: str, state: str, since: str, seq: int, incident: str | None, body: str
) -> NodeRecord:
    """A node record from its columns and JSON column."""
    data: dict[str, Any] = json.loads(body) if body and body != "{}" else {}
    held = data.get("held")
    return NodeRecord(
        node=node,
        state=NodeState(state),
        since=parse_when(since),
        seq=seq,
        incident=incident,
        reason=data.get("reason", ""),
        evidence=tuple(data.get("evidence", ())),
        marks=tuple(
            Mark(k, Probe(p), SignalClass(c), parse_when(at))
            for k, p, c, at in data.get("marks", ())
        ),
        held=SignalClass(held[0]) if held else None,
        held_since=parse_when(held[1]) if held and held[1] else None,
        wanted=Step(data["wanted"]) if "wanted" in data else None,
        step=Step(data["step"]) if "step" in data else None,
        component=data.get("component"),
        attempts=tuple(Attempt(Step(s), parse_when(at)) for s, at in data.get("attempts", ())),
        returns=tuple(parse_when(t) for t in data.get("returns", ())),
        tries=int(data.get("tries", 0)),
    )


def lines(values: tuple[str, ...]) -> str:
    """Evidence lines as stored."""
    return json.dumps(list(values), separators=(",", ":"))


def parse_lines(value: str | None) -> tuple[str, ...]:
    """Stored evidence lines."""
    return tuple(json.loads(value)) if value else ()


def incident_nodes(incident: DomainIncident) -> str:
    """A domain incident's nodes as stored."""
    return json.dumps(sorted(incident.nodes), separators=(",", ":"))


def domain_incident(
    id_: str, kind: str, name: str, opened: str, nodes: str, closed: str | None
) -> DomainIncident:
    """A domain incident from its columns."""
    return DomainIncident(
        id_,
        FailureDomain(DomainKind(kind), name),
        parse_when(opened),
        frozenset(json.loads(nodes)),
        parse_when(closed) if closed else None,
    )
