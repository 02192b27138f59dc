"""Policies (4) and (4b): autorecover's own code deciding on the simulated fleet.

Hardware recovery is the real `HardwareController` with the built-in hardware policy, on a
`MemoryStore`, the simulated scheduler and diagnostics (`simulation.ports`) and the virtual
clock: every quarantine, drain, diagnostic, GPU reset, reboot, hand-over to a person, breaker
refusal and domain incident is the controller's own decision. The node agent's signals are the
study's kernel lines scanned by the real catalog, as the agent's kernel probe does.

Job recovery runs its decision code per incident rather than `JobRecoveryController.run_once`
(which reads every node's output each pass, too slow for 16,384-GPU jobs here): the job's
output lines are the catalog's example lines scanned by the real `Scanner`, the nodes' signals
become findings (`controllers.jobs.evidence`), `domain.attribution.attribute` names the cause
and suspects, and `controllers.jobs.incidents.open_failure` (with `decide_job`, its budgets,
crash-loop and no-progress stops, exclusions and suspicion) decides; its hand-overs go to the
hardware controller at once. (4b) adds checkpoint-aware proactive migration, modelled here; the
real feature lives in job recovery (docs/simulation.md).
"""

from __future__ import annotations

import functools
import io
import math
from collections import deque
from dataclasses import replace

from autorecover.adapters.fakes.cluster import FakeNotifier
from autorecover.adapters.store.memory import MemoryStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.evidence import (
    hang_findings,
    job_record,
    named_signal,
    signal_findings,
)
from autorecover.controllers.jobs.incidents import Context, open_failure
from autorecover.controllers.jobs.records import IncidentKind, JobPhase, JobStatus, WatchedJob
from autorecover.domain.attribution import attribute
from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.history import Attempt as EarlierAttempt
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.health import Assessment as Health
from autorecover.domain.jobs.health import Condition, HealthThresholds
from autorecover.domain.jobs.policy import builtin_job_policy
from autorecover.domain.jobs.suspicion import Suspicion
from autorecover.domain.records import Action, Blame, Cause, Finding, NodeAction, Source
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.parsing.scanning import Scanner
from autorecover.simulation.jobs import Job
from autorecover.simulation.ports import SimDiagnostics, SimScheduler
from autorecover.simulation.simulating import Incident, Policy, Simulation

AGENT_DELAY_S = 15.0  # the agent's probe interval and the post to the engine
TICK_S = 300.0  # the controller's periodic pass while a node is on the ladder
_LADDER = {NodeState.QUARANTINED, NodeState.DIAGNOSING, NodeState.REMEDIATING,
           NodeState.VALIDATING, NodeState.SUSPECT}  # fmt: skip


class Autorecover(Policy):
    """(4) autorecover's default policy: the real controllers' decisions."""

    name = "autorecover"

    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self.catalog, self.scanner = _catalog()
        self.rules = {n: e.rules for n, e in self.catalog.xids.items() if e.rules}
        self.job_policy = builtin_job_policy().merged(sim.job_overrides, "--job-override")
        self.hw_policy = load_policy()
        self.topology = sim.fleet.topology()
        self.run_start: dict[int, float] = {}
        self.store = MemoryStore()
        self.scheduler = SimScheduler(
            sim.queue, sim.fleet, dict(sim.world.repair), self._wake,
            sim.note_quarantine, sim.capacity_changed,
        )  # fmt: skip
        self.diagnostics = SimDiagnostics(
            sim.queue, sim.fleet, self.scheduler, dict(sim.world.repair), self._wake
        )
        self.hardware = HardwareController(
            store=self.store, scheduler=self.scheduler, diagnostics=self.diagnostics,
            notifier=FakeNotifier(), clock=sim.clock, policy=self.hw_policy,
            topology=self.topology, fleet_size=sim.fleet.nodes,
        )  # fmt: skip
        self.watch: set[int] = set()  # nodes hardware recovery is working on
        self.person: set[int] = set()  # nodes handed to a person
        self.by_hand: set[int] = set()  # nodes a person took out themselves (a stopped job)
        self.histories: dict[int, JobHistory] = {}
        self.suspicion = Suspicion(self.job_policy.suspicion_half_life_s)
        self.seen: dict[int, deque[NodeSignal]] = {}  # node -> recent agent signals
        self._ticking = False
        self._scans: dict[tuple[str, Source], tuple[Finding, ...]] = {}
        self.thresholds = HealthThresholds()

    # --- the fleet: signals to hardware recovery -------------------------------------------

    def holds(self, node: int) -> bool:
        return node in self.scheduler.held or node in self.by_hand

    def held(self) -> set[int]:
        return self.scheduler.held | self.by_hand

    def signal(self, node: int, line: str) -> None:
        found = [self._agent_signal(node, f) for f in self._scan(line, Source.SYSTEM, node)]
        self.sim.queue.after(AGENT_DELAY_S, lambda: self._ingest(found))

    def host_down(self, node: int) -> None:
        name = self.sim.fleet.name(node)
        self.scheduler.unresponsive(name)
        silence = self.hw_policy.silence.total_seconds()

        def raise_silent() -> None:  # the engine's own finding for a silent, down host
            s = NodeSignal(name, Probe.ENGINE, "host.unresponsive", Blame.HARDWARE, 100,
                           NodeAction.POWER_CYCLE, self.sim.clock.now(),
                           text="agent silent and the scheduler says not responding")  # fmt: skip
            self._ingest([s])

        self.sim.queue.after(silence, raise_silent)

    def warning(self, node: int, line: str, true: bool) -> None:
        self.signal(node, line)

    def _agent_signal(self, node: int, f: Finding) -> NodeSignal:
        return NodeSignal(
            self.sim.fleet.name(node), Probe.KERNEL, f.signal, f.blame, f.weight, f.node_action,
            self.sim.clock.now(), text=f.text,
        )  # fmt: skip

    def _scan(self, line: str, source: Source, node: int) -> list[Finding]:
        key = (line, source)
        if key not in self._scans:
            data = io.BytesIO((line + "\n").encode())
            result = self.scanner.scan(
                data, node="x", source=source, reference=self.sim.clock.now()
            )
            self._scans[key] = result.findings
        name, at = self.sim.fleet.name(node), self.sim.clock.now()
        return [replace(f, node=name, at=at) for f in self._scans[key]]

    def _ingest(self, signals: list[NodeSignal]) -> None:
        if not signals:
            return
        for s in signals:
            index = self.sim.fleet.index(s.node)
            if s.probe is not Probe.JOB:
                self.seen.setdefault(index, deque(maxlen=16)).append(s)
            self.watch.add(index)
        self.hardware.ingest(signals)
        self._after()

    def _wake(self) -> None:
        self.hardware.tick()
        self._after()

    def _after(self) -> None:
        """After a pass: a person for the nodes handed over, periodic passes while needed."""
        ladder = False
        for index in list(self.watch):
            state = self.hardware.node(self.sim.fleet.name(index)).state
            if state is NodeState.NEEDS_ATTENTION and index not in self.person:
                self.person.add(index)
                self._send_person(index)
            elif state is NodeState.HEALTHY:
                self.watch.discard(index)
            ladder = ladder or state in _LADDER
        if ladder and not self._ticking:
            self._ticking = True
            self.sim.queue.after(TICK_S, self._periodic)

    def _periodic(self) -> None:
        self._ticking = False
        self._wake()

    def _send_person(self, index: int) -> None:
        """A person repairs what the node needs and releases it to validation."""
        sim = self.sim
        remedy = sim.fleet.remedy_for(index)
        took = self.response_s() + self._repair_s(remedy)

        def repaired() -> None:
            if remedy != "none":
                sim.fleet.cure(index, remedy)
            self.scheduler.unresponsive(sim.fleet.name(index), gone=False)
            self.person.discard(index)
            name = sim.fleet.name(index)
            if self.hardware.node(name).state is NodeState.NEEDS_ATTENTION:
                self.hardware.release(name, "technician", f"repaired ({remedy})", validate=True)
            self._after()

        sim.queue.after(took, repaired)

    # --- jobs: job recovery's decisions ------------------------------------------------------

    def placed(self, job: Job) -> None:
        self._running(job.nodes, 1)

    def left(self, job: Job, nodes: tuple[int, ...]) -> None:
        self._running(nodes, 0)
        if any(n in self.watch for n in nodes):
            self._wake()  # drains waiting for the job are done now

    def started(self, job: Job) -> None:
        self.run_start[job.index] = self.sim.t
        self._running(job.nodes, 1)

    def _running(self, nodes: tuple[int, ...], jobs: int) -> None:
        """What the scheduler shows running on the nodes (a drain waits for it)."""
        fakes, names = self.scheduler.nodes, self.sim.fleet.names
        for n in nodes:
            fakes[names[n]].running_jobs = jobs

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        j = self.sim.world.job
        if incident.hang:  # the telemetry library's hang threshold: silence of N intervals
            wait = self.thresholds.hang_intervals * j["report_interval_s"]
        else:
            wait = j["poll_s"]
        job, epoch = incident.job, incident.job.epoch

        def decide() -> None:
            if job.epoch == epoch:
                self._decide(incident, rank_node)

        self.sim.queue.after(wait, decide)

    def _decide(self, incident: Incident, rank_node: int | None) -> None:
        sim, job = self.sim, incident.job
        now = sim.clock.now()
        names = tuple(sim.fleet.name(n) for n in job.nodes)
        failed_at = sim.clock.at(incident.at)
        hang = incident.hang
        first = next(n for n in (incident.culprit, rank_node, job.nodes[0]) if n is not None)
        status = JobStatus(
            job.name, JobPhase.RUNNING if hang else JobPhase.FAILED,
            "RUNNING" if hang else "FAILED", job.interruptions, names,
            started=sim.clock.at(self.run_start.get(job.index, 0.0)),
            ended=None if hang else failed_at,
            exit_codes=() if hang else ((sim.fleet.name(first), 1),),  # the rank that failed
        )  # fmt: skip
        w = WatchedJob(status, "simulated")
        findings = self._findings(incident, rank_node, hang)
        record = job_record(w, now, running=hang)
        history = self.histories.get(job.index, JobHistory())
        verdict = attribute(record, findings, [], self.rules, _earlier(history))
        ctx = Context("job-recovery", self.job_policy, now, False, 4,
                      self.job_policy.suspicion_threshold, self.topology)  # fmt: skip
        kind = IncidentKind.HANG if hang else IncidentKind.FAILURE
        opened = open_failure(
            ctx, w, kind, verdict, findings, history, self.suspicion,
            checkpoint=job.checkpoints, failed_at=failed_at, lost=None,
        )  # fmt: skip
        self.histories[job.index] = opened.history
        self.suspicion = opened.suspicion
        decided = opened.incident.decided
        if opened.handovers:
            self._ingest([h.signal for h in opened.handovers])
        if decided is None or decided.action is Action.STOP:
            sim.stop(job)
            sim.queue.after(self.response_s(), lambda: self._retry(incident))
            return
        requeue = opened.actions[0]
        exclude = [sim.fleet.index(n) for n in requeue.exclude]
        ttl = self.job_policy.exclusion_ttl_s
        sim.requeue(job, exclude, ttl, requeue.delay_s)

    def _retry(self, incident: Incident) -> None:
        """A person answers the stop alert: looks for the bad node as `manual` does (sending
        it to repair under their own cordon) and retries the job, its exclusions kept."""
        sim, job = self.sim, incident.job
        p = sim.world.person
        chance = p["identify_observed"] if incident.observed else p["identify_silent"]
        found = incident.culprit if sim.rng.random() < chance else None
        history = self.histories.get(job.index, JobHistory())
        excluded = [sim.fleet.index(n) for n in history.excluded(sim.clock.now())]
        if found is not None and found not in self.by_hand:
            self.by_hand.add(found)
            sim.note_quarantine(found)
            remedy = sim.fleet.remedy_for(found)

            def repaired() -> None:
                if remedy != "none":
                    sim.fleet.cure(found, remedy)
                self.by_hand.discard(found)
                sim.capacity_changed()

            sim.queue.after(self._repair_s(remedy), repaired)
        sim.requeue(job, excluded, self.job_policy.exclusion_ttl_s)

    def _repair_s(self, remedy: str) -> float:
        """How long a person's repair takes, once they act."""
        if remedy == "rma":
            rep = self.sim.world.repair
            return self.sim.rng.lognormvariate(math.log(rep["rma_median_s"]), rep["rma_sigma"])
        return self.sim.world.person["repair_reset_s"] if remedy != "none" else 0.0

    def _findings(self, incident: Incident, rank_node: int | None, hang: bool) -> list[Finding]:
        sim, job = self.sim, incident.job
        out: list[Finding] = []
        printer = incident.culprit if incident.culprit is not None else rank_node
        if printer is not None:
            for key in incident.category.job_lines:
                sig = self.catalog.signatures.get(key)
                if sig is not None and sig.example:
                    out.extend(self._scan(sig.example, Source.LOGS, printer))
        peers = [n for n in job.nodes if n != printer]
        k = min(len(peers), int(sim.world.job["error_nodes"]))
        watchdog = self.catalog.signatures.get("nccl.watchdog_timeout")
        if watchdog is not None and watchdog.example:
            for n in sim.rng.sample(peers, k):
                out.extend(self._scan(watchdog.example, Source.LOGS, n))
        since = sim.clock.at(max(incident.at - 3600.0, 0.0))
        recent = [s for n in job.nodes for s in self.seen.get(n, ()) if s.at >= since]
        out.extend(signal_findings(recent))
        if hang:
            first = (sim.fleet.name(incident.culprit),) if incident.culprit is not None else ()
            seen = Health(Condition.HUNG, "no progress", since=sim.clock.at(incident.at),
                          nodes=first)  # fmt: skip
            out.extend(hang_findings(seen))
        return out

    def straggler(self, job: Job, node: int) -> None:
        """Job recovery names a straggler to hardware recovery (it caps it at suspect)."""
        wait = self.thresholds.persist_reports * self.sim.world.job["report_interval_s"]
        name = self.sim.fleet.name(node)

        def name_it() -> None:
            if node in job.nodes and node in self.sim.slow:
                s = named_signal(name, "job.straggler", "slower than its peers",
                                 job=job.name, incident=f"{job.name}/straggler",
                                 now=self.sim.clock.now())  # fmt: skip
                self._ingest([s])
                self.straggling(job, node)

        self.sim.queue.after(wait, name_it)

    def straggling(self, job: Job, node: int) -> None:
        """A straggler was named (4b migrates the job off it)."""


class Proactive(Autorecover):
    """(4b) The default policy plus checkpoint-aware proactive migration (modelled)."""

    name = "autorecover_proactive"

    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self.moves: dict[int, deque[float]] = {}

    def warning(self, node: int, line: str, true: bool) -> None:
        super().warning(node, line, true)
        owner = self.sim.owner.get(node)
        if owner is not None:
            self._plan(self.sim.jobs[owner], node)

    def straggling(self, job: Job, node: int) -> None:
        self._plan(job, node)

    def _plan(self, job: Job, node: int) -> None:
        """After the job's next completed checkpoint, requeue it without the node, within the
        budget and when a spare is free."""
        if not job.running:
            return
        sim = self.sim
        moves = self.moves.setdefault(job.index, deque())
        while moves and moves[0] <= sim.t - 86_400.0:
            moves.popleft()
        if len(moves) >= sim.world.warning["migrations_per_day"]:
            return
        moves.append(sim.t)
        epoch = job.epoch

        def move() -> None:
            # Only onto a free spare: a migration that queues the job costs more than the
            # crash it avoids might.
            if job.epoch == epoch and job.running and node in job.nodes and sim.spares(job):
                sim.migrate(job, node, sim.world.warning["exclude_s"])

        sim.queue.at(job.next_checkpoint(sim.t) + 1e-3, move)


@functools.cache
def _catalog() -> tuple[Catalog, Scanner]:
    """The built-in catalog and its scanner, built once (a second or so) for every run."""
    catalog = builtin_catalog()
    return catalog, Scanner(catalog)


def _earlier(history: JobHistory) -> tuple[EarlierAttempt, ...]:
    """The job's earlier failures as attribution reads them (as the controller passes them)."""
    causes = {str(c) for c in Cause}
    return tuple(
        EarlierAttempt(cause=a.cause, signal="" if a.root in causes else a.root,
                       suspect_nodes=a.suspects)
        for a in history.attempts
    )  # fmt: skip
