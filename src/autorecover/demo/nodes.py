"""Simulated nodes: each a directory the real agent code reads, ticked by the demo loop.

Every node gets a copy of the healthy fixture tree (`tests/fixtures/agent/nodes/healthy`:
`proc/`, `sys/class/infiniband/`, `sys/bus/pci/devices/`, an NVML replay snapshot) and its
own kernel-log file. `NodeAgent` builds the agent's own probes on that tree (`build_probes`,
DCGM left out: there is no dcgmi here) inside an `Agent`, whose outbox is replaced by the
engine's inbox: a tick's signals are written with `EngineStore.enqueue`, exactly where the
HTTP intake puts an agent's batch. Cursors are saved per node, so a restarted demo reads
each kernel line once.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from autorecover.adapters.host.agent_state import StateFile
from autorecover.adapters.store.base import EngineStore
from autorecover.agent.daemon import Scheduled, poll_safely
from autorecover.agent.thresholds import load_thresholds
from autorecover.agent.wiring import AgentConfig, build_probes
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.signals import NodeSignal, Probe

FIXTURE = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "agent" / "nodes" / "healthy"
IB_PORT = Path("sys/class/infiniband/mlx5_0/ports/1")
GPU_BDF = "0000:5d:00"


@dataclass(frozen=True, slots=True)
class SimNode:
    """Where one simulated node's interfaces live."""

    name: str
    home: Path

    @property
    def root(self) -> Path:
        """The node's `/` as the agent sees it."""
        return self.home / "root"

    @property
    def kernel_log(self) -> Path:
        """The node's kernel log (a plain file the agent follows)."""
        return self.home / "kern.log"

    @property
    def nvml(self) -> Path:
        """The node's NVML replay snapshot."""
        return self.root / "nvml.json"


def node_names(count: int) -> list[str]:
    """node-1 .. node-N."""
    return [f"node-{i}" for i in range(1, count + 1)]


def sim_nodes(directory: Path, names: Sequence[str]) -> list[SimNode]:
    """The nodes under `directory/nodes`, created from the healthy fixture when missing."""
    nodes = []
    for name in names:
        node = SimNode(name, directory / "nodes" / name)
        if not node.root.exists():
            if not FIXTURE.is_dir():
                raise FileNotFoundError(f"the healthy node fixture is missing: {FIXTURE}")
            shutil.copytree(FIXTURE, node.root)
            node.kernel_log.touch()
        nodes.append(node)
    return nodes


class NodeAgent:
    """The real agent's probes on one simulated node, feeding the engine's inbox."""

    def __init__(self, node: SimNode, store: EngineStore, interval_s: float = 0.2) -> None:
        config = AgentConfig(
            node=node.name, root=node.root, kernel_log=node.kernel_log,
            nvml_replay=node.nvml, skip=frozenset({Probe.DCGM, Probe.FABRIC}),
        )  # fmt: skip
        probes = build_probes(config, builtin_catalog(), load_thresholds())
        self.node, self._store = node, store
        self._probes = [Scheduled(p, interval_s) for p in probes]
        self._state = StateFile(node.home / "agent-state.json")
        saved = self._state.load()
        for s in self._probes:
            state = saved.get(str(s.probe.kind))
            if isinstance(state, dict):
                s.probe.restore(state)
        self.seen: list[NodeSignal] = []

    def tick(self, now: datetime) -> list[NodeSignal]:
        """Poll the due probes; their signals go to the inbox, then the cursors are saved."""
        found: list[NodeSignal] = []
        polled = False
        for s in self._probes:
            if s.next_at is not None and now < s.next_at:
                continue
            result = poll_safely(s.probe, now)
            s.next_at = now + timedelta(seconds=s.interval_s)
            found.extend(result.signals)
            polled = True
        if found:
            self._store.enqueue(
                self.node.name, f"demo-agent/{self.node.name}", 0, found,
                received_at=now, max_waiting=10_000,
            )  # fmt: skip
            self.seen.extend(found)
        if polled:
            self._state.save({str(s.probe.kind): s.probe.state() for s in self._probes})
        return found

    def close(self) -> None:
        """Release the probes."""
        for s in self._probes:
            s.probe.close()
