"""Node lifecycle: the states hardware recovery moves a node through, as a transition table.

The table is the only truth: `check` raises on any pair not in it, and the diagram in
`docs/hardware-recovery.md` is generated from it by a test, so the picture cannot drift.
Here too live the records the lifecycle produces: a node's record, a transition, a planned
action — each carrying its provenance (who, why, which evidence, which incident).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class NodeState(StrEnum):
    """Where a node stands (persisted: never rename a value)."""

    HEALTHY = "healthy"
    SUSPECT = "suspect"  # no new jobs; running jobs left alone
    QUARANTINED = "quarantined"  # cordoned, tainted, draining
    DIAGNOSING = "diagnosing"
    REMEDIATING = "remediating"
    VALIDATING = "validating"  # a diagnostic under load must pass before the node returns
    NEEDS_ATTENTION = "needs_attention"  # a person has it (RMA, cables, a domain incident)


_H, _S, _Q = NodeState.HEALTHY, NodeState.SUSPECT, NodeState.QUARANTINED
_D, _R, _V = NodeState.DIAGNOSING, NodeState.REMEDIATING, NodeState.VALIDATING
_NA = NodeState.NEEDS_ATTENTION

# (from, to, label): the label is the diagram's edge text.
EDGES: tuple[tuple[NodeState, NodeState, str], ...] = (
    (_H, _S, "risky signal"),
    (_H, _Q, "fault"),
    (_S, _H, "quiet period"),
    (_S, _Q, "fault or repeats"),
    (_S, _NA, "action failed"),
    (_Q, _D, "drained"),
    (_Q, _NA, "drain failed or late"),
    (_Q, _R, "host silent: power cycle"),
    (_D, _R, "fault found"),
    (_D, _V, "nothing to fix"),
    (_D, _NA, "person, RMA, flapping"),
    (_R, _V, "remedy done"),
    (_R, _R, "failed, next step"),
    (_R, _NA, "remedy failed or late"),
    (_V, _H, "validation passed"),
    (_V, _R, "failed, next step"),
    (_V, _NA, "failed, no step left"),
    (_NA, _V, "repaired (person)"),
    (_NA, _H, "returned (person)"),
    (_Q, _H, "released (person)"),
    (_D, _H, "released (person)"),
    (_R, _H, "released (person)"),
)

TRANSITIONS: frozenset[tuple[NodeState, NodeState]] = frozenset((a, b) for a, b, _ in EDGES)

# Only a person may make these moves (`release`); `decide` never does.
PERSON_ONLY: frozenset[tuple[NodeState, NodeState]] = frozenset(
    {(_NA, _V), (_NA, _H), (_Q, _H), (_D, _H), (_R, _H)}
)

# States in which the node is cordoned by us and must stay tracked until it returns.
OUT_OF_SERVICE: frozenset[NodeState] = frozenset(NodeState) - {_H}

# What a person's release may do: any state of ours straight back to service, or a node in
# their hands through validation first.
RELEASES: frozenset[tuple[NodeState, NodeState]] = frozenset(
    {(s, _H) for s in OUT_OF_SERVICE} | {(_NA, _V)}
)
# States of the remediation ladder: each has a deadline, so none can hold a node forever.
LADDER: frozenset[NodeState] = frozenset({_Q, _D, _R, _V})


class LifecycleError(ValueError):
    """A transition that the table does not allow."""


def check(frm: NodeState, to: NodeState) -> None:
    """Raise unless the table allows going from `frm` to `to`."""
    if (frm, to) not in TRANSITIONS:
        raise LifecycleError(f"node lifecycle does not allow {frm} -> {to}")


def mermaid() -> str:
    """The lifecycle as a mermaid state diagram, generated from the table."""
    lines = ["stateDiagram-v2", f"    [*] --> {_H}"]
    lines += [f"    {a} --> {b}: {label}" for a, b, label in EDGES]
    return "\n".join(lines) + "\n"


class ActionKind(StrEnum):
    """What the controller asks a port to do (persisted: never rename a value)."""

    CORDON = "cordon"  # no new jobs
    TAINT = "taint"  # keep workloads off (Kubernetes NoExecute; a Slurm drain reason)
    DRAIN = "drain"  # move running jobs off
    RESUME = "resume"  # remove our cordon and taints; a person's cordon stays
    RESET_GPU = "reset_gpu"
    REBOOT = "reboot"
    POWER_CYCLE = "power_cycle"  # through the node's BMC (Redfish), out of band
    DIAGNOSE = "diagnose"  # a quick diagnostic
    VALIDATE = "validate"  # a diagnostic under load
    ALERT = "alert"  # tell a person


# Actions that change what the scheduler may do with a node: these are rate-limited.
MUTATIONS: frozenset[ActionKind] = frozenset(
    {
        ActionKind.CORDON,
        ActionKind.TAINT,
        ActionKind.DRAIN,
        ActionKind.RESUME,
        ActionKind.RESET_GPU,
        ActionKind.REBOOT,
        ActionKind.POWER_CYCLE,
    }
)

QUARANTINE_TAINT = "autorecover.io/quarantined"
FLEET = ""  # the `node` of an action about no one node (breaker trips, domain incidents)


def action_id(node: str, seq: int, kind: ActionKind, attempt: int = 0) -> str:
    """The deterministic id of an action: the same decision always yields the same id."""
    base = f"{node}/{seq}/{kind}"
    return f"{base}/{attempt}" if attempt else base


@dataclass(frozen=True, slots=True)
class Action:
    """One thing to do through a port, with the provenance that justifies it."""

    id: str
    node: str
    kind: ActionKind
    at: datetime
    by: str  # who decided: the controller's name, or a person's
    why: str
    evidence: tuple[str, ...] = ()
    incident: str | None = None
    target: str | None = None  # GPU bus id, taint key, diagnostic level
    seq: int = 0  # the node's transition this action belongs to


@dataclass(frozen=True, slots=True)
class Transition:
    """One recorded move of a node from one state to another."""

    node: str
    seq: int  # the node's transition count after this move
    frm: NodeState
    to: NodeState
    at: datetime
    by: str
    why: str
    evidence: tuple[str, ...] = ()
    incident: str | None = None

    def __post_init__(self) -> None:
        check(self.frm, self.to)
