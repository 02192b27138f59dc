"""`simulate --from-store postgresql://...`: a history the real controllers recorded in
PostgreSQL, replayed through the recorded policies, decides as the engine did."""

from __future__ import annotations

from autorecover.adapters.store.postgres import PostgresStore
from autorecover.adapters.store.sql.jobs import PostgresJobStore
from autorecover.simulation.replaying import replay
from simulation.test_replaying import NODES, check_same, record_history


def test_a_postgres_history_replays_to_the_same_decisions(postgres_url: str) -> None:
    engine, jobs_store = PostgresStore(postgres_url), PostgresJobStore(postgres_url)
    try:
        record_history(engine, jobs_store)
    finally:
        engine.close()
        jobs_store.close()
    check_same(replay(postgres_url, fleet=len(NODES)))
