"""The real engine process: `serve` on a free port, signals from the agent's own client, a
kill -9 in the middle of a recovery, a restart — no acknowledged signal lost, no action done
twice — and a graceful SIGTERM that gives the lease up."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.fakes.journaled import effects
from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.engine_client import EngineClient
from autorecover.adapters.http.wire import batch_document
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.tokens import Role, entry_text, new_token, token_hash
from server.support import free_port

DEADLINE_S = 60.0  # every wait is bounded; a healthy run needs a fraction of this
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"
OPERATOR = new_token()
AGENTS = {node: new_token() for node in ("n1", "n2")}


def tokens_file(tmp: Path) -> Path:
    """The engine's tokens file: an operator, and an agent for each node (hashes only)."""
    path = tmp / "tokens.toml"
    path.write_text(
        entry_text("ops", {Role.OPERATOR}, None, token_hash(OPERATOR))
        + "".join(entry_text(node, {Role.AGENT}, node, token_hash(t)) for node, t in AGENTS.items())
    )
    return path  # fmt: skip


def _xid79(node: str) -> dict[str, Any]:
    s = NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, datetime.now(UTC),
        component="0000:3b:00.0", text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
    )  # fmt: skip
    return batch_document(node, [s], sent_at=datetime.now(UTC), dropped=0)


class Engine:
    """One `autorecover serve` process."""

    def __init__(self, tmp: Path, port: int) -> None:
        (tmp / "policy.toml").write_text(ROOMY)
        self.url = f"http://127.0.0.1:{port}"
        self.log = (tmp / "engine.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autorecover", "serve", "--scheduler", "fake",
             "--store", f"sqlite:///{tmp / 'engine.db'}", "--listen", f"127.0.0.1:{port}",
             "--policy", str(tmp / "policy.toml"), "--fake-state", str(tmp / "cluster.jsonl"),
             "--fake-diagnostics-s", "1.0", "--tick-s", "0.2", "--intake-s", "0.2",
             "--lease-ttl-s", "2", "--fleet-size", "100", "--log-level", "warning",
             "--tokens-file", str(tokens_file(tmp))],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def get(self, path: str) -> Any:
        request = urllib.request.Request(self.url + path,
                                         headers={"Authorization": f"Bearer {OPERATOR}"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.loads(r.read())

    def until(self, what: str, check: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"engine exited {self.proc.returncode}"
            try:
                if check():
                    return
            except OSError:
                pass  # not listening yet
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def state(self, node: str) -> str:
        return str(self.get(f"/api/v1/nodes/{node}")["state"])

    def leading(self) -> bool:
        return bool(self.get("/readyz")["role"] == "leader")

    def kill(self, sig: int = signal.SIGKILL) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(30)
        self.log.close()
        return code


@pytest.mark.slow
def test_kill_9_mid_recovery_loses_no_signal_and_repeats_no_action(tmp_path: Path) -> None:
    first = Engine(tmp_path, free_port())
    try:
        first.until("the first engine to lead", first.leading)

        def agent(node: str) -> EngineClient:  # the node agent's own client and wire format
            return EngineClient(first.url, credentials=ClientCredentials(token=AGENTS[node]))

        agent("n1").post(_xid79("n1"))
        first.until("n1 in diagnosis", lambda: first.state("n1") == "diagnosing")
        agent("n2").post(_xid79("n2"))  # acknowledged (202) ...
    finally:
        first.kill()  # ... and the engine dies at once, wherever it was
    second = Engine(tmp_path, free_port())
    try:
        second.until("the restarted engine to lead", second.leading)  # after the 2 s lease
        second.until(
            "both nodes back in service",
            lambda: second.state("n1") == "healthy" and second.state("n2") == "healthy",
        )
    finally:
        # graceful: passes finish, the lease goes; uvicorn then re-raises the signal it caught
        assert second.kill(signal.SIGTERM) in (0, -signal.SIGTERM)
    with sqlite3.connect(tmp_path / "engine.db") as db:
        rows = db.execute("SELECT id, node, seq, kind, status FROM actions").fetchall()
        leaving = db.execute(
            "SELECT node FROM transitions WHERE from_state = 'healthy' ORDER BY id"
        ).fetchall()
        (lease_expiry,) = db.execute("SELECT expires_us FROM leases").fetchone()
        (waiting,) = db.execute("SELECT COUNT(*) FROM inbox").fetchone()
    assert sorted(n for (n,) in leaving) == ["n1", "n2"]  # each quarantined once: no replay
    assert waiting == 0
    assert all(status == "done" for *_, status in rows), rows
    kinds = Counter((node, seq, kind) for _, node, seq, kind, _ in rows)
    assert all(count == 1 for count in kinds.values()), kinds
    done = effects(tmp_path / "cluster.jsonl")  # what the (fake) cluster really did, per id
    assert done and all(count == 1 for count in done.values()), done
    assert {i for i, *_ in rows if not i.endswith(("/diagnose", "/validate"))} <= set(done)
    for node in ("n1", "n2"):
        assert {k for n, _, k in kinds if n == node} >= {"cordon", "drain", "reboot", "resume"}
    assert lease_expiry == 0  # given up on SIGTERM: a standby would not have to wait
    assert (tmp_path / "engine.log").stat().st_size < 1_000_000


def _keepalive_timer(local_port: int, remote_port: int) -> tuple[int, int] | None:
    """(timer kind, ticks left) of the TCP connection from `local_port` to `remote_port` on
    loopback, as /proc/net/tcp shows it: kind 2 is the keep-alive timer."""
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        cols = row.split()
        local, remote, timer = cols[1], cols[2], cols[5]
        if (
            int(local.split(":")[1], 16) == local_port
            and int(remote.split(":")[1], 16) == remote_port
        ):
            kind, ticks = timer.split(":")
            return int(kind, 16), int(ticks, 16)
    return None


def test_the_served_engine_keeps_tcp_keepalive_on_every_connection(tmp_path: Path) -> None:
    """An agent's connection left half-open (a partition, a node powered off mid-request) must
    not hold its request open for good: the kernel's keep-alive timer runs on the engine's end
    of an idle connection (read from /proc/net/tcp, the engine being another process)."""
    import socket

    from autorecover.adapters import keepalive

    port = free_port()
    engine = Engine(tmp_path, port)
    try:
        engine.until("the engine listening", lambda: bool(engine.get("/readyz")))
        with socket.create_connection(("127.0.0.1", port), timeout=5) as idle:
            mine = idle.getsockname()[1]
            deadline = time.monotonic() + 5
            timer = _keepalive_timer(port, mine)
            while timer is None and time.monotonic() < deadline:
                time.sleep(0.05)
                timer = _keepalive_timer(port, mine)
            assert timer is not None, "the engine's end of the connection is not in /proc/net/tcp"
            kind, ticks = timer
            hz = os.sysconf("SC_CLK_TCK")
            assert kind == 2, f"no keep-alive timer on the engine's end (timer {kind})"
            assert 0 < ticks <= keepalive.IDLE_S * hz
    finally:
        engine.kill(signal.SIGTERM)


def test_serve_on_a_taken_port_says_so_and_exits(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        engine = Engine(tmp_path, port)
        code = engine.proc.wait(60)
        engine.log.close()
    text = (tmp_path / "engine.log").read_text()
    assert code == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in text
    assert "Traceback" not in text
