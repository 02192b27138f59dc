"""The local scheduler's records: a job's spec, its attempts and their ranks (processes)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from autorecover.controllers.jobs.records import JobPhase


@dataclass(frozen=True, slots=True)
class LocalJobSpec:
    """A job to run: `nodes` simulated nodes, `ranks_per_node` processes on each."""

    name: str
    argv: tuple[str, ...]  # an argument list, run without a shell; see the placeholders
    nodes: int = 1
    ranks_per_node: int = 1
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    # The job's opt-in: None leaves it alone; a mapping of `JobPolicy` fields opts it in
    # with those overrides (the local flag, as a Slurm comment or an annotation elsewhere).
    recover: Mapping[str, object] | None = field(default_factory=dict)
    exclude: tuple[str, ...] = ()  # the user's own exclusions, kept across requeues


@dataclass(slots=True)
class Rank:
    """One process of an attempt."""

    rank: int
    node: str
    proc: subprocess.Popen[bytes]
    killed: bool = False  # by the scheduler (a stop, a requeue, a sibling's failure)
    term_at: datetime | None = None  # when it was asked to stop (SIGKILL after the grace)
    code: int | None = None


@dataclass(slots=True)
class LocalAttempt:
    """One run of a job."""

    index: int
    eligible: datetime
    nodes: tuple[str, ...] = ()
    ranks: list[Rank] = field(default_factory=list)
    phase: JobPhase = JobPhase.PENDING
    state: str = "PENDING"
    started: datetime | None = None
    ended: datetime | None = None
    exit_codes: dict[str, int] = field(default_factory=dict)


def exit_code(returncode: int) -> int:
    """A process's exit code as a shell reports it (killed by signal N: 128 + N)."""
    return 128 - returncode if returncode < 0 else returncode


def end_attempt(run: LocalAttempt, phase: JobPhase, state: str, at: datetime) -> None:
    """Close the attempt; each node's exit code is its ranks' worst.

    A rank that failed by itself is the story; the siblings the scheduler killed after it
    (143) are not: a node's own failure code wins over a kill code, which wins over success."""
    run.phase, run.state, run.ended = phase, state, at
    codes: dict[str, int] = {}
    for r in sorted(run.ranks, key=lambda r: (not r.code, r.killed, -(r.code or 0))):
        if r.code is not None:
            codes.setdefault(r.node, r.code)
    run.exit_codes = codes
