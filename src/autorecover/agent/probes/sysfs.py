"""What the sysfs counter probes (InfiniBand, PCIe) share: how they are built, how a failed
read becomes the probe's status, their counter signals, and their saved baselines.

A probe reads its devices through its adapter, then interprets them. The adapter's own
"unavailable" error (nothing of the kind on this node) is not a fault; any other `OSError`
is the probe failing to look, which says nothing about the node's health.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from autorecover.agent.probes.base import ProbeResult, ProbeStatus
from autorecover.agent.probes.counters import CounterTracker, breach_signal
from autorecover.agent.thresholds import Meaning, Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import NodeSignal, Probe

T = TypeVar("T")


class SysfsProbe(ABC, Generic[T]):
    """A probe of devices under a sysfs root whose counters it tracks between polls."""

    kind: Probe
    unavailable: ClassVar[type[Exception]]  # the adapter's "nothing to read here"

    def __init__(self, *, node: str, root: Path, thresholds: Thresholds, catalog: Catalog) -> None:
        self.node = node
        self.root = root
        self.thresholds = thresholds
        self.catalog = catalog
        self.tracker = CounterTracker(thresholds.rules_for(self.kind))

    def poll(self, now: datetime) -> ProbeResult:
        """One look at every device."""
        try:
            found = self._read()
        except self.unavailable as exc:
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), str(exc))
        except OSError as exc:
            return ProbeResult(self.kind, ProbeStatus.ERROR, (), str(exc))
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(self._interpret(found, now)))

    @abstractmethod
    def _read(self) -> Sequence[T]:
        """The devices, through the adapter (its errors are mapped by `poll`)."""

    @abstractmethod
    def _interpret(self, found: Sequence[T], now: datetime) -> list[NodeSignal]:
        """The signals the devices raise."""

    def _meaning(self, key: str) -> Meaning:
        return self.thresholds.meaning(key, self.catalog)

    def _breaches(
        self, component: str, counters: Mapping[str, int | None], now: datetime
    ) -> list[NodeSignal]:
        """The signals of the counter rules one component's readings break."""
        return [
            breach_signal(breach, node=self.node, meaning=self._meaning, now=now)
            for breach in self.tracker.observe(component, counters, now)
        ]

    def state(self) -> dict[str, Any]:
        """Counter baselines."""
        return {"counters": self.tracker.state()}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back saved counter baselines."""
        counters = state.get("counters")
        if isinstance(counters, dict):
            self.tracker.restore(counters)

    def close(self) -> None:
        """Nothing is held open between polls."""
