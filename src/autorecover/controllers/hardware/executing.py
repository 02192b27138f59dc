"""The executor: performs recorded actions through the ports, in order, rate-limited.

An action reaches the executor only after the store holds it as intended; its outcome is
recorded after. Between the two a crash may happen — the `Hooks` let a test put one exactly
there — and the next controller executes the same action id again, which the ports treat as
already done. Scheduler mutations spend tokens of a bucket on the injected clock; when the
bucket is empty the rest waits for a later pass, in order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from autorecover.controllers.counting import TokenBucket
from autorecover.controllers.executing import execute_in_order
from autorecover.controllers.hardware.ports import (
    ActionRecord,
    DiagnosticsPort,
    PowerPort,
    SchedulerPort,
    provenance_of,
)
from autorecover.controllers.hooks import ExecutionHooks
from autorecover.controllers.ports import (
    ActionStatus,
    Alert,
    Clock,
    Notifier,
    Outcome,
    PermanentError,
    TransientError,
)
from autorecover.domain.hardware.lifecycle import MUTATIONS, Action, ActionKind
from autorecover.domain.hardware.remediation import DiagnosticLevel

Hooks = ExecutionHooks[Action]


NO_HOOKS = Hooks()
SEL_LOOKBACK = timedelta(hours=1)  # the BMC's events this long before a power cycle are evidence
SEL_LINES = 10  # at most this many event-log lines in a power cycle's recorded result


@dataclass(frozen=True, slots=True)
class Executed:
    """What one executor run did: outcomes to record, and how many actions had to wait."""

    outcomes: tuple[Outcome, ...]
    waiting: int  # rate-limited or transiently refused: still intended


class Executor:
    """Runs intended actions through the scheduler, diagnostics and notifier ports."""

    def __init__(
        self,
        scheduler: SchedulerPort,
        diagnostics: DiagnosticsPort,
        notifier: Notifier,
        clock: Clock,
        bucket: TokenBucket,
        hooks: Hooks = NO_HOOKS,
        power: PowerPort | None = None,
    ) -> None:
        self._power = power
        self._scheduler = scheduler
        self._diagnostics = diagnostics
        self._notifier = notifier
        self._clock = clock
        self._bucket = bucket
        self._hooks = hooks
        self._underway: set[str] = set()  # ids an agent runs: asked again without a token

    def run(self, queue: Sequence[ActionRecord]) -> Executed:
        """Execute `queue` in order until the rate limit stops it."""
        outcomes = execute_in_order(
            (record.action for record in queue),
            self._perform,
            lane=lambda action: action.node or None,  # a fleet-wide action waits for nothing
            mutates=lambda action: action.kind in MUTATIONS,
            bucket=self._bucket,
            clock=self._clock,
            hooks=self._hooks,
            underway=self._underway,
        )
        return Executed(outcomes, len(queue) - len(outcomes))

    def _perform(self, action: Action) -> str:
        prov = provenance_of(action)
        node, kind = action.node, action.kind
        if kind is ActionKind.CORDON:
            self._scheduler.cordon(node, prov)
        elif kind is ActionKind.TAINT:
            self._scheduler.taint(node, action.target or "", prov)
        elif kind is ActionKind.DRAIN:
            self._scheduler.drain(node, prov)
        elif kind is ActionKind.RESUME:
            self._scheduler.resume(node, prov)
        elif kind is ActionKind.RESET_GPU:
            self._scheduler.reset_gpu(node, action.target, prov)
        elif kind is ActionKind.REBOOT:
            self._scheduler.reboot(node, prov)
        elif kind is ActionKind.POWER_CYCLE:
            return self._power_cycle(action)
        elif kind in (ActionKind.DIAGNOSE, ActionKind.VALIDATE):
            self._diagnostics.start(node, DiagnosticLevel(action.target or "quick"), prov)
        elif kind is ActionKind.ALERT:
            alert = Alert(action.id, action.at, action.why, node, action.incident, action.evidence)
            self._notifier.alert(alert)
        else:  # pragma: no cover - the enum is exhaustive
            raise PermanentError(f"unknown action kind {kind}")
        return ""

    def _power_cycle(self, action: Action) -> str:
        """Through the node's BMC; the BMC's event log since shortly before is the result."""
        if self._power is None:
            raise PermanentError(f"no BMC for {action.node} in the inventory")
        done = self._power.power_cycle(action.node, provenance_of(action))
        try:
            lines = self._power.events(action.node, action.at - SEL_LOOKBACK)
        except (TransientError, PermanentError) as exc:  # evidence only: the cycle is done
            return f"{done}; BMC event log not read: {exc}"
        if not lines:
            return f"{done}; BMC event log: no entries since {action.at - SEL_LOOKBACK:%H:%M:%SZ}"
        shown = "\n".join(f"  {line}"[:300] for line in lines[-SEL_LINES:])
        return f"{done}; BMC event log ({len(lines)} entries, last {SEL_LINES} at most):\n{shown}"


class ActionQueue:
    """Actions recorded as intended and not done yet, in order, with per-node counts, and the
    failures of each node's current transition (what `decide` sees as `failed`)."""

    def __init__(self, pending: Iterable[ActionRecord], failed: Iterable[ActionRecord]) -> None:
        self._queue: dict[str, ActionRecord] = {}
        self.pending: Counter[str] = Counter()  # node -> actions still intended
        self.failed: dict[str, str] = {a.action.node: _failure(a.action, a.result) for a in failed}
        for record in pending:
            self.add(record)

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, record: ActionRecord) -> None:
        """Queue an intended action (once per id)."""
        if record.action.id not in self._queue:
            self._queue[record.action.id] = record
            self.pending[record.action.node] += 1

    def drop(self, node: str) -> list[ActionRecord]:
        """Take the node's queued actions out (a person released it): the dropped records."""
        dropped = [r for r in self._queue.values() if r.action.node == node]
        for r in dropped:
            del self._queue[r.action.id]
        self.pending.pop(node, None)
        self.failed.pop(node, None)
        return dropped

    def run(
        self,
        executor: Executor,
        current_seq: Callable[[str], int],
        hands_off: Callable[[str], bool] = lambda node: False,
    ) -> tuple[Outcome, ...]:
        """Execute what is queued, but not on nodes we keep our hands off (in maintenance: it
        stays queued until then); drop what finished, remember failures of current states."""
        runnable = [r for r in self._queue.values() if not hands_off(r.action.node)]
        if not runnable:
            return ()
        outcomes = executor.run(runnable).outcomes
        for outcome in outcomes:
            action = self._queue.pop(outcome.action_id).action
            self.pending[action.node] -= 1
            if self.pending[action.node] <= 0:
                del self.pending[action.node]
            if outcome.status is ActionStatus.FAILED and action.seq == current_seq(action.node):
                self.failed[action.node] = _failure(action, outcome.result)
        return outcomes


def _failure(action: Action, result: str) -> str:
    return f"{action.kind}: {result}"
