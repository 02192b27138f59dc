"""Slurm job and node states -> the domain's words.

Jobs: Slurm shows one state word per job, a flag winning over the base state (`COMPLETING`,
`REQUEUED`, `REQUEUE_HOLD`, `SPECIAL_EXIT` before `PENDING`/`RUNNING`); squeue's compact codes
(`NF`, `PR`, `TO`, `OOM`, ...) are accepted too. Each maps to a `JobPhase` (where the job
stands) and keeps its canonical Slurm name, which is the job state the domain's attribution
reads (`JobRecord.state`: "NODE_FAIL", "PREEMPTED", "TIMEOUT", "OUT_OF_MEMORY", ...).

Nodes: a base state plus flags (`MIXED+DRAIN`, `DOWN+NOT_RESPONDING`, `IDLE+DRAIN+
REBOOT_REQUESTED`; sinfo's `draining`, `drained`, `down*`) map to a `NodeCondition`, with
whether the node responds and whether autorecover set the reason (its prefix says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.domain.records import JobRecord

REASON_PREFIX = "autorecover:"  # every reason and admin comment we set starts with this


class JobPhase(StrEnum):
    """Where a Slurm job stands, in the domain's words (persisted: never rename a value)."""

    PENDING = "pending"
    HELD = "held"  # pending and held: requeue hold, special exit, a user's or admin's hold
    RUNNING = "running"
    SUSPENDED = "suspended"
    COMPLETING = "completing"  # ended, nodes still cleaning up
    REQUEUEING = "requeueing"  # requeued, still completing: it will be pending again
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # ended abnormally: what job recovery looks at
    CANCELLED = "cancelled"  # by a person (or by us for a stop): never revived
    UNKNOWN = "unknown"


# Canonical Slurm state name -> phase. Flags first, as Slurm's job_state_string shows them.
_JOB_PHASES: dict[str, JobPhase] = {
    "PENDING": JobPhase.PENDING,
    "RUNNING": JobPhase.RUNNING,
    "CONFIGURING": JobPhase.RUNNING,  # nodes booting for the job
    "RESIZING": JobPhase.RUNNING,
    "SIGNALING": JobPhase.RUNNING,
    "STAGE_OUT": JobPhase.COMPLETING,
    "SUSPENDED": JobPhase.SUSPENDED,
    "STOPPED": JobPhase.SUSPENDED,
    "COMPLETING": JobPhase.COMPLETING,
    "REQUEUED": JobPhase.REQUEUEING,
    "REQUEUE_FED": JobPhase.REQUEUEING,
    "REQUEUE_HOLD": JobPhase.HELD,
    "SPECIAL_EXIT": JobPhase.HELD,
    "RESV_DEL_HOLD": JobPhase.HELD,
    "COMPLETED": JobPhase.SUCCEEDED,
    "CANCELLED": JobPhase.CANCELLED,
    "FAILED": JobPhase.FAILED,
    "NODE_FAIL": JobPhase.FAILED,
    "TIMEOUT": JobPhase.FAILED,
    "OUT_OF_MEMORY": JobPhase.FAILED,
    "PREEMPTED": JobPhase.FAILED,
    "BOOT_FAIL": JobPhase.FAILED,
    "DEADLINE": JobPhase.FAILED,
    "REVOKED": JobPhase.CANCELLED,  # a federated sibling ran it elsewhere
}

# squeue's compact codes (%t) -> canonical names.
COMPACT: dict[str, str] = {
    "PD": "PENDING", "R": "RUNNING", "CF": "CONFIGURING", "RS": "RESIZING", "SI": "SIGNALING",
    "SO": "STAGE_OUT", "S": "SUSPENDED", "ST": "STOPPED", "CG": "COMPLETING", "RQ": "REQUEUED",
    "RF": "REQUEUE_FED", "RH": "REQUEUE_HOLD", "SE": "SPECIAL_EXIT", "RD": "RESV_DEL_HOLD",
    "CD": "COMPLETED", "CA": "CANCELLED", "F": "FAILED", "NF": "NODE_FAIL", "TO": "TIMEOUT",
    "OOM": "OUT_OF_MEMORY", "PR": "PREEMPTED", "BF": "BOOT_FAIL", "DL": "DEADLINE",
    "RV": "REVOKED",
}  # fmt: skip

# Pending reasons that mean "held": nothing starts until someone releases the job.
HELD_REASONS = frozenset(
    {"JobHeldUser", "JobHeldAdmin", "job_requeued_in_held_state", "launch_failed_requeued_held",
     "Held", "held"}
)  # fmt: skip


def canonical_job_state(state: str) -> str:
    """`"CANCELLED by 0"` / `"nf"` / `"node_fail"` -> `"NODE_FAIL"`-style canonical names."""
    word = state.strip().split(" ")[0].upper().rstrip("+")
    return COMPACT.get(word, word) if word else "UNKNOWN"


def job_phase(state: str, reason: str = "") -> JobPhase:
    """The phase of a job in this state (and pending reason)."""
    name = canonical_job_state(state)
    phase = _JOB_PHASES.get(name, JobPhase.UNKNOWN)
    if phase is JobPhase.PENDING and reason in HELD_REASONS:
        return JobPhase.HELD
    return phase


ENDED = frozenset({JobPhase.SUCCEEDED, JobPhase.FAILED, JobPhase.CANCELLED})
# Phases from which a requeue may bring the job back. A cancelled job was stopped by a person
# (Slurm would revive it on `scontrol requeue`); a completed one has nothing left to do.
REQUEUEABLE = frozenset(
    {JobPhase.RUNNING, JobPhase.SUSPENDED, JobPhase.FAILED, JobPhase.PENDING, JobPhase.HELD,
     JobPhase.COMPLETING, JobPhase.REQUEUEING}
)  # fmt: skip


def to_job_record(job: SlurmJob, collected: datetime) -> JobRecord:
    """The domain's view of a Slurm job (what attribution and job recovery read)."""
    phase = job_phase(job.state, job.reason)
    started = job.start_time or job.submit_time or collected
    return JobRecord(
        scheduler="slurm",
        job=job.job_id,
        nodes=job.nodes,
        started=started,
        ended=job.end_time if phase in ENDED else None,
        collected=collected,
        state=canonical_job_state(job.state),
    )


class NodeCondition(StrEnum):
    """Whether a node takes work, in the domain's words (persisted: never rename a value)."""

    UP = "up"  # idle, mixed or allocated; takes new jobs
    DRAINING = "draining"  # drain set, jobs still running
    DRAINED = "drained"  # drain set, no jobs: ready for diagnostics
    REBOOTING = "rebooting"  # a reboot is requested or issued
    DOWN = "down"
    FAILED = "failed"  # FAIL / FAILING: Slurm's own "node failed" flags
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class NodeStatus:
    """A node's condition, whether it responds, and who set its reason."""

    condition: NodeCondition
    responding: bool
    ours: bool  # the reason carries autorecover's prefix: we drained or downed it
    drain: bool  # the DRAIN flag is set (by us, a person or a reboot request)
    busy: bool  # jobs are running on it


_BUSY = frozenset({"allocated", "mixed", "completing"})
_SINFO_SUFFIXES = "*~#%$@!^-"


def node_status(node: SlurmNode) -> NodeStatus:
    """What a node's state and flags mean."""
    base = node.state.lower()
    flags = node.flags
    busy = base in _BUSY or "COMPLETING" in flags
    drain = "DRAIN" in flags
    responding = "NOT_RESPONDING" not in flags
    if flags & {"REBOOT_REQUESTED", "REBOOT_ISSUED"}:
        condition = NodeCondition.REBOOTING
    elif base in ("down", "error"):
        condition = NodeCondition.DOWN
    elif flags & {"FAIL", "FAILING"} or base in ("fail", "failing"):
        condition = NodeCondition.FAILED
    elif drain:
        condition = NodeCondition.DRAINING if busy else NodeCondition.DRAINED
    elif base in ("idle", "mixed", "allocated", "completing", "planned"):
        condition = NodeCondition.UP
    else:
        condition = NodeCondition.UNKNOWN
    return NodeStatus(condition, responding, is_ours(node.reason), drain, busy)


def is_ours(reason: str) -> bool:
    """True when autorecover set this reason (or admin comment)."""
    return reason.startswith(REASON_PREFIX)


def parse_sinfo_state(text: str) -> tuple[str, frozenset[str]]:
    """sinfo's `%T` word (`draining`, `drained`, `down*`, `idle~`, `reboot^`) as base + flags.

    sinfo folds flags into one word; the mapping follows its own `node_state_string`.
    """
    word = text.strip().lower()
    flags: set[str] = set()
    while word and word[-1] in _SINFO_SUFFIXES:
        suffix, word = word[-1], word[:-1]
        flags |= {
            "*": {"NOT_RESPONDING"}, "~": {"POWERED_DOWN"}, "#": {"POWERING_UP"},
            "%": {"POWERING_DOWN"}, "$": {"MAINTENANCE"}, "@": {"REBOOT_REQUESTED"},
            "!": {"POWER_DOWN"}, "^": {"REBOOT_ISSUED"}, "-": {"PLANNED"},
        }[suffix]  # fmt: skip
    if word == "drained":
        return "idle", frozenset(flags | {"DRAIN"})
    if word == "draining":
        return "mixed", frozenset(flags | {"DRAIN"})
    if word == "reboot":
        asked = set() if "REBOOT_ISSUED" in flags else {"REBOOT_REQUESTED"}
        return "idle", frozenset(flags | asked)
    if word in ("fail", "failing"):
        return "allocated" if word == "failing" else "idle", frozenset(flags | {word.upper()})
    return word or "unknown", frozenset(flags)
