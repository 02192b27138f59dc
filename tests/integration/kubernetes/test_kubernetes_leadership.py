"""Leader election on a real `coordination.k8s.io` Lease, fenced by the store underneath."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.kubernetes.leases import KubeLease
from autorecover.adapters.store.url import open_store
from autorecover.server.leadership import ClusterLeaseLeadership, DbLeadership
from autorecover.testing.kubernetes.harness import KubeHarness


def test_kubernetes_lease_has_one_holder_at_a_time(kube: KubeHarness) -> None:
    lease = KubeLease(kube.session, kube.namespace, "engine")
    now = kube.clock.now()
    first = lease.acquire("a", now, 15)
    assert first.holder == "a" and first.transitions == 0
    assert lease.acquire("b", now, 15).holder == "a"  # held and fresh: b stands by
    assert lease.acquire("a", now + timedelta(seconds=5), 15).holder == "a"  # renewed
    # a stops renewing: once renewTime + duration is past, b takes it (a new term).
    taken = lease.acquire("b", now + timedelta(seconds=21), 15)
    assert taken.holder == "b" and taken.transitions == 1
    lease.release("a")  # not a's any more: nothing happens
    assert lease.view() is not None and lease.view().holder == "b"  # type: ignore[union-attr]
    lease.release("b")
    free = lease.view()
    assert free is not None and free.holder is None
    assert lease.acquire("a", now + timedelta(seconds=22), 15).holder == "a"


def test_kubernetes_lease_leadership_fences_by_the_store(kube: KubeHarness, tmp_path: Path) -> None:
    clock = SystemClock()
    store = open_store(f"sqlite:///{tmp_path / 'engine.db'}")
    try:
        replicas = [
            ClusterLeaseLeadership(KubeLease(kube.session, kube.namespace, "autorecover-engine"),
                                   DbLeadership(store, clock, name, ttl_s=15), clock)
            for name in ("one", "two")
        ]  # fmt: skip
        for r in replicas:
            r.renew()
        leaders = [r for r in replicas if r.fence() is not None]
        assert [r.holder for r in leaders] == ["one"]
        assert replicas[1].leader() == "one" and replicas[1].fence() is None
        # The leader shuts down: it releases both leases and the standby takes over at once.
        replicas[0].release()
        replicas[1].renew()
        fence = replicas[1].fence()
        assert fence is not None and fence.holder == "two"
        seen = KubeLease(kube.session, kube.namespace, "autorecover-engine").view()
        assert seen is not None and seen.holder == "two" and seen.transitions == 1
    finally:
        store.close()
