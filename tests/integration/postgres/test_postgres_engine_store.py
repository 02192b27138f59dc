"""The engine's store contract — inbox, leases, fenced passes, reads — on memory, SQLite and a
real PostgreSQL, plus what only the SQL stores promise: data survives reopening, the schema
is numbered, and a SQLite file made before the engine existed is migrated forward."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import START
from autorecover.adapters.store.base import EngineStore, Fence, LeaseLostError
from autorecover.adapters.store.sql.schema import MIGRATIONS
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.ports import ActionRecord, Changes
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.failure_domains import DomainIncident, DomainKind, FailureDomain
from autorecover.domain.hardware.lifecycle import Action, ActionKind, NodeState, Transition
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server import views
from integration.postgres.conftest import Opener

LATER = START + timedelta(seconds=30)


def xid(node: str = "n1", **kw: object) -> NodeSignal:
    return NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 90, NodeAction.REBOOT, START,
        text="NVRM: Xid 79", details=(("xid", "79"),), **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def quarantine(node: str = "n1", incident: str = "hw/n1/x") -> Changes:
    t = Transition(
        node, 1, NodeState.HEALTHY, NodeState.QUARANTINED, START, "ar", "q", ("e",), incident
    )
    a = Action(
        f"{node}/1/cordon", node, ActionKind.CORDON, START, "ar", "q", ("e",), incident, None, 1
    )
    rec = NodeRecord(node, NodeState.QUARANTINED, START, 1, incident, "q")
    return Changes(
        START,
        records=[rec],
        transitions=[t],
        actions=[ActionRecord(a, ActionStatus.INTENDED, START)],
    )


def test_postgres_inbox_keeps_batches_in_order_until_a_pass_consumes_them(
    store: EngineStore,
) -> None:
    first = store.enqueue("n1", "0.1", 0, [xid()], received_at=START, max_waiting=10)
    second = store.enqueue("n2", "0.1", 3, [], received_at=LATER, max_waiting=10)
    assert first is not None and second is not None and store.waiting() == 2
    batches = store.take(10)
    assert [b.node for b in batches] == ["n1", "n2"]
    assert batches[0].signals == (xid(),)  # details too: the wire format is kept whole
    assert (batches[1].dropped, batches[1].received_at) == (3, LATER)
    assert [b.id for b in store.take(1)] == [first]
    store.commit_pass(None, now=LATER, consumed=[first])
    assert [b.id for b in store.take(10)] == [second] and store.waiting() == 1


def test_postgres_inbox_refuses_past_its_bound(store: EngineStore) -> None:
    assert store.enqueue("n1", "a", 0, [], received_at=START, max_waiting=1) is not None
    assert store.enqueue("n1", "a", 0, [], received_at=START, max_waiting=1) is None
    assert store.waiting() == 1


def test_postgres_a_lease_has_one_holder_until_it_expires(store: EngineStore) -> None:
    a = store.acquire("engine", "a", START, ttl_s=10)
    b = store.acquire("engine", "b", START + timedelta(seconds=5), ttl_s=10)
    assert (a.holder, a.term) == ("a", 1) and b == a  # b is told who leads
    renewed = store.acquire("engine", "a", START + timedelta(seconds=9), ttl_s=10)
    assert renewed.term == 1 and renewed.expires_at == START + timedelta(seconds=19)
    taken = store.acquire("engine", "b", START + timedelta(seconds=19), ttl_s=10)
    assert (taken.holder, taken.term) == ("b", 2)
    assert store.lease("engine") == taken


def test_postgres_a_released_lease_is_free_at_once(store: EngineStore) -> None:
    store.acquire("engine", "a", START, ttl_s=60)
    store.release("engine", "b")  # not b's: nothing happens
    assert store.acquire("engine", "b", START, ttl_s=60).holder == "a"
    store.release("engine", "a")
    assert store.acquire("engine", "b", START, ttl_s=60).holder == "b"


def test_postgres_a_fenced_pass_lands_only_while_the_lease_holds(store: EngineStore) -> None:
    lease = store.acquire("engine", "a", START, ttl_s=10)
    fence = Fence("engine", "a", lease.term)
    bid = store.enqueue("n1", "a", 0, [xid()], received_at=START, max_waiting=10)
    assert bid is not None
    store.commit_pass(quarantine(), now=START, fence=fence, consumed=[bid])
    assert store.waiting() == 0 and store.load(START).nodes["n1"].state is NodeState.QUARANTINED
    store.acquire("engine", "b", START + timedelta(seconds=11), ttl_s=10)
    late = store.enqueue("n2", "a", 0, [xid("n2")], received_at=LATER, max_waiting=10)
    with pytest.raises(LeaseLostError):
        store.commit_pass(quarantine("n2", "hw/n2/x"), now=LATER, fence=fence, consumed=[late or 0])
    assert "n2" not in store.load(START).nodes and store.waiting() == 1  # nothing landed
    with pytest.raises(LeaseLostError):  # expired, even with nobody else holding it
        store.commit_pass(None, now=START + timedelta(seconds=60), fence=Fence("engine", "b", 2))


def test_postgres_reads_for_the_api(store: EngineStore) -> None:
    store.commit(quarantine())
    store.commit(Changes(LATER, seen={"n1": LATER, "n2": LATER}, signals=[xid()]))
    rack = FailureDomain(DomainKind.RACK, "r1")
    store.commit(
        Changes(
            LATER, incidents=[DomainIncident("domain/rack/r1/x", rack, START, frozenset({"n1"}))]
        )
    )
    views = store.node_views()
    assert [(v.record.node, v.record.state, v.last_seen) for v in views] == [
        ("n1", NodeState.QUARANTINED, LATER),  # n2 only reported: no record (issue 12)
    ]
    got = store.node_signals("n1")
    assert [(s.signal, s.text, s.at) for s in got] == [("xid.79", "NVRM: Xid 79", START)]
    assert [i.id for i in store.domain_incidents()] == ["domain/rack/r1/x"]
    transitions, actions = store.trail("hw/n1/x")
    assert [t.to for t in transitions] == [NodeState.QUARANTINED]
    assert [a.action.id for a in actions] == ["n1/1/cordon"]
    assert store.trail("nope") == ([], [])
    [(pos, t)] = store.transitions_after(0)
    assert t.node == "n1" and store.transitions_after(pos) == []
    assert [a.action.id for a in store.recent_actions(5)] == ["n1/1/cordon"]
    store.ping()


def test_postgres_everything_survives_reopening(opener: Opener) -> None:
    first = opener()
    first.commit(quarantine())
    first.enqueue("n2", "a", 0, [xid("n2")], received_at=START, max_waiting=10)
    first.acquire("engine", "a", START, ttl_s=30)
    again = opener()
    assert again.load(START).nodes["n1"].state is NodeState.QUARANTINED
    assert [b.node for b in again.take(10)] == ["n2"]
    lease = again.lease("engine")
    assert lease is not None and lease.holder == "a"


def test_postgres_numbers_its_migrations(postgres_url: str) -> None:
    from autorecover.adapters.store.postgres import PostgresStore

    store = PostgresStore(postgres_url)
    store.close()
    again = PostgresStore(postgres_url)  # a second open applies nothing twice
    assert again.schema_version() == MIGRATIONS[-1][0]
    again.close()


def test_postgres_tier_also_migrates_an_old_sqlite_file_forward(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # a file as the first release left it
        db.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TEXT NOT NULL)"
        )
        version, name, statements = MIGRATIONS[0]
        db.executescript(
            statements.replace("@serial@", "INTEGER PRIMARY KEY").replace("@rowid@", "")
        )
        db.execute("INSERT INTO schema_migrations VALUES (?,?,?)", (version, name, "then"))
        db.execute(
            "INSERT INTO nodes (node, state, since, updated_at) VALUES ('n1', 'healthy', ?, ?)",
            (START.isoformat(), START.isoformat()),
        )
    store = SqliteStore(path)
    assert store.schema_version() == MIGRATIONS[-1][0] and store.waiting() == 0
    assert store.load(START).nodes["n1"] == NodeRecord("n1", since=START)
    store.close()


def test_postgres_a_dropped_connection_is_transient_and_the_next_call_reconnects(
    postgres_url: str,
) -> None:
    import psycopg

    from autorecover.adapters.store.postgres import PostgresStore
    from autorecover.controllers.ports import TransientError

    store = PostgresStore(postgres_url)
    store.commit(quarantine())
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'autorecover' AND pid <> pg_backend_pid()"
        )
    with pytest.raises(TransientError):
        store.waiting()
    assert store.waiting() == 0 and "n1" in store.load(START).nodes
    store.close()


def test_postgres_breaker_state_reads_back(store: EngineStore) -> None:
    from autorecover.domain.hardware.breaker import CLOSED, BreakerState

    assert store.breaker_state() == CLOSED
    store.commit(Changes(START, breaker=BreakerState(START, "too many")))
    assert store.breaker_state() == BreakerState(START, "too many")


def test_postgres_dead_letters_keep_the_batch_and_go_back_on_retry(store: EngineStore) -> None:
    """On memory, SQLite and PostgreSQL alike: set aside (fenced), listed, counted, retried."""
    lease = store.acquire("engine", "a", START, ttl_s=60)
    fence = Fence("engine", "a", lease.term)
    first = store.enqueue("n1", "a", 2, [xid()], received_at=START, max_waiting=10)
    second = store.enqueue("n2", "a", 0, [], received_at=START, max_waiting=10)
    assert first is not None and second is not None and store.backlog() == 2
    store.set_aside(first, "OverflowError: too big", now=LATER, fence=fence)
    assert [b.id for b in store.take(10)] == [second] and store.dead_letter_count() == 1
    [letter] = store.dead_letters()
    assert (letter.batch, letter.node, letter.agent, letter.error) == (
        first, "n1", "a", "OverflowError: too big",
    )  # fmt: skip
    assert (letter.received_at, letter.failed_at) == (START, LATER) and "xid.79" in letter.body
    with pytest.raises(LeaseLostError):  # a deposed leader sets nothing aside
        store.set_aside(second, "x", now=START + timedelta(seconds=120), fence=fence)
    again = store.retry_dead_letter(letter.id, now=LATER, by="token:alice", why="fixed")
    assert again is not None and store.dead_letters() == [] and store.waiting() == 2
    back = [b for b in store.take(10) if b.id == again]
    assert back[0].signals == (xid(),) and back[0].dropped == 2  # the batch as it was kept
    assert [e.text for e in store.events("n1")] == [f"dead letter {letter.id} retried: fixed"]
    assert store.retry_dead_letter(letter.id, now=LATER, by="x", why="y") is None


def test_postgres_a_poison_batch_is_set_aside_and_the_fault_behind_it_recorded(
    postgres_url: str,
) -> None:
    """The issue's poison number on PostgreSQL: a batch stored by an older engine with
    `count` = 2**63 used to fail every intake pass; now it becomes a dead letter."""
    from autorecover.adapters.store.postgres import PostgresStore
    from server.support import Fleet, xid79

    fleet = Fleet()
    store = PostgresStore(postgres_url)
    try:
        replica = fleet.replica(store, "a")
        poison = xid79("n1", fleet.clock, count=2**63)
        store.enqueue("n1", "old", 0, [poison], received_at=START, max_waiting=10)
        store.enqueue("n2", "a", 0, [xid79("n2", fleet.clock)], received_at=START, max_waiting=10)
        replica.step()
        assert store.waiting() == 0 and replica.engine.loops[0].failures == 0
        [letter] = store.dead_letters()
        assert letter.node == "n1" and "out of range" in letter.error
        assert next(t.to for t in store.transitions("n2")) is NodeState.QUARANTINED
    finally:
        store.close()


def test_postgres_connection_carries_tcp_keepalive_and_the_urls_own_settings_win(
    postgres_url: str,
) -> None:
    """Every call waits for the server under one lock: a connection left half-open (a
    failover, a partition) must fail within about a minute, not stall the engine for the
    kernel's ~15 minutes of retransmissions. Read off the socket libpq really uses."""
    import os
    import socket

    from autorecover.adapters.store.postgres import KEEPALIVE, PostgresStore
    from autorecover.adapters.store.url import StoreUrlError
    from autorecover.testing.postgres import PASSWORD

    def options(url: str) -> tuple[int, int, int, int, int]:
        store = PostgresStore(url)
        try:
            fd = store._db._connection().pgconn.socket  # type: ignore[attr-defined]
            with socket.socket(fileno=os.dup(fd)) as sock:
                return (
                    sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                    sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE),
                    sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL),
                    sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT),
                    sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT),
                )
        finally:
            store.close()

    assert options(postgres_url) == (
        1,
        KEEPALIVE["keepalives_idle"],
        KEEPALIVE["keepalives_interval"],
        KEEPALIVE["keepalives_count"],
        KEEPALIVE["tcp_user_timeout"],
    )
    assert options(f"{postgres_url}?keepalives_idle=7&tcp_user_timeout=9000")[1::3] == (7, 9000)
    with pytest.raises(StoreUrlError, match="bogus") as caught:
        PostgresStore(f"{postgres_url}?bogus=1")
    assert "***" in str(caught.value) and PASSWORD not in str(caught.value)


def _incident(node: str, incident: str, at: datetime, *, closes: bool) -> Changes:
    """One node taken out at `at` for `incident`, and back ten seconds later if it `closes`."""
    out = Transition(node, 1, NodeState.HEALTHY, NodeState.QUARANTINED, at, "ar", "q", (), incident)
    moves = [out]
    if closes:
        back = at + timedelta(seconds=10)
        moves.append(Transition(node, 2, NodeState.QUARANTINED, NodeState.HEALTHY, back, "op",
                                "released", (), incident))  # fmt: skip
    last = moves[-1]
    record = NodeRecord(node, last.to, last.at, last.seq, incident, last.why)
    return Changes(last.at, records=[record], transitions=moves)


def test_postgres_pages_a_long_incident_history(store: EngineStore) -> None:
    """The incident list reads a page of the history, not all of it: the newest incidents by
    their first transition, and only their transitions; the open ones however old."""
    for minute, (node, incident, closes) in enumerate([
        ("n1", "hw/n1/a", False), ("n2", "hw/n2/b", True), ("n3", "hw/n3/c", True),
        ("n4", "hw/n4/d", False),
    ]):  # fmt: skip
        store.commit(_incident(node, incident, START + timedelta(minutes=minute), closes=closes))
    assert store.newest_incidents(2) == ["hw/n4/d", "hw/n3/c"]
    assert store.newest_incidents(10) == ["hw/n4/d", "hw/n3/c", "hw/n2/b", "hw/n1/a"]
    got = store.incident_transitions(["hw/n3/c", "hw/n1/a"])
    assert [(t.incident, t.to) for t in got] == [
        ("hw/n1/a", NodeState.QUARANTINED),
        ("hw/n3/c", NodeState.QUARANTINED),
        ("hw/n3/c", NodeState.HEALTHY),
    ]
    assert store.incident_transitions([]) == []
    newest = views.hardware_incidents(store, 2)
    assert [(i.id, i.state) for i in newest] == [("hw/n3/c", "closed"), ("hw/n4/d", "open")]
    opened = views.hardware_incidents(store, open_only=True)
    assert [i.id for i in opened] == ["hw/n1/a", "hw/n4/d"]  # the oldest is still open
    assert [i.id for i in views.hardware_incidents(store)] == [
        "hw/n1/a", "hw/n2/b", "hw/n3/c", "hw/n4/d",
    ]  # fmt: skip


def test_postgres_forgets_signals_past_the_retention_oldest_first(store: EngineStore) -> None:
    """Signals received before the cut go, a batch at a time, in the order they came; the
    rest, and everything decided on them, stay."""
    store.commit(quarantine())
    for day in range(4):  # one signal received on each of four days
        at = START + timedelta(days=day)
        store.commit(Changes(at, signals=[xid("n1", component=f"day {day}")]))
    cut = START + timedelta(days=2, hours=1)  # days 0, 1 and 2 are older
    assert store.prune_signals(cut, limit=2) == 2  # a batch at most
    assert [s.component for s in store.node_signals("n1")] == ["day 2", "day 3"]
    assert store.prune_signals(cut, limit=2) == 1
    assert store.prune_signals(cut, limit=2) == 0
    assert [s.component for s in store.node_signals("n1")] == ["day 3"]
    transitions, _ = store.trail("hw/n1/x")
    assert [t.to for t in transitions] == [NodeState.QUARANTINED]  # the decision stays
