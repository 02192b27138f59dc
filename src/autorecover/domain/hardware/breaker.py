"""Blast-radius limits: a circuit breaker on taking nodes out of service.

A removal is a node leaving `healthy` (to suspect or quarantined): capacity taken away. The
breaker bounds removals per window, as an absolute count and as a fraction of the fleet, and
the nodes out at once; each failure domain has its own budget per window. Hitting a fleet
limit trips the breaker: it stays tripped (latched) until a person resets it, refusing new
quarantines, while validated nodes keep returning. Hitting a domain budget refuses only that
domain's nodes: its faults are one domain incident for a person, not N node faults.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from types import MappingProxyType

from autorecover.domain.failure_domains import DomainKind, FailureDomain


def _default_budget() -> Mapping[DomainKind, int]:
    return MappingProxyType({kind: 4 for kind in DomainKind})


@dataclass(frozen=True, slots=True)
class BreakerLimits:
    """How much of the fleet hardware recovery may take away, per window."""

    window: timedelta = timedelta(hours=1)
    max_nodes: int = 50  # removals per window
    max_fraction: float = 0.05  # removals per window, as a fraction of the fleet
    max_out_fraction: float = 0.10  # nodes out of service by us at once
    domain_budget: Mapping[DomainKind, int] = field(default_factory=_default_budget)


@dataclass(frozen=True, slots=True)
class BreakerState:
    """Whether the breaker is tripped, since when and why; latched until a person resets it.
    The last reset (who, when, why) stays on the state, tripped again or not."""

    tripped_at: datetime | None = None
    reason: str = ""
    reset_by: str = ""
    reset_at: datetime | None = None
    reset_why: str = ""

    @property
    def tripped(self) -> bool:
        """True while new quarantines are refused."""
        return self.tripped_at is not None

    def trip(self, at: datetime, reason: str) -> BreakerState:
        """Tripped now, for this reason (the last reset is kept)."""
        return replace(self, tripped_at=at, reason=reason)

    def reset(self, at: datetime, by: str, why: str) -> BreakerState:
        """Closed by a person."""
        return BreakerState(None, "", by, at, why)


CLOSED = BreakerState()


@dataclass(frozen=True, slots=True)
class BreakerView:
    """The counts admission decides on, as the controller keeps them."""

    limits: BreakerLimits
    state: BreakerState
    fleet_size: int
    removed: int = 0  # removals within the window
    out_now: int = 0  # nodes out of service by us now
    domain_removed: Mapping[FailureDomain, int] = field(
        default_factory=lambda: MappingProxyType({})
    )


@dataclass(frozen=True, slots=True)
class Admission:
    """The breaker's answer to one removal or quarantine, with the reason when refused."""

    admitted: bool
    reason: str = ""
    trips: bool = False  # a fleet limit was hit: latch the breaker
    domain: FailureDomain | None = None  # the domain whose budget was hit


ADMITTED = Admission(admitted=True)


def fleet_limit(limits: BreakerLimits, fleet_size: int) -> int:
    """Removals allowed per window: the smaller of the count and the fraction (at least 1)."""
    return min(limits.max_nodes, max(1, math.floor(limits.max_fraction * fleet_size)))


def out_limit(limits: BreakerLimits, fleet_size: int) -> int:
    """Nodes that may be out of service by us at once (at least 1)."""
    return max(1, math.floor(limits.max_out_fraction * fleet_size))


def admit(view: BreakerView, domains: tuple[FailureDomain, ...], removal: bool) -> Admission:
    """May this node be taken out (`removal`) or quarantined from suspect (not a removal)?"""
    if view.state.tripped:
        return Admission(False, f"breaker tripped: {view.state.reason}")
    if not removal:
        return ADMITTED
    limits = view.limits
    allowed = fleet_limit(limits, view.fleet_size)
    if view.removed + 1 > allowed:
        window = int(limits.window.total_seconds())
        why = f"{view.removed} nodes taken out within {window}s, limit {allowed}"
        return Admission(False, why, trips=True)
    out = out_limit(limits, view.fleet_size)
    if view.out_now + 1 > out:
        return Admission(False, f"{view.out_now} nodes out of service, limit {out}", trips=True)
    for domain in domains:
        budget = limits.domain_budget.get(domain.kind)
        used = view.domain_removed.get(domain, 0)
        if budget is not None and used + 1 > budget:
            why = f"{domain}: {used} nodes taken out within the window, budget {budget}"
            return Admission(False, why, domain=domain)
    return ADMITTED
