"""The order book's store contract (tests/adapters/store/test_order_store.py) — placing once
per id, live orders oldest first, atomic idempotent reports, expiry, attachments — run on
memory, SQLite and a real PostgreSQL: the very same test functions, with this tier's `store`."""

from __future__ import annotations

from integration.postgres.contracts import contract_tests

CONTRACT = contract_tests("test_order_store.py")
globals().update(CONTRACT)


def test_postgres_agent_actions_runs_every_order_store_contract_test() -> None:
    assert len(CONTRACT) >= 5
