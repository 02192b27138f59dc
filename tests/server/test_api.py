"""The read API: incidents with evidence and timelines, actions, policies, health, OpenAPI."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.routing import APIRoute

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.server.policies import load_policies
from server.support import Fleet, Replica, document, xid79


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    r = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    r.step()
    r.client.post(
        "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    )
    fleet.advance(1, r)
    return r


def test_an_incident_lists_and_shows_its_evidence_and_timeline(
    fleet: Fleet, replica: Replica
) -> None:
    [incident] = replica.client.get("/api/v1/incidents").json()
    assert incident["source"] == "hardware" and incident["cause"] == "hardware"
    assert incident["state"] == "open" and incident["nodes"] == ["n1"]
    assert incident["id"].startswith("hw/n1/") and "xid.79" in incident["summary"]
    detail = replica.client.get(f"/api/v1/incidents/{incident['id']}").json()
    assert any("Xid" in line and "xid.79" in line for line in detail["evidence"])
    whats = [e["what"] for e in detail["timeline"]]
    assert whats[0] == "transition" and whats.count("action done") == 3
    assert replica.client.get("/api/v1/incidents/hw/none").status_code == 404


def test_an_incident_closes_when_its_node_returns(fleet: Fleet, replica: Replica) -> None:
    for _ in range(10):
        fleet.advance(10, replica)
    [node] = replica.client.get("/api/v1/nodes").json()
    assert node["state"] == "healthy"
    [incident] = replica.client.get("/api/v1/incidents").json()
    assert incident["state"] == "closed"
    text = replica.client.get("/metrics").text
    assert "autorecover_recovery_seconds_count 1.0" in text
    assert 'autorecover_nodes{state="healthy"} 1.0' in text


def test_the_incident_list_pages_newest_first_and_lists_every_open_one(
    fleet: Fleet, replica: Replica
) -> None:
    """n1's incident closes, then n2 and n3 fault: `limit` gives the newest, oldest first;
    `state=open` every open one, `state=closed` the closed ones among the newest."""
    for _ in range(10):
        fleet.advance(10, replica)
    for node in ("n2", "n3"):
        replica.client.post(
            "/api/v1/signals", json=document(node, xid79(node, fleet.clock), clock=fleet.clock)
        )
        fleet.advance(1, replica)
    every = replica.client.get("/api/v1/incidents").json()
    assert [(i["nodes"], i["state"]) for i in every] == [
        (["n1"], "closed"), (["n2"], "open"), (["n3"], "open"),
    ]  # fmt: skip
    get = replica.client.get
    assert [i["nodes"] for i in get("/api/v1/incidents", params={"limit": 2}).json()] == [
        ["n2"], ["n3"],
    ]  # fmt: skip
    opened = get("/api/v1/incidents", params={"limit": 1, "state": "open"}).json()
    assert [i["nodes"] for i in opened] == [["n2"], ["n3"]]  # every open one, past the limit
    closed = get("/api/v1/incidents", params={"state": "closed"}).json()
    assert [i["nodes"] for i in closed] == [["n1"]]
    for bad in ({"limit": 0}, {"limit": 100_001}, {"state": "stuck"}):
        assert get("/api/v1/incidents", params=bad).status_code == 422, bad


def test_actions_filter_by_node_and_status(replica: Replica) -> None:
    everything = replica.client.get("/api/v1/actions").json()
    assert [a["kind"] for a in everything] == ["cordon", "taint", "drain"]
    assert replica.client.get("/api/v1/actions", params={"node": "n2"}).json() == []
    assert replica.client.get("/api/v1/actions", params={"status": "intended"}).json() == []
    assert len(replica.client.get("/api/v1/actions", params={"limit": 1}).json()) == 1
    assert replica.client.get("/api/v1/actions", params={"status": "bogus"}).status_code == 422


def test_an_unknown_node_is_404(replica: Replica) -> None:
    answer = replica.client.get("/api/v1/nodes/n404")
    assert answer.status_code == 404 and "n404" in answer.json()["detail"]


def test_policies_show_hardware_and_jobs_merged(replica: Replica) -> None:
    policies = replica.client.get("/api/v1/policies").json()
    assert policies["hardware"]["breaker"]["max_fraction"] == 1.0  # the rig's roomy breaker
    assert policies["hardware"]["signals"] or policies["hardware"]["actions"]
    assert policies["jobs"]["user_restarts"] >= 0


def test_a_policy_file_merges_into_both_policies() -> None:
    text = "[job]\nuser_restarts = 7\n[breaker]\nmax_nodes = 3\n"
    policies = load_policies([("site.toml", text)])
    assert policies.jobs.user_restarts == 7 and policies.hardware.breaker.max_nodes == 3
    assert policies.origins == ("site.toml",)
    with pytest.raises(ValueError, match=r"site\.toml"):
        load_policies([("site.toml", "[job]\nnonsense = 1\n")])


def test_health_and_readiness(replica: Replica) -> None:
    assert replica.client.get("/healthz").json()["status"] == "ok"
    ready = replica.client.get("/readyz").json()
    assert (ready["role"], ready["replica"], ready["leader"]) == ("leader", "a", "a")


def test_the_openapi_document_lists_every_route(replica: Replica) -> None:
    document = replica.client.get("/openapi.json").json()
    app = replica.client.app
    routes = {
        (r.path.replace(":path}", "}"), m.lower())  # OpenAPI has no path converters
        for r in app.routes  # type: ignore[attr-defined]
        if isinstance(r, APIRoute) and r.include_in_schema  # not the dashboard's HTML pages
        for m in r.methods
    }
    listed = {(path, m) for path, ops in document["paths"].items() for m in ops}
    assert routes == listed
    for path in ("/api/v1/signals", "/api/v1/nodes", "/api/v1/nodes/{name}", "/api/v1/actions",
                 "/api/v1/policies", "/api/v1/jobs", "/api/v1/incidents",
                 "/api/v1/incidents/{incident}", "/healthz", "/readyz", "/metrics"):  # fmt: skip
        assert path in document["paths"], path
    assert "BatchIn" in document["components"]["schemas"]
