"""An in-memory job scheduler for the job recovery controller's tests and the simulator.

It behaves as a real adapter must: requeue and stop are idempotent by action id (a repeated
id is counted in `calls` and does nothing; `effects` counts what really happened), a
requeued job gets a new attempt that starts after its delay on free nodes it does not
exclude (the old ones first, as a retry on the same nodes should), and each attempt's output
per node is bytes the test writes. `ignore_exclusions` makes it drop the next N exclusions —
a scheduler that does not do as asked, for the verification tests.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from autorecover.controllers.jobs.records import TERMINAL, JobPhase, JobStatus, WatchedJob
from autorecover.controllers.ports import Clock, Provenance

_STATES = {
    JobPhase.PENDING: "PENDING",
    JobPhase.RUNNING: "RUNNING",
    JobPhase.SUCCEEDED: "COMPLETED",
    JobPhase.FAILED: "FAILED",
    JobPhase.CANCELLED: "CANCELLED",
}


@dataclass(slots=True)
class FakeAttempt:
    """One run of a job."""

    index: int
    nodes: tuple[str, ...] = ()
    phase: JobPhase = JobPhase.PENDING
    state: str = "PENDING"
    eligible: datetime | None = None
    started: datetime | None = None
    ended: datetime | None = None
    exit_codes: dict[str, int] = field(default_factory=dict)
    output: dict[str, bytearray] = field(default_factory=dict)


@dataclass(slots=True)
class FakeJob:
    """A job as the fake holds it."""

    job: str
    size: int
    overrides: Mapping[str, object]
    watched: bool = True
    exclusions: tuple[str, ...] = ()
    attempts: list[FakeAttempt] = field(default_factory=list)

    @property
    def current(self) -> FakeAttempt:
        """The latest attempt."""
        return self.attempts[-1]


class FakeJobScheduler:
    """Jobs in memory on a pool of nodes; time from the injected clock."""

    def __init__(self, clock: Clock, nodes: Iterable[str]) -> None:
        self._clock = clock
        self.nodes = list(nodes)
        self.cordoned: set[str] = set()
        self.jobs: dict[str, FakeJob] = {}
        self.calls: Counter[str] = Counter()  # per action id: every call, retries included
        self.effects: Counter[str] = Counter()  # per action id: what really happened
        self.log: list[tuple[str, str, str]] = []  # (kind, job, action id) of each effect
        self.provenance: dict[str, Provenance] = {}
        self.failures: dict[tuple[str, str], Exception] = {}  # (kind, job) -> raise this
        self.read_failures: dict[str, Exception] = {}  # job -> raise this on read_output
        self.ignore_exclusions = 0  # drop the exclusions of this many requeues
        self.listing_failure: Exception | None = None

    # --- the test's side -------------------------------------------------------------------

    def submit(
        self,
        job: str,
        nodes: Sequence[str],
        overrides: Mapping[str, object] | None = None,
        watched: bool = True,
    ) -> FakeJob:
        """A job running at once on these nodes."""
        now = self._clock.now()
        first = FakeAttempt(0, tuple(nodes), JobPhase.RUNNING, "RUNNING", now, now)
        fake = FakeJob(job, len(nodes), overrides or {}, watched, attempts=[first])
        self.jobs[job] = fake
        return fake

    def write(self, job: str, node: str, text: str, attempt: int | None = None) -> None:
        """Append output on a node (lines end with a newline unless `text` says otherwise)."""
        fake = self.jobs[job]
        run = fake.attempts[attempt] if attempt is not None else fake.current
        run.output.setdefault(node, bytearray()).extend(text.encode())

    def fail(
        self,
        job: str,
        exit_codes: Mapping[str, int],
        state: str = "FAILED",
        at: datetime | None = None,
    ) -> None:
        """The current attempt ends badly."""
        self._end(job, JobPhase.FAILED, state, exit_codes, at)

    def complete(self, job: str) -> None:
        """The current attempt ends well."""
        run = self.jobs[job].current
        self._end(job, JobPhase.SUCCEEDED, "COMPLETED", dict.fromkeys(run.nodes, 0), None)

    def person_cancel(self, job: str) -> None:
        """Somebody cancels the job."""
        self._end(job, JobPhase.CANCELLED, "CANCELLED", {}, None)

    def current(self, job: str) -> FakeAttempt:
        """The job's latest attempt (after starting whatever is due)."""
        self._start_due()
        return self.jobs[job].current

    # --- the port ----------------------------------------------------------------------------

    def watched(self) -> list[WatchedJob]:
        """Every watched job, with its current attempt."""
        if self.listing_failure is not None:
            raise self.listing_failure
        self._start_due()
        return [
            WatchedJob(self._status(j), "fake", j.overrides, f"fake job {j.job}")
            for j in self.jobs.values()
            if j.watched
        ]

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Bytes the attempt wrote on the node, from `offset`."""
        failure = self.read_failures.get(job)
        if failure is not None:
            raise failure
        attempts = self.jobs[job].attempts
        if attempt >= len(attempts):
            return b""
        data = attempts[attempt].output.get(node, bytearray())
        return bytes(data[offset : offset + limit])

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Stop the current attempt if it runs; a new one starts after `delay_s`."""
        if not self._first("requeue", job, provenance):
            return
        fake = self.jobs[job]
        run = fake.current
        if run.phase not in TERMINAL:
            self._end(job, JobPhase.CANCELLED, "REQUEUED", {}, None)
        if self.ignore_exclusions > 0:
            self.ignore_exclusions -= 1
        else:
            fake.exclusions = tuple(sorted(set(exclude)))
        eligible = self._clock.now() + timedelta(seconds=delay_s)
        fake.attempts.append(FakeAttempt(len(fake.attempts), eligible=eligible))

    def stop(self, job: str, provenance: Provenance) -> None:
        """Stop the job for good."""
        if not self._first("stop", job, provenance):
            return
        if self.jobs[job].current.phase not in TERMINAL:
            self._end(job, JobPhase.CANCELLED, "CANCELLED", {}, None)

    # --- internals ---------------------------------------------------------------------------

    def _first(self, kind: str, job: str, provenance: Provenance) -> bool:
        aid = provenance.action_id
        self.calls[aid] += 1
        failure = self.failures.get((kind, job))
        if failure is not None:
            raise failure
        if self.effects[aid]:
            return False  # already done under this id: idempotent
        self.effects[aid] += 1
        self.log.append((kind, job, aid))
        self.provenance[aid] = provenance
        return True

    def _end(
        self,
        job: str,
        phase: JobPhase,
        state: str,
        exit_codes: Mapping[str, int],
        at: datetime | None,
    ) -> None:
        run = self.jobs[job].current
        run.phase, run.state = phase, state
        run.ended = at or self._clock.now()
        run.exit_codes = dict(exit_codes)

    def _busy(self) -> set[str]:
        return {
            n
            for j in self.jobs.values()
            if j.current.phase is JobPhase.RUNNING
            for n in j.current.nodes
        }

    def _start_due(self) -> None:
        now = self._clock.now()
        for fake in self.jobs.values():
            run = fake.current
            if run.phase is not JobPhase.PENDING or (run.eligible and run.eligible > now):
                continue
            before = fake.attempts[-2].nodes if len(fake.attempts) > 1 else ()
            busy = self._busy()
            usable = [
                n
                for n in (*before, *self.nodes)
                if n not in busy and n not in self.cordoned and n not in fake.exclusions
            ]
            chosen = tuple(dict.fromkeys(usable))[: fake.size]
            if len(chosen) == fake.size:
                run.nodes, run.phase, run.state, run.started = (
                    chosen,
                    JobPhase.RUNNING,
                    "RUNNING",
                    now,
                )

    def _status(self, fake: FakeJob) -> JobStatus:
        run = fake.current
        return JobStatus(
            job=fake.job,
            phase=run.phase,
            state=run.state if run.state else _STATES[run.phase],
            attempt=run.index,
            nodes=run.nodes,
            started=run.started,
            ended=run.ended,
            exit_codes=tuple(sorted(run.exit_codes.items())),
            exclusions=fake.exclusions,
        )
