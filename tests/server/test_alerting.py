"""The alerting pass hosted by the engine on a virtual clock: a node handed to a person fires
and resolves when released; the breaker fires and resolves when reset; a node out too long;
only the leader speaks; metrics show what fires and how delivery goes."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from autorecover.adapters.fakes.cluster import FakeClock, FakeNotifier
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.domain.alerts import AlertName, AlertSettings
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.alerting import AlertConfig, Alerting, open_alerting
from autorecover.server.engine import Engine
from autorecover.server.hosting import HostedHardware
from autorecover.server.policies import Policies
from autorecover.server.wiring import build_engine, fake_cluster
from server.support import SETTINGS, document, rig_client, roomy, xid79


def inspect(node: str, clock: FakeClock) -> NodeSignal:
    """A fault whose evidence asks for a person (cables, mechanicals)."""
    return NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.INSPECT, clock.now(),
        component="0000:3b:00.0", text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
    )  # fmt: skip


class Rig:
    """One engine (or two sharing a file) with a recording notifier behind the alerting pass."""

    def __init__(self, tmp_path: Path, policies: Policies | None = None, **settings: Any) -> None:
        self.clock = FakeClock()
        self.cluster = fake_cluster(self.clock)
        self.path, self.policies = tmp_path / "engine.db", policies or roomy()
        self.config = AlertConfig(settings=AlertSettings(**settings), every_s=1)

    def engine(self, name: str = "a", alerting: Alerting | None = None) -> tuple[Engine, Any]:
        notifier = FakeNotifier()
        alerting = alerting or Alerting(notifier, [], self.config)
        engine = build_engine(
            SqliteStore(self.path), self.clock, self.cluster, self.policies, SETTINGS,
            replica=name, background=False, alerting=alerting,
        )  # fmt: skip
        return engine, notifier

    def post(self, engine: Engine, *signals: NodeSignal) -> None:
        for s in signals:
            doc = document(s.node, s, clock=self.clock)
            assert rig_client(engine).post("/api/v1/signals", json=doc).status_code == 202

    def run(self, seconds: float, *engines: Engine, every: float = 10) -> None:
        for _ in range(int(seconds / every)):
            self.clock.advance(every)
            for e in engines:
                e.step()


def hardware(engine: Engine) -> HardwareController:
    hosted = engine.loops[0].hosted
    assert isinstance(hosted, HostedHardware)
    return hosted.controller


def test_a_node_for_a_person_fires_and_resolves_when_released(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    engine, notifier = rig.engine()
    engine.step()
    rig.post(engine, inspect("n1", rig.clock))
    rig.run(60, engine)
    assert engine.store.node_views()[0].record.state == "needs_attention"
    [alert] = notifier.alerts.values()
    assert alert.name is AlertName.NODE_NEEDS_ATTENTION and alert.node == "n1"
    assert alert.incident and alert.labels()["incident"] == alert.incident
    assert not notifier.resolved
    hardware(engine).release("n1", "person:alice", "reseated the GPU")
    rig.run(60, engine)
    assert engine.store.node_views()[0].record.state == "healthy"
    assert list(notifier.resolved) == [alert.id]
    engine.stop()


def test_the_breaker_fires_and_resolves_when_reset(tmp_path: Path) -> None:
    base = roomy()
    policy = base.hardware
    tight = replace(base, hardware=replace(policy, breaker=replace(policy.breaker, max_nodes=1)))
    rig = Rig(tmp_path, tight)
    engine, notifier = rig.engine()
    engine.step()
    rig.post(engine, xid79("n1", rig.clock), xid79("n2", rig.clock))
    rig.run(10, engine)
    assert engine.store.breaker_state().tripped
    [alert] = [a for a in notifier.alerts.values() if a.name is AlertName.BREAKER_TRIPPED]
    assert alert.labels()["severity"] == "critical"
    hardware(engine).reset_breaker("person:bob", "checked: a bad batch of agents")
    rig.run(10, engine)
    assert list(notifier.resolved) == [alert.id]
    engine.stop()


def test_a_node_out_longer_than_its_budget_fires_then_resolves_on_return(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path, out_of_service_budget=timedelta(seconds=15))
    engine, notifier = rig.engine()
    engine.step()
    rig.post(engine, xid79("n1", rig.clock))
    rig.run(10, engine)  # out since this pass
    assert not notifier.alerts
    rig.run(20, engine)
    [alert] = notifier.alerts.values()
    assert alert.name is AlertName.NODE_OUT_TOO_LONG and alert.node == "n1"
    rig.run(120, engine)
    assert engine.store.node_views()[0].record.state == "healthy"
    assert list(notifier.resolved) == [alert.id]
    engine.stop()


def test_only_the_leader_sends(tmp_path: Path) -> None:
    rig = Rig(tmp_path, out_of_service_budget=timedelta(seconds=5))
    a, sent_a = rig.engine("a")
    b, sent_b = rig.engine("b")
    a.step()
    b.step()
    rig.post(a, xid79("n1", rig.clock))
    rig.run(20, a, b)
    assert sent_a.alerts and not sent_b.alerts
    a.stop()  # gives the lease up: b leads on its next round and speaks from then on
    rig.run(10, b)
    assert set(sent_b.alerts) == set(sent_a.alerts)
    b.stop()


def test_metrics_show_alerts_firing_the_budget_and_delivery(tmp_path: Path) -> None:
    rig = Rig(tmp_path, out_of_service_budget=timedelta(seconds=5))
    config = replace(rig.config, webhooks=("http://127.0.0.1:9/hook",))
    engine, _ = rig.engine(alerting=open_alerting(config, rig.clock))
    engine.step()
    rig.post(engine, xid79("n1", rig.clock))
    rig.run(20, engine)
    text = rig_client(engine).get("/metrics").text
    assert 'autorecover_alerts_firing{alertname="AutorecoverNodeOutOfServiceTooLong"} 1.0' in text
    assert "autorecover_out_of_service_budget_seconds 5.0" in text
    assert 'autorecover_node_out_since_timestamp_seconds{node="n1"}' in text
    receiver = 'receiver="webhook http://127.0.0.1:9/hook"'
    for name in ("sent_total", "failed_total", "dropped_total", "retries_total", "queued"):
        assert f"autorecover_alerts_{name}{{{receiver}}}" in text
    engine.stop()


def test_serve_refuses_a_bad_receiver_url_or_an_empty_secret_naming_the_flag(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from autorecover.cli.engine import serve_cmd

    runner = CliRunner()
    # auth is not what is tested here; a named scheduler: `auto` would look for a cluster
    base = ["--scheduler", "fake", "--store", "memory://", "--insecure-no-auth"]
    bad = runner.invoke(serve_cmd, [*base, "--alertmanager-url", "am:9093"])
    assert bad.exit_code != 0 and "--alertmanager-url 'am:9093'" in bad.output
    empty = tmp_path / "secret"
    empty.write_text("\n")
    args = [*base, "--alert-webhook", "https://hooks.example/ar",
            "--alert-webhook-secret-file", str(empty)]  # fmt: skip
    refused = runner.invoke(serve_cmd, args)
    assert refused.exit_code != 0 and "the file is empty" in refused.output
    link = runner.invoke(serve_cmd, [*base, "--external-url", "ar.example"])
    assert link.exit_code != 0 and "--external-url 'ar.example'" in link.output
    zero = runner.invoke(serve_cmd, [*base, "--alert-out-of-service-s", "0"])
    assert zero.exit_code == 2 and "--alert-out-of-service-s" in zero.output
