"""The alerting pass: derive the alerts that hold from recorded state, send what changed.

Level-triggered like the recovery controllers: every pass re-derives every alert from what
the store holds (`domain.alerts.firing`), so a restart, a new leader or a lost message
converges on the next pass. The pass sends new alerts, resolves the ones whose condition
ended (a node released or returned, the breaker reset, an incident closed) and repeats the
firing ones every `resend`. Its memory of what was sent lasts one term: a new leader's first
pass sends every firing alert again (receivers deduplicate by id) and cannot resolve what
ended while nobody led (Alertmanager expires such alerts by itself; see docs/engine.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from autorecover.controllers.ports import Clock, Notifier
from autorecover.domain.alerting import Facts, firing
from autorecover.domain.alerts import Alert, AlertSettings, Sent, plan


class FactSource(Protocol):
    """What alerts are derived from: the store's nodes, breaker, incidents and jobs."""

    def facts(self) -> Facts:
        """The facts as recorded now."""
        ...


@dataclass(frozen=True, slots=True)
class AlertPass:
    """What one alerting pass found and sent."""

    firing: tuple[Alert, ...]
    sent: int
    resolved: int


class Alerter:
    """Alerts derived from the store each pass and handed to the notifier."""

    def __init__(
        self, source: FactSource, notifier: Notifier, clock: Clock, settings: AlertSettings
    ) -> None:
        self._source, self._notifier, self._clock = source, notifier, clock
        self._settings = settings
        self._sent: dict[str, Sent] = {}
        self.firing: tuple[Alert, ...] = ()

    def run_once(self) -> AlertPass:
        """Derive, compare with what was sent, send the difference."""
        now = self._clock.now()
        current = firing(self._source.facts(), now, self._settings)
        out, self._sent = plan(self._sent, current, now, self._settings.resend)
        self.firing = current
        for alert in out:
            self._notifier.alert(alert)
        return AlertPass(current, len(out), sum(1 for a in out if a.resolved))
