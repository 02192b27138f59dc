"""The order book in SQL (`OrderBook`), written once for SQLite and PostgreSQL.

Table `node_orders` (migration 5): one row per order, its arguments, evidence, the agent's
findings and attachments (bundles) as JSON text. A report reads the row under a lock
(`FOR UPDATE` on PostgreSQL, SQLite's write lock) and writes the move the domain allows in
the same transaction, so two reports of one order never both land; placing is an insert
that does nothing when the id is taken.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any

from autorecover.adapters.store.sql import node_codec as codec
from autorecover.adapters.store.sql.dialect import Db
from autorecover.domain.orders import (
    NodeOrder,
    OrderKind,
    OrderReport,
    OrderStatus,
    OrderVerdict,
    Refusal,
    Refused,
    args_json,
    expire,
    expired,
    report,
)

COLUMNS = (
    "id, node, kind, args, status, placed_at, deadline, dry_run, by, why, incident, evidence, "
    "detail, verdict, findings, attachments, updated_at"
)
_MARKS = ",".join("?" * len(COLUMNS.split(", ")))
_UPDATE = (
    "UPDATE node_orders SET status = ?, detail = ?, verdict = ?, findings = ?, attachments = ?, "
    "updated_at = ? WHERE id = ?"
)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def order_row(o: NodeOrder) -> tuple[object, ...]:
    """An order as its columns."""
    return (
        o.id, o.node, o.kind.value, _json(args_json(o.args)), o.status.value,
        codec.when(o.placed_at), codec.when(o.deadline), int(o.dry_run), o.by, o.why,
        o.incident, codec.lines(o.evidence), o.detail, o.verdict.value if o.verdict else None,
        codec.lines(o.findings), _json(dict(o.attachments)),
        codec.when(o.updated_at or o.placed_at),
    )  # fmt: skip


def order_from(
    oid: str, node: str, kind: str, args: str, status: str, placed_at: str, deadline: str,
    dry_run: int, by: str, why: str, incident: str | None, evidence: str, detail: str,
    verdict: str | None, findings: str, attachments: str, updated_at: str,
) -> NodeOrder:  # fmt: skip
    """An order from its columns."""
    raw = json.loads(args or "{}")
    kept = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    return NodeOrder(
        oid, node, OrderKind(kind), MappingProxyType(kept), codec.parse_when(placed_at),
        codec.parse_when(deadline), by, why, OrderStatus(status), bool(dry_run), incident,
        codec.parse_lines(evidence), detail, OrderVerdict(verdict) if verdict else None,
        codec.parse_lines(findings), MappingProxyType(dict(json.loads(attachments or "{}"))),
        codec.parse_when(updated_at),
    )  # fmt: skip


class SqlOrderBook:
    """`OrderBook` over one `Db` connection (the engine store's)."""

    def __init__(self, db: Db, render: Callable[[str], str]) -> None:
        self._db, self._render = db, render

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(self._render(sql), args)

    def _select(self, where: str, args: Sequence[Any] = ()) -> list[NodeOrder]:
        # `where` is one of this module's clauses; values go through `args`.
        rows = self._rows(f"SELECT {COLUMNS} FROM node_orders {where}", args)  # noqa: S608
        return [order_from(*row) for row in rows]

    def _locked(self, order_id: str) -> NodeOrder | None:
        found = self._select("WHERE id = ?@update@", (order_id,))
        return found[0] if found else None

    def _write(self, order: NodeOrder) -> None:
        self._rows(
            _UPDATE,
            (
                order.status.value, order.detail,
                order.verdict.value if order.verdict else None, codec.lines(order.findings),
                _json(dict(order.attachments)), codec.when(order.updated_at or order.placed_at),
                order.id,
            ),
        )  # fmt: skip

    def place(self, order: NodeOrder) -> NodeOrder:
        """Keep a new order once per id; the order as stored."""
        with self._db.transaction():
            self._rows(
                f"INSERT INTO node_orders ({COLUMNS}) VALUES ({_MARKS}) "  # noqa: S608
                "ON CONFLICT (id) DO NOTHING",
                order_row(order),
            )
            stored = self._select("WHERE id = ?", (order.id,))
        return stored[0]

    def get(self, order_id: str) -> NodeOrder | None:
        """The order as stored, or None."""
        found = self._select("WHERE id = ?", (order_id,))
        return found[0] if found else None

    def pending_for(self, node: str) -> list[NodeOrder]:
        """The node's queued and running orders, oldest first."""
        return self._select(
            "WHERE node = ? AND status IN ('queued', 'running') ORDER BY rowid", (node,)
        )

    def report(self, order_id: str, got: OrderReport, now: datetime) -> NodeOrder | Refused:
        """Record an agent's report in one transaction, checked against the stored order."""
        with self._db.transaction():
            order = self._locked(order_id)
            if order is None:
                return Refused(Refusal.UNKNOWN, f"no order {order_id!r}")
            after = report(order, got, now)
            if isinstance(after, NodeOrder) and after is not order:
                self._write(after)
        return after

    def expire(self, order_id: str, now: datetime) -> NodeOrder | None:
        """Expire a live order past its deadline; the order as it now stands."""
        with self._db.transaction():
            order = self._locked(order_id)
            if order is not None and expired(order, now):
                order = expire(order, now)
                self._write(order)
        return order

    def for_node(self, node: str, limit: int = 50) -> list[NodeOrder]:
        """The node's latest `limit` orders, oldest first."""
        found = self._select("WHERE node = ? ORDER BY rowid DESC LIMIT ?", (node, max(limit, 0)))
        return found[::-1]
