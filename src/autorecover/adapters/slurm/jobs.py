"""Job recovery's `JobSchedulerPort` over `SlurmScheduler`: a thin translation, no policy.

* `watched()` — `squeue` (through `SlurmScheduler.list_jobs`), keeping the jobs whose
  `--comment` opts in under the site default (`policy.resolve`); the comment's settings are
  the job's overrides. Slurm's restart count is the attempt, `ExcNodeList` the exclusions,
  and the phase comes from `states.job_phase`.
* `read_output(job, attempt, node, offset, limit)` — one attempt's output on one node, as a
  byte stream the controller reads at its own offsets:
  - a job whose output path names one file per node (`--output=...-%N.out`) reads that file;
  - otherwise the job's one output file holds every rank's lines, `srun -l` prefixed
    (`3: ...`). Rank r runs on node `nodes[r // tasks_per_node]` (Slurm's default block
    distribution; `tasks_per_node` is the port's setting, 1 for the usual one launcher per
    node); unprefixed lines (the batch script's own, `srun:`/`slurmstepd:` messages) belong
    to the batch host. The node's stream is its lines, in file order, prefixes kept.
  - With `--open-mode=append` the file keeps every attempt. Slurm writes no marker between
    them, so the port remembers where each attempt starts: the file's size when it requeues
    the job (the failed attempt has stopped writing by then), or when `watched()` first sees
    a new restart count it did not cause. An attempt whose start the port never saw (the
    engine restarted meanwhile) starts at the file's size when first seen: later lines only,
    never an older attempt's. Without append, Slurm truncates the file and it holds only the
    current attempt.
* `requeue(job, exclude, delay_s)` — nodes not yet excluded: `requeue_excluding` (exclusions
  take effect at once, the delay is not applied: hardware requeues have none); otherwise
  `requeue(delay_s)`. Slurm keeps every exclusion a job has (its own and ours); an exclusion
  that decayed is not lifted.
* `stop(job)` — `cancel`.

Both mutations are carried out once per action id.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.output import find_output_files
from autorecover.adapters.slurm.policy import SitePolicy, Source, parse_comment, resolve
from autorecover.adapters.slurm.records import SlurmJob
from autorecover.adapters.slurm.states import JobPhase as SlurmPhase
from autorecover.adapters.slurm.states import canonical_job_state, job_phase
from autorecover.adapters.slurm.validation import COMMENT_PREFIX
from autorecover.controllers.jobs.records import JobPhase, JobStatus, WatchedJob
from autorecover.controllers.ports import Provenance

log = logging.getLogger(__name__)

_PHASES: dict[SlurmPhase, JobPhase] = {
    SlurmPhase.PENDING: JobPhase.PENDING,
    SlurmPhase.HELD: JobPhase.PENDING,
    SlurmPhase.REQUEUEING: JobPhase.PENDING,
    SlurmPhase.RUNNING: JobPhase.RUNNING,
    SlurmPhase.SUSPENDED: JobPhase.RUNNING,
    SlurmPhase.COMPLETING: JobPhase.RUNNING,  # not ended until Slurm says how
    SlurmPhase.SUCCEEDED: JobPhase.SUCCEEDED,
    SlurmPhase.FAILED: JobPhase.FAILED,
    SlurmPhase.CANCELLED: JobPhase.CANCELLED,
}
_RANK = re.compile(rb"^\s*(\d+): ")
_REMEMBERED = 10_000  # action ids kept for idempotency
_INDEXED = 1_000  # (job, attempt) line indexes kept
_CHUNK = 1 << 20  # bytes indexed per read of the file


@dataclass(slots=True)
class _Seen:
    """What the port remembers of one job: its last record and where each attempt starts."""

    job: SlurmJob
    starts: dict[int, int] = field(default_factory=dict)  # attempt -> byte offset in the file
    # attempt -> (nodes, batch host) it ran on: ranks map to the attempt's own nodes
    placed: dict[int, tuple[tuple[str, ...], str]] = field(default_factory=dict)


class SlurmJobs:
    """`JobSchedulerPort` for Slurm batch jobs."""

    def __init__(
        self,
        scheduler: SlurmScheduler,
        site: SitePolicy | None = None,
        *,
        tasks_per_node: int = 1,
    ) -> None:
        if tasks_per_node < 1:
            raise ValueError(f"tasks_per_node must be >= 1, not {tasks_per_node}")
        self.scheduler = scheduler
        self.site = site or SitePolicy()
        self.tasks_per_node = tasks_per_node
        self._seen: dict[str, _Seen] = {}
        self._done: OrderedDict[str, str] = OrderedDict()
        self._index: dict[tuple[str, int], _Index] = {}
        self._warned: set[str] = set()  # jobs whose comment we could not read, told once

    # --- reading ---------------------------------------------------------------------------

    def watched(self) -> list[WatchedJob]:
        """Every batch job whose comment (or the site default) opts it in."""
        out: list[WatchedJob] = []
        listed = self.scheduler.list_jobs()
        known = {job.job_id for job in listed}
        for gone in [j for j in self._seen if j not in known]:  # Slurm forgot it (MinJobAge)
            del self._seen[gone]
        self._index = {k: v for k, v in self._index.items() if k[0] in known}
        self._warned &= known
        for job in listed:
            phase = _PHASES.get(job_phase(job.state, job.reason))
            if phase is None or not job.batch or job.comment.startswith(COMMENT_PREFIX):
                continue  # a validation pair job of ours is no training job
            settings = resolve(job.comment, self.site)
            if not settings.enabled:
                if settings.error and job.job_id not in self._warned:
                    self._warned.add(job.job_id)  # once per job, not once per pass
                    log.warning("job %s: %s (not watched)", job.job_id, settings.error)
                continue
            self._remember(job)
            origin = f"comment: {job.comment}" if job.comment else "site default"
            overrides = _overrides(job.comment, settings.source)
            out.append(WatchedJob(_status(job, phase), "slurm", overrides, origin))
        return out

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes of the attempt's lines on `node` from `offset` (b"" if none)."""
        seen = self._seen.get(job)
        record = seen.job if seen is not None else self.scheduler.reader.job(job)
        if "%N" in record.stdout:
            path = Path(record.stdout.replace("%N", node))
            return _read(path, offset, limit) if attempt == record.restarts else b""
        files = find_output_files(record)
        if not files:
            return b""
        start = seen.starts.get(attempt, 0) if seen is not None else 0
        end = seen.starts.get(attempt + 1) if seen is not None else None
        nodes, host = record.nodes, record.batch_host
        if seen is not None:
            nodes, host = seen.placed.get(attempt, (nodes, host))
        key = (job, attempt)
        index = self._index.get(key)
        if index is None or index.path != files[0] or index.nodes != nodes:
            index = self._index[key] = _Index(files[0], start, nodes, host or "")
            while len(self._index) > _INDEXED:
                self._index.pop(next(iter(self._index)))
        index.update(end, self.tasks_per_node)
        return index.read(node, offset, limit)

    # --- mutations -------------------------------------------------------------------------

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Requeue: excluding the nodes not yet excluded at once, else after `delay_s`."""
        if provenance.action_id in self._done:
            return
        before = self.scheduler.reader.job(job)
        if not self.scheduler.jobs.carries(before, provenance):
            self._mark_next(before)  # a requeue follows: the attempt now running ends here
        new = [n for n in exclude if n not in before.excluded]
        if new:
            result = self.scheduler.requeue_excluding(job, new, provenance)
        else:
            result = self.scheduler.requeue(job, provenance, delay_s=delay_s)
        if not result.verified:
            log.warning("requeue %s: %s", job, result.detail)  # the controller verifies itself
        self._did(provenance.action_id, result.detail)

    def stop(self, job: str, provenance: Provenance) -> None:
        """Cancel the job for good."""
        if provenance.action_id in self._done:
            return
        result = self.scheduler.cancel(job, provenance)
        self._did(provenance.action_id, result.detail)

    # --- internals -------------------------------------------------------------------------

    def _remember(self, job: SlurmJob) -> None:
        seen = self._seen.get(job.job_id)
        if seen is None:
            seen = self._seen[job.job_id] = _Seen(job)
            seen.starts[job.restarts] = 0 if job.restarts == 0 else _size(job)
        seen.job = job
        if job.nodes:
            seen.placed[job.restarts] = (job.nodes, job.batch_host)
        if job.restarts not in seen.starts:  # requeued by somebody else (or Slurm)
            seen.starts[job.restarts] = _size(job)

    def _mark_next(self, job: SlurmJob) -> None:
        seen = self._seen.setdefault(job.job_id, _Seen(job))
        if job.nodes:
            seen.placed.setdefault(job.restarts, (job.nodes, job.batch_host))
        seen.starts.setdefault(job.restarts, 0 if job.restarts == 0 else _size(job))
        seen.starts[job.restarts + 1] = _size(job)

    def _did(self, action_id: str, detail: str) -> None:
        self._done[action_id] = detail
        while len(self._done) > _REMEMBERED:
            self._done.popitem(last=False)


@dataclass(slots=True)
class _Index:
    """Where each node's lines of one attempt are in the shared file, built incrementally.

    Per node: the file spans of its lines, in order, and where each starts in the node's
    stream; a read finds the first line by bisection and reads only what it returns."""

    path: Path
    start: int  # the attempt's first byte in the file
    nodes: tuple[str, ...]
    host: str
    parsed: int = -1  # file offset up to which whole lines are indexed
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    offsets: dict[str, list[int]] = field(default_factory=dict)  # stream offset of each span
    sizes: dict[str, int] = field(default_factory=dict)  # stream length so far

    def update(self, end: int | None, tasks_per_node: int) -> None:
        """Index the whole lines written since the last call (up to `end`, the next attempt)."""
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < max(self.start, self.parsed):  # truncated (no --open-mode=append): anew
            self.start, self.parsed = 0, -1
            self.spans, self.offsets, self.sizes = {}, {}, {}
        if self.parsed < 0:
            self.parsed = self.start
        host = self.host or (self.nodes[0] if self.nodes else "")
        while end is None or self.parsed < end:
            want = _CHUNK if end is None else min(_CHUNK, end - self.parsed)
            data = _read(self.path, self.parsed, want)
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                return
            pos = self.parsed
            for line in data[:cut].splitlines(keepends=True):
                m = _RANK.match(line)
                owner = host
                if m is not None:
                    index = int(m[1]) // tasks_per_node
                    owner = self.nodes[index] if index < len(self.nodes) else host
                size = self.sizes.get(owner, 0)
                self.spans.setdefault(owner, []).append((pos, len(line)))
                self.offsets.setdefault(owner, []).append(size)
                self.sizes[owner] = size + len(line)
                pos += len(line)
            self.parsed = pos
            if len(data) < want:
                return

    def read(self, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes of the node's stream from `offset`."""
        spans, offsets = self.spans.get(node, []), self.offsets.get(node, [])
        if offset >= self.sizes.get(node, 0) or limit <= 0:
            return b""
        i = bisect.bisect_right(offsets, offset) - 1
        out = bytearray()
        with self.path.open("rb") as f:
            while i < len(spans) and len(out) < limit:
                file_off, length = spans[i]
                skip = offset - offsets[i] if not out else 0
                f.seek(file_off + skip)
                out += f.read(min(length - skip, limit - len(out)))
                i += 1
        return bytes(out)


def _status(job: SlurmJob, phase: JobPhase) -> JobStatus:
    ended = phase in (JobPhase.SUCCEEDED, JobPhase.FAILED, JobPhase.CANCELLED)
    codes: tuple[tuple[str, int], ...] = ()
    if ended and job.exit_status and (job.batch_host or job.nodes):
        codes = ((job.batch_host or job.nodes[0], job.exit_status),)
    return JobStatus(
        job=job.job_id,
        phase=phase,
        state=canonical_job_state(job.state),
        attempt=job.restarts,
        nodes=job.nodes,
        started=job.start_time,
        ended=job.end_time if ended else None,
        exit_codes=codes,
        exclusions=job.excluded,
    )


def _overrides(comment: str, source: Source) -> dict[str, object]:
    if source is not Source.COMMENT:
        return {}
    asked = parse_comment(comment)
    return dict(asked.settings) if asked is not None else {}


def _size(job: SlurmJob) -> int:
    files = find_output_files(job)
    try:
        return files[0].stat().st_size if files else 0
    except OSError:
        return 0


def _read(path: Path, offset: int, limit: int | None) -> bytes:
    try:
        with path.open("rb") as f:
            f.seek(offset)
            return f.read() if limit is None else f.read(limit)
    except FileNotFoundError:
        return b""
