"""The executors' shared loop: intended actions performed in order, mutations rate-limited.

Both services' executors run it with their own `perform`. Actions keep their order within a
lane (a node, a job): once one waits, rate-limited or transiently refused, the rest of its
lane waits behind it for a later pass. Once the bucket refuses a mutation, every later
mutation waits too, so the queue's order holds across lanes as well. An action the port
says is `Underway` (started elsewhere, an agent's order) spent its token when it started: the
caller's `underway` set remembers its id, and asking again takes no token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from autorecover.controllers.counting import TokenBucket
from autorecover.controllers.hooks import ExecutionHooks
from autorecover.controllers.ports import (
    ActionStatus,
    Clock,
    Outcome,
    PermanentError,
    TransientError,
    Underway,
)


class Identified(Protocol):
    """An action as the loop needs it: its id names its outcome."""

    @property
    def id(self) -> str:
        """The action's id."""
        ...


A = TypeVar("A", bound=Identified)


def execute_in_order(
    actions: Iterable[A],
    perform: Callable[[A], str],
    *,
    lane: Callable[[A], str | None],
    mutates: Callable[[A], bool],
    bucket: TokenBucket,
    clock: Clock,
    hooks: ExecutionHooks[A],
    underway: set[str] | None = None,
) -> tuple[Outcome, ...]:
    """Perform `actions` in order until the rate limit stops them; the outcomes of those that
    finished (`perform` returns the result to record). What has no outcome is still intended.

    `lane` names what an action must keep its order within; None orders it with nothing.
    `underway` (kept by the caller between runs) holds the ids of actions under way elsewhere."""
    started = underway if underway is not None else set()
    outcomes: list[Outcome] = []
    blocked: set[str | None] = set()  # lanes with an action still waiting: keep their order
    limited = False
    for action in actions:
        key = lane(action)
        if key is not None and key in blocked:
            continue
        asked = action.id in started  # its token was spent when it started
        if mutates(action) and not asked and (limited or not bucket.take(clock.now())):
            limited = True
            blocked.add(key)
            continue
        hooks.before_execute(action)
        try:
            result = perform(action)
        except Underway:
            started.add(action.id)
            blocked.add(key)
            continue
        except TransientError:
            blocked.add(key)
            continue
        except PermanentError as exc:
            started.discard(action.id)
            outcomes.append(Outcome(action.id, ActionStatus.FAILED, clock.now(), str(exc)))
            continue
        started.discard(action.id)
        hooks.after_execute(action)
        outcomes.append(Outcome(action.id, ActionStatus.DONE, clock.now(), result))
    return tuple(outcomes)
