"""`autorecover nodes|jobs|incidents|incident`: rendered from a running engine over HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from click.testing import CliRunner

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.cli.views import incident_cmd, incidents_cmd, jobs_cmd, nodes_cmd, table
from autorecover.server.tokens import Role
from server.support import Fleet, Replica, document, free_port, xid79

Served = tuple[str, Replica]


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def token_file(fleet: Fleet, tmp_path: Path) -> Path:
    """The rig operator's token, in a file as a person keeps it."""
    path = tmp_path / "operator.token"
    path.write_text(fleet.tokens.operator + "\n")
    return path


@pytest.fixture
def served(fleet: Fleet, tmp_path: Path) -> Iterator[Served]:
    """An engine with one quarantined node, served by uvicorn on a free loopback port; the
    views read it with `--token-file` (AUTORECOVER_TOKEN_FILE)."""
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    replica.client.post(
        "/api/v1/signals", json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    )
    fleet.advance(1, replica)
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
    yield f"http://127.0.0.1:{port}", replica
    server.should_exit = True
    thread.join(10)


def runner_with(token_file: Path | None) -> CliRunner:
    return CliRunner(env={"AUTORECOVER_TOKEN_FILE": str(token_file) if token_file else None,
                          "AUTORECOVER_TOKEN": None})  # fmt: skip


def test_views_render_tables_and_json(served: Served, token_file: Path) -> None:
    url, _ = served
    runner = runner_with(token_file)
    nodes = runner.invoke(nodes_cmd, ["--engine", url])
    assert nodes.exit_code == 0, nodes.output
    header, row = nodes.output.splitlines()
    assert header.split()[:3] == ["NODE", "STATE", "SINCE"]
    assert row.split()[:2] == ["n1", "quarantined"] and "xid.79" in row
    as_json = json.loads(runner.invoke(nodes_cmd, ["--engine", url, "--json"]).output)
    assert as_json[0]["name"] == "n1"
    jobs = runner.invoke(jobs_cmd, ["--engine", url])
    assert jobs.exit_code == 0 and jobs.output.strip() == "no jobs yet"
    incidents = runner.invoke(incidents_cmd, ["--engine", url])
    assert incidents.exit_code == 0
    incident_id = incidents.output.splitlines()[1].split()[0]
    assert incident_id.startswith("hw/n1/")
    one = runner.invoke(incident_cmd, [incident_id, "--engine", url])
    assert one.exit_code == 0, one.output
    assert "cause:   hardware" in one.output and "evidence:" in one.output
    assert "quarantined: quarantine: xid.79" in one.output and "Xid" in one.output
    assert json.loads(runner.invoke(incident_cmd, [incident_id, "--engine", url, "--json"]).output)[
        "timeline"
    ]


def test_incidents_take_a_limit_and_list_the_open_ones(
    served: Served, token_file: Path, fleet: Fleet
) -> None:
    url, replica = served
    replica.client.post(
        "/api/v1/signals", json=document("n2", xid79("n2", fleet.clock), clock=fleet.clock)
    )
    fleet.advance(1, replica)
    runner = runner_with(token_file)
    first = runner.invoke(incidents_cmd, ["--engine", url, "--limit", "1"])
    assert first.exit_code == 0, first.output
    assert "(the newest 1; --limit for more)" in first.output  # on stderr: there are two
    [row] = [line for line in first.output.splitlines() if line.startswith("hw/")]
    assert row.startswith("hw/n2/")  # the newest
    both = runner.invoke(incidents_cmd, ["--engine", url, "--limit", "2"])
    assert both.exit_code == 0 and "--limit for more" not in both.output  # nothing cut
    opened = runner.invoke(incidents_cmd, ["--engine", url, "--open", "--json"])
    assert [i["state"] for i in json.loads(opened.output)] == ["open", "open"]
    bad = runner.invoke(incidents_cmd, ["--engine", url, "--limit", "0"])
    assert bad.exit_code == 2 and "--limit" in bad.output


def test_an_unknown_incident_and_an_absent_engine_are_errors(
    served: Served, token_file: Path
) -> None:
    url, _ = served
    runner = runner_with(token_file)
    missing = runner.invoke(incident_cmd, ["hw/nope", "--engine", url])
    assert missing.exit_code == 1 and "404" in missing.output
    away = runner.invoke(nodes_cmd, ["--engine", f"http://127.0.0.1:{free_port()}"])
    assert away.exit_code == 1 and "unreachable" in away.output


def test_table_aligns_columns() -> None:
    assert table([("a", "bb"), ("ccc", "d")], ("X", "Y")) == "X    Y\na    bb\nccc  d"


def test_security_views_without_a_token_are_refused_with_a_hint(served: Served) -> None:
    url, _ = served
    refused = runner_with(None).invoke(nodes_cmd, ["--engine", url])
    assert refused.exit_code == 1
    assert "401" in refused.output and "--token-file" in refused.output


def test_security_a_viewer_sees_states_but_no_evidence(
    served: Served, fleet: Fleet, tmp_path: Path
) -> None:
    url, _ = served
    viewer = tmp_path / "viewer.token"
    viewer.write_text(fleet.tokens.add("dashboard", Role.VIEWER))
    runner = CliRunner(env={"AUTORECOVER_TOKEN_FILE": None, "AUTORECOVER_TOKEN": None})
    nodes = json.loads(
        runner.invoke(nodes_cmd, ["--engine", url, "--json", "--token-file", str(viewer)]).output
    )
    assert nodes[0]["state"] == "quarantined" and nodes[0]["evidence"] == []
    incident_id = json.loads(
        runner.invoke(
            incidents_cmd, ["--engine", url, "--json", "--token-file", str(viewer)]
        ).output
    )[0]["id"]
    one = runner.invoke(incident_cmd, [incident_id, "--engine", url, "--token-file", str(viewer)])
    assert one.exit_code == 1 and "403" in one.output and "evidence role" in one.output
    # The token itself may come from AUTORECOVER_TOKEN instead of a file.
    by_env = CliRunner(env={"AUTORECOVER_TOKEN_FILE": None,
                            "AUTORECOVER_TOKEN": fleet.tokens.operator})  # fmt: skip
    assert by_env.invoke(incident_cmd, [incident_id, "--engine", url]).exit_code == 0
