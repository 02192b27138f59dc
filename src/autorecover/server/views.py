"""Records as the API shows them: nodes, actions, and hardware incidents with their timelines.

A hardware incident is every transition and action that carries one incident id (a node's
own `hw/...`, or a failure domain's `domain/...`); it is open while one of its nodes is
still out of service under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from autorecover.adapters.store.base import DeadLetter, EngineStore, NodeView
from autorecover.controllers.hardware.ports import ActionRecord, Event
from autorecover.controllers.requests import Control, OperatorRequest
from autorecover.domain.failure_domains import NO_TOPOLOGY, DomainIncident, Topology
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import NodeState, Transition
from autorecover.domain.signals import NodeSignal
from autorecover.server.schemas import (
    ActionOut,
    BreakerOut,
    DeadLetterOut,
    EventOut,
    IncidentDetail,
    IncidentOut,
    NodeDetail,
    NodeOut,
    RequestOut,
    SignalOut,
    TimelineEntry,
    TransitionOut,
)

if TYPE_CHECKING:  # jobs_view imports this module
    from autorecover.server.jobs_view import JobsView

INCIDENTS_LIMIT = 1000  # what a listing shows unless asked for more
INCIDENTS_MAX = 100_000


def node_out(view: NodeView) -> NodeOut:
    """A node's summary."""
    r = view.record
    return NodeOut(
        name=r.node, state=r.state.value, since=r.since, reason=r.reason, incident=r.incident,
        evidence=list(r.evidence), last_seen=view.last_seen,
        held=r.held.value if r.held else None, step=r.step.value if r.step else None,
    )  # fmt: skip


def node_detail(
    store: EngineStore, view: NodeView, limit: int = 100, topology: Topology = NO_TOPOLOGY
) -> NodeDetail:
    """A node with its latest transitions, actions, events, signals and people's requests."""
    name = view.record.node
    domains = tuple(str(d) for d in topology.of(name))
    held = store.controls().in_maintenance(name, domains)
    return NodeDetail(
        **node_out(view).model_dump(),
        transitions=[transition_out(t) for t in store.transitions(name)[-limit:]],
        actions=[action_out(a) for a in store.actions(name)[-limit:]],
        events=[event_out(e) for e in store.events(name)[-limit:]],
        signals=[signal_out(s) for s in store.node_signals(name, limit)],
        audit=[request_out(r) for r in store.requests(targets=(name, f"node:{name}"), limit=limit)],
        maintenance=request_out(held) if held is not None else None,
    )


def with_audit(store: EngineStore, detail: IncidentDetail) -> IncidentDetail:
    """An incident with people's requests about it (acknowledgements) and, for a hardware
    incident, about its nodes since it opened (releases), in its audit and timeline."""
    found = {r.id: r for r in store.requests(detail.id)}
    if detail.source == "hardware" and detail.nodes:
        for r in store.requests(targets=detail.nodes):
            if r.at >= detail.opened_at:
                found[r.id] = r
    listed = {a.id for a in detail.audit}
    new = sorted((r for r in found.values() if r.id not in listed), key=lambda r: r.at)
    if not new:
        return detail
    timeline = sorted([*detail.timeline, *map(request_mark, new)], key=lambda e: e.at)
    audit = sorted([*detail.audit, *map(request_out, new)], key=lambda r: r.at)
    return detail.model_copy(update={"timeline": timeline, "audit": audit})


def request_mark(r: OperatorRequest) -> TimelineEntry:
    """A request as a moment of an incident's timeline."""
    how = f"{r.status}: {r.result}" if r.result else str(r.status)
    node = r.target.removeprefix("node:") if r.kind is not Control.ACKNOWLEDGE else ""
    return TimelineEntry(
        at=r.at, what=f"operator {r.kind}", node=node,
        text=f"{r.by} from {r.source or 'unknown'}: {r.why} [{how}]",
    )  # fmt: skip


def request_out(r: OperatorRequest) -> RequestOut:
    """One operator request as the API shows it."""
    return RequestOut(
        id=r.id, kind=r.kind.value, target=r.target, by=r.by, why=r.why, source=r.source,
        at=r.at, options=dict(r.options), status=r.status.value, done_at=r.done_at,
        result=r.result,
    )  # fmt: skip


def breaker_out(b: BreakerState) -> BreakerOut:
    """One breaker as the API shows it."""
    return BreakerOut(
        tripped=b.tripped, tripped_at=b.tripped_at, reason=b.reason, reset_by=b.reset_by,
        reset_at=b.reset_at, reset_why=b.reset_why,
    )  # fmt: skip


def transition_out(t: Transition) -> TransitionOut:
    """One transition."""
    return TransitionOut(
        node=t.node, seq=t.seq, from_state=t.frm.value, to_state=t.to.value, at=t.at, by=t.by,
        why=t.why, evidence=list(t.evidence), incident=t.incident,
    )  # fmt: skip


def action_out(record: ActionRecord) -> ActionOut:
    """One action with its status."""
    a = record.action
    return ActionOut(
        id=a.id, node=a.node, kind=a.kind.value, status=record.status.value, at=a.at,
        updated_at=record.updated_at, by=a.by, why=a.why, target=a.target, incident=a.incident,
        result=record.result, evidence=list(a.evidence),
    )  # fmt: skip


def event_out(e: Event) -> EventOut:
    """One event."""
    return EventOut(node=e.node, at=e.at, by=e.by, text=e.text)


def signal_out(s: NodeSignal) -> SignalOut:
    """One recorded signal."""
    return SignalOut(
        probe=s.probe.value, signal=s.signal, blame=s.blame.value, weight=s.weight,
        node_action=s.node_action.value, at=s.at, count=s.count, component=s.component,
        text=s.text, incident=s.incident,
    )  # fmt: skip


def dead_letter_out(d: DeadLetter) -> DeadLetterOut:
    """One dead letter."""
    return DeadLetterOut(
        id=d.id, batch=d.batch, node=d.node, agent=d.agent, received_at=d.received_at,
        failed_at=d.failed_at, error=d.error, body=d.body,
    )  # fmt: skip


def hardware_incidents(
    store: EngineStore, limit: int | None = None, *, open_only: bool = False
) -> list[IncidentOut]:
    """Hardware incidents, oldest first: every one, the newest `limit`, or (`open_only`, which
    takes no limit) every open one.

    A long history is not read whole for a page: the newest `limit` are chosen by the store
    (one grouped scan) and only their transitions read; the open ones are those of nodes not
    healthy now, and the domain incidents not closed."""
    domains = {d.id: d for d in store.domain_incidents()}
    if open_only:
        wanted = {v.record.incident for v in store.node_views()
                  if v.record.state is not NodeState.HEALTHY and v.record.incident}  # fmt: skip
        transitions = store.incident_transitions(wanted)
        domains = {i: d for i, d in domains.items() if d.closed_at is None or i in wanted}
    elif limit is not None:
        transitions = store.incident_transitions(store.newest_incidents(limit))
    else:
        transitions = store.transitions()
    by_id: dict[str, list[Transition]] = {}
    for t in transitions:
        if t.incident:
            by_id.setdefault(t.incident, []).append(t)
    out = [_incident(i, ts, domains.get(i)) for i, ts in by_id.items()]
    out += [_incident(d.id, [], d) for d in domains.values() if d.id not in by_id]
    if open_only:
        out = [i for i in out if i.state == "open"]
    out.sort(key=lambda i: (i.opened_at, i.id))
    return out if limit is None or open_only else out[-limit:]


def listed_incidents(
    store: EngineStore, jobs: JobsView, limit: int, state: str = ""
) -> list[IncidentOut]:
    """The newest `limit` incidents, hardware and job, oldest first; `state` "open" gives
    every open one however old (a person's work list), "closed" the closed ones among them."""
    open_only = state == "open"
    found = hardware_incidents(store, limit, open_only=open_only)
    found += jobs.incidents(None if open_only else limit, open_only=open_only)
    if state == "closed":
        found = [i for i in found if i.state == "closed"]
    found.sort(key=lambda i: (i.opened_at, i.id))
    return found if open_only else found[-limit:]


def hardware_incident(store: EngineStore, incident: str) -> IncidentDetail | None:
    """One hardware incident with its evidence and timeline; None when unknown."""
    transitions, actions = store.trail(incident)
    domain = next((d for d in store.domain_incidents() if d.id == incident), None)
    if not transitions and not actions and domain is None:
        return None
    summary = _incident(incident, transitions, domain)
    evidence = list(dict.fromkeys(line for t in transitions for line in t.evidence))
    timeline = [
        TimelineEntry(at=t.at, what="transition", node=t.node,
                      text=f"{t.frm} -> {t.to}: {t.why}")
        for t in transitions
    ] + [
        TimelineEntry(at=a.action.at, what=f"action {a.status}", node=a.action.node,
                      text=f"{a.action.kind} ({a.action.id}){': ' + a.result if a.result else ''}")
        for a in actions
    ]  # fmt: skip
    if domain is not None:
        timeline.append(TimelineEntry(at=domain.opened_at, what="domain", node="",
                                      text=f"{domain.domain} incident opened"))  # fmt: skip
    timeline.sort(key=lambda e: e.at)
    return IncidentDetail(**summary.model_dump(), evidence=evidence, timeline=timeline)


def _incident(
    incident: str, transitions: Sequence[Transition], domain: DomainIncident | None
) -> IncidentOut:
    last: dict[str, Transition] = {}
    for t in transitions:
        last[t.node] = t
    nodes = set(last) | (set(domain.nodes) if domain else set())
    open_ = any(t.to is not NodeState.HEALTHY for t in last.values())
    if domain is not None:
        open_ = open_ or domain.closed_at is None
    times = [t.at for t in transitions] + ([domain.opened_at] if domain else [])
    return IncidentOut(
        id=incident, source="hardware", kind="domain" if domain else "node", cause="hardware",
        state="open" if open_ else "closed", opened_at=min(times), updated_at=max(times),
        nodes=sorted(nodes), summary=transitions[0].why if transitions else str(domain.domain)
        if domain else "",
    )  # fmt: skip
