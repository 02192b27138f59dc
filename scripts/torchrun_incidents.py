"""Incident bundles from real multi-node torchrun runs on this one machine.

Each scenario starts one real `torchrun` per simulated node (c10d rendezvous on localhost,
gloo on CPU) running `torchrun_incidents_train.py`, breaks the job the way the scenario
says (kills a worker or an agent, lets a rank hang, ships a bug), captures each node's
combined torchrun output unchanged as `logs/<node>.log`, and writes the bundle: `job.json`
(real start and end times and exit codes), `expected.json` (the verdict that follows from
what was done, by docs/attribution.md) and a README. Nothing is written into a log by this
script; there is no system log (nothing on the simulated nodes' kernel side happened).

    /work/torchenv/bin/python scripts/torchrun_incidents.py --out tests/torchrun

The structure (scenarios, node names, ranks, steps) is fixed; times and PIDs are real.
Needs torch in the interpreter that runs it (or `--torchrun`); not a project dependency.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

TORCH_VERSION = "2.15.0"  # the torch the committed bundles came from; regenerate on change
SCRIPT = "scripts/torchrun_incidents.py"
TRAIN = Path(__file__).with_name("torchrun_incidents_train.py")
GLOO_TIMEOUT_S = 20  # init_process_group(timeout=...) in the training script
JOIN_TIMEOUT_S = 20  # --rdzv-conf join_timeout=...
RUN_DEADLINE_S = 150  # after this the "scheduler" ends whatever still runs
HANG_COLLECT_S = 690  # how long a hung job runs before its bundle is taken
ENGINE_HANG_FLOOR = timedelta(minutes=10)  # stalls.HANG_FLOOR: no hang is called sooner
# The progress line a trigger waits for, per training-script output style (`--style`).
STEP_LINES = {
    "logging": r"\] step {step} \|",  # the committed bundles: logging, times, "[rank N] step i |"
    "print": r"Rank \d+: epoch 0 iteration {step}/",  # plain print(), no times, its own words
}
# How each node's torchrun is launched: the committed bundles use `tee` (c10d rendezvous, output
# teed with rank prefixes, no restarts); the others check that verdicts do not hang on that choice.
VARIANTS = {
    "tee": "c10d rendezvous, --tee 3 (rank-prefixed lines), --max-restarts 0",
    "plain": "c10d rendezvous, workers' output unprefixed (no --tee, no --log-dir)",
    "static": "static rendezvous (--master-addr/--master-port), --tee 3",
    "restarts": "c10d rendezvous, --tee 3, --max-restarts 2 (a one-off fault may recover)",
}


@dataclass(frozen=True, slots=True)
class Expected:
    """The verdict, and why, that follows from what the scenario did."""

    cause: str
    why: str

    def as_json(self) -> dict[str, object]:
        action = {"hardware": "requeue_excluding", "application": "stop"}.get(self.cause, "requeue")
        return {
            "cause": self.cause,
            "suspect_nodes": [],
            "action": action,
            "why": self.why,
            "generated_by": {"torch": TORCH_VERSION, "script": SCRIPT},
        }


@dataclass(frozen=True, slots=True)
class Scenario:
    """One way to break the job, and what it means."""

    name: str
    what: str  # what was done, for the README
    nodes: int
    nproc: int
    train_args: tuple[str, ...] = ()
    # (node index whose log to watch, the step whose progress line to wait for), then the
    # action on the running job
    trigger: tuple[int, int] | None = None
    action: Callable[[Job], None] | None = None
    absent: tuple[int, ...] = ()  # nodes whose torchrun never starts
    late_s: dict[int, float] = field(default_factory=dict)  # node index -> start delay
    hang: bool = False  # collected while still running
    state: str = "FAILED"
    expected: Expected | None = None  # None: the job must succeed (no bundle)
    launch: str = "tee"  # how torchrun is launched (VARIANTS); --variant overrides it


def node_name(i: int) -> str:
    """Simulated node names: cpu-n01, cpu-n02, ..."""
    return f"cpu-n{i + 1:02d}"


class Job:
    """The torchrun agents of one scenario, one per simulated node."""

    def __init__(
        self,
        sc: Scenario,
        torchrun: str,
        work: Path,
        train: Path = TRAIN,
        variant: str = "tee",
        style: str = "logging",
    ) -> None:
        self.sc = sc
        self.variant = variant
        self.style = style  # the training script's output style (STEP_LINES)
        self.train = train  # the training script each rank runs
        self.torchrun = torchrun
        self.work = work
        self.port = _free_port()
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.logs: dict[int, Path] = {}
        self.started: datetime | None = None
        self.ended: datetime | None = None
        self.events: list[str] = []

    def start(self) -> None:
        """Start every present node's torchrun (the first one hosts the c10d store)."""
        (self.work / "logs").mkdir(parents=True)
        self.started = _now()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "TZ": "UTC"}
        order = [i for i in range(self.sc.nodes) if i not in self.sc.absent]
        threads = []
        for i in order:
            delay = self.sc.late_s.get(i, 0.0 if i == 0 else 0.5)
            t = threading.Thread(target=self._start_node, args=(i, delay, env))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()

    def _start_node(self, i: int, delay: float, env: dict[str, str]) -> None:
        time.sleep(delay)
        rdzv_conf = f"join_timeout={JOIN_TIMEOUT_S},is_host={'true' if i == 0 else 'false'}"
        if self.variant == "static":
            rdzv = ["--master-addr=localhost", f"--master-port={self.port}"]
        else:
            rdzv = [
                "--rdzv-backend=c10d",
                f"--rdzv-endpoint=localhost:{self.port}",
                f"--rdzv-id={self.sc.name}",
                f"--rdzv-conf={rdzv_conf}",
            ]
        output = [] if self.variant == "plain" else [
            "--tee=3", f"--log-dir={self.work / 'elastic' / node_name(i)}"
        ]  # fmt: skip
        restarts = ["--max-restarts=2"] if self.variant == "restarts" else []
        cmd = [
            self.torchrun,
            f"--nnodes={self.sc.nodes}",
            f"--node-rank={i}",
            f"--nproc-per-node={self.sc.nproc}",
            *rdzv,
            *output,
            *restarts,
            str(self.train),
            f"--timeout-s={GLOO_TIMEOUT_S}",
            *self.sc.train_args,
            *([f"--style={self.style}"] if self.style != "logging" else []),
        ]
        path = self.work / "logs" / f"{node_name(i)}.log"
        self.logs[i] = path
        with path.open("wb") as out:
            self.procs[i] = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)

    def wait_for(self, node: int, pattern: str, timeout_s: float) -> bool:
        """Wait until `node`'s log has a line matching `pattern`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            text = self.logs[node].read_text(errors="replace")
            if rx.search(text):
                return True
            if all(p.poll() is not None for p in self.procs.values()):
                return False
            time.sleep(0.2)
        return False

    def workers(self, node: int) -> dict[int, int]:
        """The worker processes under `node`'s agent: local rank -> pid."""
        out = {}
        for child in _children(self.procs[node].pid):
            try:
                env = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            for kv in env:
                if kv.startswith(b"LOCAL_RANK="):
                    out[int(kv.split(b"=", 1)[1])] = child
        return out

    def kill_worker(self, node: int, local_rank: int, sig: signal.Signals) -> None:
        """Signal one worker process, as the kernel or an operator would."""
        pid = self.workers(node)[local_rank]
        os.kill(pid, sig)
        self.events.append(f"{_now():%H:%M:%S}Z {sig.name} to {node_name(node)} worker pid {pid}")

    def kill_node(self, node: int, sig: signal.Signals) -> None:
        """Signal a node's agent and its workers together (the step's processes die at once)."""
        pids = [*self.workers(node).values(), self.procs[node].pid]
        for pid in pids:
            os.kill(pid, sig)
        self.events.append(f"{_now():%H:%M:%S}Z {sig.name} to {node_name(node)} agent and workers")

    def signal_agents(self, sig: signal.Signals) -> None:
        """Signal every node's agent, as a scheduler ending the job does."""
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(sig)
        self.events.append(f"{_now():%H:%M:%S}Z {sig.name} to every node's torchrun agent")

    def wait(self, timeout_s: float) -> None:
        """Wait for every agent; past the deadline, end the rest as a scheduler would."""
        deadline = time.monotonic() + timeout_s
        while any(p.poll() is None for p in self.procs.values()):
            if time.monotonic() > deadline:
                self.events.append(
                    f"{_now():%H:%M:%S}Z deadline: SIGTERM, then SIGKILL, to the rest"
                )
                self.end()
                break
            time.sleep(0.2)
        self.ended = _now()

    def end(self) -> None:
        """SIGTERM the agents still running, then SIGKILL what is left of them."""
        self.signal_agents(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                for pid in [*self.workers_of(p), p.pid]:
                    _kill(pid)
                p.wait()

    def workers_of(self, p: subprocess.Popen[bytes]) -> list[int]:
        node = next(i for i, q in self.procs.items() if q is p)
        try:
            return list(self.workers(node).values())
        except OSError:
            return []

    def exit_codes(self) -> dict[str, int]:
        """Each node's torchrun exit status; death by a signal as 128 + signal (as Slurm shows)."""
        out = {}
        for i, p in sorted(self.procs.items()):
            rc = p.returncode
            assert rc is not None
            out[node_name(i)] = 128 - rc if rc < 0 else rc
        return out


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (read from /proc/*/stat)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _after_step(node: int, step: int) -> tuple[int, int]:
    return (node, step)


def _kill_worker(node: int, local_rank: int) -> Callable[[Job], None]:
    return lambda job: job.kill_worker(node, local_rank, signal.SIGKILL)


def _kill_node(node: int) -> Callable[[Job], None]:
    return lambda job: job.kill_node(node, signal.SIGKILL)


def _term_agents(job: Job) -> None:
    job.signal_agents(signal.SIGTERM)


def _fault(kind: str, rank: int = 0, step: int = 5, **extra: object) -> tuple[str, ...]:
    args = [f"--fault={kind}", f"--fault-rank={rank}", f"--fault-step={step}"]
    args += [f"--{k.replace('_', '-')}={v}" for k, v in extra.items()]
    return tuple(args)


_SHORT_HANG = Expected(
    "unknown",
    "Every rank stopped at the same step with no error, but the bundle was taken before the "
    "engine's 10-minute hang floor: no failure signal yet, so requeue without a cause.",
)
NO_ERROR = "no OOM, kernel or hardware line anywhere"
SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "01-worker-sigkill",
        "3 nodes x 1 rank; after step 4 the worker on cpu-n03 is sent SIGKILL.",
        3,
        1,
        ("--steps=40",),
        _after_step(2, 4),
        _kill_worker(2, 0),
        expected=Expected(
            "transient",
            f"A worker on cpu-n03 was SIGKILLed from outside; {NO_ERROR}; "
            "the other ranks' gloo errors are symptoms of its death: retry.",
        ),
    ),
    Scenario(
        "02-worker-sigkill-second-node",
        "2 nodes x 2 ranks; after step 4 local rank 1 on cpu-n02 is sent SIGKILL.",
        2,
        2,
        ("--steps=40",),
        _after_step(1, 4),
        _kill_worker(1, 1),
        expected=Expected(
            "transient",
            f"One worker on cpu-n02 was SIGKILLed from outside; {NO_ERROR}; "
            "its node-mate and cpu-n01's ranks fail with gloo errors as symptoms: retry.",
        ),
    ),
    Scenario(
        "03-rank-sleeps-past-gloo-timeout",
        "2 nodes x 2 ranks; global rank 3 sleeps 45 s inside step 5 "
        f"(gloo timeout {GLOO_TIMEOUT_S} s); its peers time out in all_reduce, "
        "then it wakes to a closed pair.",
        2,
        2,
        (*_fault("sleep-rank", rank=3, step=5, sleep_s=45), "--steps=40"),
        expected=Expected(
            "transient",
            "One rank stalled (it slept) past the gloo collective timeout; "
            "the others timed out waiting for it; no error of the code and no node "
            "evidence: retry on the same nodes.",
        ),
    ),
    Scenario(
        "04-agent-sigkill-with-workers",
        "3 nodes x 1 rank; after step 4 cpu-n02's torchrun agent and its worker are SIGKILLed "
        "together (as when the step's processes are killed on that node).",
        3,
        1,
        ("--steps=40",),
        _after_step(1, 4),
        _kill_node(1),
        expected=Expected(
            "transient",
            f"Every process of the job on cpu-n02 was SIGKILLed; {NO_ERROR}; "
            "the survivors' gloo and rendezvous errors are symptoms: retry.",
        ),
    ),
    Scenario(
        "05-late-node-within-join-timeout",
        f"2 nodes x 1 rank; cpu-n02's torchrun starts 8 s late (join timeout {JOIN_TIMEOUT_S} s). "
        "The job completes on every node: not an incident, no bundle.",
        2,
        1,
        ("--steps=6",),
        late_s={1: 8.0},
    ),
    Scenario(
        "05b-store-host-agent-sigkill",
        "3 nodes x 1 rank; after step 4 the torchrun agent of cpu-n01 (the host of the c10d "
        "rendezvous store) and its worker are SIGKILLed.",
        3,
        1,
        ("--steps=40",),
        _after_step(0, 4),
        _kill_node(0),
        expected=Expected(
            "transient",
            "The node hosting the rendezvous store lost all its job "
            f"processes to SIGKILL; {NO_ERROR}; the other agents lose the store and "
            "their ranks lose their peer: symptoms, retry.",
        ),
    ),
    Scenario(
        "06-node-never-joins",
        f"3 nodes x 1 rank; cpu-n03's torchrun is never started; join timeout {JOIN_TIMEOUT_S} s.",
        3,
        1,
        ("--steps=6",),
        absent=(2,),
        expected=Expected(
            "transient",
            "The rendezvous never completed because one node's agent "
            "never started; the agents that did start time out: the control plane, "
            "not the code and not a node's hardware: retry.",
        ),
    ),
    Scenario(
        "06b-node-starts-after-join-timeout",
        f"2 nodes x 1 rank; cpu-n02's torchrun starts {JOIN_TIMEOUT_S + 15} s late, after the "
        f"join timeout ({JOIN_TIMEOUT_S} s) of cpu-n01, which hosts the rendezvous store.",
        2,
        1,
        ("--steps=6",),
        late_s={1: JOIN_TIMEOUT_S + 15.0},
        expected=Expected(
            "transient",
            "One node's agent started after the rendezvous had timed out: the first agent gave up "
            "(and took the rendezvous store with it), the late one found nobody to join. The "
            "scheduler's start-up, not the code and not a node's hardware: retry.",
        ),
    ),
    Scenario(
        "07-import-error-every-rank",
        "2 nodes x 2 ranks; the training script imports a misspelt name at start-up.",
        2,
        2,
        _fault("import-error"),
        expected=Expected(
            "application",
            "Every rank fails at import (ImportError) before training: "
            "the job's code is broken; a retry fails the same way.",
        ),
    ),
    Scenario(
        "08-key-error-one-rank",
        "2 nodes x 2 ranks; global rank 3 raises KeyError at step 5; the others fail in gloo.",
        2,
        2,
        (*_fault("key-error", rank=3, step=5), "--steps=40"),
        expected=Expected(
            "application",
            "Rank 3 raised KeyError in the training code; the other "
            "ranks' gloo errors are its symptoms: the application.",
        ),
    ),
    Scenario(
        "09-allreduce-shape-mismatch",
        "2 nodes x 1 rank; at step 4 global rank 1 all_reduces a tensor twice as long as rank 0's.",
        2,
        1,
        (*_fault("shape-mismatch", rank=1, step=4), "--steps=40"),
        expected=Expected(
            "application",
            "The ranks called all_reduce with tensors of different "
            "sizes (a bug in the training code); gloo reports the mismatch: stop.",
        ),
    ),
    Scenario(
        "10-cuda-on-cpu-nodes",
        "2 nodes x 1 rank; every rank moves the model to CUDA on nodes without a GPU.",
        2,
        1,
        _fault("cuda"),
        expected=Expected(
            "application",
            "Every rank of every node fails the same way asking for a "
            "CUDA device none of the nodes has: the job's setup, not one node: stop.",
        ),
    ),
    Scenario(
        "11-nan-gradients",
        "2 nodes x 2 ranks; global rank 2's gradients become NaN at step 5; after all_reduce every "
        "rank's clip_grad_norm_(error_if_nonfinite=True) raises.",
        2,
        2,
        (*_fault("nan", rank=2, step=5), "--steps=40"),
        expected=Expected(
            "application",
            "The training diverged (non-finite gradient norm) and the "
            "code raised on every rank: a retry from the same state fails again.",
        ),
    ),
    Scenario(
        "12-whole-job-hang",
        "2 nodes x 2 ranks; every rank sleeps inside step 5 with no collective pending; the bundle "
        "is collected while the job still runs (state RUNNING, ended null), then the job is ended.",
        2,
        2,
        (*_fault("sleep-all", step=5, sleep_s=3600), "--steps=40"),
        trigger=_after_step(0, 4),
        hang=True,
        state="RUNNING",
        expected=Expected(
            "unknown",
            "Every rank stopped at the same step at once with no error, no lost peer and no node "
            "evidence, for longer than the engine's hang floor: nothing says whether the ranks "
            "wait in their own code (here they do: a sleep), on the fabric or on a hung GPU, so "
            "the cause is unknown: a retry the user's budget bounds.",
        ),
    ),
    Scenario(
        "13-preempted-sigterm-all-agents",
        "3 nodes x 1 rank; after step 4 every node's torchrun agent is sent SIGTERM, as Slurm does "
        "when it preempts a job; Slurm records PREEMPTED.",
        3,
        1,
        ("--steps=40",),
        _after_step(0, 4),
        _term_agents,
        state="PREEMPTED",
        expected=Expected(
            "transient",
            "The scheduler preempted the job (SIGTERM to every agent, "
            "torchrun's 'Received Signals.SIGTERM death signal'): requeue.",
        ),
    ),
    Scenario(
        "14-rank-sleeps-unprefixed-output",
        "As 03, launched without --tee: the workers' lines reach the log with no rank prefix. "
        "2 nodes x 2 ranks; global rank 3 sleeps 45 s inside step 5 "
        f"(gloo timeout {GLOO_TIMEOUT_S} s).",
        2,
        2,
        (*_fault("sleep-rank", rank=3, step=5, sleep_s=45), "--steps=40"),
        launch="plain",
        expected=Expected(
            "transient",
            "One rank stalled past the gloo collective timeout after the job had trained four "
            "steps; the others timed out waiting for it: retry on the same nodes.",
        ),
    ),
    Scenario(
        "15-key-error-with-restarts",
        "As 08, with --max-restarts 2: rank 3 raises KeyError at step 5 in every attempt; the "
        "agents restart the worker group twice, then give up.",
        2,
        2,
        (*_fault("key-error", rank=3, step=5), "--steps=40"),
        launch="restarts",
        expected=Expected(
            "application",
            "The same KeyError in the training code ended each of three attempts within the job: "
            "the application; a requeue fails the same way.",
        ),
    ),
)


def run(
    sc: Scenario,
    torchrun: str,
    out: Path,
    hang_collect_s: float,
    variant: str | None = None,
    style: str = "logging",
) -> str:
    """Run one scenario; write its bundle (if it is an incident). Returns a summary line."""
    variant = variant or sc.launch
    with tempfile.TemporaryDirectory(prefix=f"torchrun-{sc.name}-") as tmp:
        job = Job(sc, torchrun, Path(tmp), variant=variant, style=style)
        job.start()
        stalled_at = _now()
        if sc.trigger is not None:
            node, step = sc.trigger
            pattern = STEP_LINES[style].format(step=step)
            if not job.wait_for(node, pattern, RUN_DEADLINE_S):
                job.end()
                raise RuntimeError(f"{sc.name}: never saw {pattern!r} on {node_name(node)}")
            stalled_at = _now()
            if sc.action is not None:
                sc.action(job)
        if sc.hang:
            assert job.started is not None
            left = hang_collect_s - (_now() - job.started).total_seconds()
            time.sleep(max(0.0, left))
            collected = _now()
            snapshot = {i: p.read_bytes() for i, p in job.logs.items()}
            alive = all(p.poll() is None for p in job.procs.values())
            job.events.append(f"{collected:%H:%M:%S}Z bundle collected; then the job is ended:")
            job.end()
            if not alive:
                raise RuntimeError(f"{sc.name}: the job ended before it was collected")
            for i, data in snapshot.items():
                job.logs[i].write_bytes(data)
            if collected - stalled_at < ENGINE_HANG_FLOOR:
                sc = replace(sc, expected=_SHORT_HANG)
        else:
            job.wait(RUN_DEADLINE_S)
            collected = _now()
        codes = job.exit_codes()
        if variant == "restarts" and not any(codes.values()):
            return f"{sc.name}: recovered by a restart on every node"
        if sc.expected is None:
            if any(codes.values()):
                raise RuntimeError(f"{sc.name}: expected success, got exit codes {codes}")
            return f"{sc.name}: succeeded on every node ({_iso(job.started)} .. {_iso(job.ended)})"
        _write_bundle(sc, job, out / sc.name, collected, codes)
        return f"{sc.name}: {'running' if sc.hang else codes} -> {sc.expected.cause}"


def write_job(
    dest: Path, job: Job, job_id: str, sc: Scenario, collected: datetime, codes: dict[str, int]
) -> None:
    """A bundle's `logs/` (each node's output as it was written) and `job.json`, in a fresh
    `dest`; a hang's job has no end and no exit codes."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "logs").mkdir(parents=True)
    for _, path in sorted(job.logs.items()):
        shutil.copyfile(path, dest / "logs" / path.name)
    record: dict[str, object] = {
        "scheduler": "slurm",
        "job": job_id,
        "nodes": [node_name(i) for i in range(sc.nodes)],
        "started": _iso(job.started),
        "ended": None if sc.hang else _iso(job.ended),
        "collected": _iso(collected),
        "state": sc.state,
    }
    if not sc.hang:
        record["exit_codes"] = codes
    (dest / "job.json").write_text(json.dumps(record, indent=2) + "\n")


def _write_bundle(
    sc: Scenario, job: Job, dest: Path, collected: datetime, codes: dict[str, int]
) -> None:
    assert sc.expected is not None
    write_job(dest, job, str(70000 + SCENARIOS.index(sc)), sc, collected, codes)
    (dest / "expected.json").write_text(json.dumps(sc.expected.as_json(), indent=2) + "\n")
    missing = [node_name(i) for i in sc.absent]
    lines = [
        f"# {sc.name}",
        "",
        f"Generated by `{SCRIPT}` with torch {TORCH_VERSION}: real `torchrun` processes, one per "
        "simulated node, on one machine (c10d rendezvous on localhost, gloo on CPU).",
        "",
        f"What was done: {sc.what}",
        "",
        "Timeline (UTC):",
        f"- {_iso(job.started)} job started",
        *(f"- {e}" for e in job.events),
        *([] if sc.hang else [f"- {_iso(collected)} bundle collected"]),
        "",
        f"Launched: {VARIANTS[job.variant]}"
        + (
            ""
            if job.style == "logging"
            else f"; the training script printing `--style {job.style}`"
        )
        + ". `logs/<node>.log` is each node's torchrun stdout "
        "and stderr, unchanged. "
        "There is no `system/` folder: nothing happened on the nodes' kernel side, and no "
        "kernel log was taken.",
    ]
    if missing:
        lines += ["", f"{', '.join(missing)} never ran torchrun, so it has no `logs/` file."]
    (dest / "README.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    """Run the chosen scenarios (all by default) and write their bundles under --out."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("tests/torchrun"))
    p.add_argument("--torchrun", default=str(Path(sys.executable).with_name("torchrun")))
    p.add_argument("--only", action="append", default=[], help="scenario name (repeatable)")
    p.add_argument("--hang-collect-s", type=float, default=HANG_COLLECT_S)
    p.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=None,
        help="launch every scenario this way (default: each scenario's own, mostly `tee`)",
    )
    p.add_argument(
        "--style",
        choices=sorted(STEP_LINES),
        default="logging",
        help="how the training script prints (`print`: no times, its own progress words)",
    )
    args = p.parse_args()

    import torch  # only to check the pin

    version = torch.__version__.split("+", 1)[0]
    if version != TORCH_VERSION:
        print(
            f"torch is {version}, the pin is {TORCH_VERSION}: update TORCH_VERSION", file=sys.stderr
        )
        return 2
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only]
    if args.only and len(chosen) != len(args.only):
        print(f"unknown scenario in {args.only}", file=sys.stderr)
        return 2
    hangs = [s for s in chosen if s.hang]
    results: dict[str, str] = {}

    def run_hang(sc: Scenario) -> None:
        results[sc.name] = run(
            sc, args.torchrun, args.out, args.hang_collect_s, args.variant, args.style
        )

    # A hang must run for its collection time; the other scenarios run meanwhile.
    threads = [threading.Thread(target=run_hang, args=(s,)) for s in hangs]
    for t in threads:
        t.start()
    for sc in chosen:
        if not sc.hang:
            results[sc.name] = run(
                sc, args.torchrun, args.out, args.hang_collect_s, args.variant, args.style
            )
            print(results[sc.name], flush=True)
    for t in threads:
        t.join()
    for sc in hangs:
        print(results.get(sc.name, f"{sc.name}: failed"), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    runs = args.out / "runs.txt"  # one line per scenario; a partial run updates its lines
    lines = dict(ln.split(": ", 1) for ln in runs.read_text().splitlines()) if runs.exists() else {}
    lines.update(results.get(sc.name, f"{sc.name}: failed").split(": ", 1) for sc in chosen)
    order = [sc.name for sc in SCENARIOS if sc.name in lines]
    runs.write_text("".join(f"{name}: {lines[name]}\n" for name in order))
    return 0 if len(results) == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
