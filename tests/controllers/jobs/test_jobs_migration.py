"""Proactive migration in the job controller, on the fakes: a node of a running job warns, the
job is requeued without it right after its next completed checkpoint — recorded before and
after, with its reasons, once, within its budgets, in dry-run only on the record, and the same
after the controller restarts on the store."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from autorecover.adapters.store.sqlite import SqliteJobStore
from autorecover.controllers.jobs.acting import JobHooks
from autorecover.controllers.jobs.records import (
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    Stage,
)
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.failure_domains import Topology
from autorecover.domain.jobs.decisions import Budget
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from controllers.jobs.rig import JobRig

OPT_IN = {"migrate_on_warning": True, "migration_deadline_s": 600.0}


def _warn(rig: JobRig, node: str, key: str = "nvml.thermal_slowdown") -> NodeSignal:
    signal = NodeSignal(
        node, Probe.NVML, key, Blame.HARDWARE, 40, NodeAction.MONITOR, rig.clock.now(),
        text="clocks held down by HwSlowdown for 3 samples",
    )  # fmt: skip
    rig.signals.add(signal)
    return signal


def _migration(rig: JobRig, job: str = "train", attempt: int = 0):  # type: ignore[no-untyped-def]
    return rig.incident(job=job, attempt=attempt, kind="migration")


def test_a_warning_moves_the_job_right_after_its_next_checkpoint() -> None:
    rig = JobRig()
    rig.submit("train", size=4, **OPT_IN)
    step = rig.steps(count=3)  # steps 0-2, no checkpoint yet
    _warn(rig, "n1")
    step = rig.steps(count=3, start=step)  # steps 3-5: nothing to move after yet
    waiting = _migration(rig)
    assert waiting.phase is IncidentPhase.OBSERVED and rig.requeues() == []
    assert waiting.verdict is not None and waiting.verdict.suspect_nodes == ("n1",)
    rig.steps(count=5, start=step, checkpoint_every=10)  # steps 6-10: checkpoint 10 after 9
    [aid] = rig.requeues()
    prov = rig.scheduler.provenance[aid]
    assert prov.why.startswith(
        "proactive migration after checkpoint 10, warning nvml.thermal_slowdown on node n1: "
        "requeue without n1"
    )
    assert prov.incident == "train#0/migration" and "clocks held down" in prov.evidence[0]
    rig.settle()
    rig.resume(loaded=10)
    rig.settle()
    assert "n1" not in rig.on() and rig.scheduler.current("train").index == 1
    incident = _migration(rig)
    assert incident.phase is IncidentPhase.CLOSED and incident.outcome.startswith("recovered")
    assert incident.decided is not None and incident.decided.budget is Budget.PROACTIVE
    stages = {m.stage for m in rig.store.timeline(incident.id)}
    assert {Stage.DETECTED, Stage.DECIDED, Stage.STOPPED, Stage.FIRST_STEP} <= stages
    # Recorded intended before executed, done after, then verified.
    [record] = [r for r in rig.store.actions("train") if r.action.id == aid]
    assert record.status is ActionStatus.DONE
    assert record.verified == "attempt 1 started on n0, n2, n3, n4, avoiding n1"
    history = rig.store.history("train")
    assert history.spent(Budget.PROACTIVE) == 1 and history.excluded(rig.clock.now()) == ("n1",)
    assert [i.kind for i in rig.incidents()] == [IncidentKind.MIGRATION]  # no failure opened


def test_off_by_default_a_warning_changes_nothing() -> None:
    rig = JobRig()
    rig.submit("train", size=4)
    _warn(rig, "n1")
    rig.steps(count=12, checkpoint_every=5)
    assert rig.incidents() == [] and rig.requeues() == []


def test_the_site_policy_turns_it_on_for_every_job() -> None:
    rig = JobRig(policy=JobPolicy(migrate_on_warning=True))
    rig.submit("train", size=4)
    _warn(rig, "n2")
    rig.steps(count=12, checkpoint_every=5)
    assert len(rig.requeues()) == 1


def test_no_checkpoint_within_the_deadline_leaves_the_job_running() -> None:
    rig = JobRig()
    rig.submit("train", size=4, **OPT_IN)
    _warn(rig, "n1")
    rig.steps(count=70)  # 700 s, no checkpoint
    incident = _migration(rig)
    assert incident.phase is IncidentPhase.CLOSED and incident.outcome.startswith("expired:")
    assert "runs on" in incident.outcome and rig.requeues() == []
    rig.steps(count=5, checkpoint_every=2)  # a checkpoint now is too late: nothing more
    assert rig.requeues() == [] and len(rig.incidents()) == 1


def test_a_failure_before_the_checkpoint_is_recovered_as_any_and_requeued_once() -> None:
    rig = JobRig()
    rig.submit("train", size=4, **OPT_IN)
    rig.steps(count=3)
    _warn(rig, "n1")
    rig.steps(count=2)
    rig.xid("n1")
    rig.fail(culprit="n1")
    rig.settle()
    migration, failure = _migration(rig), rig.incident(kind="failure")
    assert migration.phase is IncidentPhase.CLOSED and "attempt 0 ended" in migration.outcome
    assert failure.decided is not None and failure.decided.exclude == ("n1",)
    assert len(rig.requeues()) == 1 and rig.requeues()[0].startswith("train#0/failure")


def test_dry_run_records_what_it_would_do_and_the_job_runs_on() -> None:
    rig = JobRig(dry_run=True)
    rig.submit("train", size=4, **OPT_IN)
    _warn(rig, "n1")
    rig.steps(count=12, checkpoint_every=5)
    incident = _migration(rig)
    assert incident.phase is IncidentPhase.CLOSED and incident.dry_run
    assert incident.outcome.startswith("dry-run: would requeue_excluding: proactive migration")
    assert rig.requeues() == [] and rig.scheduler.current("train").index == 0
    [record] = rig.store.actions("train")
    assert record.status is ActionStatus.WOULD
    rig.xid("n1")
    rig.fail(culprit="n1")  # its failure is still recorded (would-have) as any
    rig.settle()
    assert rig.incident(kind="failure").outcome.startswith("dry-run: would")


def test_the_jobs_budget_is_spent_then_the_job_runs_on() -> None:
    rig = JobRig()
    rig.submit("train", size=4, migration_budget=1, **OPT_IN)
    _warn(rig, "n1")
    rig.steps(count=12, checkpoint_every=5)
    rig.settle()
    rig.resume(loaded=10)
    rig.settle()
    _warn(rig, rig.on()[0])
    rig.steps(count=12, checkpoint_every=5)
    refused = _migration(rig, attempt=1)
    assert refused.phase is IncidentPhase.CLOSED and refused.outcome.startswith("refused:")
    assert len(rig.requeues()) == 1


def test_the_fleets_limit_holds_a_second_job_until_its_deadline() -> None:
    rig = JobRig(policy=JobPolicy(migration_fleet_limit=1, migration_fleet_window_s=3600.0))
    rig.submit("a", size=2, first=0, **OPT_IN)
    rig.submit("b", size=2, first=2, **OPT_IN)
    _warn(rig, "n0")
    _warn(rig, "n2")
    for _ in range(12):
        for job in ("a", "b"):
            rig.steps(job, count=1, checkpoint_every=5, run=False)
        rig.run()
    assert [j for j in ("a", "b") if rig.requeues(j)] == ["a"]
    notes = [e.text for e in rig.store.events("b")]
    assert notes == ["fleet limit: 1 proactive migrations in the window (limit 1); waiting"]
    rig.steps("b", count=60, checkpoint_every=5)  # checkpoints go on, the limit holds
    b = _migration(rig, job="b")
    assert b.outcome.startswith("expired:") and "fleet's migration limit" in b.outcome
    assert rig.requeues("b") == []


class CrashError(Exception):
    """The controller process dies here."""


@pytest.mark.parametrize("point", ["before", "after"])
def test_a_crash_around_the_requeue_converges_on_one(point: str, tmp_path: Path) -> None:
    seen: list[str] = []

    def crash(where: str):  # type: ignore[no-untyped-def]
        def fire(action: JobAction) -> None:
            if where == point and not seen:
                seen.append(action.id)
                raise CrashError(action.id)

        return fire

    hooks = JobHooks(before_execute=crash("before"), after_execute=crash("after"))
    rig = JobRig(store=SqliteJobStore(tmp_path / "state.db"), hooks=hooks)
    rig.submit("train", size=4, **OPT_IN)
    _warn(rig, "n1")
    with pytest.raises(CrashError):
        rig.steps(count=12, checkpoint_every=5)
    assert seen == ["train#0/migration/requeue_excluding"]
    recorded = {r.action.id: r.status for r in rig.store.actions("train")}
    assert recorded[seen[0]] is ActionStatus.INTENDED  # recorded before it was executed
    rig.restart(store=SqliteJobStore(tmp_path / "state.db"), hooks=JobHooks())
    rig.settle()
    rig.resume(loaded=10)
    rig.settle()
    assert Counter(kind for kind, _, _ in rig.scheduler.log) == {"requeue": 1}
    assert _migration(rig).phase is IncidentPhase.CLOSED and "n1" not in rig.on()
    assert rig.store.history("train").spent(Budget.PROACTIVE) == 1


def test_a_restart_while_waiting_picks_the_warning_up_from_the_store(tmp_path: Path) -> None:
    rig = JobRig(store=SqliteJobStore(tmp_path / "state.db"))
    rig.submit("train", size=4, **OPT_IN)
    step = rig.steps(count=2)
    warned = _warn(rig, "n3")
    step = rig.steps(count=3, start=step)
    assert _migration(rig).phase is IncidentPhase.OBSERVED
    rig.restart(store=SqliteJobStore(tmp_path / "state.db"))
    rig.steps(count=6, start=step, checkpoint_every=10)
    [aid] = rig.requeues()
    assert "warning nvml.thermal_slowdown on node n3" in rig.scheduler.provenance[aid].why
    assert warned.at.isoformat() in rig.scheduler.provenance[aid].evidence[0]
    # Only one migration per attempt, and none reopened by the restart.
    assert [i.id for i in rig.incidents()] == ["train#0/migration"]


def test_a_warning_long_before_the_deadline_of_a_late_checkpoint_is_measured_from_the_signal(
    tmp_path: Path,
) -> None:
    """The deadline runs from the warning's own time: a restarted controller that finds the
    incident again judges by the signal, not by when it looked."""
    rig = JobRig(store=SqliteJobStore(tmp_path / "state.db"))
    rig.submit("train", size=4, **OPT_IN)
    _warn(rig, "n1")
    rig.steps(count=2)
    rig.restart(store=SqliteJobStore(tmp_path / "state.db"))
    rig.clock.advance(timedelta(seconds=650).total_seconds())
    rig.steps(count=1, checkpoint_every=1)
    assert _migration(rig).outcome.startswith("expired:") and rig.requeues() == []
    assert JobActionKind.REQUEUE_EXCLUDING not in {r.action.kind for r in rig.store.actions()}


def test_a_job_placed_by_whole_cliques_leaves_the_warned_nodes_clique() -> None:
    cliques = Topology.from_labels({f"n{i}": {"nvlink": f"cu.{i // 4}"} for i in range(8)})
    rig = JobRig(topology=cliques)
    rig.submit("train", size=4, whole_cliques=True, **OPT_IN)  # all of cu.0: no spare
    _warn(rig, "n1")
    rig.steps(count=12, checkpoint_every=5)
    [aid] = rig.requeues()
    assert rig.scheduler.provenance[aid].why.endswith(
        "(n1: no spare in clique cu.0: the job avoids all 4 of its nodes)"
    )
    rig.settle()
    assert rig.on() == ("n4", "n5", "n6", "n7")
