"""Running the demonstration in a subprocess, bounded, and reading what it left behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.demo.view import first_step

JOB = "train"


def run_demo(*args: str, timeout: float = 90.0) -> subprocess.CompletedProcess[str]:
    """`autorecover demo ARGS` in its own process; a hang fails the test, never the suite."""
    return subprocess.run(
        [sys.executable, "-m", "autorecover", "demo", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


class Left:
    """The stores and logs of one scenario's directory."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.jobs = SqliteJobStore(directory / "state.db")
        self.hardware = SqliteStore(directory / "state.db")

    def close(self) -> None:
        self.jobs.close()
        self.hardware.close()

    def states(self, node: str) -> list[str]:
        """Every state the node was moved to."""
        return [t.to.value for t in self.hardware.transitions(node)]

    def resumed_steps(self, attempt: int) -> dict[str, int | None]:
        """Per node of an attempt: the first step its telemetry reports."""
        logs = sorted((self.dir / "jobs" / JOB / str(attempt) / "logs").glob("*.log"))
        return {log.stem: first_step(log) for log in logs}

    def nodes_of(self, attempt: int) -> list[str]:
        """The nodes an attempt ran on."""
        return sorted(self.resumed_steps(attempt))
