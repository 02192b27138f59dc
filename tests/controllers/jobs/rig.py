"""The job recovery test rig: the job controller wired to the fakes, on a virtual clock."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from autorecover.adapters.fakes.cluster import FakeClock, FakeNotifier
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.store.memory_jobs import MemoryJobStore, MemorySignals
from autorecover.controllers.jobs.acting import NO_JOB_HOOKS, JobHooks
from autorecover.controllers.jobs.controller import (
    JobPassSummary,
    JobRecoveryController,
    JobSettings,
)
from autorecover.controllers.jobs.records import JobIncident
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.jobs.health import HealthThresholds
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
NODES = [f"n{i}" for i in range(8)]
# A hang is 100 s of silence for the tests' 10 s steps (10 intervals; the floor is lower).
SETTINGS = JobSettings(health=HealthThresholds(hang_floor_s=60.0, hang_intervals=10.0))
MAX_PASSES = 50

XID79 = (
    "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
)
NCCL_TIMEOUT = (
    "[rank{rank}]:[E305 13:12:13.968302536 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=138607, OpType=ALLREDUCE, "
    "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600022 milliseconds before timing out."
)
MODULE_NOT_FOUND = "ModuleNotFoundError: No module named 'flash_attn.flash_attention'"
WEAK_EXCEPTION = "NameError: name 'Attention' is not defined"
PREEMPTED = "slurmstepd: error: *** JOB 4242 ON {node} CANCELLED AT 2026-01-05T08:00:00 DUE TO PREEMPTION ***"
WORKER_RESTART = (
    "INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. "
    "2/3 attempts left; will restart worker group"
)
NO_PROGRESS = (
    "[default] Progress tracker detected no progress across restarts. "
    "No more restarts will be attempted."
)


def tele(event: str, at: datetime, rank: int, node: str, **fields: Any) -> str:
    """One autorecover/1 telemetry line."""
    record = {"telemetry": "autorecover/1", "ts": at.isoformat(), "rank": rank, "event": event}
    record.update(node=node, **fields)
    return json.dumps(record) + "\n"


@dataclass
class JobRig:
    """The controller and its fakes; `restart` builds a fresh controller on the same store."""

    nodes: list[str] = field(default_factory=lambda: list(NODES))
    policy: JobPolicy = field(default_factory=JobPolicy)
    settings: JobSettings = SETTINGS
    store: Any = field(default_factory=MemoryJobStore)
    dry_run: bool = False
    hooks: JobHooks = NO_JOB_HOOKS
    clock: FakeClock = field(default_factory=FakeClock)
    topology: Topology = NO_TOPOLOGY  # the failure domains job recovery reads (cliques)

    def __post_init__(self) -> None:
        self.scheduler = FakeJobScheduler(self.clock, self.nodes)
        self.signals = MemorySignals()
        self.notifier = FakeNotifier()
        self.controller = self.build()

    def build(self, hooks: JobHooks | None = None) -> JobRecoveryController:
        return JobRecoveryController(
            self.store,
            self.scheduler,
            self.signals,
            self.clock,
            self.policy,
            CATALOG,
            self.dry_run,
            notifier=self.notifier,
            settings=self.settings,
            hooks=self.hooks if hooks is None else hooks,
            scanner=SCANNER,
            topology=lambda: self.topology,
        )

    def restart(self, store: Any = None, hooks: JobHooks | None = None) -> None:
        if store is not None:
            self.store = store
        self.controller = self.build(hooks)

    # --- the job's side ----------------------------------------------------------------------

    def submit(
        self, job: str = "train", size: int = 4, first: int = 0, **overrides: Any
    ) -> list[str]:
        nodes = self.nodes[first : first + size]
        self.scheduler.submit(job, nodes, overrides)
        return nodes

    def on(self, job: str = "train") -> tuple[str, ...]:
        return self.scheduler.current(job).nodes

    def steps(
        self,
        job: str = "train",
        count: int = 5,
        every_s: float = 10.0,
        start: int | None = None,
        slow: dict[str, float] | None = None,
        checkpoint_every: int = 0,
        run: bool = True,
    ) -> int:
        """`count` progress reports from every rank, `every_s` apart; returns the next step."""
        run_ = self.scheduler.current(job)
        nodes = run_.nodes
        step = start if start is not None else _next_step(self, job)
        for _ in range(count):
            now = self.clock.now()
            for rank, node in enumerate(nodes):
                compute = 0.8 * (slow or {}).get(node, 1.0)
                self.scheduler.write(
                    job, node, tele("step", now, rank, node, step=step, step_time_s=1.0)
                )
                self.scheduler.write(
                    job, node,
                    tele("summary", now, rank, node, step=step, steps_per_s=1.0,
                         step_time_mean_s=1.0, forward_mean_s=compute / 2, backward_mean_s=compute / 2),
                )  # fmt: skip
                if checkpoint_every and (step + 1) % checkpoint_every == 0:
                    self.scheduler.write(
                        job, node,
                        tele("span_end", now, rank, node, name="checkpoint_save",
                             iteration=step + 1, ok=True),
                    )  # fmt: skip
            self.clock.advance(every_s)
            if run:
                self.controller.run_once()
            step += 1
        return step

    def resume(self, job: str = "train", loaded: int = 0) -> None:
        """The new attempt's ranks start: init, checkpoint load, first step."""
        now = self.clock.now()
        for rank, node in enumerate(self.on(job)):
            self.scheduler.write(job, node, tele("init", now, rank, node))
            self.scheduler.write(
                job, node,
                tele("span_end", now, rank, node, name="checkpoint_load", iteration=loaded, ok=True),
            )  # fmt: skip
            self.scheduler.write(
                job, node, tele("step", now, rank, node, step=loaded, step_time_s=1.0)
            )

    def xid(self, node: str, key: str = "xid.79", weight: int = 95) -> NodeSignal:
        """The node agent saw an XID on `node` (recorded by hardware recovery)."""
        signal = NodeSignal(
            node, Probe.KERNEL, key, Blame.HARDWARE, weight, NodeAction.REBOOT,
            self.clock.now(), text=XID79,
        )  # fmt: skip
        self.signals.add(signal)
        return signal

    def fail(
        self, job: str = "train", code: int = 1, culprit: str | None = None, **codes: int
    ) -> None:
        nodes = self.on(job)
        exit_codes = {n: (code if culprit in (None, n) else 143) for n in nodes}
        exit_codes.update(codes)
        self.scheduler.fail(job, exit_codes)

    # --- the controller's side ---------------------------------------------------------------

    def run(self, passes: int = 1, step_s: float = 1.0) -> JobPassSummary:
        summary = JobPassSummary()
        for _ in range(passes):
            self.clock.advance(step_s)
            summary = self.controller.run_once()
        return summary

    def settle(self, step_s: float = 5.0) -> int:
        """Pass until nothing is waiting and no incident is being verified; bounded."""
        for i in range(MAX_PASSES):
            self.run(step_s=step_s)
            busy = [
                x
                for x in self.controller.open_incidents()
                if x.phase.value in ("acting", "verifying")
            ]
            if not busy and not self.controller.waiting:
                return i
        raise AssertionError("did not settle")

    def incidents(self, job: str | None = None) -> list[JobIncident]:
        return list(self.store.incidents(job))

    def incident(self, job: str = "train", attempt: int = 0, kind: str = "failure") -> JobIncident:
        [found] = [
            i for i in self.store.incidents(job) if i.attempt == attempt and i.kind.value == kind
        ]
        return found

    def requeues(self, job: str = "train") -> list[str]:
        return [aid for kind, j, aid in self.scheduler.log if j == job and kind == "requeue"]


def _next_step(rig: JobRig, job: str) -> int:
    text = b"".join(bytes(v) for v in rig.scheduler.current(job).output.values()).decode()
    steps = [
        json.loads(line[line.index("{") :]).get("step", -1)
        for line in text.splitlines()
        if '"step"' in line
    ]
    return max(steps, default=-1) + 1


def nodes_of(signals: Iterable[NodeSignal]) -> list[str]:
    return sorted(s.node for s in signals)
