"""A scheduler on this machine: each job is N ranks run as real processes on simulated nodes.

Ranks are started as argument lists (never through a shell) with the environment torchrun
gives its workers (`RANK`, `LOCAL_RANK`, `WORLD_SIZE`, `LOCAL_WORLD_SIZE`, `GROUP_RANK`,
`TORCHELASTIC_RUN_ID` = the job, `TORCHELASTIC_RESTART_COUNT` = the attempt, `MASTER_ADDR`,
`MASTER_PORT`) plus `NODE_NAME` and `HOSTNAME` = the simulated node, so the telemetry library
names the node. Each node's ranks write to `<root>/<job>/<attempt>/logs/<node>.log`. In
`argv`, `{job}`, `{attempt}`, `{node}`, `{rank}` and `{root}` are replaced per rank.

Like `srun --kill-on-bad-exit`, a rank that fails takes its siblings down. A requeue ends
the attempt and starts a new one after its delay on free nodes it does not exclude (its
previous nodes first); a stop ends it for good. Nodes can be cordoned, tainted, drained and
resumed (the hardware `SchedulerPort`: one local scheduler serves both recovery services);
a cordoned or tainted node gets no new ranks. Every mutation is carried out once per action
id. It implements `JobSchedulerPort` and `SchedulerPort`; time comes from the injected clock.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from autorecover.adapters.local.records import (
    LocalAttempt,
    LocalJobSpec,
    Rank,
    end_attempt,
    exit_code,
)
from autorecover.controllers.hardware.ports import SchedulerNode
from autorecover.controllers.jobs.records import JobPhase, JobStatus, WatchedJob
from autorecover.controllers.ports import Clock, PermanentError, Provenance

__all__ = ["LocalJobSpec", "LocalScheduler"]


@dataclass(slots=True)
class _Job:
    id: str
    spec: LocalJobSpec
    exclusions: tuple[str, ...] = ()  # ours (the requeue's); the spec's own come on top
    attempts: list[LocalAttempt] = field(default_factory=list)


@dataclass(slots=True)
class _Node:
    cordoned_by: dict[str, Provenance] = field(default_factory=dict)
    taints: dict[str, Provenance] = field(default_factory=dict)
    reboots: int = 0
    resets: list[str | None] = field(default_factory=list)


class LocalScheduler:
    """Runs training jobs as local processes across simulated nodes."""

    def __init__(
        self,
        root: Path,
        nodes: Sequence[str],
        clock: Clock,
        *,
        owner: str = "autorecover",
        kill_grace_s: float = 5.0,
        python: str = sys.executable,
    ) -> None:
        self.root = Path(root)
        self.nodes = {n: _Node() for n in nodes}
        self.owner, self.kill_grace_s, self.python = owner, kill_grace_s, python
        self._clock = clock
        self._jobs: dict[str, _Job] = {}
        self._done: set[str] = set()
        self._lock = threading.RLock()

    # --- jobs --------------------------------------------------------------------------------

    def submit(self, spec: LocalJobSpec) -> str:
        """Queue a job; it starts as soon as enough nodes are free. Returns its id."""
        with self._lock:
            if spec.nodes < 1 or spec.ranks_per_node < 1 or not spec.argv:
                raise ValueError(f"{spec.name}: a job needs an argv, nodes >= 1, ranks >= 1")
            job_id, n = spec.name, 1
            while job_id in self._jobs:
                n += 1
                job_id = f"{spec.name}-{n}"
            job = _Job(job_id, spec)
            job.attempts.append(LocalAttempt(0, self._clock.now()))
            self._jobs[job_id] = job
            self._advance()
            return job_id

    def status(self, job: str) -> JobStatus:
        """The job's current attempt as the controllers see it."""
        with self._lock:
            self._advance()
            return self._status(self._jobs[job])

    def output_path(self, job: str, attempt: int, node: str) -> Path:
        """Where an attempt's ranks on a node write."""
        return self.root / job / str(attempt) / "logs" / f"{node}.log"

    def poll(self) -> None:
        """Reap finished ranks and start what is due (every port call does this too)."""
        with self._lock:
            self._advance()

    def shutdown(self) -> None:
        """Kill every rank still running."""
        with self._lock:
            for job in self._jobs.values():
                run = job.attempts[-1]
                if run.phase is JobPhase.RUNNING:
                    self._terminate(run, "CANCELLED", wait=True)

    # --- JobSchedulerPort --------------------------------------------------------------------

    def watched(self) -> list[WatchedJob]:
        """Jobs that opted in (`recover` is not None), with their current attempt."""
        with self._lock:
            self._advance()
            return [
                WatchedJob(self._status(j), "local", dict(j.spec.recover), f"local job {j.id}")
                for j in self._jobs.values()
                if j.spec.recover is not None
            ]

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Bytes of `<root>/<job>/<attempt>/logs/<node>.log` from `offset`."""
        try:
            with self.output_path(job, attempt, node).open("rb") as f:
                f.seek(offset)
                return f.read(limit)
        except FileNotFoundError:
            return b""

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """End the attempt if it runs; a new one starts after `delay_s`, avoiding `exclude`."""
        with self._lock:
            if not self._first(provenance, "requeue", job):
                return
            j = self._job(job)
            run = j.attempts[-1]
            if run.phase is JobPhase.RUNNING:
                self._terminate(run, "REQUEUED", wait=True)
            elif run.phase is JobPhase.PENDING:
                j.attempts.pop()  # a queued attempt is replaced, not run twice
            j.exclusions = tuple(sorted(set(exclude)))
            eligible = self._clock.now() + timedelta(seconds=delay_s)
            j.attempts.append(LocalAttempt(len(j.attempts), eligible))
            self._advance()

    def stop(self, job: str, provenance: Provenance) -> None:
        """End the job for good."""
        with self._lock:
            if not self._first(provenance, "stop", job):
                return
            run = self._job(job).attempts[-1]
            if run.phase is JobPhase.RUNNING:
                self._terminate(run, "CANCELLED", wait=True)
            elif run.phase is JobPhase.PENDING:
                end_attempt(run, JobPhase.CANCELLED, "CANCELLED", self._clock.now())

    # --- SchedulerPort (hardware recovery) ----------------------------------------------------

    def observe(self, nodes: Sequence[str]) -> dict[str, SchedulerNode]:
        """The scheduler's view of these nodes (unknown ones left out)."""
        with self._lock:
            self._advance()
            return {n: self._view(n) for n in nodes if n in self.nodes}

    def cordoned(self) -> dict[str, SchedulerNode]:
        """Every node somebody has cordoned."""
        with self._lock:
            self._advance()
            return {n: self._view(n) for n, s in self.nodes.items() if s.cordoned_by}

    def cordon(self, node: str, provenance: Provenance) -> None:
        """No new jobs on the node."""
        with self._lock:
            if self._first(provenance, "cordon", node):
                self._node(node).cordoned_by[self.owner] = provenance

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Keep workloads off the node (here: the same as a cordon, with the key kept)."""
        with self._lock:
            if self._first(provenance, "taint", node):
                self._node(node).taints[key] = provenance

    def drain(self, node: str, provenance: Provenance) -> None:
        """No new jobs; running ones finish or fail (job recovery moves them)."""
        with self._lock:
            if self._first(provenance, "drain", node):
                self._node(node).cordoned_by.setdefault(self.owner, provenance)

    def resume(self, node: str, provenance: Provenance) -> None:
        """Remove our cordon and taints; anybody else's cordon stays."""
        with self._lock:
            if self._first(provenance, "resume", node):
                state = self._node(node)
                state.cordoned_by.pop(self.owner, None)
                state.taints.clear()
                self._advance()

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Simulated: noted, nothing else happens."""
        with self._lock:
            if self._first(provenance, "reset_gpu", node):
                self._node(node).resets.append(component)

    def reboot(self, node: str, provenance: Provenance) -> None:
        """Simulated: noted, nothing else happens."""
        with self._lock:
            if self._first(provenance, "reboot", node):
                self._node(node).reboots += 1

    def person_cordon(self, node: str, who: str, why: str = "") -> None:
        """A person cordons a node: theirs, kept through our resume."""
        with self._lock:
            prov = Provenance(f"person/{who}", who, why, self._clock.now())
            self._node(node).cordoned_by[who] = prov

    # --- internals -----------------------------------------------------------------------------

    def _first(self, provenance: Provenance, kind: str, target: str) -> bool:
        key = f"{provenance.action_id}\0{kind}\0{target}"
        if key in self._done:
            return False  # done under this id already: idempotent
        self._done.add(key)
        return True

    def _job(self, job: str) -> _Job:
        found = self._jobs.get(job)
        if found is None:
            raise PermanentError(f"no job {job!r}")
        return found

    def _node(self, node: str) -> _Node:
        found = self.nodes.get(node)
        if found is None:
            raise PermanentError(f"no node {node!r}")
        return found

    def _advance(self) -> None:
        now = self._clock.now()
        for job in self._jobs.values():
            run = job.attempts[-1]
            if run.phase is JobPhase.RUNNING:
                self._reap(run, now)
        for job in self._jobs.values():
            run = job.attempts[-1]
            if run.phase is JobPhase.PENDING and run.eligible <= now:
                self._start(job, run, now)

    def _reap(self, run: LocalAttempt, now: datetime) -> None:
        for r in run.ranks:
            if r.code is None:
                rc = r.proc.poll()
                if rc is not None:
                    r.code = exit_code(rc)
        failed = [r for r in run.ranks if r.code not in (None, 0) and not r.killed]
        if failed:  # one bad rank takes the others down (srun --kill-on-bad-exit)
            self._terminate(run, None, wait=False)
        grace = timedelta(seconds=self.kill_grace_s)
        for r in run.ranks:
            if r.code is None and r.term_at is not None and now - r.term_at >= grace:
                _kill(r.proc, signal.SIGKILL)
        if all(r.code is not None for r in run.ranks):
            if failed:
                end_attempt(run, JobPhase.FAILED, "FAILED", now)
            else:
                end_attempt(run, JobPhase.SUCCEEDED, "COMPLETED", now)

    def _terminate(self, run: LocalAttempt, state: str | None, *, wait: bool) -> None:
        """Stop the attempt's ranks (SIGTERM, then SIGKILL after the grace period)."""
        now = self._clock.now()
        for r in run.ranks:
            if r.code is None and not r.killed:
                r.killed, r.term_at = True, now
                _kill(r.proc, signal.SIGTERM)
        if not wait:
            return
        for r in run.ranks:
            if r.code is None:
                try:
                    r.code = exit_code(r.proc.wait(timeout=self.kill_grace_s))
                except subprocess.TimeoutExpired:
                    _kill(r.proc, signal.SIGKILL)
                    r.code = exit_code(r.proc.wait())
        if state is not None:
            end_attempt(run, JobPhase.CANCELLED, state, self._clock.now())

    def _free(self, job: _Job) -> list[str]:
        busy = {
            n
            for j in self._jobs.values()
            if j.attempts[-1].phase is JobPhase.RUNNING
            for n in j.attempts[-1].nodes
        }
        avoid = set(job.exclusions) | set(job.spec.exclude)
        before = job.attempts[-2].nodes if len(job.attempts) > 1 else ()
        order = dict.fromkeys((*before, *self.nodes))  # its previous nodes first
        return [
            n
            for n in order
            if n in self.nodes
            and n not in busy
            and n not in avoid
            and not self.nodes[n].cordoned_by
            and not self.nodes[n].taints
        ]

    def _start(self, job: _Job, run: LocalAttempt, now: datetime) -> None:
        spec = job.spec
        free = self._free(job)
        if len(free) < spec.nodes:
            return
        run.nodes = tuple(free[: spec.nodes])
        run.phase, run.state, run.started = JobPhase.RUNNING, "RUNNING", now
        world = spec.nodes * spec.ranks_per_node
        port = 20000 + zlib.crc32(f"{job.id}/{run.index}".encode()) % 20000
        for group, node in enumerate(run.nodes):
            path = self.output_path(job.id, run.index, node)
            path.parent.mkdir(parents=True, exist_ok=True)
            for local in range(spec.ranks_per_node):
                rank = group * spec.ranks_per_node + local
                env = {
                    **os.environ,
                    **spec.env,
                    "RANK": str(rank),
                    "LOCAL_RANK": str(local),
                    "WORLD_SIZE": str(world),
                    "LOCAL_WORLD_SIZE": str(spec.ranks_per_node),
                    "GROUP_RANK": str(group),
                    "TORCHELASTIC_RUN_ID": job.id,
                    "TORCHELASTIC_RESTART_COUNT": str(run.index),
                    "MASTER_ADDR": "127.0.0.1",
                    "MASTER_PORT": str(port),
                    "NODE_NAME": node,
                    "HOSTNAME": node,
                }
                argv = [self._fill(a, job.id, run.index, node, rank) for a in spec.argv]
                with path.open("ab") as out:
                    proc = subprocess.Popen(  # noqa: S603 - an argument list, no shell
                        argv,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        cwd=spec.cwd,
                        env=env,
                        start_new_session=True,
                    )
                run.ranks.append(Rank(rank, node, proc))

    def _fill(self, arg: str, job: str, attempt: int, node: str, rank: int) -> str:
        values = {"job": job, "attempt": str(attempt), "node": node, "rank": str(rank)}
        values["root"] = str(self.root)
        values["python"] = self.python
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        return arg

    def _status(self, job: _Job) -> JobStatus:
        run = job.attempts[-1]
        return JobStatus(
            job=job.id,
            phase=run.phase,
            state=run.state,
            attempt=run.index,
            nodes=run.nodes,
            started=run.started,
            ended=run.ended,
            exit_codes=tuple(sorted(run.exit_codes.items())),
            exclusions=tuple(sorted(set(job.exclusions) | set(job.spec.exclude))),
        )

    def _view(self, node: str) -> SchedulerNode:
        state = self.nodes[node]
        running = sum(
            1
            for j in self._jobs.values()
            if j.attempts[-1].phase is JobPhase.RUNNING and node in j.attempts[-1].nodes
        )
        return SchedulerNode(node, frozenset(state.cordoned_by), frozenset(state.taints), running)


def _kill(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Signal the rank's whole process group (it may have children of its own)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
