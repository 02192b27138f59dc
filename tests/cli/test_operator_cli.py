"""The operator controls from the command line, against a running engine over HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from click.testing import CliRunner, Result

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.cli.main import main
from server.support import Fleet, Replica, document, free_port
from server.test_operator_api import an_application_error, port_down, with_jobs


@dataclass
class Served:
    url: str
    fleet: Fleet
    replica: Replica

    def run(self, *args: str) -> Result:
        token = self.fleet.tokens.operator
        return CliRunner().invoke(
            main, [*args, "--engine", self.url], env={"AUTORECOVER_TOKEN": token}
        )

    def step(self) -> None:
        self.fleet.advance(1, self.replica)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """An engine with node n1 in needs_attention, served by uvicorn on a loopback port."""
    fleet = Fleet()
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    signal = port_down("n1", fleet.clock)
    replica.client.post("/api/v1/signals", json=document("n1", signal, clock=fleet.clock))
    for _ in range(6):
        fleet.advance(10, replica)
    yield from serve(fleet, replica)


@pytest.fixture
def served_jobs(tmp_path: Path) -> Iterator[Served]:
    """An engine hosting job recovery, with job `train` stopped for an application error."""
    fleet = Fleet()
    replica, jobs = with_jobs(fleet, tmp_path)
    an_application_error(fleet, replica, jobs)
    yield from serve(fleet, replica)
    replica.engine.stop()


def serve(fleet: Fleet, replica: Replica) -> Iterator[Served]:
    """The replica's app served by uvicorn on a free loopback port, while the test runs."""
    port = free_port()
    config = uvicorn.Config(fleet.app(replica.engine), host="127.0.0.1", port=port,
                            lifespan="off", log_level="warning")  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:  # bounded wait for the socket, not a sleep-for-effect
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield Served(f"http://127.0.0.1:{port}", fleet, replica)
    server.should_exit = True
    thread.join(10)


def test_node_release_from_the_command_line_is_recorded_and_acted_on(served: Served) -> None:
    node = served.replica.client.get("/api/v1/nodes/n1").json()
    assert node["state"] == "needs_attention"
    released = served.run("node", "release", "n1", "--why", "reseated", "--request-id", "cli-1")
    assert released.exit_code == 0, released.output
    assert released.output.startswith("release n1: recorded, pending")
    assert "request cli-1, by token:rig-operator" in released.output
    served.step()
    node = served.replica.client.get("/api/v1/nodes/n1").json()
    assert node["state"] == "healthy" and node["audit"][0]["source"] == "127.0.0.1"
    audit = served.run("audit", "--target", "n1")
    assert audit.exit_code == 0, audit.output
    header, row = audit.output.splitlines()
    assert header.split() == ["AT", "KIND", "TARGET", "BY", "FROM", "STATUS", "WHY"]
    assert row.split()[2:8] == [
        "release",
        "n1",
        "token:rig-operator",
        "127.0.0.1",
        "done",
        "reseated",
    ]
    again = served.run("node", "release", "n1", "--why", "again", "--json")
    assert again.exit_code == 0 and json.loads(again.output)["status"] == "pending"
    served.step()
    refused = served.run("audit", "--json")
    assert json.loads(refused.output)[-1]["result"] == "n1 is healthy: nothing to release"


def test_a_control_without_why_or_engine_is_a_clear_error(served: Served) -> None:
    no_why = served.run("node", "release", "n1")
    assert no_why.exit_code == 2 and "--why" in no_why.output
    unknown = served.run("node", "release", "n404", "--why", "x")
    assert unknown.exit_code == 1 and "404" in unknown.output and "n404" in unknown.output
    away = CliRunner().invoke(
        main, ["node", "release", "n1", "--why", "x", "--engine", f"http://127.0.0.1:{free_port()}"]
    )
    assert away.exit_code == 1 and "unreachable" in away.output


def test_maintenance_from_the_command_line(served: Served) -> None:
    start = served.run("maintenance", "start", "rack:r7", "--why", "PDU swap")
    assert start.exit_code == 0, start.output
    assert start.output.startswith("maintenance_on rack:r7: done")
    listed = served.run("maintenance", "list")
    _header, row = listed.output.splitlines()
    assert row.split()[2:5] == ["maintenance_on", "rack:r7", "token:rig-operator"]
    assert "PDU swap" in row
    node = served.run("maintenance", "start", "n1", "--why", "BIOS", "--json")
    assert json.loads(node.output)["target"] == "node:n1"
    end = served.run("maintenance", "end", "rack:r7", "--why", "swapped")
    assert end.exit_code == 0 and "done: ended what was set by token:rig-operator" in end.output
    never = served.run("maintenance", "end", "rack:r7", "--why", "twice")
    assert never.exit_code == 1 and "refused: it was not on" in never.output
    bad = served.run("maintenance", "start", "row:1", "--why", "x")
    assert bad.exit_code == 1 and "422" in bad.output and "SCOPE" in bad.output
    assert "node:n1" in served.run("maintenance", "list").output


def test_breaker_show_and_reset_from_the_command_line(served: Served) -> None:
    shown = served.run("breaker", "show")
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines() == ["mode: live", "live: closed", "dry-run: closed"]
    reset = served.run("breaker", "reset", "--why", "looked", "--wait", "0")
    assert reset.exit_code == 0 and "reset_breaker: recorded, pending" in reset.output
    served.step()
    audit = json.loads(served.run("audit", "--json").output)
    assert (audit[-1]["status"], audit[-1]["result"]) == ("refused", "the breaker is not tripped")


def test_pause_and_resume_from_the_command_line(served: Served) -> None:
    assert served.run("acting", "status").output.splitlines()[0] == "acting: active"
    paused = served.run("acting", "pause", "--why", "change freeze")
    assert paused.exit_code == 0 and paused.output.startswith("pause_acting: done")
    status = served.run("acting", "status").output.splitlines()
    assert (
        status[0].startswith("acting: PAUSED by token:rig-operator")
        and "change freeze" in status[0]
    )
    resumed = served.run("acting", "resume", "--why", "over")
    assert resumed.exit_code == 0 and "ended what was set by token:rig-operator" in resumed.output
    assert served.run("acting", "status", "--json").output.count('"paused": false') == 1


def test_acknowledge_from_the_command_line_shows_in_the_incident(served: Served) -> None:
    incident = served.replica.client.get("/api/v1/incidents").json()[0]["id"]
    acked = served.run("acknowledge", incident, "--why", "ticket HW-7")
    assert acked.exit_code == 0, acked.output
    assert acked.output.startswith(f"acknowledge {incident}: done")
    shown = served.run("incident", incident)
    assert (
        "operator acknowledge: token:rig-operator from 127.0.0.1: ticket HW-7 [done]"
        in shown.output
    )
    missing = served.run("acknowledge", "hw/none", "--why", "x")
    assert missing.exit_code == 1 and "404" in missing.output


def test_job_retry_and_stop_from_the_command_line(served_jobs: Served) -> None:
    retried = served_jobs.run("job", "retry", "train", "--why", "image fixed")
    assert retried.exit_code == 0 and retried.output.startswith("retry_job train: recorded")
    served_jobs.fleet.advance(10, served_jobs.replica)
    stopped = served_jobs.run("job", "stop", "train", "--why", "debugging", "--json")
    assert json.loads(stopped.output)["kind"] == "stop_job"
    served_jobs.fleet.advance(10, served_jobs.replica)
    audit = json.loads(served_jobs.run("audit", "--target", "train", "--json").output)
    assert [(a["kind"], a["status"]) for a in audit] == [
        ("retry_job", "done"), ("stop_job", "done"),
    ]  # fmt: skip
    unknown = served_jobs.run("job", "retry", "nope", "--why", "x")
    assert unknown.exit_code == 0  # recorded; job recovery's pass refuses it
    served_jobs.fleet.advance(10, served_jobs.replica)
    last = json.loads(served_jobs.run("audit", "--json").output)[-1]
    assert (last["status"], last["result"]) == (
        "refused", "job 'nope' is not watched by job recovery",
    )  # fmt: skip


def test_wait_follows_a_pending_request_until_the_leader_settles_it(served: Served) -> None:
    done = threading.Event()

    def leader() -> None:  # the leader's passes, while the command waits
        while not done.wait(0.05):
            served.step()

    thread = threading.Thread(target=leader, daemon=True)
    thread.start()
    try:
        released = served.run("node", "release", "n1", "--why", "reseated", "--wait", "10")
    finally:
        done.set()
        thread.join(10)
    assert released.exit_code == 0, released.output
    assert released.output.startswith("release n1: done (request ")
