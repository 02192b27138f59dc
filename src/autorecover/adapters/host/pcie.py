"""PCIe devices from sysfs: AER counters and link speed/width against their maximum.

`<root>/sys/bus/pci/devices/<BDF>/aer_dev_{correctable,nonfatal,fatal}` hold one `Name count`
line per error type and a `TOTAL_ERR_*` line (kernel >= 4.19,
Documentation/ABI/testing/sysfs-bus-pci-devices-aer-stats); `current_link_{speed,width}` and
`max_link_{speed,width}` say how the link trained (`16.0 GT/s PCIe`, `16`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

PCI_DEVICES = "sys/bus/pci/devices"
AER_FILES = ("aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal")
_TOTALS = {
    "aer_dev_correctable": "TOTAL_ERR_COR",
    "aer_dev_nonfatal": "TOTAL_ERR_NONFATAL",
    "aer_dev_fatal": "TOTAL_ERR_FATAL",
}
_BDF = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
_AER_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,40})\s+(\d{1,20})")
_SPEED = re.compile(r"\s*(\d{1,3}(?:\.\d{1,3})?)\s*GT/s")


class PcieUnavailableError(Exception):
    """No PCI device tree under the root (not a fault)."""


@dataclass(frozen=True, slots=True)
class PciDevice:
    """One PCI function, as much of it as the agent reads."""

    bdf: str
    vendor: int
    device_class: int  # the 24-bit class code: 0x030200 is a 3D controller
    aer: dict[str, int | None] = field(default_factory=dict)  # aer_dev_* file -> total
    aer_detail: dict[str, dict[str, int]] = field(default_factory=dict)
    current_speed_gts: float | None = None
    max_speed_gts: float | None = None
    current_width: int | None = None
    max_width: int | None = None

    @property
    def class_code(self) -> int:
        """Base class and subclass (0x0302), without the programming interface."""
        return self.device_class >> 8


def parse_aer(text: str) -> dict[str, int]:
    """`RxErr 0\\nBadTLP 2\\n...TOTAL_ERR_COR 2` -> {name: count}; junk lines are skipped."""
    out: dict[str, int] = {}
    for line in text.splitlines()[:64]:
        m = _AER_LINE.fullmatch(line.strip())
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def aer_total(counts: Mapping[str, int], file: str) -> int | None:
    """The file's TOTAL_ERR_* line, or the sum of its lines when the kernel has no total."""
    total = counts.get(_TOTALS.get(file, ""))
    if total is not None:
        return total
    return sum(counts.values()) if counts else None


def parse_speed(text: str) -> float | None:
    """`16.0 GT/s PCIe` -> 16.0; `Unknown` -> None."""
    m = _SPEED.match(text)
    return float(m.group(1)) if m else None


def read_devices(root: Path, vendors: frozenset[int], classes: frozenset[int]) -> list[PciDevice]:
    """Devices of the given vendors whose class (0xBBSS) is one of `classes`."""
    base = root / PCI_DEVICES
    if not base.is_dir():
        raise PcieUnavailableError(f"{base}: no PCI devices")
    out: list[PciDevice] = []
    for entry in sorted(base.iterdir(), key=lambda p: p.name):
        if _BDF.fullmatch(entry.name) is None:
            continue
        vendor, klass = _hex(_read(entry / "vendor")), _hex(_read(entry / "class"))
        if vendor not in vendors or klass is None or (klass >> 8) not in classes:
            continue
        detail = {f: parse_aer(_read(entry / f)) for f in AER_FILES if (entry / f).exists()}
        out.append(
            PciDevice(
                bdf=entry.name,
                vendor=vendor,
                device_class=klass,
                aer={f: aer_total(c, f) for f, c in detail.items()},
                aer_detail=detail,
                current_speed_gts=parse_speed(_read(entry / "current_link_speed")),
                max_speed_gts=parse_speed(_read(entry / "max_link_speed")),
                current_width=_int(_read(entry / "current_link_width")),
                max_width=_int(_read(entry / "max_link_width")),
            )
        )
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")[:4096]
    except OSError:
        return ""


def _hex(text: str) -> int | None:
    text = text.strip()
    try:
        return int(text, 16) if text.startswith("0x") and len(text) <= 10 else None
    except ValueError:
        return None


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and len(text) <= 4 else None
