"""People's requests in memory, once per id: the part both memory stores keep alike.

Hardware recovery's memory store and job recovery's each hold a `RequestBook`; what differs
(the switches a request sets) stays in the store.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

from autorecover.adapters.store.base import ConflictError
from autorecover.controllers.requests import Control, OperatorRequest, RequestStatus, Settled


class RequestBook:
    """Requests by id, in the order received (the SQL stores' `operator_requests` semantics)."""

    def __init__(self) -> None:
        self.by_id: dict[str, OperatorRequest] = {}

    def stored(self, request: OperatorRequest) -> OperatorRequest | None:
        """The request already recorded under this id (ConflictError if it asked otherwise)."""
        found = self.by_id.get(request.id)
        if found is not None and not found.same_as(request):
            raise ConflictError(
                f"request id {request.id!r} was used for {found.kind} {found.target!r}"
            )
        return found

    def add(self, request: OperatorRequest) -> None:
        """Record a new request."""
        self.by_id[request.id] = request

    def settle(self, settled: Iterable[Settled]) -> None:
        """Record how pending requests ended (a settled one stays as it ended)."""
        for s in settled:
            found = self.by_id.get(s.request)
            if found is not None and found.status is RequestStatus.PENDING:
                self.by_id[s.request] = replace(
                    found, status=s.status, done_at=s.at, result=s.result
                )

    def pending(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Requests of these kinds not yet settled, oldest first."""
        return [
            r for r in self.by_id.values() if r.status is RequestStatus.PENDING and r.kind in kinds
        ]

    def about(
        self, target: str | None, targets: Collection[str], limit: int
    ) -> list[OperatorRequest]:
        """Requests about a target (or any of `targets`, or all), oldest first."""
        names = {*([target] if target is not None else []), *targets}
        return [r for r in self.by_id.values() if not names or r.target in names][-limit:]
