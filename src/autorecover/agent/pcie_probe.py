"""The PCIe probe: AER counters of GPUs and NICs, and links trained below their maximum."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from autorecover.adapters.host.pcie import PciDevice, PcieUnavailableError, read_devices
from autorecover.agent.counters import CounterTracker, breach_signal
from autorecover.agent.probing import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import NodeSignal, Probe


class PcieProbe:
    """Reads NVIDIA GPUs and the NICs under a sysfs root."""

    kind = Probe.PCIE

    def __init__(self, *, node: str, root: Path, thresholds: Thresholds, catalog: Catalog) -> None:
        self.node = node
        self.root = root
        self.thresholds = thresholds
        self.catalog = catalog
        self.tracker = CounterTracker(thresholds.rules_for(Probe.PCIE))

    def poll(self, now: datetime) -> ProbeResult:
        """One look at every watched device."""
        s = self.thresholds.pcie
        try:
            devices = read_devices(self.root, s.vendors, s.gpu_classes | s.nic_classes)
        except PcieUnavailableError as exc:
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), str(exc))
        except OSError as exc:
            return ProbeResult(self.kind, ProbeStatus.ERROR, (), str(exc))
        signals: list[NodeSignal] = []
        for dev in devices:
            for breach in self.tracker.observe(dev.bdf, dev.aer, now):
                signals.append(
                    breach_signal(
                        breach,
                        node=self.node,
                        meaning=lambda key: self.thresholds.meaning(key, self.catalog),
                        now=now,
                    )
                )
            signals += self._link(dev, now)
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(signals))

    def _link(self, dev: PciDevice, now: datetime) -> list[NodeSignal]:
        s = self.thresholds.pcie
        role = "gpu" if dev.class_code in s.gpu_classes else "nic"
        out: list[NodeSignal] = []
        cur_w, max_w = dev.current_width, dev.max_width
        if cur_w is not None and max_w is not None and cur_w < max_w:
            text = f"{role} {dev.bdf} PCIe link x{cur_w} of x{max_w}"
            out.append(self._signal("pcie.link_width", dev, role, text, now))
        cur_s, max_s = dev.current_speed_gts, dev.max_speed_gts
        speed_matters = role == "nic" or s.check_gpu_speed
        if speed_matters and cur_s is not None and max_s is not None and cur_s < max_s:
            text = f"{role} {dev.bdf} PCIe link {cur_s:g} GT/s of {max_s:g} GT/s"
            out.append(self._signal("pcie.link_speed", dev, role, text, now))
        return out

    def _signal(self, key: str, dev: PciDevice, role: str, text: str, now: datetime) -> NodeSignal:
        return make_signal(
            node=self.node,
            probe=self.kind,
            key=key,
            meaning=self.thresholds.meaning(key, self.catalog),
            at=now,
            component=dev.bdf,
            text=text,
            details={
                "role": role,
                "width": f"{dev.current_width}/{dev.max_width}",
                "speed_gts": f"{dev.current_speed_gts}/{dev.max_speed_gts}",
            },
        )

    def state(self) -> dict[str, Any]:
        """AER baselines."""
        return {"counters": self.tracker.state()}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back saved AER baselines."""
        counters = state.get("counters")
        if isinstance(counters, dict):
            self.tracker.restore(counters)

    def close(self) -> None:
        """Nothing is held open between polls."""
