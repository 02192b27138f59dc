"""The alerting pass on a virtual clock: fire once, repeat on schedule, resolve once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from autorecover.adapters.fakes.cluster import FakeClock, FakeNotifier
from autorecover.controllers.alerting import Alerter
from autorecover.domain.alerting import Facts, NodeFact
from autorecover.domain.alerts import AlertSettings
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import NodeState


@dataclass
class Recorded:
    """Facts a test sets by hand."""

    now: Facts = field(default_factory=Facts)

    def facts(self) -> Facts:
        return self.now


def test_alerts_fire_repeat_and_resolve() -> None:
    clock, notifier, source = FakeClock(), FakeNotifier(), Recorded()
    alerter = Alerter(source, notifier, clock, AlertSettings(resend=timedelta(seconds=60)))
    assert alerter.run_once().sent == 0
    source.now = Facts(
        nodes=(NodeFact("n1", NodeState.NEEDS_ATTENTION, clock.now(), 4, clock.now()),),
        breaker=BreakerState(clock.now(), "too many"),
    )
    first = alerter.run_once()
    assert first.sent == 2 and first.resolved == 0 and len(alerter.firing) == 2
    clock.advance(30)
    assert alerter.run_once().sent == 0
    clock.advance(30)
    assert alerter.run_once().sent == 2  # repeated: Alertmanager forgets what nobody repeats
    source.now = Facts(breaker=source.now.breaker)  # n1 released
    clock.advance(1)
    after = alerter.run_once()
    assert after.sent == 1 and after.resolved == 1
    [resolved] = notifier.resolved.values()
    assert resolved.node == "n1" and resolved.ends_at == clock.now()
    assert sum(notifier.calls.values()) == 5
