"""One policy's run over a trace: the world's events, the scheduler, the jobs' accounting.

The world applies the trace (a node breaks, a leaf switch fails, a node slows down, a warning
appears) and tells the policy only what a real system would see; the policy decides through
`requeue`, `stop`, `migrate` and its cordons. The scheduler places a job on nodes that are up,
free, not cordoned by the policy and not excluded by the job (its earlier nodes first), and
queues it while there are not enough; a job started on a node that is still broken fails
again shortly after it starts.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial

from autorecover.simulation.events import EventQueue, SimClock
from autorecover.simulation.faults import Fault, Straggle, Trace, Warning_
from autorecover.simulation.fleet import Broken, Fleet
from autorecover.simulation.jobs import (
    DETECT,
    PERSON,
    QUEUE,
    RESTART,
    RUNNING,
    STOP,
    Job,
    Ledger,
)
from autorecover.simulation.settings import Category, World

SAMPLE_S = 3600.0  # nodes out of service are sampled hourly
MIGRATION = "proactive_migration"


@dataclass(frozen=True, slots=True)
class Incident:
    """A job interruption as the world caused it (policies see only what they may)."""

    job: Job
    at: float
    category: Category
    culprit: int | None  # the node at fault, if any
    hang: bool
    observed: bool  # the node agent saw the fault
    repeat: bool = False  # the job started on a node still broken


@dataclass(slots=True)
class Outcome:
    """What one policy's run produced, for the report."""

    policy: str
    horizon_s: float
    gpus: int
    ledger: Ledger
    interruptions: Counter[str] = field(default_factory=Counter)
    recoveries: list[dict[str, float]] = field(default_factory=list)
    quarantines: int = 0
    false_quarantines: int = 0
    migrations: int = 0
    out_of_service: list[int] = field(default_factory=list)  # sampled hourly
    events: int = 0


class Simulation:
    """The world and its scheduler, driving one policy."""

    def __init__(
        self,
        policy: Policy,
        trace: Trace,
        fleet: Fleet,
        jobs: list[Job],
        world: World,
        horizon_s: float,
        seed: int,
        categories: Iterable[Category],
        job_overrides: Mapping[str, object] | None = None,
    ) -> None:
        self.clock = SimClock()
        self.queue = EventQueue(self.clock)
        self.fleet, self.jobs, self.world, self.horizon_s = fleet, jobs, world, horizon_s
        self.categories = {c.key: c for c in categories}
        self.job_overrides = dict(job_overrides or {})
        # The policy's own draws (a person's response time); seeded, not secrets.
        self.rng = random.Random(seed)  # noqa: S311
        self.ledger = Ledger()
        self.owner: dict[int, int] = {}
        self.waiting: list[Job] = []
        self.slow: dict[int, float] = {}  # straggling node -> until
        self.policy = policy
        self.out = Outcome(policy.name, horizon_s, sum(j.gpus for j in jobs), self.ledger)
        self._recovery: dict[int, dict[str, float]] = {}
        for f in trace.faults:
            self.queue.at(f.at, partial(self._fault, f))
        for w in trace.warnings:
            self.queue.at(w.at, partial(self._warning, w))
        for s in trace.straggles:
            self.queue.at(s.at, partial(self._straggle, s))
        t = 0.0
        while t < horizon_s:
            self.queue.at(t, self._sample)
            t += SAMPLE_S
        free = iter(range(fleet.nodes))
        for job in jobs:
            job.nodes = tuple(next(free) for _ in range(job.size))
            for n in job.nodes:
                self.owner[n] = job.index
        policy.attach(self)
        for job in jobs:
            policy.started(job)

    @property
    def t(self) -> float:
        """Seconds since the start."""
        return self.clock.t

    def run(self, on_step: Callable[[float], None] | None = None) -> Outcome:
        """Run to the horizon and close the books."""
        self.queue.run(self.horizon_s, on_step)
        for job in self.jobs:
            job.close(self.horizon_s, self.ledger)
        self.out.events = self.queue.ran
        return self.out

    # --- the world -------------------------------------------------------------------------

    def _fault(self, f: Fault) -> None:
        t, fleet = self.t, self.fleet
        cat = f.category
        if f.node is None:
            job = self.jobs[f.job or 0]
            if job.running:
                culprit = job.nodes[f.rank % len(job.nodes)]
                self.interrupt(Incident(job, t, cat, None, f.hang, False), rank_node=culprit)
            return
        node = f.node
        if fleet.weights[node] < f.weight and f.keep > fleet.weights[node] / f.weight:
            return  # the lemon's part was replaced since: this fault no longer happens
        if f.leaf:
            leaf = fleet.leaf(node)
            fleet.leaf_down[leaf] = t + self.world.repair["leaf_repair_s"]
            hit = list(fleet.leaf_nodes(leaf))
            self.queue.at(fleet.leaf_down[leaf] + 1.0, self.capacity_changed)
        else:
            if node in fleet.broken and f.cure == "none":
                return
            if f.cure != "none":
                fleet.broken[node] = Broken(cat.key, f.cure, t, cat.host_down)
            hit = [node]
        if f.observed:
            for n in hit:
                self.policy.signal(n, cat.agent_line)
        elif cat.host_down:
            self.policy.host_down(node)
        jobs = {self.owner[n] for n in hit if n in self.owner}
        for j in sorted(jobs):
            job = self.jobs[j]
            if job.stage in (RUNNING, RESTART):
                self.interrupt(Incident(job, t, cat, node, f.hang, f.observed))

    def _warning(self, w: Warning_) -> None:
        self.policy.warning(w.node, w.line, w.true)

    def _straggle(self, s: Straggle) -> None:
        self.slow[s.node] = self.t + s.duration_s
        self.queue.after(s.duration_s, lambda: self._unstraggle(s.node))
        j = self.owner.get(s.node)
        if j is not None and self.jobs[j].running:
            self._pace(self.jobs[j])
            self.policy.straggler(self.jobs[j], s.node)

    def _unstraggle(self, node: int) -> None:
        if self.slow.get(node, 0.0) <= self.t:
            self.slow.pop(node, None)
            j = self.owner.get(node)
            if j is not None:
                self._pace(self.jobs[j])

    def _pace(self, job: Job) -> None:
        slow = any(n in self.slow for n in job.nodes)
        job.set_slowdown(self.world.straggler["slowdown"] if slow else 1.0, self.t, self.ledger)

    def _sample(self) -> None:
        self.out.out_of_service.append(self.policy.out_of_service())

    # --- what policies do ------------------------------------------------------------------

    def interrupt(self, incident: Incident, rank_node: int | None = None) -> None:
        """The job stops making progress (a crash or a hang) because of `incident`."""
        job = incident.job
        job.enter(DETECT, self.t, self.ledger, incident.category.key)
        job.epoch += 1
        job.interruptions += 1
        self.out.interruptions[incident.category.key] += 1
        self._recovery[job.index] = {"at": self.t}
        self.policy.interrupted(incident, rank_node)

    def requeue(
        self,
        job: Job,
        exclude: Iterable[int] = (),
        ttl_s: float = 86_400.0,
        delay_s: float = 0.0,
        free: bool = False,
    ) -> None:
        """Stop what is left of the job and start it again (after `delay_s`) avoiding
        `exclude`; `free`: no stop, initialisation or load cost (the zero-overhead bound)."""
        until = self.t + ttl_s
        for n in exclude:
            job.exclude[n] = max(job.exclude.get(n, 0.0), until)
        self._mark(job, "detected")
        job.enter(STOP, self.t, self.ledger)
        job.epoch += 1
        self._release(job)
        wait = delay_s + (0.0 if free else self.world.job["stop_s"])
        epoch = job.epoch
        self.queue.after(wait, lambda: self._want(job, epoch, free))

    def stop(self, job: Job) -> None:
        """Stop the job for good; it waits for a person (`requeue` when they act)."""
        self._mark(job, "detected")
        job.enter(PERSON, self.t, self.ledger)
        job.epoch += 1
        self._release(job)

    def migrate(self, job: Job, node: int, ttl_s: float) -> None:
        """Requeue a running job without `node` now, avoiding it for `ttl_s` (policy 4b,
        right after a checkpoint)."""
        job.enter(DETECT, self.t, self.ledger, MIGRATION)
        self.out.migrations += 1
        self._recovery[job.index] = {"at": self.t}
        self.requeue(job, (node,), ttl_s)

    def capacity_changed(self) -> None:
        """Nodes came back: queued jobs try again."""
        for job in list(self.waiting):
            self._place(job)

    def note_quarantine(self, node: int) -> None:
        """The policy took a node out of service; false when nothing was wrong with it."""
        self.out.quarantines += 1
        if self.fleet.healthy(node, self.t) and self.fleet.up(node, self.t):
            self.out.false_quarantines += 1

    def spares(self, job: Job, need: int = 1) -> bool:
        """At least `need` usable nodes outside the job that it does not exclude."""
        excluded, found = job.excluded(self.t), 0
        for n in range(self.fleet.nodes):
            if n not in excluded and self.usable(n):
                found += 1
                if found >= need:
                    return True
        return False

    def usable(self, node: int) -> bool:
        """Up, free and not held out by the policy."""
        return (
            node not in self.owner and self.fleet.up(node, self.t) and not self.policy.holds(node)
        )

    # --- scheduling ------------------------------------------------------------------------

    def _release(self, job: Job) -> None:
        for n in job.nodes:
            self.owner.pop(n, None)
        self.policy.left(job, job.nodes)
        if job.nodes:
            job.previous = job.nodes
        job.nodes = ()
        self.queue.after(0.0, self.capacity_changed)

    def _want(self, job: Job, epoch: int, free: bool) -> None:
        if job.epoch != epoch:
            return
        job.enter(QUEUE, self.t, self.ledger)
        self._mark(job, "stopped")
        job.wanted_at = self.t
        self.waiting.append(job)
        self._place(job, free)

    def _place(self, job: Job, free: bool = False) -> None:
        excluded = job.excluded(self.t)
        chosen: list[int] = []
        for n in dict.fromkeys((*job.previous, *range(self.fleet.nodes))):
            # The zero-overhead bound swaps a node at once: only ownership limits it.
            if n not in excluded and (n not in self.owner if free else self.usable(n)):
                chosen.append(n)
                if len(chosen) == job.size:
                    break
        if len(chosen) < job.size:
            return
        self.waiting.remove(job)
        job.nodes = tuple(chosen)
        for n in chosen:
            self.owner[n] = job.index
        self._mark(job, "placed")
        job.enter(RESTART, self.t, self.ledger)
        job.epoch += 1
        epoch = job.epoch
        cost = 0.0 if free else self.world.job["init_s"] + self.world.job["load_s"]
        self.policy.placed(job)
        broken = [n for n in chosen if n in self.fleet.broken]
        if broken and not free:
            node = broken[0]
            cat = self.categories[self.fleet.broken[node].category]
            fail_at = self.world.job["retry_start_failure_s"]
            incident = Incident(job, 0.0, cat, node, False, cat.observed >= 0.5, repeat=True)
            self.queue.after(fail_at, lambda: self._repeat(incident, epoch))
        self.queue.after(cost, lambda: self._running(job, epoch))

    def _repeat(self, incident: Incident, epoch: int) -> None:
        job = incident.job
        if job.epoch != epoch or incident.culprit not in self.fleet.broken:
            return
        if incident.observed and incident.category.agent_line:  # the fault shows again
            self.policy.signal(incident.culprit, incident.category.agent_line)
        self.interrupt(Incident(job, self.t, incident.category, incident.culprit, False,
                                incident.observed, repeat=True))  # fmt: skip

    def _running(self, job: Job, epoch: int) -> None:
        if job.epoch != epoch:
            return
        job.enter(RUNNING, self.t, self.ledger)
        self._mark(job, "running")
        rec = self._recovery.pop(job.index, None)
        if rec is not None:
            self.out.recoveries.append(rec)
        self._pace(job)
        self.policy.started(job)

    def _mark(self, job: Job, what: str) -> None:
        rec = self._recovery.get(job.index)
        if rec is not None and what not in rec:
            rec[what] = self.t


class Policy:
    """What every policy answers; the defaults do nothing (the subclasses say what they do)."""

    name = "policy"

    def attach(self, sim: Simulation) -> None:
        """Join the simulation (before the first event)."""
        self.sim = sim

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        """A job stopped making progress; decide when and how it restarts."""
        raise NotImplementedError

    def holds(self, node: int) -> bool:
        """The policy keeps this node out of service (a cordon)."""
        return False

    def out_of_service(self) -> int:
        """Nodes out of service now (held by the policy or down)."""
        t, fleet = self.sim.t, self.sim.fleet
        down = {n for n, b in fleet.broken.items() if b.host_down}
        for leaf, until in fleet.leaf_down.items():
            if until > t:
                down.update(fleet.leaf_nodes(leaf))
        return len(down | self.held())

    def held(self) -> set[int]:
        """The nodes the policy holds out."""
        return set()

    def signal(self, node: int, line: str) -> None:
        """The node agent saw a fault (a kernel line) on the node."""

    def host_down(self, node: int) -> None:
        """The node's host stopped answering."""

    def warning(self, node: int, line: str, true: bool) -> None:
        """A health warning on the node (`true`: the world knows a fault follows)."""

    def straggler(self, job: Job, node: int) -> None:
        """A node of a running job became slow."""

    def placed(self, job: Job) -> None:
        """The job was placed on nodes (it starts after its restart cost)."""

    def started(self, job: Job) -> None:
        """The job runs (at the start and after each restart)."""

    def left(self, job: Job, nodes: tuple[int, ...]) -> None:
        """The job left these nodes."""

    def response_s(self) -> float:
        """A person's response time (lognormal)."""
        p = self.sim.world.person
        return self.sim.rng.lognormvariate(math.log(p["response_median_s"]), p["response_sigma"])
