"""The orders over HTTP: an agent pulls its own node's orders and reports them (403 for
another node's, 404 for none, 409 for a contradicting or late report, 200 for a repeat, 422
out of bounds), people read a node's orders with their bundles, and an engine whose on-node
actions its agents run takes a node from a fault back to service through those reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.domain.orders import OrderKind, place
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.app import create_app
from autorecover.server.auth import Auth
from autorecover.server.tokens import Role
from autorecover.server.wiring import fake_cluster, with_agent_actions
from server.support import Fleet, Replica, document

ORDERS = "/api/v1/agent/orders"


def report_url(order_id: str) -> str:
    return f"{ORDERS}/{quote(order_id, safe='')}/report"


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "engine.db")


@pytest.fixture
def fleet(store: SqliteStore) -> Fleet:
    f = Fleet()
    f.cluster = with_agent_actions(fake_cluster(f.clock), store.orders, f.clock)
    return f


@pytest.fixture
def replica(fleet: Fleet, store: SqliteStore) -> Replica:
    r = fleet.replica(store, "a")
    r.step()
    return r


def placed(store: SqliteStore, fleet: Fleet, oid: str = "n1/3/reset_gpu", node: str = "n1") -> None:
    store.orders.place(place(oid, node, OrderKind.RESET_GPU, {"gpus": ["0000:18:00.0"]},
                             now=fleet.clock.now(), deadline_s=300, by="autorecover",
                             why="remediate: reset_gpu", evidence=("kernel text",)))  # fmt: skip


def agent(fleet: Fleet, replica: Replica, node: str = "n1") -> TestClient:
    return fleet.client(replica, fleet.tokens.agent(node))


def say(status: str, node: str = "n1", **kw: Any) -> dict[str, Any]:
    return {"node": node, "status": status, **kw}


def test_agent_actions_api_an_agent_reads_its_orders_without_evidence(
    fleet: Fleet, replica: Replica, store: SqliteStore
) -> None:
    placed(store, fleet)
    placed(store, fleet, "n2/1/reboot", "n2")
    got = agent(fleet, replica).get(ORDERS, params={"node": "n1"})
    assert got.status_code == 200, got.text
    (order,) = got.json()["orders"]
    assert order["id"] == "n1/3/reset_gpu" and order["kind"] == "reset_gpu"
    assert order["args"] == {"gpus": ["0000:18:00.0"]} and order["status"] == "queued"
    assert order["dry_run"] is False and order["incident"] is None and "evidence" not in order
    assert set(order) == {"id", "node", "kind", "args", "status", "placed_at", "deadline",
                          "dry_run", "by", "why", "incident"}  # fmt: skip


def test_agent_actions_api_an_agent_reads_and_reports_only_its_own_nodes_orders(
    fleet: Fleet, replica: Replica, store: SqliteStore
) -> None:
    placed(store, fleet, "n2/1/reboot", "n2")
    n1 = agent(fleet, replica)
    other = n1.get(ORDERS, params={"node": "n2"})
    assert other.status_code == 403 and "token:agent-n1 may not" in other.json()["detail"]
    assert n1.post(report_url("n2/1/reboot"), json=say("done", "n2")).status_code == 403
    assert n1.post(report_url("n2/1/reboot"), json=say("done")).status_code == 403  # not n1's
    assert store.orders.get("n2/1/reboot").status == "queued"  # type: ignore[union-attr]
    for role in (Role.VIEWER, Role.EVIDENCE, Role.OPERATOR):  # only agents: no one speaks for one
        someone = fleet.client(replica, fleet.tokens.add(f"p-{role}", role))
        assert someone.get(ORDERS, params={"node": "n2"}).status_code == 403
        assert someone.post(report_url("n2/1/reboot"), json=say("done", "n2")).status_code == 403
    assert fleet.client(replica, None).get(ORDERS, params={"node": "n2"}).status_code == 401


def test_agent_actions_api_reports_are_idempotent_conflicts_409_unknown_404(
    fleet: Fleet, replica: Replica, store: SqliteStore
) -> None:
    placed(store, fleet)
    n1 = agent(fleet, replica)
    url = report_url("n1/3/reset_gpu")
    assert n1.post(url, json=say("running")).json() == {"id": "n1/3/reset_gpu", "status": "running"}
    assert n1.post(url, json=say("running")).status_code == 200
    refused = say("refused", detail="processes hold the GPU: python (pid 4242)")
    assert n1.post(url, json=refused).json()["status"] == "refused"
    assert n1.post(url, json=refused).status_code == 200  # the same final report again
    conflict = n1.post(url, json=say("done"))
    assert conflict.status_code == 409 and "refused" in conflict.json()["detail"]
    assert n1.post(report_url("n1/9/reboot"), json=say("done")).status_code == 404
    assert n1.get(ORDERS, params={"node": "n1"}).json() == {"orders": []}
    # Past its deadline an order is expired, not shown, and a report is too late.
    placed(store, fleet, "n1/4/reboot")
    fleet.advance(301)
    assert n1.get(ORDERS, params={"node": "n1"}).json() == {"orders": []}
    late = n1.post(report_url("n1/4/reboot"), json=say("done"))
    assert late.status_code == 409 and "expired" in late.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        say("expired"),
        say("queued"),
        say("done", verdict="maybe"),
        say("done", node="n 1"),
        say("done", detail="x" * 2001),
        say("done", evidence=["x"] * 51),
        say("done", evidence=["x" * 301]),
        say("done", attachments={f"a{i}": "" for i in range(9)}),
        say("done", attachments={"../passwd": ""}),
        say("done", attachments={"kernel.log": "x" * (256 * 1024 + 1)}),
        say("done", detail="nul\x00"),
        {"status": "done"},
    ],
)
def test_agent_actions_api_a_report_out_of_bounds_is_a_422(
    fleet: Fleet, replica: Replica, store: SqliteStore, body: dict[str, Any]
) -> None:
    placed(store, fleet)
    answer = agent(fleet, replica).post(report_url("n1/3/reset_gpu"), json=body)
    assert answer.status_code in (403, 422), answer.text  # a bad node name may meet the 403 first
    if body.get("node") == "n1":
        assert answer.status_code == 422
    assert store.orders.get("n1/3/reset_gpu").status == "queued"  # type: ignore[union-attr]
    bad_query = agent(fleet, replica).get(ORDERS, params={"node": "-n1;"})
    assert bad_query.status_code == 422 and agent(fleet, replica).get(ORDERS).status_code == 422


def test_agent_actions_api_insecure_mode_lets_anyone_use_any_node(
    fleet: Fleet, replica: Replica, store: SqliteStore
) -> None:
    placed(store, fleet, "n2/1/reboot", "n2")
    anyone = TestClient(create_app(replica.engine, auth=Auth.disabled()))
    assert [o["id"] for o in anyone.get(ORDERS, params={"node": "n2"}).json()["orders"]] == [
        "n2/1/reboot"
    ]
    assert anyone.post(report_url("n2/1/reboot"), json=say("done", "n2")).status_code == 200


def test_agent_actions_api_a_node_recovers_through_its_agents_reports(
    fleet: Fleet, replica: Replica, store: SqliteStore
) -> None:
    clock = fleet.clock
    fault = NodeSignal("n1", Probe.KERNEL, "xid.48", Blame.HARDWARE, 90, NodeAction.RESET_GPU,
                       clock.now(), component="0000:18:00", text="NVRM: Xid (PCI:0000:18:00): 48")  # fmt: skip
    assert (
        replica.client.post("/api/v1/signals", json=document("n1", fault, clock=clock)).status_code
        == 202
    )
    n1 = agent(fleet, replica)

    def state() -> str:
        return str(replica.client.get("/api/v1/nodes/n1").json()["state"])

    def answer(kind: str, status: str, **kw: Any) -> None:
        for _ in range(10):
            live = [o for o in n1.get(ORDERS, params={"node": "n1"}).json()["orders"]
                    if o["kind"] == kind]  # fmt: skip
            if live:
                break
            fleet.advance(10, replica)
        (order,) = live
        assert n1.post(report_url(order["id"]), json=say("running")).status_code == 200
        done = n1.post(report_url(order["id"]), json=say(status, **kw))
        assert done.status_code == 200, done.text

    answer("collect_bundle", "done", attachments={"kernel.log": "NVRM: Xid 48"})
    answer("diagnose", "done", verdict="fail", evidence=["Memory: Fail: DBE on GPU 0"])
    answer("reset_gpu", "refused", detail="processes hold the GPU: python (pid 4242)")
    answer("reboot", "done", detail="rebooted")
    answer("diagnose", "done", verdict="pass", evidence=["dcgmi diag -r 3: Pass"])
    for _ in range(5):
        fleet.advance(10, replica)
    assert state() == "healthy"
    seen = replica.client.get("/api/v1/nodes/n1/orders", params={"attachments": "true"}).json()
    kinds = [(o["kind"], o["status"]) for o in seen]
    assert kinds == [("diagnose", "done"), ("collect_bundle", "done"), ("reset_gpu", "refused"),
                     ("reboot", "done"), ("diagnose", "done")]  # fmt: skip
    assert seen[1]["attachments"] == {"kernel.log": "NVRM: Xid 48"}
    assert seen[0]["findings"] == ["Memory: Fail: DBE on GPU 0"] and seen[0]["verdict"] == "fail"
    brief = replica.client.get("/api/v1/nodes/n1/orders").json()
    assert brief[1]["attachments"] == {} and brief[1]["attachment_sizes"] == {"kernel.log": 12}
    viewer = fleet.client(replica, fleet.tokens.add("dashboard", Role.VIEWER))
    assert viewer.get("/api/v1/nodes/n1/orders").status_code == 403  # evidence: bundles
