"""The Slurm adapter as the controllers see it: `SchedulerPort` for nodes, job operations too.

Slurm has one way to keep work off a node — DRAIN, with a reason — so the port's cordon,
taint and drain all come to the same drain: new jobs stay away, running ones finish (or are
requeued by job recovery), and `observe` reports the node drained once none runs. The reason
is the provenance (`autorecover: <incident> <why>`), and what makes the drain ours: `observe`
and `cordoned` name autorecover (`owner`) as the cordon's owner only then, and report our
quarantine taint with it. A node somebody else drained is theirs: cordon, taint, drain and
reboot refuse it with a `PermanentError` (the controller hands it to a person), and resume
leaves it drained. Each action id is carried out once, however often it is asked for.
GPU resets are not a Slurm operation: `reset_gpu` refuses them. A reboot is done when the
node has booted since it was decided (`reboot`), and keeps the node out until `resume`.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from autorecover.adapters.slurm.commands import (
    Commands,
    Journal,
    RateLimiter,
    Runner,
    SubprocessRunner,
)
from autorecover.adapters.slurm.errors import SlurmPermanentError
from autorecover.adapters.slurm.job_ops import JobOps, JobResult
from autorecover.adapters.slurm.node_ops import Change, NodeOps, NodeResult
from autorecover.adapters.slurm.reading import Reader, Transport
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.adapters.slurm.states import (
    JobPhase,
    NodeCondition,
    job_phase,
    node_status,
    to_job_record,
)
from autorecover.adapters.slurm.timing import SystemTimer, Timer
from autorecover.controllers.hardware.ports import SchedulerNode
from autorecover.controllers.ports import Provenance, Underway
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.records import JobRecord

log = logging.getLogger(__name__)

_ON_NODES = frozenset({JobPhase.RUNNING, JobPhase.SUSPENDED, JobPhase.COMPLETING,
                       JobPhase.REQUEUEING})  # fmt: skip
_REMEMBERED = 10_000  # action ids kept for idempotency
# Slurm's BootTime is whole seconds, the registration's time less the node's uptime, both
# cut to the second: it can read up to a second before the boot it stands for.
BOOT_TIME_SLACK = timedelta(seconds=1)
_POWER_SAVING = frozenset({"POWERED_DOWN", "POWERING_DOWN", "POWERING_UP", "POWER_DOWN"})


class SlurmScheduler:
    """Reads and changes a Slurm cluster through its command-line tools."""

    def __init__(
        self,
        runner: Runner | None = None,
        *,
        timer: Timer | None = None,
        dry_run: bool = False,
        limiter: RateLimiter | None = None,
        journal: Journal | None = None,
        transport: Transport = Transport.AUTO,
        owner: str = "autorecover",
    ) -> None:
        self.timer = timer or SystemTimer()
        self.commands = Commands(
            runner or SubprocessRunner(),
            dry_run=dry_run,
            limiter=limiter or RateLimiter(monotonic=self.timer.monotonic),
            journal=journal,
        )
        self.reader = Reader(self.commands, transport)
        self.nodes = NodeOps(self.commands, self.reader, self.timer)
        self.jobs = JobOps(self.commands, self.reader, self.timer)
        self.owner = owner
        self._done: OrderedDict[str, str] = OrderedDict()

    @property
    def dry_run(self) -> bool:
        """True when mutations are recorded, not run."""
        return self.commands.dry_run

    # --- reading ---------------------------------------------------------------------------

    def list_jobs(self) -> list[SlurmJob]:
        """Every job the controller knows."""
        return self.reader.jobs()

    def list_nodes(self) -> list[SlurmNode]:
        """Every node."""
        return self.reader.nodes()

    def job_record(self, job_id: str | int, collected: datetime | None = None) -> JobRecord:
        """One job in the domain's words."""
        return to_job_record(self.reader.job(job_id), collected or self.timer.now())

    # --- SchedulerPort ---------------------------------------------------------------------

    def observe(self, nodes: Sequence[str]) -> Mapping[str, SchedulerNode]:
        """The scheduler's view of these nodes (unknown nodes are left out)."""
        wanted = set(nodes)
        running = self._running_jobs()
        return {n.name: self._view(n, running) for n in self.reader.nodes() if n.name in wanted}

    def cordoned(self) -> Mapping[str, SchedulerNode]:
        """Every node somebody has taken out of service (drained, down, rebooting)."""
        running = self._running_jobs()
        out = {}
        for node in self.reader.nodes():
            view = self._view(node, running)
            if view.cordoned_by:
                out[node.name] = view
        return out

    def cordon(self, node: str, provenance: Provenance) -> None:
        """No new jobs on the node: a drain with our reason."""
        self._once("cordon", node, provenance, lambda: self._drain(node, provenance))

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Slurm has no taints: our drain is the quarantine."""
        self._once("taint", node, provenance, lambda: self._drain(node, provenance))

    def drain(self, node: str, provenance: Provenance) -> None:
        """Slurm's drain: running jobs finish, no new ones start."""
        self._once("drain", node, provenance, lambda: self._drain(node, provenance))

    def resume(self, node: str, provenance: Provenance) -> None:
        """Return the node to service if we took it out; anybody else's drain stays."""

        def act() -> NodeResult:
            result = self.nodes.resume(node, provenance)
            if result.change is Change.NOT_OURS:
                log.warning("resume %s: %s", node, result.detail)
            return result

        self._once("resume", node, provenance, act)

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Not a Slurm operation: refused (the node agent resets GPUs)."""
        raise SlurmPermanentError(
            f"reset_gpu {node} {component or 'all'}: Slurm cannot reset a GPU; "
            "the node agent does, or the ladder's next step (reboot) applies"
        )

    def reboot(self, node: str, provenance: Provenance) -> None:
        """`scontrol reboot ASAP nextstate=DOWN`: drain now, reboot when idle, and keep the
        node out (down, our reason) for validation and `resume`.

        Done once the node has booted since the action was decided (its `BootTime` is later:
        also after an engine restart, so a reboot is never asked for twice); until then a
        `Underway` says so and the action stays intended (spending no more rate-limit
        tokens). A reboot that ended without a boot (cancelled, timed out: Slurm's reason
        replaces ours) fails with a `PermanentError`. "Later" allows for BootTime's whole
        seconds (`BOOT_TIME_SLACK`): a boot right after the decision may read as a second
        before it."""
        seen = self.reader.node(node)
        if seen.boot_time is not None and seen.boot_time > provenance.at - BOOT_TIME_SLACK:
            return
        status = node_status(seen)
        key = f"{provenance.action_id}\0reboot\0{node}"
        if status.condition is NodeCondition.REBOOTING and status.ours:
            self._done.setdefault(key, seen.reason)
        elif key in self._done:
            raise SlurmPermanentError(
                f"reboot {node}: asked for, but the node did not boot (now {seen.state}, "
                f"reason {seen.reason!r} by {seen.reason_user or 'unknown'})"
            )
        else:
            result = self.nodes.reboot(node, provenance, next_state="DOWN")
            if result.change is Change.NOT_OURS:
                raise SlurmPermanentError(f"reboot {node}: {result.detail}")
            self._done[key] = result.detail
            if self.dry_run:
                return  # recorded, not run: nothing will boot
        raise Underway(f"reboot {node}: underway (asked at {provenance.at:%H:%M:%S})")

    # --- job recovery ----------------------------------------------------------------------

    def requeue_excluding(
        self, job_id: str | int, exclude: Sequence[str], provenance: Provenance
    ) -> JobResult:
        """Requeue the job so that it restarts at once on nodes other than `exclude`."""
        return self.jobs.requeue_excluding(job_id, list(exclude), provenance)

    def requeue(self, job_id: str | int, provenance: Provenance, delay_s: float = 0.0) -> JobResult:
        """Requeue the job (same exclusions as before) to start after `delay_s`."""
        return self.jobs.requeue(job_id, provenance, delay_s=delay_s)

    def cancel(self, job_id: str | int, provenance: Provenance) -> JobResult:
        """Stop the job."""
        return self.jobs.cancel(job_id, provenance)

    # --- internals -------------------------------------------------------------------------

    def _drain(self, node: str, provenance: Provenance) -> NodeResult:
        result = self.nodes.drain(node, None, provenance)
        if result.change is Change.NOT_OURS:
            raise SlurmPermanentError(f"drain {node}: {result.detail}")
        return result

    def _once(
        self, kind: str, node: str, provenance: Provenance, act: Callable[[], NodeResult]
    ) -> None:
        """Carry out an action id once; a repeat (after a crash, a retry) does nothing."""
        key = f"{provenance.action_id}\0{kind}\0{node}"
        if key in self._done:
            return
        self._done[key] = act().detail
        while len(self._done) > _REMEMBERED:
            self._done.popitem(last=False)

    def _running_jobs(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for job in self.reader.jobs():
            if job_phase(job.state, job.reason) in _ON_NODES:
                for n in job.nodes:
                    counts[n] = counts.get(n, 0) + 1
        return counts

    def _view(self, node: SlurmNode, running: Mapping[str, int]) -> SchedulerNode:
        status = node_status(node)
        out = status.drain or status.condition in (
            NodeCondition.DOWN, NodeCondition.REBOOTING, NodeCondition.FAILED)  # fmt: skip
        owners: frozenset[str] = frozenset()
        taints: frozenset[str] = frozenset()
        if out and status.ours:
            owners, taints = frozenset({self.owner}), frozenset({QUARANTINE_TAINT})
        elif out:
            owners = frozenset({node.reason_user or "slurm"})
        flags = "+".join(sorted(node.flags))
        shows = f"state {node.state}{'+' + flags if flags else ''}"
        if node.reason:
            shows += f", reason {node.reason!r} by {node.reason_user or 'unknown'}"
        # DOWN or NOT_RESPONDING (`*`) says the host does not answer slurmd's pings; a node
        # Slurm's power saving put down (POWERED_DOWN, POWERING_*) is not ours to judge.
        saving = bool(node.flags & _POWER_SAVING)
        responding = saving or (status.responding and status.condition is not NodeCondition.DOWN)
        return SchedulerNode(
            node.name, owners, taints, running.get(node.name, 0), shows, responding
        )
