"""The real NVML backend (nvidia-ml-py), and the recorder that turns a look into a fixture.

NVML is initialised lazily, on the first snapshot, so importing this module or building the
agent on a node without GPUs costs nothing. Every NVML error is mapped here, once, to our
vocabulary (NvmlErrorKind); nothing above this module sees a pynvml exception. The module
object is injectable, so the mapping and the call sequence are tested without a GPU.
"""

from __future__ import annotations

import ctypes
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from autorecover.adapters.host.nvml_snapshots import (
    SNAPSHOT_FORMAT,
    EccCounts,
    GpuSample,
    NvLink,
    NvmlError,
    NvmlErrorKind,
    NvmlSnapshot,
    RemappedRows,
    RetiredPages,
    XidRecord,
    snapshot_to_dict,
)

T = TypeVar("T")
MAX_EVENTS = 1000  # drained per snapshot: an XID storm must not stall the probe

# NVML return codes (nvml.h), by name so a stand-in module may leave any out.
_KINDS: dict[str, NvmlErrorKind] = {
    "NVML_ERROR_UNINITIALIZED": NvmlErrorKind.UNAVAILABLE,
    "NVML_ERROR_DRIVER_NOT_LOADED": NvmlErrorKind.UNAVAILABLE,
    "NVML_ERROR_LIBRARY_NOT_FOUND": NvmlErrorKind.UNAVAILABLE,
    "NVML_ERROR_FUNCTION_NOT_FOUND": NvmlErrorKind.NOT_SUPPORTED,
    "NVML_ERROR_NOT_SUPPORTED": NvmlErrorKind.NOT_SUPPORTED,
    "NVML_ERROR_INVALID_ARGUMENT": NvmlErrorKind.NOT_SUPPORTED,  # e.g. an NVLink that isn't there
    "NVML_ERROR_NOT_FOUND": NvmlErrorKind.NOT_SUPPORTED,
    "NVML_ERROR_GPU_IS_LOST": NvmlErrorKind.GPU_LOST,
    "NVML_ERROR_RESET_REQUIRED": NvmlErrorKind.RESET_REQUIRED,
    "NVML_ERROR_NO_PERMISSION": NvmlErrorKind.NO_PERMISSION,
}


def _load_pynvml() -> Any:
    import pynvml  # lazily: tests inject a stand-in

    return pynvml


class PynvmlBackend:
    """Snapshots from the live driver through pynvml."""

    def __init__(self, nvml: Any = None, *, xid_events: bool = True) -> None:
        self._nvml = nvml
        self._want_events = xid_events
        self._ready = False
        self._events: Any = None
        self._bus_by_handle: dict[int, str] = {}
        self._registered: set[int] = set()
        codes = {}
        module = self._module()
        for name, kind in _KINDS.items():
            code = getattr(module, name, None)
            if isinstance(code, int):
                codes[code] = kind
        self._codes = codes

    def _module(self) -> Any:
        if self._nvml is None:
            self._nvml = _load_pynvml()
        return self._nvml

    def map_error(self, exc: BaseException) -> NvmlError:
        """Our error for an NVML exception (the one place pynvml's codes are read)."""
        code = getattr(exc, "value", None)
        if not isinstance(code, int):
            return NvmlError(NvmlErrorKind.TRANSIENT, f"NVML: {exc}")
        return NvmlError(self._codes.get(code, NvmlErrorKind.TRANSIENT), f"NVML: {exc}", code)

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        nvml = self._module()
        try:
            return fn(*args)
        except nvml.NVMLError as exc:
            raise self.map_error(exc) from None

    def _optional(self, fn: Callable[..., T], *args: Any) -> T | None:
        """A field that some GPUs lack: None when unsupported or not permitted."""
        try:
            return self._call(fn, *args)
        except NvmlError as exc:
            if exc.kind in (NvmlErrorKind.NOT_SUPPORTED, NvmlErrorKind.NO_PERMISSION):
                return None
            if exc.kind is NvmlErrorKind.TRANSIENT:
                return None  # one unreadable field must not cost the rest of the GPU
            raise

    def _init(self) -> None:
        if self._ready:
            return
        nvml = self._module()
        self._call(nvml.nvmlInit)
        self._ready = True
        if self._want_events:
            try:
                self._events = self._call(nvml.nvmlEventSetCreate)
            except NvmlError:
                self._events = None

    def snapshot(self) -> NvmlSnapshot:
        """Look at every GPU once and drain XID events."""
        nvml = self._module()
        try:
            self._init()
            driver = self._optional(nvml.nvmlSystemGetDriverVersion) or ""
            count = self._call(nvml.nvmlDeviceGetCount)
        except NvmlError as exc:
            if exc.kind is NvmlErrorKind.UNAVAILABLE:
                self._ready = False  # the driver went away: initialise again on the next look
            return NvmlSnapshot(error=exc.kind, error_text=str(exc))
        gpus = tuple(self._gpu(i) for i in range(count))
        return NvmlSnapshot(
            driver_version=_text(driver),
            device_count=count,
            gpus=gpus,
            xid_events=self._drain_events(),
        )

    def _gpu(self, index: int) -> GpuSample:
        nvml = self._module()
        bus_id = ""
        try:
            handle = self._call(nvml.nvmlDeviceGetHandleByIndex, index)
            bus_id = _text(self._call(nvml.nvmlDeviceGetPciInfo, handle).busId)
            self._register(handle, bus_id)
            return self._read(index, handle, bus_id)
        except NvmlError as exc:
            return GpuSample(index=index, bus_id=bus_id, error=exc.kind)

    def _read(self, index: int, h: Any, bus_id: str) -> GpuSample:
        nv = self._module()
        ecc = EccCounts(
            volatile_sbe=self._ecc(h, nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, nv.NVML_VOLATILE_ECC),
            volatile_dbe=self._ecc(h, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_VOLATILE_ECC),
            aggregate_sbe=self._ecc(h, nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, nv.NVML_AGGREGATE_ECC),
            aggregate_dbe=self._ecc(
                h, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_AGGREGATE_ECC
            ),
        )
        rows = self._optional(nv.nvmlDeviceGetRemappedRows, h)
        return GpuSample(
            index=index,
            bus_id=bus_id,
            uuid=_text(self._optional(nv.nvmlDeviceGetUUID, h) or ""),
            name=_text(self._optional(nv.nvmlDeviceGetName, h) or ""),
            ecc=ecc if any(v is not None for v in (ecc.volatile_sbe, ecc.volatile_dbe)) else None,
            remapped_rows=RemappedRows(int(rows[0]), int(rows[1]), bool(rows[2]), bool(rows[3]))
            if rows is not None
            else None,
            retired_pages=self._retired(h),
            recovery_action=self._recovery_action(h),
            clock_event_reasons=self._clock_reasons(h),
            temperature_c=self._optional(nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU),
            nvlinks=self._nvlinks(h),
        )

    def _ecc(self, h: Any, error_type: int, counter: int) -> int | None:
        return self._optional(self._module().nvmlDeviceGetTotalEccErrors, h, error_type, counter)

    def _retired(self, h: Any) -> RetiredPages | None:
        nv = self._module()
        sbe = self._optional(
            nv.nvmlDeviceGetRetiredPages,
            h,
            nv.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
        )
        dbe = self._optional(
            nv.nvmlDeviceGetRetiredPages, h, nv.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
        )
        if sbe is None and dbe is None:
            return None
        pending = self._optional(nv.nvmlDeviceGetRetiredPagesPendingStatus, h)
        enabled = getattr(nv, "NVML_FEATURE_ENABLED", 1)
        return RetiredPages(len(sbe or ()), len(dbe or ()), pending == enabled)

    def _recovery_action(self, h: Any) -> int | None:
        nv = self._module()
        field = getattr(nv, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", None)
        if field is None:  # older bindings: the driver's advice is still in XID 154's text
            return None
        values = self._optional(nv.nvmlDeviceGetFieldValues, h, [field])
        if not values or getattr(values[0], "nvmlReturn", 1) != 0:
            return None
        return _field_value(values[0])

    def _clock_reasons(self, h: Any) -> int | None:
        nv = self._module()
        fn = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
        fn = fn or nv.nvmlDeviceGetCurrentClocksThrottleReasons
        value = self._optional(fn, h)
        return int(value) if value is not None else None

    def _nvlinks(self, h: Any) -> tuple[NvLink, ...]:
        nv = self._module()
        links: list[NvLink] = []
        for link in range(int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18))):
            try:
                state = self._call(nv.nvmlDeviceGetNvLinkState, h, link)
            except NvmlError as exc:
                if exc.kind in (NvmlErrorKind.GPU_LOST, NvmlErrorKind.RESET_REQUIRED):
                    raise
                if link == 0:
                    break  # no NVLink on this GPU at all
                continue
            counter = nv.nvmlDeviceGetNvLinkErrorCounter
            links.append(
                NvLink(
                    link=link,
                    active=bool(state == getattr(nv, "NVML_FEATURE_ENABLED", 1)),
                    replay=self._optional(counter, h, link, nv.NVML_NVLINK_ERROR_DL_REPLAY),
                    recovery=self._optional(counter, h, link, nv.NVML_NVLINK_ERROR_DL_RECOVERY),
                    crc_flit=self._optional(counter, h, link, nv.NVML_NVLINK_ERROR_DL_CRC_FLIT),
                    crc_data=self._optional(counter, h, link, nv.NVML_NVLINK_ERROR_DL_CRC_DATA),
                )
            )
        return tuple(links)

    def _register(self, handle: Any, bus_id: str) -> None:
        key = _handle_key(handle)
        self._bus_by_handle[key] = bus_id
        if self._events is None or key in self._registered:
            return
        self._registered.add(key)
        nv = self._module()
        try:
            self._call(
                nv.nvmlDeviceRegisterEvents, handle, nv.nvmlEventTypeXidCriticalError, self._events
            )
        except NvmlError:
            return  # some GPUs (and vGPUs) do not deliver XID events; the kernel log still does

    def _drain_events(self) -> tuple[XidRecord, ...]:
        if self._events is None:
            return ()
        nv = self._module()
        wait = getattr(nv, "nvmlEventSetWait_v2", None) or nv.nvmlEventSetWait
        out: list[XidRecord] = []
        for _ in range(MAX_EVENTS):
            try:
                data = self._call(wait, self._events, 0)
            except NvmlError:
                break  # NVML_ERROR_TIMEOUT: no event is waiting
            bus = self._bus_by_handle.get(_handle_key(data.device), "")
            out.append(XidRecord(bus_id=bus, xid=int(data.eventData)))
        return tuple(out)

    def close(self) -> None:
        """Free the event set and shut NVML down."""
        if not self._ready:
            return
        nv = self._module()
        if self._events is not None:
            self._optional(nv.nvmlEventSetFree, self._events)
            self._events = None
        self._optional(nv.nvmlShutdown)
        self._ready = False


def record(
    backend: PynvmlBackend,
    out: Path,
    samples: int = 1,
    pause: Callable[[], None] | None = None,
) -> NvmlSnapshot:
    """Write `samples` snapshots (`pause` between them) as a replayable fixture; the last one."""
    snaps: list[NvmlSnapshot] = []
    for i in range(max(1, samples)):
        if i and pause is not None:
            pause()
        snaps.append(backend.snapshot())
    if len(snaps) == 1:
        document: dict[str, Any] = snapshot_to_dict(snaps[0])
    else:
        document = {"format": SNAPSHOT_FORMAT, "samples": [snapshot_to_dict(s) for s in snaps]}
    out.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return snaps[-1]


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _handle_key(handle: Any) -> int:
    """Handles are ctypes pointers: key them by address so events find their GPU."""
    addr = getattr(handle, "value", None)
    if isinstance(addr, int):
        return addr
    try:
        return ctypes.cast(handle, ctypes.c_void_p).value or id(handle)
    except (TypeError, ctypes.ArgumentError):
        return id(handle)


def _field_value(value: Any) -> int | None:
    """The integer in an nvmlFieldValue_t, whatever its value type."""
    members = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal"}
    member = members.get(int(getattr(value, "valueType", 1)), "uiVal")
    raw = getattr(getattr(value, "value", None), member, None)
    return int(raw) if isinstance(raw, int | float) else None
