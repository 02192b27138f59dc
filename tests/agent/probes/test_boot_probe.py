"""The boot probe (`agent/probes/boots.py`) through the wiring and the daemon's own state file:
a node that booted again without the agent being stopped reports `node.hard_restart` once; an
orderly stop, a restart of the agent alone and the first run report nothing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from agent.support import at, write
from autorecover.adapters.host.agent_state import StateFile
from autorecover.agent.daemon import Agent, Scheduled
from autorecover.agent.probes.base import ProbeStatus
from autorecover.agent.sending import Outbox
from autorecover.agent.thresholds import Thresholds
from autorecover.agent.wiring import AgentConfig, build_probes
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

OTHERS = frozenset(p for p in Probe if p not in (Probe.BOOT, Probe.JOB, Probe.ENGINE))
BOOT_A = "2b6d7e0c-91a4-4e55-9f1e-0c3b5a7d8e11"
BOOT_B = "8f04c2d9-3e7a-4b61-a0d2-5c9e1f6b7a20"
BTIME = 1772445600  # 2026-03-02T10:00:00Z


class Kept:
    """Where the outbox posts (the daemon's own tests use a real HTTP engine; this probe's
    behaviour is in what it raises)."""

    def __init__(self) -> None:
        self.documents: list[Mapping[str, Any]] = []

    def post(self, document: Mapping[str, Any]) -> None:
        self.documents.append(document)


class Node:
    """A node's /proc under `root`, and the agent's state file, across boots."""

    def __init__(self, root: Path, thresholds: Thresholds) -> None:
        self.root, self.thresholds = root, thresholds
        self.state = StateFile(root / "var/lib/autorecover/agent/state.json")

    def boot(self, boot_id: str, btime: int = BTIME) -> None:
        write(self.root / "proc/sys/kernel/random/boot_id", boot_id + "\n")
        write(self.root / "proc/stat", f"cpu  1 2 3 4\nbtime {btime}\n")

    def agent(self) -> Agent:
        config = AgentConfig(node="gpu-h02", root=self.root, skip=OTHERS)
        probes = build_probes(config, builtin_catalog(), self.thresholds)
        outbox = Outbox(node="gpu-h02", client=Kept(), heartbeat_s=None, jitter=None)
        return Agent("gpu-h02", [Scheduled(p, 3600) for p in probes], outbox, self.state)

    def start(self) -> tuple[Agent, list[NodeSignal]]:
        """The agent starts and looks once; what its boot probe raised."""
        agent = self.agent()
        agent.restore()
        report = agent.tick(at(0))
        (result,) = report.polled
        assert result.probe is Probe.BOOT
        return agent, list(result.signals)

    def run_and_stop(self) -> None:
        """The agent runs and is stopped in order (SIGTERM at a shutdown)."""
        times: Iterator[int] = iter(range(0, 100))
        self.agent().run(lambda: at(next(times)), lambda _: True)


def test_the_first_run_and_an_orderly_stop_then_reboot_report_nothing(
    tmp_path: Path, thresholds: Thresholds
) -> None:
    node = Node(tmp_path, thresholds)
    node.boot(BOOT_A)
    assert node.start()[1] == []  # nothing saved before
    node.run_and_stop()
    assert node.state.load()["boot"] == {"boot_id": BOOT_A, "clean": True}
    node.boot(BOOT_B)
    assert node.start()[1] == []  # the boot before ended with the agent stopped: a shutdown


def test_a_node_that_booted_again_under_a_running_agent_reports_a_hard_restart(
    tmp_path: Path, thresholds: Thresholds
) -> None:
    node = Node(tmp_path, thresholds)
    node.boot(BOOT_A)
    node.start()  # the agent runs and saves its state as it goes; then the node goes down hard
    assert node.state.load()["boot"] == {"boot_id": BOOT_A, "clean": False}
    node.boot(BOOT_B, BTIME + 7200)
    agent, signals = node.start()
    (s,) = signals
    assert (s.signal, s.probe, s.blame, s.weight) == (
        "node.hard_restart", Probe.BOOT, Blame.HARDWARE, 45
    )  # fmt: skip
    assert s.node_action is NodeAction.MONITOR and s.at == at(7200)
    assert dict(s.details) == {"boot_id": BOOT_B, "previous_boot_id": BOOT_A}
    assert "without the agent being stopped" in s.text
    later = agent.tick(at(7200)).polled  # polled again an hour on: it said it once
    assert [r.signals for r in later] == [()]
    # ... and a restart of the agent alone, on the same boot, says nothing more
    assert node.start()[1] == []


def test_without_a_boot_id_the_probe_is_unavailable(tmp_path: Path, thresholds: Thresholds) -> None:
    node = Node(tmp_path, thresholds)
    agent = node.agent()
    (result,) = agent.tick(at(0)).polled
    assert result.status is ProbeStatus.UNAVAILABLE and result.signals == ()
