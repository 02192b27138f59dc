"""The engine test rig: engines on a virtual clock, a shared fake cluster, an in-process client."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi.testclient import TestClient

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.http.wire import batch_document
from autorecover.adapters.store.base import EngineStore
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.app import create_app
from autorecover.server.engine import Engine, EngineSettings
from autorecover.server.policies import Policies, load_policies
from autorecover.server.wiring import Cluster, build_engine, fake_cluster

SETTINGS = EngineSettings(
    tick_s=10, reconcile_s=300, intake_s=0, lease_ttl_s=15, retry_s=5, max_waiting=100,
    fleet_size=1000,  # reports make no node records: the breaker is told the fleet's size
)  # fmt: skip


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def roomy() -> Policies:
    """The built-in policies with a breaker that lets a small test fleet lose nodes."""
    base = load_policies()
    policy = load_policy()
    breaker = replace(policy.breaker, max_fraction=1.0, max_out_fraction=1.0)
    return replace(base, hardware=replace(policy, breaker=breaker))


def xid79(node: str, clock: FakeClock, **kw: Any) -> NodeSignal:
    return NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, clock.now(),
        component="0000:3b:00.0", text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
        **kw,
    )  # fmt: skip


def document(node: str, *signals: NodeSignal, clock: FakeClock) -> dict[str, Any]:
    return batch_document(node, list(signals), sent_at=clock.now(), dropped=0)


@dataclass
class Replica:
    """One engine replica and its HTTP client."""

    engine: Engine
    client: TestClient

    def step(self) -> None:
        self.engine.step()

    @property
    def leading(self) -> bool:
        return self.engine.leadership.fence() is not None


@dataclass
class Fleet:
    """Replicas sharing a clock and a cluster; each opens its own store on the same database."""

    clock: FakeClock = field(default_factory=FakeClock)
    cluster: Cluster | None = None
    settings: EngineSettings = SETTINGS

    def __post_init__(self) -> None:
        self.cluster = self.cluster or fake_cluster(self.clock)

    def replica(self, store: EngineStore, name: str, **settings: Any) -> Replica:
        assert self.cluster is not None
        engine = build_engine(
            store, self.clock, self.cluster, roomy(), replace(self.settings, **settings),
            replica=name, background=False, owns_store=False,
        )  # fmt: skip
        return Replica(engine, TestClient(create_app(engine)))

    def advance(self, seconds: float, *replicas: Replica) -> None:
        self.clock.advance(seconds)
        for r in replicas:
            r.step()
