"""Running an order's steps detached, and finding them again after the agent restarts.

A step is journaled (argv, boot id, time) before its child starts, and its pid right after;
the child (adapters/host/detached.py) survives the agent's death and writes the exit status
to a file at the end. Looking at a step the journal shows as started never starts it again:

- its `rc` file is there: the result is collected (even after a reboot: it ended before);
- the boot id changed since it started: the node rebooted under it (for a reboot order,
  that is the success);
- its child is alive: wait;
- its child is gone without an `rc`: interrupted;
- no child ever wrote its pid (the agent died between journaling and starting it): after a
  grace period, interrupted; never started twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from autorecover.adapters.host.detached import RunResult
from autorecover.agent.acting.journal import StepRecord

START_GRACE_S = 15.0


class Processes(Protocol):
    """Starting and finding detached runs (adapters.host.detached.Launcher)."""

    def start(self, run_dir: Path, argv: tuple[str, ...] | list[str], timeout_s: float) -> int:
        """Start a detached child; its pid."""
        ...

    def alive(self, pid: int, run_dir: Path) -> bool:
        """Whether the child for `run_dir` runs."""
        ...

    def child_pid(self, run_dir: Path) -> int | None:
        """The pid the child wrote when it began."""
        ...

    def result(self, run_dir: Path) -> RunResult | None:
        """The run's end, once written."""
        ...


@dataclass(frozen=True, slots=True)
class StillRunning:
    """The step's child runs: look again later."""

    pid: int | None


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The step ended without an exit status."""

    why: str
    rebooted: bool = False  # the boot id changed since it started


def look(
    step: StepRecord, run_dir: Path, processes: Processes, boot_id: str, now: datetime
) -> RunResult | StillRunning | Interrupted:
    """Where a started step stands."""
    result = processes.result(run_dir)
    if result is not None:
        return result
    if step.boot_id and boot_id and step.boot_id != boot_id:
        return Interrupted(f"rebooted (boot id {step.boot_id} -> {boot_id})", rebooted=True)
    pid = step.pid if step.pid is not None else processes.child_pid(run_dir)
    if pid is None:
        if (now - step.started_at).total_seconds() < START_GRACE_S:
            return StillRunning(None)
        return Interrupted(
            "interrupted: the agent stopped before the command started; not started again"
        )
    if processes.alive(pid, run_dir):
        return StillRunning(pid)
    result = processes.result(run_dir)  # it may have finished between the two looks
    if result is not None:
        return result
    return Interrupted(
        f"interrupted: the command's runner (pid {pid}) ended without an exit status"
    )
