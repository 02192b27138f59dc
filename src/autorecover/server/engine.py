"""The engine: one store, the intake, leadership, the hosted controllers and their runner.

Built by `wiring.build_engine` for `autorecover serve`, and directly by tests, which leave
`background` off and call `step()` on a virtual clock instead of running threads.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from autorecover.adapters.schedulers import PodLogSink
from autorecover.adapters.store.base import EngineStore
from autorecover.controllers.ports import Clock
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.server.alerting import Alerting
from autorecover.server.hosting import Service
from autorecover.server.housekeeping import housekeeping_service
from autorecover.server.intake import Intake
from autorecover.server.jobs_view import NO_JOBS, JobsView
from autorecover.server.leadership import Leadership
from autorecover.server.metrics import EngineMetrics
from autorecover.server.policies import Policies, load_policies
from autorecover.server.runner import ControllerLoop, Runner
from autorecover.server.schemas import Health

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """The engine's knobs (the recovery policies are `Policies`)."""

    dry_run: bool = False
    tick_s: float = 5.0
    reconcile_s: float = 60.0
    intake_s: float = 0.5
    lease_ttl_s: float = 15.0
    retry_s: float = 5.0  # after a failed pass, rebuild the controller this much later
    poll_s: float = 0.1  # how often each loop looks for due passes
    max_waiting: int = 10_000  # batches in the inbox before the intake answers 429
    max_in_flight: int = 32  # intake requests at once before it answers 503
    retry_after_s: int = 5
    max_body_bytes: int = 4 * 1024 * 1024  # a request body over this is refused (413)
    rate_per_s: float = 20.0  # requests a second per client under /api/ (0: no limit)
    rate_burst: int = 200
    intake_chunk: int = 500  # batches per transaction while draining the inbox
    intake_budget_s: float = 2.0  # one intake pass drains for at most this long
    fleet_size: int | None = None  # the breaker's fleet; None: nodes on record or in topology
    retain_signals_days: float = 30.0  # agent signals older than this are forgotten (0: never)


class Engine:
    """Everything `autorecover serve` runs, around one store."""

    def __init__(
        self,
        *,
        store: EngineStore,
        clock: Clock,
        leadership: Leadership,
        services: Sequence[Service],
        settings: EngineSettings | None = None,
        policies: Policies | None = None,
        jobs: JobsView = NO_JOBS,
        metrics: EngineMetrics | None = None,
        background: bool = True,
        owns_store: bool = False,
        alerting: Alerting | None = None,
        topology: Topology = NO_TOPOLOGY,
        pod_logs: PodLogSink | None = None,
    ) -> None:
        self.store, self.clock, self.leadership = store, clock, leadership
        self.topology = topology  # the failure domains, as hardware recovery sees them
        self.settings = s = settings or EngineSettings()
        self.policies = policies or load_policies()
        self.jobs = jobs
        self.pod_logs = pod_logs  # job output node agents read on their node (Kubernetes)
        self.metrics = metrics or EngineMetrics()
        self.metrics.watch_store(store, lambda: leadership.fence() is not None, jobs)
        self.alerting = alerting
        if alerting is not None:
            self.metrics.watch_alerts(alerting, lambda: leadership.fence() is not None)
        self.intake = Intake(
            store, clock, self.metrics, max_waiting=s.max_waiting,
            max_in_flight=s.max_in_flight, retry_after_s=s.retry_after_s,
        )  # fmt: skip
        if s.retain_signals_days > 0:
            keeping = housekeeping_service(store, clock, self.metrics, s.retain_signals_days)
            services = [*services, keeping]
        self.loops = [
            ControllerLoop(x, leadership, clock, self.metrics, s.retry_s) for x in services
        ]
        self.runner = Runner(leadership, self.loops, renew_s=s.lease_ttl_s / 3, poll_s=s.poll_s)
        self.background, self._owns_store = background, owns_store

    def step(self) -> None:
        """One round of the runner (tests: on a virtual clock, no threads)."""
        self.runner.step()

    def start(self) -> None:
        """Run the controllers in the background (when `background`)."""
        if self.background:
            self.runner.start()

    def stop(self) -> None:
        """Finish the passes under way, give the lease up, close the store if ours."""
        if self.background:
            self.runner.stop()
        else:
            self.leadership.release()
        if self.alerting is not None:
            self.alerting.close()
        if self._owns_store:
            self.store.close()

    def health(self, check_store: bool) -> Health:
        """This replica's role, who leads, and (for readiness) whether the store answers."""
        role: Literal["leader", "standby"] = (
            "leader" if self.leadership.fence() is not None else "standby"
        )
        status: Literal["ok", "unavailable"] = "ok"
        acting: Literal["active", "paused"] = "active"
        detail = ""
        if check_store:
            try:
                self.store.ping()
                if self.store.controls().paused is not None:
                    acting = "paused"
            except Exception as exc:  # readiness reports any failure, whatever its kind
                status, detail = "unavailable", f"store: {exc}"
        return Health(
            status=status, role=role, replica=self.leadership.holder,
            leader=self.leadership.leader(), detail=detail, acting=acting,
        )  # fmt: skip
