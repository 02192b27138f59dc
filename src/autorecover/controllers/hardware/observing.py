"""What the controller sees of each node out of service, through the ports, for `decide`.

Drained yet (quarantined nodes: the scheduler's running jobs)? An action of the current
state still pending, or failed? The current diagnostic's result? A port read that fails
tells nothing new: the observation says "not yet", and the decision waits — its deadline
still holds. In dry-run nothing is asked: drains are assumed by `decide` and diagnostics
are `skipped`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import TypeVar

from autorecover.controllers.hardware.executing import ActionQueue
from autorecover.controllers.hardware.ports import DiagnosticsPort, SchedulerNode, SchedulerPort
from autorecover.controllers.ports import PermanentError, TransientError
from autorecover.domain.hardware.lifecycle import ActionKind, NodeState, action_id
from autorecover.domain.hardware.records import NodeRecord, Observation
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict

_T = TypeVar("_T")
_DIAGNOSTIC = {NodeState.DIAGNOSING: ActionKind.DIAGNOSE, NodeState.VALIDATING: ActionKind.VALIDATE}


class Observer:
    """Reads the scheduler and the diagnostics runner for a pass's nodes."""

    def __init__(self, scheduler: SchedulerPort, diagnostics: DiagnosticsPort, dry_run: bool):
        self._scheduler = scheduler
        self._diagnostics = diagnostics
        self._dry_run = dry_run

    def observe(
        self,
        nodes: Sequence[str],
        records: Mapping[str, NodeRecord],
        queue: ActionQueue,
        now: datetime,
    ) -> dict[str, Observation]:
        """One observation per node."""
        quarantined = [n for n in nodes if records[n].state is NodeState.QUARANTINED]
        views: Mapping[str, SchedulerNode] = {}
        if quarantined and not self._dry_run:
            views = _read(partial(self._scheduler.observe, quarantined)) or {}
        out: dict[str, Observation] = {}
        for node in nodes:
            rec = records[node]
            view = views.get(node)
            out[node] = Observation(
                drained=view is not None and view.running_jobs == 0,
                pending=queue.pending.get(node, 0) > 0,
                failed=queue.failed.get(node),
                result=self._result(rec, now),
            )
        return out

    def _result(self, rec: NodeRecord, now: datetime) -> DiagnosticResult | None:
        kind = _DIAGNOSTIC.get(rec.state)
        if kind is None:
            return None
        aid = action_id(rec.node, rec.seq, kind, rec.tries)
        if self._dry_run:
            level = DiagnosticLevel.QUICK if kind is ActionKind.DIAGNOSE else DiagnosticLevel.LOAD
            return DiagnosticResult(
                aid, rec.node, level, Verdict.SKIPPED, now, evidence=("dry-run",)
            )
        return _read(partial(self._diagnostics.result, aid))


def _read(query: Callable[[], _T]) -> _T | None:
    """A port read; failing, it tells nothing new."""
    try:
        return query()
    except (TransientError, PermanentError):
        return None
