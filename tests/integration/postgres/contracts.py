"""A store contract's test functions (a module under tests/adapters/store/), loaded so this
tier runs the very same functions with its own `store` fixture on a real PostgreSQL."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

_STORE_TESTS = Path(__file__).parents[2] / "adapters" / "store"


def contract_tests(module_file: str) -> dict[str, object]:
    """The `test_*` functions of `tests/adapters/store/<module_file>` that take a `store`."""
    spec = importlib.util.spec_from_file_location(
        f"{Path(module_file).stem}_contract", _STORE_TESTS / module_file
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {
        name: fn
        for name, fn in vars(module).items()
        if name.startswith("test_") and "store" in inspect.signature(fn).parameters
    }
