"""InfiniBand/RoCE ports from sysfs: `<root>/sys/class/infiniband/<dev>/ports/<n>/`.

Reads `state` and `phys_state` (`4: ACTIVE`, `5: LinkUp`), `link_layer`, and the counters the
caller names (`counters/symbol_error`, `hw_counters/rnr_nak_retry_err`, ...). The root is
injectable so the same code reads a fixture tree. Names found in sysfs are checked before they
are used in a path, and a counter that is missing or unreadable is None, not 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

IB_CLASS = "sys/class/infiniband"
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_SOURCE = re.compile(r"(?:counters|hw_counters)/[A-Za-z0-9_]{1,64}")
_STATE = re.compile(r"\s*(\d+)\s*:\s*(\S+)")


class InfinibandUnavailableError(Exception):
    """No InfiniBand/RoCE devices on this node (not a fault)."""


@dataclass(frozen=True, slots=True)
class IbPort:
    """One port's state and counters."""

    device: str
    port: int
    state: str  # "ACTIVE", "DOWN", "INIT", ...
    phys_state: str  # "LinkUp", "Polling", "Disabled", ...
    link_layer: str = ""  # "InfiniBand" or "Ethernet" (RoCE)
    counters: dict[str, int | None] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """`mlx5_0/1`: how signals name the port."""
        return f"{self.device}/{self.port}"


def parse_state(text: str) -> str:
    """`4: ACTIVE` -> `ACTIVE`; anything else is returned stripped."""
    m = _STATE.match(text)
    return m.group(2) if m else text.strip()


def read_ports(root: Path, sources: Iterable[str]) -> list[IbPort]:
    """Every port of every device under `root`, with the named counters."""
    base = root / IB_CLASS
    if not base.is_dir():
        raise InfinibandUnavailableError(f"{base}: no InfiniBand/RoCE devices")
    wanted = sorted({s for s in sources if _SOURCE.fullmatch(s)})
    ports: list[IbPort] = []
    for dev in sorted(base.iterdir()):
        if _NAME.fullmatch(dev.name) is None:
            continue
        ports_dir = dev / "ports"
        if not ports_dir.is_dir():
            continue
        for port_dir in sorted(ports_dir.iterdir(), key=lambda p: p.name):
            if not port_dir.name.isdigit() or len(port_dir.name) > 3:
                continue
            ports.append(
                IbPort(
                    device=dev.name,
                    port=int(port_dir.name),
                    state=parse_state(_read(port_dir / "state")),
                    phys_state=parse_state(_read(port_dir / "phys_state")),
                    link_layer=_read(port_dir / "link_layer").strip(),
                    counters={s: _read_int(port_dir / s) for s in wanted},
                )
            )
    if not ports:
        raise InfinibandUnavailableError(f"{base}: no ports")
    return ports


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")[:256]
    except OSError:
        return ""


def _read_int(path: Path) -> int | None:
    text = _read(path).strip()
    return int(text) if text.isdigit() and len(text) <= 20 else None
