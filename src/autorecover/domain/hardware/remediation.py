"""The remediation ladder: GPU reset, reboot, power cycle, then a person — with per-node budgets.

Every step is followed by validation (a diagnostic under load) before the node returns; a
failed validation climbs to the next step. Each step has an attempt budget per node over a
window, so a node cannot be reset or rebooted forever, and a node that keeps coming back
broken (returned too often in a window) goes straight to a person. Diagnostic results are
kept whole — verdict, recommended action, evidence — never reduced to a bool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType

from autorecover.domain.records import NodeAction


class Step(StrEnum):
    """A rung of the ladder (persisted: never rename a value)."""

    RESET_GPU = "reset_gpu"
    REBOOT = "reboot"
    POWER_CYCLE = "power_cycle"  # through the BMC (Redfish): for a host that does not answer
    PERSON = "person"  # RMA, mechanicals, a support case


ORDER: tuple[Step, ...] = (Step.RESET_GPU, Step.REBOOT, Step.POWER_CYCLE, Step.PERSON)

# What the catalog's recommended action asks of the ladder; absent: let the diagnostic say.
_STEP_FOR_ACTION: Mapping[NodeAction, Step] = MappingProxyType(
    {
        NodeAction.RESET_GPU: Step.RESET_GPU,
        NodeAction.DRAIN_AND_RESET: Step.RESET_GPU,
        NodeAction.REBOOT: Step.REBOOT,
        NodeAction.POWER_CYCLE: Step.POWER_CYCLE,
        NodeAction.INSPECT: Step.PERSON,
    }
)


class DiagnosticLevel(StrEnum):
    """How hard a diagnostic pushes the node (persisted)."""

    QUICK = "quick"  # health checks, short DCGM diag: what is wrong
    LOAD = "load"  # a diagnostic under load: is it fit to return


class Verdict(StrEnum):
    """What a diagnostic concluded (persisted)."""

    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    FAIL = "fail"
    ERROR = "error"  # the check itself broke: says nothing about the node
    SKIPPED = "skipped"  # dry-run: nothing ran


@dataclass(frozen=True, slots=True)
class DiagnosticResult:
    """A diagnostic's full answer: verdict, the action it recommends and the evidence."""

    id: str  # the action id that started it
    node: str
    level: DiagnosticLevel
    verdict: Verdict
    at: datetime
    recommended: NodeAction = NodeAction.NONE
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Attempt:
    """One remediation step tried on a node."""

    step: Step
    at: datetime


def _default_attempts() -> Mapping[Step, int]:
    return MappingProxyType({Step.RESET_GPU: 2, Step.REBOOT: 1, Step.POWER_CYCLE: 1})


@dataclass(frozen=True, slots=True)
class Ladder:
    """The ladder's steps and budgets."""

    steps: tuple[Step, ...] = (Step.RESET_GPU, Step.REBOOT, Step.POWER_CYCLE)
    attempts: Mapping[Step, int] = field(default_factory=_default_attempts)
    budget_window: timedelta = timedelta(days=7)
    max_returns: int = 2  # returned this often within returns_window: next time, a person
    returns_window: timedelta = timedelta(days=7)
    diagnostic_retries: int = 2  # diagnostics that ERROR are rerun this often, then a person


def without_step(ladder: Ladder, step: Step) -> Ladder:
    """The ladder without `step` (a rung nothing can carry out, e.g. no BMC to power-cycle)."""
    if step not in ladder.steps:
        return ladder
    return replace(ladder, steps=tuple(s for s in ladder.steps if s is not step))


def step_for(action: NodeAction) -> Step | None:
    """The step the catalog's recommended action asks for, if it asks for one."""
    return _STEP_FOR_ACTION.get(action)


def higher(a: Step | None, b: Step | None) -> Step | None:
    """The later of two steps on the ladder (None means no step asked for)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if ORDER.index(a) >= ORDER.index(b) else b


def after(step: Step, ladder: Ladder | None = None) -> Step:
    """The step above `step`: the next rung of `ladder` (a person past its last one), or of
    the full order when no ladder is given."""
    i = ORDER.index(step)
    for later in ORDER[i + 1 :]:
        if ladder is None or later in ladder.steps or later is Step.PERSON:
            return later
    return Step.PERSON


def recent(times: Iterable[datetime], now: datetime, window: timedelta) -> int:
    """How many of `times` fall within `window` before `now`."""
    since = now - window
    return sum(1 for t in times if t > since)


def next_step(
    ladder: Ladder, wanted: Step | None, attempts: Iterable[Attempt], now: datetime
) -> Step:
    """The lowest step at or above `wanted` whose budget is not spent; a person when none is."""
    floor = ORDER.index(wanted) if wanted is not None else 0
    tried = tuple(attempts)
    for step in ladder.steps:
        if ORDER.index(step) < floor or step is Step.PERSON:
            continue
        used = recent((a.at for a in tried if a.step is step), now, ladder.budget_window)
        if used < ladder.attempts.get(step, 0):
            return step
    return Step.PERSON


def keeps_coming_back(ladder: Ladder, returns: Iterable[datetime], now: datetime) -> bool:
    """True when the node has been returned too often lately to try the ladder again."""
    return recent(returns, now, ladder.returns_window) >= ladder.max_returns


def prune(attempts: Iterable[Attempt], now: datetime, ladder: Ladder) -> tuple[Attempt, ...]:
    """Attempts still inside the budget window (older ones no longer count)."""
    since = now - ladder.budget_window
    return tuple(a for a in attempts if a.at > since)
