"""Guessing the zone of a file whose stamps carry none (`domain.zones`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.records import Activity, Blame, Finding, JobRecord, Source
from autorecover.domain.zones import (
    ZONE_OFFSETS,
    LocalTime,
    in_utc,
    job_log_offset,
    same_zone,
    wrong_in_utc,
)

START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
END = START + timedelta(hours=3)
JOB = JobRecord(
    scheduler="slurm", job="1", nodes=("n1", "n2"), started=START, ended=END,
    collected=END + timedelta(minutes=5), state="FAILED",
)  # fmt: skip
HANG = JobRecord(
    scheduler="slurm", job="1", nodes=("n1", "n2"), started=START, ended=None,
    collected=END, state="RUNNING",
)  # fmt: skip


def span(first: datetime, last: datetime, source: Source = Source.LOGS) -> Activity:
    return Activity(node="n1", source=source, present=True, first_at=first, last_at=last)


def local(offset: timedelta, first: timedelta, last: timedelta) -> Activity:
    """A job log of the run from `first` to `last` after the start, written at `offset`."""
    return span(START + first + offset, START + last + offset)


def test_offsets_are_the_real_zones() -> None:
    assert timedelta(0) not in ZONE_OFFSETS
    assert ZONE_OFFSETS[0] == timedelta(hours=-12) and ZONE_OFFSETS[-1] == timedelta(hours=14)
    assert timedelta(hours=5, minutes=30) in ZONE_OFFSETS  # India
    assert timedelta(hours=5, minutes=45) in ZONE_OFFSETS  # Nepal
    assert timedelta(hours=-3, minutes=-30) in ZONE_OFFSETS  # Newfoundland
    assert list(ZONE_OFFSETS) == sorted(set(ZONE_OFFSETS))


@pytest.mark.parametrize(
    "offset",
    [timedelta(hours=8), timedelta(hours=-5), timedelta(hours=5, minutes=30),
     timedelta(hours=5, minutes=45), timedelta(hours=1), timedelta(hours=14)],
)  # fmt: skip
def test_a_job_log_in_local_time_gets_its_zone(offset: timedelta) -> None:
    log = local(offset, timedelta(seconds=20), timedelta(hours=3))
    assert wrong_in_utc(JOB, log)
    assert job_log_offset(JOB, log) == offset


def test_a_long_run_in_a_zone_an_hour_ahead_is_found_by_its_impossible_stamps() -> None:
    # a 3-hour run an hour ahead still overlaps the window: its last line is after the bundle
    log = local(timedelta(hours=1), timedelta(seconds=5), timedelta(hours=3))
    assert log.last_at is not None and log.last_at > JOB.collected
    assert job_log_offset(JOB, log) == timedelta(hours=1)


def test_a_job_log_that_fits_in_utc_stays() -> None:
    log = local(timedelta(0), timedelta(seconds=5), timedelta(hours=3))
    assert not wrong_in_utc(JOB, log)
    assert job_log_offset(JOB, log) is None


def test_a_job_log_that_starts_long_after_the_job_in_every_zone_gets_none() -> None:
    # a tail of the output, 8 h 30 min off: no zone puts its first line at the start
    log = local(timedelta(hours=8), timedelta(minutes=30), timedelta(hours=3))
    assert wrong_in_utc(JOB, log)
    assert job_log_offset(JOB, log) is None


def test_a_job_log_a_zone_would_end_after_the_window_gets_none() -> None:
    log = local(timedelta(hours=8), timedelta(seconds=5), timedelta(hours=4))
    assert job_log_offset(JOB, log) is None


def test_a_system_log_is_never_placed_by_its_own_edges() -> None:
    log = span(START + timedelta(hours=8), END + timedelta(hours=8), Source.SYSTEM)
    assert wrong_in_utc(JOB, log)
    assert job_log_offset(JOB, log) is None


def test_a_system_log_takes_the_zone_of_the_jobs_output_when_it_reads_right_there() -> None:
    eight = timedelta(hours=8)
    log = span(START - timedelta(hours=2) + eight, END + eight, Source.SYSTEM)
    assert same_zone(JOB, log, eight)
    assert not same_zone(JOB, log, timedelta(hours=-5))  # would be after the bundle


def test_a_system_log_of_the_days_before_the_job_stays_outside() -> None:
    # its boot and an old XID: wholly before the window, and no zone of the job's output
    # puts it over the window
    log = span(START - timedelta(days=2), START - timedelta(days=1), Source.SYSTEM)
    assert wrong_in_utc(JOB, log)
    assert not same_zone(JOB, log, timedelta(hours=8))


def test_a_hang_is_placed_only_when_its_output_is_wholly_outside_the_window() -> None:
    inside = local(timedelta(hours=1), timedelta(seconds=5), timedelta(minutes=30))
    assert not wrong_in_utc(HANG, inside)  # starts an hour late, ends inside: could be UTC
    assert job_log_offset(HANG, inside) is None
    outside = local(timedelta(hours=8), timedelta(seconds=5), timedelta(minutes=30))
    assert job_log_offset(HANG, outside) == timedelta(hours=8)


def test_stamps_at_the_calendars_edge_are_no_error() -> None:
    odd = span(datetime(1, 1, 1, tzinfo=UTC), datetime(1, 1, 2, tzinfo=UTC))
    assert job_log_offset(JOB, odd) is None
    assert not same_zone(JOB, odd, timedelta(hours=8))


def test_in_utc_moves_every_time_of_the_file() -> None:
    eight = timedelta(hours=8)
    log = local(eight, timedelta(seconds=5), timedelta(hours=3))
    f = Finding(
        signal="xid.79", node="n1", source=Source.LOGS, line=3, text="x", blame=Blame.HARDWARE,
        weight=90, at=START + timedelta(hours=2) + eight,
    )  # fmt: skip
    untimed = Finding(
        signal="x", node="n1", source=Source.LOGS, line=4, text="y", blame=Blame.SYMPTOM,
        weight=5,
    )  # fmt: skip
    moved, found = in_utc(log, [f, untimed], eight)
    assert (moved.first_at, moved.last_at) == (START + timedelta(seconds=5), END)
    assert found[0].at == START + timedelta(hours=2) and found[1].at is None


@pytest.mark.parametrize(
    ("offset", "text"),
    [(timedelta(hours=8), "UTC+08:00"), (timedelta(hours=-3, minutes=-30), "UTC-03:30"),
     (timedelta(hours=5, minutes=45), "UTC+05:45")],
)  # fmt: skip
def test_a_zone_is_described_as_people_write_it(offset: timedelta, text: str) -> None:
    assert LocalTime("n1", Source.LOGS, offset).describe() == text


def test_a_requeued_jobs_log_with_its_earlier_attempt_stays_utc() -> None:
    # Slurm appends a requeued job's output to the same file: its first line is the earlier
    # attempt's, three hours before this one's start (a zone's distance), its last this one's end
    log = span(START - timedelta(hours=3), END)
    assert not wrong_in_utc(JOB, log)
    assert job_log_offset(JOB, log) is None


def test_a_job_log_with_no_stamp_near_its_end_is_placed_by_its_start() -> None:
    """Output whose last lines carry no time (a launcher's exit, a traceback) has no last stamp:
    a first stamp after the window is proof enough, and it alone gives the zone."""
    eight = timedelta(hours=8)
    no_end = Activity(node="n1", source=Source.LOGS, present=True, first_at=START + eight)
    assert wrong_in_utc(JOB, no_end) and job_log_offset(JOB, no_end) == eight
    in_window = Activity(node="n1", source=Source.LOGS, present=True, first_at=START)
    assert not wrong_in_utc(JOB, in_window) and job_log_offset(JOB, in_window) is None
    # another file of the job with no stamp near its end reads right in that zone
    other = Activity(node="n2", source=Source.LOGS, present=True, first_at=START + eight)
    assert same_zone(JOB, other, eight) and not same_zone(JOB, other, timedelta(hours=9))
