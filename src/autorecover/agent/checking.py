"""One health check: every probe polled once, state carried between checks when asked.

Slurm runs the check every few minutes (HealthCheckProgram) and before each job (Prolog).
With a state file, counter rates and kernel-log cursors carry over from one check to the next;
without one, each check judges the node from what it can see at once (kernel log since boot,
AER totals since boot, NVML's current counters).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from autorecover.adapters.host.agent_state import StateFile
from autorecover.agent.daemon import poll_safely
from autorecover.agent.probes.base import NodeProbe, ProbeResult
from autorecover.agent.reports import health_report
from autorecover.domain.signals import HealthReport


def check_once(
    node: str,
    probes: Sequence[NodeProbe],
    now: datetime,
    state_file: StateFile | None = None,
) -> tuple[HealthReport, list[ProbeResult]]:
    """Poll each probe once; the node's report and what each probe saw."""
    if state_file is not None:
        saved = state_file.load()
        for probe in probes:
            state = saved.get(str(probe.kind))
            if isinstance(state, dict):
                probe.restore(state)
    results = [poll_safely(p, now) for p in probes]
    if state_file is not None:
        states: dict[str, Any] = {str(p.kind): p.state() for p in probes}
        state_file.save(states)
    for probe in probes:
        probe.close()
    return health_report(node, now, results), results
