"""Orders over HTTP: a node's agent pulls its orders and reports how each ended; people read them.

`GET /api/v1/agent/orders?node=NODE` shows an agent its node's queued and running orders,
oldest first; `POST /api/v1/agent/orders/{id}/report` records its report (an order id holds
`/` and `#`: the agent sends it percent-encoded). Both need the `agent` role and only for the
caller's own node (`Caller.may_report`), so an agent reads and answers nothing of another
node. A report is checked against the stored order and recorded in one store transaction, on
any replica (as signals are: the leader's next pass reads it); the same final report again is
answered 200 and changes nothing, another final status is 409, as is any report on an order
the engine expired. `GET /api/v1/nodes/{node}/orders` shows people (the `evidence` role) a
node's orders, outcomes and attachments (bundles).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from autorecover.controllers.ports import TransientError
from autorecover.domain.orders import (
    MAX_ATTACHMENT,
    MAX_ATTACHMENTS,
    MAX_DETAIL,
    MAX_FINDING,
    MAX_FINDINGS,
    MAX_ID,
    NodeOrder,
    OrderKind,
    OrderReport,
    OrderStatus,
    OrderVerdict,
    Refusal,
    Refused,
    args_json,
    expired,
)
from autorecover.server.engine import Engine
from autorecover.server.guarding import caller_of
from autorecover.server.schemas import MAX_NAME, NODE_PATTERN, Name, Problem, _storable

API = "/api/v1"
_STATUS = {Refusal.UNKNOWN: 404, Refusal.NOT_YOURS: 403, Refusal.CONFLICT: 409}
_STATUS[Refusal.TOO_LATE] = 409
_ANSWERS: dict[int | str, dict[str, Any]] = {
    403: {"model": Problem, "description": "An agent reads and reports its own node's orders."},
    404: {"model": Problem, "description": "No such order."},
    409: {"model": Problem, "description": "The order ended otherwise, or expired."},
    503: {"model": Problem, "description": "The store is away: retry after Retry-After."},
}

Detail = Annotated[str, StringConstraints(max_length=MAX_DETAIL), AfterValidator(_storable)]
Finding = Annotated[str, StringConstraints(max_length=MAX_FINDING), AfterValidator(_storable)]
AttachmentName = Annotated[
    str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
]
Attachment = Annotated[str, StringConstraints(max_length=MAX_ATTACHMENT), AfterValidator(_storable)]


class OrderOut(BaseModel):
    """An order as its node's agent sees it."""

    id: str
    node: str
    kind: OrderKind
    args: dict[str, Any]
    status: OrderStatus
    placed_at: datetime
    deadline: datetime
    dry_run: bool
    by: str
    why: str
    incident: str | None


class OrdersOut(BaseModel):
    """The node's live orders, oldest first."""

    orders: list[OrderOut]


class ReportIn(BaseModel):
    """An agent's report on one order: running, then how it ended."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    node: Name
    status: Literal["running", "done", "failed", "refused"]
    detail: Detail = ""
    verdict: OrderVerdict | None = Field(default=None, description="diagnose orders only")
    evidence: list[Finding] = Field(default_factory=list, max_length=MAX_FINDINGS)
    attachments: dict[AttachmentName, Attachment] = Field(
        default_factory=dict, max_length=MAX_ATTACHMENTS, description="bundles: name -> text"
    )


class ReportedOut(BaseModel):
    """The order's status after the report."""

    id: str
    status: OrderStatus


class NodeOrderOut(OrderOut):
    """An order with its provenance and outcome, as people read it."""

    evidence: list[str]
    detail: str
    verdict: OrderVerdict | None
    findings: list[str]
    attachments: dict[str, str]  # texts only when asked for (`attachments=true`)
    attachment_sizes: dict[str, int]
    updated_at: datetime | None


def order_out(o: NodeOrder) -> OrderOut:
    """The agent's view of an order (no evidence: an agent reads no evidence)."""
    return OrderOut(
        id=o.id, node=o.node, kind=o.kind, args=args_json(o.args), status=o.status,
        placed_at=o.placed_at, deadline=o.deadline, dry_run=o.dry_run, by=o.by, why=o.why,
        incident=o.incident,
    )  # fmt: skip


def node_order_out(o: NodeOrder, texts: bool) -> NodeOrderOut:
    """People's view of an order."""
    return NodeOrderOut(
        **order_out(o).model_dump(), evidence=list(o.evidence), detail=o.detail,
        verdict=o.verdict, findings=list(o.findings),
        attachments=dict(o.attachments) if texts else {},
        attachment_sizes={k: len(v) for k, v in o.attachments.items()}, updated_at=o.updated_at,
    )  # fmt: skip


def add_order_routes(app: FastAPI, engine: Engine) -> None:
    """The agent's order routes and people's view of a node's orders, on `app`."""
    orders = engine.store.orders

    def own(request: Request, node: str) -> None:
        caller = caller_of(request.state)
        if caller is None or not caller.may_report(node):
            who = caller.name if caller else "an unidentified caller"
            raise HTTPException(403, f"{who} may not read or report orders of {node}")

    def late(order: NodeOrder, now: datetime) -> bool:
        """Past its deadline: expired now, so the agent never starts what the engine gave up."""
        if not expired(order, now):
            return False
        orders.expire(order.id, now)
        return True

    def unavailable(exc: Exception) -> HTTPException:
        retry = str(engine.settings.retry_after_s)
        return HTTPException(503, f"store: {exc}", headers={"Retry-After": retry})

    @app.get(f"{API}/agent/orders", response_model=OrdersOut, responses=_ANSWERS)
    def agent_orders(
        request: Request,
        node: str = Query(min_length=1, max_length=MAX_NAME, pattern=NODE_PATTERN),
    ) -> OrdersOut:
        """The caller's node's queued and running orders, oldest first (an agent polls this)."""
        own(request, node)
        now = engine.clock.now()
        try:
            live = [o for o in orders.pending_for(node) if not late(o, now)]
            return OrdersOut(orders=[order_out(o) for o in live])
        except TransientError as exc:
            raise unavailable(exc) from None

    @app.post(
        f"{API}/agent/orders/{{order_id:path}}/report",
        response_model=ReportedOut,
        responses=_ANSWERS,
    )
    def report_order(
        request: Request, body: ReportIn, order_id: str = Path(min_length=1, max_length=MAX_ID)
    ) -> Any:
        """Record the agent's report on one of its node's orders (idempotent)."""
        own(request, body.node)
        got = OrderReport(
            body.node, OrderStatus(body.status), body.detail, body.verdict,
            tuple(body.evidence), dict(body.attachments),
        )  # fmt: skip
        try:
            after = orders.report(order_id, got, engine.clock.now())
        except TransientError as exc:
            raise unavailable(exc) from None
        if isinstance(after, Refused):
            return JSONResponse({"detail": after.detail}, status_code=_STATUS[after.why])
        return ReportedOut(id=after.id, status=after.status)

    @app.get(f"{API}/nodes/{{name}}/orders", response_model=list[NodeOrderOut])
    def node_orders(
        name: str = Path(min_length=1, max_length=MAX_NAME, pattern=NODE_PATTERN),
        limit: int = Query(20, ge=1, le=200),
        attachments: bool = Query(False, description="include the attachments' texts"),
    ) -> list[NodeOrderOut]:
        """The node's latest orders, oldest first: what its agent was asked, and how it ended."""
        return [node_order_out(o, attachments) for o in orders.for_node(name, limit)]
