"""What autorecover tells people: the alert record, its names and labels, and what to send.

An alert is a condition, not an event: it fires while the condition holds and resolves when
it ends. Which alerts hold is derived from recorded state (`domain.alerting.firing`); `plan`
compares that with what was sent before: new alerts go out, alerts that no longer hold go out
resolved (`ends_at` set), and alerts still firing go out again every `resend` (Alertmanager
forgets an alert nobody repeats). Pure: no clock, no I/O. Both services' ports speak `Alert`,
so this module knows neither service's records.

Alert names and label keys are read by routing trees, silences and dashboards outside this
project: they are chosen once and never renamed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum


class AlertName(StrEnum):
    """The `alertname` label of each alert the engine sends (persisted: never rename)."""

    NODE_NEEDS_ATTENTION = "AutorecoverNodeNeedsAttention"
    NODE_OUT_TOO_LONG = "AutorecoverNodeOutOfServiceTooLong"
    BREAKER_TRIPPED = "AutorecoverBreakerTripped"
    DOMAIN_INCIDENT = "AutorecoverDomainIncident"
    JOB_STOPPED = "AutorecoverJobStopped"
    JOB_RECOVERY_FAILED = "AutorecoverJobRecoveryFailed"
    ACTION = "AutorecoverAction"  # a controller's alert action, as its executor reports it


class Severity(StrEnum):
    """The `severity` label (persisted: never rename)."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"


# Label keys (persisted). Empty values are left out: Alertmanager treats a missing label and
# an empty one alike, and routes match on presence.
LABELS = ("alertname", "severity", "node", "job", "incident", "failure_domain", "dry_run")


@dataclass(frozen=True, slots=True)
class Alert:
    """Something a person must look at: firing while `ends_at` is None, resolved after.

    `id` names one occurrence of one condition (the same condition always derives the same
    id, across passes and restarts), so receivers can deduplicate by it.
    """

    id: str
    at: datetime  # when the condition began (Alertmanager's startsAt)
    summary: str
    node: str = ""
    incident: str | None = None
    evidence: tuple[str, ...] = ()
    name: str = AlertName.ACTION
    severity: Severity = Severity.WARNING
    job: str = ""
    domain: str = ""  # failure domain(s), e.g. "rack:r7" or "nvlink:c1,rack:r7"
    description: str = ""
    link: str = ""  # where to read more (Alertmanager's generatorURL)
    dry_run: bool = False
    ends_at: datetime | None = None  # set once the condition ended

    @property
    def resolved(self) -> bool:
        """True once the condition ended."""
        return self.ends_at is not None

    @property
    def status(self) -> str:
        """`firing` or `resolved` (the words Alertmanager uses)."""
        return "resolved" if self.resolved else "firing"

    def labels(self) -> dict[str, str]:
        """The identifying labels, empty ones left out."""
        values = {
            "alertname": str(self.name),
            "severity": str(self.severity),
            "node": self.node,
            "job": self.job,
            "incident": self.incident or "",
            "failure_domain": self.domain,
            "dry_run": "true" if self.dry_run else "",
        }
        return {k: v for k, v in values.items() if v}

    def fingerprint(self) -> str:
        """A stable hash of the labels: the same labels are the same alert to Alertmanager."""
        text = json.dumps(self.labels(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def annotations(self) -> dict[str, str]:
        """The human text: summary and description (empty ones left out)."""
        values = {"summary": self.summary, "description": self.description}
        return {k: v for k, v in values.items() if v}

    def ended(self, at: datetime) -> Alert:
        """The same alert, resolved at `at` (never before it began)."""
        return replace(self, ends_at=max(at, self.at))


@dataclass(frozen=True, slots=True)
class AlertSettings:
    """How long is too long, how often to repeat, and how alerts are marked."""

    out_of_service_budget: timedelta = timedelta(hours=24)
    job_hold: timedelta = timedelta(hours=24)  # a stopped job's alert lasts this long at most
    resend: timedelta = timedelta(minutes=1)
    dry_run: bool = False  # every alert carries dry_run="true": nothing was really done
    link: str = ""  # the engine's API base URL, for links to nodes and incidents

    def __post_init__(self) -> None:
        for name in ("out_of_service_budget", "job_hold", "resend"):
            if getattr(self, name) <= timedelta(0):
                raise ValueError(f"alert settings: {name} must be positive")


@dataclass(frozen=True, slots=True)
class Sent:
    """An alert as last sent, and when."""

    alert: Alert
    at: datetime


def plan(
    sent: Mapping[str, Sent], now_firing: Sequence[Alert], now: datetime, resend: timedelta
) -> tuple[tuple[Alert, ...], dict[str, Sent]]:
    """What to send now, and what will then have been sent: new alerts, alerts due again
    (with their latest text), and alerts that no longer hold, resolved at `now`."""
    out: list[Alert] = []
    after: dict[str, Sent] = {}
    for alert in now_firing:
        before = sent.get(alert.id)
        if before is None or now - before.at >= resend:
            out.append(alert)
            after[alert.id] = Sent(alert, now)
        else:
            after[alert.id] = Sent(alert, before.at)
    for key, before in sent.items():
        if key not in after:
            out.append(before.alert.ended(now))
    return tuple(out), after
