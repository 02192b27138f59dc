"""Alerts against a real Alertmanager: what we fire is listed with our labels, a resolution
takes it away, the same alert twice is one alert, and Alertmanager routes our alert to a
webhook — first through the sender alone, then from the engine's alerting pass."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from autorecover.adapters.alerting.alertmanager import AlertmanagerDelivery
from autorecover.adapters.alerting.sending import Outbox, QueuedNotifier
from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.ports import Alert
from autorecover.domain.alerts import AlertName, AlertSettings, Severity
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.alerting import AlertConfig, open_alerting
from autorecover.server.hosting import HostedHardware
from autorecover.server.wiring import build_engine, fake_cluster
from autorecover.testing.alertmanager import Alertmanager, WebhookSink
from server.support import SETTINGS, document, rig_client, roomy


def until(found: Callable[[], Any], what: str, timeout_s: float = 20.0) -> Any:
    """Poll until `found()` is truthy; its value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout_s:g} s: {what}")


def our(am: Alertmanager, name: str) -> list[dict[str, Any]]:
    return [a for a in am.alerts() if a["labels"].get("alertname") == name]


def node_alert(node: str = "n1") -> Alert:
    return Alert(
        f"{AlertName.NODE_NEEDS_ATTENTION}/{node}/3", datetime.now(UTC) - timedelta(minutes=2),
        f"node {node} needs a person: drain timed out", node, f"hw/{node}/x",
        name=AlertName.NODE_NEEDS_ATTENTION, severity=Severity.WARNING, domain="rack:r1",
        description="repair it, then release it", link=f"http://ar.example/api/v1/nodes/{node}",
    )  # fmt: skip


def sender(am: Alertmanager) -> QueuedNotifier:
    return QueuedNotifier(Outbox(AlertmanagerDelivery(am.url, SystemClock(), expire_s=240)))


def test_alertmanager_lists_a_fired_alert_with_our_labels(alertmanager: Alertmanager) -> None:
    notifier, alert = sender(alertmanager), node_alert()
    notifier.alert(alert)
    [listed] = until(lambda: our(alertmanager, AlertName.NODE_NEEDS_ATTENTION), "alert listed")
    notifier.close()
    assert listed["labels"] == alert.labels()
    assert listed["labels"]["node"] == "n1" and listed["labels"]["failure_domain"] == "rack:r1"
    assert listed["annotations"] == alert.annotations()
    assert listed["status"]["state"] == "active" and listed["generatorURL"] == alert.link
    assert listed["fingerprint"]  # Alertmanager's own, from the labels
    assert notifier.stats().sent == 1 and notifier.stats().failed == 0


def test_alertmanager_resolves_what_we_resolve(
    alertmanager: Alertmanager, sink: WebhookSink
) -> None:
    notifier, alert = sender(alertmanager), node_alert()
    notifier.alert(alert)
    until(lambda: our(alertmanager, AlertName.NODE_NEEDS_ATTENTION), "alert listed")
    sink.wait_for(lambda body: body["status"] == "firing")
    notifier.alert(alert.ended(datetime.now(UTC)))
    until(lambda: not our(alertmanager, AlertName.NODE_NEEDS_ATTENTION), "alert gone")
    resolved = sink.wait_for(lambda body: body["status"] == "resolved")
    notifier.close()
    [entry] = resolved["alerts"]
    assert entry["status"] == "resolved" and entry["labels"] == alert.labels()


def test_alertmanager_keeps_one_alert_for_the_same_alert_sent_twice(
    alertmanager: Alertmanager, sink: WebhookSink
) -> None:
    notifier, alert = sender(alertmanager), node_alert()
    notifier.alert(alert)
    until(lambda: notifier.stats().sent == 1, "first delivered")
    notifier.alert(alert)  # the alerting pass repeats a firing alert
    until(lambda: notifier.stats().sent == 2, "repeat delivered")
    notifier.alert(node_alert("n2"))
    until(lambda: len(alertmanager.alerts()) == 2, "both nodes listed")
    notifier.close()
    assert len(our(alertmanager, AlertName.NODE_NEEDS_ATTENTION)) == 2
    assert len([a for a in alertmanager.alerts() if a["labels"]["node"] == "n1"]) == 1
    time.sleep(2.5)  # two group intervals: a repeat inside repeat_interval notifies nobody
    firing_n1 = [
        b for b in sink.received
        if b["status"] == "firing" and b["groupLabels"].get("node") == "n1"
    ]  # fmt: skip
    assert len(firing_n1) == 1


def test_alertmanager_routes_our_alert_to_its_webhook_receiver(
    alertmanager: Alertmanager, sink: WebhookSink
) -> None:
    notifier, alert = sender(alertmanager), node_alert()
    notifier.alert(alert)
    body = sink.wait_for(lambda b: b["status"] == "firing")
    notifier.close()
    assert body["receiver"] == "test" and body["version"] == "4"
    assert body["groupLabels"] == {"alertname": "AutorecoverNodeNeedsAttention", "node": "n1"}
    [entry] = body["alerts"]
    assert entry["labels"] == alert.labels() and entry["annotations"]["summary"] == alert.summary
    assert entry["generatorURL"] == alert.link


def test_the_engine_alerts_alertmanager_and_resolves_on_release(
    alertmanager: Alertmanager, sink: WebhookSink, tmp_path: Path
) -> None:
    """A node whose evidence asks for a person: the engine's pass fires; release resolves."""
    clock = FakeClock(datetime.now(UTC) - timedelta(minutes=10))  # virtual, in the past
    config = AlertConfig(alertmanagers=(alertmanager.url,), settings=AlertSettings(), every_s=1)
    alerting = open_alerting(config, SystemClock())  # Alertmanager's expiries: its own time
    engine = build_engine(
        SqliteStore(tmp_path / "engine.db"), clock, fake_cluster(clock), roomy(), SETTINGS,
        replica="a", background=False, alerting=alerting,
    )  # fmt: skip
    engine.step()
    signal = NodeSignal(
        "n1", Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.INSPECT, clock.now(),
        text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
    )  # fmt: skip
    doc = document("n1", signal, clock=clock)
    assert rig_client(engine).post("/api/v1/signals", json=doc).status_code == 202
    for _ in range(6):
        clock.advance(10)
        engine.step()
    [listed] = until(lambda: our(alertmanager, AlertName.NODE_NEEDS_ATTENTION), "alert listed")
    assert listed["labels"]["node"] == "n1" and listed["labels"]["incident"].startswith("hw/n1/")
    routed = sink.wait_for(lambda b: b["status"] == "firing")
    assert routed["alerts"][0]["labels"] == listed["labels"]
    hosted = engine.loops[0].hosted
    assert isinstance(hosted, HostedHardware)
    controller: HardwareController = hosted.controller
    controller.release("n1", "person:alice", "reseated the GPU")
    for _ in range(6):
        clock.advance(10)
        engine.step()
    until(lambda: not our(alertmanager, AlertName.NODE_NEEDS_ATTENTION), "alert resolved")
    sink.wait_for(lambda b: b["status"] == "resolved")
    [stats] = alerting.stats()
    engine.stop()
    assert stats.sent >= 2 and stats.failed == 0 and stats.dropped == 0
