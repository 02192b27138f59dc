"""Operator controls through the served app: each is recorded with who, when, why and from
where, reaches the leader through the store, and shows in the node's and incident's history."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from autorecover.adapters.fakes.cluster import FakeClock, FakeScheduler
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.http.engine_api import quoted
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.domain.failure_domains import Topology
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.auth import Role
from autorecover.server.wiring import Cluster, build_engine, fake_cluster, jobs_on
from server.support import SETTINGS, Fleet, Replica, RigClient, bearer, document, roomy, xid79


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    r = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    r.step()
    return r


def as_caller(replica: Replica, who: str) -> TestClient:
    """A client calling with an operator token named `who` (`token:NAME`, as auth names it)."""
    assert isinstance(replica.client, RigClient)
    token = replica.client.tokens.add(who.removeprefix("token:"), Role.OPERATOR)
    return TestClient(replica.client.app, headers=bearer(token))


def port_down(node: str, clock: FakeClock) -> NodeSignal:
    return NodeSignal(
        node, Probe.INFINIBAND, "ib.port_down", Blame.HARDWARE, 90, NodeAction.INSPECT,
        clock.now(), text="mlx5_0 port 1 down",
    )  # fmt: skip


def post_signal(fleet: Fleet, replica: Replica, signal: NodeSignal) -> None:
    answer = replica.client.post(
        "/api/v1/signals", json=document(signal.node, signal, clock=fleet.clock)
    )
    assert answer.status_code == 202


def needs_attention(fleet: Fleet, replica: Replica, node: str) -> None:
    post_signal(fleet, replica, port_down(node, fleet.clock))
    for _ in range(6):
        fleet.advance(10, replica)
    state = replica.client.get(f"/api/v1/nodes/{node}").json()["state"]
    assert state == "needs_attention"


def scheduler(fleet: Fleet) -> FakeScheduler:
    found = fleet.cluster.scheduler  # type: ignore[union-attr]
    assert isinstance(found, FakeScheduler)
    return found


def body(why: str = "checked", **more: Any) -> dict[str, Any]:
    return {"why": why, **more}


# --- release ------------------------------------------------------------------------------


def test_release_from_needs_attention_via_api(fleet: Fleet, replica: Replica) -> None:
    needs_attention(fleet, replica, "n1")
    assert not scheduler(fleet).schedulable("n1")
    alice = as_caller(replica, "token:alice")
    answer = alice.post(
        "/api/v1/nodes/n1/release", json=body("reseated the IB cable", request_id="rel-1")
    )
    assert answer.status_code == 202, answer.text
    pending = answer.json()
    assert (pending["status"], pending["kind"], pending["target"]) == ("pending", "release", "n1")
    assert (pending["by"], pending["source"]) == ("token:alice", "testclient")
    fleet.advance(1, replica)  # the leader's next pass acts on it
    node = replica.client.get("/api/v1/nodes/n1").json()
    assert node["state"] == "healthy" and scheduler(fleet).schedulable("n1")
    last = node["transitions"][-1]
    assert (last["from_state"], last["to_state"], last["by"]) == (
        "needs_attention", "healthy", "token:alice",
    )  # fmt: skip
    assert last["why"] == "released: reseated the IB cable"
    assert node["actions"][-1]["kind"] == "resume" and node["actions"][-1]["status"] == "done"
    [audit] = node["audit"]
    assert (audit["id"], audit["status"], audit["why"]) == (
        "rel-1",
        "done",
        "reseated the IB cable",
    )
    assert audit["at"] and audit["done_at"] and audit["source"] == "testclient"
    assert replica.client.get("/api/v1/requests/rel-1").json()["status"] == "done"
    [incident] = replica.client.get("/api/v1/incidents").json()
    detail = replica.client.get(f"/api/v1/incidents/{incident['id']}").json()
    assert [a["id"] for a in detail["audit"]] == ["rel-1"]
    assert any(e["what"] == "operator release" for e in detail["timeline"])


def test_a_release_sent_twice_with_one_request_id_is_one_request(
    fleet: Fleet, replica: Replica
) -> None:
    needs_attention(fleet, replica, "n2")
    first = replica.client.post("/api/v1/nodes/n2/release", json=body(request_id="same"))
    again = replica.client.post("/api/v1/nodes/n2/release", json=body(request_id="same"))
    assert first.json() == again.json() and first.json()["by"] == "token:rig-operator"
    other = replica.client.post("/api/v1/breaker/reset", json=body(request_id="same"))
    assert other.status_code == 409 and "same" in other.json()["detail"]
    fleet.advance(1, replica)
    ours = [t for t in replica.client.get("/api/v1/nodes/n2").json()["transitions"]]
    assert sum(t["why"].startswith("released") for t in ours) == 1


def test_any_replica_takes_the_release_and_the_leader_acts(fleet: Fleet, tmp_path: Path) -> None:
    leader = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    standby = fleet.replica(SqliteStore(tmp_path / "engine.db"), "b")
    leader.step()
    standby.step()
    assert leader.leading and not standby.leading
    needs_attention(fleet, leader, "n3")
    answer = standby.client.post("/api/v1/nodes/n3/release", json=body("via the standby"))
    assert answer.status_code == 202
    fleet.advance(1, leader, standby)
    assert leader.client.get("/api/v1/nodes/n3").json()["state"] == "healthy"


def test_release_needs_a_why_and_a_known_node(fleet: Fleet, replica: Replica) -> None:
    post_signal(fleet, replica, xid79("n4", fleet.clock))
    fleet.advance(1, replica)
    missing = replica.client.post("/api/v1/nodes/n4/release", json={})
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "why"]
    empty = replica.client.post("/api/v1/nodes/n4/release", json=body(""))
    assert empty.status_code == 422
    bad_id = replica.client.post("/api/v1/nodes/n4/release", json=body(request_id="a b"))
    assert bad_id.status_code == 422 and "request_id" in bad_id.json()["detail"][0]["loc"]
    unknown = replica.client.post("/api/v1/nodes/n404/release", json=body())
    assert unknown.status_code == 404 and "n404" in unknown.json()["detail"]
    from_quarantine = replica.client.post("/api/v1/nodes/n4/release", json=body("not a fault"))
    assert from_quarantine.status_code == 202
    fleet.advance(1, replica)
    assert replica.client.get("/api/v1/nodes/n4").json()["state"] == "healthy"


# --- maintenance --------------------------------------------------------------------------


def racked(tmp_path: Path) -> tuple[Fleet, Replica]:
    """An engine whose fake cluster has racks r0 (n0-n3) and r1 (n4-n7)."""
    clock = FakeClock()
    bare = fake_cluster(clock)
    topology = Topology.from_labels({f"n{i}": {"rack": f"r{i // 4}"} for i in range(8)})
    fleet = Fleet(clock, Cluster(bare.scheduler, bare.diagnostics, bare.notifier, topology))
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    return fleet, replica


def test_maintenance_of_a_rack_via_api_keeps_the_engine_off_and_out_again(tmp_path: Path) -> None:
    fleet, replica = racked(tmp_path)
    bob = as_caller(replica, "token:bob")
    put = bob.put("/api/v1/maintenance/rack:r0", json=body("PDU swap", request_id="m-1"))
    assert put.status_code == 200, put.text
    assert (put.json()["status"], put.json()["target"], put.json()["by"]) == (
        "done", "rack:r0", "token:bob",
    )  # fmt: skip
    [held] = replica.client.get("/api/v1/maintenance").json()
    assert held["id"] == "m-1" and held["why"] == "PDU swap"
    for node in ("n1", "n5"):
        post_signal(fleet, replica, xid79(node, fleet.clock))
    fleet.advance(1, replica)
    n1 = replica.client.get("/api/v1/nodes/n1").json()
    assert n1["state"] == "healthy" and n1["signals"][0]["signal"] == "xid.79"
    assert n1["maintenance"]["target"] == "rack:r0" and n1["actions"] == []
    assert replica.client.get("/api/v1/nodes/n5").json()["state"] == "quarantined"
    assert scheduler(fleet).schedulable("n1")
    assert "autorecover_maintenance_targets 1.0" in replica.client.get("/metrics").text
    end = bob.request(
        "DELETE", "/api/v1/maintenance/rack:r0", json=body("swapped", request_id="m-2")
    )
    assert end.status_code == 200 and end.json()["status"] == "done"
    assert replica.client.get("/api/v1/maintenance").json() == []
    again = bob.request("DELETE", "/api/v1/maintenance/rack:r0", json=body("twice"))
    assert again.json()["status"] == "refused" and again.json()["result"] == "it was not on"
    fleet.clock.advance(120)
    post_signal(fleet, replica, xid79("n1", fleet.clock))
    fleet.advance(1, replica)
    transitions = replica.client.get("/api/v1/nodes/n1").json()["transitions"]
    assert transitions[0]["to_state"] == "quarantined"  # looked after again
    audit = replica.client.get("/api/v1/audit", params={"target": "rack:r0"}).json()
    assert [(a["kind"], a["status"]) for a in audit] == [
        ("maintenance_on", "done"), ("maintenance_off", "done"), ("maintenance_off", "refused"),
    ]  # fmt: skip


def test_maintenance_of_one_node_and_a_bad_target(fleet: Fleet, replica: Replica) -> None:
    put = replica.client.put("/api/v1/maintenance/n7", json=body("reseat DIMMs"))
    assert put.status_code == 200 and put.json()["target"] == "node:n7"
    post_signal(fleet, replica, xid79("n7", fleet.clock))
    fleet.advance(1, replica)
    detail = replica.client.get("/api/v1/nodes/n7").json()
    assert detail["state"] == "healthy" and detail["maintenance"]["why"] == "reseat DIMMs"
    assert [a["kind"] for a in detail["audit"]] == ["maintenance_on"]
    bad = replica.client.put("/api/v1/maintenance/row:r9", json=body())
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["path", "target"]
    no_why = replica.client.put("/api/v1/maintenance/n7", json={"why": ""})
    assert no_why.status_code == 422


# --- the breaker --------------------------------------------------------------------------


def tight_replica(
    fleet: Fleet, path: Path, name: str = "a", dry_run: bool = False, max_nodes: int = 2
) -> Replica:
    """An engine whose breaker trips after `max_nodes` removals an hour (on `path`)."""
    policies = roomy()
    hardware = policies.hardware
    hardware = replace(hardware, breaker=replace(hardware.breaker, max_nodes=max_nodes))
    assert fleet.cluster is not None
    engine = build_engine(
        SqliteStore(path), fleet.clock, fleet.cluster, replace(policies, hardware=hardware),
        replace(SETTINGS, dry_run=dry_run), replica=name, background=False, owns_store=True,
    )  # fmt: skip
    replica = Replica(engine, RigClient(fleet.app(engine), fleet.tokens))
    replica.step()
    return replica


def faults(fleet: Fleet, replica: Replica, *nodes: str) -> None:
    for node in nodes:
        post_signal(fleet, replica, xid79(node, fleet.clock))
    fleet.advance(1, replica)


def test_breaker_reset_via_api(fleet: Fleet, tmp_path: Path) -> None:
    first = tight_replica(fleet, tmp_path / "engine.db")
    faults(fleet, first, "n1", "n2", "n3")
    assert first.client.get("/api/v1/breaker").json()["live"]["tripped"]
    first.engine.stop()  # a restart: the breaker latches across it
    fleet.clock.advance(3700)  # past the window and the hold: only the latch holds nodes now
    replica = tight_replica(fleet, tmp_path / "engine.db", "b")
    breaker = replica.client.get("/api/v1/breaker").json()
    assert breaker["mode"] == "live" and breaker["live"]["tripped"]
    assert "nodes taken out" in breaker["live"]["reason"] and not breaker["dry_run"]["tripped"]
    faults(fleet, replica, "n4")
    assert replica.client.get("/api/v1/nodes/n4").json()["state"] == "healthy"  # refused
    carol = as_caller(replica, "token:carol")
    answer = carol.post(
        "/api/v1/breaker/reset", json=body("a bad cable batch, replaced", request_id="brk-1")
    )
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    fleet.advance(1, replica)
    live = replica.client.get("/api/v1/breaker").json()["live"]
    assert not live["tripped"] and live["reset_by"] == "token:carol"
    assert live["reset_why"] == "a bad cable batch, replaced (brk-1)" and live["reset_at"]
    assert "autorecover_breaker_tripped 0.0" in replica.client.get("/metrics").text
    assert replica.client.get("/api/v1/requests/brk-1").json()["status"] == "done"
    faults(fleet, replica, "n5")
    assert replica.client.get("/api/v1/nodes/n5").json()["transitions"][0]["to_state"] == (
        "quarantined"
    )
    [entry] = replica.client.get("/api/v1/audit", params={"target": ""}).json()
    assert (entry["kind"], entry["by"], entry["source"]) == (
        "reset_breaker", "token:carol", "testclient",
    )  # fmt: skip
    replica.engine.stop()


def test_dry_run_trial_then_live_with_the_breaker_closed(fleet: Fleet, tmp_path: Path) -> None:
    trial = tight_replica(fleet, tmp_path / "engine.db", dry_run=True)
    faults(fleet, trial, "n1", "n2", "n3")  # two would-have removals; n3 held, trips it
    breaker = trial.client.get("/api/v1/breaker").json()
    assert breaker["mode"] == "dry_run"
    assert breaker["dry_run"]["tripped"] and not breaker["live"]["tripped"]
    metrics = trial.client.get("/metrics").text
    assert "autorecover_dry_run_breaker_tripped 1.0" in metrics
    assert "autorecover_breaker_tripped 0.0" in metrics
    assert scheduler(fleet).log == []  # a trial touches nothing
    for _ in range(10):
        fleet.advance(10, trial)  # the would-have ladders end
    trial.engine.stop()
    # Going live on the same store, within the hour: the live breaker is closed and counts
    # only live removals. n3's fault was real and is still held: it goes out now, then n5 and
    # n6 — three live removals, the limit; counting the trial's two would have tripped at n5.
    live = tight_replica(fleet, tmp_path / "engine.db", "b", max_nodes=3)
    assert not live.client.get("/api/v1/breaker").json()["live"]["tripped"]
    faults(fleet, live, "n5", "n6")
    for node in ("n3", "n5", "n6"):
        transitions = live.client.get(f"/api/v1/nodes/{node}").json()["transitions"]
        assert transitions[-1]["from_state"] == "healthy", node
        assert not scheduler(fleet).schedulable(node), node
    assert not live.client.get("/api/v1/breaker").json()["live"]["tripped"]
    live.engine.stop()


# --- pause and resume ---------------------------------------------------------------------


def test_pause_and_resume_all_acting_via_api(fleet: Fleet, replica: Replica) -> None:
    erin = as_caller(replica, "token:erin")
    paused = erin.post("/api/v1/acting/pause", json=body("change freeze", request_id="p-1"))
    assert paused.status_code == 200 and paused.json()["status"] == "done"
    acting = replica.client.get("/api/v1/acting").json()
    assert acting["paused"] and acting["request"]["by"] == "token:erin"
    ready = replica.client.get("/readyz").json()
    assert ready["acting"] == "paused" and ready["status"] == "ok"
    assert "autorecover_acting_paused 1.0" in replica.client.get("/metrics").text
    post_signal(fleet, replica, xid79("n1", fleet.clock))
    fleet.advance(1, replica)
    node = replica.client.get("/api/v1/nodes/n1").json()
    assert node["state"] == "healthy" and node["held"] == "quarantine"
    assert node["events"][-1]["text"].startswith("acting paused: held healthy -> quarantined")
    assert scheduler(fleet).log == []
    resumed = erin.post("/api/v1/acting/resume", json=body("freeze over"))
    assert resumed.json()["status"] == "done" and "token:erin" in resumed.json()["result"]
    assert replica.client.get("/readyz").json()["acting"] == "active"
    fleet.advance(10, replica)
    assert replica.client.get("/api/v1/nodes/n1").json()["transitions"][0]["to_state"] == (
        "quarantined"
    )
    assert not scheduler(fleet).schedulable("n1")


# --- acknowledging ------------------------------------------------------------------------


def test_acknowledging_an_incident_is_recorded_and_shown(fleet: Fleet, replica: Replica) -> None:
    post_signal(fleet, replica, xid79("n1", fleet.clock))
    fleet.advance(1, replica)
    [incident] = replica.client.get("/api/v1/incidents").json()
    frank = as_caller(replica, "token:frank")
    path = f"/api/v1/incidents/{incident['id']}/acknowledge"
    answer = frank.post(path, json=body("on it: ticket HW-1234", request_id="ack-1"))
    assert answer.status_code == 200, answer.text
    assert (answer.json()["status"], answer.json()["target"]) == ("done", incident["id"])
    detail = replica.client.get(f"/api/v1/incidents/{incident['id']}").json()
    [ack] = detail["audit"]
    assert (ack["kind"], ack["by"], ack["why"]) == (
        "acknowledge", "token:frank", "on it: ticket HW-1234",
    )  # fmt: skip
    [mark] = [e for e in detail["timeline"] if e["what"] == "operator acknowledge"]
    assert mark["text"] == "token:frank from testclient: on it: ticket HW-1234 [done]"
    missing = frank.post("/api/v1/incidents/hw/none/acknowledge", json=body())
    assert missing.status_code == 404 and "hw/none" in missing.json()["detail"]
    assert frank.post(path, json={}).status_code == 422


# --- a job's recovery: retry and stop -----------------------------------------------------

MODULE_NOT_FOUND = "ModuleNotFoundError: No module named 'flash_attn.flash_attention'\n"


def with_jobs(fleet: Fleet, tmp_path: Path) -> tuple[Replica, FakeJobScheduler]:
    """An engine hosting job recovery on its SQLite file, over a fake job scheduler."""
    db = tmp_path / "engine.db"
    jobs = FakeJobScheduler(fleet.clock, ["n0", "n1", "n2", "n3"])
    wiring = jobs_on(f"sqlite:///{db}", jobs, fleet.clock, roomy(), dry_run=False)
    assert fleet.cluster is not None
    engine = build_engine(
        SqliteStore(db), fleet.clock, fleet.cluster, roomy(), SETTINGS, replica="a",
        jobs=wiring, background=False, owns_store=True,
    )  # fmt: skip
    replica = Replica(engine, RigClient(fleet.app(engine), fleet.tokens))
    replica.step()
    return replica, jobs


def an_application_error(fleet: Fleet, replica: Replica, jobs: FakeJobScheduler) -> None:
    """A job fails for a reason no retry fixes: job recovery decides to stop it."""
    jobs.submit("train", ["n0", "n1"])
    fleet.advance(10, replica)
    for node in ("n0", "n1"):
        jobs.write("train", node, MODULE_NOT_FOUND)
    jobs.fail("train", {"n0": 1, "n1": 1})
    fleet.advance(10, replica)
    fleet.advance(10, replica)


def test_retry_and_stop_a_jobs_recovery_via_api(fleet: Fleet, tmp_path: Path) -> None:
    replica, jobs = with_jobs(fleet, tmp_path)
    an_application_error(fleet, replica, jobs)
    assert [k for k, _, _ in jobs.log] == ["stop"]
    grace = as_caller(replica, "token:grace")
    answer = grace.post("/api/v1/jobs/train/retry", json=body("image fixed", request_id="rt-1"))
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    assert [k for k, _, _ in jobs.log] == ["stop"]  # the API never calls the cluster
    fleet.advance(10, replica)  # job recovery's pass acts on it
    assert [k for k, _, _ in jobs.log] == ["stop", "requeue"]
    done = replica.client.get("/api/v1/requests/rt-1").json()
    assert (done["status"], done["by"], done["kind"]) == ("done", "token:grace", "retry_job")
    [incident] = replica.client.get("/api/v1/incidents").json()
    detail = replica.client.get(f"/api/v1/incidents/{quoted(incident['id'])}").json()
    assert [a["id"] for a in detail["audit"]] == ["rt-1"]
    assert any(e["what"] == "operator retry_job" for e in detail["timeline"])
    ack = grace.post(
        f"/api/v1/incidents/{quoted(incident['id'])}/acknowledge",
        json=body("mine", request_id="a-1"),
    )
    assert ack.status_code == 200 and ack.json()["status"] == "done"
    detail = replica.client.get(f"/api/v1/incidents/{quoted(incident['id'])}").json()
    assert [a["id"] for a in detail["audit"]] == ["rt-1", "a-1"]  # a job incident's, too
    stop = grace.post("/api/v1/jobs/train/stop", json=body("the user debugs it", request_id="st-1"))
    assert stop.status_code == 202
    fleet.advance(10, replica)
    [job] = replica.client.get("/api/v1/jobs").json()
    assert job["recovery"] == "stopped"
    assert job["events"][-1].startswith("recovery stopped by token:grace from testclient (st-1)")
    audit = replica.client.get("/api/v1/audit", params={"target": "train"}).json()
    assert [(a["id"], a["status"]) for a in audit] == [("rt-1", "done"), ("st-1", "done")]
    replica.engine.stop()


def test_a_pause_holds_job_recovery_too(fleet: Fleet, tmp_path: Path) -> None:
    replica, jobs = with_jobs(fleet, tmp_path)
    replica.client.post("/api/v1/acting/pause", json=body("freeze"))
    an_application_error(fleet, replica, jobs)
    assert jobs.log == []  # decided and recorded, not executed
    [action] = [a for a in replica.client.get("/api/v1/jobs").json()[0]["attempts"]]
    assert action["action"] == "stop"
    replica.client.post("/api/v1/acting/resume", json=body("go"))
    fleet.advance(10, replica)
    assert [k for k, _, _ in jobs.log] == ["stop"]
    replica.engine.stop()


def test_job_controls_without_job_recovery_are_404(replica: Replica) -> None:
    answer = replica.client.post("/api/v1/jobs/train/retry", json=body())
    assert answer.status_code == 404 and "not hosted" in answer.json()["detail"]


def test_text_a_database_cannot_keep_is_a_422_not_a_500(fleet: Fleet, replica: Replica) -> None:
    nul = replica.client.post("/api/v1/breaker/reset", json=body("a\x00b"))
    assert nul.status_code == 422 and nul.json()["detail"][0]["loc"] == ["body", "why"]
    for path in ("/api/v1/nodes/n%001/release", "/api/v1/incidents/hw%00x/acknowledge",
                 "/api/v1/jobs/j%00/retry"):  # fmt: skip
        answer = replica.client.post(path, json=body())
        assert answer.status_code == 422, (path, answer.text)
    assert replica.client.get("/api/v1/audit", params={"target": "a\x00"}).status_code == 422
    long = replica.client.post("/api/v1/breaker/reset", json=body("x" * 1001))
    assert long.status_code == 422
