"""Leadership scenarios, run on one SQLite file (tests/server) and on PostgreSQL (tests/postgres):
two replicas, each with its own connection to the same database, one shared fake cluster."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from autorecover.adapters.fakes.cluster import FakeScheduler
from autorecover.adapters.store.base import EngineStore, LeaseLostError
from autorecover.server.fencing import FencedStore
from autorecover.server.hosting import HostedHardware
from server.support import Fleet, Replica, document, xid79

Open = Callable[[], EngineStore]


def _scheduler(fleet: Fleet) -> FakeScheduler:
    scheduler = fleet.cluster.scheduler  # type: ignore[union-attr]
    assert isinstance(scheduler, FakeScheduler)
    return scheduler


def only_one_acts(open_store: Open) -> None:
    """Both take signals in; only the leader builds a controller and acts; each act happens once."""
    fleet = Fleet()
    a, b = fleet.replica(open_store(), "a"), fleet.replica(open_store(), "b")
    a.step()
    b.step()
    assert (a.leading, b.leading) == (True, False)
    assert a.engine.loops[0].hosted is not None and b.engine.loops[0].hosted is None
    # the standby takes the signal in; the leader records it and acts
    sent = b.client.post(
        "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    )
    assert sent.status_code == 202
    fleet.advance(1, b, a, b)
    assert {n["name"]: n["state"] for n in b.client.get("/api/v1/nodes").json()} == {
        "n1": "quarantined"
    }
    effects = _scheduler(fleet).effects
    assert set(effects) == {"n1/1/cordon", "n1/1/taint", "n1/1/drain"}
    assert all(count == 1 for count in effects.values())
    assert b.client.get("/readyz").json() == {
        "status": "ok", "role": "standby", "replica": "b", "leader": "a", "detail": "",
        "acting": "active",
    }  # fmt: skip
    assert a.client.get("/readyz").json()["role"] == "leader"


def standby_takes_over_after_expiry(open_store: Open) -> None:
    """The leader stops renewing; after its lease expires the standby leads and acts, and the
    old leader, back again, stands by and records nothing."""
    fleet = Fleet()
    a, b = fleet.replica(open_store(), "a"), fleet.replica(open_store(), "b")
    a.step()
    b.step()
    old = a.engine.loops[0].hosted
    assert isinstance(old, HostedHardware)
    fleet.advance(10, b)  # a is silent (paused, partitioned): its lease still holds
    assert not b.leading
    fleet.advance(6, b)  # 16 s > the 15 s lease
    assert b.leading and b.engine.loops[0].hosted is not None
    sent = a.client.post(
        "/api/v1/signals", json=document("n2", xid79("n2", fleet.clock), clock=fleet.clock)
    )
    assert sent.status_code == 202  # a still takes signals in
    # a's old controller, still in memory, cannot record: its fence is gone
    view = old._view
    assert isinstance(view, FencedStore)
    with pytest.raises(LeaseLostError):
        old.intake()
    assert b.engine.store.waiting() == 1  # the batch stays for the leader
    fleet.advance(1, a, b)
    assert not a.leading and a.engine.loops[0].hosted is None
    nodes = {n["name"]: n["state"] for n in a.client.get("/api/v1/nodes").json()}
    assert nodes == {"n2": "quarantined"}
    assert set(_scheduler(fleet).effects) == {"n2/1/cordon", "n2/1/taint", "n2/1/drain"}
    lease = b.engine.store.lease("autorecover-engine")
    assert lease is not None and (lease.holder, lease.term) == ("b", 2)


def released_lease_passes_at_once(open_store: Open) -> None:
    """A leader that shuts down gives the lease up: the standby leads on its next round."""
    fleet = Fleet()
    a, b = fleet.replica(open_store(), "a"), fleet.replica(open_store(), "b")
    a.step()
    b.step()
    a.engine.stop()
    fleet.advance(0.1, b)
    assert b.leading and not a.leading


def run_all(open_store: Open, case: str) -> None:
    """Run one case by name."""
    {"one": only_one_acts, "takeover": standby_takes_over_after_expiry,
     "release": released_lease_passes_at_once}[case](open_store)  # fmt: skip


CASES = ["one", "takeover", "release"]
_ = Replica  # re-exported for the callers' annotations
