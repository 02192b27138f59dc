"""The modelled policies: what people and plain schedulers do today, and the ideal bound.

- manual: a person notices the failed job (a hang only after the NCCL watchdog kills it),
  looks for the bad node (found with `identify_*` probability), cordons it, has it repaired and
  restarts the job.
- blind: the scheduler restarts the job in place at once (PyTorchJob `OnFailure`, Slurm
  requeue); nobody looks at nodes until the job has failed `loop_failures` times in a row
  (each within an hour of the last), then a person does what `manual` does.
- cordon_all: restart at once and cordon every node that logged an error (the culprit and the
  peers whose ranks logged NCCL errors); a person reviews each cordon `review_s` later.
- ideal: the zero-overhead bound: detection and restart are instant and free, the bad node is
  swapped out at once; only the work since the last checkpoint is lost.

None of these is autorecover's code: they are models, stated in docs/simulation.md.
"""

from __future__ import annotations

import math

from autorecover.simulation.jobs import Job
from autorecover.simulation.simulating import Incident, Policy, Simulation

LOOP_S = 3600.0  # failures closer together than this are a crash loop someone would notice


class PersonRepairs(Policy):
    """Cordons people set and lift: a node goes to repair and comes back."""

    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self._held: set[int] = set()

    def holds(self, node: int) -> bool:
        return node in self._held

    def held(self) -> set[int]:
        return set(self._held)

    def host_down(self, node: int) -> None:
        """The scheduler shows the node down: a person repairs it in time."""
        self.repair(node, self.response_s())

    def repair(self, node: int, after_s: float) -> None:
        """Cordon the node; a person repairs what is wrong and lifts the cordon later."""
        if node in self._held:
            return
        self._held.add(node)
        self.sim.note_quarantine(node)
        remedy = self.sim.fleet.remedy_for(node)
        rep = self.sim.world.repair
        if remedy == "rma":
            took = self.sim.rng.lognormvariate(math.log(rep["rma_median_s"]), rep["rma_sigma"])
        else:
            took = self.sim.world.person["repair_reset_s"]
        self.sim.queue.after(after_s + took, lambda: self._back(node, remedy))

    def _back(self, node: int, remedy: str) -> None:
        if remedy != "none":
            self.sim.fleet.cure(node, remedy)
        self._held.discard(node)
        self.sim.capacity_changed()

    def identify(self, incident: Incident) -> int | None:
        """The node a person finds at fault, if they find it."""
        if incident.culprit is None:
            return None
        p = self.sim.world.person
        chance = p["identify_observed"] if incident.observed else p["identify_silent"]
        return incident.culprit if self.sim.rng.random() < chance else None

    def by_hand(self, incident: Incident, after_s: float) -> None:
        """A person, `after_s` from now: find the node, send it to repair, restart the job."""
        job, epoch = incident.job, incident.job.epoch

        def act() -> None:
            if job.epoch != epoch:
                return
            found = self.identify(incident)
            if found is not None:
                self.repair(found, 0.0)
            self.sim.requeue(job)

        self.sim.queue.after(after_s, act)

    def detect_s(self, incident: Incident) -> float:
        """When a watcher sees the job down: at once for a crash, at the NCCL timeout for a hang."""
        j = self.sim.world.job
        return (j["nccl_timeout_s"] if incident.hang else 0.0) + j["poll_s"]


class Manual(PersonRepairs):
    """(1) A person responds to every failure."""

    name = "manual"

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        self.by_hand(incident, self.detect_s(incident) + self.response_s())


class Blind(PersonRepairs):
    """(2) Restart in place at once; a person only after a crash loop."""

    name = "blind"

    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self._streak: dict[int, int] = {}
        self._last: dict[int, float] = {}  # the job's last failure

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        job = incident.job
        short = self.sim.t - self._last.get(job.index, -LOOP_S) < LOOP_S
        self._last[job.index] = self.sim.t
        streak = self._streak[job.index] = self._streak.get(job.index, 0) + 1 if short else 1
        if streak >= self.sim.world.person["loop_failures"]:
            self._streak[job.index] = 0
            self.by_hand(incident, self.detect_s(incident) + self.response_s())
            return
        epoch = job.epoch

        def restart() -> None:
            if job.epoch == epoch:
                self.sim.requeue(job)

        self.sim.queue.after(self.detect_s(incident), restart)


class CordonAll(PersonRepairs):
    """(3) Restart at once and cordon every node that logged an error."""

    name = "cordon_all"

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        job, epoch = incident.job, incident.job.epoch

        def act() -> None:
            if job.epoch != epoch:
                return
            logged = [] if incident.culprit is None else [incident.culprit]
            if rank_node is not None:
                logged.append(rank_node)
            nodes = job.nodes or job.previous
            k = min(len(nodes), int(self.sim.world.job["error_nodes"]))
            logged.extend(self.sim.rng.sample(nodes, k))
            review = self.sim.world.person["review_s"]
            for n in dict.fromkeys(logged):
                self.repair(n, review)
            self.sim.requeue(job)

        self.sim.queue.after(self.detect_s(incident), act)


class Ideal(Policy):
    """(5) The zero-overhead bound."""

    name = "ideal"

    def interrupted(self, incident: Incident, rank_node: int | None) -> None:
        if incident.culprit is not None:
            self.sim.fleet.cure(incident.culprit, "rma")
        self.sim.requeue(incident.job, free=True)

    def straggler(self, job: Job, node: int) -> None:
        self.sim.slow.pop(node, None)  # swapped out at once, at no cost
        job.set_slowdown(1.0, self.sim.t, self.sim.ledger)
