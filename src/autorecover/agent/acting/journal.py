"""The agent's per-order journal: what it received, started, finished and reported.

One JSON file per order under `<state-dir>/orders/<key>/journal.json` (key: a hash of the
order id, so an id never becomes a path), written atomically (temporary file, fsync,
rename) before each step it records happens: received, a step starting (before the child is
started), its pid and the boot id it started in, each step's end, the outcome, each report
the engine took. This is what makes an order run exactly once across `kill -9` of the agent
and across reboots: a step the journal shows as started is looked for, never started again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from autorecover.adapters.host.detached import write_atomically
from autorecover.adapters.http.orders_client import AgentOrder, OrderFormatError, order_from_dict

log = logging.getLogger(__name__)
JOURNAL_FORMAT = "autorecover.agent-order/1"
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class Phase(StrEnum):
    """Where an order stands on this node (persisted)."""

    RECEIVED = "received"
    STARTED = "started"  # a step runs (or ran without its end being seen yet)
    AWAITING_REBOOT = "awaiting_reboot"  # `systemctl reboot` accepted; done on a new boot id
    FINISHED = "finished"  # the outcome is known, not yet taken by the engine
    CLOSED = "closed"  # the engine took the final report, or will never take it


@dataclass(frozen=True, slots=True)
class Outcome:
    """An order's result as it is reported."""

    status: str  # running | done | failed | refused
    detail: str
    verdict: str | None = None  # pass | fail | error (diagnose only)
    evidence: tuple[str, ...] = ()
    attachments: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One command of an order: journaled before it starts, its pid once started."""

    argv: tuple[str, ...]
    started_at: datetime
    boot_id: str
    pid: int | None = None
    rc: int | None = None  # None while it runs (or until its end has been seen)


@dataclass(frozen=True, slots=True)
class Entry:
    """Everything the agent knows about one order."""

    order: AgentOrder
    received_at: datetime
    phase: Phase = Phase.RECEIVED
    steps: tuple[StepRecord, ...] = ()
    outcome: Outcome | None = None
    running_sent: bool = False
    closed_why: str = ""


def read_boot_id(path: Path = BOOT_ID) -> str:
    """This boot's id (changes on every boot); "" when it cannot be read."""
    try:
        return path.read_text(encoding="ascii").strip()[:64]
    except (OSError, UnicodeDecodeError):
        return ""


def key(order_id: str) -> str:
    """The folder name for an order id."""
    return hashlib.sha256(order_id.encode("utf-8")).hexdigest()[:32]


class Journal:
    """The orders folder: one journal file and one run folder per step, per order."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, order_id: str) -> Path:
        """Where an order's journal and runs live."""
        return self.root / key(order_id)

    def run_dir(self, order_id: str, step: int) -> Path:
        """The folder of one step's detached run."""
        return self.folder(order_id) / f"step-{step}"

    def save(self, entry: Entry) -> Entry:
        """Write the entry durably (raises OSError: acting without a journal is not safe)."""
        path = self.folder(entry.order.id) / "journal.json"
        write_atomically(path, json.dumps(entry_to_dict(entry), sort_keys=True))
        return entry

    def entries(self) -> Iterator[Entry]:
        """Every readable entry (an unreadable one is logged and left alone)."""
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("*/journal.json")):
            try:
                yield entry_from_dict(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError, OrderFormatError) as exc:
                log.error("order journal %s is unreadable (left alone): %s", path, exc)

    def prune(self, before: datetime) -> int:
        """Forget closed orders received before `before`; how many."""
        gone = 0
        for entry in list(self.entries()):
            if entry.phase is Phase.CLOSED and entry.received_at < before:
                shutil.rmtree(self.folder(entry.order.id), ignore_errors=True)
                gone += 1
        return gone


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """The journal file's document."""
    out = entry.outcome
    return {
        "format": JOURNAL_FORMAT,
        "order": entry.order.to_dict(),
        "received_at": entry.received_at.isoformat(),
        "phase": str(entry.phase),
        "steps": [
            {"argv": list(s.argv), "started_at": s.started_at.isoformat(), "boot_id": s.boot_id,
             "pid": s.pid, "rc": s.rc}
            for s in entry.steps
        ],
        "outcome": None if out is None else {
            "status": out.status, "detail": out.detail, "verdict": out.verdict,
            "evidence": list(out.evidence), "attachments": dict(out.attachments),
        },
        "running_sent": entry.running_sent,
        "closed_why": entry.closed_why,
    }  # fmt: skip


def entry_from_dict(data: dict[str, Any]) -> Entry:
    """Read a journal file's document (KeyError/TypeError/ValueError when malformed)."""
    if data.get("format") != JOURNAL_FORMAT:
        raise ValueError(f"not a {JOURNAL_FORMAT} document")
    out = data.get("outcome")
    outcome = None
    if isinstance(out, dict):
        outcome = Outcome(
            str(out["status"]), str(out["detail"]), out.get("verdict"),
            tuple(str(e) for e in out.get("evidence", ())),
            {str(k): str(v) for k, v in dict(out.get("attachments") or {}).items()},
        )  # fmt: skip
    steps = tuple(
        StepRecord(
            tuple(str(a) for a in s["argv"]),
            datetime.fromisoformat(s["started_at"]),
            str(s["boot_id"]),
            s.get("pid"),
            s.get("rc"),
        )
        for s in data.get("steps", ())
    )
    return Entry(
        order=order_from_dict(data["order"]),
        received_at=datetime.fromisoformat(data["received_at"]),
        phase=Phase(data["phase"]),
        steps=steps,
        outcome=outcome,
        running_sent=bool(data.get("running_sent")),
        closed_why=str(data.get("closed_why", "")),
    )


def with_step(entry: Entry, index: int, step: StepRecord) -> Entry:
    """The entry with step `index` set (appended when it is the next one)."""
    steps = list(entry.steps)
    if index == len(steps):
        steps.append(step)
    else:
        steps[index] = step
    return replace(entry, steps=tuple(steps), phase=Phase.STARTED)


KEEP_CLOSED = timedelta(days=30)
