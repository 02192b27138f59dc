"""What every probe shares: its result, its protocol, and how it turns a finding into a signal."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from autorecover.agent.thresholds import Meaning
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

# Node names reach the engine, Slurm and file names: keep them to a hostname's characters.
NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")
MAX_TEXT = 2000  # evidence text kept per signal


class ProbeStatus(StrEnum):
    """Whether a probe could look (persisted in --json output: never rename a value)."""

    OK = "ok"
    UNAVAILABLE = "unavailable"  # nothing to read here (no dcgmi, no IB devices): not unhealthy
    ERROR = "error"  # it should have read and could not; says nothing about the node's health


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One poll of one probe: the signals it raised and whether it could look at all."""

    probe: Probe
    status: ProbeStatus
    signals: tuple[NodeSignal, ...] = ()
    reason: str = ""  # why unavailable or what failed


class NodeProbe(Protocol):
    """A probe: polled with the time, it reads its interface and returns signals."""

    kind: Probe

    def poll(self, now: datetime) -> ProbeResult:
        """Read the interface once and interpret what changed."""
        ...

    def state(self) -> dict[str, Any]:
        """What must survive a restart (cursors, counter baselines), as JSON-able data."""
        ...

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back what `state` returned before a restart; unknown shapes are ignored."""
        ...

    def close(self) -> None:
        """Release what the probe holds open (a device, a journalctl, NVML)."""
        ...


def valid_node(name: str) -> bool:
    """A node name the agent will put into reports, URLs and reasons."""
    return NODE_NAME.fullmatch(name) is not None


def effective_action(signal: NodeSignal) -> NodeAction:
    """What a signal asks of the node: only a hardware signal may ask more than watching.

    An application OOM or an XID 13 may say "restart the app"; that is the job's business and
    must never fail a node's health check."""
    if signal.blame is Blame.HARDWARE:
        return signal.node_action
    return NodeAction.MONITOR if signal.node_action is not NodeAction.NONE else NodeAction.NONE


def make_signal(
    *,
    node: str,
    probe: Probe,
    key: str,
    meaning: Meaning,
    at: datetime,
    component: str | None = None,
    text: str = "",
    details: Mapping[str, object] | None = None,
    count: int = 1,
) -> NodeSignal:
    """A signal with its meaning filled in."""
    return NodeSignal(
        node=node,
        probe=probe,
        signal=key,
        blame=meaning.blame,
        weight=meaning.weight,
        node_action=meaning.node_action,
        at=at,
        count=count,
        component=component,
        text=text[:MAX_TEXT],
        details=tuple((str(k), str(v)) for k, v in (details or {}).items()),
    )
