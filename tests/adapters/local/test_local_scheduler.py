"""The local scheduler with real processes: ranks with torchrun's environment, output per node,
a failing rank taking its siblings down, requeue with exclusions and a delay, stop, cordons —
and the job controller recovering the example training script through it."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.local.scheduler import LocalJobSpec, LocalScheduler
from autorecover.adapters.store.memory_jobs import MemoryJobStore, MemorySignals
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.controllers.jobs.records import IncidentKind, IncidentPhase, JobPhase, Stage
from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.jobs.decisions import Budget
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Blame, Cause, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

PY = sys.executable
EXAMPLE = Path(__file__).parents[3] / "examples" / "train_plain.py"
WAIT_S = 20.0
# One write per rank: the node's ranks share its log, and under PYTHONUNBUFFERED a print()
# writes its text and its newline apart, so two ranks' lines could interleave.
SHOW_ENV = (
    "import os; os.write(1, (' '.join(os.environ[k] for k in ('RANK', 'LOCAL_RANK', "
    "'WORLD_SIZE', 'GROUP_RANK', 'NODE_NAME', 'TORCHELASTIC_RUN_ID', "
    "'TORCHELASTIC_RESTART_COUNT')) + '\\n').encode())"
)
SLEEP = "import time; time.sleep(60)"


def _prov(aid: str) -> Provenance:
    return Provenance(aid, "test", "because", datetime(2026, 1, 5, tzinfo=UTC))


def _wait(check: Callable[[], bool], what: str, limit_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Callable[..., LocalScheduler]]:
    made: list[LocalScheduler] = []

    def build(
        nodes: tuple[str, ...] = ("a", "b", "c"), clock: Clock | None = None
    ) -> LocalScheduler:
        s = LocalScheduler(tmp_path, nodes, clock or SystemClock(), kill_grace_s=2.0)
        made.append(s)
        return s

    yield build
    for s in made:
        s.shutdown()


def _phase(s: LocalScheduler, job: str, phase: JobPhase) -> Callable[[], bool]:
    return lambda: s.status(job).phase is phase


def test_ranks_get_torchruns_environment_and_write_per_node(
    make: Callable[..., LocalScheduler],
) -> None:
    s = make()
    job = s.submit(LocalJobSpec("env", (PY, "-c", SHOW_ENV), nodes=2, ranks_per_node=2))
    _wait(_phase(s, job, JobPhase.SUCCEEDED), "the job to complete")
    status = s.status(job)
    assert status.nodes == ("a", "b") and dict(status.exit_codes) == {"a": 0, "b": 0}
    lines = sorted(s.output_path(job, 0, "b").read_text().split("\n")[:-1])
    assert lines == ["2 0 4 1 b env 0", "3 1 4 1 b env 0"]


def test_a_failing_rank_takes_its_siblings_down(make: Callable[..., LocalScheduler]) -> None:
    s = make()
    code = "import os, sys, time; sys.exit(3) if os.environ['RANK'] == '1' else time.sleep(60)"
    job = s.submit(LocalJobSpec("bad", (PY, "-c", code), nodes=2))
    _wait(_phase(s, job, JobPhase.FAILED), "the job to fail")
    status = s.status(job)
    assert status.state == "FAILED" and dict(status.exit_codes) == {"a": 143, "b": 3}


def test_requeue_excludes_nodes_waits_its_delay_and_happens_once(
    make: Callable[..., LocalScheduler],
) -> None:
    clock = FakeClock()
    s = make(("a", "b", "c", "d"), clock)
    job = s.submit(LocalJobSpec("long", (PY, "-c", SLEEP), nodes=2))
    assert s.status(job).nodes == ("a", "b")
    s.requeue(job, ["b"], 30.0, _prov("r1"))
    s.requeue(job, ["b"], 30.0, _prov("r1"))  # again after a crash: nothing more happens
    status = s.status(job)
    assert (status.attempt, status.phase, status.exclusions) == (1, JobPhase.PENDING, ("b",))
    clock.advance(31)
    status = s.status(job)
    assert status.phase is JobPhase.RUNNING and status.nodes == ("a", "c")  # its old node first
    s.stop(job, _prov("s1"))
    s.stop(job, _prov("s1"))
    assert s.status(job).phase is JobPhase.CANCELLED


def test_cordoned_nodes_get_no_new_ranks(make: Callable[..., LocalScheduler]) -> None:
    s = make(("a", "b", "c"))
    s.cordon("a", _prov("c1"))
    s.person_cordon("b", "ops", "cabling")
    job = s.submit(LocalJobSpec("one", (PY, "-c", SLEEP), nodes=1))
    assert s.status(job).nodes == ("c",)
    assert s.observe(["c"])["c"].running_jobs == 1
    assert {n: set(v.cordoned_by) for n, v in s.cordoned().items()} == {
        "a": {"autorecover"}, "b": {"ops"},
    }  # fmt: skip
    s.resume("b", _prov("r-b"))  # a person's cordon is theirs
    s.resume("a", _prov("r-a"))
    assert set(s.cordoned()) == {"b"}


def test_only_jobs_that_opted_in_are_watched(make: Callable[..., LocalScheduler]) -> None:
    s = make()
    s.submit(LocalJobSpec("in", (PY, "-c", "pass"), recover={"user_restarts": 5}))
    s.submit(LocalJobSpec("out", (PY, "-c", "pass"), recover=None))
    [watched] = s.watched()
    assert (watched.job, dict(watched.overrides), watched.scheduler) == (
        "in", {"user_restarts": 5}, "local",
    )  # fmt: skip


def test_output_is_read_from_an_offset(make: Callable[..., LocalScheduler]) -> None:
    s = make()
    job = s.submit(LocalJobSpec("out", (PY, "-c", "print('hello world')")))
    _wait(_phase(s, job, JobPhase.SUCCEEDED), "the job to complete")
    assert s.read_output(job, 0, "a", 6, 5) == b"world"
    assert s.read_output(job, 0, "b", 0, 100) == b"" and s.read_output(job, 7, "a", 0, 9) == b""


def test_the_controller_moves_the_example_off_a_failing_node_and_it_resumes(
    make: Callable[..., LocalScheduler],
) -> None:
    """The example training script, two ranks; the GPU on node b dies at step 25 of attempt 0."""
    clock = SystemClock()
    s = make(("a", "b", "c"), clock)
    # 10 ms a step; attempt 0 on b fails at step 25, once its peer has saved checkpoint 19
    # (under load one rank can start a second after the other: a rank killed before its first
    # save would start the next attempt from scratch, with no checkpoint to load).
    fail_on_b = (
        "import os, pathlib, runpy, sys, time; from autorecover import telemetry; "
        "step = telemetry.Recorder.step; "
        "telemetry.Recorder.step = lambda self, *a, **k: (time.sleep(0.01), step(self, *a, **k)); "
        "first = os.environ['TORCHELASTIC_RESTART_COUNT'] == '0'; "
        "bad = first and os.environ['NODE_NAME'] == 'b'; "
        "mine = pathlib.Path(sys.argv[sys.argv.index('--checkpoint-dir') + 1]); "
        "peer = mine.parent / str(1 - int(os.environ['RANK'])) / 'step_0000019.json'; "
        "wait = lambda: any(peer.exists() or time.sleep(0.05) for _ in range(600)); "
        "slow = telemetry.Recorder.step; "
        "telemetry.Recorder.step = (lambda s, i, *a, **k: (i == 24 and wait(), "
        "slow(s, i, *a, **k))) if bad else slow; "
        "sys.argv = [sys.argv[1], *sys.argv[2:], *(['--fail-at', '25'] if bad else [])]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    argv = (
        PY, "-c", fail_on_b, str(EXAMPLE), "--stand-in", "--steps", "60", "--log-interval", "5",
        "--checkpoint-every", "10", "--checkpoint-dir", "{root}/{job}/ckpt/{rank}",
    )  # fmt: skip
    job = s.submit(LocalJobSpec("train", argv, nodes=2))
    _wait(_phase(s, job, JobPhase.FAILED), "the first attempt to fail")
    signals = MemorySignals()
    signals.add(
        NodeSignal(
            "b", Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, clock.now(),
            text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
        )
    )  # fmt: skip
    store = MemoryJobStore()
    controller = JobRecoveryController(store, s, signals, clock, JobPolicy(), builtin_catalog())

    def recovered() -> bool:
        controller.run_once()
        return bool(store.incidents()) and store.incidents()[0].phase is IncidentPhase.CLOSED

    _wait(recovered, "the job to recover")
    [incident] = store.incidents()
    assert incident.verdict is not None and incident.verdict.cause is Cause.HARDWARE
    assert incident.verdict.suspect_nodes == ("b",)
    status = s.status(job)
    assert status.attempt == 1 and "b" not in status.nodes and status.exclusions == ("b",)
    stages = {m.stage: m for m in store.timeline(incident.id)}
    assert set(stages) == set(Stage)
    # The ranks started a few steps apart; each resumes from its own last checkpoint, whose
    # iteration is the last step it includes (the example saves after steps 9, 19, ...).
    loaded = re.fullmatch(
        r"iteration ([1-5]9) from .*/train/ckpt/\d/step_00000(\d\d)\.json",
        stages[Stage.CHECKPOINT_LOADED].detail,
    )
    assert loaded is not None and loaded[1] == loaded[2], stages[Stage.CHECKPOINT_LOADED].detail
    assert re.match(r"\d+ steps since checkpoint [1-5]9 x ", stages[Stage.LOST_WORK].detail)
    _wait(_phase(s, job, JobPhase.SUCCEEDED), "the second attempt to finish")
    assert "final loss" in s.output_path(job, 1, "c").read_text()


def test_a_warning_moves_the_example_off_its_node_right_after_a_checkpoint(
    make: Callable[..., LocalScheduler],
) -> None:
    """The example training script, two ranks, opted in to proactive migration; node b raises a
    health warning mid-run (clocks held down). The job is requeued without b right after the
    ranks' next checkpoint, and the new attempt resumes from that very checkpoint."""
    clock = SystemClock()
    s = make(("a", "b", "c"), clock)
    # 50 ms a step: 1 s between checkpoints, the whole run ~10 s. At 20 ms a step a loaded CI
    # machine took longer than two checkpoint intervals to stop the ranks once, so they resumed
    # 40 steps after the checkpoint the move waited for.
    slow = (
        "import runpy, sys, time; from autorecover import telemetry; "
        "step = telemetry.Recorder.step; "
        "telemetry.Recorder.step = lambda self, *a, **k: (time.sleep(0.05), step(self, *a, **k)); "
        "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    argv = (
        PY, "-c", slow, str(EXAMPLE), "--stand-in", "--steps", "200", "--log-interval", "5",
        "--checkpoint-every", "20", "--checkpoint-dir", "{root}/{job}/ckpt/{rank}",
    )  # fmt: skip
    job = s.submit(LocalJobSpec("train", argv, nodes=2, recover={"migrate_on_warning": True}))
    store, signals = MemoryJobStore(), MemorySignals()
    controller = JobRecoveryController(store, s, signals, clock, JobPolicy(), builtin_catalog())
    first = s.output_path(job, 0, "b")

    def running() -> bool:
        return first.exists() and b'"step":34,' in first.read_bytes()

    _wait(running, "step 34", 60.0)  # the interpreter and the library take seconds to start
    signals.add(
        NodeSignal(
            "b", Probe.NVML, "nvml.thermal_slowdown", Blame.HARDWARE, 40, NodeAction.MONITOR,
            clock.now(), text="GPU 0: clocks held down (HwSlowdown) for 3 samples",
        )
    )  # fmt: skip

    def moved() -> bool:
        controller.run_once()
        return any(i.phase is IncidentPhase.CLOSED for i in store.incidents())

    _wait(moved, "the job to move and make its first step", 60.0)
    [incident] = store.incidents()
    assert incident.kind is IncidentKind.MIGRATION, incident
    assert incident.outcome == "recovered: attempt 1 made its first step"
    [record] = store.actions(job)
    why = record.action.why
    saved = re.fullmatch(
        r"proactive migration after checkpoint (\d+)9, warning nvml.thermal_slowdown on node b: "
        r"requeue without b \(1 of 2\)",
        why,
    )
    assert saved is not None, why
    status = s.status(job)
    assert status.attempt == 1 and "b" not in status.nodes and status.exclusions == ("b",)
    # Both ranks resume from the checkpoint the move waited for, or one just after it.
    stages = {m.stage: m for m in store.timeline(incident.id)}
    loaded = re.match(r"iteration (\d+) ", stages[Stage.CHECKPOINT_LOADED].detail)
    assert loaded is not None and int(loaded[1]) >= int(saved[1] + "9")
    assert int(loaded[1]) - int(saved[1] + "9") <= 20, stages[Stage.CHECKPOINT_LOADED].detail
    _wait(_phase(s, job, JobPhase.SUCCEEDED), "the second attempt to finish", 60.0)
    assert store.history(job).attempts[-1].budget is Budget.PROACTIVE
