"""What the adapter reads from Slurm: one job, one node, as frozen records.

Both transports (`squeue`/`sinfo --json` and the one-line `scontrol show -o` format) parse
into these same records, field for field, so the rest of the adapter never knows which one
answered. Raw Slurm JSON stays at the edge, in `parsing`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class SlurmJob:
    """One job as Slurm reports it (names and states spelled as Slurm spells them)."""

    job_id: str
    name: str
    user: str
    state: str  # "RUNNING", "PENDING", "NODE_FAIL", "REQUEUE_HOLD", ... (flags win, as Slurm shows)
    reason: str  # "None", "BeginTime", "JobHeldUser", ...
    nodes: tuple[str, ...]  # expanded, in Slurm's order
    excluded: tuple[str, ...]  # ExcNodeList, expanded
    required: tuple[str, ...]  # ReqNodeList, expanded
    batch_host: str
    node_count: int
    restarts: int
    requeue: bool  # may be requeued (`--requeue`, or the cluster's JobRequeue=1)
    batch: bool  # a batch job (sbatch); only those can be requeued
    comment: str
    admin_comment: str
    partition: str
    work_dir: str
    # Output paths with %j %x %u %A %a %% filled in as Slurm fills them; per-node and per-task
    # patterns (%N %n %t %s) are left for `output` to match against the files.
    stdout: str
    stderr: str
    exit_status: int  # the batch script's exit code
    exit_signal: int
    time_limit_min: int | None  # None: unlimited
    submit_time: datetime | None
    eligible_time: datetime | None
    start_time: datetime | None
    end_time: datetime | None
    array_job_id: str = ""  # "" unless the job is an array task
    array_task_id: str = ""


@dataclass(frozen=True, slots=True)
class SlurmNode:
    """One node as Slurm reports it."""

    name: str
    state: str  # base state, lower case: "idle", "mixed", "allocated", "down", ...
    flags: frozenset[str]  # upper case: "DRAIN", "NOT_RESPONDING", "REBOOT_REQUESTED", ...
    reason: str  # without Slurm's "[user@time]" suffix
    reason_user: str
    reason_at: datetime | None
    gres: str  # "gpu:h100:8"
    address: str
    hostname: str
    port: int | None
    partitions: tuple[str, ...]
    cpus: int
    alloc_cpus: int
    boot_time: datetime | None
    slurmd_start_time: datetime | None
