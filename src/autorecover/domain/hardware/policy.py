"""Hardware recovery policy as data: what each signal does to a node, and the limits on acting.

A hardware-blamed signal is classed `ignore`, `watch` (recorded, counts toward repeats),
`suspect` (no new jobs, running jobs left alone) or `quarantine`. Its class comes from a rule
for its key, else from a rule for the catalog's recommended node action; a rule for its probe
may cap it (job recovery's attributions only mark suspect until they repeat). N occurrences
of a key within a window escalate. A signal blamed on anything but hardware (application,
transient, symptom, info) is ignored whatever the data says: software faults never take
capacity away. The defaults ship as `data/hardware-policy.toml`; operator documents of the
same shape merge by key onto them (`policy_loading`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType

from autorecover.domain.failure_domains import Correlation
from autorecover.domain.hardware.breaker import BreakerLimits
from autorecover.domain.hardware.remediation import Ladder
from autorecover.domain.hardware.validation import ValidationPolicy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe


class SignalClass(StrEnum):
    """What a signal does to a node, weakest first (persisted: never rename a value)."""

    IGNORE = "ignore"
    WATCH = "watch"
    SUSPECT = "suspect"
    QUARANTINE = "quarantine"

    @property
    def rank(self) -> int:
        """Order of strength: ignore < watch < suspect < quarantine."""
        return _RANK[self]


_RANK = {c: i for i, c in enumerate(SignalClass)}


def strongest(a: SignalClass, b: SignalClass) -> SignalClass:
    """The stronger of two classes."""
    return a if a.rank >= b.rank else b


def weakest(a: SignalClass, b: SignalClass) -> SignalClass:
    """The weaker of two classes."""
    return a if a.rank <= b.rank else b


@dataclass(frozen=True, slots=True)
class Rule:
    """One policy entry: a class, a cap, a repeat escalation; fields left None inherit."""

    cls: SignalClass | None = None
    cap: SignalClass | None = None  # probe rules: the most a single signal may do
    escalate_after: int = 0  # occurrences within the window; 0: never escalate
    escalate_window: timedelta = timedelta(hours=1)
    escalate_to: SignalClass = SignalClass.QUARANTINE
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class Mark:
    """One occurrence of a signal kept on the node record, for repeats and quiet periods."""

    key: str
    probe: Probe
    cls: SignalClass
    at: datetime  # the occurrence's latest observation


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long a node may stay in each ladder state before a person gets it."""

    drain: timedelta = timedelta(hours=1)
    diagnose: timedelta = timedelta(minutes=30)
    remediate: timedelta = timedelta(minutes=30)
    validate: timedelta = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class RateLimit:
    """Scheduler mutations per second, with a burst."""

    per_s: float = 10.0
    burst: int = 50


def _empty() -> Mapping[str, Rule]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class HardwarePolicy:
    """Everything hardware recovery decides by, as data."""

    version: str = ""
    actions: Mapping[str, Rule] = field(default_factory=_empty)  # keyed by NodeAction value
    signals: Mapping[str, Rule] = field(default_factory=_empty)  # keyed by signal key
    probes: Mapping[str, Rule] = field(default_factory=_empty)  # keyed by Probe value
    repeat_gap: timedelta = timedelta(seconds=60)  # closer than this: the same occurrence
    suspect_clear: timedelta = timedelta(hours=1)  # a suspect this quiet returns
    hold: timedelta = timedelta(hours=1)  # a refused removal is retried this long
    # A node whose agent was last heard longer ago than this, and which the scheduler says
    # does not respond, is silent: the engine raises `host.unresponsive` for it.
    silence: timedelta = timedelta(seconds=180)
    timeouts: Timeouts = field(default_factory=Timeouts)
    ladder: Ladder = field(default_factory=Ladder)
    breaker: BreakerLimits = field(default_factory=BreakerLimits)
    correlation: Correlation = field(default_factory=Correlation)
    rate: RateLimit = field(default_factory=RateLimit)
    validation: ValidationPolicy = field(default_factory=ValidationPolicy)

    def classify(self, signal: NodeSignal) -> SignalClass:
        """The class of one signal on its own, before repeats."""
        if signal.blame is not Blame.HARDWARE:
            return SignalClass.IGNORE  # enforced here, not in data: software never removes
        cls = self._base(signal.signal, signal.node_action)
        probe = self.probes.get(signal.probe)
        if probe is not None and probe.enabled and probe.cap is not None:
            cls = weakest(cls, probe.cap)
        return cls

    def escalated(self, signal: NodeSignal, marks: Iterable[Mark], now: datetime) -> SignalClass:
        """The class repeats of this signal's key (or probe) reach, counting `marks`."""
        if signal.blame is not Blame.HARDWARE:
            return SignalClass.IGNORE
        seen = tuple(marks)
        best = SignalClass.IGNORE
        rule = self._escalation(signal.signal, signal.node_action)
        if rule is not None and _count(seen, now, rule, key=signal.signal) >= rule.escalate_after:
            best = rule.escalate_to
        probe = self.probes.get(signal.probe)
        if (
            probe is not None
            and probe.enabled
            and probe.escalate_after > 0
            and _count(seen, now, probe, probe=signal.probe) >= probe.escalate_after
        ):
            best = strongest(best, probe.escalate_to)
        return best

    def horizon(self) -> timedelta:
        """How long marks must be kept to answer every window the policy asks about."""
        rules = (*self.actions.values(), *self.signals.values(), *self.probes.values())
        windows = [r.escalate_window for r in rules if r.escalate_after > 0]
        return max([self.suspect_clear, self.correlation.window, *windows])

    def _base(self, key: str, action: NodeAction) -> SignalClass:
        rule = self.signals.get(key)
        if rule is not None and rule.enabled and rule.cls is not None:
            return rule.cls
        if rule is not None and not rule.enabled:
            return SignalClass.IGNORE
        by_action = self.actions.get(action)
        if by_action is not None and by_action.enabled and by_action.cls is not None:
            return by_action.cls
        return SignalClass.WATCH

    def _escalation(self, key: str, action: NodeAction) -> Rule | None:
        rule = self.signals.get(key)
        if rule is not None and rule.enabled and rule.escalate_after > 0:
            return rule
        if rule is not None and not rule.enabled:
            return None
        by_action = self.actions.get(action)
        if by_action is not None and by_action.enabled and by_action.escalate_after > 0:
            return by_action
        return None


def _count(
    marks: tuple[Mark, ...],
    now: datetime,
    rule: Rule,
    key: str | None = None,
    probe: Probe | None = None,
) -> int:
    since = now - rule.escalate_window
    return sum(
        1
        for m in marks
        if m.at > since and (key is None or m.key == key) and (probe is None or m.probe is probe)
    )


def remember(
    marks: Iterable[Mark], new: Iterable[Mark], now: datetime, policy: HardwarePolicy
) -> tuple[Mark, ...]:
    """Marks within the policy's horizon, with repeats closer than `repeat_gap` folded."""
    since = now - policy.horizon()
    kept = [m for m in marks if m.at > since]
    for mark in new:
        last = next((i for i in range(len(kept) - 1, -1, -1) if kept[i].key == mark.key), None)
        if last is not None and mark.at - kept[last].at < policy.repeat_gap:
            old = kept[last]
            kept[last] = Mark(old.key, old.probe, strongest(old.cls, mark.cls), mark.at)
        else:
            kept.append(mark)
    return tuple(kept[-_MAX_MARKS:])


_MAX_MARKS = 64  # bounds a node record under a storm; escalation needs far fewer
