"""Frozen records shared by every layer: causes, actions, findings, jobs and verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Cause(StrEnum):
    """Why a job failed, as the verdict states it (persisted: never rename a value)."""

    HARDWARE = "hardware"
    TRANSIENT = "transient"
    APPLICATION = "application"
    UNKNOWN = "unknown"


class Action(StrEnum):
    """What job recovery should do next (persisted: never rename a value)."""

    REQUEUE_EXCLUDING = "requeue_excluding"
    REQUEUE = "requeue"
    STOP = "stop"


ACTION_FOR_CAUSE: dict[Cause, Action] = {
    Cause.HARDWARE: Action.REQUEUE_EXCLUDING,
    Cause.TRANSIENT: Action.REQUEUE,
    Cause.UNKNOWN: Action.REQUEUE,
    Cause.APPLICATION: Action.STOP,
}


class Source(StrEnum):
    """Which file of an incident a line came from."""

    SYSTEM = "system"
    LOGS = "logs"
    JOB = "job"


class Blame(StrEnum):
    """What one signal says on its own, before any cross-node reasoning."""

    HARDWARE = "hardware"  # the node it was seen on (or the peer it names) is faulty
    TRANSIENT = "transient"  # infrastructure or software hiccup a retry gets past
    APPLICATION = "application"  # the job itself is broken
    SYMPTOM = "symptom"  # a consequence of a fault somewhere else (collective timeout, peer exit)
    INFO = "info"  # worth keeping, decides nothing


class NodeAction(StrEnum):
    """What hardware recovery should do with the node a signal points at."""

    NONE = "none"
    MONITOR = "monitor"  # keep watching; a trend or RMA-watch signal
    RESTART_APP = "restart_app"
    RESET_GPU = "reset_gpu"
    DRAIN_AND_RESET = "drain_and_reset"
    REBOOT = "reboot"
    POWER_CYCLE = "power_cycle"  # through the BMC: the host itself does not answer
    INSPECT = "inspect"  # a person: cables, mechanicals, support case


# How far each action goes, least first: a report's action is the furthest any signal asks.
NODE_ACTION_ORDER: tuple[NodeAction, ...] = (
    NodeAction.NONE,
    NodeAction.MONITOR,
    NodeAction.RESTART_APP,
    NodeAction.RESET_GPU,
    NodeAction.DRAIN_AND_RESET,
    NodeAction.REBOOT,
    NodeAction.POWER_CYCLE,
    NodeAction.INSPECT,
)


def action_rank(action: NodeAction) -> int:
    """The action's place in NODE_ACTION_ORDER (higher goes further)."""
    return NODE_ACTION_ORDER.index(action)


def lookup(pairs: tuple[tuple[str, str], ...], key: str) -> str | None:
    """The value of `key` in a tuple of (key, value) pairs, if present."""
    for k, v in pairs:
        if k == key:
            return v
    return None


@dataclass(frozen=True, slots=True)
class Finding:
    """One line that matched a known signal, with where it came from and what it means."""

    signal: str  # "xid.79", "nccl.watchdog_timeout", ...
    node: str
    source: Source
    line: int  # 1-based line number in the file
    text: str
    blame: Blame
    weight: int  # 0..100: how decisive this signal is on its own
    node_action: NodeAction = NodeAction.NONE
    at: datetime | None = None  # wall time (UTC) if known
    rank: int | None = None
    details: tuple[tuple[str, str], ...] = ()
    origin: str | None = None  # the node whose file holds the line, when it names another

    def detail(self, key: str) -> str | None:
        """Return one named detail (an XID number, a peer address, ...) if present."""
        return lookup(self.details, key)


@dataclass(frozen=True, slots=True)
class Activity:
    """How much of a file there was and when it last said something, for hang detection."""

    node: str
    source: Source
    present: bool
    lines: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None  # last timestamped line
    last_progress_at: datetime | None = None  # last training-progress record
    last_step: int | None = None
    progress_records: int = 0  # telemetry records
    progress_lines: int = 0  # plain-text progress lines (a loss and a step), without telemetry
    last_of_run: int | None = None  # the run's last step, when a progress line said it (N of N)
    median_step_interval_s: float | None = None
    # Between plain-text progress lines: a job that logs every 100 steps is silent that long.
    median_progress_gap_s: float | None = None


@dataclass(frozen=True, slots=True)
class JobRecord:
    """The scheduler's view of a job: what `job.json` of an incident bundle holds."""

    scheduler: str
    job: str
    nodes: tuple[str, ...]
    started: datetime
    ended: datetime | None
    collected: datetime
    state: str
    exit_codes: tuple[tuple[str, int], ...] = ()
    state_line: int = 1  # where `state` stands in job.json, for evidence

    @property
    def running(self) -> bool:
        """True while the job has not ended (a suspected hang)."""
        return self.ended is None

    def node_named(self, host: str | None) -> str | None:
        """The job's node a line names as `host`, however the line spells it: exactly, in
        another case (host names are case-insensitive), or by its short name where the
        scheduler lists the full domain name, or the other way round (`gpu-a03` for
        `gpu-a03.cluster.internal`). None when no node, or more than one, fits."""
        if not host:
            return None
        if host in self.nodes:
            return host
        folded = host.lower().rstrip(".")
        short = folded.split(".", 1)[0]
        for key in (folded, short):
            fits = [n for n in self.nodes if key in (n.lower(), n.lower().split(".", 1)[0])]
            if len(fits) == 1:
                return fits[0]
            if fits:
                return None
        return None

    def exit_code(self, node: str) -> int | None:
        """The worst exit code seen on a node, if recorded."""
        for n, code in self.exit_codes:
            if n == node:
                return code
        return None


@dataclass(frozen=True, slots=True)
class Evidence:
    """One line that decided a verdict."""

    node: str
    source: Source
    line: int
    signal: str
    text: str

    def as_dict(self) -> dict[str, object]:
        """The FORMAT.md evidence object."""
        return {
            "node": self.node,
            "source": str(self.source),
            "line": self.line,
            "signal": self.signal,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a job failed, which nodes to avoid, what to do, and the lines that prove it."""

    cause: Cause
    suspect_nodes: tuple[str, ...]
    action: Action
    evidence: tuple[Evidence, ...]
    summary: str = ""
    strength: int = 0  # weight of the most decisive evidence, 0..100

    def __post_init__(self) -> None:
        if self.suspect_nodes and self.cause is not Cause.HARDWARE:
            raise ValueError("suspect nodes may only be named for a hardware cause")

    def as_dict(self) -> dict[str, object]:
        """The FORMAT.md verdict object (plus a summary for people and its strength)."""
        return {
            "cause": str(self.cause),
            "suspect_nodes": list(self.suspect_nodes),
            "action": str(self.action),
            "evidence": [e.as_dict() for e in self.evidence],
            "summary": self.summary,
            "strength": self.strength,
        }
