"""A node's health from its probes' results: the report, its drain reason, its JSON form."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from autorecover.adapters.http.wire import signal_to_dict
from autorecover.agent.probes.base import ProbeResult, effective_action
from autorecover.domain.records import NodeAction, action_rank
from autorecover.domain.signals import HealthReport, NodeSignal

REPORT_FORMAT = "autorecover.health-report/1"
MONITOR_RANK = action_rank(NodeAction.MONITOR)
MAX_REASON = 120  # Slurm shows reasons in sinfo -R; keep them to one readable line
# Slurm stores the reason as given and it ends up in scontrol/sinfo output and in scripts
# that parse them: no quotes, semicolons, '=' or shell metacharacters.
_UNSAFE = re.compile(r"[^A-Za-z0-9 ._:/,+#()-]")


def health_report(node: str, now: datetime, results: Sequence[ProbeResult]) -> HealthReport:
    """The furthest-reaching action any signal asks for, with every signal behind it."""
    signals = tuple(s for r in results for s in r.signals)
    action = NodeAction.NONE
    for s in signals:
        wanted = effective_action(s)
        if action_rank(wanted) > action_rank(action):
            action = wanted
    return HealthReport(node=node, at=now, action=action, signals=signals)


def deciding(report: HealthReport) -> list[NodeSignal]:
    """The signals that make the node unhealthy, furthest-reaching and most decisive first."""
    chosen = [s for s in report.signals if action_rank(effective_action(s)) > MONITOR_RANK]
    return sorted(
        chosen,
        key=lambda s: (-action_rank(effective_action(s)), -s.weight, s.signal, s.component or ""),
    )


def drain_reason(report: HealthReport) -> str:
    """One short Slurm-safe line: the action and the (up to three) signals behind it."""
    parts: list[str] = []
    for s in deciding(report)[:3]:
        part = s.signal + (f" {s.component}" if s.component else "")
        parts.append(part + (f" x{s.count}" if s.count > 1 else ""))
    more = len(deciding(report)) - len(parts)
    if more > 0:
        parts.append(f"+{more} more")
    text = f"autorecover {report.action}: " + ", ".join(parts)
    text = _UNSAFE.sub("_", text)
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def report_to_dict(report: HealthReport, results: Sequence[ProbeResult]) -> dict[str, Any]:
    """The --json form: the report, the reason, and what each probe could see."""
    out: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "node": report.node,
        "at": report.at.isoformat(),
        "action": str(report.action),
        "healthy": report.healthy,
        "reason": "" if report.healthy else drain_reason(report),
        "signals": [signal_to_dict(s) for s in report.signals],
        "probes": [
            {
                "probe": str(r.probe),
                "status": str(r.status),
                "reason": r.reason,
                "signals": len(r.signals),
            }
            for r in results
        ],
    }
    return out
