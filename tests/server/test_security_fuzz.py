"""A fuzz test of the intake's numbers and sizes (hypothesis): whatever a client sends in
any numeric field or however long it makes a string or list, the answer is 202 or 4xx —
never 5xx — and every batch acknowledged is then recorded by the intake pass on SQLite
(whose integers end at 2**63, like PostgreSQL's): no pass failure, no dead letter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from autorecover.adapters.store.sqlite import SqliteStore
from server.support import Fleet, Replica, document, xid79

EDGES = [0, 1, 100, 101, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**30]
NUMBERS = (
    st.integers()
    | st.sampled_from(EDGES + [-e for e in EDGES])
    | st.integers(min_value=2**62, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["1", "1e3", "NaN", "", "0x10"])
    | st.booleans()
    | st.none()
)


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replica]:
    fleet = Fleet()
    store = SqliteStore(Path(tmp_path_factory.mktemp("fuzz")) / "engine.db", durable=False)
    r = fleet.replica(store, "a", rate_per_s=0, max_waiting=100_000)
    r.step()
    yield r
    store.close()


def post(replica: Replica, body: dict[str, Any]) -> int:
    text = json.dumps(body, allow_nan=True)  # NaN and Infinity as bare tokens, as a client may
    answer = replica.client.post(
        "/api/v1/signals", content=text, headers={"content-type": "application/json"}
    )
    assert answer.status_code < 500, answer.text[:300]
    assert answer.status_code in (202, 413, 422), answer.status_code
    if answer.status_code == 422:
        assert answer.json()["detail"][0]["loc"][0] == "body"  # it names where
    return int(answer.status_code)


def recorded(replica: Replica) -> None:
    """The intake pass records whatever was acknowledged: nothing fails, nothing set aside."""
    replica.engine.step()
    store = replica.engine.store
    assert store.waiting() == 0
    assert [d.error for d in store.dead_letters()] == []
    assert replica.engine.loops[0].failures == 0


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(weight=NUMBERS, count=NUMBERS, dropped=NUMBERS, field=st.sampled_from(["wc", "d", "all"]))
@example(weight=90, count=2**63, dropped=0, field="wc")  # the poison number
@example(weight=90, count=1, dropped=2**63, field="all")
@example(weight=float("nan"), count=float("inf"), dropped=float("-inf"), field="all")
def test_security_fuzz_any_number_in_any_field(
    replica: Replica, weight: Any, count: Any, dropped: Any, field: str
) -> None:
    clock = replica.engine.clock
    body = document("n1", xid79("n1", clock), clock=clock)  # type: ignore[arg-type]
    if field in ("wc", "all"):
        body["signals"][0] |= {"weight": weight, "count": count}
    if field in ("d", "all"):
        body["dropped"] = dropped
    if post(replica, body) == 202:
        recorded(replica)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    text=st.integers(0, 20_000),
    details=st.integers(0, 100),
    value=st.integers(0, 3000),
    signals=st.integers(0, 1200),
    name=st.integers(1, 300),
    char=st.characters(codec="utf-8") | st.sampled_from(["\x00", "\ud800", "\n", "é", "😀"]),
)
@example(text=1_000_000, details=0, value=0, signals=1, name=1, char="x")  # the 1 MB
@example(text=0, details=100_000, value=1, signals=1, name=1, char="x")  # 100k details
@example(text=10, details=0, value=0, signals=1, name=1, char="\x00")  # PostgreSQL's TEXT
def test_security_fuzz_any_size_of_string_and_list(
    replica: Replica, text: int, details: int, value: int, signals: int, name: int, char: str
) -> None:
    clock = replica.engine.clock
    node = "n" + "x" * (name - 1)
    one = xid79(node, clock)  # type: ignore[arg-type]
    body = document(node, *([one] * min(signals, 3)), clock=clock)  # type: ignore[arg-type]
    for s in body["signals"]:
        s["text"] = char * text
        s["details"] = [["k", char * value]] * details
    body["signals"] += body["signals"][:1] * max(0, signals - 3)
    if post(replica, body) == 202:
        recorded(replica)
