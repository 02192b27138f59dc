"""The wire format of signals and signal batches (`autorecover.signals/1`), JSON.

One writer and one reader: the agent writes batches with `batch_document`, the engine's intake
reads them with `signal_from_dict`, and the SQL stores keep signals and queued batches in this
same form, so none of them needs the HTTP client to speak it. Persisted: never rename a key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from autorecover import __version__
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

BATCH_FORMAT = "autorecover.signals/1"


class WireError(ValueError):
    """A batch or signal on the wire is malformed."""


def signal_to_dict(s: NodeSignal) -> dict[str, Any]:
    """One signal as JSON (persisted on the wire: never rename a key)."""
    return {
        "node": s.node,
        "probe": str(s.probe),
        "signal": s.signal,
        "blame": str(s.blame),
        "weight": s.weight,
        "node_action": str(s.node_action),
        "at": s.at.isoformat(),
        "count": s.count,
        "component": s.component,
        "text": s.text,
        "details": [[k, v] for k, v in s.details],
        "incident": s.incident,
    }


# The leader reads every queued signal back through here: the enum values and the times
# (a batch's signals mostly share one) are looked up, not constructed, each time.
_PROBES = {p.value: p for p in Probe}
_BLAMES = {b.value: b for b in Blame}
_ACTIONS = {a.value: a for a in NodeAction}


@lru_cache(maxsize=4096)
def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _member(table: Mapping[str, Any], value: object, name: str) -> Any:
    found = table.get(value) if isinstance(value, str) else None
    if found is None:
        raise ValueError(f"{value!r} is not a valid {name}")
    return found


def signal_from_dict(d: Mapping[str, Any]) -> NodeSignal:
    """A signal back from its JSON form; WireError names the bad field."""
    try:
        at = _time(str(d["at"]))
        details = tuple((str(k), str(v)) for k, v in d.get("details", []))
        signal = NodeSignal(
            node=str(d["node"]),
            probe=_member(_PROBES, d["probe"], "Probe"),
            signal=str(d["signal"]),
            blame=_member(_BLAMES, d["blame"], "Blame"),
            weight=int(d["weight"]),
            node_action=_member(_ACTIONS, d["node_action"], "NodeAction"),
            at=at,
            count=int(d.get("count", 1)),
            component=None if d.get("component") is None else str(d["component"]),
            text=str(d.get("text", "")),
            details=details,
            incident=None if d.get("incident") is None else str(d["incident"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise WireError(f"malformed signal: {exc!r}") from None
    if at.tzinfo is None:
        raise WireError("malformed signal: 'at' has no time zone")
    return signal


def batch_document(
    node: str, signals: Sequence[NodeSignal], *, sent_at: datetime, dropped: int
) -> dict[str, Any]:
    """The POST body: who sends, when, how many signals it had to drop, and the signals."""
    return {
        "format": BATCH_FORMAT,
        "node": node,
        "agent": __version__,
        "sent_at": sent_at.isoformat(),
        "dropped": dropped,
        "signals": [signal_to_dict(s) for s in signals],
    }
