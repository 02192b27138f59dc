"""The store: SQLite and the in-memory fake, with the same semantics."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import START
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.sql.schema import MIGRATIONS
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import ActionRecord, Changes, Event, StorePort
from autorecover.controllers.ports import ActionStatus, Outcome
from autorecover.domain.failure_domains import DomainIncident, DomainKind, FailureDomain
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import Action, ActionKind, NodeState, Transition
from autorecover.domain.hardware.policy import Mark, SignalClass
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.hardware.remediation import Attempt, Step
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

LATER = START + timedelta(minutes=5)
RICH = NodeRecord(
    node="n1",
    state=NodeState.REMEDIATING,
    since=LATER,
    seq=3,
    incident="hw/n1/x",
    reason="remediate: reset_gpu",
    evidence=("line one", "line two"),
    marks=(Mark("xid.48", Probe.KERNEL, SignalClass.QUARANTINE, START),),
    held=SignalClass.SUSPECT,
    held_since=START,
    wanted=Step.RESET_GPU,
    step=Step.RESET_GPU,
    component="0000:3b:00.0",
    attempts=(Attempt(Step.RESET_GPU, LATER),),
    returns=(START - timedelta(days=1),),
    tries=1,
)


def action(
    aid: str, node: str = "n1", seq: int = 1, kind: ActionKind = ActionKind.CORDON
) -> ActionRecord:
    a = Action(aid, node, kind, START, "autorecover", "why", ("ev",), "inc", "t", seq)
    return ActionRecord(a, ActionStatus.INTENDED, START)


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StorePort]:
    if request.param == "memory":
        yield MemoryStore()
        return
    db = SqliteStore(tmp_path / "state.db")
    yield db
    db.close()


def test_a_fresh_store_loads_empty(store: StorePort) -> None:
    snap = store.load(START)
    assert snap.nodes == {} and snap.pending == [] and snap.breaker == CLOSED


def test_records_round_trip_with_every_field(store: StorePort) -> None:
    store.commit(Changes(START, records=[RICH]))
    assert store.load(START).nodes["n1"] == RICH


def test_a_report_makes_no_record_and_leaves_a_known_one_alone(store: StorePort) -> None:
    # Names that only posted must not count in the breaker's fleet (issue 12).
    store.commit(Changes(START, records=[RICH]))
    store.commit(Changes(LATER, seen={"n1": LATER, "n2": LATER}))
    nodes = store.load(START).nodes
    assert nodes["n1"] == RICH
    assert "n2" not in nodes


def test_actions_are_recorded_once_and_only_intended_ones_finish(store: StorePort) -> None:
    store.commit(Changes(START, actions=[action("a1"), action("a2")]))
    store.commit(Changes(START, actions=[action("a1")]))  # recorded again after a restart
    assert [a.action.id for a in store.load(START).pending] == ["a1", "a2"]
    store.commit(Changes(LATER, outcomes=[Outcome("a1", ActionStatus.DONE, LATER, "ok")]))
    store.commit(Changes(LATER, outcomes=[Outcome("a1", ActionStatus.FAILED, LATER, "late")]))
    done = store.actions("n1")[0]
    assert (done.status, done.updated_at, done.result) == (ActionStatus.DONE, LATER, "ok")
    assert done.action == action("a1").action
    assert [a.action.id for a in store.load(START).pending] == ["a2"]


def test_failed_actions_of_the_current_transition_are_loaded(store: StorePort) -> None:
    store.commit(
        Changes(START, records=[RICH], actions=[action("old", seq=2), action("now", seq=3)])
    )
    store.commit(
        Changes(
            LATER,
            outcomes=[
                Outcome("old", ActionStatus.FAILED, LATER, "x"),
                Outcome("now", ActionStatus.FAILED, LATER, "y"),
            ],
        )
    )
    assert [a.action.id for a in store.load(START).failed] == ["now"]


def test_removals_come_from_transitions_leaving_healthy(store: StorePort) -> None:
    t1 = Transition("n1", 1, NodeState.HEALTHY, NodeState.QUARANTINED, START, "a", "w")
    t2 = Transition("n1", 2, NodeState.QUARANTINED, NodeState.DIAGNOSING, LATER, "a", "w")
    t3 = Transition("n2", 1, NodeState.HEALTHY, NodeState.SUSPECT, LATER, "a", "w", ("e",), "i")
    store.commit(Changes(LATER, transitions=[t1, t2, t3]))
    assert store.load(START - timedelta(seconds=1)).removals == [("n1", START), ("n2", LATER)]
    assert store.load(START).removals == [("n2", LATER)]
    assert store.transitions("n2") == [t3]
    assert store.transitions() == [t1, t2, t3]


def test_a_transition_recorded_twice_rolls_the_whole_pass_back(store: StorePort) -> None:
    t1 = Transition("n1", 1, NodeState.HEALTHY, NodeState.QUARANTINED, START, "a", "w")
    store.commit(Changes(START, transitions=[t1]))
    with pytest.raises((sqlite3.IntegrityError, ValueError)):
        store.commit(Changes(LATER, records=[RICH], actions=[action("a9")], transitions=[t1]))
    assert store.load(START).nodes == {} and store.actions() == []
    assert store.transitions() == [t1]


def test_breaker_incidents_events_and_signals(store: StorePort) -> None:
    rack = FailureDomain(DomainKind.RACK, "r1")
    incident = DomainIncident("domain/rack/r1/x", rack, START, frozenset({"n1", "n2"}))
    signal = NodeSignal("n1", Probe.KERNEL, "xid.79", Blame.HARDWARE, 90, NodeAction.REBOOT, START)
    store.commit(
        Changes(
            START,
            breaker=BreakerState(START, "too many"),
            incidents=[incident],
            events=[Event("n1", START, "autorecover", "held: too many")],
            signals=[signal],
        )
    )
    snap = store.load(START)
    assert snap.breaker == BreakerState(START, "too many")
    assert snap.incidents == [incident]
    assert store.events("n1") == [Event("n1", START, "autorecover", "held: too many")]
    closed = DomainIncident(incident.id, rack, START, incident.nodes, LATER)
    store.commit(Changes(LATER, breaker=CLOSED, incidents=[closed]))
    snap = store.load(START)
    assert snap.breaker == CLOSED and snap.incidents == []


def test_sqlite_numbers_its_migrations_and_applies_each_once(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    SqliteStore(path).close()
    again = SqliteStore(path)
    assert again.schema_version() == MIGRATIONS[-1][0]
    again.close()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT version, name FROM schema_migrations").fetchall()
    assert [v for v, _ in rows] == [m[0] for m in MIGRATIONS]


def test_sqlite_keeps_everything_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = SqliteStore(path)
    first.commit(Changes(START, records=[RICH], actions=[action("a1")]))
    first.close()
    second = SqliteStore(path, durable=False)
    snap = second.load(START)
    assert snap.nodes["n1"] == RICH and [a.action.id for a in snap.pending] == ["a1"]
    second.close()
