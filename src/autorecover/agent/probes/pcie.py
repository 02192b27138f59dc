"""The PCIe probe: AER counters of GPUs and NICs, and links trained below their maximum."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from autorecover.adapters.host.pcie import PciDevice, PcieUnavailableError, read_devices
from autorecover.agent.probes.base import make_signal
from autorecover.agent.probes.sysfs import SysfsProbe
from autorecover.domain.signals import NodeSignal, Probe


class PcieProbe(SysfsProbe[PciDevice]):
    """Reads NVIDIA GPUs and the NICs under a sysfs root (AER totals are its counters)."""

    kind = Probe.PCIE
    unavailable = PcieUnavailableError

    def _read(self) -> list[PciDevice]:
        s = self.thresholds.pcie
        return read_devices(self.root, s.vendors, s.gpu_classes | s.nic_classes)

    def _interpret(self, found: Sequence[PciDevice], now: datetime) -> list[NodeSignal]:
        signals: list[NodeSignal] = []
        for dev in found:
            signals += self._breaches(dev.bdf, dev.aer, now)
            signals += self._link(dev, now)
        return signals

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
            meaning=self._meaning(key),
            at=now,
            component=dev.bdf,
            text=text,
            details={
                "role": role,
                "width": f"{dev.current_width}/{dev.max_width}",
                "speed_gts": f"{dev.current_speed_gts}/{dev.max_speed_gts}",
            },
        )
