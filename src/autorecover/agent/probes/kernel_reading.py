"""Kernel lines and XID events read through the catalog: the agent holds no XID knowledge.

A line is matched with the scanner's signatures (XIDs, "fallen off the bus", AER, mlx5, OOM
killer, hung tasks ...); an XID takes its meaning from the XID catalog; then the catalog's
context rules that need only this node (XID 45 after another XID, 63 handled by the driver,
154's recovery-action text, NVLink5 "Nonfatal" registers) re-read the batch, exactly as job
recovery re-reads a bundle. Rules that need the whole job (13/31 on every node) are left to
the engine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.agent.probes.base import MAX_TEXT
from autorecover.domain.catalog import Catalog, reads_xid
from autorecover.domain.context import in_context
from autorecover.domain.records import Blame, Finding, JobRecord, NodeAction, Source
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.parsing.scanning import Scanner

_PCI = re.compile(r"(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\.[0-7])?")
# An XID the catalog does not know yet is kept, but decides nothing.
UNKNOWN_XID = (Blame.INFO, 20, NodeAction.MONITOR)
COMPONENT_DETAILS = ("pci", "bdf", "device")


@dataclass(frozen=True, slots=True)
class StampedLine:
    """A kernel line with the time it was logged (or first seen)."""

    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class XidEvent:
    """An XID reported by NVML's event API rather than a log line."""

    bus_id: str
    xid: int
    at: datetime


def normalize_pci(text: str) -> str | None:
    """A GPU's PCI address as the agent names it everywhere: `0000:3b:00` (no function).

    The kernel's XID line says `PCI:0000:3b:00`, NVML says `00000000:3B:00.0`; both must name
    the same component so that storms fold and the engine can correlate them."""
    m = _PCI.fullmatch(text.strip().removeprefix("PCI:"))
    if m is None:
        return None
    domain = int(m.group(1) or "0", 16) & 0xFFFF
    return f"{domain:04x}:{m.group(2).lower()}:{m.group(3).lower()}"


def _context_only(key: str, blame: Blame, weight: int) -> bool:
    """A zero-weight informational line (a boot banner, an address announcement) marks
    context for attribution; it says nothing about the node's health. XIDs are read through
    their own catalog, whatever their signature's weight."""
    return blame is Blame.INFO and weight == 0 and not reads_xid(key)


class KernelReader:
    """Turns kernel lines and NVML XID events into interpreted node signals."""

    def __init__(self, catalog: Catalog, scanner: Scanner | None = None) -> None:
        self.catalog = catalog
        self.scanner = scanner or Scanner(catalog)
        self._rules = {n: e.rules for n, e in catalog.xids.items()}

    def read_lines(
        self, node: str, lines: Sequence[StampedLine], now: datetime
    ) -> list[NodeSignal]:
        """Signals for every line that matches a system-log signature."""
        findings: list[Finding] = []
        times: list[datetime] = []
        for number, line in enumerate(lines, 1):
            for sig, m in self.scanner.match_line(line.text):
                if Source.SYSTEM not in sig.sources or _context_only(
                    sig.key, sig.blame, sig.weight
                ):
                    continue
                details = tuple((k, v) for k, v in m.groupdict().items() if v is not None)
                finding = self._finding(node, sig.key, number, line.text, details, m.groupdict())
                if finding is None:
                    continue
                if finding.signal == sig.key:
                    finding = _with_meaning(finding, sig.blame, sig.weight, sig.node_action)
                findings.append(finding)
                times.append(line.at)
        return self._reread(node, findings, times, now, Probe.KERNEL)

    def read_xid_events(
        self, node: str, events: Sequence[XidEvent], now: datetime
    ) -> list[NodeSignal]:
        """Signals for XIDs that NVML's event API reported."""
        findings: list[Finding] = []
        times: list[datetime] = []
        for number, event in enumerate(events, 1):
            pci = normalize_pci(event.bus_id) or event.bus_id
            text = f"NVML event: Xid (PCI:{pci}): {event.xid}"
            details = (("pci", pci), ("xid", str(event.xid)))
            finding = self._finding(node, "kernel.xid", number, text, details, {"xid": event.xid})
            if finding is not None:
                findings.append(finding)
                times.append(event.at)
        return self._reread(node, findings, times, now, Probe.NVML)

    def _finding(
        self,
        node: str,
        key: str,
        number: int,
        text: str,
        details: tuple[tuple[str, str], ...],
        groups: dict[str, object],
    ) -> Finding | None:
        base = Finding(
            signal=key,
            node=node,
            source=Source.SYSTEM,
            line=number,
            text=text,
            blame=Blame.INFO,
            weight=0,
            details=details,
        )
        if not reads_xid(key):
            return base
        xid = int(str(groups["xid"]))
        entry = self.catalog.xid(xid)
        if entry is None:
            if xid in self.catalog.xids:  # switched off by the operator
                return None
            blame, weight, action = UNKNOWN_XID
        else:
            blame, weight, action = entry.blame, entry.weight, entry.node_action
        return replace(base, signal=f"xid.{xid}", blame=blame, weight=weight, node_action=action)

    def _reread(
        self,
        node: str,
        findings: list[Finding],
        times: list[datetime],
        now: datetime,
        probe: Probe,
    ) -> list[NodeSignal]:
        if not findings:
            return []
        # The node's own batch is the context: a one-node "job" whose window holds every line
        # (findings carry no time, so none falls outside it).
        job = JobRecord(
            scheduler="agent",
            job="node",
            nodes=(node,),
            started=now,
            ended=None,
            collected=now,
            state="running",
        )
        reread = in_context(job, findings, self._rules)
        return [_signal(f, at, probe) for f, at in zip(reread, times, strict=True)]


def _with_meaning(f: Finding, blame: Blame, weight: int, action: NodeAction) -> Finding:
    return replace(f, blame=blame, weight=weight, node_action=action)


def _signal(f: Finding, at: datetime, probe: Probe) -> NodeSignal:
    component = None
    for key in COMPONENT_DETAILS:
        value = f.detail(key)
        if value:
            component = normalize_pci(value) if key == "pci" else value
            component = component or value
            break
    return NodeSignal(
        node=f.node,
        probe=probe,
        signal=f.signal,
        blame=f.blame,
        weight=f.weight,
        node_action=f.node_action,
        at=at,
        component=component,
        text=f.text[:MAX_TEXT],
        details=f.details,
    )
