"""Counter rules: increases, rates, windows, resets and escalation, on explicit times."""

from __future__ import annotations

from datetime import datetime

from agent.support import at
from autorecover.agent.probes.counters import Breach, CounterTracker
from autorecover.agent.thresholds import CounterRule, Kind
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import Probe


def rule(kind: Kind, **kw: object) -> CounterRule:
    return CounterRule(key=f"t.{kind}", probe=Probe.INFINIBAND, source="c", kind=kind, **kw)  # type: ignore[arg-type]


def feed(tracker: CounterTracker, *samples: tuple[float, int]) -> list[list[Breach]]:
    return [tracker.observe("port", {"c": v}, at(t)) for t, v in samples]


def test_any_increase_needs_a_baseline() -> None:
    t = CounterTracker([rule(Kind.ANY_INCREASE)])
    first, same, up = feed(t, (0, 5), (60, 5), (120, 6))
    assert first == [] and same == []  # 5 at the first look may be from last month
    assert [b.increase for b in up] == [1]


def test_baseline_zero_counts_the_first_reading() -> None:
    t = CounterTracker([rule(Kind.ANY_INCREASE, baseline_zero=True)])
    assert [b.increase for b in t.observe("dev", {"c": 2}, at(0))] == [2]


def test_rate_is_per_second_between_samples() -> None:
    t = CounterTracker([rule(Kind.RATE, limit=10, per_s=1)])
    _, slow, fast = feed(t, (0, 0), (60, 600), (120, 1300))  # 10/s exactly, then 11.7/s
    assert slow == []
    assert fast[0].rate_per_s is not None and round(fast[0].rate_per_s, 1) == 11.7


def test_window_counts_the_trailing_hour() -> None:
    t = CounterTracker([rule(Kind.WINDOW, limit=120, window_s=3600)])
    results = feed(t, (0, 1000), (600, 1060), (1200, 1121), (4900, 1130))
    assert results[1] == []  # +60 in the hour
    assert [b.increase for b in results[2]] == [121]  # +121 within the hour: over the BER limit
    assert results[3] == []  # the early increases left the window


def test_a_counter_reset_counts_what_accrued_since() -> None:
    t = CounterTracker([rule(Kind.ANY_INCREASE), rule(Kind.WINDOW, limit=5, window_s=3600)])
    _, reset_zero, reset_up = feed(t, (0, 900), (60, 0), (120, 7))
    assert reset_zero == []  # perfquery -r: back to 0 is no error
    kinds = {b.rule.kind: b for b in reset_up}
    assert kinds[Kind.ANY_INCREASE].increase == 7
    assert kinds[Kind.WINDOW].increase == 7
    t2 = CounterTracker([rule(Kind.ANY_INCREASE)])
    _, after = feed(t2, (0, 900), (60, 3))
    assert after[0].reset and after[0].increase == 3


def test_escalation_after_repeated_breaches() -> None:
    r = rule(
        Kind.RATE,
        limit=10,
        per_s=1,
        escalate_after=3,
        escalate_window_s=3600,
        escalate_node_action=NodeAction.INSPECT,
        escalate_weight=70,
    )
    t = CounterTracker([r])
    samples = [(i * 60.0, i * 1200) for i in range(5)]
    flags = [[b.escalated for b in bs] for bs in feed(t, *samples)]
    assert flags == [[], [False], [False], [True], [True]]
    # The breaches age out of the window: a later breach starts counting again.
    assert t.observe("port", {"c": 4800}, at(240 + 7200)) == []
    later = t.observe("port", {"c": 4800 + 1200}, at(300 + 7200))
    assert [b.escalated for b in later] == [False]


def test_nonzero_and_above_need_no_history() -> None:
    t = CounterTracker([rule(Kind.NONZERO), rule(Kind.ABOVE, limit=60)])
    assert {b.rule.kind for b in t.observe("gpu", {"c": 61}, at(0))} == {Kind.NONZERO, Kind.ABOVE}
    assert t.observe("gpu", {"c": 0}, at(10)) == []


def test_unknown_and_missing_readings_are_skipped() -> None:
    t = CounterTracker([rule(Kind.NONZERO)])
    assert t.observe("gpu", {"c": None, "other": 5}, at(0)) == []


def test_state_survives_a_restart() -> None:
    r = rule(Kind.WINDOW, limit=100, window_s=3600)
    before = CounterTracker([r])
    feed(before, (0, 0), (600, 80))
    after = CounterTracker([r])
    after.restore(before.state())
    assert [b.increase for b in after.observe("port", {"c": 101}, at(1200))] == [101]


def test_malformed_state_is_ignored() -> None:
    t = CounterTracker([rule(Kind.ANY_INCREASE)])
    t.restore({"series": {"port": {"c": {"value": "x", "at": "nope"}}}, "breaches": [1]})
    t.restore({"series": {"port": {"c": {"value": 1, "at": "2026-03-02T10:00:00"}}}})  # naive
    assert t.observe("port", {"c": 5}, datetime.fromisoformat("2026-03-02T10:00:00+00:00")) == []
