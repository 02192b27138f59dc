"""The order book on memory and SQLite with the same semantics (and on PostgreSQL:
tests/integration/postgres runs these very functions): placing once per id, a node's live
orders oldest first, atomic and idempotent reports, expiry, attachments kept whole."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import START
from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.domain.orders import (
    NodeOrder,
    OrderKind,
    OrderReport,
    OrderStatus,
    OrderVerdict,
    Refusal,
    Refused,
    place,
)

LATER = START + timedelta(seconds=30)
S = OrderStatus


def new(
    oid: str, node: str = "n1", kind: OrderKind = OrderKind.DIAGNOSE, at_s: float = 0
) -> NodeOrder:
    args = {OrderKind.DIAGNOSE: {"level": 1}, OrderKind.RESET_GPU: {"gpus": ["0000:18:00.0"]},
            OrderKind.REBOOT: {}, OrderKind.COLLECT_BUNDLE: {
                "since": "2026-01-05T07:50:00+00:00", "until": "2026-01-05T08:00:00+00:00"}}[kind]  # fmt: skip
    return place(oid, node, kind, args, now=START + timedelta(seconds=at_s), deadline_s=300,
                 by="autorecover", why="drained: diagnose", incident="hw/n1/1",
                 evidence=("2026-01-05T07:59:00Z kernel:xid.79 NVRM: Xid 79",))  # fmt: skip


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EngineStore]:
    if request.param == "memory":
        yield MemoryEngineStore()
        return
    sql = SqliteStore(tmp_path / "state.db")
    yield sql
    sql.close()


def test_agent_actions_store_places_once_per_id_and_reads_back_every_field(
    store: EngineStore,
) -> None:
    book = store.orders
    first = book.place(new("n1/3/reset_gpu", kind=OrderKind.RESET_GPU))
    assert first == new("n1/3/reset_gpu", kind=OrderKind.RESET_GPU)
    again = book.place(new("n1/3/reset_gpu", kind=OrderKind.REBOOT, at_s=50))
    assert again == first and book.get("n1/3/reset_gpu") == first
    assert first.args["gpus"] == ("0000:18:00.0",) and first.incident == "hw/n1/1"
    assert book.get("nope") is None


def test_agent_actions_store_shows_a_node_its_live_orders_oldest_first(store: EngineStore) -> None:
    book = store.orders
    for oid, node in [("a", "n1"), ("b", "n2"), ("c", "n1"), ("d", "n1")]:
        book.place(new(oid, node, at_s=len(oid)))
    book.report("c", OrderReport("n1", S.RUNNING), LATER)
    book.report("d", OrderReport("n1", S.DONE, verdict=OrderVerdict.PASS), LATER)
    assert [o.id for o in book.pending_for("n1")] == ["a", "c"]
    assert [o.status for o in book.pending_for("n1")] == [S.QUEUED, S.RUNNING]
    assert [o.id for o in book.pending_for("n2")] == ["b"] and book.pending_for("n3") == []
    assert [o.id for o in book.for_node("n1")] == ["a", "c", "d"]
    assert [o.id for o in book.for_node("n1", limit=2)] == ["c", "d"]


def test_agent_actions_store_records_a_report_whole_and_idempotently(store: EngineStore) -> None:
    book = store.orders
    book.place(new("n1/3/diagnose#bundle", kind=OrderKind.COLLECT_BUNDLE))
    bundle = {"kernel.log": "[  12.3] NVRM: Xid (PCI:0000:18:00): 79\n" * 2000, "nvml.json": "{}"}
    done = book.report(
        "n1/3/diagnose#bundle",
        OrderReport("n1", S.DONE, "collected", None, ("journalctl -k: 2000 lines",), bundle),
        LATER,
    )
    assert isinstance(done, NodeOrder) and done.status is S.DONE
    stored = book.get("n1/3/diagnose#bundle")
    assert stored == done and dict(stored.attachments) == bundle
    assert stored.findings == ("journalctl -k: 2000 lines",) and stored.updated_at == LATER
    assert book.report("n1/3/diagnose#bundle", OrderReport("n1", S.DONE), LATER) == done
    conflict = book.report("n1/3/diagnose#bundle", OrderReport("n1", S.FAILED), LATER)
    assert isinstance(conflict, Refused) and conflict.why is Refusal.CONFLICT
    assert book.get("n1/3/diagnose#bundle") == done
    unknown = book.report("n9/1/reboot", OrderReport("n9", S.DONE), LATER)
    assert isinstance(unknown, Refused) and unknown.why is Refusal.UNKNOWN
    theirs = book.report("n1/3/diagnose#bundle", OrderReport("n2", S.DONE), LATER)
    assert isinstance(theirs, Refused) and theirs.why is Refusal.NOT_YOURS


def test_agent_actions_store_expires_only_late_live_orders(store: EngineStore) -> None:
    book = store.orders
    book.place(new("a"))
    book.place(new("b"))
    assert book.expire("a", START + timedelta(seconds=10)) == new("a")  # not late yet
    book.report("b", OrderReport("n1", S.DONE, verdict=OrderVerdict.FAIL), LATER)
    gone = book.expire("a", START + timedelta(seconds=300))
    assert gone is not None and gone.status is S.EXPIRED and "300 s" in gone.detail
    kept = book.expire("b", START + timedelta(seconds=400))  # a report that landed first stands
    assert kept is not None and kept.status is S.DONE and kept.verdict is OrderVerdict.FAIL
    assert book.expire("nope", LATER) is None
    late = book.report("a", OrderReport("n1", S.DONE), START + timedelta(seconds=301))
    assert isinstance(late, Refused) and late.why is Refusal.TOO_LATE
    assert book.pending_for("n1") == []


def test_agent_actions_store_records_one_of_two_racing_final_reports(store: EngineStore) -> None:
    book = store.orders
    book.place(new("r"))
    answers: list[object] = []

    def say(status: S) -> None:
        answers.append(book.report("r", OrderReport("n1", status), LATER))

    threads = [threading.Thread(target=say, args=(s,)) for s in (S.DONE, S.FAILED) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = book.get("r")
    assert final is not None and final.status in (S.DONE, S.FAILED)
    won = [a for a in answers if isinstance(a, NodeOrder)]
    assert won and all(a.status is final.status for a in won)  # type: ignore[union-attr]
    assert all(a.why is Refusal.CONFLICT for a in answers if isinstance(a, Refused))
