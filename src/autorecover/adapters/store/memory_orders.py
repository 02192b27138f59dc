"""The order book in memory (`OrderBook`), with the SQL stores' semantics: the engine's
`memory://` store keeps one, and the tests use it on its own. One lock makes every report
atomic, as a SQL transaction does."""

from __future__ import annotations

import threading
from datetime import datetime

from autorecover.domain.orders import (
    LIVE,
    NodeOrder,
    OrderReport,
    Refusal,
    Refused,
    expire,
    expired,
    report,
)


class MemoryOrderBook:
    """Orders in a dict, in the order they were placed."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._orders: dict[str, NodeOrder] = {}  # insertion-ordered: oldest first

    def place(self, order: NodeOrder) -> NodeOrder:
        """Keep a new order once per id; the order as stored."""
        with self._lock:
            return self._orders.setdefault(order.id, order)

    def get(self, order_id: str) -> NodeOrder | None:
        """The order as stored, or None."""
        with self._lock:
            return self._orders.get(order_id)

    def pending_for(self, node: str) -> list[NodeOrder]:
        """The node's queued and running orders, oldest first."""
        with self._lock:
            return [o for o in self._orders.values() if o.node == node and o.status in LIVE]

    def report(self, order_id: str, got: OrderReport, now: datetime) -> NodeOrder | Refused:
        """Record an agent's report, checked against the order as stored."""
        with self._lock:
            order = self._orders.get(order_id)
            if order is None:
                return Refused(Refusal.UNKNOWN, f"no order {order_id!r}")
            after = report(order, got, now)
            if isinstance(after, NodeOrder):
                self._orders[order_id] = after
            return after

    def expire(self, order_id: str, now: datetime) -> NodeOrder | None:
        """Expire a live order past its deadline; the order as it now stands."""
        with self._lock:
            order = self._orders.get(order_id)
            if order is not None and expired(order, now):
                order = self._orders[order_id] = expire(order, now)
            return order

    def for_node(self, node: str, limit: int = 50) -> list[NodeOrder]:
        """The node's latest `limit` orders, oldest first."""
        with self._lock:
            found = [o for o in self._orders.values() if o.node == node]
        return found[-limit:] if limit > 0 else []
