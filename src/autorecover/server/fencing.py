"""The store as one hosted controller sees it: every commit fenced by the leader's lease.

The hardware controller knows only `StorePort.commit`; this view turns each commit into the
engine store's `commit_pass`, which checks the fence in the same transaction and, on the
first commit after an intake, deletes the inbox batches that pass recorded — so a batch is
either still waiting or recorded, never both and never neither, whatever crashes when.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.controllers.hardware.ports import ActionRecord, Changes, Event, Snapshot
from autorecover.controllers.requests import Control, Controls, OperatorRequest
from autorecover.domain.hardware.lifecycle import Transition


class FencedStore:
    """`StorePort` for a controller built under one fence."""

    def __init__(self, store: EngineStore, fence: Fence) -> None:
        self._store = store
        self.fence = fence
        self._consumed: tuple[int, ...] = ()

    def consuming(self, batches: Sequence[int]) -> None:
        """The next commit also consumes these inbox batches."""
        self._consumed = tuple(batches)

    def settle(self, now: datetime) -> None:
        """Consume what no commit carried (a pass that had nothing to record)."""
        if self._consumed:
            self._store.commit_pass(None, now=now, fence=self.fence, consumed=self._consumed)
            self._consumed = ()

    def load(self, removals_since: datetime) -> Snapshot:
        """Everything needed to resume."""
        return self._store.load(removals_since)

    def commit(self, changes: Changes) -> None:
        """Record one pass, if the fence still holds (else `LeaseLostError`)."""
        consumed, self._consumed = self._consumed, ()
        try:
            self._store.commit_pass(changes, now=changes.at, fence=self.fence, consumed=consumed)
        except BaseException:
            self._consumed = consumed  # still waiting: the batches stay in the inbox
            raise

    def transitions(self, node: str | None = None) -> list[Transition]:
        """Recorded transitions, oldest first."""
        return self._store.transitions(node)

    def actions(self, node: str | None = None) -> list[ActionRecord]:
        """Recorded actions, oldest first."""
        return self._store.actions(node)

    def events(self, node: str | None = None) -> list[Event]:
        """Recorded events, oldest first."""
        return self._store.events(node)

    def controls(self) -> Controls:
        """The operator's switches in force."""
        return self._store.controls()

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """Operator requests of these kinds not yet settled, oldest first."""
        return self._store.pending_requests(kinds)
