"""Leadership on PostgreSQL: two replicas with their own connections to one database."""

from __future__ import annotations

import pytest

from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.postgres import PostgresStore
from server.leadership_cases import CASES, run_all


@pytest.mark.parametrize("case", CASES)
def test_postgres_two_replicas_on_one_database(case: str, postgres_url: str) -> None:
    opened: list[PostgresStore] = []

    def open_store() -> EngineStore:
        opened.append(PostgresStore(postgres_url))
        return opened[-1]

    try:
        run_all(open_store, case)
    finally:
        for store in opened:
            store.close()
