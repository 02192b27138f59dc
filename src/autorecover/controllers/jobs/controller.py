"""The job recovery controller: watch jobs, detect, attribute, decide, record, act, verify.

One `run_once` pass, level-triggered: for every job that opted in, read its new output, follow
its open incident (verify a requeue, record the recovery's timeline), and on a failed attempt
or a hang attribute (`domain.attribution.attribute`, as `autorecover explain` does) and decide
(`domain.jobs.decisions.decide_job`). Everything decided is recorded in one store transaction —
incident, verdict with its evidence, history, hand-overs, intended actions — and only then
executed through the scheduler port; outcomes are a second transaction. Suspects go to
hardware recovery through the store's outbox in that first transaction: job recovery never
waits for hardware recovery's diagnosis. In dry-run every action is recorded as would-have.
A running job that opted in is moved off a node that warns after its next checkpoint
(`migrating.Migrations`, deciding by `domain.jobs.migration.decide_migration`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from autorecover.controllers.counting import TokenBucket
from autorecover.controllers.jobs.acting import NO_JOB_HOOKS, JobExecutor, JobHooks, SilentNotifier
from autorecover.controllers.jobs.evidence import (
    hang_findings,
    job_record,
    raised_hang,
    signal_findings,
)
from autorecover.controllers.jobs.following import Patience, follow, unlisted
from autorecover.controllers.jobs.incidents import Context, open_failure, open_slow, open_straggler
from autorecover.controllers.jobs.ledger import Ledger
from autorecover.controllers.jobs.migrating import Migrating, Migrations
from autorecover.controllers.jobs.ports import (
    HandoverOutbox,
    JobSchedulerPort,
    JobStorePort,
    SignalSource,
)
from autorecover.controllers.jobs.records import (
    TERMINAL,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobChanges,
    JobEvent,
    JobIncident,
    JobPhase,
    Stage,
    TimelineMark,
    WatchedJob,
)
from autorecover.controllers.jobs.timelines import lost_work
from autorecover.controllers.jobs.watching import READ_BYTES, AttemptWatch, News
from autorecover.controllers.ports import Clock, Notifier, PermanentError, TransientError
from autorecover.controllers.requests import (
    JOB_CONTROLS,
    Control,
    OperatorRequest,
    RequestStatus,
    Settled,
)
from autorecover.domain.attribution import attribute, recorded
from autorecover.domain.catalog import Catalog
from autorecover.domain.context import Window
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.hangs import locate, stack_findings
from autorecover.domain.history import Attempt as EarlierAttempt
from autorecover.domain.jobs.decisions import Budget, JobHistory
from autorecover.domain.jobs.health import Assessment, Condition, HealthThresholds, assess
from autorecover.domain.jobs.policy import NO_CEILINGS, Ceilings, JobPolicy, PolicyError
from autorecover.domain.jobs.recurrence import recurring_origin
from autorecover.domain.records import Cause, Finding
from autorecover.domain.signals import NodeSignal
from autorecover.parsing.scanning import Scanner

_PORT_ERRORS = (TransientError, PermanentError)


@dataclass(frozen=True, slots=True)
class JobSettings:
    """The controller's own knobs (the per-job ones are `JobPolicy`)."""

    name: str = "job-recovery"  # `by` on every record
    health: HealthThresholds = field(default_factory=HealthThresholds)
    mutations_per_s: float = 1.0  # requeues and stops, with a burst
    burst: int = 20
    verify_timeout_s: float = 600.0  # a requeue must show its new attempt within this (+delay)
    verify_retries: int = 2  # requeue again this often when verification fails, then alert
    max_hand_over: int = 4  # more suspects than this in one incident: none handed over
    settle_s: float = 0.0  # wait this long after a job ended for late output and signals
    read_bytes: int = READ_BYTES


@dataclass(frozen=True, slots=True)
class JobPassSummary:
    """What one pass did."""

    jobs: int = 0
    opened: int = 0  # incidents opened
    recorded: int = 0  # actions recorded (intended or would-have)
    executed: int = 0
    waiting: int = 0  # still intended after the pass (rate-limited or transient)


class JobRecoveryController:
    """Gets failed, hung and stuck training jobs running again, or stops them, with reasons."""

    def __init__(
        self,
        store: JobStorePort,
        scheduler: JobSchedulerPort,
        signals_source: SignalSource,
        clock: Clock,
        policy: JobPolicy,
        catalog: Catalog,
        dry_run: bool = False,
        *,
        notifier: Notifier | None = None,
        settings: JobSettings | None = None,
        hooks: JobHooks = NO_JOB_HOOKS,
        scanner: Scanner | None = None,
        ceilings: Ceilings = NO_CEILINGS,
        topology: Callable[[], Topology] | None = None,  # the failure domains as they are now
    ) -> None:
        self._topology = topology or (lambda: NO_TOPOLOGY)
        self._store, self._scheduler, self._signals = store, scheduler, signals_source
        self._ceilings = ceilings  # the site's cap on what a job's own settings ask for
        self._clock, self._policy, self.dry_run = clock, policy, dry_run
        self.settings = settings or JobSettings()
        self._scanner = scanner or Scanner(catalog)
        self._rules = {n: e.rules for n, e in catalog.xids.items() if e.rules}
        bucket = TokenBucket(self.settings.mutations_per_s, self.settings.burst, clock.now())
        self._executor = JobExecutor(scheduler, notifier or SilentNotifier(), clock, bucket, hooks)
        self._ledger = Ledger(store.load(), policy.suspicion_half_life_s, self.settings.name)
        self._patience = Patience(self.settings.verify_timeout_s, self.settings.verify_retries)
        self._watches: dict[str, AttemptWatch] = {}
        self._migrations = Migrations(self._signals_or_none)
        self._broken = False
        self._paused = False  # a person paused all acting: decide and record, execute nothing
        self._held_noted: set[str] = set()  # actions noted as held in this pause
        self._noted: set[str] = set()  # job events (by key) this controller recorded already

    # --- queries ---------------------------------------------------------------------------

    def history(self, job: str) -> JobHistory:
        """What the controller remembers of a job."""
        return self._ledger.history(job)

    def open_incidents(self) -> list[JobIncident]:
        """Incidents still being worked on or observed."""
        return list(self._ledger.incidents.values())

    @property
    def waiting(self) -> int:
        """Actions recorded but not yet executed."""
        return len(self._ledger.queue)

    # --- the pass --------------------------------------------------------------------------

    def run_once(self) -> JobPassSummary:
        """One level-triggered pass over every watched job; then execute what is recorded."""
        if self._broken:
            raise RuntimeError("a pass failed: build a fresh controller on the same store")
        now = self._clock.now()
        changes = JobChanges(now)
        try:
            self._paused = self._store.controls().paused is not None
            if not self._paused:
                self._held_noted.clear()
            try:
                jobs = list(self._scheduler.watched())
            except _PORT_ERRORS:
                jobs = None  # nothing learned: recorded actions still run, the next pass looks
            if jobs is not None:
                self._operate(jobs, now, changes)
            opened = sum(self._job(w, now, changes) for w in jobs or ())
            if jobs is not None:
                listed = {w.job for w in jobs}
                unlisted(self._ledger, listed, now, changes, self._patience)
                for job in set(self._watches) - listed:
                    del self._watches[job]
            return self._finish(now, changes, len(jobs or ()), opened)
        except BaseException:
            self._broken = True  # memory may now be ahead of the store; the store is the truth
            raise

    # --- people's requests -----------------------------------------------------------------

    def _operate(self, jobs: Sequence[WatchedJob], now: datetime, changes: JobChanges) -> None:
        """Retries and stops people asked for, settled in this pass's transaction."""
        by_job = {w.job: w for w in jobs}
        for r in self._store.pending_requests(JOB_CONTROLS):
            refused = self._request(r, by_job.get(r.target), now, changes)
            status = RequestStatus.REFUSED if refused else RequestStatus.DONE
            changes.settled.append(Settled(r.id, status, now, refused or ""))

    def _request(
        self, r: OperatorRequest, w: WatchedJob | None, now: datetime, changes: JobChanges
    ) -> str | None:
        ledger = self._ledger
        if w is None:
            return f"job {r.target!r} is not watched by job recovery"
        who = f"{r.by} from {r.source or 'unknown'} ({r.id}): {r.why}"
        key = f"request/{r.id}"
        if r.kind is Control.STOP_JOB:
            if r.target in ledger.stopped:
                return f"job recovery already leaves {r.target} alone"
            ledger.stopped.add(r.target)
            ledger.supersede(r.target, f"request {r.id}: recovery stopped", now, changes)
            text = f"recovery stopped by {who}: job recovery leaves the job alone"
            changes.events.append(JobEvent(r.target, now, r.by, text, key))
            return None
        # A retry: requeue now, keeping the job's exclusions; it spends no budget.
        s = w.status
        ledger.stopped.discard(r.target)
        ledger.supersede(r.target, f"request {r.id}: retry", now, changes)
        ledger.handled.add((s.job, s.attempt))
        exclude = ledger.history(s.job).excluded(now)
        action = JobAction(
            f"operator/{r.id}/{JobActionKind.REQUEUE}", s.job, JobActionKind.REQUEUE, now, r.by,
            f"retry requested: {r.why}", (), None, exclude, 0.0, s.attempt,
        )  # fmt: skip
        ledger.record(action, self.dry_run, changes)
        changes.events.append(JobEvent(s.job, now, r.by, f"retry requested by {who}", key))
        return None

    def _job(self, w: WatchedJob, now: datetime, changes: JobChanges) -> int:
        if w.job in self._ledger.stopped:
            return 0  # a person told job recovery to leave it alone
        policy = self._policy_for(w, now, changes)
        if policy is None or not policy.enabled:
            return 0
        s, by = w.status, self.settings.name
        watch = self._watch(w, now)
        news = self._read(w, watch)
        for f in news.restarts:
            text = (
                f"in-job restart on {f.node} (line {f.line}): the launcher restarts its workers "
                f"itself; not counted as a failure: {f.text[:300]}"
            )
            key = f"{s.job}#{s.attempt}/in-job-restart/{f.node}/{f.line}"
            changes.events.append(JobEvent(s.job, now, by, text, key))
        follow(self._ledger, w, watch, now, changes, self._patience)
        if (s.job, s.attempt) in self._ledger.handled:
            return 0
        if s.phase in (JobPhase.SUCCEEDED, JobPhase.CANCELLED):
            self._ledger.handled.add((s.job, s.attempt))
            if s.phase is JobPhase.CANCELLED:
                text = f"attempt {s.attempt} cancelled ({s.state}) by someone else: left alone"
                changes.events.append(
                    JobEvent(s.job, now, by, text, f"{s.job}#{s.attempt}/cancelled")
                )
            return 0
        dry = self.dry_run or policy.dry_run
        if s.phase is JobPhase.FAILED:
            if not self._settled(w, news, now):
                return 0  # the whole story first: the rest of its output, late signals
            return self._open(w, watch, IncidentKind.FAILURE, None, policy, dry, now, changes)
        if s.phase is JobPhase.RUNNING:
            seen = assess(watch.progress, now, self.settings.health)
            if seen.condition is not Condition.HUNG:  # the library's watchdog may know sooner
                ranks = watch.progress.reports.keys()
                raised = raised_hang(watch.findings(), watch.activity(s.nodes), ranks, now)
                seen = raised or seen
            if seen.condition is Condition.HUNG:
                return self._open(w, watch, IncidentKind.HANG, seen, policy, dry, now, changes)
            m = Migrating(self.settings.name, policy, self._policy, now, dry, self._topology())
            opened = self._migrations.consider(self._ledger, w, watch, m, changes)
            return opened + self._observe(w, seen, policy, dry, now, changes)
        return 0

    def _settled(self, w: WatchedJob, news: News, now: datetime) -> bool:
        """Ended long enough ago for late lines and signals; output read (or given up on)."""
        ended = w.status.ended
        if ended is None:
            return news.caught_up
        if now < ended + timedelta(seconds=self.settings.settle_s):
            return False
        return news.caught_up or now >= ended + timedelta(seconds=max(60.0, self.settings.settle_s))

    # --- opening incidents -----------------------------------------------------------------

    def _open(
        self,
        w: WatchedJob,
        watch: AttemptWatch,
        kind: IncidentKind,
        seen: Assessment | None,
        policy: JobPolicy,
        dry: bool,
        now: datetime,
        changes: JobChanges,
    ) -> int:
        s, ledger = w.status, self._ledger
        record = job_record(w, now, running=kind is IncidentKind.HANG, earlier=watch.nodes_read)
        window = Window.of(record)
        found = [*watch.findings(), *self._node_signals(record.nodes, window.start, window.end)]
        if seen is not None:
            found.extend(hang_findings(seen))
        located = locate(list(watch.stacks.values()))
        if located is not None:
            found.extend(stack_findings(located))  # which ranks the hang stacks single out
        history = ledger.history(s.job)
        activity = watch.activity(record.nodes)
        verdict = attribute(record, found, activity, self._rules, _earlier(history))
        r = recorded(record, found, activity, self._rules, verdict)
        verdict = recurring_origin(
            verdict, r.origin, s.job, ledger.histories, now, rank=r.rank,
            min_jobs=self._policy.recurrence_jobs, window_s=self._policy.recurrence_window_s,
        )  # fmt: skip
        saved = max((c for c in (watch.checkpoint, watch.loaded) if c is not None), default=None)
        checkpoint = saved if saved is not None else _last_checkpoint(history)
        failed_at = s.ended or (seen.since if seen and seen.since else now)
        opened = open_failure(
            self._context(policy, dry, now), w, kind, verdict, found, history, ledger.suspicion,
            checkpoint=checkpoint, failed_at=failed_at,
            lost=lost_work(watch.last_step, saved, watch.step_time_s),
            origin=r.origin or "", step=r.step, rank=r.rank,
        )  # fmt: skip
        incident = opened.incident
        ledger.supersede(s.job, incident.id, now, changes)
        ledger.handled.add((s.job, s.attempt))
        ledger.histories[s.job] = changes.histories[s.job] = opened.history
        ledger.take_suspicion(opened.suspicion, changes)
        changes.handovers.extend(opened.handovers)
        changes.events.extend(opened.events)
        ledger.marks(
            (*opened.timeline, TimelineMark(incident.id, Stage.DECIDED, self._clock.now())), changes
        )
        if dry:
            action = incident.decided.action if incident.decided else "act"
            incident = replace(
                incident,
                phase=IncidentPhase.CLOSED,
                closed_at=now,
                outcome=f"dry-run: would {action}",
            )
        ledger.put(incident, changes)
        for action_ in opened.actions:
            ledger.record(action_, dry, changes)
        return 1

    def _observe(
        self,
        w: WatchedJob,
        seen: Assessment,
        policy: JobPolicy,
        dry: bool,
        now: datetime,
        changes: JobChanges,
    ) -> int:
        """Slowdowns and stragglers: recorded (and stragglers handed over); the job runs on."""
        s, ledger = w.status, self._ledger
        mine = [
            i for i in ledger.of_job(s.job)
            if i.phase is IncidentPhase.OBSERVED and i.kind is not IncidentKind.MIGRATION
        ]  # fmt: skip
        if seen.condition is Condition.HEALTHY:
            for i in mine:
                ledger.close(i, "back to its usual pace", now, changes)
            return 0
        kinds = {Condition.SLOW: IncidentKind.SLOW, Condition.STRAGGLER: IncidentKind.STRAGGLER}
        kind = kinds.get(seen.condition)
        if kind is None or any(i.kind is kind for i in mine):
            return 0
        key = (s.job, s.attempt, kind)
        episode = ledger.episodes[key] = ledger.episodes.get(key, 0) + 1
        ctx = self._context(policy, dry, now)
        if kind is IncidentKind.SLOW:
            ledger.put(open_slow(ctx, w, episode, seen.reason), changes)
            return 1
        history = ledger.history(s.job)
        opened = open_straggler(ctx, w, episode, seen.nodes, seen.reason, ledger.suspicion, history)
        ledger.take_suspicion(opened.suspicion, changes)
        changes.handovers.extend(opened.handovers)
        ledger.marks(opened.timeline, changes)
        ledger.put(opened.incident, changes)
        return 1

    # --- executing ---------------------------------------------------------------------------

    def _finish(self, now: datetime, changes: JobChanges, jobs: int, opened: int) -> JobPassSummary:
        queue = self._ledger.queue
        if self._paused:  # recorded, held: each held action noted once a pause
            for record in queue.values():
                a = record.action
                if a.id not in self._held_noted:
                    self._held_noted.add(a.id)
                    text = f"acting paused: {a.kind} ({a.id}) held until acting resumes"
                    changes.events.append(JobEvent(a.job, now, self.settings.name, text))
        if changes:
            self._store.commit(changes)  # recorded before executed: a crash converges
        if self._paused:
            return JobPassSummary(jobs, opened, len(changes.actions), 0, len(queue))
        outcomes = self._executor.run(list(queue.values())) if queue else ()
        if outcomes:
            after = JobChanges(now, outcomes=list(outcomes))
            for outcome in outcomes:
                self._ledger.settle(queue.pop(outcome.action_id).action, outcome, after)
            self._store.commit(after)
        return JobPassSummary(jobs, opened, len(changes.actions), len(outcomes), len(queue))

    # --- inputs ------------------------------------------------------------------------------

    def _policy_for(self, w: WatchedJob, now: datetime, changes: JobChanges) -> JobPolicy | None:
        if not w.overrides:
            return self._policy
        overrides, clamped = self._ceilings.clamp(w.overrides)
        for note in clamped:  # recorded once per job and value
            text = f"{w.origin or 'job settings'}: {note}"
            self._note(changes, JobEvent(w.job, now, self.settings.name, text,
                                         f"{w.job}/ceiling/{note}"[:500]))  # fmt: skip
        try:
            return self._policy.merged(overrides, w.origin or f"job {w.job}")
        except PolicyError as exc:
            text = f"policy overrides refused, job not watched: {exc}"
            self._note(changes, JobEvent(w.job, now, self.settings.name, text,
                                         f"{w.job}/policy-error/{exc}"[:500]))  # fmt: skip
            return None

    def _note(self, changes: JobChanges, event: JobEvent) -> None:
        """A keyed event, once per controller (the store keeps one per key; asking again every
        pass made every pass commit)."""
        if event.key not in self._noted:
            self._noted.add(event.key or "")
            changes.events.append(event)

    def _watch(self, w: WatchedJob, now: datetime) -> AttemptWatch:
        s = w.status
        watch = self._watches.get(s.job)
        if watch is None or watch.attempt != s.attempt:
            watch = AttemptWatch(s.job, s.attempt, s.started or now, self._scanner)
            self._watches[s.job] = watch
        return watch

    def _read(self, w: WatchedJob, watch: AttemptWatch) -> News:
        s = w.status
        if s.phase is JobPhase.PENDING or not s.nodes:
            return News()
        try:
            final = s.phase in TERMINAL
            return watch.read(self._scheduler, s.nodes, final, self.settings.read_bytes)
        except TransientError:
            return News(caught_up=False)
        except PermanentError:
            return News()  # nothing more will come: decide on what was read

    def _node_signals(
        self, nodes: Sequence[str], since: datetime, until: datetime
    ) -> list[Finding]:
        try:
            return signal_findings(self._signals.signals(nodes, since, until))
        except _PORT_ERRORS:
            return []  # attribution never waits: decide on the job's own evidence

    def _signals_or_none(
        self, nodes: Sequence[str], since: datetime, until: datetime
    ) -> Sequence[NodeSignal] | None:
        try:
            return self._signals.signals(nodes, since, until)
        except _PORT_ERRORS:
            return None  # the next pass looks again

    def _context(self, policy: JobPolicy, dry: bool, now: datetime) -> Context:
        return Context(
            self.settings.name, policy, now, dry, self.settings.max_hand_over,
            self._policy.suspicion_threshold, self._topology(),
        )  # fmt: skip


def _last_checkpoint(history: JobHistory) -> int | None:
    return history.attempts[-1].checkpoint if history.attempts else None


def deliver_handovers(
    outbox: HandoverOutbox,
    ingest: Callable[[Sequence[NodeSignal]], object],
    at: datetime,
    limit: int = 100,
) -> int:
    """Move recorded hand-overs to hardware recovery (e.g. `HardwareController.ingest`).

    The engine calls this on its own loop; a hand-over delivered twice after a crash counts
    once there (one key within its repeat gap is one occurrence)."""
    pending = outbox.pending_handovers(limit)
    if not pending:
        return 0
    ingest([h.signal for h in pending])
    outbox.handed_over([h.id for h in pending], at)
    return len(pending)


def _earlier(history: JobHistory) -> tuple[EarlierAttempt, ...]:
    """The job's earlier failures as attribution's history reads them (docs/attribution.md:
    the same unexplained failure again is the job's own). A root that is only a cause name
    (nothing decided) is no signal to compare."""
    causes = {str(c) for c in Cause}
    return tuple(
        EarlierAttempt(cause=a.cause, signal="" if a.root in causes else a.root,
                       node=a.origin, step=a.step, suspect_nodes=a.suspects)
        for a in history.attempts
        if a.budget is not Budget.PROACTIVE  # a move before a failure is no failure
    )  # fmt: skip
