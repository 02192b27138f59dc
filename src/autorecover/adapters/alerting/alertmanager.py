"""Alertmanager's API v2: `POST /api/v2/alerts`, a list of alerts with labels and times.

Alertmanager identifies an alert by its labels and keeps it firing until its `endsAt`: a
firing alert is sent with `endsAt` `expire_s` ahead and repeated by the alerting pass well
before that (as Prometheus does), so an engine that stops talking leaves no alert firing
forever; a resolved alert is sent with the `endsAt` it ended at. Deduplication, grouping,
silences, inhibition and routing to people are Alertmanager's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from autorecover.adapters.alerting.posting import check_url, joined, post, redact
from autorecover.controllers.ports import Alert, Clock

API = "/api/v2/alerts"


def rfc3339(at: datetime) -> str:
    """A UTC time as Alertmanager reads it."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AlertmanagerDelivery:
    """One Alertmanager (for a cluster of them, one per peer: each must hear every alert)."""

    batch = 64
    repeats = True

    def __init__(
        self, url: str, clock: Clock, *, expire_s: float = 300.0, timeout_s: float = 10.0
    ) -> None:
        self.url = check_url(url, "--alertmanager-url")
        self.name = f"alertmanager {redact(url)}"
        self._endpoint = joined(url, API)
        self._clock, self._expire = clock, timedelta(seconds=expire_s)
        self._timeout = timeout_s

    def document(self, alert: Alert) -> dict[str, Any]:
        """One alert as `postableAlert`."""
        ends = alert.ends_at or max(self._clock.now(), alert.at) + self._expire
        doc: dict[str, Any] = {
            "labels": alert.labels(),
            "annotations": alert.annotations(),
            "startsAt": rfc3339(alert.at),
            "endsAt": rfc3339(ends),
        }
        if alert.link:
            doc["generatorURL"] = alert.link
        return doc

    def deliver(self, alerts: Sequence[Alert]) -> None:
        """POST the batch."""
        body = json.dumps([self.document(a) for a in alerts]).encode()
        post(self._endpoint, body, {"Content-Type": "application/json"}, self._timeout)
