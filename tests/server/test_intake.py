"""Signal intake: agent batches in, hardware recovery acts, the API and metrics show it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.fakes.cluster import FakeClock, FakeScheduler
from autorecover.adapters.http.wire import batch_document
from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.ports import TransientError
from autorecover.domain.signals import NodeSignal
from server.support import Fleet, Replica, document, xid79


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    return fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or (
            line.startswith(name + "{") and line.split(" ")[0] == name
        ):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in metrics")


def test_an_xid_79_batch_quarantines_the_node_and_shows_in_the_api_and_metrics(
    fleet: Fleet, replica: Replica
) -> None:
    replica.step()  # takes the lease, builds hardware recovery
    answer = replica.client.post(
        "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    )
    assert answer.status_code == 202
    assert answer.json() == {"batch": 1, "signals": 1, "waiting": 1}
    fleet.advance(1, replica)  # the intake pass records it; the executor cordons
    nodes = {n["name"]: n for n in replica.client.get("/api/v1/nodes").json()}
    assert nodes["n1"]["state"] == "quarantined"
    assert "xid.79" in nodes["n1"]["reason"] and nodes["n1"]["last_seen"] is not None
    scheduler = fleet.cluster.scheduler  # type: ignore[union-attr]
    assert isinstance(scheduler, FakeScheduler) and not scheduler.schedulable("n1")
    detail = replica.client.get("/api/v1/nodes/n1").json()
    assert [t["to_state"] for t in detail["transitions"]] == ["quarantined"]
    assert {a["kind"]: a["status"] for a in detail["actions"]} == {
        "cordon": "done", "taint": "done", "drain": "done",
    }  # fmt: skip
    assert detail["signals"][0]["signal"] == "xid.79"
    text = replica.client.get("/metrics").text
    assert metric(text, 'autorecover_nodes{state="quarantined"}') == 1
    assert metric(text, 'autorecover_incidents_total{cause="hardware",source="hardware"}') == 1
    assert metric(text, 'autorecover_intake_batches_total{outcome="accepted"}') == 1
    assert metric(text, "autorecover_intake_waiting") == 0
    assert metric(text, "autorecover_leader") == 1
    assert metric(text, "autorecover_breaker_tripped") == 0
    assert 'autorecover_pass_seconds_count{controller="hardware",pass="intake"}' in text


def test_an_empty_batch_is_a_heartbeat_of_a_known_node_and_makes_no_record(
    fleet: Fleet, replica: Replica
) -> None:
    replica.step()
    post = lambda node, *s: replica.client.post(  # noqa: E731
        "/api/v1/signals", json=document(node, *s, clock=fleet.clock)
    )
    assert post("n1", xid79("n1", fleet.clock)).status_code == 202
    fleet.advance(1, replica)
    assert post("n1").status_code == 202 and post("n7").status_code == 202
    fleet.advance(1, replica)
    [node] = replica.client.get("/api/v1/nodes").json()  # n7 only reported: no record
    assert node["name"] == "n1"
    assert datetime.fromisoformat(node["last_seen"]) == fleet.clock.now()


def _post_raw(replica: Replica, body: dict[str, Any]) -> Any:
    return replica.client.post("/api/v1/signals", json=body)


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        (lambda s: s.pop("at"), ["body", "signals", 0, "at"]),
        (lambda s: s.update(probe="telepathy"), ["body", "signals", 0, "probe"]),
        (lambda s: s.update(at="2026-01-05T08:00:00"), ["body", "signals", 0, "at"]),
        (lambda s: s.update(weight=101), ["body", "signals", 0, "weight"]),
        # The engine's own findings (a silent node) cannot come from an agent.
        (lambda s: s.update(probe="engine"), ["body", "signals", 0, "probe"]),
        # A misspelt field is named, not dropped for its default.
        (lambda s: s.update(componnet="GPU0"), ["body", "signals", 0, "componnet"]),
        # A signal for another node is the agent's business: 403 (test_security_auth.py).
    ],
)
def test_a_malformed_signal_is_refused_naming_the_field(
    fleet: Fleet, replica: Replica, change: Any, loc: Sequence[object]
) -> None:
    body = document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    change(body["signals"][0])
    answer = _post_raw(replica, body)
    assert answer.status_code == 422
    assert [list(e["loc"]) for e in answer.json()["detail"]] == [list(loc)]
    assert replica.engine.store.waiting() == 0


def test_a_batch_of_another_format_is_refused(fleet: Fleet, replica: Replica) -> None:
    body = document("n1", clock=fleet.clock) | {"format": "autorecover.signals/2"}
    answer = _post_raw(replica, body)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "format"]


def test_a_batch_with_a_misspelt_field_is_refused_naming_it_not_kept_as_a_heartbeat(
    fleet: Fleet, replica: Replica
) -> None:
    body = document("n1", clock=fleet.clock)
    body["singals"] = [document("n1", xid79("n1", fleet.clock), clock=fleet.clock)["signals"][0]]
    answer = _post_raw(replica, body)
    assert answer.status_code == 422, answer.text
    assert [list(e["loc"]) for e in answer.json()["detail"]] == [["body", "singals"]]
    assert replica.engine.store.waiting() == 0


def test_a_full_inbox_answers_429_with_retry_after_until_a_pass_drains_it(
    fleet: Fleet, tmp_path: Path
) -> None:
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", max_waiting=2)
    post = lambda: _post_raw(replica, document("n1", clock=fleet.clock))  # noqa: E731
    assert [post().status_code for _ in range(2)] == [202, 202]
    full = post()
    assert full.status_code == 429 and full.headers["Retry-After"] == "5"
    assert "2 batches already wait" in full.json()["detail"]
    replica.step()  # leads, records the waiting batches
    assert post().status_code == 202
    text = replica.client.get("/metrics").text
    assert metric(text, 'autorecover_intake_batches_total{outcome="full"}') == 1


def test_too_many_in_flight_answers_503_with_retry_after(fleet: Fleet, tmp_path: Path) -> None:
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a", max_in_flight=0)
    answer = _post_raw(replica, document("n1", clock=fleet.clock))
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"


class AwayStore(SqliteStore):
    """A store whose database is away for writes."""

    def enqueue(self, node: str, agent: str, dropped: int, signals: Sequence[NodeSignal], *,
                received_at: datetime, max_waiting: int) -> int | None:  # fmt: skip
        raise TransientError("connection refused")


def test_a_store_that_is_away_answers_503_and_readyz_says_so(fleet: Fleet, tmp_path: Path) -> None:
    store: EngineStore = AwayStore(tmp_path / "engine.db")
    replica = fleet.replica(store, "a")
    answer = _post_raw(replica, document("n1", clock=fleet.clock))
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert "store unavailable" in answer.json()["detail"]
    assert replica.client.get("/readyz").status_code == 200  # reads still work


EPOCH_SKEW = datetime(1970, 1, 1, 0, 10, tzinfo=UTC) - FakeClock().now()  # a lost clock


@pytest.mark.parametrize("skew", [timedelta(minutes=10), -timedelta(hours=2), EPOCH_SKEW])
def test_a_node_whose_clock_is_wrong_has_its_signals_moved_onto_the_engines_clock(
    fleet: Fleet, replica: Replica, skew: timedelta
) -> None:
    """A node's clock minutes ahead had every batch refused as from the future; hours behind,
    its XID was set aside as a buffer replayed late. Its agent says when it sent the batch,
    on the same wrong clock: the difference moves each signal onto the engine's."""
    replica.step()
    now = fleet.clock.now()
    seen = xid79("n1", fleet.clock)
    wrong = replace(seen, at=now + skew - timedelta(seconds=5))  # five seconds before sending
    body = batch_document("n1", [wrong], sent_at=now + skew, dropped=0)
    assert replica.client.post("/api/v1/signals", json=body).status_code == 202
    fleet.advance(1, replica)
    detail = replica.client.get("/api/v1/nodes/n1").json()
    assert [t["to_state"] for t in detail["transitions"]][:1] == ["quarantined"]
    kept = datetime.fromisoformat(detail["signals"][0]["at"])
    assert kept == now - timedelta(seconds=5)
    exported = replica.client.get("/metrics").text
    offset = metric(exported, 'autorecover_agent_clock_offset_seconds{node="n1"}')
    assert offset == -skew.total_seconds()
    # When it was measured, on the engine's clock: what the clock alert's freshness reads.
    measured = metric(exported, 'autorecover_agent_clock_measured_timestamp_seconds{node="n1"}')
    assert measured == now.timestamp()


def test_a_clock_within_the_tolerance_or_a_batch_without_its_send_time_is_kept_as_sent(
    fleet: Fleet, replica: Replica
) -> None:
    replica.step()
    now = fleet.clock.now()
    close = replace(xid79("n1", fleet.clock), at=now - timedelta(seconds=40))
    body = batch_document("n1", [close], sent_at=now - timedelta(seconds=20), dropped=0)
    assert replica.client.post("/api/v1/signals", json=body).status_code == 202
    unstamped = batch_document("n2", [replace(close, node="n2")], sent_at=now, dropped=0)
    del unstamped["sent_at"]
    assert replica.client.post("/api/v1/signals", json=unstamped).status_code == 202
    fleet.advance(1, replica)
    for node in ("n1", "n2"):
        signal = replica.client.get(f"/api/v1/nodes/{node}").json()["signals"][0]
        assert datetime.fromisoformat(signal["at"]) == now - timedelta(seconds=40), node
    ahead = replace(close, node="n2", at=now + timedelta(minutes=6))
    unstamped = batch_document("n2", [ahead], sent_at=now, dropped=0)
    del unstamped["sent_at"]  # nothing to measure the node's clock by: still refused
    assert replica.client.post("/api/v1/signals", json=unstamped).status_code == 422
