"""The ports hardware recovery acts and remembers through, as Protocols with their records.

Adapters implement them at the edge (Slurm, Kubernetes, SQLite, a pager); the in-memory fakes
in `adapters/fakes/` and `adapters/store/memory.py` serve tests and the simulator. The shared
vocabulary (clock, provenance, alerts, outcomes, errors) is in `controllers.ports`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from autorecover.controllers.ports import ActionStatus, Outcome, Provenance
from autorecover.controllers.requests import Control, Controls, OperatorRequest, Settled
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import Action, Transition
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult
from autorecover.domain.signals import NodeSignal


def provenance_of(action: Action) -> Provenance:
    """The provenance a hardware action carries."""
    return Provenance(action.id, action.by, action.why, action.at, action.evidence, action.incident)


@dataclass(frozen=True, slots=True)
class SchedulerNode:
    """The scheduler's view of one node: who cordoned it, its taints, its running jobs."""

    name: str
    cordoned_by: frozenset[str] = frozenset()  # ours and people's: a person's cordon is theirs
    taints: frozenset[str] = frozenset()
    running_jobs: int = 0
    shows: str = ""  # the scheduler's own words for the node (state, reason, marks), if any
    responding: bool = True  # False: the scheduler says the host does not answer (down)


class SchedulerPort(Protocol):
    """Cordon, taint, drain, resume, reset and reboot nodes; report what the scheduler sees."""

    def observe(self, nodes: Sequence[str]) -> Mapping[str, SchedulerNode]:
        """The scheduler's view of these nodes (unknown nodes are left out)."""
        ...

    def cordoned(self) -> Mapping[str, SchedulerNode]:
        """Every node somebody has cordoned, with who did."""
        ...

    def cordon(self, node: str, provenance: Provenance) -> None:
        """No new jobs on the node (adds our cordon; others' stay)."""
        ...

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Keep workloads off the node with a taint (or its Slurm equivalent)."""
        ...

    def drain(self, node: str, provenance: Provenance) -> None:
        """Move running jobs off the node."""
        ...

    def resume(self, node: str, provenance: Provenance) -> None:
        """Remove our cordon and taints; a person's cordon stays."""
        ...

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Reset one GPU (by bus id) or all of a drained node's GPUs."""
        ...

    def reboot(self, node: str, provenance: Provenance) -> None:
        """Reboot the node (once per action id, however often asked)."""
        ...


class DiagnosticsPort(Protocol):
    """Run diagnostics on drained nodes; a result carries evidence, never a bare bool."""

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start a diagnostic, once per action id; its result is read with `result`."""
        ...

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The diagnostic's result, or None while it runs (or waits for the node to boot)."""
        ...


class PowerPort(Protocol):
    """Out-of-band power through a node's BMC (Redfish), for a host that does not answer."""

    def power_cycle(self, node: str, provenance: Provenance) -> str:
        """Power-cycle the node once per action id; what the BMC was asked. PermanentError
        when the node has no BMC in the inventory or the BMC refuses."""
        ...

    def events(self, node: str, since: datetime) -> list[str]:
        """The BMC's event log (SEL) entries newer than `since`, as evidence lines."""
        ...


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """An action as the store keeps it: the action and how it ended."""

    action: Action
    status: ActionStatus
    updated_at: datetime
    result: str = ""


@dataclass(frozen=True, slots=True)
class Event:
    """A note on the record that is not a transition: held by the breaker, a rerun, an orphan."""

    node: str
    at: datetime
    by: str
    text: str


@dataclass(slots=True)
class Changes:
    """Everything one pass records, written in one transaction."""

    at: datetime  # when the pass ran
    dry_run: bool = False
    records: list[NodeRecord] = field(default_factory=list)
    seen: dict[str, datetime] = field(default_factory=dict)  # node -> last report
    signals: list[NodeSignal] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    incidents: list[DomainIncident] = field(default_factory=list)
    breaker: BreakerState | None = None  # the live breaker, or in dry-run the would-have one
    settled: list[Settled] = field(default_factory=list)  # operator requests acted on

    def __bool__(self) -> bool:
        return bool(
            self.records or self.seen or self.signals or self.transitions or self.actions
            or self.outcomes or self.events or self.incidents or self.breaker is not None
            or self.settled
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a controller needs from the store to resume: loaded once at start."""

    nodes: Mapping[str, NodeRecord]
    pending: Sequence[ActionRecord]  # intended, in the order recorded
    failed: Sequence[ActionRecord]  # failed actions of each node's current transition
    breaker: BreakerState
    incidents: Sequence[DomainIncident]  # open ones
    removals: Sequence[tuple[str, datetime]]  # nodes that left healthy since the asked time
    # Dry-run keeps its own would-have breaker and removals: a trial never trips the real one.
    dry_run_breaker: BreakerState = CLOSED
    dry_run_removals: Sequence[tuple[str, datetime]] = ()


class StorePort(Protocol):
    """The controller's memory: nodes, transitions, actions, signals, events, incidents."""

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything needed to resume after a restart."""
        ...

    def commit(self, changes: Changes) -> None:
        """Record one pass's changes atomically: all of them or none."""
        ...

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        ...

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        ...

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        ...

    def controls(self) -> Controls:
        """The operator's switches in force (read every pass)."""
        ...

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Operator requests of these kinds not yet settled, oldest first."""
        ...
