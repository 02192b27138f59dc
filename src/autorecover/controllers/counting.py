"""Counting over time on the injected clock: removals for the breaker, faults for domain
correlation, and the token bucket that rate-limits scheduler mutations.

These hold only what the store can rebuild (removals from transitions, faults from the node
records' marks), so a restart re-derives them instead of trusting a cache. Each entry keeps the
domains its node had when it was counted, so a topology that learns a node's clique later
(`topology` is replaced) never uncounts from a domain it did not count in.
"""

from __future__ import annotations

from collections import Counter, deque
from datetime import datetime, timedelta

from autorecover.domain.failure_domains import FailureDomain, Topology


class RemovalWindow:
    """Nodes taken out of service within the breaker's window, for the fleet and per domain."""

    def __init__(self, window: timedelta, topology: Topology) -> None:
        self._window = window
        self.topology = topology
        self._entries: deque[tuple[datetime, tuple[FailureDomain, ...]]] = deque()
        self._by_domain: Counter[FailureDomain] = Counter()

    def add(self, node: str, at: datetime) -> None:
        """Count one removal."""
        domains = self.topology.of(node)
        self._entries.append((at, domains))
        self._by_domain.update(domains)

    def expire(self, now: datetime) -> None:
        """Forget removals older than the window."""
        since = now - self._window
        while self._entries and self._entries[0][0] <= since:
            _, domains = self._entries.popleft()
            self._by_domain.subtract(domains)

    @property
    def removed(self) -> int:
        """Removals within the window."""
        return len(self._entries)

    def in_domain(self, domain: FailureDomain) -> int:
        """Removals within the window from one domain."""
        return self._by_domain[domain]


class FaultWindow:
    """Recent faults per failure domain, kept incrementally: the controller's form of
    `failure_domains.faulting`, which a test holds it to."""

    def __init__(self, window: timedelta, topology: Topology) -> None:
        self._window = window
        self.topology = topology
        self._entries: deque[tuple[datetime, str, tuple[FailureDomain, ...]]] = deque()
        self._by_domain: dict[FailureDomain, Counter[str]] = {}

    def add(self, node: str, at: datetime) -> tuple[FailureDomain, ...]:
        """Count one fault; returns the node's domains. Faults must come in time order."""
        domains = self.topology.of(node)
        if domains:
            self._entries.append((at, node, domains))
            for domain in domains:
                self._by_domain.setdefault(domain, Counter())[node] += 1
        return domains

    def expire(self, now: datetime) -> set[FailureDomain]:
        """Forget faults older than the window; returns the domains that changed."""
        since, changed = now - self._window, set()
        while self._entries and self._entries[0][0] <= since:
            _, node, domains = self._entries.popleft()
            for domain in domains:
                counts = self._by_domain[domain]
                counts[node] -= 1
                if counts[node] <= 0:
                    del counts[node]
                if not counts:
                    del self._by_domain[domain]
                changed.add(domain)
        return changed

    def nodes(self, domain: FailureDomain) -> frozenset[str]:
        """The distinct nodes of a domain that faulted within the window."""
        return frozenset(self._by_domain.get(domain, ()))


class TokenBucket:
    """At most `per_s` takes a second on average, `burst` at once; refilled from the clock."""

    def __init__(self, per_s: float, burst: int, now: datetime) -> None:
        self._per_s = per_s
        self._burst = float(burst)
        self._tokens = float(burst)
        self._at = now

    def take(self, now: datetime) -> bool:
        """Take one token if there is one."""
        elapsed = max(0.0, (now - self._at).total_seconds())
        self._tokens = min(self._burst, self._tokens + elapsed * self._per_s)
        self._at = max(self._at, now)
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True
