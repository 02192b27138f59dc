"""A hand-over names when its evidence was seen, not only when it was sent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from autorecover.controllers.jobs.evidence import suspect_signal
from autorecover.domain.hardware.decisions import evidence_time
from autorecover.domain.records import (
    Action,
    Blame,
    Cause,
    Evidence,
    Finding,
    NodeAction,
    Source,
    Verdict,
)

NOW = datetime(2026, 3, 2, 11, 31, 52, tzinfo=UTC)
LINE = "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus."
VERDICT = Verdict(Cause.HARDWARE, ("n1",), Action.REQUEUE_EXCLUDING,
                  (Evidence("n1", Source.SYSTEM, 3, "xid.79", LINE),), "xid 79 on n1", 95)  # fmt: skip


def _finding(at: datetime | None) -> Finding:
    return Finding("xid.79", "n1", Source.SYSTEM, 3, LINE, Blame.HARDWARE, 95,
                   NodeAction.REBOOT, at=at)  # fmt: skip


def test_the_hand_over_carries_the_deciding_line_s_own_time() -> None:
    seen = NOW - timedelta(seconds=40)
    signal = suspect_signal("n1", VERDICT, [_finding(seen)], job="j", incident="i", now=NOW,
                            ended=NOW - timedelta(seconds=5))  # fmt: skip
    assert signal.at == NOW and signal.detail("evidence_at") == seen.isoformat()
    assert evidence_time(signal) == seen


def test_without_a_line_time_the_attempt_s_end_bounds_the_evidence() -> None:
    ended = NOW - timedelta(seconds=5)
    signal = suspect_signal("n1", VERDICT, [_finding(None)], job="j", incident="i", now=NOW,
                            ended=ended)  # fmt: skip
    assert evidence_time(signal) == ended
    unknown = suspect_signal("n1", VERDICT, [_finding(None)], job="j", incident="i", now=NOW)
    assert unknown.detail("evidence_at") is None and evidence_time(unknown) == NOW
