"""Housekeeping: the leader forgets agent signals past the retention, hourly, and keeps
everything decided on them."""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import Changes
from autorecover.server.housekeeping import HostedHousekeeping
from autorecover.server.metrics import EngineMetrics
from server.support import Fleet, document, xid79


def metric(text: str, name: str) -> float:
    [line] = [x for x in text.splitlines() if x.startswith(f"{name} ")]
    return float(line.split()[1])


def test_the_leader_forgets_signals_past_the_retention_and_keeps_the_incident(
    tmp_path: Path,
) -> None:
    fleet = Fleet()
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", retain_signals_days=30)
    replica.step()
    assert (
        replica.client.post(
            "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
        ).status_code
        == 202
    )
    fleet.advance(1, replica)
    [incident] = replica.client.get("/api/v1/incidents").json()
    assert len(replica.client.get("/api/v1/nodes/n1").json()["signals"]) == 1
    fleet.advance(29 * 86400, replica)  # within the retention: kept
    assert len(replica.client.get("/api/v1/nodes/n1").json()["signals"]) == 1
    fleet.advance(2 * 86400, replica)  # past it, at the next hourly pass
    assert replica.client.get("/api/v1/nodes/n1").json()["signals"] == []
    assert metric(replica.client.get("/metrics").text, "autorecover_signals_pruned_total") == 1
    detail = replica.client.get(f"/api/v1/incidents/{incident['id']}").json()
    assert any("Xid" in line for line in detail["evidence"])  # the decision kept its lines


def test_no_retention_keeps_every_signal(tmp_path: Path) -> None:
    fleet = Fleet()
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", retain_signals_days=0)
    assert "housekeeping" not in [loop.service.name for loop in replica.engine.loops]
    with_it = fleet.replica(SqliteStore(tmp_path / "other.db"), "b")  # the default, 30 days
    assert "housekeeping" in [loop.service.name for loop in with_it.engine.loops]


def test_a_pass_goes_batch_by_batch_up_to_its_budget() -> None:
    fleet = Fleet()
    store = MemoryEngineStore()
    for _ in range(7):
        store.commit(Changes(fleet.clock.now(), signals=[xid79("n1", fleet.clock)]))
    fleet.clock.advance(2 * 86400)
    metrics = EngineMetrics()
    keeper = HostedHousekeeping(store, fleet.clock, metrics, 1, batch=2, budget=4)
    keeper.reconcile()
    assert len(store.node_signals("n1")) == 3  # two batches of two: the budget
    keeper.reconcile()
    assert store.node_signals("n1") == []
