"""The agent's loop: poll each probe on its interval, queue signals, flush them, save state.

`tick(now)` does one pass and returns what it did; `run` is the thin loop that calls it with
the real clock. Tests drive `tick` with explicit times, so no test sleeps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from autorecover.adapters.host.agent_state import StateFile
from autorecover.agent.acting.actor import Actor, ActorReport
from autorecover.agent.logs.shipping import LogShipper, ShipReport
from autorecover.agent.probes.base import NodeProbe, ProbeResult, ProbeStatus
from autorecover.agent.sending import Outbox

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Scheduled:
    """A probe and when it runs next."""

    probe: NodeProbe
    interval_s: float
    next_at: datetime | None = None
    last: ProbeResult | None = None


@dataclass(frozen=True, slots=True)
class TickReport:
    """What one tick did."""

    polled: tuple[ProbeResult, ...] = ()
    queued: int = 0
    sent: int = 0
    saved: bool = False
    acted: ActorReport | None = None
    shipped: ShipReport | None = None


@dataclass(slots=True)
class Agent:
    """Probes on timers feeding an outbox; state saved so restarts resume; orders acted on."""

    node: str
    probes: Sequence[Scheduled]
    outbox: Outbox
    state_file: StateFile | None = None
    save_every_s: float = 30.0
    actor: Actor | None = None  # runs the engine's orders for this node (None: no actions)
    logs: LogShipper | None = None  # reads watched jobs' container logs (None: not here)
    _next_save: datetime | None = field(default=None, init=False)

    def restore(self) -> None:
        """Put back each probe's saved cursors and baselines."""
        if self.state_file is None:
            return
        saved = self.state_file.load()
        for s in self.probes:
            state = saved.get(str(s.probe.kind))
            if isinstance(state, dict):
                s.probe.restore(state)

    def save(self) -> bool:
        """Write every probe's state now."""
        if self.state_file is None:
            return False
        state: dict[str, Any] = {str(s.probe.kind): s.probe.state() for s in self.probes}
        return self.state_file.save(state)

    def tick(self, now: datetime) -> TickReport:
        """Poll the probes that are due, queue their signals, send what is due."""
        polled: list[ProbeResult] = []
        queued = 0
        for s in self.probes:
            if s.next_at is not None and now < s.next_at:
                continue
            result = poll_safely(s.probe, now)
            s.last, s.next_at = result, now + timedelta(seconds=s.interval_s)
            self.outbox.add(result.signals)
            queued += len(result.signals)
            polled.append(result)
        try:
            sent = self.outbox.flush(now)
        except Exception:  # loop supervisor: an unexpected send failure must not stop probing
            log.exception("sending signals failed")
            sent = 0
        saved = False
        # Cursors are saved after their lines became signals in the outbox: a restart then
        # neither reads a line twice nor skips one (signals not yet sent live in memory only).
        if polled and (self._next_save is None or now >= self._next_save):
            saved = self.save()
            self._next_save = now + timedelta(seconds=self.save_every_s)
        acted = None
        if self.actor is not None:
            try:
                acted = self.actor.tick(now)
            except Exception:  # loop supervisor: a failing order pass must not stop probing
                log.exception("acting on orders failed")
        shipped = None
        if self.logs is not None:
            try:
                shipped = self.logs.tick(now)
            except Exception:  # loop supervisor: pod logs must not stop probing
                log.exception("shipping pod logs failed")
        return TickReport(tuple(polled), queued, sent, saved, acted, shipped)

    def next_wakeup(self, now: datetime) -> datetime:
        """The earliest time something is due."""
        times = [s.next_at or now for s in self.probes]
        if self.outbox.next_attempt is not None and len(self.outbox):
            times.append(self.outbox.next_attempt)
        if self.actor is not None:
            times.append(self.actor.next_wakeup(now))
        if self.logs is not None:
            times.append(self.logs.next_wakeup(now))
        return min(times, default=now + timedelta(seconds=1))

    def run(
        self,
        clock: Callable[[], datetime],
        wait: Callable[[float], bool],
        *,
        max_wait_s: float = 5.0,
    ) -> None:
        """Tick until `wait` returns True (a stop was asked for); save on the way out."""
        self.restore()
        while True:
            self.tick(clock())
            now = clock()
            delay = (self.next_wakeup(now) - now).total_seconds()
            if wait(min(max(delay, 0.05), max_wait_s)):
                break
        for s in self.probes:  # an orderly stop: the state saved now says so (probes/boots.py)
            stopping = getattr(s.probe, "stopping", None)
            if callable(stopping):
                stopping()
        self.save()
        self.outbox.flush(clock())
        for s in self.probes:
            s.probe.close()
        if self.logs is not None:
            self.logs.close()


def poll_safely(probe: NodeProbe, now: datetime) -> ProbeResult:
    """One probe's poll; a probe that raises is logged and reported as an error, never fatal."""
    try:
        return probe.poll(now)
    except Exception as exc:  # loop supervisor: one broken probe must not stop the others
        log.exception("probe %s failed", probe.kind)
        return ProbeResult(probe.kind, ProbeStatus.ERROR, (), f"{type(exc).__name__}: {exc}")
