"""The intake no input can stop (issue 12): bounds on every field, no 500 for any number,
body size and rate limits, and dead letters for what a pass cannot record."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import Changes
from autorecover.controllers.ports import TransientError
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.server.limiting import RateLimit, client_of
from autorecover.server.policies import load_policies
from autorecover.server.wiring import build_engine
from server.support import Fleet, Replica, document, rig_client, xid79

POISON = 2**63  # the number: one past SQLite's and PostgreSQL's BIGINT


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    return fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")


def post_raw(replica: Replica, text: str | bytes, **headers: str) -> Any:
    return replica.client.post(
        "/api/v1/signals", content=text, headers={"content-type": "application/json", **headers}
    )


def batch(fleet: Fleet, node: str = "n1", **signal: Any) -> dict[str, Any]:
    body = document(node, xid79(node, fleet.clock), clock=fleet.clock)
    body["signals"][0].update(signal)
    return body


def quarantined(replica: Replica, node: str) -> bool:
    """The node was taken out of service (it may have moved on since)."""
    detail = replica.client.get(f"/api/v1/nodes/{node}").json()
    return "quarantined" in [t["to_state"] for t in detail.get("transitions", [])]


# --- the poison number ---------------------------------------------------------------------


def test_security_a_poison_count_is_refused_never_acknowledged(
    fleet: Fleet, replica: Replica
) -> None:
    replica.step()
    answer = replica.client.post("/api/v1/signals", json=batch(fleet, count=POISON))
    assert answer.status_code == 422
    assert [e["loc"] for e in answer.json()["detail"]] == [["body", "signals", 0, "count"]]
    assert replica.engine.store.waiting() == 0  # never acknowledged, so never stuck
    assert replica.client.post("/api/v1/signals", json=batch(fleet, "n2")).status_code == 202
    fleet.advance(1, replica)
    assert quarantined(replica, "n2") and replica.engine.loops[0].failures == 0


def test_security_a_stored_poison_batch_is_set_aside_and_the_fault_behind_it_is_acted_on(
    fleet: Fleet, replica: Replica
) -> None:
    """A poison batch already in the inbox (written by an older engine, say) no longer makes
    every intake pass fail: it goes to the dead letters, the XID behind it is acted on."""
    store = replica.engine.store
    poison = xid79("n1", fleet.clock, count=POISON)
    store.enqueue("n1", "old", 0, [poison], received_at=fleet.clock.now(), max_waiting=100)
    assert replica.client.post("/api/v1/signals", json=batch(fleet, "n2")).status_code == 202
    replica.step()
    assert quarantined(replica, "n2")
    assert store.waiting() == 0 and replica.engine.loops[0].failures == 0
    [letter] = replica.client.get("/api/v1/dead-letters").json()
    assert (letter["node"], letter["batch"]) == ("n1", 1)
    assert "OverflowError" in letter["error"] and str(POISON) in letter["body"]
    assert "autorecover_dead_letters 1.0" in replica.client.get("/metrics").text


def test_security_one_bad_batch_among_many_is_the_only_one_set_aside(
    fleet: Fleet, replica: Replica
) -> None:
    store = replica.engine.store
    for i in range(9):
        node = f"n{i}"
        signals = [xid79(node, fleet.clock, count=POISON if i == 4 else 1)]
        store.enqueue(node, "a", 0, signals, received_at=fleet.clock.now(), max_waiting=100)
    replica.step()
    nodes = [n["name"] for n in replica.client.get("/api/v1/nodes").json()]
    assert nodes == [f"n{i}" for i in range(9) if i != 4]
    assert all(quarantined(replica, n) for n in nodes)
    assert [d.node for d in store.dead_letters()] == ["n4"] and store.waiting() == 0


def test_security_batch_after_batch_failing_alone_fails_the_pass_after_three(
    fleet: Fleet, replica: Replica
) -> None:
    """When every batch fails on its own, the fault is likely not theirs (a bug, the store):
    a pass sets at most three aside, then fails for the runner to count; the rest wait."""
    store = replica.engine.store
    for i in range(8):
        node = f"n{i}"
        signals = [xid79(node, fleet.clock, count=POISON)]
        store.enqueue(node, "a", 0, signals, received_at=fleet.clock.now(), max_waiting=100)
    replica.step()
    assert len(store.dead_letters()) == 3 and store.waiting() == 5
    assert replica.engine.loops[0].failures == 1


def test_security_an_unreadable_stored_batch_is_set_aside(fleet: Fleet, tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "engine.db")
    replica = fleet.replica(store, "a")
    store.enqueue("n1", "a", 0, [], received_at=fleet.clock.now(), max_waiting=10)
    store._rows("UPDATE inbox SET body = '{not json'")  # a hand-edited row
    replica.step()
    [letter] = store.dead_letters()
    assert letter.body == "{not json" and "cannot read the stored batch" in letter.error


class PickyStore(MemoryEngineStore):
    """The memory store refusing to record a signal whose text says `poison` (as SQLite
    refuses 2**63): dead letters must work the same on every store."""

    def commit_pass(
        self,
        changes: Changes | None,
        *,
        now: datetime,
        fence: Fence | None = None,
        consumed: Sequence[int] = (),
    ) -> None:
        if changes is not None and any(s.text == "poison" for s in changes.signals):
            raise ValueError("cannot store this signal")
        super().commit_pass(changes, now=now, fence=fence, consumed=consumed)


def test_security_a_dead_letter_is_retried_by_an_operator_onto_the_inbox(fleet: Fleet) -> None:
    store = PickyStore()
    replica = fleet.replica(store, "a")
    signal = replace(xid79("n1", fleet.clock), text="poison")
    store.enqueue("n1", "a", 0, [signal], received_at=fleet.clock.now(), max_waiting=10)
    replica.step()
    [letter] = replica.client.get("/api/v1/dead-letters").json()
    assert letter["error"] == "ValueError: cannot store this signal"
    refused = replica.client.post(f"/api/v1/dead-letters/{letter['id']}/retry", json={})
    assert refused.status_code == 422  # an operator says why
    retry = replica.client.post(
        f"/api/v1/dead-letters/{letter['id']}/retry", json={"why": "store fixed"}
    )
    assert retry.status_code == 202 and store.waiting() == 1
    assert retry.json() == {"batch": 2}
    assert replica.client.get("/api/v1/dead-letters").json() == []
    assert [e.text for e in store.events("n1")] == ["dead letter 1 retried: store fixed"]
    fleet.advance(1, replica)  # still poison: set aside again, nothing else blocked
    assert [d.id for d in store.dead_letters()] == [2]
    missing = replica.client.post("/api/v1/dead-letters/99/retry", json={"why": "x"})
    assert missing.status_code == 404


# --- bounds on every field -----------------------------------------------------------------

NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e400", str(POISON), str(2**64), "-1"]


@pytest.mark.parametrize("value", NON_FINITE)
@pytest.mark.parametrize("field", ["weight", "count"])
def test_security_no_number_in_a_signal_gets_a_500(
    fleet: Fleet, replica: Replica, field: str, value: str
) -> None:
    body = batch(fleet)
    body["signals"][0][field] = "@@"
    answer = post_raw(replica, json.dumps(body).replace('"@@"', value))
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == ["body", "signals", 0, field]
    assert replica.engine.store.waiting() == 0


@pytest.mark.parametrize("value", NON_FINITE)
def test_security_no_number_in_a_batch_gets_a_500(
    fleet: Fleet, replica: Replica, value: str
) -> None:
    body = batch(fleet) | {"dropped": "@@"}
    answer = post_raw(replica, json.dumps(body).replace('"@@"', value))
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "dropped"]


@pytest.mark.parametrize("value", ["NaN", "1e400", str(POISON), "0", "-5"])
def test_security_no_number_in_a_query_gets_a_500(replica: Replica, value: str) -> None:
    answer = replica.client.get(f"/api/v1/actions?limit={value}")
    assert answer.status_code == 422
    assert replica.client.get(f"/api/v1/dead-letters?limit={value}").status_code == 422


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"text": "x" * 1_000_000}, ["body", "signals", 0, "text"]),
        ({"text": "NVRM: Xid\x00 79"}, ["body", "signals", 0, "text"]),
        ({"text": "\ud800"}, ["body", "signals", 0, "text"]),
        ({"signal": "xid 79"}, ["body", "signals", 0, "signal"]),
        ({"signal": "x" * 201}, ["body", "signals", 0, "signal"]),
        ({"component": "gpu\n0"}, ["body", "signals", 0, "component"]),
        ({"incident": "i" * 201}, ["body", "signals", 0, "incident"]),
        ({"details": [["k", "v"]] * 100_000}, ["body", "signals", 0, "details"]),
        ({"details": [["k", "v" * 2000]]}, ["body", "signals", 0, "details", 0, 1]),
        ({"details": [["", "v"]]}, ["body", "signals", 0, "details", 0, 0]),
        ({"at": "0001-01-01T00:00:00+00:00"}, ["body", "signals", 0, "at"]),
        ({"at": "9999-12-31T23:59:59+00:00"}, ["body", "signals", 0, "at"]),
        ({"at": "9999-12-31T23:59:59-23:59"}, ["body", "signals", 0, "at"]),
        ({"at": 0}, ["body", "signals", 0, "at"]),
        ({"at": 1767225600}, ["body", "signals", 0, "at"]),
        ({"at": "2026-01-05T08:00:00"}, ["body", "signals", 0, "at"]),
    ],
)
def test_security_a_string_list_or_time_out_of_bounds_is_refused_naming_the_field(
    fleet: Fleet, replica: Replica, change: dict[str, Any], loc: list[object]
) -> None:
    answer = post_raw(replica, json.dumps(batch(fleet, **change)))  # \ud800 as an escape
    assert answer.status_code == 422, answer.text
    assert [e["loc"] for e in answer.json()["detail"]] == [loc]
    assert "input" not in answer.json()["detail"][0]  # a megabyte is never echoed back
    assert replica.engine.store.waiting() == 0


def test_security_a_signal_from_the_future_is_refused(fleet: Fleet, replica: Replica) -> None:
    at = fleet.clock.now()
    ok = batch(fleet, at=(at + timedelta(minutes=4)).isoformat())
    assert replica.client.post("/api/v1/signals", json=ok).status_code == 202
    late = batch(fleet, at=(at + timedelta(minutes=6)).isoformat())
    answer = replica.client.post("/api/v1/signals", json=late)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "signals", 0, "at"]
    assert "ahead" in answer.json()["detail"][0]["msg"]


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"node": "n1; rm -rf /"}, ["body", "node"]),
        ({"node": "x" * 254}, ["body", "node"]),
        ({"agent": "a" * 101}, ["body", "agent"]),
        ({"sent_at": 0}, ["body", "sent_at"]),
        ({"signals": [{}] * 1001}, ["body", "signals"]),
    ],
)
def test_security_a_batch_out_of_bounds_is_refused_naming_the_field(
    fleet: Fleet, replica: Replica, change: dict[str, Any], loc: list[object]
) -> None:
    answer = replica.client.post("/api/v1/signals", json=batch(fleet) | change)
    assert answer.status_code == 422
    assert loc in [e["loc"] for e in answer.json()["detail"]]


def test_security_the_openapi_document_states_the_bounds(replica: Replica) -> None:
    schemas = replica.client.get("/openapi.json").json()["components"]["schemas"]
    signal, batch_ = schemas["SignalIn"]["properties"], schemas["BatchIn"]["properties"]
    assert signal["count"]["maximum"] == 2**31 - 1 and signal["count"]["minimum"] == 1
    assert signal["weight"]["maximum"] == 100
    assert signal["text"]["maxLength"] == 4096 and signal["details"]["maxItems"] == 32
    assert "ahead of the engine's clock" in signal["at"]["description"]
    assert batch_["signals"]["maxItems"] == 1000 and batch_["node"]["maxLength"] == 253
    assert batch_["dropped"]["maximum"] == 2**31 - 1


# --- body size and rate ------------------------------------------------------------------


def test_security_a_body_over_the_limit_is_refused_before_it_is_read(
    fleet: Fleet, tmp_path: Path
) -> None:
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", max_body_bytes=10_000)
    big = json.dumps(batch(fleet)).encode() + b" " * 10_000  # valid JSON, too long
    declared = post_raw(replica, big)  # with its Content-Length
    assert declared.status_code == 413 and "10000 bytes" in declared.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        for i in range(0, len(big), 1000):
            yield big[i : i + 1000]

    chunked = replica.client.post(
        "/api/v1/signals", content=chunks(), headers={"content-type": "application/json"}
    )
    assert chunked.status_code == 413
    assert replica.engine.store.waiting() == 0
    small = replica.client.post("/api/v1/signals", json=batch(fleet))
    assert small.status_code == 202


def test_security_a_client_over_its_rate_gets_429_with_retry_after(
    fleet: Fleet, tmp_path: Path
) -> None:
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", rate_per_s=0.5, rate_burst=3)
    codes = [replica.client.get("/api/v1/nodes").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]  # the operator's bucket
    posted = [replica.client.post("/api/v1/signals", json=batch(fleet)) for _ in range(4)]
    assert [p.status_code for p in posted] == [202, 202, 202, 429]  # the agent's own bucket
    refused = posted[-1]
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
    assert replica.client.get("/healthz").status_code == 200  # probes always get through
    assert replica.client.get("/metrics").status_code == 200
    fleet.clock.advance(2)
    assert replica.client.post("/api/v1/signals", json=batch(fleet)).status_code == 202


def test_security_the_rate_limit_keys_on_the_caller_then_the_address(fleet: Fleet) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not reached")

    limit = RateLimit(app, fleet.clock, per_s=1, burst=1, max_clients=4)
    now = fleet.clock.now()
    assert client_of({"state": {"caller": "token:alice"}, "client": ("10.0.0.1", 1)}) == (
        "token:alice"
    )
    assert client_of({"client": ("10.0.0.1", 1)}) == "address:10.0.0.1"
    assert client_of({"state": {"caller": "anonymous"}, "client": ("::1", 1)}) == "address:::1"
    assert limit.take("a", now) == 0 and limit.take("a", now) == 1.0
    assert limit.take("b", now) == 0  # its own bucket
    for i in range(100):  # many clients: memory stays bounded
        limit.take(f"c{i}", now)
    assert len(limit._buckets) <= 4


def test_security_forged_heartbeats_do_not_widen_the_breaker(tmp_path: Path) -> None:
    """Empty batches from 500 made-up names used to become node records, so the breaker's
    5 % of "the fleet" let 25 removals through; names that only posted count for nothing."""
    fleet = Fleet()
    store = SqliteStore(tmp_path / "engine.db")
    settings = replace(fleet.settings, fleet_size=None)  # the fleet: nodes on record
    engine = build_engine(
        store, fleet.clock, fleet.cluster, load_policies(), settings,  # type: ignore[arg-type]
        replica="b", background=False, owns_store=False,
    )  # fmt: skip
    client = rig_client(engine)
    now = fleet.clock.now()
    for i in range(500):
        store.enqueue(f"forged-{i}", "x", 0, [], received_at=now, max_waiting=1000)
    engine.step()
    assert store.node_views() == []
    for node in ("n1", "n2"):
        store.enqueue(node, "x", 0, [xid79(node, fleet.clock)], received_at=now, max_waiting=9)
    fleet.clock.advance(1)
    engine.step()
    states = {v.record.node: v.record.state for v in store.node_views()}
    assert states == {"n1": NodeState.QUARANTINED, "n2": NodeState.HEALTHY}
    assert store.breaker_state().tripped
    assert client.get("/metrics").status_code == 200


def test_security_a_store_that_cannot_keep_a_batch_refuses_it(fleet: Fleet, tmp_path: Path) -> None:
    class Refusing(SqliteStore):
        def enqueue(self, *args: Any, **kw: Any) -> int | None:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")

    store: EngineStore = Refusing(tmp_path / "engine.db")
    replica = fleet.replica(store, "a")
    answer = replica.client.post("/api/v1/signals", json=batch(fleet))
    assert answer.status_code == 422 and "cannot be recorded" in answer.json()["detail"][0]["msg"]


def test_security_a_kept_batch_is_never_answered_with_an_error(
    fleet: Fleet, tmp_path: Path
) -> None:
    """The count after keeping a batch failing must not make the agent send it again."""

    class Flaky(SqliteStore):
        def backlog(self) -> int:
            raise TransientError("the database went away after the commit")

    store = Flaky(tmp_path / "engine.db")
    replica = fleet.replica(store, "a")
    answer = replica.client.post("/api/v1/signals", json=batch(fleet))
    assert answer.status_code == 202 and answer.json()["waiting"] is None
    assert store.waiting() == 1
