"""Diagnostics on the local scheduler's simulated nodes: every run passes after a while.

The local scheduler simulates a node's reset and reboot; its diagnostics are simulated the
same way, so hardware recovery can walk a node from drain back to service on one machine.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict


class LocalDiagnostics:
    """`DiagnosticsPort`: a run starts once per action id and passes after `duration_s`."""

    def __init__(self, clock: Clock, duration_s: float = 0.0) -> None:
        self._clock = clock
        self.duration_s = duration_s
        self.started: dict[str, tuple[str, DiagnosticLevel, datetime]] = {}

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start once per action id."""
        self.started.setdefault(provenance.action_id, (node, level, self._clock.now()))

    def result(self, action_id: str) -> DiagnosticResult | None:
        """A pass once `duration_s` has gone by; None while it runs or when never started."""
        found = self.started.get(action_id)
        if found is None:
            return None
        node, level, at = found
        done = at + timedelta(seconds=self.duration_s)
        if self._clock.now() < done:
            return None
        return DiagnosticResult(
            action_id, node, level, Verdict.PASS, done, evidence=("local: simulated pass",)
        )
