"""The NVML backends: pynvml's calls and errors mapped once; snapshots recorded and replayed.

The real backend runs here against a stand-in for the pynvml module (same names, same
NVMLError classes): the call sequence and the error mapping are what is tested, the driver
itself needs a GPU node (see docs/agent.md for the device check).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pynvml
import pytest

from autorecover.adapters.host.nvml import PynvmlBackend, record
from autorecover.adapters.host.nvml_snapshots import (
    NvmlErrorKind,
    ReplayBackend,
    SnapshotError,
    snapshot_from_dict,
    snapshot_to_dict,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent" / "nvml"


def fail(code: int) -> pynvml.NVMLError:
    return pynvml.NVMLError(code)


class FakeNvml:
    """Just enough of pynvml for two GPUs, one of which can be lost."""

    NVMLError = pynvml.NVMLError

    def __init__(self, *, init_error: int | None = None, lost: int | None = None) -> None:
        for name in dir(pynvml):
            if name.startswith(("NVML_", "nvmlEventType", "nvmlClocks")):
                setattr(self, name, getattr(pynvml, name))
        self.init_error = init_error
        self.lost = lost
        self.events: list[Any] = []
        self.calls: list[str] = []
        self.registered: list[int] = []
        self.dbe = [0, 2]

    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.init_error is not None:
            raise fail(self.init_error)

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlSystemGetDriverVersion(self) -> str:
        return "570.133.20"

    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        if i == self.lost:
            raise fail(pynvml.NVML_ERROR_GPU_IS_LOST)
        return 0x1000 * (i + 1)

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return SimpleNamespace(busId=f"00000000:{0x18 + h // 0x1000:02X}:00.0".encode())

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return f"GPU-{h:x}"

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return b"NVIDIA H100 80GB HBM3"

    def nvmlDeviceGetTotalEccErrors(self, h: int, etype: int, ctype: int) -> int:
        if etype == pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED:
            return self.dbe[h // 0x1000 - 1] if ctype == pynvml.NVML_VOLATILE_ECC else 5
        return 1

    def nvmlDeviceGetRemappedRows(self, h: int) -> tuple[int, int, int, int]:
        return (0, 1, 1, 0) if h == 0x2000 else (0, 0, 0, 0)

    def nvmlDeviceGetRetiredPages(self, h: int, cause: int) -> list[int]:
        raise fail(pynvml.NVML_ERROR_NOT_SUPPORTED)

    def nvmlDeviceGetRetiredPagesPendingStatus(self, h: int) -> int:
        raise fail(pynvml.NVML_ERROR_NOT_SUPPORTED)

    def nvmlDeviceGetFieldValues(self, h: int, fields: list[int]) -> list[Any]:
        assert fields == [pynvml.NVML_FI_DEV_GET_GPU_RECOVERY_ACTION]
        value = SimpleNamespace(uiVal=1 if h == 0x2000 else 0)
        return [SimpleNamespace(nvmlReturn=0, valueType=1, value=value)]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        return 0x41

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: int) -> int:
        raise AssertionError("the newer call exists: the deprecated one is not used")

    def nvmlDeviceGetTemperature(self, h: int, sensor: int) -> int:
        raise fail(pynvml.NVML_ERROR_TIMEOUT)  # one unreadable field costs only itself

    def nvmlDeviceGetNvLinkState(self, h: int, link: int) -> int:
        if link >= 2:
            raise fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return 1

    def nvmlDeviceGetNvLinkErrorCounter(self, h: int, link: int, counter: int) -> int:
        return 7 if counter == pynvml.NVML_NVLINK_ERROR_DL_REPLAY else 0

    def nvmlEventSetCreate(self) -> str:
        return "event-set"

    def nvmlDeviceRegisterEvents(self, h: int, types: int, event_set: str) -> None:
        assert types == pynvml.nvmlEventTypeXidCriticalError
        self.registered.append(h)

    def nvmlEventSetWait_v2(self, event_set: str, timeout_ms: int) -> Any:
        assert timeout_ms == 0  # never block the probe
        if not self.events:
            raise fail(pynvml.NVML_ERROR_TIMEOUT)
        return self.events.pop(0)

    def nvmlEventSetFree(self, event_set: str) -> None:
        self.calls.append("free")


def test_snapshot_reads_every_field() -> None:
    nv = FakeNvml()
    nv.events = [SimpleNamespace(device=0x2000, eventData=48, eventType=8)]
    backend = PynvmlBackend(nv)
    snap = backend.snapshot()
    assert snap.error is None and snap.driver_version == "570.133.20" and snap.device_count == 2
    g0, g1 = snap.gpus
    assert g0.bus_id == "00000000:19:00.0" and g0.name == "NVIDIA H100 80GB HBM3"
    assert g1.ecc is not None and g1.ecc.volatile_dbe == 2 and g1.ecc.aggregate_dbe == 5
    assert g1.remapped_rows is not None and g1.remapped_rows.pending
    assert g0.retired_pages is None  # NOT_SUPPORTED is None, never 0
    assert (g0.recovery_action, g1.recovery_action) == (0, 1)
    assert g0.clock_event_reasons == 0x41
    assert g0.temperature_c is None
    assert [link.link for link in g0.nvlinks] == [0, 1] and g0.nvlinks[0].replay == 7
    assert [(e.bus_id, e.xid) for e in snap.xid_events] == [("00000000:1A:00.0", 48)]
    assert nv.registered == [0x1000, 0x2000]
    backend.snapshot()
    assert nv.registered == [0x1000, 0x2000]  # registered once
    assert nv.calls.count("init") == 1  # initialised lazily, once
    backend.close()
    assert nv.calls[-2:] == ["free", "shutdown"]


def test_driver_not_loaded_is_unavailable_and_retried() -> None:
    nv = FakeNvml(init_error=pynvml.NVML_ERROR_DRIVER_NOT_LOADED)
    backend = PynvmlBackend(nv)
    snap = backend.snapshot()
    assert snap.error is NvmlErrorKind.UNAVAILABLE and snap.gpus == ()
    nv.init_error = None
    assert backend.snapshot().device_count == 2
    assert nv.calls.count("init") == 2


def test_gpu_is_lost_maps_to_gpu_lost() -> None:
    snap = PynvmlBackend(FakeNvml(lost=1)).snapshot()
    assert snap.gpus[1].error is NvmlErrorKind.GPU_LOST
    assert snap.gpus[0].error is None


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (pynvml.NVML_ERROR_GPU_IS_LOST, NvmlErrorKind.GPU_LOST),
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, NvmlErrorKind.UNAVAILABLE),
        (pynvml.NVML_ERROR_NOT_SUPPORTED, NvmlErrorKind.NOT_SUPPORTED),
        (pynvml.NVML_ERROR_NO_PERMISSION, NvmlErrorKind.NO_PERMISSION),
        (pynvml.NVML_ERROR_RESET_REQUIRED, NvmlErrorKind.RESET_REQUIRED),
        (pynvml.NVML_ERROR_TIMEOUT, NvmlErrorKind.TRANSIENT),
        (pynvml.NVML_ERROR_UNKNOWN, NvmlErrorKind.TRANSIENT),
    ],
)
def test_error_vocabulary(code: int, kind: NvmlErrorKind) -> None:
    err = PynvmlBackend(FakeNvml()).map_error(fail(code))
    assert err.kind is kind and err.code == code


def test_the_real_module_without_a_driver_is_unavailable() -> None:
    # This machine has no NVIDIA driver: the real pynvml must say so, not crash.
    snap = PynvmlBackend().snapshot()
    assert snap.error is NvmlErrorKind.UNAVAILABLE or snap.device_count >= 0


def test_recorded_snapshots_replay_through_the_same_types(tmp_path: Path) -> None:
    nv = FakeNvml()
    out = tmp_path / "node.json"
    last = record(PynvmlBackend(nv), out, samples=2, pause=lambda: None)
    assert last.device_count == 2
    replay = ReplayBackend(out)
    first = replay.snapshot()
    assert first == snapshot_from_dict(json.loads(out.read_text())["samples"][0], "x")
    assert first.gpus[1].ecc is not None and first.gpus[1].ecc.volatile_dbe == 2


def test_replay_repeats_the_last_sample_without_its_events() -> None:
    replay = ReplayBackend(FIXTURES / "xid-events.json")
    assert len(replay.snapshot().xid_events) == 4
    assert replay.snapshot().xid_events == ()
    assert replay.snapshot().device_count == 4


def test_every_fixture_loads() -> None:
    for path in sorted(FIXTURES.glob("*.json")):
        snap = ReplayBackend(path).snapshot()
        assert snapshot_from_dict(snapshot_to_dict(snap), "round trip") == snap


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ('{"format": "other"}', "not an autorecover.nvml-snapshot/1 document"),
        ('{"format": "autorecover.nvml-snapshot/1", "samples": []}', "non-empty"),
        (
            '{"format": "autorecover.nvml-snapshot/1", "device_count": 1, "gpus": [{"index": "0"}]}',
            "gpus[0]: 'index' must be an integer",
        ),
        (
            '{"format": "autorecover.nvml-snapshot/1", "device_count": 0, "error": "melted"}',
            "not an NVML error kind",
        ),
    ],
)
def test_malformed_snapshots_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SnapshotError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ReplayBackend(path)
