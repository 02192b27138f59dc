"""The simulated fleet: nodes of 8 GPUs in racks, NVLink cliques and IB leaves, and the truth
about each node (broken or not, by which fault, how prone to failing), which no policy reads.

Policies learn about nodes only as real systems would: from signals, job failures and
diagnostics. `Fleet` is what the world knows; what a policy believes lives in the policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from autorecover.domain.failure_domains import Topology


@dataclass(slots=True)
class Broken:
    """A fault a node still carries (its cure says what fixes it)."""

    category: str
    cure: str  # reset | reboot | rma
    since: float
    host_down: bool = False


@dataclass(slots=True)
class Fleet:
    """Nodes by index; names, domains and the truth about each."""

    nodes: int
    per_rack: int
    per_clique: int
    per_leaf: int
    weights: list[float]  # hardware fault proneness, mean 1 (lemons far above)
    broken: dict[int, Broken] = field(default_factory=dict)
    leaf_down: dict[int, float] = field(default_factory=dict)  # leaf -> repaired at
    repairs: int = 0
    names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = [f"n{i:05d}" for i in range(self.nodes)]

    def name(self, node: int) -> str:
        """The node's name, as the controllers know it."""
        return self.names[node]

    def index(self, name: str) -> int:
        """The node a name stands for."""
        return int(name[1:])

    def leaf(self, node: int) -> int:
        """The node's InfiniBand leaf."""
        return node // self.per_leaf

    def leaf_nodes(self, leaf: int) -> range:
        """The nodes under one leaf switch."""
        return range(leaf * self.per_leaf, min((leaf + 1) * self.per_leaf, self.nodes))

    def labels(self) -> Mapping[str, Mapping[str, str]]:
        """Each node's failure domains, as the scheduler's labels would give them."""
        return {
            self.name(i): {
                "rack": f"r{i // self.per_rack}",
                "nvlink": f"nvl{i // self.per_clique}",
                "ib_leaf": f"leaf{i // self.per_leaf}",
            }
            for i in range(self.nodes)
        }

    def topology(self) -> Topology:
        """The failure domains for hardware recovery's breaker and correlation."""
        return Topology.from_labels(self.labels())

    # --- truth -----------------------------------------------------------------------------

    def healthy(self, node: int, t: float) -> bool:
        """Nothing wrong with the node now."""
        return node not in self.broken and self.leaf_down.get(self.leaf(node), 0.0) <= t

    def up(self, node: int, t: float) -> bool:
        """The node can run a job at all (its host answers, its leaf switch works)."""
        b = self.broken.get(node)
        return (b is None or not b.host_down) and self.leaf_down.get(self.leaf(node), 0.0) <= t

    def cure(self, node: int, remedy: str) -> bool:
        """Apply a remedy (reset, reboot, rma); True when the node is healthy after it."""
        b = self.broken.get(node)
        if b is None:
            return True
        fixes = {"reset": ("reset",), "reboot": ("reset", "reboot"), "rma": ("reset", "reboot",
                 "rma")}[remedy]  # fmt: skip
        if b.cure not in fixes:
            return False
        del self.broken[node]
        self.repairs += 1
        if remedy == "rma":
            self.weights[node] = 1.0  # the part was replaced: no longer a lemon
        return True

    def remedy_for(self, node: int) -> str:
        """What would fix the node (a person's repair): its fault's cure, or nothing."""
        b = self.broken.get(node)
        return b.cure if b is not None else "none"
