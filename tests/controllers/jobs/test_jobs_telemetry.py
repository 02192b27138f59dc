"""Job recovery live on what the telemetry library wrote: the real runs' output of
tests/telemetry-bundles replayed line by line on the virtual clock, as the job wrote it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.controllers.jobs.controller import JobSettings
from autorecover.domain.records import Action, Cause
from autorecover.parsing.telemetry_records import parse_telemetry
from conftest import TESTS
from controllers.jobs.rig import JobRig, tele

BUNDLES = TESTS / "telemetry-bundles"
DEFAULTS = JobSettings()  # the health assessment's own hang floor: 600 s


class Replay:
    """A real run's output written into the fake scheduler as its clock reaches each line."""

    def __init__(self, bundle: Path, settings: JobSettings = DEFAULTS) -> None:
        self.job = json.loads((bundle / "job.json").read_text())
        started = datetime.fromisoformat(self.job["started"])
        nodes = list(self.job["nodes"])
        self.rig = JobRig(nodes=nodes, settings=settings, clock=FakeClock(start=started))
        self.rig.submit(self.job["job"], size=len(nodes))
        self.pending = {n: _timed_lines(bundle / "logs" / f"{n}.log", started) for n in nodes}

    def until(self, end: datetime, every_s: float = 1.0) -> None:
        """Write what the job wrote, one controller pass per `every_s`, up to `end`."""
        while self.rig.clock.now() < end:
            now = self.rig.clock.advance(every_s)
            for node, lines in self.pending.items():
                while lines and lines[0][0] <= now:
                    self.rig.scheduler.write(self.job["job"], node, lines.pop(0)[1])
            self.rig.controller.run_once()

    def hang_records(self) -> list[datetime]:
        """When each rank's hang record was written, in order."""
        return sorted(at for lines in self.pending.values() for at, t in lines if '"hang"' in t)


def _timed_lines(path: Path, start: datetime) -> list[tuple[datetime, str]]:
    """Each line with when it was written: a record's own time, else the previous line's."""
    out, at = [], start
    for line in path.read_text().splitlines(keepends=True):
        rec = parse_telemetry(line)
        at = rec.ts if rec is not None and rec.ts is not None else at
        out.append((at, line))
    return out


def test_a_hang_the_library_raised_is_handled_at_once_naming_the_outlier() -> None:
    replay = Replay(BUNDLES / "live-hang-stuck-loader")
    first, *_, last = replay.hang_records()
    replay.until(first - timedelta(seconds=1))
    assert replay.rig.incidents() == []  # 19 s of silence: the library's threshold is 20 s
    replay.until(last + timedelta(seconds=1))
    incident = replay.rig.incident(job=replay.job["job"], kind="hang")
    assert incident.opened_at <= last + timedelta(seconds=1)  # every rank's stack is in
    verdict = incident.verdict
    assert verdict is not None and (verdict.cause, verdict.suspect_nodes) == (Cause.TRANSIENT, ())
    cited = verdict.evidence[0]
    assert (cited.node, cited.signal) == ("cpu-n02", "hang.stack_outlier")
    assert "rank 3 on cpu-n02 is in next_batch" in cited.text
    assert verdict.summary.startswith("hung: the telemetry library's watchdog")
    assert incident.decided is not None and incident.decided.action is Action.REQUEUE
    assert incident.decided.exclude == ()
    floor = datetime.fromisoformat(replay.job["started"]) + timedelta(minutes=10)
    assert incident.opened_at < floor  # long before the assessment's own 10 minutes


def test_a_mismatched_collective_is_the_jobs_desync_from_the_flight_recorders() -> None:
    replay = Replay(BUNDLES / "live-hang-mismatched-collective")
    *_, last = replay.hang_records()
    replay.until(last + timedelta(seconds=1))
    incident = replay.rig.incident(job=replay.job["job"], kind="hang")
    verdict = incident.verdict
    assert verdict is not None
    assert (verdict.cause, verdict.suspect_nodes) == (Cause.APPLICATION, ())
    cited = verdict.evidence[0]
    assert (cited.node, cited.signal) == ("cpu-n02", "c10d.collective_desync")
    assert "rank 3 on cpu-n02 in gloo:broadcast" in cited.text
    signals = [e.signal for e in verdict.evidence]
    assert "hang.collective_outlier" in signals  # where the flight recorders place it
    assert incident.decided is not None and incident.decided.exclude == ()
    # As for any application error below the strong threshold: one confirmation retry on the
    # job's own budget, then the history rule stops it (the same hang at the same step).
    assert incident.decided.action is Action.REQUEUE
    assert "one confirmation retry" in incident.decided.reason


def test_a_ddp_crash_is_the_raising_ranks_error_cited_first() -> None:
    replay = Replay(BUNDLES / "ddp-crash-key-error")
    replay.until(datetime.fromisoformat(replay.job["ended"]))
    replay.rig.fail(replay.job["job"])
    replay.rig.run(passes=2)
    verdict = replay.rig.incident(job=replay.job["job"]).verdict
    assert verdict is not None and verdict.cause is Cause.APPLICATION
    first = verdict.evidence[0]
    assert (first.node, first.signal) == ("cpu-n02", "telemetry.fatal_error")
    assert first.text.startswith("fatal error record: rank 3 on cpu-n02 at ")


def test_progress_after_a_hang_record_opens_nothing() -> None:
    rig = JobRig(settings=DEFAULTS)
    rig.submit()
    rig.steps(count=6)
    now = rig.clock.now()
    for rank, node in enumerate(rig.on()):  # a slow checkpoint: every rank's watchdog barks
        rig.scheduler.write("train", node, tele("hang", now, rank, node, idle_s=130.0,
                                                threshold_s=120.0))  # fmt: skip
    rig.clock.advance(1)
    rig.steps(count=3)  # ... and then the job goes on
    rig.run(passes=3, step_s=10)
    assert rig.incidents() == []


def test_the_other_ranks_hang_records_are_waited_for_a_little() -> None:
    rig = JobRig(settings=DEFAULTS)
    rig.submit()
    rig.steps(count=6)
    now = rig.clock.now()
    for rank, node in list(enumerate(rig.on()))[:2]:  # two ranks' watchdogs have fired so far
        rig.scheduler.write("train", node, tele("hang", now, rank, node, idle_s=130.0,
                                                threshold_s=120.0))  # fmt: skip
    rig.run(passes=2, step_s=10)
    assert rig.incidents() == []  # the others' records may be on their way
    rig.run(passes=1, step_s=15)
    verdict = rig.incident(kind="hang").verdict
    assert verdict is not None and verdict.summary.startswith("hung: ")
    assert "watchdog on 2 rank(s)" in verdict.summary
