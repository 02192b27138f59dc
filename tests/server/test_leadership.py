"""Leadership on one SQLite file: only the leader acts; a standby takes over after expiry."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import START, FakeClock
from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.server.leadership import DbLeadership
from server.leadership_cases import CASES, run_all


@pytest.mark.parametrize("case", CASES)
def test_two_replicas_on_one_sqlite_file(case: str, tmp_path: Path) -> None:
    opened: list[SqliteStore] = []

    def open_store() -> EngineStore:
        opened.append(SqliteStore(tmp_path / "engine.db"))
        return opened[-1]

    try:
        run_all(open_store, case)
    finally:
        for store in opened:
            store.close()


def test_a_leader_stops_acting_a_margin_before_its_lease_ends() -> None:
    clock = FakeClock()
    store = MemoryEngineStore()
    lead = DbLeadership(store, clock, "a", ttl_s=15, margin_s=3)
    lead.renew()
    assert lead.fence() is not None and lead.leader() == "a"
    clock.advance(11.9)
    assert lead.fence() is not None
    clock.advance(0.2)  # 12.1 s: within 3 s of the end, and no renewal came
    assert lead.fence() is None
    lead.renew()
    assert lead.fence() is not None and lead.fence().term == 1  # type: ignore[union-attr]


def test_a_store_error_while_renewing_lets_the_lease_run_out() -> None:
    class Broken(MemoryEngineStore):
        def acquire(self, name, holder, now, ttl_s):  # type: ignore[no-untyped-def]
            raise OSError("database away")

    clock = FakeClock(START)
    lead = DbLeadership(Broken(), clock, "a", ttl_s=15)
    lead.renew()  # logged, not raised
    assert lead.fence() is None and lead.leader() is None


@pytest.mark.parametrize("phase_s", [0.0, 0.7, 2.5, 4.9])
def test_a_standby_takes_over_one_ttl_after_the_last_renewal(phase_s: float) -> None:
    """A leader killed right after renewing is replaced within TTL + slack, whatever the
    standby's phase (before: up to TTL + renew_s, ~16-19 s for a 15 s lease)."""
    clock = FakeClock()
    store = MemoryEngineStore()
    lead = DbLeadership(store, clock, "a", ttl_s=15)
    standby = DbLeadership(store, clock, "b", ttl_s=15)
    lead.renew()  # its last renewal: killed now
    killed = clock.now()
    clock.advance(phase_s)
    while True:
        standby.renew()
        if standby.fence() is not None:
            break
        wait = standby.next_renew_s()
        assert 0.05 <= wait <= standby.renew_s
        clock.advance(wait)
    taken_after = (clock.now() - killed).total_seconds()
    assert 15.0 <= taken_after <= 15.0 + 0.1


def test_a_leader_and_a_lone_replica_renew_every_renew_s() -> None:
    clock = FakeClock()
    store = MemoryEngineStore()
    lead = DbLeadership(store, clock, "a", ttl_s=15)
    assert lead.next_renew_s() == lead.renew_s  # nothing seen yet
    lead.renew()
    assert lead.next_renew_s() == lead.renew_s  # its own lease: the usual rhythm
