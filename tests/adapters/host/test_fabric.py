"""Reading the fabric: nvidia-smi -q's Fabric blocks, NVML's fabric info through a stand-in
pynvml (the real ctypes records, filled as the driver would), and nvidia-imex-ctl's answers."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pynvml
import pytest

from autorecover.adapters.host.dcgm import CommandResult
from autorecover.adapters.host.fabric import (
    FabricReadError,
    FabricState,
    FabricUnavailableError,
    Imex,
    NvmlFabric,
    RecordedTools,
    SmiFabric,
    decode_health,
    parse_imex_domain,
    parse_smi_fabric,
)

FABRIC = Path(__file__).parents[2] / "fixtures" / "agent" / "fabric"
CLIQUE = "5c6c21a4-9f0b-4d8b-a1c3-2e7f1b0d9a44.32766"


def test_smi_fabric_of_a_healthy_tray() -> None:
    gpus = parse_smi_fabric((FABRIC / "healthy/nvidia-smi-q.txt").read_text())
    assert [g.bus_id for g in gpus] == [
        "00000008:01:00.0", "00000009:01:00.0", "00000018:01:00.0", "00000019:01:00.0",
    ]  # fmt: skip
    assert {(g.state, g.status, g.clique, g.summary, g.configuration) for g in gpus} == {
        (FabricState.COMPLETED, "success", CLIQUE, "healthy", "none")
    }
    assert all(not g.conditions for g in gpus)


def test_smi_fabric_health_and_registration() -> None:
    sick = parse_smi_fabric((FABRIC / "route-unhealthy/nvidia-smi-q.txt").read_text())
    assert [sorted(g.conditions) for g in sick] == [["route_unhealthy"]] * 2 + [[]] * 2
    assert sick[0].summary == "unhealthy"
    waiting = parse_smi_fabric((FABRIC / "registering/nvidia-smi-q.txt").read_text())
    assert {(g.state, g.clique) for g in waiting} == {(FabricState.IN_PROGRESS, "")}


def test_smi_fabric_on_a_gpu_without_one() -> None:
    gpus = parse_smi_fabric((FABRIC / "no-fabric/nvidia-smi-q.txt").read_text())
    assert [(g.state, g.clique_id, g.cluster_uuid) for g in gpus] == [
        (FabricState.NOT_SUPPORTED, None, "")
    ] * 2


def test_health_mask_fields() -> None:
    # Route unhealthy (1 at bits 4-5), bandwidth not degraded (2 at bits 0-1), configuration
    # "insufficient NVLinks" (5 at bits 8-11), GFM disconnected (2 at bits 14-15).
    mask = 2 | (1 << 4) | (5 << 8) | (2 << 14)
    assert decode_health(mask) == (
        frozenset({"route_unhealthy", "gfm_disconnected"}),
        "insufficient_nvlinks",
    )
    assert decode_health(0) == (frozenset(), "")  # every field "not supported"


class FakeNvml:
    """pynvml's names and record types; each GPU's fabric info filled into the caller's record."""

    NVMLError = pynvml.NVMLError

    def __init__(self, infos: Sequence[dict[str, Any] | int], *, v3: bool = True) -> None:
        for name in dir(pynvml):
            if name.startswith(("NVML_", "c_nvmlGpuFabricInfo")):
                setattr(self, name, getattr(pynvml, name))
        if not v3:
            del self.c_nvmlGpuFabricInfo_v3_t
        self.infos = list(infos)
        self.versions: list[int] = []
        self.calls: list[str] = []

    def nvmlInit(self) -> None:
        self.calls.append("init")

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlDeviceGetCount(self) -> int:
        return len(self.infos)

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return type("Pci", (), {"busId": f"00000008:0{h}:00.0".encode()})()

    def nvmlDeviceGetGpuFabricInfoV(self, h: int, ref: Any) -> int:
        record = ref._obj  # ctypes.byref's target: the record the caller allocated
        self.versions.append(record.version)
        info = self.infos[h]
        if isinstance(info, int):
            raise pynvml.NVMLError(info)
        fields = {name for name, _ in record._fields_}  # a v2 record has no health summary
        for key, value in info.items():
            if key not in fields:
                continue
            if key == "clusterUuid":
                ctypes.memmove(record.clusterUuid, bytes.fromhex(value), 16)
            else:
                setattr(record, key, value)
        return 0


GB200 = {
    "state": pynvml.NVML_GPU_FABRIC_STATE_COMPLETED,
    "status": 0,
    "cliqueId": 32766,
    "clusterUuid": "5c6c21a49f0b4d8ba1c32e7f1b0d9a44",
    "healthMask": 2 | (2 << 2) | (2 << 4) | (2 << 6) | (1 << 8),
    "healthSummary": pynvml.NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY,
}


def test_nvml_fabric_reads_the_v3_record() -> None:
    failed = {**GB200, "status": pynvml.NVML_ERROR_UNKNOWN}
    fake = FakeNvml([GB200, failed, pynvml.NVML_ERROR_NOT_SUPPORTED])
    gpus = NvmlFabric(fake).gpus()
    assert fake.versions == [pynvml.nvmlGpuFabricInfo_v3] * 3
    assert (gpus[0].clique, gpus[0].summary, gpus[0].conditions) == (CLIQUE, "healthy", set())
    assert gpus[1].status == f"nvml_error_{pynvml.NVML_ERROR_UNKNOWN}"
    assert gpus[2].state is FabricState.NOT_SUPPORTED  # a GPU off the fabric, not an error
    assert fake.calls == ["init", "shutdown"]


def test_nvml_fabric_falls_back_to_v2_on_an_older_driver() -> None:
    fake = FakeNvml([GB200])
    calls = iter([pynvml.NVMLError(pynvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)])
    real = fake.nvmlDeviceGetGpuFabricInfoV

    def older(h: int, ref: Any) -> int:
        fake.versions.append(ref._obj.version)
        if ref._obj.version == pynvml.nvmlGpuFabricInfo_v3:
            raise next(calls)
        fake.versions.pop()
        return real(h, ref)

    fake.nvmlDeviceGetGpuFabricInfoV = older  # type: ignore[method-assign]
    (gpu,) = NvmlFabric(fake).gpus()
    assert fake.versions == [pynvml.nvmlGpuFabricInfo_v3, pynvml.nvmlGpuFabricInfo_v2]
    assert (gpu.clique, gpu.summary) == (CLIQUE, "")  # v2 carries no summary


def test_nvml_fabric_unavailable_without_the_call_or_a_driver() -> None:
    class OldBinding(FakeNvml):
        nvmlDeviceGetGpuFabricInfoV = None  # noqa: N815 - pynvml's name

    with pytest.raises(FabricUnavailableError, match="no nvmlDeviceGetGpuFabricInfoV"):
        NvmlFabric(OldBinding([GB200])).gpus()

    def no_driver() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)

    fake = FakeNvml([GB200])
    fake.nvmlInit = no_driver  # type: ignore[method-assign]
    with pytest.raises(FabricUnavailableError, match="NVML"):
        NvmlFabric(fake).gpus()


def test_recorded_commands_and_their_argument_lists() -> None:
    seen: list[list[str]] = []
    tools = RecordedTools(FABRIC / "route-unhealthy")

    def runner(args: Sequence[str], timeout_s: float) -> CommandResult:
        seen.append(list(args))
        return tools(args, timeout_s)

    assert len(SmiFabric(runner, "/usr/bin/nvidia-smi").gpus()) == 4
    status = Imex(runner).status()
    assert (status.daemon, status.domain) == ("READY", "DEGRADED")
    assert status.nodes[2] == ("10.40.1.12", "UNAVAILABLE")
    assert seen == [
        ["/usr/bin/nvidia-smi", "-q"],
        ["nvidia-imex-ctl", "-q"],
        ["nvidia-imex-ctl", "-N", "-j"],
    ]


def test_no_imex_on_the_node_is_unavailable() -> None:
    with pytest.raises(FabricUnavailableError):
        Imex(RecordedTools(FABRIC / "no-fabric")).status()


def test_bad_imex_answers_are_read_errors() -> None:
    def says(text: str) -> Any:
        return lambda args, timeout_s: CommandResult(0, text)

    with pytest.raises(FabricReadError, match="not a daemon state"):
        Imex(says("connection refused: is IMEX_CMD_ENABLED set?")).status()
    with pytest.raises(FabricReadError, match="not JSON"):
        parse_imex_domain("{nodes:")
    with pytest.raises(FabricReadError, match="no domain 'status'"):
        parse_imex_domain('{"nodes": {}}')
