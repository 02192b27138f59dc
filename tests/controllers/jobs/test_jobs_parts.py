"""The job controller's parts on their own: node signals as findings, hang findings, reading
output incrementally, the requeue check, and the timeline's arithmetic."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autorecover.controllers.jobs.acting import verify
from autorecover.controllers.jobs.evidence import hang_findings, job_record, signal_findings
from autorecover.controllers.jobs.incidents import action_id, incident_id, retry_of
from autorecover.controllers.jobs.records import (
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobPhase,
    JobStatus,
    PhaseError,
    Stage,
    TimelineMark,
    WatchedJob,
    check_phase,
    phase_mermaid,
)
from autorecover.controllers.jobs.timelines import breakdown, lost_work
from autorecover.controllers.jobs.watching import MAX_PER_SIGNAL, AttemptWatch
from autorecover.domain.attribution import attribute
from autorecover.domain.jobs.health import Assessment, Condition
from autorecover.domain.records import Blame, Cause, NodeAction, Source
from autorecover.domain.signals import NodeSignal, Probe
from controllers.jobs.rig import NCCL_TIMEOUT, SCANNER, WORKER_RESTART, tele

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
DOC = Path(__file__).resolve().parents[3] / "docs" / "job-recovery.md"


def _signal(
    node: str, probe: Probe = Probe.KERNEL, key: str = "xid.48", **kw: object
) -> NodeSignal:
    return NodeSignal(
        node, probe, key, Blame.HARDWARE, 90, NodeAction.RESET_GPU, T0, text="NVRM: Xid 48", **kw
    )  # type: ignore[arg-type]


# --- node signals as findings --------------------------------------------------------------


def test_node_signals_become_system_findings_with_their_blame_and_weight() -> None:
    [f] = signal_findings([_signal("n1", component="0000:3b:00.0", count=7)])
    assert (f.signal, f.node, f.source, f.blame, f.weight) == (
        "xid.48", "n1", Source.SYSTEM, Blame.HARDWARE, 90,
    )  # fmt: skip
    assert (f.node_action, f.at, f.text) == (NodeAction.RESET_GPU, T0, "NVRM: Xid 48")
    assert f.detail("probe") == "kernel" and f.detail("component") == "0000:3b:00.0"
    assert f.detail("count") == "7"


def test_job_recoverys_own_signals_are_no_evidence() -> None:
    assert signal_findings([_signal("n1", Probe.JOB)]) == []


def test_an_agent_signal_decides_like_a_kernel_log_line_would() -> None:
    status = JobStatus(
        "j", JobPhase.FAILED, "FAILED", 0, ("n1", "n2"), T0, T0 + timedelta(minutes=5)
    )
    record = job_record(WatchedJob(status), T0 + timedelta(minutes=6), running=False)
    verdict = attribute(record, signal_findings([_signal("n2")]), [], {})
    assert (verdict.cause, verdict.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_a_hang_that_stopped_on_some_nodes_first_names_them() -> None:
    seen = Assessment(Condition.HUNG, "no progress for 900 s", ("n3",), since=T0)
    [f] = hang_findings(seen)
    assert (f.signal, f.node, f.blame, f.weight, f.at) == (
        "job.progress_stopped", "n3", Blame.HARDWARE, 60, T0,
    )  # fmt: skip
    assert hang_findings(Assessment(Condition.HUNG, "all at once")) == []
    assert hang_findings(Assessment(Condition.HEALTHY, "fine", ("n3",))) == []


# --- reading output -------------------------------------------------------------------------


class _Output:
    """A port that only serves output, counting what it was asked."""

    def __init__(self) -> None:
        self.files: dict[str, bytearray] = {}
        self.reads: list[tuple[str, int]] = []

    def write(self, node: str, text: str) -> None:
        self.files.setdefault(node, bytearray()).extend(text.encode())

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        self.reads.append((node, offset))
        return bytes(self.files.get(node, b"")[offset : offset + limit])


def _watch() -> AttemptWatch:
    return AttemptWatch("j", 0, T0, SCANNER)


def test_each_read_takes_only_new_bytes_and_numbers_lines_in_the_whole_file() -> None:
    out, watch = _Output(), _watch()
    out.write("n1", "starting\nstep 1\n")
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    out.write("n1", NCCL_TIMEOUT.format(rank=3) + "\n")
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert out.reads == [("n1", 0), ("n1", 16)]
    [f] = watch.findings()
    assert (f.signal, f.line) == ("nccl.watchdog_timeout", 3)
    [activity] = watch.activity(["n1"])
    assert activity.lines == 3 and activity.present


def test_an_unfinished_line_waits_for_its_end_unless_the_attempt_is_over() -> None:
    out, watch = _Output(), _watch()
    out.write("n1", "RuntimeError: CUDA error: uncorrectable ECC err")
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert watch.findings() == []
    out.write("n1", "or encountered\n")
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert [f.signal for f in watch.findings()] == ["cuda.ecc_uncorrectable"]
    out.write("n2", "torch.OutOfMemoryError: CUDA out of memory.")  # no newline: it died there
    watch.read(out, ["n2"], final=True)  # type: ignore[arg-type]
    assert "cuda.oom" in [f.signal for f in watch.findings()]


def test_a_pdsh_line_naming_another_node_of_the_attempt_says_where_it_ran() -> None:
    """DeepSpeed's pdsh launcher prints every node's lines on the launching node after
    `<host>: `: the nodes being read are the job's, so `n2: RuntimeError: ...` ran on n2."""
    out, watch = _Output(), _watch()
    out.write("n1", "n2: RuntimeError: CUDA error: uncorrectable ECC error encountered\n")
    watch.read(out, ["n1", "n2"], final=True)  # type: ignore[arg-type]
    [f] = watch.findings()
    assert (f.signal, f.node, f.detail("via")) == ("cuda.ecc_uncorrectable", "n1", "n2")


def test_a_storm_keeps_a_bounded_number_of_findings() -> None:
    out, watch = _Output(), _watch()
    for i in range(5):
        out.write("n1", (NCCL_TIMEOUT.format(rank=i) + "\n") * 20)
        watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    found = watch.findings()
    assert len(found) == MAX_PER_SIGNAL + 1 and found[-1].line == 100


def test_telemetry_feeds_progress_checkpoints_and_the_recovery_marks() -> None:
    out, watch = _Output(), _watch()
    out.write("n1", tele("init", T0, 0, "n1"))
    out.write("n1", tele("span_end", T0, 0, "n1", name="checkpoint_load", iteration=40, ok=True))
    for i in range(3):
        at = T0 + timedelta(seconds=10 * (i + 1))
        out.write("n1", tele("step", at, 0, "n1", step=40 + i, step_time_s=2.0))
        out.write("n1", tele("summary", at, 0, "n1", step=40 + i, steps_per_s=0.5,
                             forward_mean_s=0.4, backward_mean_s=0.6))  # fmt: skip
    out.write("n1", tele("span_end", T0, 0, "n1", name="checkpoint_save", iteration=42, ok=False))
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    reports = watch.progress.reports[0]
    assert [r.step for r in reports] == [40, 41, 42]  # a summary enriches its step's report
    assert reports[-1].steps_per_s == 0.5 and reports[-1].compute_s == pytest.approx(1.0)
    assert (watch.loaded, watch.checkpoint) == (40, None)  # a failed save is no checkpoint
    assert watch.first_record_at == T0 and watch.checkpoint_loaded_at == T0
    assert watch.first_step_at == T0 + timedelta(seconds=10)
    assert (watch.last_step, watch.step_time_s) == (42, 2.0)


def test_a_checkpoint_is_complete_once_every_rank_has_saved_or_passed_it() -> None:
    """Rank 0 saves iteration 39 while rank 1, started late, has reported step 12 and saved
    nothing: it may yet save 39, so nothing is complete. Once rank 1 saves 39, or reports a
    step past it without saving (rank 0 alone saves under DDP), 39 is complete."""
    at = T0 + timedelta(seconds=30)

    def ranks(rank1: list[str]) -> AttemptWatch:
        out, watch = _Output(), _watch()
        out.write("n1", tele("step", T0, 0, "n1", step=39))
        out.write("n1", tele("span_end", at, 0, "n1", name="checkpoint_save", iteration=39))
        out.write("n2", tele("step", T0, 1, "n2", step=12))
        for line in rank1:
            out.write("n2", line)
        watch.read(out, ["n1", "n2"], final=False)  # type: ignore[arg-type]
        return watch

    def completed(watch: AttemptWatch) -> tuple[int, datetime] | None:
        c = watch.completed
        return None if c is None else (c.iteration, c.at)

    assert completed(ranks([])) is None
    later = T0 + timedelta(seconds=40)
    saved = ranks([tele("span_end", later, 1, "n2", name="checkpoint_save", iteration=39)])
    assert completed(saved) == (39, later)
    assert completed(ranks([tele("step", later, 1, "n2", step=40)])) == (39, at)
    behind = ranks([tele("span_end", at, 1, "n2", name="checkpoint_save", iteration=19)])
    assert completed(behind) == (19, at)


def test_an_in_job_restart_forgets_what_came_before_it() -> None:
    out, watch = _Output(), _watch()
    for i in range(3):
        out.write("n1", tele("step", T0 + timedelta(seconds=i), 0, "n1", step=i))
    out.write(
        "n1", "RuntimeError: NCCL error in: x.cpp:1, unhandled system error, NCCL version 2\n"
    )
    out.write("n1", WORKER_RESTART + "\n")
    out.write("n1", tele("step", T0 + timedelta(seconds=60), 0, "n1", step=2))
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert watch.findings() == [] and watch.restarts == 1
    assert [r.step for r in watch.progress.reports[0]] == [2]


# --- the requeue check ----------------------------------------------------------------------


def _requeue(exclude: tuple[str, ...] = ("n2",)) -> JobAction:
    return JobAction("a", "j", JobActionKind.REQUEUE_EXCLUDING, T0, "t", "w", exclude=exclude)


def _status(
    attempt: int, phase: JobPhase, nodes: tuple[str, ...], excl: tuple[str, ...]
) -> JobStatus:
    started = T0 if phase is not JobPhase.PENDING else None
    return JobStatus("j", phase, str(phase), attempt, nodes, started, exclusions=excl)


@pytest.mark.parametrize(
    ("status", "ok", "says"),
    [
        (None, False, "no longer lists"),
        (_status(0, JobPhase.RUNNING, ("n1", "n2"), ()), None, "not restarted yet"),
        (_status(1, JobPhase.PENDING, (), ("n2",)), None, "queued"),
        (_status(1, JobPhase.PENDING, (), ()), False, "does not carry the exclusion of n2"),
        (_status(1, JobPhase.RUNNING, ("n1", "n2"), ("n2",)), False, "runs on excluded node(s) n2"),
        (_status(1, JobPhase.RUNNING, ("n1", "n3"), ("n2",)), True, "avoiding n2"),
        (_status(2, JobPhase.FAILED, ("n1", "n3"), ("n2", "n9")), True, "started on n1, n3"),
    ],
)
def test_a_requeue_is_verified_from_what_the_scheduler_reports(
    status: JobStatus | None, ok: bool | None, says: str
) -> None:
    check = verify(status, _requeue())
    assert check.ok is ok and says in check.detail


def test_ids_are_deterministic() -> None:
    iid = incident_id("j", 3, IncidentKind.FAILURE)
    assert iid == "j#3/failure"
    assert incident_id("j", 3, IncidentKind.STRAGGLER, 2) == "j#3/straggler/2"
    assert action_id(iid, JobActionKind.REQUEUE) == "j#3/failure/requeue"
    assert retry_of(action_id(iid, JobActionKind.REQUEUE, 2)) == 2
    assert retry_of("j#3/failure/requeue") == 0


# --- the timeline ------------------------------------------------------------------------------


def test_the_breakdown_of_a_recovery() -> None:
    at = {
        Stage.FAILED: 0, Stage.DETECTED: 2, Stage.DECIDED: 2.5, Stage.STOPPED: 3,
        Stage.RESCHEDULED: 13, Stage.STARTED: 20, Stage.CHECKPOINT_LOADED: 35,
        Stage.FIRST_STEP: 37,
    }  # fmt: skip
    marks = [TimelineMark("i", s, T0 + timedelta(seconds=v)) for s, v in at.items()]
    marks.append(TimelineMark("i", Stage.LOST_WORK, T0, 120.0, "60 steps x 2 s/step"))
    parts = breakdown(marks)
    assert parts.as_dict() == {
        "detect_s": 2.0, "decide_s": 0.5, "stop_s": 0.5, "reschedule_s": 10.0, "start_s": 7.0,
        "checkpoint_load_s": 15.0, "first_step_s": 2.0, "engine_s": 3.0, "total_s": 37.0,
        "lost_work_s": 120.0,
    }  # fmt: skip
    partial = breakdown(marks[:3])
    assert partial.detect_s == 2.0 and partial.stop_s is None and partial.total_s is None


def test_lost_work_is_steps_since_the_checkpoint_times_the_step_time() -> None:
    assert lost_work(149, 100, 2.0) == (98.0, "49 steps since checkpoint 100 x 2 s/step")
    assert lost_work(100, 100, 2.0) == (0.0, "0 steps since checkpoint 100 x 2 s/step")
    assert lost_work(9, None, 1.0) == (10.0, "10 steps since the start (no checkpoint) x 1 s/step")
    assert lost_work(None, 100, 2.0) is None and lost_work(5, 0, None) is None


# --- the incident phases -----------------------------------------------------------------------


def test_incident_phases_move_only_along_the_table() -> None:
    check_phase(None, IncidentPhase.ACTING)
    check_phase(IncidentPhase.VERIFYING, IncidentPhase.VERIFYING)  # staying is no move
    for frm, to in [
        (IncidentPhase.CLOSED, IncidentPhase.ACTING),
        (IncidentPhase.OBSERVED, IncidentPhase.VERIFYING),
        (None, IncidentPhase.FAILED),
    ]:
        with pytest.raises(PhaseError):
            check_phase(frm, to)


def test_the_diagram_in_the_docs_is_generated_from_the_table() -> None:
    doc = DOC.read_text(encoding="utf-8")
    found = re.search(
        r"<!-- incident-phases:begin -->\n```mermaid\n(.*?)```\n<!-- incident-phases:end -->",
        doc,
        re.S,
    )
    assert found, f"{DOC} lacks the incident-phases block"
    expected = phase_mermaid()
    assert found.group(1) == expected, (
        "docs/job-recovery.md's diagram differs from controllers/jobs/records.py; replace the "
        f"block with:\n```mermaid\n{expected}```"
    )


def test_nv_one_logger_metrics_and_checkpoints_count_as_progress() -> None:
    """nv-one-logger's LoggerExporter lines (keys reverse-sorted, values JSON): its
    `training_metrics_update` is progress, `save_checkpoint_success` a completed checkpoint."""
    msec = int(T0.timestamp() * 1000)

    def update(it: int, at: int) -> str:
        return (
            f'[type="event" | span_id="8c1f" | pid=4711 | event.name="training_metrics_update"'
            f" | event.attributes.timestamp_msec={at} | event.attributes.num_iterations={it}"
            f" | event.attributes.current_iteration={it}"
            f" | event.attributes.avg_iteration_time_sec=0.5 | count={it}]"
        )

    saved = (
        '[type="event" | span_id="8c1f" | pid=4711 | event.name="save_checkpoint_success"'
        f" | event.attributes.timestamp_msec={msec + 61_000}"
        " | event.attributes.save_checkpoint_success_count=1"
        ' | event.attributes.current_iteration=120 | event.attributes.checkpoint_strategy="sync"'
        " | count=121]"
    )
    out, watch = _Output(), _watch()
    out.write(
        "n1", "\n".join([update(100, msec + 50_000), update(120, msec + 60_000), saved]) + "\n"
    )
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert watch.last_step == 120 and watch.checkpoint == 120
    assert watch.step_time_s == 0.5
    [report] = watch.progress.reports[0][-1:]
    assert report.step == 120 and report.at == T0 + timedelta(seconds=60)


def test_nv_one_logger_records_take_the_rank_their_process_announced() -> None:
    """nv-one-logger names the rank on its initialization event only; every record carries the
    process id. Two ranks' processes on one node: each one's later progress and saves count
    under its own rank, so a checkpoint rank 1 has not saved is not complete."""
    msec = int(T0.timestamp() * 1000)

    def line(pid: int, name: str, **attributes: int) -> str:
        attrs = " | ".join(f"event.attributes.{k}={v}" for k, v in attributes.items())
        return f'[type="event" | pid={pid} | event.name="{name}" | {attrs} | count=1]\n'

    out, watch = _Output(), _watch()
    for pid, rank in ((4711, 0), (4712, 1)):
        out.write("n1", line(pid, "one_logger_initialization", timestamp_msec=msec, rank=rank))
    out.write("n1", line(4711, "training_metrics_update", timestamp_msec=msec + 9_000,
                         current_iteration=120))  # fmt: skip
    out.write("n1", line(4711, "save_checkpoint_success", timestamp_msec=msec + 10_000,
                         current_iteration=120))  # fmt: skip
    out.write("n1", line(4712, "training_metrics_update", timestamp_msec=msec + 9_000,
                         current_iteration=100))  # fmt: skip
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert {r: rs[-1].step for r, rs in watch.progress.reports.items()} == {0: 120, 1: 100}
    assert set(watch.saves) == {0} and watch.completed is None  # rank 1 is at 100, before 120
    out.write("n1", line(4712, "save_checkpoint_success", timestamp_msec=msec + 12_000,
                         current_iteration=120))  # fmt: skip
    watch.read(out, ["n1"], final=False)  # type: ignore[arg-type]
    assert set(watch.saves) == {0, 1} and watch.completed is not None
    assert watch.completed.iteration == 120


def test_hang_records_keep_each_ranks_latest_stack_until_an_in_job_restart() -> None:
    c10d = "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"

    def hang(rank: int, fn: str, path: str) -> str:
        stack = f'  File "/job/train.py", line 9, in step\n  File "{path}", line 2806, in {fn}\n'
        return json.dumps({"telemetry": "autorecover/1", "ts": "2026-03-02T10:30:00Z",
                           "event": "hang", "rank": rank, "idle_s": 700.0,
                           "threshold_s": 600.0, "stacks": {"MainThread": stack}})  # fmt: skip

    out, watch = _Output(), _watch()
    out.write("n1", hang(0, "all_reduce", c10d) + "\n" + hang(1, "all_reduce", c10d) + "\n")
    out.write("n2", hang(2, "all_reduce", c10d) + "\n" + hang(3, "next_batch", "/job/d.py") + "\n")
    watch.read(out, ["n1", "n2"], final=False)  # type: ignore[arg-type]
    assert sorted(watch.stacks) == [("n1", 0), ("n1", 1), ("n2", 2), ("n2", 3)]
    assert watch.stacks[("n2", 3)].frames[-1].function == "next_batch"
    out.write("n2", WORKER_RESTART + "\n")
    watch.read(out, ["n1", "n2"], final=False)  # type: ignore[arg-type]
    assert watch.stacks == {}  # what came before the restart is gone
