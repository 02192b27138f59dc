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
