"""The agent's side of the engine's orders: `GET /api/v1/agent/orders?node=`, `POST .../report`.

Node actions that must run on the node itself (DCGM diagnostics, GPU reset, reboot through
the init system, a diagnostic bundle) are orders the engine keeps; the node's agent pulls
them over the same authenticated channel as its signals (`engine_client.py`: same base URL,
token, TLS settings), so it works where only agent -> engine connections are allowed.

Errors map once, here: `OrdersUnavailableError` (a `TransientError`: try again later, with
the engine's Retry-After when it gave one) and `OrderRefusedError` (a `PermanentError`: never
worth retrying). `OrderGoneError` is the refusal that means "the engine moved on" (409: the
order expired or already has another final status; 404: it does not know the order): the
agent stops reporting that order.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError
from autorecover.adapters.http.engine_client import (
    TRANSIENT_STATUS,
    response_detail,
    retry_after_s,
    signals_url,
)
from autorecover.adapters.http.exchange import EngineUnreachableError, exchange
from autorecover.controllers.ports import PermanentError, TransientError

ORDERS_PATH = "/api/v1/agent/orders"
# Bounds of a report (the contract): longer text is cut here rather than refused there.
MAX_DETAIL, MAX_EVIDENCE, MAX_EVIDENCE_LINE = 2000, 50, 300
MAX_ATTACHMENTS, MAX_ATTACHMENT_BYTES = 8, 256 * 1024
# Order ids are action ids (`gpu-h02/3/reset_gpu`, `...#bundle`): they go into a URL path
# (quoted) and into the agent's journal (hashed), never into a shell.
ORDER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/#@+=-]{0,255}")
ACTIVE = frozenset({"queued", "running"})


class OrdersUnavailableError(TransientError):
    """The engine could not be asked now (unreachable, busy, 5xx, a token being rotated)."""

    def __init__(
        self, message: str, *, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class OrderRefusedError(PermanentError):
    """The engine refused for good (400, 403, 422, ...): asking again will not help."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class OrderGoneError(OrderRefusedError):
    """409 or 404 on a report: the engine moved on (expired, another final status, unknown)."""


@dataclass(frozen=True, slots=True)
class AgentOrder:
    """One order as the agent received it (the wire record of the orders contract)."""

    id: str
    node: str
    kind: str  # diagnose | reset_gpu | reboot | collect_bundle (checked by the agent)
    args: Mapping[str, Any] = field(default_factory=dict)
    status: str = "queued"
    placed_at: str = ""
    deadline: datetime | None = None
    dry_run: bool = False
    by: str = ""
    why: str = ""
    incident: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The order as the engine sent it (kept in the agent's journal)."""
        return {
            "id": self.id, "node": self.node, "kind": self.kind, "args": dict(self.args),
            "status": self.status, "placed_at": self.placed_at,
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "dry_run": self.dry_run, "by": self.by, "why": self.why, "incident": self.incident,
        }  # fmt: skip


class OrderFormatError(ValueError):
    """An order that does not have the contract's shape."""


def order_from_dict(data: Any) -> AgentOrder:
    """Read one ORDER object; OrderFormatError when its shape is wrong."""
    if not isinstance(data, dict):
        raise OrderFormatError("an order must be an object")
    oid, node, kind = data.get("id"), data.get("node"), data.get("kind")
    if not isinstance(oid, str) or not ORDER_ID.fullmatch(oid):
        raise OrderFormatError(f"order id {str(oid)[:80]!r} is not valid")
    if not isinstance(node, str) or not isinstance(kind, str) or len(kind) > 64:
        raise OrderFormatError(f"order {oid}: node and kind must be strings")
    args = data.get("args")
    args = {} if args is None else args
    if not isinstance(args, dict):
        raise OrderFormatError(f"order {oid}: args must be an object")
    deadline = None
    if isinstance(data.get("deadline"), str):
        try:
            deadline = datetime.fromisoformat(data["deadline"])
        except ValueError:
            raise OrderFormatError(f"order {oid}: deadline is not ISO 8601") from None
        if deadline.tzinfo is None:
            raise OrderFormatError(f"order {oid}: deadline has no UTC offset")
    incident = data.get("incident")
    return AgentOrder(
        id=oid, node=node, kind=kind, args=args, status=str(data.get("status", "queued")),
        placed_at=str(data.get("placed_at", "")), deadline=deadline,
        dry_run=data.get("dry_run") is True, by=str(data.get("by", ""))[:200],
        why=str(data.get("why", ""))[:2000],
        incident=incident if isinstance(incident, str) else None,
    )  # fmt: skip


def report_document(
    node: str,
    status: str,
    detail: str,
    *,
    verdict: str | None = None,
    evidence: tuple[str, ...] = (),
    attachments: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A report body within the contract's bounds (text cut, attachments keep their tail)."""
    return {
        "node": node,
        "status": status,
        "detail": detail[:MAX_DETAIL],
        "verdict": verdict,
        "evidence": [line[:MAX_EVIDENCE_LINE] for line in evidence[:MAX_EVIDENCE]],
        "attachments": {
            name: tail_bytes(text, MAX_ATTACHMENT_BYTES)
            for name, text in list((attachments or {}).items())[:MAX_ATTACHMENTS]
        },
    }


def tail_bytes(text: str, limit: int) -> str:
    """The end of `text` that fits in `limit` UTF-8 bytes (a cut character is dropped)."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[-limit:].decode("utf-8", "ignore")


class OrdersClient:
    """Fetches this node's orders and reports their outcomes."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 10.0,
        credentials: ClientCredentials | None = None,
    ) -> None:
        signals_url(base_url)  # the same check as the signals: http(s)://host[:port]
        self.base = base_url.rstrip("/") + ORDERS_PATH
        self.timeout_s = timeout_s
        self.credentials = credentials or ClientCredentials()
        self.malformed = 0  # orders in answers that did not have the contract's shape

    def fetch(self, node: str) -> list[AgentOrder]:
        """The node's queued and running orders, oldest first (malformed ones counted, skipped)."""
        url = f"{self.base}?{urllib.parse.urlencode({'node': node})}"
        answer = self._call("GET", url, None)
        raw = answer.get("orders") if isinstance(answer, dict) else None
        if not isinstance(raw, list):
            raise OrdersUnavailableError("engine answered without an 'orders' list")
        orders: list[AgentOrder] = []
        for item in raw:
            try:
                order = order_from_dict(item)
            except OrderFormatError:
                self.malformed += 1
                continue
            if order.status in ACTIVE:
                orders.append(order)
        return orders

    def report(self, order_id: str, document: Mapping[str, Any]) -> str:
        """Post one report; the status the engine now holds."""
        url = f"{self.base}/{urllib.parse.quote(order_id, safe='')}/report"
        answer = self._call("POST", url, document)
        status = answer.get("status") if isinstance(answer, dict) else None
        return status if isinstance(status, str) else str(document.get("status", ""))

    def _call(self, method: str, url: str, document: Mapping[str, Any] | None) -> Any:
        try:
            return exchange(method, url, document, self.credentials, self.timeout_s)
        except CredentialsError as exc:  # a token file being rewritten: try again later
            raise OrdersUnavailableError(str(exc)) from None
        except urllib.error.HTTPError as exc:
            raise _mapped(exc) from None
        except EngineUnreachableError as exc:
            raise OrdersUnavailableError(str(exc)) from None


def _mapped(exc: urllib.error.HTTPError) -> Exception:
    message = f"engine answered {exc.code}{response_detail(exc)}"
    if exc.code in TRANSIENT_STATUS:
        seconds = retry_after_s(exc.headers.get("Retry-After") if exc.headers else None)
        return OrdersUnavailableError(message, status=exc.code, retry_after_s=seconds)
    if exc.code in (404, 409):
        return OrderGoneError(message, status=exc.code)
    return OrderRefusedError(message, status=exc.code)
