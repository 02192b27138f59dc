"""Helpers for tests against the real Slurm cluster: submit a training job, wait, read output.

`SlurmHarness.submit_training` is the multi-node `sbatch` job the end-to-end recovery tests
build on: `srun -l` runs `jobs/train_job.py` (the telemetry library, a checkpoint per rank,
resume on restart) on every node, appending every attempt to one output file.
"""

from __future__ import annotations

import itertools
import re
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from autorecover.adapters.slurm import SlurmJob, SlurmNode, SlurmScheduler, SubprocessRunner
from autorecover.adapters.slurm.states import JobPhase, job_phase
from autorecover.controllers.ports import Provenance
from autorecover.testing.slurm.cluster import SlurmTestCluster

TRAIN_JOB = Path(__file__).with_name("train_job.py")
_SERIAL = itertools.count(1)  # unique names across the session's harnesses
ATTEMPT = re.compile(rb"attempt restart=(\d+) node=(\S+) rank=(\d+) start=(\d+)")


@dataclass(frozen=True)
class TrainingJob:
    """A submitted training job: its id, output file and checkpoint folder."""

    job_id: str
    output: Path
    checkpoints: Path
    nodes: int


@dataclass(frozen=True)
class Attempt:
    """One rank's start line: which attempt, on which node, from which step."""

    restart: int
    node: str
    rank: int
    start: int


class SlurmHarness:
    """The session's cluster, a fresh adapter on it, and waiting helpers."""

    def __init__(self, cluster: SlurmTestCluster, *, dry_run: bool = False) -> None:
        self.cluster = cluster
        self.scheduler = SlurmScheduler(SubprocessRunner(cluster.env, inherit=False),
                                        dry_run=dry_run)  # fmt: skip

    def provenance(self, why: str, incident: str = "inc-test") -> Provenance:
        """A provenance as a controller would give it."""
        return Provenance(f"test/{next(_SERIAL)}", "pytest", why, datetime.now(UTC),
                          ("test evidence",), incident)  # fmt: skip

    def submit_training(
        self,
        *,
        nodes: int = 2,
        name: str = "train",
        step_s: float = 0.05,
        steps: int = 100_000,
        checkpoint_every: int = 10,
        sbatch: tuple[str, ...] = (),
        train_args: tuple[str, ...] = (),
    ) -> TrainingJob:
        """`sbatch --requeue --open-mode=append` a job whose ranks train on `nodes` nodes."""
        jobs = self.cluster.base / "jobs"
        serial = next(_SERIAL)
        ckpt = jobs / f"{name}-{serial}-ckpt"
        out = jobs / f"{name}-{serial}-%j.out"
        train = [sys.executable, str(TRAIN_JOB), "--checkpoint-dir", str(ckpt),
                 "--step-s", str(step_s), "--steps", str(steps),
                 "--checkpoint-every", str(checkpoint_every), *train_args]  # fmt: skip
        script = jobs / f"{name}-{serial}.sh"
        script.write_text(
            "#!/bin/bash\n"
            'echo "batch restart=${SLURM_RESTART_COUNT:-0} nodes=$SLURM_JOB_NODELIST"\n'
            f"exec srun -l --kill-on-bad-exit=1 {shlex.join(train)}\n"
        )
        job_id = self.cluster.submit(
            [f"--nodes={nodes}", "--ntasks-per-node=1", "--gres=gpu:h100:8", "--requeue",
             "--open-mode=append", f"--output={out}", f"--job-name={name}", *sbatch],
            script,
        )  # fmt: skip
        output = Path(str(out).replace("%j", job_id))
        return TrainingJob(job_id, output, ckpt, nodes)

    def wait_job(
        self,
        job_id: str,
        until: Callable[[SlurmJob], bool],
        what: str,
        timeout_s: float = 20.0,
    ) -> SlurmJob:
        """Poll the job until `until(job)`; fail with its last state after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.scheduler.reader.job(job_id)
            if until(job):
                return job
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"job {job_id} not {what} after {timeout_s:.0f} s: {job.state} "
                    f"({job.reason}) on {job.nodes}\n{self.cluster.log_tail(10)}"
                )
            time.sleep(0.05)

    def wait_node(
        self, name: str, until: Callable[[SlurmNode], bool], what: str, timeout_s: float = 20.0
    ) -> SlurmNode:
        """Poll the node until `until(node)`; fail with its last state after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            node = self.scheduler.reader.node(name)
            if until(node):
                return node
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"node {name} not {what} after {timeout_s:.0f} s: "
                    f"{node.state} {sorted(node.flags)} {node.reason!r}"
                )
            time.sleep(0.05)

    def wait_reboot_logged(self, name: str, timeout_s: float = 20.0) -> str:
        """Poll until the RebootProgram has recorded a reboot of `name`; return the record.

        slurmctld marks a node REBOOT_ISSUED when it sends the request; slurmd runs the
        program a moment later, so the record can trail the flag.
        """
        log = self.cluster.base / "log" / "reboots.txt"
        deadline = time.monotonic() + timeout_s
        while True:
            text = log.read_text() if log.exists() else ""
            if f"node={name}" in text:
                return text
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no reboot of {name} recorded after {timeout_s:.0f} s: {text!r}\n"
                    f"{self.cluster.log_tail(10)}"
                )
            time.sleep(0.05)

    def wait_phase(self, job_id: str, phase: JobPhase, timeout_s: float = 20.0) -> SlurmJob:
        """Poll until the job is in `phase`."""
        return self.wait_job(job_id, lambda j: job_phase(j.state, j.reason) is phase,
                             str(phase), timeout_s)  # fmt: skip

    def wait_attempts(self, job: TrainingJob, count: int, timeout_s: float = 20.0) -> list[Attempt]:
        """Wait until the output holds `count` rank start lines; all of them, in order."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.attempts(job)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{count} attempt lines not in {job.output} after "
                                     f"{timeout_s:.0f} s: {found}")  # fmt: skip
            time.sleep(0.05)

    @staticmethod
    def attempts(job: TrainingJob) -> list[Attempt]:
        """Every rank start line in the job's output so far."""
        text = job.output.read_bytes() if job.output.exists() else b""
        return [Attempt(int(m[1]), m[2].decode(), int(m[3]), int(m[4]))
                for m in ATTEMPT.finditer(text)]  # fmt: skip

    def wait_checkpoint(self, job: TrainingJob, step: int, timeout_s: float = 20.0) -> None:
        """Wait until every rank has a checkpoint at `step` or later."""
        deadline = time.monotonic() + timeout_s
        while True:
            steps = []
            for rank in range(job.nodes):
                path = job.checkpoints / f"rank{rank}.json"
                try:
                    steps.append(int(path.read_text().split('"step": ')[1].rstrip("}\n ")))
                except (OSError, IndexError, ValueError):
                    steps.append(-1)
            if min(steps) >= step:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"checkpoints {steps} not at step {step} yet")
            time.sleep(0.05)
