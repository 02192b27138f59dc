"""The order book: where the engine keeps the orders node agents run (`domain.orders`).

Adapters that act through a node's agent (`adapters.agents`) place orders and read how they
ended; the HTTP API shows a node's agent its live orders and records its reports. Every
store (memory, SQLite, PostgreSQL) implements `OrderBook`, each write atomic: a report is
checked against the order as stored and recorded in one transaction, and the same report
again changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from autorecover.domain.orders import NodeOrder, OrderReport, Refused


class OrderBook(Protocol):
    """Orders by id: placed by the engine, pulled and answered by the node's agent."""

    def place(self, order: NodeOrder) -> NodeOrder:
        """Keep a new order, once per id: the order as stored (an earlier one with that id
        is returned as it stands, whatever `order` says)."""
        ...

    def get(self, order_id: str) -> NodeOrder | None:
        """The order as stored, or None."""
        ...

    def pending_for(self, node: str) -> list[NodeOrder]:
        """The node's queued and running orders, oldest first."""
        ...

    def report(self, order_id: str, got: OrderReport, now: datetime) -> NodeOrder | Refused:
        """Record an agent's report atomically: the order as it now stands, or why the
        report changed nothing (`Refusal.UNKNOWN` for an id never placed)."""
        ...

    def expire(self, order_id: str, now: datetime) -> NodeOrder | None:
        """End a live order past its deadline as `expired`, atomically: the order as it now
        stands (a report that landed first stands), or None for an unknown id."""
        ...

    def for_node(self, node: str, limit: int = 50) -> list[NodeOrder]:
        """The node's latest `limit` orders, whatever their status, oldest first."""
        ...
