"""Reading a job's output as it grows: findings, activity and training progress per attempt.

Each pass reads only the bytes written since the last one (an offset per node), up to the last
complete line, and scans them with the same `Scanner` as `autorecover explain`; line numbers
are shifted so evidence points at the line of the whole file. Telemetry lines (`step`,
`summary`, checkpoint spans, `init`) feed the `domain.jobs.health.Progress` ledger and the timeline;
`error` and `hang` records become findings (`parsing/telemetry_evidence.py`), as in `explain`.

An in-job restart (torchelastic's or NVRx's "Worker group FAILED ... will restart worker
group" while the job runs) is not a failure: the launcher recovered by itself. The evidence
before it and the progress ledger are dropped, so neither an error it recovered from nor the
pause while it restarted is held against the job later.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from autorecover.controllers.jobs.ports import JobSchedulerPort
from autorecover.domain.hangs import RankStack
from autorecover.domain.jobs.health import Progress, Report
from autorecover.domain.jobs.migration import Checkpoint
from autorecover.domain.records import Activity, Finding, Source
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.stacks import rank_stack
from autorecover.parsing.telemetry_evidence import record_findings, records_in, replacing
from autorecover.parsing.telemetry_records import TelemetryRecord

IN_JOB_RESTART = "nvrx.worker_group_restart"
MAX_PER_SIGNAL = 32  # findings kept per signal and attempt (and the latest): storms stay small
READ_BYTES = 4 << 20  # one read
MAX_PASS_BYTES = 64 << 20  # per node and pass: a huge backlog is read over several passes


@dataclass(slots=True)
class _Cursor:
    offset: int = 0
    lines: int = 0
    activity: Activity | None = None


@dataclass(frozen=True, slots=True)
class News:
    """What one read brought that the controller acts on."""

    restarts: tuple[Finding, ...] = ()  # in-job restarts seen in the new bytes
    caught_up: bool = True  # every node's output was read to its end


@dataclass(slots=True)
class AttemptWatch:
    """What one attempt of a job has written so far."""

    job: str
    attempt: int
    started: datetime  # supplies the year to year-less timestamps
    scanner: Scanner
    progress: Progress = field(default_factory=Progress)
    checkpoint: int | None = None  # iteration of the last completed checkpoint
    loaded: int | None = None  # iteration of the checkpoint it resumed from
    loaded_from: str | None = None  # where that checkpoint was read from
    last_step: int | None = None
    step_time_s: float | None = None
    first_record_at: datetime | None = None
    checkpoint_loaded_at: datetime | None = None
    first_step_at: datetime | None = None
    restarts: int = 0
    stacks: dict[tuple[str, int], RankStack] = field(default_factory=dict)  # latest per rank
    saves: dict[int, Checkpoint] = field(default_factory=dict)  # latest save per rank
    _cursors: dict[str, _Cursor] = field(default_factory=dict)
    _hosts: tuple[str, ...] = ()  # the attempt's nodes: pdsh's `<host>: ` names one of them
    _kept: list[Finding] = field(default_factory=list)
    _tails: dict[str, Finding] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _pid_ranks: dict[tuple[str, int], int] = field(default_factory=dict)  # (node, pid) -> rank

    @property
    def completed(self) -> Checkpoint | None:
        """The last checkpoint every saving rank completed, and when the last of them did.

        Ranks that never save (rank 0 alone saves under DDP) do not hold it back once they
        report a step at or past it; a rank that has saved nothing yet and last reported an
        earlier step may still be on its way there (ranks that do not train in lock-step, or
        one that started late), so until it passes, no checkpoint is complete."""
        if not self.saves:
            return None
        iteration = min(c.iteration for c in self.saves.values())
        for rank, reports in self.progress.reports.items():
            if rank not in self.saves and reports and reports[-1].step < iteration:
                return None
        at = max(c.at for c in self.saves.values() if c.iteration == iteration)
        return Checkpoint(iteration, at)

    @property
    def nodes_read(self) -> tuple[str, ...]:
        """Every node this attempt's output was read from, in the order first read."""
        return tuple(self._cursors)

    # --- reading ---------------------------------------------------------------------------

    def read(
        self, port: JobSchedulerPort, nodes: Sequence[str], final: bool, limit: int = READ_BYTES
    ) -> News:
        """Read every node's new output (to the end when the attempt is over)."""
        restarts: list[Finding] = []
        caught_up = True
        self._hosts = tuple(nodes)
        for node in nodes:
            cursor = self._cursors.setdefault(node, _Cursor())
            budget = MAX_PASS_BYTES
            while True:
                data = port.read_output(self.job, self.attempt, node, cursor.offset, limit)
                consumed, found = self.feed(node, data, final, limit)
                restarts.extend(found)
                budget -= consumed
                if len(data) < limit or consumed == 0:
                    break
                if budget <= 0:
                    caught_up = False
                    break
        return News(tuple(restarts), caught_up)

    def feed(
        self, node: str, data: bytes, final: bool, limit: int = READ_BYTES
    ) -> tuple[int, list[Finding]]:
        """Take in bytes read at the node's offset; returns bytes consumed and restarts seen.

        Without `final`, an unfinished last line is left for the next read."""
        cursor = self._cursors.setdefault(node, _Cursor())
        if not final:
            end = data.rfind(b"\n") + 1
            data = data[: end or (len(data) if len(data) >= limit else 0)]
        if not data:
            return 0, []
        result = self.scanner.scan(
            io.BytesIO(data), node=node, source=Source.LOGS, reference=self.started,
            hosts=self._hosts,
        )  # fmt: skip
        base = cursor.lines
        records = list(records_in(data, base))
        found = replacing(
            [replace(f, line=f.line + base) for f in result.findings],
            record_findings(self.scanner, node, records),
        )
        cursor.offset += len(data)
        cursor.lines += data.count(b"\n")
        cursor.activity = _merged(cursor.activity, result.activity)
        restarts = [f for f in found if f.signal == IN_JOB_RESTART]
        cut = restarts[-1] if restarts else None
        if cut is not None:
            self.restarts += len(restarts)
            self._forget_before(node, cut)
            found = [f for f in found if not _before(f, node, cut)]
        for f in found:
            self._keep(f)
        self._telemetry(node, records, cut.line if cut else None)
        return len(data), restarts

    # --- what it found ---------------------------------------------------------------------

    def findings(self) -> list[Finding]:
        """The attempt's findings (storms folded), in file order per node."""
        return [*self._kept, *self._tails.values()]

    def activity(self, nodes: Sequence[str]) -> list[Activity]:
        """Each node's activity; a node that wrote nothing is not present."""
        out = []
        for node in nodes:
            cursor = self._cursors.get(node)
            if cursor is None or cursor.activity is None:
                out.append(Activity(node=node, source=Source.LOGS, present=False))
            else:
                out.append(cursor.activity)
        return out

    # --- internals -------------------------------------------------------------------------

    def _keep(self, f: Finding) -> None:
        if self._counts.get(f.signal, 0) < MAX_PER_SIGNAL:
            self._counts[f.signal] = self._counts.get(f.signal, 0) + 1
            self._kept.append(f)
        else:
            self._tails[f.signal] = f

    def _forget_before(self, node: str, cut: Finding) -> None:
        self._kept = [f for f in self._kept if not _before(f, node, cut)]
        self._tails = {k: f for k, f in self._tails.items() if not _before(f, node, cut)}
        self._counts = {}
        for f in self._kept:
            self._counts[f.signal] = self._counts.get(f.signal, 0) + 1

    def _telemetry(
        self, node: str, records: list[tuple[int, TelemetryRecord]], restart_line: int | None
    ) -> None:
        for number, rec in records:
            if restart_line is not None and number > restart_line:
                self.progress = Progress()  # what came before the restart is gone
                self.stacks.clear()
                restart_line = None
            if rec.event == "hang" and (stack := rank_stack(node, number, rec)) is not None:
                self.stacks[(node, stack.rank)] = stack  # a hang record: where this rank is
            if rec.ts is not None:
                self.first_record_at = self.first_record_at or rec.ts
                self._record(node, rec, rec.ts)
        if restart_line is not None:
            self.progress = Progress()
            self.stacks.clear()

    def _record(self, node: str, rec: TelemetryRecord, at: datetime) -> None:
        rank = self._rank(node, rec)
        who = rec.get_str("node") or node
        if rec.event == "init" and rank in self.progress.reports:
            self.progress = Progress()  # the rank started over inside the attempt
        elif rec.event in ("step", "summary") and rec.step is not None:
            self.first_step_at = self.first_step_at or at
            self.last_step = max(rec.step, self.last_step if self.last_step is not None else -1)
            self.step_time_s = _step_time(rec) or self.step_time_s
            self._report(Report(who, rank, at, rec.step, _rate(rec), _compute(rec)))
        elif rec.event == "span_end" and rec.get_bool("ok") is not False:
            iteration = (
                rec.get_int("iteration") if rec.get_int("iteration") is not None else rec.step
            )
            if rec.name == "checkpoint_save" and iteration is not None:
                self.checkpoint = max(iteration, self.checkpoint or 0)
                last = self.saves.get(rank)
                if last is None or iteration >= last.iteration:
                    self.saves[rank] = Checkpoint(iteration, at)
            elif rec.name == "checkpoint_load":
                self.checkpoint_loaded_at = self.checkpoint_loaded_at or at
                self.loaded = iteration if iteration is not None else self.loaded
                self.loaded_from = rec.get_str("path") or self.loaded_from

    def _rank(self, node: str, rec: TelemetryRecord) -> int:
        """The record's rank; a record without one (nv-one-logger names the rank on its
        initialization event alone, and every record its process id) takes the rank its
        process announced on that node, else 0 (a single-process job)."""
        pid = rec.get_int("pid")
        if rec.rank is not None:
            if pid is not None and rec.event == "init":
                self._pid_ranks[(node, pid)] = rec.rank
            return rec.rank
        return self._pid_ranks.get((node, pid), 0) if pid is not None else 0

    def _report(self, report: Report) -> None:
        """One report per rank and step: a `summary` enriches its step's `step` record."""
        reports = self.progress.reports.get(report.rank, ())
        if reports and reports[-1].step == report.step:
            last = reports[-1]
            merged = Report(
                report.node,
                report.rank,
                max(last.at, report.at),
                report.step,
                report.steps_per_s or last.steps_per_s,
                report.compute_s or last.compute_s,
            )
            self.progress = Progress(
                {**self.progress.reports, report.rank: (*reports[:-1], merged)}
            )
        else:
            self.progress = self.progress.add(report)


def _before(f: Finding, node: str, cut: Finding) -> bool:
    """Said before an in-job restart: earlier in its file, or earlier in time elsewhere."""
    if f.node == node and f.line <= cut.line:
        return True
    return f.node != node and f.at is not None and cut.at is not None and f.at <= cut.at


def _merged(old: Activity | None, new: Activity) -> Activity:
    if old is None:
        return new
    return replace(
        old,
        lines=old.lines + new.lines,
        first_at=old.first_at or new.first_at,
        last_at=new.last_at or old.last_at,
        last_progress_at=new.last_progress_at or old.last_progress_at,
        last_step=new.last_step if new.last_step is not None else old.last_step,
        progress_records=old.progress_records + new.progress_records,
        progress_lines=old.progress_lines + new.progress_lines,
        last_of_run=max(old.last_of_run or 0, new.last_of_run or 0) or None,
        median_step_interval_s=new.median_step_interval_s or old.median_step_interval_s,
        median_progress_gap_s=new.median_progress_gap_s or old.median_progress_gap_s,
    )


def _step_time(rec: TelemetryRecord) -> float | None:
    keys = (
        "step_time_mean_s",
        "step_time_s",
        "event.metrics.average_iteration_time",
        "event.attributes.avg_iteration_time_sec",  # nv-one-logger training_metrics_update
    )
    for key in keys:
        value = rec.get_float(key)
        if value is not None and value > 0:
            return value
    return None


def _rate(rec: TelemetryRecord) -> float | None:
    rate = rec.get_float("steps_per_s")
    if rate is None and rec.format == "nvidia":
        step = _step_time(rec)
        rate = 1.0 / step if step else None
    return rate if rate and rate > 0 else None


def _compute(rec: TelemetryRecord) -> float | None:
    """Forward plus backward time per step, when the record has them."""
    pairs = (
        ("forward_mean_s", "backward_mean_s"),
        ("event.metrics.average_forward_time", "event.metrics.average_backward_time"),
        ("event.attributes.avg_forward_time_sec", "event.attributes.avg_backward_time_sec"),
    )
    for fwd, bwd in pairs:
        a, b = rec.get_float(fwd), rec.get_float(bwd)
        if a is not None and b is not None and a + b > 0:
            return a + b
    return None
