"""Where alerts go: `LogNotifier` writes each one to the log, once per alert id."""

from __future__ import annotations

import logging

from autorecover.controllers.ports import Alert

log = logging.getLogger(__name__)


class LogNotifier:
    """Alerts go to the log (and are kept by id: a retried alert is logged once)."""

    def __init__(self) -> None:
        self.alerts: dict[str, Alert] = {}

    def alert(self, alert: Alert) -> None:
        """Log one alert."""
        if alert.id not in self.alerts:
            log.warning("ALERT %s %s: %s", alert.id, alert.node, alert.summary)
        self.alerts.setdefault(alert.id, alert)
