"""Checkpoint-aware proactive migration, the pure decision: which signals are warnings, when a
job waits, moves, runs on or is refused, and what a move charges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.jobs.decisions import Attempt, Budget, JobHistory, decide_job
from autorecover.domain.jobs.migration import (
    Checkpoint,
    HealthWarning,
    MigrationStep,
    decide_migration,
    fleet_migrations,
    health_warnings,
)
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.jobs.settings import SettingError, parse_settings
from autorecover.domain.records import Action, Blame, Cause, NodeAction, Verdict
from autorecover.domain.signals import NodeSignal, Probe

T0 = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
ON = JobPolicy(migrate_on_warning=True, migration_deadline_s=600.0, migration_budget=2)
WARNING = HealthWarning("n1", "nvml.thermal_slowdown", T0, 40, "clocks held down")


def _signal(
    node: str = "n1",
    key: str = "nvml.thermal_slowdown",
    s: float = 0.0,
    blame: Blame = Blame.HARDWARE,
    action: NodeAction = NodeAction.MONITOR,
    weight: int = 40,
    probe: Probe = Probe.NVML,
) -> NodeSignal:
    return NodeSignal(node, probe, key, blame, weight, action, T0 + timedelta(seconds=s))


def _at(s: float) -> datetime:
    return T0 + timedelta(seconds=s)


def _decide(
    checkpoint: Checkpoint | None, now_s: float, history: JobHistory | None = None, **kw: object
):  # type: ignore[no-untyped-def]
    return decide_migration(
        WARNING, checkpoint, history or JobHistory(), _at(now_s), ON, incident="i", **kw
    )  # type: ignore[arg-type]


def test_warnings_are_hardware_monitor_signals_of_the_jobs_nodes_first_per_node() -> None:
    signals = [
        _signal("n1", s=30),
        _signal("n1", "pcie.link_speed", s=10, weight=30),  # the first on n1
        _signal("n2", "xid.79", s=5, action=NodeAction.REBOOT, weight=95),  # a fault
        _signal("n3", "nccl.timeout", s=5, blame=Blame.TRANSIENT),  # not the node's
        _signal("n4", s=5, probe=Probe.JOB),  # job recovery's own attribution
        _signal("n5", "nvml.ecc_sbe_volatile", s=5, weight=20),  # below the weight
        _signal("n9", s=1),  # not a node of the job
        _signal("n6", "dcgm.health_warning", s=20),
    ]
    found = health_warnings(signals, ("n1", "n2", "n3", "n4", "n5", "n6"), min_weight=30)
    assert [(w.node, w.signal, w.at) for w in found] == [
        ("n1", "pcie.link_speed", _at(10)),
        ("n6", "dcgm.health_warning", _at(20)),
    ]


def test_off_unless_the_policy_asks() -> None:
    d = decide_migration(WARNING, Checkpoint(100, _at(60)), JobHistory(), _at(61), JobPolicy(),
                         incident="i")  # fmt: skip
    assert d.step is MigrationStep.OFF and d.history is None


def test_it_waits_for_a_checkpoint_completed_after_the_warning() -> None:
    assert _decide(None, 60).step is MigrationStep.WAIT
    before = Checkpoint(90, _at(-1))  # completed before the warning: the risk came after it
    assert _decide(before, 60).step is MigrationStep.WAIT


def test_a_checkpoint_after_the_warning_moves_the_job_off_the_node_charged_as_proactive() -> None:
    old = JobHistory((Attempt(_at(-9000), Cause.TRANSIENT, "nccl.timeout", (), 10,
                              Budget.INFRASTRUCTURE, Action.REQUEUE),))  # fmt: skip
    d = _decide(Checkpoint(120, _at(300)), 301, old)
    assert d.step is MigrationStep.MIGRATE and d.exclude == ("n1",)
    assert d.reason.startswith(
        "proactive migration after checkpoint 120, warning nvml.thermal_slowdown on node n1"
    )
    assert d.history is not None
    last = d.history.attempts[-1]
    assert (last.budget, last.action, last.suspects, last.checkpoint, last.root) == (
        Budget.PROACTIVE, Action.REQUEUE_EXCLUDING, ("n1",), 120, "nvml.thermal_slowdown",
    )  # fmt: skip
    assert d.history.spent(Budget.PROACTIVE) == 1 and d.history.spent(Budget.INFRASTRUCTURE) == 1
    assert d.history.excluded(_at(301 + 86_000)) == ("n1",)  # for the policy's exclusion TTL


def test_no_checkpoint_within_the_deadline_lets_the_job_run_on() -> None:
    assert _decide(None, 599).step is MigrationStep.WAIT
    d = _decide(None, 600)
    assert d.step is MigrationStep.EXPIRED and "runs on" in d.reason and d.history is None
    # One that completed only after the deadline is too late as well.
    assert _decide(Checkpoint(200, _at(700)), 701).step is MigrationStep.EXPIRED
    # One within the deadline, seen late (the engine was down), still moves the job.
    assert _decide(Checkpoint(150, _at(500)), 900).step is MigrationStep.MIGRATE


def test_the_jobs_budget_bounds_its_migrations() -> None:
    moved = _decide(Checkpoint(120, _at(300)), 301).history
    assert moved is not None
    again = _decide(Checkpoint(240, _at(400)), 401, moved).history
    assert again is not None and again.spent(Budget.PROACTIVE) == 2
    d = _decide(Checkpoint(360, _at(500)), 501, again)
    assert d.step is MigrationStep.REFUSED and "budget (2) is spent" in d.reason


def test_the_fleets_limit_defers_until_the_deadline() -> None:
    done = Checkpoint(120, _at(300))
    d = _decide(done, 301, fleet_recent=4, fleet_limit=4)
    assert d.step is MigrationStep.WAIT and d.reason.startswith("fleet limit: 4")
    assert _decide(done, 302, fleet_recent=3, fleet_limit=4).step is MigrationStep.MIGRATE
    late = _decide(done, 600, fleet_recent=4, fleet_limit=4)
    assert late.step is MigrationStep.EXPIRED and "fleet's migration limit" in late.reason


def test_the_fleets_count_comes_from_every_jobs_history_within_the_window() -> None:
    def moved(at_s: float) -> Attempt:
        return Attempt(_at(at_s), Cause.HARDWARE, "k", ("n",), 1, Budget.PROACTIVE,
                       Action.REQUEUE_EXCLUDING)  # fmt: skip

    failure = Attempt(_at(0), Cause.HARDWARE, "xid.79", ("n",), 1, Budget.INFRASTRUCTURE,
                      Action.REQUEUE_EXCLUDING)  # fmt: skip
    histories = {
        "a": JobHistory((moved(-4000), moved(-100))),
        "b": JobHistory((failure, moved(-10))),
    }
    assert fleet_migrations(histories, _at(0), 3600.0) == 2


def test_migrations_count_toward_no_crash_loop() -> None:
    """Three proactive moves and two failures within the crash-loop window: the failures are
    judged alone (two of four), the job is requeued, not stopped."""
    policy = JobPolicy(crash_loop_failures=4, crash_loop_window_s=900.0)
    moves = tuple(
        Attempt(_at(i), Cause.HARDWARE, "nvml.thermal_slowdown", (f"n{i}",), 10 * i,
                Budget.PROACTIVE, Action.REQUEUE_EXCLUDING)
        for i in range(3)
    )  # fmt: skip
    one = Attempt(_at(5), Cause.HARDWARE, "xid.79", ("n7",), 40, Budget.INFRASTRUCTURE,
                  Action.REQUEUE_EXCLUDING)  # fmt: skip
    verdict = Verdict(Cause.HARDWARE, ("n8",), Action.REQUEUE_EXCLUDING, ())
    d = decide_job(verdict, JobHistory((*moves, one)), _at(60), policy, incident="x",
                   checkpoint=50)  # fmt: skip
    assert d.action is Action.REQUEUE_EXCLUDING


def test_a_job_opts_in_with_its_settings_but_cannot_set_the_fleets_limit() -> None:
    assert parse_settings(["migrate_on_warning=true", "migration_deadline_s=900"]) == {
        "migrate_on_warning": True,
        "migration_deadline_s": 900.0,
    }
    assert JobPolicy().migrate_on_warning is False
    with pytest.raises(SettingError, match="unknown setting 'migration_fleet_limit'"):
        parse_settings(["migration_fleet_limit=100"])
