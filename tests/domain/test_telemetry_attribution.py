"""The telemetry library's records in attribution, on hand-made findings: the first fatal
error decides and is cited first, handled errors decide nothing, a hang the library raised is
a hang at once (`domain/fatal_errors.py`, `domain/hangs.py`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.fatal_errors import FIRST_FATAL_WEIGHT, first_fatal
from autorecover.domain.hangs import standing
from autorecover.domain.records import Action, Activity, Blame, Cause, Finding, JobRecord, Source

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
NODES = ("n1", "n2", "n3", "n4")


def job(running: bool = False, collected_min: float = 125) -> JobRecord:
    return JobRecord(
        scheduler="slurm", job="1", nodes=NODES, started=T0,
        ended=None if running else T0 + timedelta(minutes=120),
        collected=T0 + timedelta(minutes=collected_min),
        state="RUNNING" if running else "FAILED",
    )  # fmt: skip


def record(signal: str, node: str, rank: int, blame: Blame, weight: int, seconds: float,
           fatal: bool = True, line: int = 10) -> Finding:  # fmt: skip
    """A finding of a telemetry `error` record, as parsing/telemetry_evidence.py makes it."""
    return Finding(
        signal, node, Source.LOGS, line, f"fatal error record: rank {rank} on {node}", blame,
        weight, at=T0 + timedelta(minutes=100, seconds=seconds), rank=rank,
        details=(("telemetry", "error"), ("fatal", str(fatal).lower())),
    )  # fmt: skip


def gloo(node: str, rank: int, seconds: float, line: int = 20) -> Finding:
    return record("gloo.peer_closed", node, rank, Blame.SYMPTOM, 30, seconds, line=line)


def traceback_line(node: str, signal: str, blame: Blame, weight: int, seconds: float,
                   line: int = 30) -> Finding:  # fmt: skip
    """A line of the job's output (no record): its time only its neighbours'."""
    return Finding(signal, node, Source.LOGS, line, signal, blame, weight,
                   at=T0 + timedelta(minutes=100, seconds=seconds))  # fmt: skip


def test_the_first_fatal_error_is_raised_above_a_traceback_line() -> None:
    key = record("telemetry.fatal_error", "n2", 3, Blame.APPLICATION, 50, 0.0)
    late = record("telemetry.fatal_error", "n4", 7, Blame.APPLICATION, 50, 0.5)
    out = first_fatal([gloo("n1", 0, 0.7), late, key])
    assert [x.weight for x in out] == [30, 50, FIRST_FATAL_WEIGHT]
    assert out[2].detail("context") == "the job's first fatal error"


def test_a_symptom_or_a_handled_error_first_raises_nothing() -> None:
    first = [gloo("n1", 0, 0.0), record("telemetry.fatal_error", "n2", 3, Blame.APPLICATION, 50, 1)]
    assert first_fatal(first) == first
    handled = record("telemetry.handled_error", "n2", 3, Blame.INFO, 0, -5.0, fatal=False)
    later = record("telemetry.fatal_error", "n2", 3, Blame.APPLICATION, 50, 0.0)
    assert first_fatal([handled, later])[1].weight == FIRST_FATAL_WEIGHT


def test_a_ddp_crash_is_the_raising_ranks_and_cites_its_record_first() -> None:
    # Its node-mate's gloo traceback, printed first in the node's merged output, carries an
    # earlier neighbour time than the raising rank's own traceback line (which alone would then
    # read as that complaint's traceback): the records' own times say who was first.
    fs = [
        traceback_line("n2", "gloo.peer_closed", Blame.SYMPTOM, 30, -1.0, line=5),
        traceback_line("n2", "python.exception", Blame.APPLICATION, 50, 1.0, line=40),
        gloo("n1", 0, 0.6), gloo("n3", 4, 0.7), gloo("n4", 6, 0.7),
        record("telemetry.fatal_error", "n2", 3, Blame.APPLICATION, 50, 0.0, line=12),
    ]  # fmt: skip
    v = attribute(job(), fs, [], {})
    assert (v.cause, v.action, v.suspect_nodes) == (Cause.APPLICATION, Action.STOP, ())
    assert (v.evidence[0].node, v.evidence[0].signal, v.evidence[0].line) == (
        "n2", "telemetry.fatal_error", 12)  # fmt: skip
    assert "rank 3 on n2" in v.summary and "the job's first fatal error" in v.summary


def test_hardware_that_came_first_still_outweighs_the_first_fatal_error() -> None:
    xid = Finding("xid.79", "n2", Source.SYSTEM, 3, "Xid 79", Blame.HARDWARE, 100,
                  at=T0 + timedelta(minutes=99, seconds=58))  # fmt: skip
    fs = [xid, record("telemetry.fatal_error", "n2", 3, Blame.APPLICATION, 50, 0.0),
          gloo("n1", 0, 0.5)]  # fmt: skip
    v = attribute(job(), fs, [], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_a_handled_error_alone_decides_nothing() -> None:
    handled = record("telemetry.handled_error", "n2", 3, Blame.INFO, 0, 0.0, fatal=False)
    assert attribute(job(), [handled], [], {}).cause is Cause.UNKNOWN


def _hang(node: str, rank: int, seconds: float) -> Finding:
    return Finding("telemetry.hang", node, Source.LOGS, 50 + rank, f"hang record: rank {rank}",
                   Blame.SYMPTOM, 10, at=T0 + timedelta(minutes=100, seconds=seconds), rank=rank,
                   details=(("idle_s", "45"), ("threshold_s", "40")))  # fmt: skip


def _outlier(node: str, rank: int) -> Finding:
    return Finding("hang.stack_outlier", node, Source.LOGS, 0,
                   f"hang stacks: rank {rank} on {node} is in next_batch (job/data.py:44)",
                   Blame.SYMPTOM, 45, at=T0 + timedelta(minutes=100, seconds=41), rank=rank,
                   details=(("where", "next_batch (job/data.py:44)"),))  # fmt: skip


def _progress(last_s: float) -> list[Activity]:
    at = T0 + timedelta(minutes=100, seconds=last_s)
    return [Activity(n, Source.LOGS, True, 100, T0, at, at, 40, 80, 0.5) for n in NODES]


def test_a_hang_the_library_raised_is_a_hang_without_the_engines_floor() -> None:
    hangs = [_hang(n, r, 40.0 + r / 10) for r, n in enumerate(NODES)]
    running = job(running=True, collected_min=101)  # a minute after the stall, not ten
    v = attribute(running, [*hangs, _outlier("n3", 2)], _progress(0.0), {})
    assert (v.cause, v.action, v.suspect_nodes) == (Cause.TRANSIENT, Action.REQUEUE, ())
    assert [(e.signal, e.node) for e in v.evidence[:2]] == [
        ("hang.stack_outlier", "n3"), ("telemetry.hang", "n3")]  # fmt: skip
    assert v.summary.startswith("hung: the telemetry library's watchdog on 4 rank(s)")
    assert "rank 2 on n3 is in next_batch" in v.summary and "(its threshold: 40 s)" in v.summary


def test_progress_after_a_hang_record_means_the_hang_is_over() -> None:
    hangs = [_hang("n1", 0, 40.0)]
    assert standing(hangs, _progress(50.0)) == []
    assert standing(hangs, _progress(0.0)) == hangs
    running = job(running=True, collected_min=101)
    assert attribute(running, hangs, _progress(50.0), {}).cause is Cause.UNKNOWN


def test_hang_records_of_a_job_that_ended_are_no_hang_verdict() -> None:
    hangs = [_hang(n, r, 40.0) for r, n in enumerate(NODES)]
    v = attribute(job(), hangs, _progress(0.0), {})
    assert not v.summary.startswith("hung")
