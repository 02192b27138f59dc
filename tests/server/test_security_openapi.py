"""The OpenAPI document run against the real app (schemathesis, in-process ASGI): every
operation, a bounded number of generated requests each, valid and not — and not one 5xx.

Then the engine's intake pass runs over whatever the fuzzing got acknowledged: anything the
intake accepted must be recordable (no pass failure, no dead letter), on SQLite, whose
integers stop at 2**63 like PostgreSQL's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.server.app import create_app
from autorecover.server.auth import Auth
from server.support import Fleet

EXAMPLES = 60  # per operation: the whole document in well under a minute


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One engine for the whole module (the fuzzing shares it, as clients share a server)."""
    fleet = Fleet()
    store = SqliteStore(Path(tmp_path_factory.mktemp("fuzz")) / "engine.db", durable=False)
    replica = fleet.replica(store, "a", rate_per_s=0, max_waiting=100_000)
    replica.step()  # leads: the retry and read routes see a live engine
    yield replica
    store.close()


def operations(app: Any) -> list[Any]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", list(GenerationMode), ids=str)
def test_security_no_request_the_document_allows_or_not_gets_a_5xx(
    fuzzed: Any, mode: GenerationMode
) -> None:
    # schemathesis's own pytest plugin does not run under pytest 9: drive its strategies.
    ops = operations(create_app(fuzzed.engine, auth=Auth.disabled()))  # bounds, not auth
    assert len(ops) >= 12  # every route, the dead letters' too
    seen: Counter[int] = Counter()
    fuzzed_ops = 0
    for op in ops:

        @given(case=op.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,  # the same requests every run: a failure reproduces
            database=None,
        )
        def call(case: Any) -> None:
            response = case.call()
            seen[response.status_code] += 1
            assert response.status_code < 500, (
                case.method, case.formatted_path, case.body, response.text[:300]
            )  # fmt: skip

        try:
            call()
        except Unsatisfiable:  # nothing to get wrong: a route without parameters or body
            assert mode is GenerationMode.NEGATIVE, op.label
            continue
        fuzzed_ops += 1
    if mode is GenerationMode.POSITIVE:
        assert fuzzed_ops == len(ops) and seen[202] > 0  # batches were accepted
    else:
        assert fuzzed_ops >= 4 and seen[422] > 0  # the intake, the queries, the retry


def test_security_whatever_the_fuzzing_got_acknowledged_can_be_recorded(fuzzed: Any) -> None:
    store = fuzzed.engine.store
    fuzzed.engine.step()  # the intake pass drains the inbox
    assert store.waiting() == 0
    assert [d.error for d in store.dead_letters()] == []
    assert fuzzed.engine.loops[0].failures == 0
