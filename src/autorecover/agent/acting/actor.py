"""The actor: polls this node's orders, runs each exactly once, reports running then the end.

`tick(now)` does one pass (the agent's daemon calls it); nothing here sleeps or reads a
clock. Polling backs off when the engine is away; a report the engine did not take stays in
the journal and is sent again later; a report the engine refuses for good (409: it moved
on; 403, 404) closes the order without further reports.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from autorecover.adapters.http.orders_client import AgentOrder, OrderGoneError, report_document
from autorecover.agent.acting.commands import Commands, command_line
from autorecover.agent.acting.executing import AWAIT_REBOOT, Step, dry_run, plan, screen
from autorecover.agent.acting.journal import (
    KEEP_CLOSED,
    Entry,
    Journal,
    Outcome,
    Phase,
    StepRecord,
    with_step,
)
from autorecover.agent.acting.running import Interrupted, Processes, StillRunning, look
from autorecover.controllers.ports import PermanentError, TransientError

log = logging.getLogger(__name__)
CHECK_EVERY_S = 0.5  # how often a running step is looked at


class OrdersPort(Protocol):
    """The engine's orders (adapters.http.orders_client.OrdersClient)."""

    def fetch(self, node: str) -> list[AgentOrder]:
        """The node's queued and running orders."""
        ...

    def report(self, order_id: str, document: dict[str, Any]) -> str:
        """Post a report; the status the engine holds."""
        ...


@dataclass(frozen=True, slots=True)
class ActorReport:
    """What one tick did."""

    fetched: int = 0
    started: int = 0
    finished: int = 0
    reported: int = 0


class Actor:
    """Runs the engine's orders for this node."""

    def __init__(
        self,
        *,
        node: str,
        client: OrdersPort,
        journal: Journal,
        processes: Processes,
        commands: Commands,
        boot_id: Callable[[], str],
        enabled: bool = True,
        dry_run: bool = False,
        every_s: float = 5.0,
        backoff_max_s: float = 60.0,
        jitter: Callable[[], float] | None = random.random,
    ) -> None:
        self.node, self.client, self.journal = node, client, journal
        self.processes, self.commands, self.boot_id = processes, commands, boot_id
        self.enabled, self.dry_run, self.every_s = enabled, dry_run, every_s
        self.backoff_max_s, self.jitter = backoff_max_s, jitter
        self.entries: dict[str, Entry] = {}
        self.last_error = ""
        self._recovered = False
        self._next_poll: datetime | None = None
        self._next_report: datetime | None = None
        self._poll_failures = 0
        self._report_failures = 0

    def recover(self, now: datetime) -> None:
        """Read the journal: orders started before a restart are looked for, not started."""
        self.journal.prune(now - KEEP_CLOSED)
        self.entries = {e.order.id: e for e in self.journal.entries()}
        self._recovered = True

    def tick(self, now: datetime) -> ActorReport:
        """Poll when due, take new orders, advance running ones, send pending reports."""
        if not self._recovered:
            self.recover(now)
        fetched = started = 0
        if self._next_poll is None or now >= self._next_poll:
            orders = self._poll(now)
            fetched = len(orders)
            for order in orders:
                if order.id not in self.entries:
                    started += self._take(order, now)
        finished = sum(self._advance(e.order.id, now) for e in list(self._open()))
        reported = self._send(now)
        return ActorReport(fetched, started, finished, reported)

    def next_wakeup(self, now: datetime) -> datetime:
        """When the actor has something to do next."""
        times = [self._next_poll or now]
        if any(e.phase in (Phase.STARTED, Phase.AWAITING_REBOOT) for e in self.entries.values()):
            times.append(now + timedelta(seconds=CHECK_EVERY_S))
        if self._pending():
            times.append(self._next_report or now)
        return min(times)

    # -- orders ---------------------------------------------------------------------------

    def _poll(self, now: datetime) -> list[AgentOrder]:
        try:
            orders = self.client.fetch(self.node)
        except (TransientError, PermanentError) as exc:
            self.last_error = str(exc)
            self._poll_failures += 1
            retry = getattr(exc, "retry_after_s", None)
            self._next_poll = now + timedelta(seconds=self._delay(self._poll_failures, retry))
            log.warning("fetching orders failed (%s); next try at %s", exc, self._next_poll)
            return []
        self._poll_failures = 0
        self._next_poll = now + timedelta(seconds=self.every_s)
        return orders

    def _take(self, order: AgentOrder, now: datetime) -> int:
        entry = self._save(Entry(order, now))
        log.info("order %s (%s) received", order.id, order.kind)
        if order.status == "running":
            # The engine says it runs, but this journal never saw it: the journal was lost.
            # Starting it now could run it twice.
            self._finish(entry, Outcome("failed", "the agent has no record of this order "
                                        "(its journal was lost); not started again"))  # fmt: skip
            return 0
        self._advance(order.id, now)
        return 0 if self.entries[order.id].phase is Phase.FINISHED else 1

    def _advance(self, order_id: str, now: datetime) -> int:
        """Move one order on; 1 when it finished."""
        entry = self.entries[order_id]
        if entry.phase in (Phase.FINISHED, Phase.CLOSED):
            return 0
        if not entry.steps:  # nothing ran yet (also after a restart): screened first
            refusal = screen(entry.order, self.node, enabled=self.enabled, now=now)
            if refusal is None and (self.dry_run or entry.order.dry_run):
                refusal = dry_run(entry.order, self.commands)
            if refusal is not None:
                self._finish(entry, refusal)
                return 1
        boot = self.boot_id()
        if entry.phase is Phase.AWAITING_REBOOT:
            before = entry.steps[-1].boot_id if entry.steps else ""
            if boot and before and boot != before:
                self._finish(entry, Outcome("done", f"rebooted (boot id {before} -> {boot})"))
                return 1
            return 0
        if entry.steps and entry.steps[-1].rc is None:
            index = len(entry.steps) - 1
            state = look(entry.steps[-1], self.journal.run_dir(order_id, index),
                         self.processes, boot, now)  # fmt: skip
            if isinstance(state, StillRunning):
                if state.pid is not None and entry.steps[-1].pid is None:
                    self._save(with_step(entry, index, replace(entry.steps[-1], pid=state.pid)))
                return 0
            if isinstance(state, Interrupted):
                rebooted = state.rebooted and entry.order.kind == "reboot"
                self._finish(entry, Outcome("done" if rebooted else "failed", state.why))
                return 1
            entry = self._save(with_step(entry, index, replace(entry.steps[-1], rc=state.rc)))
        done = []
        for i, step in enumerate(entry.steps):
            result = self.processes.result(self.journal.run_dir(order_id, i))
            if result is None:
                self._finish(entry, Outcome("failed", f"the output of step {i} is lost"))
                return 1
            done.append((step.argv, result))
        nxt = plan(entry.order, done, self.commands)
        if isinstance(nxt, Outcome):
            self._finish(entry, nxt)
            return 1
        if nxt is AWAIT_REBOOT:
            self._save(replace(entry, phase=Phase.AWAITING_REBOOT))
            return 0
        assert isinstance(nxt, Step)
        self._start(entry, nxt, boot, now)
        return 0

    def _start(self, entry: Entry, step: Step, boot: str, now: datetime) -> None:
        index = len(entry.steps)
        if step.announce and not entry.running_sent:
            # A reboot ends this process: tell the engine first (best effort; `done` follows
            # from the next boot either way).
            running = Outcome("running", f"running: {command_line(step.argv)}")
            entry, _ = self._report(entry, running, now)
        # Journaled before the child starts: a crash in between is found, never re-run.
        entry = self._save(with_step(entry, index, StepRecord(step.argv, now, boot)))
        run_dir = self.journal.run_dir(entry.order.id, index)
        pid = self.processes.start(run_dir, step.argv, step.timeout_s)
        self._save(with_step(entry, index, replace(entry.steps[index], pid=pid)))
        log.info("order %s: started %s (pid %d)", entry.order.id, command_line(step.argv), pid)

    def _finish(self, entry: Entry, outcome: Outcome) -> None:
        log.info("order %s: %s: %s", entry.order.id, outcome.status, outcome.detail[:200])
        self._save(replace(entry, phase=Phase.FINISHED, outcome=outcome))

    # -- reports --------------------------------------------------------------------------

    def _open(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.phase is not Phase.CLOSED]

    def _pending(self) -> list[Entry]:
        return [
            e for e in self._open() if e.phase is Phase.FINISHED or (e.steps and not e.running_sent)
        ]

    def _send(self, now: datetime) -> int:
        if self._next_report is not None and now < self._next_report:
            return 0
        sent = 0
        for entry in self._pending():
            if entry.phase is Phase.FINISHED and entry.outcome is not None:
                outcome = entry.outcome
            else:
                argv = entry.steps[0].argv if entry.steps else ()
                outcome = Outcome("running", f"running: {command_line(argv)}")
            _, taken = self._report(entry, outcome, now)
            if taken:
                sent += 1
            elif self._next_report is not None:
                break  # the engine is away: try the rest later
        return sent

    def _report(self, entry: Entry, outcome: Outcome, now: datetime) -> tuple[Entry, bool]:
        """Send one report; the entry as saved after it, and whether the engine took it."""
        verdict = outcome.verdict if entry.order.kind == "diagnose" else None
        document = report_document(
            self.node, outcome.status, outcome.detail, verdict=verdict,
            evidence=outcome.evidence, attachments=outcome.attachments,
        )  # fmt: skip
        final = outcome.status != "running"
        try:
            self.client.report(entry.order.id, document)
        except TransientError as exc:
            self.last_error = str(exc)
            self._report_failures += 1
            retry = getattr(exc, "retry_after_s", None)
            self._next_report = now + timedelta(seconds=self._delay(self._report_failures, retry))
            log.warning("report of order %s not taken (%s)", entry.order.id, exc)
            return entry, False
        except PermanentError as exc:
            gone = "the engine moved on" if isinstance(exc, OrderGoneError) else "refused"
            log.warning("report of order %s %s: %s; no more reports", entry.order.id, gone, exc)
            closed = replace(entry, phase=Phase.CLOSED, closed_why=f"{gone}: {exc}"[:500])
            return self._save(closed), False
        self._report_failures, self._next_report = 0, None
        if final:
            return self._save(replace(entry, phase=Phase.CLOSED, closed_why="reported")), True
        return self._save(replace(entry, running_sent=True)), True

    # -- helpers --------------------------------------------------------------------------

    def _save(self, entry: Entry) -> Entry:
        self.journal.save(entry)
        self.entries[entry.order.id] = entry
        return entry

    def _delay(self, failures: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            delay = max(retry_after_s, 1.0)
        else:
            delay = min(self.backoff_max_s, self.every_s * 2 ** max(0, failures - 1))
        return delay * (1 + self.jitter() / 2) if self.jitter is not None else delay
