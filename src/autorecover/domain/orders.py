"""Orders: node actions the engine hands a node's agent, which runs them on the node itself.

The engine keeps each order in its store; the agent pulls its own node's queued and running
orders over the same authenticated channel as its signals, runs each once and reports
`running`, then a final status. The status table below is the only truth: `report` refuses
every other move, and a report that repeats a final status changes nothing (idempotent).
An order nobody answers by its deadline is `expired` by the engine, and a report after that
is refused as too late: the engine has moved on. Everything here is pure (no clock, no I/O).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class OrderKind(StrEnum):
    """What the agent is asked to do (persisted and on the wire: never rename a value)."""

    DIAGNOSE = "diagnose"  # {"level": 1..4}: dcgmi diag -r N -j
    RESET_GPU = "reset_gpu"  # {"gpus": [bus id, ...]}: none named = every GPU of the node
    REBOOT = "reboot"  # {}: through the init system
    COLLECT_BUNDLE = "collect_bundle"  # {"since": ISO, "until": ISO}: the kernel-log window


class OrderStatus(StrEnum):
    """Where an order stands (persisted and on the wire: never rename a value)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    REFUSED = "refused"  # the agent would not run it (a GPU still in use, say)
    EXPIRED = "expired"  # the engine: no final report by the deadline


class OrderVerdict(StrEnum):
    """A diagnostic order's conclusion, as the agent reports it."""

    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    FAIL = "fail"
    ERROR = "error"


_Q, _RUN, _DONE = OrderStatus.QUEUED, OrderStatus.RUNNING, OrderStatus.DONE
_FAIL, _REF, _EXP = OrderStatus.FAILED, OrderStatus.REFUSED, OrderStatus.EXPIRED

# (from, to): every move an order may make. An agent may answer a queued order at once.
TRANSITIONS: frozenset[tuple[OrderStatus, OrderStatus]] = frozenset(
    {
        (_Q, _RUN), (_Q, _DONE), (_Q, _FAIL), (_Q, _REF), (_Q, _EXP),
        (_RUN, _DONE), (_RUN, _FAIL), (_RUN, _REF), (_RUN, _EXP),
    }
)  # fmt: skip
FINAL: frozenset[OrderStatus] = frozenset({_DONE, _FAIL, _REF, _EXP})
LIVE: frozenset[OrderStatus] = frozenset({_Q, _RUN})  # what the agent is shown
REPORTED: frozenset[OrderStatus] = frozenset({_RUN, _DONE, _FAIL, _REF})  # what an agent may say

# What an agent's report may carry (the HTTP schema states the same bounds).
MAX_DETAIL = 2000
MAX_FINDINGS = 50
MAX_FINDING = 300
MAX_ATTACHMENTS = 8
MAX_ATTACHMENT = 256 * 1024  # characters of one attachment
MAX_LEVEL = 4
MAX_ID = 300
ATTACHMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# A PCI bus id as nvidia-smi names a GPU: domain:bus:device.function.
BUS_ID = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]")
BUNDLE_SUFFIX = "#bundle"  # a diagnostic's second order: its bundle


class OrderError(ValueError):
    """An order or a move the table does not allow."""


def check(frm: OrderStatus, to: OrderStatus) -> None:
    """Raise unless the table allows going from `frm` to `to`."""
    if (frm, to) not in TRANSITIONS:
        raise OrderError(f"an order does not go from {frm} to {to}")


def _no_attachments() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class NodeOrder:
    """One order: what to run on which node, its provenance, and how it ended."""

    id: str  # the hardware action's id (`<action id>#bundle` for a diagnostic's bundle)
    node: str
    kind: OrderKind
    args: Mapping[str, Any]  # checked per kind (`checked_args`)
    placed_at: datetime
    deadline: datetime
    by: str
    why: str
    status: OrderStatus = OrderStatus.QUEUED
    dry_run: bool = False  # the agent only says what it would run
    incident: str | None = None
    evidence: tuple[str, ...] = ()  # why the engine placed it
    detail: str = ""  # the agent's words on the outcome
    verdict: OrderVerdict | None = None  # diagnose only
    findings: tuple[str, ...] = ()  # the agent's evidence lines
    attachments: Mapping[str, str] = field(default_factory=_no_attachments)  # name -> text
    updated_at: datetime | None = None

    @property
    def final(self) -> bool:
        """Whether the order has ended."""
        return self.status in FINAL


def place(
    order_id: str, node: str, kind: OrderKind, args: Mapping[str, Any], *, now: datetime,
    deadline_s: float, by: str, why: str, incident: str | None = None,
    evidence: Sequence[str] = (), dry_run: bool = False,
) -> NodeOrder:  # fmt: skip
    """A new queued order, its arguments checked (`OrderError` when they are not valid)."""
    if not order_id or len(order_id) > MAX_ID:
        raise OrderError(f"an order's id is 1 to {MAX_ID} characters")
    if deadline_s <= 0:
        raise OrderError("an order's deadline must be after it is placed")
    return NodeOrder(
        order_id, node, kind, checked_args(kind, args), now, now + timedelta(seconds=deadline_s),
        by, why, dry_run=dry_run, incident=incident, evidence=tuple(evidence), updated_at=now,
    )  # fmt: skip


def checked_args(kind: OrderKind, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """The arguments of a `kind` order, normalized; `OrderError` names what is wrong."""
    want = _ARGS[kind]
    if set(args) != want:
        raise OrderError(f"{kind} takes {sorted(want) or 'no arguments'}, not {sorted(args)}")
    out: dict[str, Any] = {}
    if kind is OrderKind.DIAGNOSE:
        level = args["level"]
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= MAX_LEVEL:
            raise OrderError(f"diagnose level must be 1..{MAX_LEVEL}")
        out["level"] = level
    elif kind is OrderKind.RESET_GPU:
        gpus = args["gpus"]
        if isinstance(gpus, str) or not isinstance(gpus, Sequence) or len(gpus) > 64:
            raise OrderError("reset_gpu gpus must be a list of at most 64 PCI bus ids")
        for gpu in gpus:
            if not isinstance(gpu, str) or not BUS_ID.fullmatch(gpu):
                raise OrderError(f"not a PCI bus id (0000:18:00.0): {str(gpu)[:40]!r}")
        out["gpus"] = tuple(gpus)
    elif kind is OrderKind.COLLECT_BUNDLE:
        since, until = (_iso(args[k], k) for k in ("since", "until"))
        if until < since:
            raise OrderError("collect_bundle's window ends before it starts")
        out |= {"since": since.isoformat(), "until": until.isoformat()}
    return MappingProxyType(out)


_ARGS: Mapping[OrderKind, frozenset[str]] = MappingProxyType(
    {
        OrderKind.DIAGNOSE: frozenset({"level"}),
        OrderKind.RESET_GPU: frozenset({"gpus"}),
        OrderKind.REBOOT: frozenset(),
        OrderKind.COLLECT_BUNDLE: frozenset({"since", "until"}),
    }
)


def _iso(value: object, name: str) -> datetime:
    if not isinstance(value, str):
        raise OrderError(f"collect_bundle {name} must be an ISO 8601 time")
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise OrderError(f"collect_bundle {name} is not an ISO 8601 time") from None
    if at.tzinfo is None:
        raise OrderError(f"collect_bundle {name} needs a UTC offset")
    return at


def args_json(args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as JSON carries them (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in args.items()}


@dataclass(frozen=True, slots=True)
class OrderReport:
    """What an agent says about one order."""

    node: str  # the node the agent speaks for
    status: OrderStatus
    detail: str = ""
    verdict: OrderVerdict | None = None
    findings: tuple[str, ...] = ()
    attachments: Mapping[str, str] = field(default_factory=_no_attachments)


class Refusal(StrEnum):
    """Why a report is not recorded (the server answers 404, 403, 409)."""

    UNKNOWN = "unknown"  # no such order
    NOT_YOURS = "not_yours"  # another node's order
    CONFLICT = "conflict"  # a move the table does not allow
    TOO_LATE = "too_late"  # the order expired: the engine moved on


@dataclass(frozen=True, slots=True)
class Refused:
    """A report that changes nothing, and why."""

    why: Refusal
    detail: str


def report(order: NodeOrder, got: OrderReport, now: datetime) -> NodeOrder | Refused:
    """The order after the agent's report, or why the report is refused. The same status
    again is answered with the order as it stands (a retried report changes nothing)."""
    if got.node != order.node:
        return Refused(Refusal.NOT_YOURS, f"order {order.id!r} is for another node")
    if got.status not in REPORTED:
        return Refused(Refusal.CONFLICT, f"an agent does not report {got.status}")
    if got.status is order.status:
        return order
    if order.status is OrderStatus.EXPIRED:
        return Refused(Refusal.TOO_LATE, f"order {order.id!r} expired at {order.deadline}")
    if (order.status, got.status) not in TRANSITIONS:
        return Refused(
            Refusal.CONFLICT, f"order {order.id!r} is {order.status}: it cannot become {got.status}"
        )
    if problem := _bounds(got):
        return Refused(Refusal.CONFLICT, problem)
    if got.status is OrderStatus.RUNNING:
        return replace(order, status=got.status, detail=got.detail, updated_at=now)
    return replace(
        order, status=got.status, detail=got.detail, verdict=got.verdict,
        findings=got.findings, attachments=MappingProxyType(dict(got.attachments)),
        updated_at=now,
    )  # fmt: skip


def _bounds(got: OrderReport) -> str | None:
    if len(got.detail) > MAX_DETAIL:
        return f"detail is over {MAX_DETAIL} characters"
    if len(got.findings) > MAX_FINDINGS or any(len(f) > MAX_FINDING for f in got.findings):
        return f"evidence is at most {MAX_FINDINGS} lines of {MAX_FINDING} characters"
    if len(got.attachments) > MAX_ATTACHMENTS:
        return f"at most {MAX_ATTACHMENTS} attachments"
    for name, text in got.attachments.items():
        if not ATTACHMENT_NAME.fullmatch(name) or len(text) > MAX_ATTACHMENT:
            return f"attachment {name[:64]!r}: a plain name and at most {MAX_ATTACHMENT} characters"
    return None


def expired(order: NodeOrder, now: datetime) -> bool:
    """Whether the order is live past its deadline (the engine expires it)."""
    return order.status in LIVE and now >= order.deadline


def expire(order: NodeOrder, now: datetime) -> NodeOrder:
    """The order expired: nobody reported an end by its deadline. A final one stays as it is."""
    if order.final:
        return order
    check(order.status, OrderStatus.EXPIRED)
    waited = (order.deadline - order.placed_at).total_seconds()
    why = f"no report from the agent within {waited:.0f} s"
    return replace(order, status=OrderStatus.EXPIRED, detail=why, updated_at=now)
