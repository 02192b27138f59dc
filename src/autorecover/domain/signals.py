"""Node signals: what the node agent reports and hardware recovery decides on.

A signal is one observation about one node (an XID, a GPU missing from NVML, an InfiniBand
port down, a PCIe link trained below its maximum), already interpreted: it carries its blame,
weight and recommended node action from the catalog, and the evidence text that shows it.
A storm of identical observations is one signal with a count, never thousands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from autorecover.domain.records import Blame, NodeAction, lookup


class Probe(StrEnum):
    """Where a signal was observed (persisted: never rename a value)."""

    KERNEL = "kernel"
    NVML = "nvml"
    INFINIBAND = "infiniband"
    PCIE = "pcie"
    DCGM = "dcgm"
    FABRIC = "fabric"  # NVLink fabric registration, IMEX (agent/probes/fabric.py)
    BOOT = "boot"  # the node restarted without the agent being stopped (agent/probes/boots.py)
    JOB = "job"  # job recovery's attribution names the node
    ENGINE = "engine"  # the engine's own finding (a silent node: agent and scheduler agree)


@dataclass(frozen=True, slots=True)
class NodeSignal:
    """One interpreted observation about a node."""

    node: str
    probe: Probe
    signal: str  # catalog-style key: "xid.79", "nvml.gpu_missing", "ib.link_down", ...
    blame: Blame
    weight: int  # 0..100
    node_action: NodeAction
    at: datetime  # when it was observed (UTC)
    count: int = 1  # identical observations folded into this one
    component: str | None = None  # GPU bus id, "mlx5_0/1", PCI address, ...
    text: str = ""  # the evidence: a log line, a counter reading
    details: tuple[tuple[str, str], ...] = ()
    incident: str | None = None  # set when job recovery names the node for an incident

    def detail(self, key: str) -> str | None:
        """One named detail, if present."""
        return lookup(self.details, key)


@dataclass(frozen=True, slots=True)
class HealthReport:
    """A node's health as one recommended action with the signals behind it (never a bool)."""

    node: str
    at: datetime
    action: NodeAction
    signals: tuple[NodeSignal, ...]

    @property
    def healthy(self) -> bool:
        """No signal asks for more than watching."""
        return self.action in (NodeAction.NONE, NodeAction.MONITOR)
