"""Operator requests in SQL: the audit table both services keep, and the engine's switches.

The engine's `operator_requests` (migration 4) holds every request people make of hardware
recovery and the engine (release, maintenance, the breaker, pausing, acknowledgements); job
recovery's `job_requests` (job migration 2) holds retries and stops of jobs, so that its
controller settles them in its own transactions. `operator_switches` names, per switch
(`paused`, `maintenance/<scope>:<name>`), the request that set it. A request is inserted
once per id: the same id again is answered with the stored request, or `ConflictError` when
it asked for something else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

from autorecover.adapters.store.base import ConflictError
from autorecover.adapters.store.sql import node_codec as codec
from autorecover.adapters.store.sql.dialect import Db
from autorecover.controllers.requests import (
    Control,
    OperatorRequest,
    RequestStatus,
    Settled,
    receive,
)

COLUMNS = "id, kind, target, by, why, source, at, options, status, done_at, result"
_TABLES = {"operator_requests": "rowid", "job_requests": "seq"}  # table -> its order column


def request_row(r: OperatorRequest) -> tuple[object, ...]:
    """A request as its columns."""
    return (
        r.id, r.kind.value, r.target, r.by, r.why, r.source, codec.when(r.at),
        json.dumps([list(o) for o in r.options], separators=(",", ":")), r.status.value,
        codec.when(r.done_at) if r.done_at else None, r.result,
    )  # fmt: skip


def request_from(
    rid: str, kind: str, target: str, by: str, why: str, source: str, at: str, options: str,
    status: str, done_at: str | None, result: str,
) -> OperatorRequest:  # fmt: skip
    """A request from its columns."""
    return OperatorRequest(
        rid, Control(kind), target, by, why, source, codec.parse_when(at),
        tuple((str(k), str(v)) for k, v in json.loads(options or "[]")),
        RequestStatus(status), codec.parse_when(done_at) if done_at else None, result,
    )  # fmt: skip


class RequestTable:
    """One table of operator requests over a `Db` (the caller's statements render with it)."""

    def __init__(self, db: Db, table: str, render: Callable[[str], str]) -> None:
        if table not in _TABLES:
            raise ValueError(f"no request table {table!r}")
        self._db, self._table, self._order, self._render = db, table, _TABLES[table], render

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(self._render(sql), args)

    def submit(self, request: OperatorRequest, switches: bool = False) -> OperatorRequest:
        """Record a request (once per id), setting or clearing its switch in the same
        transaction; the request as stored."""
        with self._db.transaction():
            found = self._select("WHERE id = ?", (request.id,))
            if found:
                if not found[0].same_as(request):
                    raise ConflictError(
                        f"request id {request.id!r} was used for {found[0].kind} "
                        f"{found[0].target!r}"
                    )
                return found[0]
            stored, change = receive(request, self.switches() if switches else {})
            if change is not None:
                key, rid = change
                if rid is None:
                    self._rows("DELETE FROM operator_switches WHERE name = ?", (key,))
                else:
                    self._rows("INSERT INTO operator_switches VALUES (?, ?)", (key, rid))
            self._rows(
                f"INSERT INTO {self._table} ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",  # noqa: S608
                request_row(stored),
            )
        return stored

    def settle(self, settled: Sequence[Settled]) -> None:
        """Record how pending requests ended (the caller holds the transaction)."""
        if settled:
            self._db.executemany(
                self._render(
                    f"UPDATE {self._table} SET status = ?, done_at = ?, result = ? "  # noqa: S608
                    "WHERE id = ? AND status = 'pending'"
                ),
                [(s.status.value, codec.when(s.at), s.result, s.request) for s in settled],
            )

    def pending(self, kinds: Collection[Control]) -> list[OperatorRequest]:
        """Requests of these kinds not yet settled, oldest first."""
        wanted = {k.value for k in kinds}
        return [r for r in self._select("WHERE status = 'pending'") if r.kind.value in wanted]

    def find(
        self, target: str | None = None, targets: Collection[str] = (), limit: int = 1000
    ) -> list[OperatorRequest]:
        """Requests about one target (or any of `targets`, or all), the latest `limit`,
        oldest first."""
        names = [*([target] if target is not None else []), *targets]
        if names:
            marks = ",".join("?" * len(names))
            where, args = f"WHERE target IN ({marks})", tuple(names)
        else:
            where, args = "", ()
        found = self._select(f"{where} ORDER BY {self._order} DESC LIMIT ?", (*args, limit))
        return found[::-1]

    def switches(self) -> dict[str, OperatorRequest]:
        """Each switch in force with the request that set it."""
        rows = self._rows(
            f"SELECT s.name, {', '.join('r.' + c for c in COLUMNS.split(', '))} "  # noqa: S608
            "FROM operator_switches s JOIN operator_requests r ON r.id = s.request"
        )
        return {row[0]: request_from(*row[1:]) for row in rows}

    def _select(self, where: str, args: Sequence[Any] = ()) -> list[OperatorRequest]:
        order = "" if "ORDER BY" in where else f" ORDER BY {self._order}"
        # `where` is one of this module's clauses; values go through `args`.
        rows = self._rows(f"SELECT {COLUMNS} FROM {self._table} {where}{order}", args)  # noqa: S608
        return [request_from(*row) for row in rows]
