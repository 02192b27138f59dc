"""What a node can see of its NVLink fabric: each GPU's fabric registration and health, and the
IMEX daemon's view of its domain.

Two ways to read the GPUs, one record: NVML's `nvmlDeviceGetGpuFabricInfoV` through nvidia-ml-py
(`NvmlFabric`), and the "Fabric" section of `nvidia-smi -q` (`SmiFabric`), the fallback where
the binding or the driver lacks the call. IMEX is asked through `nvidia-imex-ctl -q` (the local
daemon's state word) and `nvidia-imex-ctl -N -j` (the domain's state, as JSON). Commands are
argument lists run by a `Runner` (subprocess on a node, recordings in tests).

Sources: NVML API reference, "Fabric definitions" (nvmlGpuFabricInfo_v2/v3, the health-mask
fields and NVML_GPU_FABRIC_STATE_*), nvidia-ml-py 13.615's pynvml.py, nvidia-smi -q's
"Fabric" block; the IMEX guide ("nvidia-imex-ctl"), DCGM's DcgmImexManager (which reads the
same two commands: daemon states INITIALIZING .. UNAVAILABLE, domain UP/DOWN/DEGRADED).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from autorecover.adapters.host.dcgm import (
    CommandResult,
    DcgmError,
    DcgmUnavailableError,
    Runner,
    run_command,
)

TIMEOUT_S = 20.0


class FabricUnavailableError(Exception):
    """Nothing to ask here: no NVML fabric call, no nvidia-smi, no IMEX on this node."""


class FabricReadError(Exception):
    """The source is there but answered with something we cannot read."""


class FabricState(StrEnum):
    """A GPU's fabric registration (NVML_GPU_FABRIC_STATE_*; persisted in signal details)."""

    NOT_SUPPORTED = "not_supported"  # not a multi-node NVLink GPU: nothing to judge
    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


# The health mask (NVML_GPU_FABRIC_HEALTH_MASK_*): (condition, shift, width). A field reads 0
# "not supported", else 1 for "yes" and 2 for "no" (degraded, recovering, unhealthy, ...).
_MASK_FIELDS = (
    ("bandwidth_degraded", 0, 0x3),
    ("route_recovery", 2, 0x3),
    ("route_unhealthy", 4, 0x3),
    ("access_timeout_recovery", 6, 0x3),
)
_CONFIGURATION = {  # shift 8, width 0xf
    1: "none",
    2: "incorrect_sysguid",
    3: "incorrect_chassis_sn",
    4: "no_partition",
    5: "insufficient_nvlinks",
    6: "incompatible_gpu_fw",
    7: "invalid_location",
    8: "gpu_state_invalid",
}
_SUMMARY = {1: "healthy", 2: "unhealthy", 3: "limited_capacity"}


@dataclass(frozen=True, slots=True)
class GpuFabric:
    """One GPU's place in the fabric and what it says of its health."""

    bus_id: str
    state: FabricState
    status: str = "success"  # the registration's result, read only when completed
    clique_id: int | None = None
    cluster_uuid: str = ""
    conditions: frozenset[str] = frozenset()  # bandwidth_degraded, route_unhealthy, ...
    configuration: str = ""  # "none" when correct; the problem's name otherwise
    summary: str = ""  # healthy | unhealthy | limited_capacity ("" when not reported)

    @property
    def clique(self) -> str:
        """`<cluster uuid>.<clique id>`, as GPU feature discovery labels `nvidia.com/gpu.clique`."""
        if self.clique_id is None or not self.cluster_uuid:
            return ""
        return f"{self.cluster_uuid}.{self.clique_id}"


def decode_health(mask: int) -> tuple[frozenset[str], str]:
    """The conditions a health mask reports as present, and the configuration finding."""
    present = {name for name, shift, width in _MASK_FIELDS if (mask >> shift) & width == 1}
    configuration = _CONFIGURATION.get((mask >> 8) & 0xF, "")
    if (mask >> 14) & 0x3 == 2:  # NVML_GPU_FABRIC_HEALTH_MASK_GFM_STATE_DISCONNECTED
        present.add("gfm_disconnected")
    return frozenset(present), configuration


def _uuid(raw: Sequence[int]) -> str:
    h = bytes(raw).hex()
    if not h.strip("0"):
        return ""
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


class NvmlFabric:
    """Each GPU's fabric info through nvidia-ml-py (`nvmlDeviceGetGpuFabricInfoV`, v3 then v2)."""

    def __init__(self, nvml: Any = None) -> None:
        self._nvml = nvml

    def _module(self) -> Any:
        if self._nvml is None:
            import pynvml  # lazily: nodes without GPUs never load it

            self._nvml = pynvml
        return self._nvml

    def gpus(self) -> tuple[GpuFabric, ...]:
        """Every GPU's fabric record; FabricUnavailableError without the call or the driver."""
        nv = self._module()
        if getattr(nv, "nvmlDeviceGetGpuFabricInfoV", None) is None:
            raise FabricUnavailableError("nvidia-ml-py has no nvmlDeviceGetGpuFabricInfoV")
        try:
            nv.nvmlInit()
        except nv.NVMLError as exc:
            raise FabricUnavailableError(f"NVML: {exc}") from None
        try:
            return tuple(self._gpu(nv, i) for i in range(nv.nvmlDeviceGetCount()))
        except nv.NVMLError as exc:
            if getattr(exc, "value", None) in _codes(nv, "FUNCTION_NOT_FOUND"):
                raise FabricUnavailableError(f"NVML fabric info: {exc}") from None
            raise FabricReadError(f"NVML fabric info: {exc}") from None
        finally:
            nv.nvmlShutdown()

    def _gpu(self, nv: Any, index: int) -> GpuFabric:
        handle = nv.nvmlDeviceGetHandleByIndex(index)
        bus = nv.nvmlDeviceGetPciInfo(handle).busId
        bus = bus.decode() if isinstance(bus, bytes) else str(bus)
        try:
            info = self._info(nv, handle)
        except nv.NVMLError as exc:
            if getattr(exc, "value", None) in _codes(nv, "NOT_SUPPORTED"):
                return GpuFabric(bus, FabricState.NOT_SUPPORTED)  # not on an NVLink fabric
            raise
        conditions, configuration = decode_health(int(info.healthMask))
        status = "success" if int(info.status) == 0 else f"nvml_error_{int(info.status)}"
        return GpuFabric(
            bus_id=bus,
            state=_STATES.get(int(info.state), FabricState.NOT_SUPPORTED),
            status=status,
            clique_id=int(info.cliqueId),
            cluster_uuid=_uuid(info.clusterUuid),
            conditions=conditions,
            configuration=configuration,
            summary=_SUMMARY.get(int(getattr(info, "healthSummary", 0)), ""),
        )

    def _info(self, nv: Any, handle: Any) -> Any:
        """The v3 record (with the health summary), or v2 where the driver predates it."""
        import ctypes

        v3 = getattr(nv, "c_nvmlGpuFabricInfo_v3_t", None)
        if v3 is not None:
            info = v3()
            try:
                nv.nvmlDeviceGetGpuFabricInfoV(handle, ctypes.byref(info))
                return info
            except nv.NVMLError as exc:
                if getattr(exc, "value", None) not in _codes(nv, "ARGUMENT_VERSION_MISMATCH"):
                    raise
        info = nv.c_nvmlGpuFabricInfoV_t()
        nv.nvmlDeviceGetGpuFabricInfoV(handle, ctypes.byref(info))
        return info


_STATES = {
    0: FabricState.NOT_SUPPORTED,
    1: FabricState.NOT_STARTED,
    2: FabricState.IN_PROGRESS,
    3: FabricState.COMPLETED,
}


def _codes(nv: Any, *names: str) -> set[int]:
    return {c for n in names if isinstance(c := getattr(nv, f"NVML_ERROR_{n}", None), int)}


class SmiFabric:
    """Each GPU's fabric info from `nvidia-smi -q` (drivers and bindings without the NVML call)."""

    def __init__(self, runner: Runner = run_command, executable: str = "nvidia-smi") -> None:
        self.runner = runner
        self.executable = executable

    def gpus(self) -> tuple[GpuFabric, ...]:
        """Run `nvidia-smi -q` and read every GPU's Fabric block."""
        done = _run(self.runner, [self.executable, "-q"])
        if done.returncode != 0:
            raise FabricReadError(f"nvidia-smi -q exited {done.returncode}: {done.stderr[:200]}")
        return parse_smi_fabric(done.stdout)


_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_SMI_STATES = {
    "completed": FabricState.COMPLETED,
    "in progress": FabricState.IN_PROGRESS,
    "not started": FabricState.NOT_STARTED,
}
_SMI_CONDITIONS = {
    "route recovery in progress": "route_recovery",
    "route unhealthy": "route_unhealthy",
    "access timeout recovery": "access_timeout_recovery",
}


def parse_smi_fabric(text: str) -> tuple[GpuFabric, ...]:
    """Every GPU's "Fabric" block of `nvidia-smi -q` output; GPUs without one are left out."""
    out: list[GpuFabric] = []
    bus = ""
    fields: dict[str, str] | None = None
    indent = 0
    for line in text.splitlines():
        if m := _GPU.match(line):
            if fields is not None:
                out.append(_smi_gpu(bus, fields))
            bus, fields = m.group(1), None
            continue
        stripped = line.strip()
        depth = len(line) - len(line.lstrip(" "))
        if stripped == "Fabric" and bus:
            fields, indent = {}, depth
            continue
        if fields is None:
            continue
        if stripped and depth <= indent:
            out.append(_smi_gpu(bus, fields))
            fields = None
            continue
        key, sep, value = stripped.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    if fields is not None:
        out.append(_smi_gpu(bus, fields))
    return tuple(out)


def _smi_gpu(bus: str, fields: dict[str, str]) -> GpuFabric:
    state = _SMI_STATES.get(fields.get("state", "").lower(), FabricState.NOT_SUPPORTED)
    status = fields.get("status", "")
    clique = fields.get("cliqueid", "")
    cluster = fields.get("clusteruuid", "")
    conditions = {name for key, name in _SMI_CONDITIONS.items() if _yes(fields.get(key, ""))}
    if fields.get("bandwidth", "").lower() == "degraded":
        conditions.add("bandwidth_degraded")
    configuration = fields.get("incorrect configuration", "").lower().replace(" ", "_")
    summary = fields.get("summary", "").lower().replace(" ", "_")
    return GpuFabric(
        bus_id=bus,
        state=state,
        status="success" if status.lower() in ("success", "") else status,
        clique_id=int(clique) if clique.isdigit() else None,
        cluster_uuid=cluster if cluster.lower() != "n/a" else "",
        conditions=frozenset(conditions),
        configuration="" if configuration == "n/a" else configuration,
        summary="" if summary == "n/a" else summary,
    )


def _yes(value: str) -> bool:
    return value.lower() in ("true", "yes")


@dataclass(frozen=True, slots=True)
class ImexStatus:
    """The IMEX daemon on this node and its domain as the daemon sees it."""

    daemon: str  # INITIALIZING, WAITING_FOR_PEERS, READY, UNAVAILABLE, ...
    domain: str = ""  # UP, DOWN, DEGRADED ("" when the domain query failed)
    nodes: tuple[tuple[str, str], ...] = ()  # (host, status) of every configured peer


class Imex:
    """`nvidia-imex-ctl -q` and `nvidia-imex-ctl -N -j`."""

    def __init__(self, runner: Runner = run_command, executable: str = "nvidia-imex-ctl") -> None:
        self.runner = runner
        self.executable = executable

    def status(self) -> ImexStatus:
        """The daemon's state word and, when it answers, the domain's state."""
        daemon = _run(self.runner, [self.executable, "-q"]).stdout.strip().upper()
        if not re.fullmatch(r"[A-Z_]{2,40}", daemon):
            raise FabricReadError(f"nvidia-imex-ctl -q: not a daemon state: {daemon[:60]!r}")
        domain = _run(self.runner, [self.executable, "-N", "-j"])
        if domain.returncode != 0 or "{" not in domain.stdout:
            return ImexStatus(daemon)
        state, nodes = parse_imex_domain(domain.stdout)
        return ImexStatus(daemon, state, nodes)


def parse_imex_domain(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The domain state and each node's (host, status) from `nvidia-imex-ctl -N -j`."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FabricReadError(f"nvidia-imex-ctl -N -j: not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("status"), str):
        raise FabricReadError("nvidia-imex-ctl -N -j: no domain 'status'")
    raw = data.get("nodes")
    raw = raw if isinstance(raw, dict) else {}
    nodes = tuple(
        (str(n.get("host", k)), str(n.get("status", "")))
        for k, n in sorted(raw.items())
        if isinstance(n, dict)
    )
    return data["status"].upper(), nodes


def _run(runner: Runner, args: list[str]) -> CommandResult:
    try:
        return runner(args, TIMEOUT_S)
    except DcgmUnavailableError as exc:  # the shared runner's "not installed"
        raise FabricUnavailableError(str(exc)) from None
    except DcgmError as exc:  # the shared runner's timeout
        raise FabricReadError(str(exc)) from None


_RECORDINGS = {("-q",): "nvidia-smi-q.txt", ("-N", "-j"): "imex-N.json"}


class RecordedTools:
    """Replays recorded outputs from a directory: `nvidia-smi-q.txt`, `imex-q.txt`,
    `imex-N.json`; a missing file reads as the tool not being installed."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __call__(self, args: Sequence[str], timeout_s: float) -> CommandResult:
        """The recorded output for this command."""
        tool, rest = Path(args[0]).name, tuple(args[1:])
        name = "imex-q.txt" if tool == "nvidia-imex-ctl" and rest == ("-q",) else None
        name = name or _RECORDINGS.get(rest)
        path = self.directory / (name or "")
        if name is None or not path.is_file():
            raise DcgmUnavailableError(f"{tool}: no recording in {self.directory}")
        return CommandResult(0, path.read_text(encoding="utf-8"))
