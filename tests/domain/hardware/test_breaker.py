"""The circuit breaker: fleet limits trip it, domain budgets refuse only their domain."""

from __future__ import annotations

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.failure_domains import DomainKind, FailureDomain
from autorecover.domain.hardware.breaker import (
    CLOSED,
    BreakerLimits,
    BreakerState,
    BreakerView,
    admit,
    fleet_limit,
    out_limit,
)

LIMITS = BreakerLimits(max_nodes=10, max_fraction=0.05, max_out_fraction=0.10)
RACK = FailureDomain(DomainKind.RACK, "r1")


def view(**kw: object) -> BreakerView:
    base: dict[str, object] = {"limits": LIMITS, "state": CLOSED, "fleet_size": 100}
    base.update(kw)
    return BreakerView(**base)  # type: ignore[arg-type]


def test_the_fleet_limit_is_the_smaller_of_count_and_fraction_and_at_least_one() -> None:
    assert fleet_limit(LIMITS, 100) == 5
    assert fleet_limit(LIMITS, 10_000) == 10
    assert fleet_limit(LIMITS, 3) == 1
    assert out_limit(LIMITS, 100) == 10
    assert out_limit(LIMITS, 3) == 1


def test_removals_are_admitted_below_the_limits() -> None:
    assert admit(view(removed=4), (RACK,), removal=True).admitted


def test_the_fleet_limit_refuses_and_trips() -> None:
    verdict = admit(view(removed=5), (), removal=True)
    assert not verdict.admitted and verdict.trips
    assert "5 nodes taken out" in verdict.reason


def test_too_many_out_at_once_refuses_and_trips() -> None:
    verdict = admit(view(out_now=10), (), removal=True)
    assert not verdict.admitted and verdict.trips


def test_a_spent_domain_budget_refuses_without_tripping() -> None:
    verdict = admit(view(domain_removed={RACK: 4}), (RACK,), removal=True)
    assert not verdict.admitted and not verdict.trips
    assert verdict.domain == RACK


def test_a_tripped_breaker_refuses_every_new_quarantine_even_from_suspect() -> None:
    tripped = BreakerState(START, "too many")
    assert tripped.tripped
    assert not admit(view(state=tripped), (), removal=True).admitted
    assert not admit(view(state=tripped), (), removal=False).admitted
    assert admit(view(removed=100), (), removal=False).admitted  # escalation is not a removal
