"""Alerts in the engine: where they go (`AlertConfig`), the senders it owns (`Alerting`), the
facts read from the store (`StoreFacts`) and the alerting pass the runner hosts on the leader.

`serve --alertmanager-url` and `--alert-webhook` name the receivers; each gets a bounded
outbox and its own sender thread (`adapters.alerting.sending`), behind one fan-out that also
logs. The pass (`controllers.alerting.Alerter`) runs only while this replica leads, so one
replica speaks for the engine; the senders outlive terms and are closed with the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from autorecover.adapters.alerting.alertmanager import AlertmanagerDelivery
from autorecover.adapters.alerting.sending import Outbox, QueuedNotifier, SenderStats
from autorecover.adapters.alerting.webhook import WebhookDelivery
from autorecover.adapters.notifiers import FanOut, LogNotifier
from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.controllers.alerting import Alerter
from autorecover.controllers.jobs.ports import JobStorePort
from autorecover.controllers.jobs.records import IncidentPhase
from autorecover.controllers.ports import Alert, Clock, Notifier
from autorecover.domain.alerting import Facts, JobFact, NodeFact
from autorecover.domain.alerts import AlertSettings
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.records import Action
from autorecover.server.hosting import Hosted, Service

_HEALTHY = NodeState.HEALTHY


@dataclass(frozen=True, slots=True)
class AlertConfig:
    """Where the engine's alerts go, and the alerting settings."""

    alertmanagers: tuple[str, ...] = ()
    webhooks: tuple[str, ...] = ()
    webhook_secret: bytes | None = None
    settings: AlertSettings = field(default_factory=AlertSettings)
    every_s: float = 15.0  # how often the leader derives the alerts
    capacity: int = 10_000  # alerts waiting per receiver before new ones are dropped

    def __post_init__(self) -> None:
        if self.every_s <= 0 or self.capacity < 1:
            raise ValueError("alerting: every_s must be positive and capacity at least 1")

    @property
    def expire_s(self) -> float:
        """How long Alertmanager keeps a firing alert nobody repeats: four repeats' worth."""
        return 4 * max(self.settings.resend.total_seconds(), self.every_s)


class Alerting:
    """The notifier the alerting pass sends through, and the senders behind it."""

    def __init__(
        self, notifier: Notifier, senders: Sequence[QueuedNotifier], config: AlertConfig
    ) -> None:
        self.notifier, self.senders, self.config = notifier, tuple(senders), config
        self.firing: tuple[Alert, ...] = ()  # as the last pass on this replica derived them

    def stats(self) -> list[SenderStats]:
        """Each receiver's counts."""
        return [s.stats() for s in self.senders]

    def close(self, timeout_s: float = 5.0) -> None:
        """Deliver what is due, then stop the senders."""
        for sender in self.senders:
            sender.close(timeout_s)


def open_alerting(config: AlertConfig, clock: Clock) -> Alerting:
    """The log plus one queued sender per Alertmanager and per webhook (ValueError names a
    bad URL)."""
    deliveries: list[AlertmanagerDelivery | WebhookDelivery] = [
        AlertmanagerDelivery(url, clock, expire_s=config.expire_s) for url in config.alertmanagers
    ]
    deliveries += [
        WebhookDelivery(url, clock, secret=config.webhook_secret) for url in config.webhooks
    ]
    senders = [QueuedNotifier(Outbox(d, capacity=config.capacity)) for d in deliveries]
    return Alerting(FanOut([LogNotifier(), *senders]), senders, config)


class StoreFacts:
    """The facts alerts are derived from, read from the engine's (and job recovery's) store.

    When each node last left service is folded in from the transitions table incrementally,
    as the metrics do, so a pass reads only what is new.
    """

    def __init__(
        self, store: EngineStore, topology: Topology = NO_TOPOLOGY, jobs: JobStorePort | None = None
    ) -> None:
        self._store, self._topology, self._jobs = store, topology, jobs
        self._after = 0
        self._left: dict[str, datetime] = {}

    def facts(self) -> Facts:
        """Nodes out of service, the breaker, open domain incidents, stopped jobs."""
        while batch := self._store.transitions_after(self._after):
            for pos, t in batch:
                self._after = pos
                if t.frm is _HEALTHY:
                    self._left[t.node] = t.at
                elif t.to is _HEALTHY:
                    self._left.pop(t.node, None)
        nodes = tuple(
            NodeFact(
                r.node, r.state, r.since, r.seq, min(self._left.get(r.node, r.since), r.since),
                r.reason, r.incident, tuple(str(d) for d in self._topology.of(r.node)),
            )
            for r in (v.record for v in self._store.node_views())
            if r.state is not _HEALTHY
        )  # fmt: skip
        domains = tuple(i for i in self._store.domain_incidents() if i.closed_at is None)
        jobs, latest = self._job_facts()
        return Facts(nodes, self._store.breaker_state(), domains, jobs, latest)

    def _job_facts(self) -> tuple[tuple[JobFact, ...], dict[str, int]]:
        if self._jobs is None:
            return (), {}
        found: list[JobFact] = []
        latest: dict[str, int] = {}
        for i in self._jobs.incidents():
            latest[i.job] = max(latest.get(i.job, 0), i.attempt)
            at = i.closed_at or i.opened_at
            if i.phase is IncidentPhase.FAILED:
                found.append(JobFact(i.job, i.id, i.attempt, at, i.outcome, True, i.nodes))
            elif (
                i.phase is IncidentPhase.CLOSED
                and i.outcome == "stopped"
                and i.decided is not None
                and i.decided.action is Action.STOP
            ):
                why = f"{i.decided.reason}. {i.summary}".strip(". ")
                found.append(JobFact(i.job, i.id, i.attempt, at, why, False, i.nodes))
        return tuple(found), latest


class HostedAlerts:
    """The alerting pass as the runner drives it: every tick derives and sends."""

    def __init__(self, alerter: Alerter, alerting: Alerting) -> None:
        self.alerter, self._alerting = alerter, alerting

    def start(self) -> None:
        """The first pass of a term sends every firing alert."""
        self.tick()

    def intake(self) -> int:
        """Nothing to take in."""
        return 0

    def tick(self) -> None:
        """Derive the alerts, send what changed and what is due again."""
        self._alerting.firing = self.alerter.run_once().firing

    def reconcile(self) -> None:
        """Every tick is level-triggered already."""


def alerts_service(
    store: EngineStore,
    alerting: Alerting,
    clock: Clock,
    topology: Topology = NO_TOPOLOGY,
    jobs: JobStorePort | None = None,
) -> Service:
    """The alerting pass, built afresh each term (what it sent is remembered per term)."""
    facts = StoreFacts(store, topology, jobs)
    config = alerting.config

    def build(fence: Fence) -> Hosted:
        return HostedAlerts(Alerter(facts, alerting.notifier, clock, config.settings), alerting)

    every = config.every_s
    return Service("alerts", build, tick_s=every, reconcile_s=3600.0, intake_s=every)
