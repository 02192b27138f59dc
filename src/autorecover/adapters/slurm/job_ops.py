"""Job operations: requeue excluding suspect nodes, requeue with a backoff, cancel; then verify.

Requeue with exclusions, the way Slurm 22.05 allows it:

1. `scontrol requeuehold J`: the job stops and goes back to the queue, held, so nothing can
   start it on the suspect nodes before its exclusions are set;
2. wait until it is `PENDING` (no longer completing): Slurm changes a job's exclusions only
   while it is pending, and it gives every requeued job a begin time ~120 s ahead once it
   has finished completing, which a `StartTime` sent earlier would not override;
3. `scontrol update JobId=J ExcNodeList=<old + new> StartTime=now+1 AdminComment=...` in one
   call: exclusions merged with the job's own (`--exclude`), the requeue delay skipped (but
   for one second: see `_requeue`); a node the job required (`--nodelist`) and now excludes
   leaves `ReqNodeList` in the same call, or Slurm would hold the job for good (BadConstraints);
4. `scontrol release J`;
5. read the job back until it runs: it must carry the exclusions and run on none of them.
   Should Slurm have put its begin time on it after all, `StartTime=now+1` is sent again.

A transient cause takes the same path without exclusions and with `StartTime=now+N` (the
backoff). A cancelled or completed job is never requeued: Slurm would revive a cancelled
batch job on `scontrol requeue`, undoing a person's decision.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from autorecover.adapters.slurm import names
from autorecover.adapters.slurm.commands import Commands, MutationRecord, Operation
from autorecover.adapters.slurm.errors import (
    SlurmConflictError,
    SlurmNotFoundError,
    SlurmTransientError,
)
from autorecover.adapters.slurm.reading import Reader
from autorecover.adapters.slurm.records import SlurmJob
from autorecover.adapters.slurm.states import (
    ENDED,
    REASON_PREFIX,
    REQUEUEABLE,
    JobPhase,
    is_ours,
    job_phase,
)
from autorecover.adapters.slurm.timing import Timer
from autorecover.controllers.ports import Provenance

# Our clock may run ahead of the controller's: wait this long past the job's eligible time
# before telling the scheduler, so that "now" there is past it too (see `_requeue`).
NUDGE_MARGIN = timedelta(seconds=0.5)
MAX_NUDGES = 5
_STARTED = frozenset(
    {JobPhase.RUNNING, JobPhase.SUSPENDED, JobPhase.COMPLETING, JobPhase.SUCCEEDED,
     JobPhase.FAILED, JobPhase.CANCELLED}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class JobResult:
    """The outcome of one job operation, checked against what Slurm reports afterwards."""

    job_id: str
    operation: str  # requeue_excluding, requeue, cancel
    verified: bool  # Slurm shows the job as asked (False in dry-run, or when time ran out)
    detail: str
    before: SlurmJob
    after: SlurmJob | None = None
    excluded: tuple[str, ...] = ()  # what the job excludes now (asked for, in dry-run)
    took_s: float = 0.0  # first command to verification
    steps: tuple[tuple[str, float], ...] = ()  # (step, seconds since the first command)
    record: MutationRecord | None = None


class JobOps:
    """Requeue and cancel Slurm jobs, and make sure they did what was asked."""

    def __init__(
        self,
        commands: Commands,
        reader: Reader,
        timer: Timer,
        *,
        poll_s: float = 0.05,
        settle_timeout_s: float = 60.0,  # a job must be pending again within this
        start_timeout_s: float = 30.0,  # ... and running on other nodes within this
    ) -> None:
        self.commands = commands
        self.reader = reader
        self.timer = timer
        self.poll_s = poll_s
        self.settle_timeout_s = settle_timeout_s
        self.start_timeout_s = start_timeout_s

    def requeue_excluding(
        self,
        job_id: str | int,
        exclude: tuple[str, ...] | list[str],
        provenance: Provenance,
        *,
        verify: bool = True,
    ) -> JobResult:
        """Requeue the job so that it restarts at once on nodes other than `exclude`."""
        nodes = names.node_names(exclude)
        if not nodes:
            raise ValueError("requeue_excluding needs at least one node to exclude")
        return self._requeue("requeue_excluding", job_id, nodes, 0.0, provenance, verify)

    def requeue(
        self,
        job_id: str | int,
        provenance: Provenance,
        *,
        delay_s: float = 0.0,
        verify: bool = True,
    ) -> JobResult:
        """Requeue the job on any nodes (its own exclusions stay), starting after `delay_s`."""
        if not math.isfinite(delay_s) or delay_s < 0:
            raise ValueError(f"delay_s must be a finite number >= 0, not {delay_s!r}")
        return self._requeue("requeue", job_id, (), delay_s, provenance, verify)

    def cancel(
        self, job_id: str | int, provenance: Provenance, *, verify: bool = True
    ) -> JobResult:
        """Stop the job for good (`scancel`); a job that has ended already is left as it is."""
        jid = names.job_id(job_id)
        before = self.reader.job(jid)
        phase = job_phase(before.state, before.reason)
        if phase in ENDED:
            return JobResult(jid, "cancel", True, f"already ended: {before.state}", before)
        op = self.commands.operation("cancel", jid, provenance)
        t0 = self.timer.monotonic()
        comment = self._admin_comment(before, provenance, "cancel")
        if comment is not None:
            op.run(["scontrol", "update", f"JobId={jid}", f"AdminComment={comment}"])
        op.run(["scancel", jid])
        if op.dry_run or not verify:
            record = op.finish("cancel sent", self.timer.now())
            return JobResult(jid, "cancel", False, "cancel sent", before, record=record)
        after = self._wait(jid, t0, self.settle_timeout_s,
                           lambda j: job_phase(j.state, j.reason) in ENDED)  # fmt: skip
        ok = after is not None and job_phase(after.state, after.reason) in ENDED
        detail = f"now {after.state}" if after is not None else "gone from the controller"
        record = op.finish(("done: " if ok else "unverified: ") + detail, self.timer.now())
        took = self.timer.monotonic() - t0
        return JobResult(jid, "cancel", ok, detail, before, after, took_s=took, record=record)

    # --- the requeue path ------------------------------------------------------------------

    def _requeue(
        self,
        operation: str,
        job_id: str | int,
        exclude: tuple[str, ...],
        delay_s: float,
        provenance: Provenance,
        verify: bool,
    ) -> JobResult:
        jid = names.job_id(job_id)
        before = self.reader.job(jid)
        phase = job_phase(before.state, before.reason)
        if not before.batch:
            raise SlurmConflictError(f"job {jid} is not a batch job: Slurm cannot requeue it")
        if self.carries(before, provenance):
            return self._requeued_before(operation, jid, before, phase, provenance)
        why = f"{operation.replace('_', ' ')} {','.join(exclude)}".strip()
        comment = self._admin_comment(before, provenance, why)
        if phase not in REQUEUEABLE:
            raise SlurmConflictError(
                f"job {jid} is {before.state}: autorecover does not requeue "
                f"{'cancelled' if phase is JobPhase.CANCELLED else 'finished'} jobs"
            )
        merged = tuple(sorted(set(before.excluded) | set(exclude)))
        op = self.commands.operation(operation, jid, provenance)
        t0 = self.timer.monotonic()
        wall0 = self.timer.now()
        steps: list[tuple[str, float]] = []

        def step(name: str) -> None:
            steps.append((name, round(self.timer.monotonic() - t0, 3)))

        current = before
        if phase in (JobPhase.COMPLETING, JobPhase.REQUEUEING):
            # Still cleaning up (an end, or Slurm's own requeue): act on what it becomes.
            settled = self._wait(jid, t0, self.settle_timeout_s, lambda j: job_phase(
                j.state, j.reason) not in (JobPhase.COMPLETING, JobPhase.REQUEUEING))  # fmt: skip
            if settled is None:
                raise SlurmNotFoundError(f"job {jid}: gone from the controller")
            current, phase = settled, job_phase(settled.state, settled.reason)
            if phase not in REQUEUEABLE or phase in (JobPhase.COMPLETING, JobPhase.REQUEUEING):
                op.finish(f"failed: job is {settled.state}", self.timer.now())
                raise SlurmConflictError(f"job {jid} is {settled.state}: not requeued")
        held = phase is JobPhase.HELD
        if phase not in (JobPhase.PENDING, JobPhase.HELD):
            op.run(["scontrol", "requeuehold", jid])
            held = True
            step("requeuehold")
            if not op.dry_run:
                self._settle(jid, current, t0)
                step("pending")
        # Never in the second the old attempt was killed: slurmd revokes the job's credential
        # with a time in whole seconds, and refuses a new launch of the same job id on the same
        # node whose credential is not strictly younger ("Job credential revoked"), which
        # fails the job. Slurm's own ~120 s requeue delay covers this; one second is enough.
        start = f"now+{max(1, math.ceil(delay_s))}"
        update = ["scontrol", "update", f"JobId={jid}"]
        if merged != before.excluded or exclude:
            update.append(f"ExcNodeList={','.join(merged)}")
        required = tuple(n for n in before.required if n not in merged)
        if required != before.required:
            # A job submitted with --nodelist naming a node it now excludes could never start
            # (Slurm holds it PENDING, BadConstraints): the excluded nodes leave its required
            # list too, the rest stay required (an empty value clears the list).
            update.append(f"ReqNodeList={','.join(required)}")
        update.append(f"StartTime={start}")
        if comment is not None:
            update.append(f"AdminComment={comment}")
        op.run(update)
        step("updated")
        if held:
            op.run(["scontrol", "release", jid])
            step("released")
        if op.dry_run or not verify:
            detail = f"requeue sent; excluding {','.join(merged) or 'nothing'}; start {start}"
            record = op.finish(detail, self.timer.now())
            return JobResult(jid, operation, False, detail, before, None, merged,
                             steps=tuple(steps), record=record)  # fmt: skip
        after, detail = self._verify(jid, op, merged, delay_s, t0, wall0)
        ok = detail.startswith("running") or detail.startswith("pending until")
        step("verified" if ok else "unverified")
        record = op.finish(("done: " if ok else "unverified: ") + detail, self.timer.now())
        return JobResult(
            jid, operation, ok, detail, before, after, after.excluded if after else merged,
            took_s=self.timer.monotonic() - t0, steps=tuple(steps), record=record,
        )  # fmt: skip

    @staticmethod
    def carries(job: SlurmJob, provenance: Provenance) -> bool:
        """Whether the job's AdminComment names this action: it was carried out on the job
        already (before a restart of the engine)."""
        return job.admin_comment.startswith(_head(provenance) + " ")

    def _requeued_before(
        self, operation: str, jid: str, before: SlurmJob, phase: JobPhase, provenance: Provenance
    ) -> JobResult:
        """The job's AdminComment names this action: its update (exclusions, start time) ran
        before the engine restarted (whichever way the port chose to requeue then). Finish
        what is left (a release, when it stopped between the update and the release), never
        requeue it a second time."""
        if phase is not JobPhase.HELD:
            detail = f"already requeued under this action: now {before.state}"
            return JobResult(jid, operation, True, detail, before, before, before.excluded)
        op = self.commands.operation(operation, jid, provenance)
        op.run(["scontrol", "release", jid])
        record = op.finish("done: released (requeued before a restart)", self.timer.now())
        return JobResult(jid, operation, not op.dry_run, "released: requeued before a restart",
                         before, None, before.excluded, record=record)  # fmt: skip

    def _settle(self, jid: str, last: SlurmJob, t0: float) -> SlurmJob:
        """Wait until the job is pending (or held) again, done completing."""
        job = self._wait(jid, t0, self.settle_timeout_s,
                         lambda j: job_phase(j.state, j.reason) in (JobPhase.PENDING,
                                                                   JobPhase.HELD))  # fmt: skip
        if job is None or job_phase(job.state, job.reason) not in (JobPhase.PENDING, JobPhase.HELD):
            state = job.state if job is not None else "gone"
            raise SlurmTransientError(
                f"job {jid}: not pending after {self.settle_timeout_s:.0f} s (still {state})"
            )
        return job

    def _verify(
        self,
        jid: str,
        op: Operation,
        merged: tuple[str, ...],
        delay_s: float,
        t0: float,
        wall0: datetime,
    ) -> tuple[SlurmJob | None, str]:
        """Read the job back until it runs elsewhere (or, with a long delay, waits for it)."""
        deadline = t0 + self.start_timeout_s
        last_nudge = -math.inf
        nudges = 0
        job: SlurmJob | None = None
        while True:
            job = self.reader.job(jid)
            phase = job_phase(job.state, job.reason)
            missing = set(merged) - set(job.excluded)
            if missing:
                return job, f"exclusions not applied: {','.join(sorted(missing))} missing"
            if phase in _STARTED and self._new_start(job, wall0):
                bad = sorted(set(job.nodes) & set(merged))
                where = ",".join(job.nodes)
                if bad:
                    return job, f"started on excluded nodes {','.join(bad)}"
                if phase in (JobPhase.RUNNING, JobPhase.SUSPENDED, JobPhase.SUCCEEDED):
                    return job, f"running on {where} ({job.state})"
                if phase is not JobPhase.COMPLETING:
                    return job, f"restarted on {where}, then ended {job.state} ({job.reason})"
            now = self.timer.monotonic()
            if delay_s > self.start_timeout_s and phase is JobPhase.PENDING:
                return job, f"pending until {job.eligible_time} (backoff {delay_s:.0f} s)"
            wall = self.timer.now()
            eligible = job.eligible_time
            if phase is JobPhase.PENDING and eligible is not None and now - last_nudge >= 1.0:
                if delay_s <= 0 and eligible > wall + timedelta(seconds=2):
                    # Slurm put its requeue delay on the job after our update: lift it again.
                    _nudge(op, jid, "StartTime=now+1")
                    last_nudge = now
                elif eligible + NUDGE_MARGIN <= wall and nudges < MAX_NUDGES:
                    # Eligible now, but nothing has made the scheduler look since: its
                    # periodic passes are 30-60 s apart; an update of the job is an event.
                    _nudge(op, jid, "StartTime=now")
                    last_nudge, nudges = now, nudges + 1
            if now >= deadline:
                return job, f"not running after {self.start_timeout_s:.0f} s: {job.state} " \
                            f"({job.reason})"  # fmt: skip
            self.timer.sleep(self.poll_s)

    @staticmethod
    def _new_start(job: SlurmJob, wall0: datetime) -> bool:
        """The job started in this attempt (Slurm's times are whole seconds)."""
        return job.start_time is not None and job.start_time >= wall0 - timedelta(seconds=1)

    def _wait(
        self, jid: str, t0: float, timeout_s: float, done: Callable[[SlurmJob], bool]
    ) -> SlurmJob | None:
        """Poll the job until `done(job)` or the time is up; None once Slurm forgot it."""
        while True:
            try:
                job = self.reader.job(jid)
            except SlurmNotFoundError:
                return None
            if done(job) or self.timer.monotonic() - t0 >= timeout_s:
                return job
            self.timer.sleep(self.poll_s)

    def _admin_comment(self, job: SlurmJob, provenance: Provenance, why: str) -> str | None:
        """Our provenance for the job's AdminComment, unless somebody else's comment is there."""
        if job.admin_comment and not is_ours(job.admin_comment):
            return None
        body = names.clean_text(f"{why} by {provenance.by}: {provenance.why}", 120)
        return names.text(f"{_head(provenance)} {body}", "admin comment")


def _head(provenance: Provenance) -> str:
    """`autorecover: <action id>`: the start of our AdminComment, which names the action (and
    in it the incident), so a restarted engine sees which action already ran on the job."""
    head = names.clean_text(provenance.action_id, 80).replace(" ", "_")
    return f"{REASON_PREFIX} {head}"


def _nudge(op: Operation, jid: str, start: str) -> None:
    """Move a pending job's start time; it may have started meanwhile, which is the point."""
    with contextlib.suppress(SlurmConflictError):  # it started between our poll and the update
        op.run(["scontrol", "update", f"JobId={jid}", start])
