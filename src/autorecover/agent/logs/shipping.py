"""The agent's pod-log loop: follow the containers the engine names, condense, ship, bounded.

`tick(now)` does one pass, like the probes' loop: every `sources_every_s` it asks the engine
which containers of watched jobs run on this node (and where the engine's copy of each ends);
every `every_s` it reads what each container wrote since (`adapters/host/pod_logs.py`, at most
`read_budget` bytes a pass over all of them), condenses it (`excerpts.py`) and posts the
excerpts. Backpressure instead of loss: while `capacity` bytes of excerpts wait for the
engine, nothing more is read; the container's file keeps the rest (what the kubelet rotates
away and deletes meanwhile is lost, and counted by nobody: keep the engine up). An engine that
answers 404 takes no pod logs (Slurm, an older engine): asked again every `idle_s`. An engine
that lists a container it took excerpts of as new (no inode: it restarted, or another replica
leads now) gets it again from the current log file's start, as `pods/log` would give it.

Nothing read here reaches a shell or a path unchecked: container folders are built from
names checked against Kubernetes' own grammar (`container_folder`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from autorecover.adapters.host.pod_logs import ContainerLog, Position, container_folder
from autorecover.adapters.http.pod_logs_client import (
    FORMAT,
    MAX_DOCUMENT_TEXT,
    MAX_PODS,
    MAX_TEXT,
    LogsRefusedError,
    LogsUnavailableError,
    LogTarget,
)
from autorecover.agent.logs.excerpts import ContainerExcerpts, ExcerptSettings, marks
from autorecover.parsing.scanning import Scanner

log = logging.getLogger(__name__)
READ_BYTES = 1 << 20  # one read of one container


class LogsEngine(Protocol):
    """The engine's side (adapters.http.pod_logs_client.PodLogsClient)."""

    def sources(self, node: str) -> list[LogTarget]:
        """The containers to follow on `node`."""
        ...

    def ship(self, document: Mapping[str, Any]) -> None:
        """Deliver one document of excerpts."""
        ...


@dataclass(slots=True)
class _Followed:
    target: LogTarget
    log: ContainerLog
    excerpts: ContainerExcerpts
    text: list[bytes] = field(default_factory=list)  # excerpts not yet shipped
    size: int = 0
    lines: int = 0
    kept: int = 0
    findings: int = 0
    dropped: int = 0
    shipped: bool = False  # the engine took an excerpt of it


@dataclass(frozen=True, slots=True)
class ShipReport:
    """What one pass did."""

    read: int = 0  # raw bytes read from log files
    shipped: int = 0  # excerpt bytes the engine took
    pending: int = 0  # excerpt bytes waiting
    followed: int = 0


class LogShipper:
    """Follows this node's watched containers and ships their excerpts to the engine."""

    def __init__(
        self,
        *,
        node: str,
        root: Path,
        engine: LogsEngine,
        scanner: Scanner,
        settings: ExcerptSettings | None = None,
        every_s: float = 1.0,
        sources_every_s: float = 10.0,
        idle_s: float = 300.0,
        read_budget: int = 32 << 20,
        capacity: int = 16 << 20,
        jitter: Callable[[], float] | None = random.random,
    ) -> None:
        self.node, self.root, self.engine, self.scanner = node, root, engine, scanner
        self.settings = settings or ExcerptSettings()
        self.every_s, self.sources_every_s, self.idle_s = every_s, sources_every_s, idle_s
        self.read_budget, self.capacity, self.jitter = read_budget, capacity, jitter
        self._followed: dict[str, _Followed] = {}
        self._next_sources: datetime | None = None
        self._next_post: datetime | None = None
        self._next_read: datetime | None = None
        self._backoff_s = 0.0
        self.rejected = 0  # documents the engine refused for good
        self.refused_targets = 0  # sources whose names could not be a kubelet folder

    @property
    def pending(self) -> int:
        """Excerpt bytes waiting for the engine."""
        return sum(f.size for f in self._followed.values())

    def tick(self, now: datetime) -> ShipReport:
        """Refresh the sources when due, read and condense when due, post what waits."""
        if self._next_sources is None or now >= self._next_sources:
            self._refresh(now)
        read = 0
        if self._next_read is None or now >= self._next_read:
            self._next_read = now + timedelta(seconds=self.every_s)
            read = self._read(now)
        shipped = 0
        if self.pending and (self._next_post is None or now >= self._next_post):
            shipped = self._post(now)
        return ShipReport(read, shipped, self.pending, len(self._followed))

    def next_wakeup(self, now: datetime) -> datetime:
        """The earliest time something is due."""
        times = [t for t in (self._next_sources, self._next_read) if t is not None]
        if self.pending and self._next_post is not None:
            times.append(self._next_post)
        return min(times, default=now)

    def close(self) -> None:
        """Let go of every open log file."""
        for f in self._followed.values():
            f.log.close()
        self._followed.clear()

    # --- internals ---------------------------------------------------------------------------

    def _refresh(self, now: datetime) -> None:
        try:
            targets = self.engine.sources(self.node)
        except LogsUnavailableError as exc:
            wait = exc.retry_after_s or self.sources_every_s
            self._next_sources = now + timedelta(seconds=wait)
            log.info("pod-log sources: %s", exc)
            return
        except LogsRefusedError as exc:
            self._next_sources = now + timedelta(seconds=self.idle_s)
            log.info("pod-log sources refused (%s): asked again in %.0f s", exc, self.idle_s)
            return
        self._next_sources = now + timedelta(seconds=self.sources_every_s)
        wanted = {t.key: t for t in targets}
        for key in [k for k in self._followed if k not in wanted]:
            gone = self._followed[key]
            if not gone.size:  # what it still holds is shipped before it is let go
                gone.log.close()
                del self._followed[key]
        for key, t in wanted.items():
            known = self._followed.get(key)
            if known is not None and not (known.shipped and not t.inode and not known.size):
                continue
            if known is not None:
                # The engine took excerpts of it but holds none now (it restarted, or a new
                # leader took over): its copy is read again from the current file's start.
                known.log.close()
                log.info("pod-log source %s: the engine lost its copy; reading it again", key)
            try:
                folder = container_folder(self.root, t.namespace, t.pod, t.uid, t.container)
            except ValueError as exc:
                self.refused_targets += 1
                log.warning("pod-log source refused: %s", exc)
                continue
            start = Position(t.inode, t.offset) if t.inode else None
            excerpts = ContainerExcerpts(self.node, self.scanner, self.settings)
            self._followed[key] = _Followed(t, ContainerLog(folder, start), excerpts)

    def _read(self, now: datetime) -> int:
        budget, total = self.read_budget, 0
        for f in self._followed.values():
            while budget > 0 and self.pending < self.capacity:
                raw = f.log.read(min(READ_BYTES, budget))
                if not raw:
                    break
                budget -= len(raw)
                total += len(raw)
                whole = f.log.decoder.records(raw)
                hits, partial = marks(whole)
                if partial:  # rare (lines over 16 KiB): join them first
                    ex = f.excerpts.take(f.log.decoder.decode(whole), now)
                else:
                    ex = f.excerpts.take(whole, now, framed=True, hits=hits)
                if ex.text:
                    f.text.append(ex.text)
                    f.size += len(ex.text)
                f.lines += ex.lines
                f.kept += ex.kept
                f.findings += ex.findings
                f.dropped += ex.dropped
        return total

    def _post(self, now: datetime) -> int:
        waiting = [f for f in self._followed.values() if f.size or f.lines]
        shipped = 0
        for batch in _batches(waiting):
            pods = [self._entry(f) for f in batch]
            document = {
                "format": FORMAT, "node": self.node, "sent_at": now.isoformat(), "pods": pods,
            }  # fmt: skip
            try:
                self.engine.ship(document)
            except LogsUnavailableError as exc:
                self._backoff_s = min(max(1.0, self._backoff_s * 2), 30.0)
                wait = exc.retry_after_s or self._backoff_s
                spread = 1.0 + 0.5 * (self.jitter() if self.jitter else 0.0)
                self._next_post = now + timedelta(seconds=wait * spread)
                log.info("pod-log excerpts not taken: %s", exc)
                return shipped
            except LogsRefusedError as exc:
                self.rejected += 1
                log.warning("pod-log excerpts refused: %s", exc)
            else:
                shipped += sum(len(p["text"]) for p in pods)
                for f in batch:
                    f.shipped = True
            for f in batch:
                f.text, f.size, f.lines, f.kept, f.findings, f.dropped = [], 0, 0, 0, 0, 0
        self._backoff_s = 0.0
        self._next_post = None
        return shipped

    def _entry(self, f: _Followed) -> dict[str, Any]:
        text = b"".join(f.text)
        if len(text) > MAX_TEXT:  # the newest whole lines that fit (reads are 1 MiB: rare)
            cut = text.find(b"\n", len(text) - MAX_TEXT) + 1
            f.dropped += text.count(b"\n", 0, cut)
            text = text[cut:]
        position = f.log.position
        carried = len(f.log.decoder.carry)
        return {
            "uid": f.target.uid, "container": f.target.container,
            "inode": position.inode, "offset": max(0, position.offset - carried),
            "lines": f.lines, "kept": f.kept, "findings": f.findings, "dropped": f.dropped,
            "text": text.decode("utf-8", "replace"),
        }  # fmt: skip


def _batches(waiting: list[_Followed]) -> list[list[_Followed]]:
    """Containers grouped into posts of at most MAX_PODS and about MAX_DOCUMENT_TEXT bytes."""
    out: list[list[_Followed]] = []
    size = 0
    for f in waiting:
        if not out or len(out[-1]) >= MAX_PODS or size + f.size > MAX_DOCUMENT_TEXT:
            out.append([])
            size = 0
        out[-1].append(f)
        size += min(f.size, MAX_TEXT)
    return out
