"""The kernel-log probe: new lines since the cursor, read through the catalog, storms folded."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from autorecover.adapters.host.kernel_log import (
    Cursor,
    KernelLine,
    KernelLogError,
    cursor_from_dict,
)
from autorecover.agent.probes.base import ProbeResult, ProbeStatus
from autorecover.agent.probes.kernel_reading import KernelReader, StampedLine
from autorecover.agent.probes.storms import StormFolder
from autorecover.domain.signals import Probe
from autorecover.parsing.lines import parse_line


class LineSource(Protocol):
    """A followed kernel log (adapters.kernel_follow)."""

    def read(self, wait_s: float = 0.0) -> list[KernelLine]:
        """Lines since the cursor."""
        ...

    def cursor(self) -> Cursor | None:
        """Where reading stopped."""
        ...

    def seek(self, cursor: Cursor | None) -> None:
        """Resume after a persisted cursor."""
        ...

    def close(self) -> None:
        """Release what the source holds open."""
        ...


class KernelProbe:
    """Follows one kernel log and turns what it says into signals."""

    kind = Probe.KERNEL

    def __init__(
        self,
        *,
        node: str,
        source: LineSource,
        reader: KernelReader,
        folder: StormFolder | None = None,
        not_before: datetime | None = None,
    ) -> None:
        self.node = node
        self.source = source
        self.reader = reader
        self.folder = folder or StormFolder()
        # Lines logged before this (when their time is known) are history: a health check
        # should not fail today on an XID from before the last reboot.
        self.not_before = not_before

    def poll(self, now: datetime) -> ProbeResult:
        """Read new lines, interpret them, fold storms."""
        try:
            lines = self.source.read()
        except KernelLogError as exc:
            status = ProbeStatus.ERROR if exc.available else ProbeStatus.UNAVAILABLE
            return ProbeResult(self.kind, status, tuple(self.folder.flush(now)), str(exc))
        stamped: list[StampedLine] = []
        for line in lines:
            at = line.at or parse_line(line.text, now).at or now
            if self.not_before is not None and at < self.not_before:
                continue
            stamped.append(StampedLine(line.text, at))
        signals = self.reader.read_lines(self.node, stamped, now)
        out = self.folder.fold(signals, now) + self.folder.flush(now)
        lost = getattr(self.source, "lost", 0)  # only kmsg can lose records (ring overrun)
        reason = f"{lost} kernel records were overwritten before they were read" if lost else ""
        return ProbeResult(self.kind, ProbeStatus.OK, tuple(out), reason)

    def state(self) -> dict[str, Any]:
        """The source's cursor."""
        cursor = self.source.cursor()
        return {"cursor": cursor.as_dict()} if cursor is not None else {}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Resume after the saved cursor."""
        raw = state.get("cursor")
        if isinstance(raw, dict):
            self.source.seek(cursor_from_dict(raw))

    def close(self) -> None:
        """Close the kernel log."""
        self.source.close()
