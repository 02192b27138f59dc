"""Operator requests: what a person asked of the engine, recorded before anything acts on it.

A request is the audit record too: who asked (the caller the API authenticated), when, why,
from where (the client's address), and how it ended. Any replica takes the API call and
writes the request to the store; the leader's controller finds it there on its next pass and
settles it in the same transaction that records its effect, so a request is acted on once,
survives a crash, and is idempotent by its id. Switches — acting paused, a node or failure
domain in maintenance — are set by the request that records them and read by every pass.

Both recovery services read these records; neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Protocol


class Control(StrEnum):
    """What a person asks for (persisted: never rename a value)."""

    RELEASE = "release"  # a node back to service (hardware recovery's pass)
    MAINTENANCE_ON = "maintenance_on"  # hands off a node or failure domain (a switch)
    MAINTENANCE_OFF = "maintenance_off"
    RESET_BREAKER = "reset_breaker"  # hardware recovery's pass
    PAUSE_ACTING = "pause_acting"  # a switch every controller reads
    RESUME_ACTING = "resume_acting"
    ACKNOWLEDGE = "acknowledge"  # an incident: recorded and shown
    RETRY_JOB = "retry_job"  # requeue now (job recovery's pass)
    STOP_JOB = "stop_job"  # stop recovering this job (job recovery's pass)


class RequestStatus(StrEnum):
    """Where a request stands (persisted: never rename a value)."""

    PENDING = "pending"  # recorded; the leader acts on its next pass
    DONE = "done"
    REFUSED = "refused"  # the controller could not do it; `result` says why


HARDWARE_CONTROLS: frozenset[Control] = frozenset({Control.RELEASE, Control.RESET_BREAKER})
JOB_CONTROLS: frozenset[Control] = frozenset({Control.RETRY_JOB, Control.STOP_JOB})

PAUSED = "paused"  # the switch that pauses all acting
SCOPES = ("node", "rack", "nvlink", "ib_leaf")  # "node" or a `DomainKind` value
_TARGET = re.compile(r"(node|rack|nvlink|ib_leaf):([A-Za-z0-9][A-Za-z0-9._/-]{0,252})")


class RequestError(ValueError):
    """A request that cannot be recorded: the message names the field."""


def maintenance_target(text: str) -> str:
    """`node:n1`, `rack:r1`, `nvlink:...`, `ib_leaf:...`; a bare name means a node."""
    target = text if ":" in text else f"node:{text}"
    if not _TARGET.fullmatch(target):
        raise RequestError(
            f"target {text[:80]!r}: expected NODE or SCOPE:NAME with SCOPE one of "
            f"{', '.join(SCOPES)}"
        )
    return target


@dataclass(frozen=True, slots=True)
class OperatorRequest:
    """One request and, once settled, how it ended: the audit record."""

    id: str  # the client's request id (or one the API made up): a retry is the same request
    kind: Control
    target: str  # a node, `scope:name`, an incident id, a job; "" for the whole fleet
    by: str  # the authenticated caller
    why: str
    source: str  # the client's address
    at: datetime  # when the engine recorded it
    options: tuple[tuple[str, str], ...] = ()
    status: RequestStatus = RequestStatus.PENDING
    done_at: datetime | None = None
    result: str = ""

    def option(self, key: str, default: str = "") -> str:
        """One option's value."""
        return dict(self.options).get(key, default)

    def same_as(self, other: OperatorRequest) -> bool:
        """True when `other` asks for the same thing (a retry of this request)."""
        return (self.kind, self.target, self.options) == (other.kind, other.target, other.options)


@dataclass(frozen=True, slots=True)
class Settled:
    """A controller's answer to one request, recorded with the pass that acted on it."""

    request: str
    status: RequestStatus
    at: datetime
    result: str = ""


def switch_of(request: OperatorRequest) -> tuple[str, bool] | None:
    """The switch a request sets (key, on) when it is one; such requests are done at once."""
    if request.kind is Control.PAUSE_ACTING:
        return PAUSED, True
    if request.kind is Control.RESUME_ACTING:
        return PAUSED, False
    if request.kind is Control.MAINTENANCE_ON:
        return f"maintenance/{request.target}", True
    if request.kind is Control.MAINTENANCE_OFF:
        return f"maintenance/{request.target}", False
    return None


def receive(
    request: OperatorRequest, switches: Mapping[str, OperatorRequest]
) -> tuple[OperatorRequest, tuple[str, str | None] | None]:
    """How a new request is recorded, and the switch it changes: `(key, request id)` to set,
    `(key, None)` to clear. Switches and acknowledgements need no controller and are settled
    when received; everything else waits, pending, for the leader's pass."""
    done = replace(request, status=RequestStatus.DONE, done_at=request.at)
    switch = switch_of(request)
    if switch is None:
        if request.kind is Control.ACKNOWLEDGE:
            return done, None
        return replace(request, status=RequestStatus.PENDING, done_at=None), None
    key, on = switch
    current = switches.get(key)
    if on and current is not None:
        return replace(done, result=f"already on: {_setter(current)}"), None
    if on:
        return done, (key, request.id)
    if current is None:
        refused = replace(done, status=RequestStatus.REFUSED, result="it was not on")
        return refused, None
    return replace(done, result=f"ended what was set by {_setter(current)}"), (key, None)


def _setter(request: OperatorRequest) -> str:
    return f"{request.by} at {request.at:%Y-%m-%dT%H:%M:%SZ} ({request.id}): {request.why}"


@dataclass(frozen=True, slots=True)
class Controls:
    """The switches in force, each with the request that set it (who, why, when)."""

    paused: OperatorRequest | None = None
    maintenance: Mapping[str, OperatorRequest] = field(
        default_factory=lambda: MappingProxyType({})
    )  # `scope:name` -> the request

    def in_maintenance(self, node: str, domains: tuple[str, ...] = ()) -> OperatorRequest | None:
        """The request holding this node (or one of its domains, `kind:name`) in maintenance."""
        if not self.maintenance:
            return None
        found = self.maintenance.get(f"node:{node}")
        for domain in domains:
            found = found or self.maintenance.get(domain)
        return found


NO_CONTROLS = Controls()


def controls_of(switches: Mapping[str, OperatorRequest]) -> Controls:
    """The switches as stored (key -> the request that set it) as `Controls`."""
    maintenance = {
        key.removeprefix("maintenance/"): r
        for key, r in switches.items()
        if key.startswith("maintenance/")
    }
    return Controls(switches.get(PAUSED), MappingProxyType(maintenance))


def stopped_jobs(settled: Iterable[tuple[str, Control]]) -> frozenset[str]:
    """Jobs whose latest done retry-or-stop request (given in order) was a stop: job recovery
    leaves them alone until a person asks for a retry."""
    last: dict[str, Control] = {}
    for job, kind in settled:
        if kind in JOB_CONTROLS:
            last[job] = kind
    return frozenset(job for job, kind in last.items() if kind is Control.STOP_JOB)


class OperatorPort(Protocol):
    """What a controller reads of people's requests, each pass."""

    def controls(self) -> Controls:
        """The switches in force."""
        ...

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Requests of these kinds not yet settled, oldest first."""
        ...
