"""The order book's store contract (tests/adapters/store/test_order_store.py) — placing once
per id, live orders oldest first, atomic idempotent reports, expiry, attachments — run on
memory, SQLite and a real PostgreSQL: the very same test functions, with this tier's `store`."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

_CONTRACT = Path(__file__).parents[2] / "adapters" / "store" / "test_order_store.py"


def _contract_tests() -> dict[str, object]:
    spec = importlib.util.spec_from_file_location("order_store_contract", _CONTRACT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {
        name: fn
        for name, fn in vars(module).items()
        if name.startswith("test_") and "store" in inspect.signature(fn).parameters
    }


CONTRACT = _contract_tests()
globals().update(CONTRACT)


def test_postgres_agent_actions_runs_every_order_store_contract_test() -> None:
    assert len(CONTRACT) >= 5
