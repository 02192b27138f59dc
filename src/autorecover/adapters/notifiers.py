"""Where alerts go: `LogNotifier` writes each one to the log, once per alert id and status;
`FanOut` hands each alert to several notifiers (the log, Alertmanagers, webhooks)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from autorecover.controllers.ports import Alert, Notifier

log = logging.getLogger(__name__)


class LogNotifier:
    """Alerts go to the log: a firing alert once per id (repeats are not logged again), and
    its resolution once."""

    def __init__(self) -> None:
        self.alerts: dict[str, Alert] = {}  # firing, by id

    def alert(self, alert: Alert) -> None:
        """Log one alert."""
        if alert.resolved:
            if self.alerts.pop(alert.id, None) is not None:
                log.warning("RESOLVED %s %s: %s", alert.id, alert.node, alert.summary)
            return
        if alert.id not in self.alerts:
            log.warning("ALERT %s %s: %s", alert.id, alert.node, alert.summary)
        self.alerts.setdefault(alert.id, alert)


class FanOut:
    """Every alert to every notifier, in order (each must not block: queue, then send)."""

    def __init__(self, notifiers: Sequence[Notifier]) -> None:
        self.notifiers = tuple(notifiers)

    def alert(self, alert: Alert) -> None:
        """Hand the alert to each notifier."""
        for notifier in self.notifiers:
            notifier.alert(alert)
