"""Prometheus metrics, in the engine's own registry (never the global one).

What the store knows is read from the store at scrape time, so every replica — leader or
standby, freshly restarted or not — reports the same fleet: nodes by state, the breaker,
waiting batches, incidents by cause and the recovery-time histogram (folded in
incrementally from the transitions table, so a scrape reads only what is new) and when each
node now out of service left it. What only this process knows is counted here: intake
outcomes, pass durations and failures, the alerts firing and their delivery.
"""

from __future__ import annotations

import threading
from collections import Counter as Tally
from collections.abc import Callable, Iterator
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from autorecover.adapters.store.base import EngineStore
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.server.alerting import Alerting
from autorecover.server.jobs_view import NO_JOBS, JobsView

RECOVERY_BUCKETS_S = (60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 43200.0, 86400.0)
PASS_BUCKETS_S = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class StoreCollector(Collector):
    """Fleet metrics read from the store at each scrape."""

    def __init__(
        self, store: EngineStore, leading: Callable[[], bool], jobs: JobsView = NO_JOBS
    ) -> None:
        self._store, self._leading, self._jobs = store, leading, jobs
        self._lock = threading.Lock()
        self._after = 0  # the last transition folded in
        self._left: dict[str, datetime] = {}  # node -> when it last left healthy
        self._incidents: set[str] = set()
        self._causes: Tally[str] = Tally()
        self._buckets = [0] * (len(RECOVERY_BUCKETS_S) + 1)
        self._sum = 0.0

    def collect(self) -> Iterator[Metric]:
        """Every metric the store answers."""
        views = self._store.node_views()
        states = Tally(v.record.state for v in views)
        nodes = GaugeMetricFamily(
            "autorecover_nodes", "Nodes by hardware-recovery state.", labels=["state"]
        )
        for state in NodeState:
            nodes.add_metric([state.value], states[state])
        yield nodes
        breaker = self._store.breaker_state()
        yield GaugeMetricFamily(
            "autorecover_breaker_tripped",
            "1 while the circuit breaker refuses new quarantines.",
            value=1 if breaker.tripped else 0,
        )
        yield GaugeMetricFamily(
            "autorecover_dry_run_breaker_tripped",
            "1 while dry-run's would-have breaker is tripped (the live one is not touched).",
            value=1 if self._store.breaker_state(dry_run=True).tripped else 0,
        )
        controls = self._store.controls()
        yield GaugeMetricFamily(
            "autorecover_acting_paused",
            "1 while a person has paused all acting (decisions held, nothing executed).",
            value=int(controls.paused is not None),
        )
        yield GaugeMetricFamily(
            "autorecover_maintenance_targets",
            "Nodes and failure domains a person holds in maintenance (hands off).",
            value=len(controls.maintenance),
        )
        yield GaugeMetricFamily(
            "autorecover_intake_waiting",
            "Agent batches acknowledged and not yet recorded by a pass.",
            # The span of waiting ids, not COUNT(*): a scrape reading 100,000 waiting batches
            # would hold the store from the leader draining them.
            value=self._store.backlog(),
        )
        yield GaugeMetricFamily(
            "autorecover_dead_letters",
            "Agent batches a pass could not record, set aside with their error.",
            value=self._store.dead_letter_count(),
        )
        yield GaugeMetricFamily(
            "autorecover_leader", "1 on the replica that leads.", value=int(self._leading())
        )
        yield from self._history()

    def _history(self) -> Iterator[Metric]:
        with self._lock:
            while batch := self._store.transitions_after(self._after):
                for pos, t in batch:
                    self._after = pos
                    if t.incident and t.incident not in self._incidents:
                        self._incidents.add(t.incident)
                        self._causes["hardware"] += 1  # a node fault; job incidents have causes
                    if t.frm is NodeState.HEALTHY:
                        self._left[t.node] = t.at
                    elif t.to is NodeState.HEALTHY and t.node in self._left:
                        self._observe((t.at - self._left.pop(t.node)).total_seconds())
            incidents = CounterMetricFamily(
                "autorecover_incidents",
                "Incidents opened, by the service that opened them and their cause.",
                labels=["source", "cause"],
            )
            causes = Tally({("hardware", c): n for c, n in self._causes.items()})
            causes.update(("jobs", i.cause) for i in self._jobs.incidents())
            for (source, cause), count in sorted(causes.items()):
                incidents.add_metric([source, cause], count)
            out_since = GaugeMetricFamily(
                "autorecover_node_out_since_timestamp_seconds",
                "When each node now out of service left it (Unix time); only nodes out.",
                labels=["node"],
            )
            for node, at in sorted(self._left.items()):
                out_since.add_metric([node], at.timestamp())
            recovery = HistogramMetricFamily(
                "autorecover_recovery_seconds",
                "From a node leaving service to its return, by hardware recovery.",
                buckets=self._cumulative(),
                sum_value=self._sum,
            )
        yield incidents
        yield recovery
        yield out_since

    def _observe(self, seconds: float) -> None:
        i = next((i for i, b in enumerate(RECOVERY_BUCKETS_S) if seconds <= b), -1)
        self._buckets[i] += 1
        self._sum += seconds

    def _cumulative(self) -> list[tuple[str, float]]:
        out, total = [], 0
        for bound, count in zip((*RECOVERY_BUCKETS_S, float("inf")), self._buckets, strict=True):
            total += count
            out.append(("+Inf" if bound == float("inf") else repr(bound), float(total)))
        return out


class AlertsCollector(Collector):
    """The alerting pass's findings (on the leader) and each receiver's delivery counts."""

    def __init__(self, alerting: Alerting, leading: Callable[[], bool]) -> None:
        self._alerting, self._leading = alerting, leading

    def collect(self) -> Iterator[Metric]:
        """Alerts firing by name, the out-of-service budget, the senders' counts."""
        firing = GaugeMetricFamily(
            "autorecover_alerts_firing",
            "Alerts firing, by alertname, as the leader's last alerting pass derived them.",
            labels=["alertname"],
        )
        if self._leading():
            for name, count in sorted(Tally(a.name for a in self._alerting.firing).items()):
                firing.add_metric([str(name)], count)
        yield firing
        yield GaugeMetricFamily(
            "autorecover_out_of_service_budget_seconds",
            "How long a node may stay out of service before it is alerted on.",
            value=self._alerting.config.settings.out_of_service_budget.total_seconds(),
        )
        stats = self._alerting.stats()
        for field, kind, text in _SENDER_METRICS:
            family: CounterMetricFamily | GaugeMetricFamily = (
                CounterMetricFamily(f"autorecover_alerts_{field}", text, labels=["receiver"])
                if kind == "counter"
                else GaugeMetricFamily(f"autorecover_alerts_{field}", text, labels=["receiver"])
            )
            for s in stats:
                family.add_metric([s.receiver], getattr(s, field))
            yield family


_SENDER_METRICS = (
    ("sent", "counter", "Alert messages delivered, by receiver."),
    ("failed", "counter", "Alert messages given up (refused, or retries spent), by receiver."),
    ("dropped", "counter", "Alert messages dropped because the receiver's outbox was full."),
    ("retries", "counter", "Deliveries tried again after a receiver was away, by receiver."),
    ("queued", "gauge", "Alert messages waiting to be delivered, by receiver."),
)


class EngineMetrics:
    """The engine's registry: process counters plus the store collector."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._batches = Counter(
            "autorecover_intake_batches",
            "Agent batches received, by outcome (accepted, full, busy, unavailable, invalid).",
            ["outcome"],
            registry=self.registry,
        )
        self._signals = Counter(
            "autorecover_intake_signals", "Signals accepted.", registry=self.registry
        )
        self._excerpts = Counter(
            "autorecover_pod_log_excerpts",
            "Pod-log excerpts agents shipped, by outcome (taken; ignored: not watched here).",
            ["outcome"],
            registry=self.registry,
        )
        self._excerpt_bytes = Counter(
            "autorecover_pod_log_excerpt_bytes", "Bytes of excerpts taken.", registry=self.registry
        )
        self._passes = Histogram(
            "autorecover_pass_seconds",
            "Controller pass durations.",
            ["controller", "pass"],
            buckets=PASS_BUCKETS_S,
            registry=self.registry,
        )
        self._clock_offset = Gauge(
            "autorecover_agent_clock_offset_seconds",
            "When the engine received a node's last batch minus when its agent says it sent it "
            "(the node's clock error plus transit; beyond 30 s its signals' times are moved).",
            ["node"],
            registry=self.registry,
        )
        self._clock_measured = Gauge(
            "autorecover_agent_clock_measured_timestamp_seconds",
            "When this replica last measured a node's clock (its agent's batches, heartbeats "
            "included, carry the time they were sent): an offset older than this is stale.",
            ["node"],
            registry=self.registry,
        )
        self._pruned = Counter(
            "autorecover_signals_pruned",
            "Recorded agent signals forgotten past the retention (serve --retain-signals-days).",
            registry=self.registry,
        )
        self._failures = Counter(
            "autorecover_pass_failures",
            "Controller passes that raised (the controller is rebuilt from the store).",
            ["controller", "pass"],
            registry=self.registry,
        )

    def watch_store(
        self, store: EngineStore, leading: Callable[[], bool], jobs: JobsView = NO_JOBS
    ) -> None:
        """Also report what the store (and job recovery's store) knows."""
        self.registry.register(StoreCollector(store, leading, jobs))

    def watch_alerts(self, alerting: Alerting, leading: Callable[[], bool]) -> None:
        """Also report the alerts firing and how their delivery goes."""
        self.registry.register(AlertsCollector(alerting, leading))

    def intake(self, outcome: str, signals: int = 0) -> None:
        """Count one intake request."""
        self._batches.labels(outcome).inc()
        if signals:
            self._signals.inc(signals)

    def agent_clock(self, node: str, offset_s: float, measured_at: datetime) -> None:
        """Record how far behind (positive) or ahead a node's agent clock was, last batch."""
        self._clock_offset.labels(node).set(offset_s)
        self._clock_measured.labels(node).set(measured_at.timestamp())

    def signals_pruned(self, count: int) -> None:
        """Count signals the retention pass deleted."""
        self._pruned.inc(count)

    def pod_log_excerpts(self, taken: int, ignored: int, size: int) -> None:
        """Count one post of pod-log excerpts."""
        self._excerpts.labels("taken").inc(taken)
        self._excerpts.labels("ignored").inc(ignored)
        self._excerpt_bytes.inc(size)

    def pass_took(self, controller: str, name: str, seconds: float) -> None:
        """Observe one pass's duration."""
        self._passes.labels(controller, name).observe(seconds)

    def pass_failed(self, controller: str, name: str) -> None:
        """Count one failed pass."""
        self._failures.labels(controller, name).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
