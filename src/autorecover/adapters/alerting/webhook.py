"""A generic JSON webhook: one POST per alert state change, signed, with an idempotency key.

The body (`autorecover.alert/1`) carries the alert's id, status (`firing` / `resolved`),
labels, annotations, times and a link. `Idempotency-Key` is the same for every retry and
repeat of one state of one alert, so a receiver that sees a key twice drops the second. With a
secret, `X-Autorecover-Signature: sha256=<hex>` is the HMAC-SHA256 of the exact body bytes
under it; the body's `sentAt` lets a receiver refuse old replays.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Any

from autorecover.adapters.alerting.alertmanager import rfc3339
from autorecover.adapters.alerting.posting import check_url, post, redact
from autorecover.controllers.ports import Alert, Clock

VERSION = "autorecover.alert/1"
SIGNATURE = "X-Autorecover-Signature"


def idempotency_key(alert: Alert) -> str:
    """The same for every delivery of one state of one alert."""
    return f"{hashlib.sha256(alert.id.encode()).hexdigest()[:32]}-{alert.status}"


def signature(secret: bytes, body: bytes) -> str:
    """The signature header's value for a body."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


class WebhookDelivery:
    """One webhook receiver."""

    batch = 1
    repeats = False

    def __init__(
        self, url: str, clock: Clock, *, secret: bytes | None = None, timeout_s: float = 10.0
    ) -> None:
        self.url = check_url(url, "--alert-webhook")
        self.name = f"webhook {redact(url)}"
        self._clock, self._secret, self._timeout = clock, secret, timeout_s

    def document(self, alert: Alert) -> dict[str, Any]:
        """The JSON body for one alert."""
        return {
            "version": VERSION,
            "id": alert.id,
            "status": alert.status,
            "fingerprint": alert.fingerprint(),
            "labels": alert.labels(),
            "annotations": alert.annotations(),
            "startsAt": rfc3339(alert.at),
            "endsAt": rfc3339(alert.ends_at) if alert.ends_at else None,
            "generatorURL": alert.link or None,
            "sentAt": rfc3339(self._clock.now()),
        }

    def deliver(self, alerts: Sequence[Alert]) -> None:
        """POST each alert."""
        for alert in alerts:
            body = json.dumps(self.document(alert), sort_keys=True).encode()
            headers = {
                "Content-Type": "application/json",
                "Idempotency-Key": idempotency_key(alert),
                "X-Autorecover-Status": alert.status,
            }
            if self._secret is not None:
                headers[SIGNATURE] = signature(self._secret, body)
            post(self.url, body, headers, self._timeout)
