"""Job recovery's records to and from JSON text, for the SQL job store.

The key names written here are persisted: change them only with a migration. Times are ISO
8601 strings with their UTC offset.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from autorecover.controllers.jobs.records import Decided
from autorecover.domain.jobs.decisions import Attempt, Budget, Exclusion, JobHistory
from autorecover.domain.records import Action, Cause, Evidence, Source, Verdict


def when(value: datetime) -> str:
    """A time as stored."""
    return value.isoformat()


def parse_when(value: str) -> datetime:
    """A stored time."""
    return datetime.fromisoformat(value)


def maybe_when(value: str | None) -> datetime | None:
    """A stored time that may be missing."""
    return None if value is None else datetime.fromisoformat(value)


def dumps(value: Any) -> str:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":"))


def loads(text: str) -> Any:
    """JSON back."""
    return json.loads(text)


def history_text(history: JobHistory) -> str:
    """A job's history as stored."""
    return dumps(
        {
            "attempts": [
                {
                    "at": when(a.at),
                    "cause": str(a.cause),
                    "root": a.root,
                    "suspects": list(a.suspects),
                    "checkpoint": a.checkpoint,
                    "budget": str(a.budget),
                    "action": str(a.action),
                    "origin": a.origin,
                    "step": a.step,
                    "rank": a.rank,
                }
                for a in history.attempts
            ],
            "exclusions": [
                {"node": e.node, "until": when(e.until), "incident": e.incident}
                for e in history.exclusions
            ],
        }
    )


def history_from(text: str) -> JobHistory:
    """A stored history."""
    data = json.loads(text)
    return JobHistory(
        attempts=tuple(
            Attempt(
                parse_when(a["at"]),
                Cause(a["cause"]),
                a["root"],
                tuple(a["suspects"]),
                a["checkpoint"],
                Budget(a["budget"]),
                Action(a["action"]),
                a.get("origin", ""),  # histories stored before these fields lack them
                a.get("step"),
                a.get("rank"),
            )
            for a in data.get("attempts", ())
        ),
        exclusions=tuple(
            Exclusion(e["node"], parse_when(e["until"]), e["incident"])
            for e in data.get("exclusions", ())
        ),
    )


def verdict_text(verdict: Verdict | None) -> str | None:
    """A verdict as stored (the FORMAT.md verdict object)."""
    return None if verdict is None else dumps(verdict.as_dict())


def verdict_from(text: str | None) -> Verdict | None:
    """A stored verdict."""
    if text is None:
        return None
    d = json.loads(text)
    return Verdict(
        cause=Cause(d["cause"]),
        suspect_nodes=tuple(d["suspect_nodes"]),
        action=Action(d["action"]),
        evidence=tuple(
            Evidence(e["node"], Source(e["source"]), e["line"], e["signal"], e["text"])
            for e in d["evidence"]
        ),
        summary=d.get("summary", ""),
        strength=d.get("strength", 0),
    )


def decided_text(decided: Decided | None) -> str | None:
    """A decision as stored."""
    if decided is None:
        return None
    return dumps(
        {
            "action": str(decided.action),
            "exclude": list(decided.exclude),
            "delay_s": decided.delay_s,
            "budget": str(decided.budget),
            "reason": decided.reason,
            "hand_over": list(decided.hand_over),
        }
    )


def decided_from(text: str | None) -> Decided | None:
    """A stored decision."""
    if text is None:
        return None
    d = json.loads(text)
    return Decided(
        Action(d["action"]),
        tuple(d["exclude"]),
        float(d["delay_s"]),
        Budget(d["budget"]),
        d["reason"],
        tuple(d.get("hand_over", ())),
    )


def strings(values: tuple[str, ...]) -> str:
    """A list of strings as stored."""
    return dumps(list(values))


def strings_from(text: str | None) -> tuple[str, ...]:
    """A stored list of strings."""
    return tuple(json.loads(text)) if text else ()
