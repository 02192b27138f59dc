"""Counter rules: cumulative counters read as increases, rates and windows, resets handled.

Hardware counters (IB port counters, PCIe AER totals, ECC and NVLink counts) only ever grow,
until something resets them: `perfquery -r`, a driver reload, a reboot. Rules therefore read the
increase between samples, never the absolute value (PAM4 links always show some symbol
errors). A value below the last one is a reset: the new value is what accrued since the reset.
Pure: the caller supplies readings and the time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from autorecover.agent.probes.base import make_signal
from autorecover.agent.thresholds import CounterRule, Kind, Meaning
from autorecover.domain.signals import NodeSignal


@dataclass(frozen=True, slots=True)
class Breach:
    """A rule that fired on one component's reading."""

    rule: CounterRule
    component: str
    value: int
    increase: int  # since the last sample, or within the window for window rules
    rate_per_s: float | None = None
    escalated: bool = False
    reset: bool = False


@dataclass(slots=True)
class _Series:
    value: int
    at: datetime
    increases: deque[tuple[datetime, int]] = field(default_factory=deque)


class CounterTracker:
    """Evaluates a probe's counter rules on successive readings, per component."""

    def __init__(self, rules: Sequence[CounterRule]) -> None:
        self.rules = tuple(rules)
        self._by_source: dict[str, list[CounterRule]] = {}
        for rule in self.rules:
            self._by_source.setdefault(rule.source, []).append(rule)
        self._keep_s = {
            source: max((r.window_s for r in rules), default=0.0)
            for source, rules in self._by_source.items()
        }
        self._series: dict[tuple[str, str], _Series] = {}
        self._breaches: dict[tuple[str, str], deque[datetime]] = {}

    def observe(
        self, component: str, readings: Mapping[str, int | None], now: datetime
    ) -> list[Breach]:
        """Feed one component's readings; the rules they breach."""
        out: list[Breach] = []
        for source, value in readings.items():
            rules = self._by_source.get(source)
            if rules is None or value is None:
                continue
            out += self._observe(component, source, value, rules, now)
        return out

    def _observe(
        self, component: str, source: str, value: int, rules: list[CounterRule], now: datetime
    ) -> list[Breach]:
        key = (component, source)
        series = self._series.get(key)
        delta: int | None = None
        dt: float | None = None
        reset = False
        if series is None:
            if any(r.baseline_zero for r in rules):
                delta = value  # counters like AER's start at 0 when the node boots
            series = self._series[key] = _Series(value, now)
        else:
            dt = (now - series.at).total_seconds()
            reset = value < series.value
            delta = value if reset else value - series.value
            series.value, series.at = value, now
        if delta:
            series.increases.append((now, delta))
        keep = self._keep_s.get(source, 0.0)
        while series.increases and (now - series.increases[0][0]).total_seconds() >= keep:
            series.increases.popleft()
        out: list[Breach] = []
        for rule in rules:
            breach = _evaluate(rule, component, value, delta, dt, series, now, reset)
            if breach is not None:
                out.append(self._escalate(breach, now))
        return out

    def _escalate(self, breach: Breach, now: datetime) -> Breach:
        rule = breach.rule
        if not rule.escalate_after:
            return breach
        times = self._breaches.setdefault((rule.key, breach.component), deque())
        times.append(now)
        while times and (now - times[0]).total_seconds() >= rule.escalate_window_s:
            times.popleft()
        if len(times) < rule.escalate_after:
            return breach
        return replace(breach, escalated=True)

    def state(self) -> dict[str, Any]:
        """Baselines and recent increases, JSON-able."""
        series: dict[str, dict[str, Any]] = {}
        for (component, source), s in self._series.items():
            series.setdefault(component, {})[source] = {
                "value": s.value,
                "at": s.at.isoformat(),
                "increases": [[at.isoformat(), d] for at, d in s.increases],
            }
        breaches: dict[str, dict[str, list[str]]] = {}
        for (rule, component), times in self._breaches.items():
            breaches.setdefault(rule, {})[component] = [t.isoformat() for t in times]
        return {"series": series, "breaches": breaches}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back saved baselines; anything malformed is skipped, never fatal."""
        for component, sources in _dict(state.get("series")).items():
            for source, raw in _dict(sources).items():
                s = _series(raw)
                if s is not None:
                    self._series[(str(component), str(source))] = s
        for rule, components in _dict(state.get("breaches")).items():
            for component, times in _dict(components).items():
                parsed = [t for t in map(_time, times if isinstance(times, list) else []) if t]
                self._breaches[(str(rule), str(component))] = deque(parsed)


def _evaluate(
    rule: CounterRule,
    component: str,
    value: int,
    delta: int | None,
    dt: float | None,
    series: _Series,
    now: datetime,
    reset: bool,
) -> Breach | None:
    def hit(increase: int, rate: float | None = None) -> Breach:
        return Breach(rule, component, value, increase, rate, reset=reset)

    if rule.kind is Kind.NONZERO:
        return hit(value) if value > 0 else None
    if rule.kind is Kind.ABOVE:
        return hit(value) if value > rule.limit else None
    if delta is None:
        return None  # no baseline yet: an increase cannot be told from history
    if rule.kind is Kind.ANY_INCREASE:
        return hit(delta) if delta > 0 else None
    if rule.kind is Kind.RATE:
        if dt is None or dt <= 0:
            return None
        rate = delta / dt
        return hit(delta, rate) if rate > rule.limit / rule.per_s else None
    total = sum(d for at, d in series.increases if (now - at).total_seconds() < rule.window_s)
    return hit(total) if total > rule.limit else None


def breach_signal(
    breach: Breach,
    *,
    node: str,
    meaning: Callable[[str], Meaning],
    now: datetime,
) -> NodeSignal:
    """The signal a breach raises, escalated if it repeated."""
    rule = breach.rule
    m = meaning(rule.key)
    if breach.escalated and rule.escalate_node_action is not None:
        m = Meaning(m.blame, rule.escalate_node_action, rule.escalate_weight, m.description)
    details: dict[str, object] = {"source": rule.source, "value": breach.value}
    details["increase"] = breach.increase
    if breach.rate_per_s is not None:
        details["rate_per_s"] = f"{breach.rate_per_s:.3g}"
    if rule.kind is Kind.WINDOW:
        details["window_s"] = f"{rule.window_s:g}"
    if breach.escalated:
        details["escalated"] = f"{rule.escalate_after} breaches within {rule.escalate_window_s:g} s"
    if breach.reset:
        details["counter_reset"] = "yes"
    text = f"{breach.component} {rule.source}={breach.value} ({rule.kind}: +{breach.increase})"
    return make_signal(
        node=node,
        probe=rule.probe,
        key=rule.key,
        meaning=m,
        at=now,
        component=breach.component,
        text=text,
        details=details,
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


def _series(raw: Any) -> _Series | None:
    if not isinstance(raw, dict):
        return None
    value, at = raw.get("value"), _time(raw.get("at"))
    if not isinstance(value, int) or isinstance(value, bool) or at is None:
        return None
    increases: deque[tuple[datetime, int]] = deque()
    for item in raw.get("increases", []) if isinstance(raw.get("increases"), list) else []:
        if isinstance(item, list) and len(item) == 2 and isinstance(item[1], int):
            t = _time(item[0])
            if t is not None:
                increases.append((t, item[1]))
    return _Series(value, at, increases)
