"""Validation under load on Slurm: an NCCL all-reduce pair job in a maintenance reservation.

`SlurmPairValidation` is a `DiagnosticsPort` for `DiagnosticLevel.LOAD`. For node N it picks
a known-good peer P (in service, not reserved, idle first) in N's tightest failure domain,
then, in this order:

1. creates a maintenance reservation on N and P (`Flags=MAINT,IGNORE_JOBS`, our user only),
   so nobody else's job can land on N once it is back;
2. resumes N if we drained it (a person's drain is left alone: the test cannot run);
3. submits a batch script we write, with fixed content, running one task per node:
   `srun all_reduce_perf -b .. -e .. -f 2 -g <gpus> ...` (numbers from the policy), in the
   reservation, exclusive, with the GPUs it needs.

`result` reads the job; once it ended, its output file is parsed (`adapters/host/nccl.py`)
and judged against the bandwidth the policy expects for the domain the two share
(`domain/hardware/validation.py`). Then it always cleans up: a job past its time is
cancelled, N is drained again with our reason on anything but PASS, and the reservation is
deleted. On PASS, deleting the reservation is what returns N to service (the engine's later
RESUME finds nothing to undo). Names are derived from the action id (`autorecover-val-<hash>`
for the reservation, the job and the files), and the job's comment names N and P, so an
engine that restarts finds its reservation and job and carries on. Every mutation goes
through `Commands`: journaled with provenance, rate-limited, recorded in dry-run.

The output file is written by the job on the batch node: `spool` must be a folder the
engine and the compute nodes share.
"""

from __future__ import annotations

import hashlib
import math
import re
import shlex
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from autorecover.adapters.host.nccl import MAX_TEXT, parse_all_reduce
from autorecover.adapters.slurm import names
from autorecover.adapters.slurm.errors import (
    SlurmNotFoundError,
    SlurmPermanentError,
    SlurmTransientError,
)
from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.adapters.slurm.states import ENDED, NodeCondition, job_phase, node_status
from autorecover.controllers.ports import Provenance
from autorecover.domain.failure_domains import DomainKind, FailureDomain, Topology
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.hardware.validation import (
    CLUSTER,
    NcclReport,
    NcclSettings,
    judge,
    shared_domain,
)

PREFIX = "autorecover-val-"
COMMENT_PREFIX = "autorecover:validate:"  # a pair job's comment: ours, never a job to watch
_COMMENT = re.compile(re.escape(COMMENT_PREFIX) + r"([^:]+):([^:]+)")
_RANK = {DomainKind.NVLINK: 0, DomainKind.IB_LEAF: 1, DomainKind.RACK: 2}
GRACE_S = 120.0  # past the job's own time limit before we cancel it ourselves


def pair_name(action_id: str) -> str:
    """The reservation, job and file name of one action's pair test."""
    return PREFIX + hashlib.sha256(action_id.encode()).hexdigest()[:12]


class SlurmPairValidation:
    """`DiagnosticsPort` (LOAD): an `all_reduce_perf` pair job between a node and a peer."""

    def __init__(
        self,
        scheduler: SlurmScheduler,
        settings: NcclSettings,
        topology: Topology,
        spool: Path,
        *,
        user: str,
        peers: Callable[[str], Sequence[str]] | None = None,
    ) -> None:
        self.commands = scheduler.commands
        self.reader = scheduler.reader
        self.nodes = scheduler.nodes
        self.jobs = scheduler.jobs
        self.timer = scheduler.timer
        self.settings = settings
        self.topology = topology
        self.spool = spool
        self.user = names.node_name(user)  # a login name: the same strict set
        self.peers = peers
        self._results: dict[str, DiagnosticResult] = {}
        self._provenance: dict[str, Provenance] = {}

    # --- DiagnosticsPort -------------------------------------------------------------------

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Reserve N and a peer, return N to the reservation, submit the pair job (once)."""
        if level is not DiagnosticLevel.LOAD:
            raise SlurmPermanentError(f"the NCCL pair test runs under load only, not {level}")
        aid = provenance.action_id
        node = names.node_name(node)
        name = pair_name(aid)
        self._provenance[aid] = provenance
        if aid in self._results or self._job(name) is not None:
            return  # judged already, or submitted before a restart
        me = self.reader.node(node)
        status = node_status(me)
        if status.condition is NodeCondition.REBOOTING:
            raise SlurmTransientError(f"{node} is still rebooting", retry_after_s=30.0)
        if (status.drain or status.condition is NodeCondition.DOWN) and not status.ours:
            who = me.reason_user or "somebody"
            self._error(aid, node, f"{node} is out by {who} ({me.reason or 'no reason'}): "
                        "the pair test needs it")  # fmt: skip
            return
        reserved = self._reservation_nodes(name)
        found = self._peer(me, reserved)
        if found is None:
            where = ", ".join(map(str, self.topology.of(node))) or "no failure domain"
            self._error(aid, node, f"no known-good peer for {node} ({where}): none in service "
                        "and unreserved shares its domain")  # fmt: skip
            return
        peer, partition = found
        if reserved is None:
            self._reserve(name, node, peer, provenance)
        if status.drain or status.condition is NodeCondition.DOWN:
            self.nodes.resume(node, provenance)  # ours: only reservation jobs can land now
        self._submit(name, node, peer, partition, provenance)

    def result(self, action_id: str) -> DiagnosticResult | None:
        """None while the pair job runs; then its judged result, after cleaning up."""
        done = self._results.get(action_id)
        if done is not None:
            return done
        name = pair_name(action_id)
        job = self._job(name)
        if job is None:
            if self._reservation_nodes(name) is not None and action_id in self._provenance:
                # Reserved, never submitted (a crash in between, or sbatch refused): clean up.
                nodes = self._reservation_nodes(name) or ()
                node = nodes[0] if nodes else ""
                return self._finish(action_id, name, node, Verdict.ERROR,
                                    ("the pair job was never submitted",))  # fmt: skip
            return None  # not started yet (or lost with a restart: the timeout decides)
        m = _COMMENT.fullmatch(job.comment)
        if m is None:
            return self._finish(
                action_id,
                name,
                "",
                Verdict.ERROR,
                (f"job {job.job_id}: not our pair job ({job.comment!r})",),
            )
        node, peer = m[1], m[2]
        if job_phase(job.state, job.reason) not in ENDED:
            started = job.start_time or job.submit_time
            if started is not None and self.timer.now() - started > timedelta(
                seconds=self.settings.timeout_s + GRACE_S
            ):
                self.jobs.cancel(job.job_id, self._prov(action_id, "pair test timed out"),
                                 verify=False)  # fmt: skip
                return self._finish(action_id, name, node, Verdict.ERROR, (
                    f"pair job {job.job_id} with {peer} still {job.state} after "
                    f"{self.settings.timeout_s:.0f} s: cancelled",))  # fmt: skip
            return None
        report = self._report(job)
        domain = shared_domain(self.topology.of(node), self.topology.of(peer))
        judged = judge(report, domain, self.settings, peer=peer)
        where = f"pair job {job.job_id} ({job.state}) on {node},{peer} in reservation {name}"
        return self._finish(action_id, name, node, judged.verdict, (*judged.evidence, where))

    # --- steps -----------------------------------------------------------------------------

    def _peer(
        self, me: SlurmNode, reserved: tuple[str, ...] | None
    ) -> tuple[str, str | None] | None:
        """The best peer (tightest shared domain, idle first) and a partition both are in."""
        every = {n.name: n for n in self.reader.nodes()}
        if reserved is not None:  # a restart between reserving and submitting: same peer
            others = [n for n in reserved if n != me.name]
            candidates: Sequence[str] = others[:1]
        else:
            candidates = self.peers(me.name) if self.peers is not None else sorted(every)
        ranked: list[tuple[int, int, str, str | None]] = []
        for name in candidates:
            seen = every.get(name)
            if seen is None or name == me.name:
                continue
            status = node_status(seen)
            if status.condition is not NodeCondition.UP or not status.responding:
                continue
            if reserved is None and seen.flags & {"MAINTENANCE", "RESERVED"}:
                continue  # another validation's peer, or held for somebody
            domain = shared_domain(self.topology.of(me.name), self.topology.of(name))
            if domain is None and CLUSTER not in self.settings.busbw_gbps:
                continue
            common = [p for p in me.partitions if p in seen.partitions]
            if me.partitions and seen.partitions and not common:
                continue
            rank = _RANK[domain.kind] if isinstance(domain, FailureDomain) else 3
            ranked.append((rank, 0 if seen.state == "idle" else 1, name,
                           common[0] if common else None))  # fmt: skip
        if not ranked:
            return None
        best = min(ranked)
        return best[2], best[3]

    def _reserve(self, name: str, node: str, peer: str, provenance: Provenance) -> None:
        op = self.commands.operation("reserve", node, provenance)
        op.run(
            [
                "scontrol",
                "create",
                "reservation",
                f"ReservationName={name}",
                "StartTime=now",
                f"Duration={self.settings.reservation_min}",
                f"Nodes={node},{peer}",
                f"Users={self.user}",
                "Flags=MAINT,IGNORE_JOBS",
            ]
        )
        op.finish(f"done: {name} on {node},{peer}", self.timer.now())  # fmt: skip

    def _submit(
        self, name: str, node: str, peer: str, partition: str | None, provenance: Provenance
    ) -> None:
        self.spool.mkdir(parents=True, exist_ok=True)
        script = self.spool / f"{name}.sh"
        script.write_text(
            "#!/bin/sh\n# autorecover: NCCL pair test (written by the engine; do not edit)\n"
            f"exec srun --ntasks-per-node=1 {shlex.join(self.settings.argv())}\n"
        )
        minutes = max(1, math.ceil(self.settings.timeout_s / 60))
        argv = ["sbatch", "--parsable", f"--job-name={name}", f"--reservation={name}",
                "--nodes=2", f"--nodelist={node},{peer}", "--ntasks-per-node=1", "--exclusive",
                f"--gres=gpu:{self.settings.gpus_per_node}", f"--time={minutes}",
                f"--comment={COMMENT_PREFIX}{node}:{peer}", "--no-requeue",
                f"--chdir={self.spool}", f"--output={self.spool}/{name}-%j.out"]  # fmt: skip
        if partition is not None:
            argv.append(f"--partition={names.node_name(partition)}")
        op = self.commands.operation("validate", node, provenance)
        done = op.run([*argv, str(script)])
        job = done.stdout.strip().split(";")[0] if done is not None else "dry-run"
        op.finish(f"done: job {job} with {peer}", self.timer.now())

    def _finish(
        self, aid: str, name: str, node: str, verdict: Verdict, evidence: tuple[str, ...]
    ) -> DiagnosticResult:
        """Clean up (drain N again unless PASS, delete the reservation) and keep the result."""
        prov = self._prov(aid, f"validation {verdict}: " + (evidence[0] if evidence else ""))
        if verdict is not Verdict.PASS and node:
            self.nodes.drain(node, f"validation {verdict}: {evidence[0][:120]}", prov)
        if self._reservation_nodes(name) is not None:
            op = self.commands.operation("unreserve", node or name, prov)
            op.run(["scontrol", "delete", f"ReservationName={name}"])
            op.finish(f"done: {name} deleted after {verdict}", self.timer.now())
        result = DiagnosticResult(aid, node, DiagnosticLevel.LOAD, verdict, self.timer.now(),
                                  evidence=evidence)  # fmt: skip
        self._results[aid] = result
        return result

    def _error(self, aid: str, node: str, why: str) -> None:
        self._results[aid] = DiagnosticResult(aid, node, DiagnosticLevel.LOAD, Verdict.ERROR,
                                              self.timer.now(), evidence=(why,))  # fmt: skip

    # --- reads -----------------------------------------------------------------------------

    def _job(self, name: str) -> SlurmJob | None:
        """The newest job of this name the controller still knows."""
        done = self.commands.read(["squeue", "--noheader", "--states=all", f"--name={name}",
                                   "--format=%i"])  # fmt: skip
        ids = [t for t in done.stdout.split() if names.JOB_ID.fullmatch(t)]
        if not ids:
            return None
        try:
            return self.reader.job(max(ids, key=int))
        except SlurmNotFoundError:
            return None

    def _reservation_nodes(self, name: str) -> tuple[str, ...] | None:
        """The reservation's nodes, or None when there is no such reservation."""
        try:
            done = self.commands.read(["scontrol", "show", "reservation", name, "--oneliner"])
        except SlurmNotFoundError:
            return None
        m = re.search(r"(?:^|\s)Nodes=(\S+)", done.stdout)
        return names.expand_hostlist(m[1]) if m else ()

    def _report(self, job: SlurmJob) -> NcclReport | None:
        path = Path(job.stdout) if job.stdout else self.spool / f"{job.name}-{job.job_id}.out"
        try:
            with path.open("rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - MAX_TEXT))
                text = f.read().decode(errors="replace")
        except OSError:
            return None
        return parse_all_reduce(text, job.exit_status)

    def _prov(self, aid: str, why: str) -> Provenance:
        known = self._provenance.get(aid)
        if known is not None:
            return known
        return Provenance(aid, "autorecover", why, self._now(), (), None)

    def _now(self) -> datetime:
        return self.timer.now()
