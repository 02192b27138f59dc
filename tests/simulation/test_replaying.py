"""`simulate --from-store`: a SQLite store written by the real controllers (with the fakes),
replayed through other policies in dry-run; the engine's file is left as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from autorecover.adapters.fakes.cluster import (
    FakeClock,
    FakeDiagnostics,
    FakeNotifier,
    FakeScheduler,
)
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.cli.main import main
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.simulation.replaying import ReplayError, replay

NODES = [f"n{i}" for i in range(40)]  # the breaker allows two removals an hour
XID79 = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python, GPU has fallen off the bus."


def _signal(clock: FakeClock, node: str, key: str, action: NodeAction) -> NodeSignal:
    return NodeSignal(node, Probe.KERNEL, key, Blame.HARDWARE, 90, action, clock.now(), text=key)


def record_history(engine: Any, jobs_store: Any) -> None:
    """A short run of the real controllers on the fakes, recorded in the given stores: a GPU
    fell off the bus under a job (the job was requeued without the node, the node
    quarantined, repaired and returned), and another node logged a PCIe XID 32 once (watched,
    not acted on)."""
    clock = FakeClock()
    hardware = HardwareController(
        store=engine, scheduler=FakeScheduler(clock, NODES), diagnostics=FakeDiagnostics(clock),
        notifier=FakeNotifier(), clock=clock, policy=load_policy(), fleet_size=len(NODES),
    )  # fmt: skip
    scheduler = FakeJobScheduler(clock, NODES)
    jobs = JobRecoveryController(
        jobs_store, scheduler, jobs_store, clock, JobPolicy(), builtin_catalog()
    )
    scheduler.submit("train", NODES[:4])
    jobs.run_once()
    clock.advance(60)
    hardware.ingest([_signal(clock, "n5", "xid.32", NodeAction.MONITOR),
                     _signal(clock, "n2", "xid.79", NodeAction.REBOOT)])  # fmt: skip
    scheduler.write("train", "n2", XID79 + "\n")
    scheduler.fail("train", {"n2": 1, "n0": 1})
    clock.advance(120)
    jobs.run_once()
    jobs.run_once()
    for _ in range(6):  # the quarantined node goes round the ladder and back, over an hour
        clock.advance(600)
        hardware.tick()


def check_same(doc: dict[str, Any]) -> None:
    """The recorded policies replayed decide as the engine did."""
    hw, jobs = doc["hardware"], doc["jobs"]
    assert hw["recorded_removals"] == 1 and hw["trial_removals"] == 1
    assert hw["only_recorded"] == [] and hw["only_trial"] == []
    assert jobs["incidents"] == 1 and jobs["same"] == 1 and jobs["different"] == []


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """An engine's SQLite store after `record_history`."""
    path = tmp_path / "engine.db"
    engine, jobs_store = SqliteStore(path), SqliteJobStore(path)
    record_history(engine, jobs_store)
    engine.close()
    jobs_store.close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_recorded_policy_replays_to_the_same_decisions(store: Path) -> None:
    check_same(replay(f"sqlite:///{store}", fleet=len(NODES)))


def test_a_stricter_and_a_stingier_policy_show_what_they_would_change(
    store: Path, tmp_path: Path
) -> None:
    hw = tmp_path / "strict.toml"
    hw.write_text('[signal."xid.32"]\nclass = "quarantine"\n')
    job = tmp_path / "stingy.toml"
    job.write_text("[job]\ninfrastructure_restarts = 0\n")
    before = _digest(store)
    result = CliRunner().invoke(
        main, ["simulate", "--from-store", f"sqlite:///{store}", "--hardware-policy", str(hw),
               "--job-policy", str(job), "--fleet-size", "40", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["hardware"]["only_trial"] == ["n5"]  # the PCIe XID 32 node, quarantined now
    assert doc["hardware"]["node_hours_cost_estimate"] > 0
    (different,) = doc["jobs"]["different"]
    assert (different["recorded"], different["trial"]) == ("requeue_excluding", "stop")
    assert doc["jobs"]["gpu_hours_cost_estimate"] > 0
    assert _digest(store) == before  # read from a copy: the engine's file is untouched


def test_a_missing_store_or_a_bad_policy_is_a_clear_error(store: Path, tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such SQLite file"):
        replay(f"sqlite:///{tmp_path / 'nope.db'}")
    bad = tmp_path / "bad.toml"
    bad.write_text("[job]\nuser_restarts = -1\n")
    with pytest.raises(ReplayError, match="user_restarts"):
        replay(f"sqlite:///{store}", job=bad)
    result = CliRunner().invoke(main, ["simulate", "--from-store", "memory://"])
    assert result.exit_code != 0 and "expected sqlite" in result.output
