"""The Slurm adapter: read jobs and nodes, drain/resume/reboot nodes, requeue and cancel jobs.

Everything runs Slurm's own command-line tools as argument lists through a `Runner`, with
validated names, a rate limit and provenance on every mutation, and a dry-run that records
commands instead of running them. `SlurmScheduler` is the entry point (it implements the
controllers' `SchedulerPort`); docs/slurm.md has the set-up and the conventions.
"""

from autorecover.adapters.slurm.commands import (
    Commands,
    Completed,
    Journal,
    MutationRecord,
    RateLimiter,
    Runner,
    SubprocessRunner,
)
from autorecover.adapters.slurm.errors import (
    RateLimitedError,
    SlurmConflictError,
    SlurmError,
    SlurmNotFoundError,
    SlurmPermanentError,
    SlurmTransientError,
)
from autorecover.adapters.slurm.job_ops import JobResult
from autorecover.adapters.slurm.names import InvalidNameError
from autorecover.adapters.slurm.node_ops import Change, NodeResult
from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.policy import CommentError, JobSettings, SitePolicy, resolve
from autorecover.adapters.slurm.reading import Transport
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.adapters.slurm.states import JobPhase, NodeCondition, job_phase, node_status

__all__ = [
    "Change",
    "Commands",
    "CommentError",
    "Completed",
    "InvalidNameError",
    "JobPhase",
    "JobResult",
    "JobSettings",
    "Journal",
    "MutationRecord",
    "NodeCondition",
    "NodeResult",
    "RateLimitedError",
    "RateLimiter",
    "Runner",
    "SitePolicy",
    "SlurmConflictError",
    "SlurmError",
    "SlurmJob",
    "SlurmNode",
    "SlurmNotFoundError",
    "SlurmPermanentError",
    "SlurmScheduler",
    "SlurmTransientError",
    "SubprocessRunner",
    "Transport",
    "job_phase",
    "node_status",
    "resolve",
]
