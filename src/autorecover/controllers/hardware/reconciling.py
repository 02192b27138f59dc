"""Reconciling the store with the scheduler: no cordon of ours without a record, and none
missing where the record says the node is out.

A node cordoned by us that the store says is healthy (with nothing pending) is an orphan —
the NVSentinel pitfall of nodes left cordoned forever — and is resumed. A node the store has
out of service whose cordon of ours is gone gets it back — unless a person lifted it
(`kubectl uncordon`, `scontrol update State=RESUME`): the controller reads that as their
intent, releases the node and leaves those out of `records` here. Cordons by anybody else
are theirs and are never touched.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from datetime import datetime, timedelta

from autorecover.controllers.hardware.ports import ActionRecord, SchedulerNode
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.hardware.lifecycle import (
    LADDER,
    OUT_OF_SERVICE,
    QUARANTINE_TAINT,
    Action,
    ActionKind,
    NodeState,
    action_id,
)
from autorecover.domain.hardware.records import NodeRecord


def _action(rec_seq: int, node: str, kind: ActionKind, now: datetime, by: str, why: str) -> Action:
    # Suffixed by time: the same reconciling pass yields the same id, a later one a new id.
    aid = f"{action_id(node, rec_seq, kind)}/reconcile-{now:%Y%m%dT%H%M%SZ}"
    target = QUARANTINE_TAINT if kind is ActionKind.TAINT else None
    return Action(aid, node, kind, now, by, why, target=target, seq=rec_seq)


def reconcile(
    records: Mapping[str, NodeRecord],
    cordoned: Mapping[str, SchedulerNode],
    pending: Container[str],
    by: str,
    now: datetime,
) -> list[Action]:
    """Actions that bring the scheduler back in line with the records."""
    out: list[Action] = []
    for node, view in sorted(cordoned.items()):
        if by not in view.cordoned_by or node in pending:
            continue
        rec = records.get(node)
        if rec is None or rec.state is NodeState.HEALTHY:
            why = "reconcile: cordoned by us, but no record holds the node out"
            out.append(_action(rec.seq if rec else 0, node, ActionKind.RESUME, now, by, why))
    for node, rec in sorted(records.items()):
        if rec.state not in OUT_OF_SERVICE or node in pending:
            continue
        seen = cordoned.get(node)
        if seen is None or by not in seen.cordoned_by:
            why = f"reconcile: {rec.state} but our cordon is gone"
            out.append(_action(rec.seq, node, ActionKind.CORDON, now, by, why))
        if rec.state in LADDER and (seen is None or QUARANTINE_TAINT not in seen.taints):
            why = f"reconcile: {rec.state} but our taint is gone"
            out.append(_action(rec.seq, node, ActionKind.TAINT, now, by, why))
    return out


# Our cordon gone this long after we set it is a person's doing, not a scheduler view that
# has yet to show our write (an informer's cache, a `sinfo` read under way).
UNCORDON_GRACE = timedelta(seconds=30)
_PUTS_OUT = frozenset({ActionKind.CORDON, ActionKind.TAINT, ActionKind.DRAIN})
_CORDONING = _PUTS_OUT | {ActionKind.RESUME, ActionKind.REBOOT}  # a reboot may return it


def lifted_by_someone(actions: Iterable[ActionRecord], now: datetime) -> bool:
    """Whether a node's missing cordon of ours was lifted by somebody else, from its recorded
    actions (oldest first): our last cordon took effect, and the last word on it was ours
    putting the node out, long enough ago for the scheduler's view to show it. A cordon that
    failed never stood, so nobody can have lifted it."""
    last = cordon = None
    for record in actions:
        if record.status is ActionStatus.DONE and record.action.kind in _CORDONING:
            last = record
        if record.action.kind is ActionKind.CORDON:
            cordon = record
    return (
        last is not None
        and cordon is not None
        and cordon.status is ActionStatus.DONE
        and last.action.kind in _PUTS_OUT
        and now - last.updated_at >= UNCORDON_GRACE
    )
