"""What both recovery services share at their ports: time, provenance, alerts, outcomes, errors.

Hardware recovery's own ports are in `controllers.hardware.ports`, job recovery's in
`controllers.jobs.ports`. Every mutation carries its `Provenance` and is idempotent by action
id: a controller records an action before executing it, so after a crash it may execute the
same id again, and the port must then do nothing twice. Ports speak one small error
vocabulary: `TransientError` (try again on a later pass; `Underway`, its kind for an action
started elsewhere that has not finished) and `PermanentError` (the action failed; a person
will hear of it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from autorecover.domain.alerts import Alert as Alert  # re-exported: the port speaks it


class TransientError(Exception):
    """The port could not act now; the action stays intended and is retried."""


class Underway(TransientError):  # noqa: N818 - the contract's name: a state, not a fault
    """Started elsewhere and not finished yet (an order a node's agent runs): ask again
    later. The action stays intended, and asking again spends no more of the rate limit."""


class PermanentError(Exception):
    """The port refused the action; it is recorded as failed."""


class Clock(Protocol):
    """The one source of time: a timezone-aware UTC `now`."""

    def now(self) -> datetime:
        """The current time."""
        ...


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who asks for a mutation, why, on which evidence, for which incident (cordon-by/-reason)."""

    action_id: str
    by: str
    why: str
    at: datetime
    evidence: tuple[str, ...] = ()
    incident: str | None = None


class Notifier(Protocol):
    """Tell people. An alert fires until it is sent again resolved (`ends_at` set); a firing
    alert may be sent again and again (Alertmanager forgets one nobody repeats), so receivers
    deduplicate by id. Must not block: delivery happens elsewhere."""

    def alert(self, alert: Alert) -> None:
        """Send one alert, firing or resolved (again if asked again)."""
        ...


class ActionStatus(StrEnum):
    """Where an action stands (persisted: never rename a value)."""

    INTENDED = "intended"  # recorded, not yet done
    DONE = "done"
    FAILED = "failed"
    WOULD = "would"  # dry-run: recorded, never executed


@dataclass(frozen=True, slots=True)
class Outcome:
    """How an executed action ended."""

    action_id: str
    status: ActionStatus
    at: datetime
    result: str = ""
