"""The demo's engine on the web dashboard: its simulated nodes on the fleet page, served
without sign-in on loopback; a port in use is reported and the demo goes on without it."""

from __future__ import annotations

import re
import socket
import urllib.request
from pathlib import Path

import click
import pytest

from autorecover.cli.demo import _dashboard
from autorecover.demo.scenarios import run_scenario
from autorecover.demo.stack import Demo, DemoSettings
from server.support import free_port


def test_dashboard_of_the_demo_shows_its_simulated_nodes(tmp_path: Path) -> None:
    listen = f"127.0.0.1:{free_port()}"
    demo = Demo(tmp_path, DemoSettings(dashboard=listen))
    try:
        assert demo.dashboard is not None and demo.dashboard.url == f"http://{listen}/ui/fleet"
        with urllib.request.urlopen(demo.dashboard.url, timeout=10) as answer:
            page = answer.read().decode()
        assert re.findall(r'title="([^"]+)"></i>', page) == [n.name for n in demo.nodes]
    finally:
        demo.close()


def test_dashboard_of_the_demo_on_a_port_in_use_is_reported_not_fatal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _dashboard(f"127.0.0.1:{port}") is None
    assert "dashboard not served" in capsys.readouterr().out
    assert _dashboard("off") is None
    with pytest.raises(click.BadParameter, match="loopback"):
        _dashboard("0.0.0.0:8080")


def test_dashboard_of_the_demo_taken_after_the_probe_is_reported_not_fatal(tmp_path: Path) -> None:
    """Another demo binds the port between the command line's probe and the demo's start."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        listen = f"127.0.0.1:{taken.getsockname()[1]}"
        said: list[str] = []
        outcome = run_scenario(tmp_path, "rank-crash", said.append, DemoSettings(dashboard=listen))
    assert outcome.ok, outcome.problems
    assert any(f"dashboard not served: {listen}" in line for line in said), said
