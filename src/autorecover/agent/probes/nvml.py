"""The NVML probe: GPU count, ECC, row remapping, retired pages, the driver's recovery action,
clock-event reasons, NVLink errors and XID events, from any NvmlBackend (live or replayed)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from autorecover.adapters.host.nvml_snapshots import (
    GpuSample,
    NvmlBackend,
    NvmlError,
    NvmlErrorKind,
    NvmlSnapshot,
)
from autorecover.agent.probes.base import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.probes.counters import CounterTracker, breach_signal
from autorecover.agent.probes.kernel_reading import KernelReader, XidEvent, normalize_pci
from autorecover.agent.probes.storms import StormFolder
from autorecover.agent.thresholds import Meaning, Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

UNKNOWN_RECOVERY_ACTION = Meaning(Blame.HARDWARE, NodeAction.MONITOR, 30, "unknown recovery action")


class NvmlProbe:
    """Looks at every GPU through an NVML backend and interprets what it finds."""

    kind = Probe.NVML

    def __init__(
        self,
        *,
        node: str,
        backend: NvmlBackend,
        thresholds: Thresholds,
        catalog: Catalog,
        expected_gpus: int | None = None,
        reader: KernelReader | None = None,
        folder: StormFolder | None = None,
    ) -> None:
        self.node = node
        self.backend = backend
        self.thresholds = thresholds
        self.catalog = catalog
        self.expected_gpus = expected_gpus
        self.reader = reader or KernelReader(catalog)
        self.folder = folder or StormFolder()
        self.tracker = CounterTracker(thresholds.rules_for(Probe.NVML))
        self._thermal: dict[str, int] = {}  # consecutive samples per GPU
        self._brake: dict[str, int] = {}
        self._links: dict[str, bool] = {}  # "gpu/nvlinkN" -> was active

    def poll(self, now: datetime) -> ProbeResult:
        """One look at NVML."""
        try:
            snap = self.backend.snapshot()
        except NvmlError as exc:
            snap = NvmlSnapshot(error=exc.kind, error_text=str(exc))
        if snap.error is not None:
            return self._no_nvml(snap, now)
        signals: list[NodeSignal] = []
        expected = self.expected_gpus
        if expected is not None and snap.device_count < expected:
            signals.append(self._missing(snap.device_count, expected, now, snap.error_text))
        for gpu in snap.gpus:
            signals += self._gpu(gpu, now)
        # Conditions (a DBE count, a missing GPU) are reported on every look, level-triggered,
        # like the other probes' states; only XID events, which can storm, are folded.
        events = [XidEvent(e.bus_id, e.xid, now) for e in snap.xid_events]
        xids = self.reader.read_xid_events(self.node, events, now)
        signals += self.folder.fold(xids, now) + self.folder.flush(now)
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(signals))

    def _no_nvml(self, snap: NvmlSnapshot, now: datetime) -> ProbeResult:
        if snap.error is NvmlErrorKind.UNAVAILABLE:
            if self.expected_gpus:
                # GPUs are expected and the driver cannot be reached: the node cannot run a job.
                signal = self._missing(0, self.expected_gpus, now, snap.error_text)
                return ProbeResult(self.kind, ProbeStatus.OK, (signal,), snap.error_text)
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), snap.error_text)
        return ProbeResult(self.kind, ProbeStatus.ERROR, (), snap.error_text or str(snap.error))

    def _missing(self, found: int, expected: int, now: datetime, why: str) -> NodeSignal:
        text = f"NVML sees {found} of {expected} GPUs" + (f" ({why})" if why else "")
        details = {"found": found, "expected": expected}
        return self._signal("nvml.gpu_missing", now, None, text, details=details)

    def _signal(
        self,
        key: str,
        now: datetime,
        component: str | None,
        text: str,
        meaning: Meaning | None = None,
        details: Mapping[str, object] | None = None,
    ) -> NodeSignal:
        return make_signal(
            node=self.node,
            probe=self.kind,
            key=key,
            meaning=meaning or self.thresholds.meaning(key, self.catalog),
            at=now,
            component=component,
            text=text,
            details=details,
        )

    def _gpu(self, gpu: GpuSample, now: datetime) -> list[NodeSignal]:
        bus = normalize_pci(gpu.bus_id) or gpu.bus_id or f"gpu{gpu.index}"
        if gpu.error is NvmlErrorKind.GPU_LOST:
            return [self._signal("nvml.gpu_lost", now, bus, f"GPU {gpu.index} ({bus}) is lost")]
        if gpu.error is NvmlErrorKind.RESET_REQUIRED:
            text = f"GPU {gpu.index} ({bus}) needs a reset"
            return [self._signal("nvml.reset_required", now, bus, text)]
        if gpu.error is not None:
            return []  # could not read it (permissions, a timeout): no verdict
        out = [self._counter(b, now) for b in self.tracker.observe(bus, _readings(gpu), now)]
        out += self._recovery_action(gpu, bus, now)
        out += self._clocks(gpu, bus, now)
        for link in gpu.nvlinks:
            component = f"{bus}/nvlink{link.link}"
            crc = None
            if link.crc_flit is not None or link.crc_data is not None:
                crc = (link.crc_flit or 0) + (link.crc_data or 0)
            readings = {"nvlink.replay": link.replay, "nvlink.recovery": link.recovery}
            readings["nvlink.crc"] = crc
            out += [self._counter(b, now) for b in self.tracker.observe(component, readings, now)]
            was = self._links.get(component)
            if link.active is not None:
                self._links[component] = link.active
            if was and link.active is False:
                text = f"NVLink {link.link} of GPU {gpu.index} ({bus}) went down"
                out.append(self._signal("nvml.nvlink_down", now, component, text))
        return out

    def _counter(self, breach: Any, now: datetime) -> NodeSignal:
        return breach_signal(
            breach,
            node=self.node,
            meaning=lambda key: self.thresholds.meaning(key, self.catalog),
            now=now,
        )

    def _recovery_action(self, gpu: GpuSample, bus: str, now: datetime) -> list[NodeSignal]:
        action = gpu.recovery_action
        if not action:
            return []
        name, meaning = self.thresholds.nvml.recovery_actions.get(
            action, (f"UNKNOWN_{action}", UNKNOWN_RECOVERY_ACTION)
        )
        text = f"GPU {gpu.index} ({bus}): driver recovery action {action} ({name})"
        details = {"action": name}
        return [self._signal("nvml.recovery_action", now, bus, text, meaning, details)]

    def _clocks(self, gpu: GpuSample, bus: str, now: datetime) -> list[NodeSignal]:
        reasons = gpu.clock_event_reasons
        if reasons is None:
            return []
        settings = self.thresholds.nvml
        reasons &= ~settings.idle_reason_mask  # idle downclocking is the GPU saving power
        out: list[NodeSignal] = []
        for key, mask, runs in (
            ("nvml.thermal_slowdown", settings.thermal_reason_mask, self._thermal),
            ("nvml.power_brake", settings.power_brake_reason_mask, self._brake),
        ):
            runs[bus] = runs.get(bus, 0) + 1 if reasons & mask else 0
            if runs[bus] >= settings.thermal_consecutive:
                text = (
                    f"GPU {gpu.index} ({bus}) clock event reasons 0x{reasons:x} for "
                    f"{runs[bus]} consecutive samples"
                )
                detail = {"reasons": f"0x{reasons:x}", "consecutive": runs[bus]}
                out.append(self._signal(key, now, bus, text, details=detail))
        return out

    def state(self) -> dict[str, Any]:
        """Counter baselines, consecutive-sample runs and NVLink states."""
        return {
            "counters": self.tracker.state(),
            "thermal": dict(self._thermal),
            "brake": dict(self._brake),
            "links": dict(self._links),
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back saved baselines and runs."""
        counters = state.get("counters")
        if isinstance(counters, dict):
            self.tracker.restore(counters)
        for name, target in (("thermal", self._thermal), ("brake", self._brake)):
            raw = state.get(name)
            if isinstance(raw, dict):
                target.update({str(k): v for k, v in raw.items() if isinstance(v, int)})
        links = state.get("links")
        if isinstance(links, dict):
            self._links.update({str(k): v for k, v in links.items() if isinstance(v, bool)})

    def close(self) -> None:
        """Shut NVML down."""
        self.backend.close()


def _readings(gpu: GpuSample) -> dict[str, int | None]:
    ecc, rows, pages = gpu.ecc, gpu.remapped_rows, gpu.retired_pages
    return {
        "ecc.volatile_sbe": ecc.volatile_sbe if ecc else None,
        "ecc.volatile_dbe": ecc.volatile_dbe if ecc else None,
        "remapped_rows.pending": int(rows.pending) if rows else None,
        "remapped_rows.failure": int(rows.failure) if rows else None,
        "retired_pages.pending": int(pages.pending) if pages else None,
        "retired_pages.total": pages.sbe + pages.dbe if pages else None,
    }
