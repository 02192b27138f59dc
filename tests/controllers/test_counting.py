"""Counting on the injected clock: the breaker's removal window, the incremental fault window
(held to the domain's pure `faulting`), and the mutation rate limit."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.fakes.cluster import START
from autorecover.controllers.counting import FaultWindow, RemovalWindow, TokenBucket
from autorecover.domain.failure_domains import DomainKind, FailureDomain, Topology, faulting

TOPO = Topology.from_labels(
    {f"n{i}": {"rack": f"r{i // 3}", "ib_leaf": f"l{i // 6}"} for i in range(12)}
)
WINDOW = timedelta(minutes=10)


@given(st.lists(st.tuples(st.integers(0, 13), st.integers(0, 120)), max_size=60))
def test_the_fault_window_counts_what_faulting_counts(events: list[tuple[int, int]]) -> None:
    window = FaultWindow(WINDOW, TOPO)
    seen: list[tuple[str, object]] = []
    now = START
    for node_no, gap_s in events:
        now += timedelta(seconds=gap_s * 10)
        node = f"n{node_no}"  # n12, n13 are outside the topology
        window.expire(now)
        window.add(node, now)
        seen.append((node, now))
        expected = faulting(seen, TOPO, now, WINDOW)  # type: ignore[arg-type]
        for domain in {d for n, _ in seen for d in TOPO.of(n)}:
            assert window.nodes(domain) == expected.get(domain, frozenset())


def test_the_removal_window_counts_per_domain_and_forgets() -> None:
    removals = RemovalWindow(timedelta(hours=1), TOPO)
    removals.add("n0", START)
    removals.add("n1", START + timedelta(minutes=30))
    rack = FailureDomain(DomainKind.RACK, "r0")
    assert removals.removed == 2 and removals.in_domain(rack) == 2
    removals.expire(START + timedelta(hours=1))
    assert removals.removed == 1 and removals.in_domain(rack) == 1


def test_the_token_bucket_allows_a_burst_then_the_rate() -> None:
    bucket = TokenBucket(per_s=2, burst=3, now=START)
    assert [bucket.take(START) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(START + timedelta(seconds=0.5))
    assert not bucket.take(START + timedelta(seconds=0.5))
    later = START + timedelta(seconds=60)
    assert sum(bucket.take(later) for _ in range(10)) == 3  # never more than the burst
