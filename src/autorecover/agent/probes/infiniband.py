"""The InfiniBand/RoCE probe: port state, and error counters as increases and rates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from autorecover.adapters.host.infiniband import IbPort, InfinibandUnavailableError, read_ports
from autorecover.agent.probes.base import make_signal
from autorecover.agent.probes.sysfs import SysfsProbe
from autorecover.domain.signals import NodeSignal, Probe


class InfinibandProbe(SysfsProbe[IbPort]):
    """Reads every IB/RoCE port under a sysfs root."""

    kind = Probe.INFINIBAND
    unavailable = InfinibandUnavailableError

    def _read(self) -> list[IbPort]:
        return read_ports(self.root, (r.source for r in self.tracker.rules))

    def _interpret(self, found: Sequence[IbPort], now: datetime) -> list[NodeSignal]:
        settings = self.thresholds.infiniband
        signals: list[NodeSignal] = []
        for port in found:
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
                        meaning=self._meaning("ib.port_down"),
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
            signals += self._breaches(port.name, port.counters, now)
        return signals
