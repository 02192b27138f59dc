"""How long the engine waits for an agent's report on each kind of order, and which DCGM
levels its diagnostics ask for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from autorecover.domain.hardware.remediation import DiagnosticLevel


def _diagnose_s() -> Mapping[int, float]:
    # dcgmi diag -r 1 takes seconds, -r 2 a couple of minutes, -r 3 up to half an hour, and
    # -r 4 an hour or more on an eight-GPU node; each deadline leaves room for the agent to
    # poll, start and report.
    return MappingProxyType({1: 600.0, 2: 1800.0, 3: 3600.0, 4: 7200.0})


def _levels() -> Mapping[DiagnosticLevel, int]:
    return MappingProxyType({DiagnosticLevel.QUICK: 1, DiagnosticLevel.LOAD: 3})


@dataclass(frozen=True, slots=True)
class OrderSettings:
    """Deadlines per kind of order (seconds after it is placed) and the DCGM level of each
    diagnostic level; past its deadline an unanswered order expires and its action fails."""

    diagnose_s: Mapping[int, float] = field(default_factory=_diagnose_s)  # per dcgmi level
    reset_s: float = 300.0
    reboot_s: float = 900.0  # the host must come back and its agent report
    bundle_s: float = 300.0
    levels: Mapping[DiagnosticLevel, int] = field(default_factory=_levels)
    bundle_before_s: float = 600.0  # the kernel-log window opens this long before the incident

    def diagnose_deadline(self, level: int) -> float:
        """The deadline of a `dcgmi diag -r level` order."""
        return self.diagnose_s.get(level, max(self.diagnose_s.values(), default=3600.0))


DEFAULT_SETTINGS = OrderSettings()
