"""The runner: passes on their intervals, a failed pass rebuilds from the store, shutdown."""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.fakes.cluster import FakeClock, FakeScheduler
from autorecover.adapters.store.base import Fence
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.server.hosting import Service
from autorecover.server.leadership import DbLeadership
from autorecover.server.metrics import EngineMetrics
from autorecover.server.runner import ControllerLoop, Runner
from server.support import Fleet, document, xid79


class Counting:
    """A hosted controller that counts its passes and fails when told."""

    def __init__(self, log: list[str], fail: set[str]) -> None:
        self.log, self.fail = log, fail

    def _run(self, name: str) -> None:
        self.log.append(name)
        if name in self.fail:
            self.fail.discard(name)
            raise RuntimeError(f"{name} broke")

    def start(self) -> None:
        self._run("start")

    def intake(self) -> int:
        self._run("intake")
        return 0

    def tick(self) -> None:
        self._run("tick")

    def reconcile(self) -> None:
        self._run("reconcile")


def _loop(fail: set[str]) -> tuple[ControllerLoop, DbLeadership, FakeClock, list[str], list[int]]:
    clock = FakeClock()
    lead = DbLeadership(MemoryEngineStore(), clock, "a", ttl_s=60)
    log: list[str] = []
    builds: list[int] = []

    def build(fence: Fence) -> Counting:
        builds.append(fence.term)
        return Counting(log, fail)

    service = Service("counting", build, tick_s=10, reconcile_s=30, intake_s=1)
    return (
        ControllerLoop(service, lead, clock, EngineMetrics(), retry_s=5),
        lead,
        clock,
        log,
        builds,
    )


def test_passes_run_on_their_intervals_and_only_while_leading() -> None:
    loop, lead, clock, log, builds = _loop(set())
    loop.step()
    assert log == [] and builds == []  # no lease yet: standing by
    lead.renew()
    loop.step()
    assert log == ["start", "intake", "tick"]
    clock.advance(1)
    loop.step()
    assert log[3:] == ["intake"]
    clock.advance(30)
    loop.step()
    assert log[4:] == ["intake", "tick", "reconcile"]
    assert builds == [1]


def test_a_failed_pass_drops_the_controller_and_a_fresh_one_is_built_later() -> None:
    loop, lead, clock, log, builds = _loop({"tick"})
    lead.renew()
    loop.step()
    assert log == ["start", "intake", "tick"] and loop.hosted is None and loop.failures == 1
    clock.advance(4)
    loop.step()
    assert builds == [1]  # waits retry_s before rebuilding
    clock.advance(1)
    loop.step()
    assert builds == [1, 1] and log[3:] == ["start", "intake", "tick"]
    assert loop.hosted is not None


def test_a_failed_hardware_pass_rebuilds_from_the_store_and_converges(tmp_path: Path) -> None:
    fleet = Fleet()
    scheduler = fleet.cluster.scheduler  # type: ignore[union-attr]
    assert isinstance(scheduler, FakeScheduler)
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    scheduler.failures[("taint", "n1")] = OSError("apiserver away")  # not a port error: a bug
    replica.client.post(
        "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    )
    fleet.advance(1, replica)
    loop = replica.engine.loops[0]
    assert loop.failures == 1 and loop.hosted is None
    assert replica.engine.store.waiting() == 0  # recorded before the failing execution
    del scheduler.failures[("taint", "n1")]
    fleet.advance(5, replica)  # rebuilt from the store: it finishes what was recorded
    assert loop.hosted is not None
    statuses = {a.action.id: a.status.value for a in replica.engine.store.actions("n1")}
    assert statuses.items() >= {
        "n1/1/cordon": "done", "n1/1/taint": "done", "n1/1/drain": "done",
    }.items()  # fmt: skip
    assert all(n == 1 for n in scheduler.effects.values())
    assert 'autorecover_pass_failures_total{controller="hardware",pass="intake"} 1.0' in (
        replica.client.get("/metrics").text
    )


def test_runner_threads_start_and_stop_and_give_the_lease_up() -> None:
    store = MemoryEngineStore()
    clock = FakeClock()
    lead = DbLeadership(store, clock, "a", ttl_s=60)
    log: list[str] = []
    service = Service("counting", lambda fence: Counting(log, set()), 10, 30, 1)
    runner = Runner(lead, [ControllerLoop(service, lead, clock, EngineMetrics())], poll_s=0.01)
    runner.start()
    assert lead.fence() is not None
    runner.stop()
    lease = store.lease("autorecover-engine")
    assert lease is not None and lease.expires_at < clock.now()  # released: free at once
