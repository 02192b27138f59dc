"""A log written in local time: the zone its stamps were in, guessed from the job's own record.

The bundle format reads a time without a zone as UTC. A job script printing local time, or a
node's syslog kept in local time and collected as it is, breaks that: every line of the file is
off by the zone's offset, the decisive lines fall outside the job's window, and their evidence
is dropped ("no recognised failure signal in the window"). The scheduler's record says when
the job ran, in UTC, and when the bundle was taken.

A file's stamps cannot be UTC when a line is stamped after the bundle was taken, or when the
whole file lies outside the window (`wrong_in_utc`); job output that begins before the job is
not enough (a requeued job's log keeps its earlier attempts' lines).
A job's output starts when the job starts: such a file of the job's output, whose first stamp
one real zone's offset (whole hours, and the half and three-quarter hours some zones use)
puts at the job's start, within minutes (`EARLY_START`, `LATE_START`: less than two zones'
distance, so at most one zone fits), and whose last stamp it puts inside the window, was
written in that zone (`job_log_offset`). A system log has no such edges (it runs before and
after the job): it takes the zone the job's output was found in, when the job logs agree on
one and it cannot be UTC but reads right there (`same_zone`); so does a job log that is only
a tail of the output. A file whose stamps carry a zone, or that reads right as UTC, is never
moved: a system log of the days before the job (its boot, an old XID) stays outside.
A system log's own edge is the line saying the job started on the node (slurmd launching its
batch script or a step, the kubelet adding one of its pods: `system_log_offset`): the node's
clock, which a tail of the job's output cannot fool, so it is asked first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from autorecover.domain.context import GRACE, Window
from autorecover.domain.records import Activity, Finding, JobRecord, Source

# The offsets from UTC that zones use (IANA tz database): every whole hour from -12 to +14
# and the fractional ones (Newfoundland -3:30, Marquesas -9:30, Iran +3:30, Afghanistan
# +4:30, India +5:30, Nepal +5:45, Myanmar +6:30, Eucla +8:45, South Australia +9:30, Lord
# Howe +10:30, Chatham +12:45).
_FRACTIONAL = ((-9, -30), (-3, -30), (3, 30), (4, 30), (5, 30), (5, 45), (6, 30), (8, 45),
               (9, 30), (10, 30), (12, 45))  # fmt: skip
ZONE_OFFSETS: tuple[timedelta, ...] = tuple(
    sorted(
        [timedelta(hours=h) for h in range(-12, 15) if h != 0]
        + [timedelta(hours=h, minutes=m) for h, m in _FRACTIONAL]
    )
)
# How far after the job's recorded start its output may begin (an image pulled, an
# environment set up) and still be the start, and how far before (the scheduler records the
# start when it has it, a launcher may print first): together less than the nearest two
# zones' distance (15 minutes), so at most one zone fits.
LATE_START = timedelta(minutes=7)
EARLY_START = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class LocalTime:
    """A file read in a zone other than UTC: `offset` is local time minus UTC."""

    node: str
    source: Source
    offset: timedelta

    def describe(self) -> str:
        """`UTC+08:00`, `UTC-03:30`."""
        minutes = int(self.offset.total_seconds() // 60)
        sign = "+" if minutes >= 0 else "-"
        hours, rest = divmod(abs(minutes), 60)
        return f"UTC{sign}{hours:02d}:{rest:02d}"


def wrong_in_utc(job: JobRecord, activity: Activity) -> bool:
    """Whether the file's stamps cannot be UTC: a line stamped after the bundle was taken, or
    a file wholly outside the job's window. (Job output from before the job is no proof: a
    requeued job's log keeps its earlier attempts' lines.)"""
    first, last = activity.first_at, activity.last_at
    if first is None:
        return False
    window = Window.of(job)
    if last is None:  # no stamp near the file's end: its first stamp alone
        return first > window.end
    return last > job.collected + GRACE or last < window.start or first > window.end


def job_log_offset(job: JobRecord, activity: Activity) -> timedelta | None:
    """The zone a job's output was written in, when its stamps cannot be UTC and one zone
    makes it start with the job (within minutes) and end inside the window."""
    first, last = activity.first_at, activity.last_at
    if activity.source is not Source.LOGS or not wrong_in_utc(job, activity):
        return None
    assert first is not None  # wrong_in_utc() checked
    window = Window.of(job)
    # differences: a stamp near year 1 cannot move further back; a file with no stamp near
    # its end is placed by its start alone
    late = last - window.end if last is not None else None
    fits = [
        o
        for o in ZONE_OFFSETS
        if -EARLY_START <= (first - job.started) - o <= LATE_START and (late is None or late <= o)
    ]
    return fits[0] if len(fits) == 1 else None


# The lines a node's system log prints as the job starts there: slurmd launching its batch
# script or a step (naming the job's id), the kubelet adding one of its pods (named after it).
START_LINES = frozenset({"slurm.task_launched", "kubelet.pod_added"})


def system_log_offset(
    job: JobRecord, activity: Activity, findings: Sequence[Finding]
) -> timedelta | None:
    """The zone of a system log that cannot be UTC, from its own line saying the job started on
    the node: the one zone that puts that line at the job's start, within minutes."""
    if activity.source is not Source.SYSTEM or not wrong_in_utc(job, activity):
        return None
    at = min((f.at for f in findings if f.at and _starts_job(job, f)), default=None)
    if at is None:
        return None
    fits = [o for o in ZONE_OFFSETS if -EARLY_START <= (at - job.started) - o <= LATE_START]
    return fits[0] if len(fits) == 1 else None


def _starts_job(job: JobRecord, f: Finding) -> bool:
    if f.signal not in START_LINES:
        return False
    if f.signal == "slurm.task_launched":
        return (f.detail("jobid") or f.detail("batch")) == job.job
    pod = f.detail("address") or ""
    name = job.job.rsplit("/", 1)[-1]
    return bool(name) and pod.startswith(f"{name}-")


def same_zone(job: JobRecord, activity: Activity, offset: timedelta) -> bool:
    """Whether a file that cannot be UTC reads right in the zone the job's output was found
    in: no line after the bundle was taken, and over the window (job output: inside it)."""
    first, last = activity.first_at, activity.last_at
    if first is None or not wrong_in_utc(job, activity):
        return False
    window = Window.of(job)
    if last is None:  # no stamp near its end: its first reads inside (over) the window
        if activity.source is Source.LOGS:
            return first - window.start >= offset and first - window.end <= offset
        return first - window.end <= offset
    # Each bound as a difference: read in the zone, a stamp is `offset` earlier (and a
    # difference cannot fall off the calendar as a stamp near year 1 would).
    if activity.source is Source.LOGS:  # inside the window
        return first - window.start >= offset and last - window.end <= offset
    return (  # nothing after the bundle was taken, and over the window
        last - (job.collected + GRACE) <= offset
        and last - window.start >= offset
        and first - window.end <= offset
    )


def in_utc(
    activity: Activity, findings: Sequence[Finding], offset: timedelta
) -> tuple[Activity, list[Finding]]:
    """A file's activity and findings with its local times read as UTC."""

    def moved(at: datetime | None) -> datetime | None:
        if at is None:
            return None
        try:
            return at - offset
        except OverflowError:  # a stamp at the calendar's edge (a misread year): as it was
            return at

    return (
        replace(
            activity,
            first_at=moved(activity.first_at),
            last_at=moved(activity.last_at),
            last_progress_at=moved(activity.last_progress_at),
        ),
        [replace(f, at=moved(f.at)) for f in findings],
    )
