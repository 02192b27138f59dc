"""Operator requests in the store — the audit, switches, settling, the breakers — on memory and
SQLite with the same semantics (and on PostgreSQL: tests/integration/postgres runs these very
functions)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import START
from autorecover.adapters.store.base import ConflictError, EngineStore
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import Changes
from autorecover.controllers.requests import (
    HARDWARE_CONTROLS,
    Control,
    OperatorRequest,
    RequestStatus,
    Settled,
)
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import NodeState, Transition

LATER = START + timedelta(minutes=5)


def ask(
    rid: str, kind: Control = Control.RELEASE, target: str = "n1", **kw: object
) -> OperatorRequest:
    return OperatorRequest(
        rid,
        kind,
        target,
        "token:alice",
        "checked it",
        "10.0.0.7",
        START,
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EngineStore]:
    if request.param == "memory":
        yield MemoryEngineStore()
        return
    db = SqliteStore(tmp_path / "state.db")
    yield db
    db.close()


def test_a_request_is_recorded_once_per_id_with_who_when_why_and_where(store: EngineStore) -> None:
    first = store.submit(ask("r1", options=(("validate", "true"),)))
    assert first.status is RequestStatus.PENDING and first.done_at is None
    again = store.submit(ask("r1", options=(("validate", "true"),)))  # a client's retry
    assert again == first
    assert store.requests() == [first]
    with pytest.raises(ConflictError, match="r1"):
        store.submit(ask("r1", Control.RESET_BREAKER, ""))
    [stored] = store.requests("n1")
    assert (stored.by, stored.why, stored.source, stored.at) == (
        "token:alice", "checked it", "10.0.0.7", START,
    )  # fmt: skip
    assert stored.option("validate") == "true" and store.requests("n2") == []


def test_pending_requests_are_settled_by_the_pass_that_acts_on_them(store: EngineStore) -> None:
    store.submit(ask("r1"))
    store.submit(ask("r2", Control.RESET_BREAKER, ""))
    store.submit(ask("r3", Control.ACKNOWLEDGE, "hw/n1/x"))  # settled at once
    assert [r.id for r in store.pending_requests(HARDWARE_CONTROLS)] == ["r1", "r2"]
    assert store.pending_requests(frozenset({Control.RETRY_JOB})) == []
    settled = [
        Settled("r1", RequestStatus.DONE, LATER),
        Settled("r2", RequestStatus.REFUSED, LATER, "not tripped"),
    ]
    store.commit(Changes(LATER, settled=settled))
    assert store.pending_requests(HARDWARE_CONTROLS) == []
    by_id = {r.id: r for r in store.requests()}
    assert (by_id["r1"].status, by_id["r1"].done_at) == (RequestStatus.DONE, LATER)
    assert (by_id["r2"].status, by_id["r2"].result) == (RequestStatus.REFUSED, "not tripped")
    assert (by_id["r3"].status, by_id["r3"].done_at) == (RequestStatus.DONE, START)
    store.commit(Changes(LATER, settled=[Settled("r1", RequestStatus.REFUSED, LATER, "late")]))
    assert {r.id: r for r in store.requests()}["r1"].status is RequestStatus.DONE  # once


def test_switches_are_set_and_cleared_by_their_requests(store: EngineStore) -> None:
    assert store.controls().paused is None and store.controls().maintenance == {}
    pause = store.submit(ask("p1", Control.PAUSE_ACTING, ""))
    assert pause.status is RequestStatus.DONE and store.controls().paused == pause
    again = store.submit(ask("p2", Control.PAUSE_ACTING, ""))
    assert again.status is RequestStatus.DONE and "already on" in again.result
    assert store.controls().paused == pause  # who paused first stays on the switch
    rack = store.submit(ask("m1", Control.MAINTENANCE_ON, "rack:r1"))
    node = store.submit(ask("m2", Control.MAINTENANCE_ON, "node:n9"))
    controls = store.controls()
    assert dict(controls.maintenance) == {"rack:r1": rack, "node:n9": node}
    assert controls.in_maintenance("n3", ("rack:r1", "ib_leaf:l1")) == rack
    assert controls.in_maintenance("n9") == node and controls.in_maintenance("n3") is None
    off = store.submit(ask("m3", Control.MAINTENANCE_OFF, "rack:r1"))
    assert off.status is RequestStatus.DONE and "token:alice" in off.result
    assert set(store.controls().maintenance) == {"node:n9"}
    never = store.submit(ask("m4", Control.MAINTENANCE_OFF, "rack:r2"))
    assert (never.status, never.result) == (RequestStatus.REFUSED, "it was not on")
    store.submit(ask("p3", Control.RESUME_ACTING, ""))
    assert store.controls().paused is None
    assert [r.id for r in store.requests()] == ["p1", "p2", "m1", "m2", "m3", "m4", "p3"]
    assert [r.id for r in store.requests(limit=2)] == ["m4", "p3"]
    assert [r.id for r in store.requests(targets=("node:n9", "rack:r2"))] == ["m2", "m4"]


def test_dry_run_keeps_its_own_breaker_and_removals(store: EngineStore) -> None:
    t1 = Transition("n1", 1, NodeState.HEALTHY, NodeState.QUARANTINED, START, "a", "w")
    t2 = Transition("n2", 1, NodeState.HEALTHY, NodeState.QUARANTINED, START, "a", "w")
    store.commit(Changes(START, dry_run=True, transitions=[t1], breaker=BreakerState(START, "x")))
    store.commit(Changes(START, transitions=[t2]))
    snap = store.load(START - timedelta(seconds=1))
    assert snap.breaker == CLOSED and store.breaker_state() == CLOSED
    assert snap.dry_run_breaker == BreakerState(START, "x") == store.breaker_state(dry_run=True)
    assert snap.removals == [("n2", START)] and snap.dry_run_removals == [("n1", START)]


def test_the_breaker_keeps_who_reset_it(store: EngineStore) -> None:
    tripped = BreakerState(START, "too many")
    store.commit(Changes(START, breaker=tripped))
    reset = tripped.reset(LATER, "token:carol", "looked: real faults")
    store.commit(Changes(LATER, breaker=reset))
    assert store.breaker_state() == reset and not reset.tripped
    again = reset.trip(LATER, "too many again")
    store.commit(Changes(LATER, breaker=again))
    assert store.load(START).breaker == again
    assert (again.reset_by, again.reset_at, again.reset_why) == (
        "token:carol", LATER, "looked: real faults",
    )  # fmt: skip
