"""The InfiniBand/RoCE probe: port state, and error counters as increases and rates."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from autorecover.adapters.host.infiniband import InfinibandUnavailableError, read_ports
from autorecover.agent.counters import CounterTracker, breach_signal
from autorecover.agent.probing import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import NodeSignal, Probe


class InfinibandProbe:
    """Reads every IB/RoCE port under a sysfs root."""

    kind = Probe.INFINIBAND

    def __init__(self, *, node: str, root: Path, thresholds: Thresholds, catalog: Catalog) -> None:
        self.node = node
        self.root = root
        self.thresholds = thresholds
        self.catalog = catalog
        self.tracker = CounterTracker(thresholds.rules_for(Probe.INFINIBAND))

    def poll(self, now: datetime) -> ProbeResult:
        """One look at every port."""
        settings = self.thresholds.infiniband
        try:
            ports = read_ports(self.root, (r.source for r in self.tracker.rules))
        except InfinibandUnavailableError as exc:
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), str(exc))
        except OSError as exc:
            return ProbeResult(self.kind, ProbeStatus.ERROR, (), str(exc))
        signals: list[NodeSignal] = []
        for port in ports:
            if port.device in settings.ignore_devices:
                continue
            healthy = (
                port.state == settings.healthy_state
                and port.phys_state == settings.healthy_phys_state
            )
            if not healthy and port.phys_state not in settings.ignored_phys_states:
                text = f"{port.name} state {port.state}, physical state {port.phys_state}"
                signals.append(
                    make_signal(
                        node=self.node,
                        probe=self.kind,
                        key="ib.port_down",
                        meaning=self.thresholds.meaning("ib.port_down", self.catalog),
                        at=now,
                        component=port.name,
                        text=text,
                        details={
                            "state": port.state,
                            "phys_state": port.phys_state,
                            "link_layer": port.link_layer,
                        },
                    )
                )
            for breach in self.tracker.observe(port.name, port.counters, now):
                signals.append(
                    breach_signal(
                        breach,
                        node=self.node,
                        meaning=lambda key: self.thresholds.meaning(key, self.catalog),
                        now=now,
                    )
                )
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(signals))

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
