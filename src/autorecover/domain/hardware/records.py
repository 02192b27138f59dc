"""The records hardware recovery's decision works on: a node's record, what was observed of
it, the context of one decision and the decision itself, and `move`, the one way to make a
transition (the table is checked, the actions carry the transition's provenance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from autorecover.domain.failure_domains import DomainIncident, FailureDomain
from autorecover.domain.hardware.breaker import Admission, BreakerView
from autorecover.domain.hardware.lifecycle import (
    QUARANTINE_TAINT,
    Action,
    ActionKind,
    NodeState,
    Transition,
    action_id,
)
from autorecover.domain.hardware.policy import HardwarePolicy, Mark, SignalClass
from autorecover.domain.hardware.remediation import Attempt, DiagnosticLevel, DiagnosticResult, Step

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EVIDENCE_LINES = 12  # lines kept on a record: enough for a person, bounded under a storm


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """Everything hardware recovery remembers about one node."""

    node: str
    state: NodeState = NodeState.HEALTHY
    since: datetime = EPOCH  # when it entered `state`
    seq: int = 0  # transitions so far; action ids derive from it
    incident: str | None = None  # the incident that took it out
    reason: str = ""
    evidence: tuple[str, ...] = ()
    marks: tuple[Mark, ...] = ()
    held: SignalClass | None = None  # a removal the breaker refused, retried until `hold` ends
    held_since: datetime | None = None
    wanted: Step | None = None  # the ladder step the evidence asks for
    step: Step | None = None  # the step being tried or validated
    component: str | None = None  # the GPU to reset, when the evidence names one
    attempts: tuple[Attempt, ...] = ()
    returns: tuple[datetime, ...] = ()  # when it was returned to service
    tries: int = 0  # diagnostics rerun in this state after errors


@dataclass(frozen=True, slots=True)
class Observation:
    """What the controller saw of the node's current step through the ports."""

    drained: bool = False  # the scheduler reports no running jobs
    pending: bool = False  # an action of the current state is not done yet
    failed: str | None = None  # an action of the current state failed: what the port said
    result: DiagnosticResult | None = None  # the current diagnostic's result, once there


NOTHING_SEEN = Observation()


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """What one decision may consult beyond the node's own record."""

    policy: HardwarePolicy
    breaker: BreakerView
    by: str = "autorecover"
    domains: tuple[FailureDomain, ...] = ()
    incident: DomainIncident | None = None  # an open incident of one of the node's domains
    observation: Observation = NOTHING_SEEN
    dry_run: bool = False  # diagnostics are SKIPPED and drains assumed
    paused: bool = False  # a person paused all acting: decisions are held, nothing moves


@dataclass(frozen=True, slots=True)
class Decision:
    """The new record, the transition (if any), the actions, and notes for the record."""

    record: NodeRecord
    transition: Transition | None = None
    actions: tuple[Action, ...] = ()
    notes: tuple[str, ...] = ()
    removal: bool = False  # the node left healthy: counts against the breaker
    refusal: Admission | None = None  # the breaker said no
    paused: bool = False  # held because acting is paused (its note is said once a pause)


def move(
    rec: NodeRecord,
    to: NodeState,
    now: datetime,
    by: str,
    why: str,
    kinds: Sequence[ActionKind] = (),
    **changes: Any,
) -> Decision:
    """One transition with its actions, all carrying the same provenance."""
    seq = rec.seq + 1
    new = replace(rec, state=to, since=now, seq=seq, reason=why, tries=0, **changes)
    evidence, incident = new.evidence, new.incident
    if to is NodeState.NEEDS_ATTENTION:
        kinds = (*kinds, ActionKind.ALERT)
    t = Transition(rec.node, seq, rec.state, to, now, by, why, evidence, incident)
    actions = tuple(
        Action(
            action_id(rec.node, seq, k), rec.node, k, now, by, why, evidence, incident,
            target(k, new), seq,
        )
        for k in kinds
    )  # fmt: skip
    if to is NodeState.HEALTHY:
        new = replace(new, evidence=(), incident=None)  # the transition keeps them; a fresh start
    return Decision(new, t, actions, removal=rec.state is NodeState.HEALTHY)


def target(kind: ActionKind, rec: NodeRecord) -> str | None:
    """What an action acts on: the taint key, the GPU, the diagnostic level."""
    if kind is ActionKind.TAINT:
        return QUARANTINE_TAINT
    if kind is ActionKind.RESET_GPU:
        return rec.component
    if kind is ActionKind.DIAGNOSE:
        return DiagnosticLevel.QUICK.value
    if kind is ActionKind.VALIDATE:
        return DiagnosticLevel.LOAD.value
    return None
