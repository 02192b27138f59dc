"""NVML snapshots: what one look at the GPUs yields, its JSON form, and a replay backend.

The real backend (adapters.nvml) and the replay backend return the same `NvmlSnapshot`, so the
probe's logic runs unchanged on a GPU node and on recorded fixtures. A field NVML does not
support on a GPU is None, never 0: "no remapped rows" and "cannot tell" are different answers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

SNAPSHOT_FORMAT = "autorecover.nvml-snapshot/1"


class NvmlErrorKind(StrEnum):
    """Our small vocabulary for NVML's many return codes (persisted in snapshots)."""

    UNAVAILABLE = "unavailable"  # no library, driver not loaded: nothing to ask
    NOT_SUPPORTED = "not_supported"
    GPU_LOST = "gpu_lost"  # NVML_ERROR_GPU_IS_LOST: the GPU stopped answering
    RESET_REQUIRED = "reset_required"
    NO_PERMISSION = "no_permission"
    TRANSIENT = "transient"  # timeouts, unknown errors: ask again later


class NvmlError(Exception):
    """An NVML call failed, mapped to our vocabulary."""

    def __init__(self, kind: NvmlErrorKind, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code


class SnapshotError(ValueError):
    """A recorded snapshot is malformed; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class EccCounts:
    """ECC error counts (NVML volatile: since the last reset; aggregate: lifetime)."""

    volatile_sbe: int | None = None
    volatile_dbe: int | None = None
    aggregate_sbe: int | None = None
    aggregate_dbe: int | None = None


@dataclass(frozen=True, slots=True)
class RemappedRows:
    """nvmlDeviceGetRemappedRows (Ampere and newer)."""

    correctable: int
    uncorrectable: int
    pending: bool
    failure: bool


@dataclass(frozen=True, slots=True)
class RetiredPages:
    """Page retirement (before Ampere)."""

    sbe: int
    dbe: int
    pending: bool


@dataclass(frozen=True, slots=True)
class NvLink:
    """One NVLink's state and error counters."""

    link: int
    active: bool | None = None
    replay: int | None = None
    recovery: int | None = None
    crc_flit: int | None = None
    crc_data: int | None = None


@dataclass(frozen=True, slots=True)
class GpuSample:
    """One GPU as NVML saw it."""

    index: int
    bus_id: str = ""
    uuid: str = ""
    name: str = ""
    error: NvmlErrorKind | None = None  # the GPU as a whole could not be read
    ecc: EccCounts | None = None
    remapped_rows: RemappedRows | None = None
    retired_pages: RetiredPages | None = None
    recovery_action: int | None = None  # NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
    clock_event_reasons: int | None = None
    temperature_c: int | None = None
    nvlinks: tuple[NvLink, ...] = ()


@dataclass(frozen=True, slots=True)
class XidRecord:
    """An XID from NVML's event set."""

    bus_id: str
    xid: int


@dataclass(frozen=True, slots=True)
class NvmlSnapshot:
    """Everything one look at NVML found."""

    driver_version: str = ""
    device_count: int = 0
    gpus: tuple[GpuSample, ...] = ()
    xid_events: tuple[XidRecord, ...] = ()
    error: NvmlErrorKind | None = None  # NVML as a whole could not be used
    error_text: str = ""


class NvmlBackend(Protocol):
    """Where snapshots come from: pynvml on a GPU node, recorded JSON elsewhere."""

    def snapshot(self) -> NvmlSnapshot:
        """Look at every GPU once (and drain pending XID events)."""
        ...

    def close(self) -> None:
        """Release NVML."""
        ...


def snapshot_to_dict(snap: NvmlSnapshot) -> dict[str, Any]:
    """The JSON form written by `autorecover agent record-nvml`."""
    document: dict[str, Any] = json.loads(json.dumps(asdict(snap)))  # tuples become lists
    return {"format": SNAPSHOT_FORMAT, **document}


def snapshot_from_dict(data: Mapping[str, Any], origin: str) -> NvmlSnapshot:
    """A snapshot from its JSON form; SnapshotError names what is wrong."""
    r = _Reader(origin)
    gpus = tuple(r.gpu(g, f"gpus[{i}]") for i, g in enumerate(r.list_(data, "gpus", "")))
    events = tuple(
        XidRecord(r.str_(e, "bus_id", f"xid_events[{i}]"), r.int_(e, "xid", f"xid_events[{i}]"))
        for i, e in enumerate(r.list_(data, "xid_events", ""))
    )
    return NvmlSnapshot(
        driver_version=str(data.get("driver_version", "")),
        device_count=r.int_(data, "device_count", ""),
        gpus=gpus,
        xid_events=events,
        error=r.kind(data.get("error"), "error"),
        error_text=str(data.get("error_text", "")),
    )


class ReplayBackend:
    """Snapshots recorded earlier: one per call, the last one repeated once they run out.

    The file holds one snapshot, or `{"format": ..., "samples": [snapshot, ...]}` for a
    sequence (consecutive thermal samples, a GPU lost between two looks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise SnapshotError(f"{path}: not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError(f"{path}: not an {SNAPSHOT_FORMAT} document")
        raw = data.get("samples", [data])
        if not isinstance(raw, list) or not raw:
            raise SnapshotError(f"{path}: 'samples' must be a non-empty list")
        self.samples = [snapshot_from_dict(s, f"{path}: samples[{i}]") for i, s in enumerate(raw)]
        self._next = 0

    def snapshot(self) -> NvmlSnapshot:
        """The next recorded snapshot."""
        i = self._next
        snap = self.samples[i]
        if i < len(self.samples) - 1:
            self._next += 1
        else:
            # XID events are drained when read: looking again at the last sample repeats none.
            self.samples[i] = replace(snap, xid_events=())
        return snap

    def close(self) -> None:
        """Nothing to release."""


class _Reader:
    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, where: str, message: str) -> SnapshotError:
        return SnapshotError(f"{self.origin}: {where}: {message}")

    def list_(self, d: Any, key: str, where: str) -> list[Any]:
        value = d.get(key, []) if isinstance(d, dict) else None
        if not isinstance(value, list):
            raise self.fail(where or key, f"{key!r} must be a list")
        return value

    def int_(self, d: Any, key: str, where: str) -> int:
        value = d.get(key) if isinstance(d, dict) else None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where or key, f"{key!r} must be an integer")
        return value

    def opt_int(self, d: Mapping[str, Any], key: str, where: str) -> int | None:
        value = d.get(key)
        if value is None:
            return None
        return self.int_(d, key, where)

    def str_(self, d: Any, key: str, where: str) -> str:
        value = d.get(key, "") if isinstance(d, dict) else None
        if not isinstance(value, str):
            raise self.fail(where, f"{key!r} must be a string")
        return value

    def kind(self, value: Any, where: str) -> NvmlErrorKind | None:
        if value is None:
            return None
        try:
            return NvmlErrorKind(value)
        except ValueError:
            raise self.fail(where, f"{value!r} is not an NVML error kind") from None

    def gpu(self, g: Any, where: str) -> GpuSample:
        if not isinstance(g, dict):
            raise self.fail(where, "must be an object")
        ecc = g.get("ecc")
        rows = g.get("remapped_rows")
        pages = g.get("retired_pages")
        return GpuSample(
            index=self.int_(g, "index", where),
            bus_id=self.str_(g, "bus_id", where),
            uuid=self.str_(g, "uuid", where),
            name=self.str_(g, "name", where),
            error=self.kind(g.get("error"), f"{where}.error"),
            ecc=EccCounts(**{k: self.opt_int(ecc, k, f"{where}.ecc") for k in _ECC})
            if isinstance(ecc, dict)
            else None,
            remapped_rows=RemappedRows(
                self.int_(rows, "correctable", f"{where}.remapped_rows"),
                self.int_(rows, "uncorrectable", f"{where}.remapped_rows"),
                bool(rows.get("pending")),
                bool(rows.get("failure")),
            )
            if isinstance(rows, dict)
            else None,
            retired_pages=RetiredPages(
                self.int_(pages, "sbe", f"{where}.retired_pages"),
                self.int_(pages, "dbe", f"{where}.retired_pages"),
                bool(pages.get("pending")),
            )
            if isinstance(pages, dict)
            else None,
            recovery_action=self.opt_int(g, "recovery_action", where),
            clock_event_reasons=self.opt_int(g, "clock_event_reasons", where),
            temperature_c=self.opt_int(g, "temperature_c", where),
            nvlinks=tuple(
                self.link(x, f"{where}.nvlinks") for x in self.list_(g, "nvlinks", where)
            ),
        )

    def link(self, x: Any, where: str) -> NvLink:
        if not isinstance(x, dict):
            raise self.fail(where, "must be an object")
        active = x.get("active")
        return NvLink(
            link=self.int_(x, "link", where),
            active=active if isinstance(active, bool) else None,
            **{
                k: self.opt_int(x, k, where) for k in ("replay", "recovery", "crc_flit", "crc_data")
            },
        )


_ECC = ("volatile_sbe", "volatile_dbe", "aggregate_sbe", "aggregate_dbe")
