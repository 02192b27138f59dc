"""The operator requests' store contract (tests/adapters/store/test_operator_store.py) — the
audit, switches, settling, the live and dry-run breakers — run on memory, SQLite and a real
PostgreSQL: the very same test functions, with this tier's `store` fixture."""

from __future__ import annotations

from integration.postgres.contracts import contract_tests

CONTRACT = contract_tests("test_operator_store.py")
globals().update(CONTRACT)


def test_postgres_runs_every_operator_store_contract_test() -> None:
    assert len(CONTRACT) >= 5
