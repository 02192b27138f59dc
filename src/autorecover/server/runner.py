"""The runner: one loop per hosted controller, passes on intervals, only while leading.

`step()` is one round, driven by the injected clock: tests call it directly, with no thread
and no sleep. `start()` runs the same steps on threads — one renewing the lease, one per
controller — until `stop()`, which lets each loop finish the pass it is in, then gives the
lease up so a standby takes over at once. A pass that raises is logged and counted, its
controller thrown away, and a fresh one built from the store after `retry_s`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from autorecover.controllers.ports import Clock
from autorecover.server.hosting import Hosted, Service
from autorecover.server.leadership import Leadership
from autorecover.server.metrics import EngineMetrics

log = logging.getLogger(__name__)


class ControllerLoop:
    """One hosted controller: built when leading, dropped when not or after a failure."""

    def __init__(
        self,
        service: Service,
        leadership: Leadership,
        clock: Clock,
        metrics: EngineMetrics,
        retry_s: float = 5.0,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.service, self._leadership, self._clock = service, leadership, clock
        self._metrics, self._retry, self._timer = metrics, timedelta(seconds=retry_s), timer
        self.hosted: Hosted | None = None
        self._term: int | None = None
        self._due: dict[str, datetime] = {}
        self._retry_at: datetime | None = None
        self.failures = 0

    def step(self) -> None:
        """Run whatever passes are due now (none while standing by)."""
        fence = self._leadership.fence()
        now = self._clock.now()
        if fence is None or fence.term != self._term:
            self._drop("not leading" if fence is None else "a new term")
        if fence is None or (self._retry_at is not None and now < self._retry_at):
            return
        if self.hosted is None:
            built: list[Hosted] = []
            if not self._pass("start", lambda: built.append(self._started(fence.term))):
                return
            self.hosted, self._term = built[0], fence.term
            self._due = {"intake": now, "tick": now}
            self._due["reconcile"] = now + timedelta(seconds=self.service.reconcile_s)
        hosted = self.hosted
        for name, every, run in (
            ("intake", self.service.intake_s, hosted.intake),
            ("tick", self.service.tick_s, hosted.tick),
            ("reconcile", self.service.reconcile_s, hosted.reconcile),
        ):
            if now >= self._due[name]:
                self._due[name] = now + timedelta(seconds=every)
                if not self._pass(name, run):
                    return

    def _started(self, term: int) -> Hosted:
        fence = self._leadership.fence()
        if fence is None or fence.term != term:
            raise RuntimeError("the lease went while building")
        hosted = self.service.build(fence)
        hosted.start()  # the reconcile pass that `start` ends with is the first one
        return hosted

    def _pass(self, name: str, run: Callable[[], object]) -> bool:
        started = self._timer()
        try:
            run()
        except Exception:  # a supervisor: log, count, rebuild from the store later
            log.exception("%s: %s pass failed; rebuilding from the store", self.service.name, name)
            self.failures += 1
            self._metrics.pass_failed(self.service.name, name)
            self._drop("failed")
            self._retry_at = self._clock.now() + self._retry
            return False
        finally:
            self._metrics.pass_took(self.service.name, name, self._timer() - started)
        self._retry_at = None
        return True

    def _drop(self, why: str) -> None:
        if self.hosted is not None:
            log.info("%s: controller dropped (%s)", self.service.name, why)
        self.hosted, self._term = None, None


class Runner:
    """The leadership renewal and every controller loop."""

    def __init__(
        self,
        leadership: Leadership,
        loops: Sequence[ControllerLoop],
        *,
        renew_s: float = 5.0,
        poll_s: float = 0.1,
    ) -> None:
        self.leadership, self.loops = leadership, list(loops)
        self.renew_s, self.poll_s = renew_s, poll_s
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def step(self) -> None:
        """One round: renew the lease, then each loop's due passes."""
        self.leadership.renew()
        for loop in self.loops:
            loop.step()

    def start(self) -> None:
        """Run on threads until `stop()`."""
        self._stop.clear()
        self.leadership.renew()
        targets: list[tuple[str, Callable[[], None], Callable[[], float]]] = [
            ("lease", self.leadership.renew, self._next_renew_s)
        ]
        targets += [(loop.service.name, loop.step, self._poll_s) for loop in self.loops]
        for name, step, every in targets:
            thread = threading.Thread(
                target=self._forever, args=(step, every), name=f"autorecover-{name}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _poll_s(self) -> float:
        return self.poll_s

    def _next_renew_s(self) -> float:
        # The lease loop renews every `renew_s`, and a standby sooner: just after the lease
        # it saw runs out (a killed leader is replaced one TTL after its last renewal).
        return min(self.renew_s, self.leadership.next_renew_s())

    def _forever(self, step: Callable[[], None], every_s: Callable[[], float]) -> None:
        while not self._stop.is_set():
            try:
                step()
            except Exception:  # the loop must outlive any one round
                log.exception("runner round failed")
            self._stop.wait(every_s())

    def stop(self, timeout_s: float = 30.0) -> None:
        """Finish the passes under way, then give the lease up."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads.clear()
        self.leadership.release()
