"""Placing an order for an action, and reading where it stands: what both agent ports share.

An action's order is placed under the action's id, so asking again (every pass while it
runs, and after an engine restart) finds the same order instead of placing another. An order
past its deadline is expired here, in the store, before anyone reads it as still running.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autorecover.controllers.orders import OrderBook
from autorecover.controllers.ports import Clock, PermanentError, Provenance
from autorecover.domain.orders import NodeOrder, OrderError, OrderKind, expired, place


def placed(
    orders: OrderBook,
    clock: Clock,
    node: str,
    kind: OrderKind,
    args: Mapping[str, Any],
    provenance: Provenance,
    deadline_s: float,
    order_id: str | None = None,
) -> NodeOrder:
    """The action's order as it stands: placed now if it was not, expired if it is late."""
    oid = order_id or provenance.action_id
    now = clock.now()
    found = orders.get(oid)
    if found is None:
        try:
            fresh = place(
                oid, node, kind, args, now=now, deadline_s=deadline_s, by=provenance.by,
                why=provenance.why, incident=provenance.incident, evidence=provenance.evidence,
            )  # fmt: skip
        except OrderError as exc:
            raise PermanentError(f"cannot order {kind} on {node}: {exc}") from None
        found = orders.place(fresh)
    return settled(orders, found, clock)


def settled(orders: OrderBook, order: NodeOrder, clock: Clock) -> NodeOrder:
    """The order, expired in the store when it is live past its deadline."""
    now = clock.now()
    if expired(order, now):
        return orders.expire(order.id, now) or order
    return order
