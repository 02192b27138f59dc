"""The fabric probe: what this node can see of its NVLink fabric (GPU fabric registration and
health, the IMEX daemon and domain), and which NVLink clique it belongs to.

GPU records come from the first source that can answer (NVML, then `nvidia-smi -q`); a GPU
whose state is NOT_SUPPORTED is not on a multi-node NVLink fabric and says nothing. Kernel-log
SXids are the kernel probe's, read with the catalog. Each look is level-triggered like the NVML
probe's conditions; registration and IMEX readiness count only after `fabric_consecutive`
looks in a row, since both pass through "not ready" while a node boots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from autorecover.adapters.host.fabric import (
    FabricReadError,
    FabricState,
    FabricUnavailableError,
    GpuFabric,
    Imex,
)
from autorecover.agent.probes.base import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import NodeSignal, Probe

# Health conditions and the signal each raises (agent.toml [signal."fabric.*"]).
CONDITIONS = {
    "route_unhealthy": "fabric.route_unhealthy",
    "gfm_disconnected": "fabric.gfm_disconnected",
    "bandwidth_degraded": "fabric.bandwidth_degraded",
    "route_recovery": "fabric.recovering",
    "access_timeout_recovery": "fabric.recovering",
}
_WAITING = (FabricState.NOT_STARTED, FabricState.IN_PROGRESS)
# The clique is said when first seen, when it changes, and again this often: an engine that
# restarted learns it back without the agent restarting.
CLIQUE_EVERY_S = 3600.0


class GpuFabricSource(Protocol):
    """Where GPU fabric records come from (NvmlFabric, SmiFabric)."""

    def gpus(self) -> tuple[GpuFabric, ...]:
        """Every GPU's record; FabricUnavailableError when this source cannot look."""
        ...


class FabricProbe:
    """Reads GPU fabric records and IMEX, and raises fabric.* and imex.* signals."""

    kind = Probe.FABRIC

    def __init__(
        self,
        *,
        node: str,
        sources: Sequence[GpuFabricSource],
        imex: Imex | None,
        thresholds: Thresholds,
        catalog: Catalog,
    ) -> None:
        self.node = node
        self.sources = tuple(sources)
        self.imex = imex
        self.thresholds = thresholds
        self.catalog = catalog
        self._waiting: dict[str, int] = {}  # looks in a row: GPU bus id, or "imex"
        self._clique = ""  # the clique last reported, and when
        self._clique_at: datetime | None = None

    def poll(self, now: datetime) -> ProbeResult:
        """One look at the GPUs' fabric records and at IMEX."""
        signals: list[NodeSignal] = []
        notes: list[str] = []
        gpus = self._gpus(notes)
        if gpus is not None:
            for gpu in gpus:
                signals += self._gpu(gpu, now)
            signals += self._clique_signal(gpus, now)
        imex_looked = self._imex(now, signals, notes)
        if gpus is None and not imex_looked:
            failed = any(n.startswith("error") for n in notes)
            status = ProbeStatus.ERROR if failed else ProbeStatus.UNAVAILABLE
            return ProbeResult(self.kind, status, (), "; ".join(notes))
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(signals), "; ".join(notes))

    def _gpus(self, notes: list[str]) -> tuple[GpuFabric, ...] | None:
        for source in self.sources:
            try:
                return source.gpus()
            except FabricUnavailableError as exc:
                notes.append(str(exc))
            except FabricReadError as exc:
                notes.append(f"error: {exc}")
        return None

    def _signal(
        self, key: str, now: datetime, component: str | None, text: str, **details: object
    ) -> NodeSignal:
        meaning = self.thresholds.meaning(key, self.catalog)
        return make_signal(
            node=self.node, probe=self.kind, key=key, meaning=meaning, at=now,
            component=component, text=text, details=details,
        )  # fmt: skip

    def _gpu(self, gpu: GpuFabric, now: datetime) -> list[NodeSignal]:
        if gpu.state is FabricState.NOT_SUPPORTED:
            return []
        bus, out = gpu.bus_id, []
        looks = self._waiting[bus] = self._waiting.get(bus, 0) + 1 if gpu.state in _WAITING else 0
        if looks >= self.thresholds.fabric_consecutive:
            text = f"GPU {bus}: fabric registration {gpu.state} for {looks} looks"
            out.append(self._signal("fabric.not_registered", now, bus, text, state=gpu.state))
        if gpu.state is FabricState.COMPLETED and gpu.status.lower() != "success":
            text = f"GPU {bus}: fabric registration failed ({gpu.status})"
            out.append(
                self._signal("fabric.registration_failed", now, bus, text, status=gpu.status)
            )
        for condition in sorted(gpu.conditions):
            key = CONDITIONS.get(condition)
            if key is not None:
                text = f"GPU {bus}: fabric health {condition.replace('_', ' ')}"
                out.append(self._signal(key, now, bus, text, condition=condition))
        if gpu.configuration not in ("", "none"):
            text = f"GPU {bus}: fabric incorrect configuration ({gpu.configuration})"
            out.append(
                self._signal("fabric.config_incorrect", now, bus, text, reason=gpu.configuration)
            )
        return out

    def _clique_signal(self, gpus: tuple[GpuFabric, ...], now: datetime) -> list[NodeSignal]:
        # As GPU feature discovery does: a node whose GPUs disagree on the clique has none.
        cliques = {g.clique for g in gpus if g.state is FabricState.COMPLETED and g.clique}
        if len(cliques) != 1:
            return []
        last = self._clique_at
        fresh = last is not None and (now - last).total_seconds() < CLIQUE_EVERY_S
        if cliques == {self._clique} and fresh:
            return []
        (self._clique,), self._clique_at = cliques, now
        text = f"NVLink clique {self._clique}"
        return [self._signal("fabric.clique", now, None, text, clique=self._clique)]

    def _imex(self, now: datetime, signals: list[NodeSignal], notes: list[str]) -> bool:
        if self.imex is None:
            return False
        try:
            status = self.imex.status()
        except FabricUnavailableError as exc:
            notes.append(str(exc))
            return False
        except FabricReadError as exc:
            notes.append(f"error: {exc}")
            return False
        looks = self._waiting["imex"] = (
            self._waiting.get("imex", 0) + 1 if status.daemon != "READY" else 0
        )
        if looks >= self.thresholds.fabric_consecutive:
            text = f"IMEX daemon {status.daemon} for {looks} looks"
            signals.append(self._signal("imex.daemon_not_ready", now, None, text,
                                        daemon=status.daemon))  # fmt: skip
        if status.domain in ("DOWN", "DEGRADED"):
            key = "imex.domain_down" if status.domain == "DOWN" else "imex.domain_degraded"
            away = [f"{h} {s}" for h, s in status.nodes if s != "READY"]
            text = f"IMEX domain {status.domain}" + (f": {', '.join(away)}" if away else "")
            signals.append(self._signal(key, now, None, text, domain=status.domain))
        return True

    def state(self) -> dict[str, Any]:
        """Looks in a row per GPU and for IMEX."""
        return {"waiting": dict(self._waiting)}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back the looks in a row."""
        raw = state.get("waiting")
        if isinstance(raw, dict):
            self._waiting.update({str(k): v for k, v in raw.items() if isinstance(v, int)})

    def close(self) -> None:
        """Nothing held open: each look opens and shuts NVML or runs a command."""
