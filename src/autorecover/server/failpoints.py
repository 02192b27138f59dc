"""A TEST FAILPOINT: crash the engine process at one exact point of an action's execution.

`AUTORECOVER_FAILPOINT=HOOK:KIND`, read once when `serve` starts, makes the process exit at
once (`os._exit(137)`, as a kill -9 leaves it: no cleanup, no lease given up, nothing more
recorded) the first time an action of KIND reaches HOOK in either service's executor:

* `before_execute` — the action is recorded as intended and not yet carried out
  ("between deciding and acting");
* `after_execute` — carried out, its outcome not yet recorded.

KIND is an action kind of hardware recovery (`cordon`, `drain`, `reboot`, ...) or of job
recovery (`requeue_excluding`, `requeue`, `stop`). This exists for the end-to-end tests that
kill the engine between two steps of the same action and show that a restarted engine does
it exactly once (docs/engine.md, "Test failpoint"); never set it in production.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from autorecover.controllers.hardware.executing import NO_HOOKS, Hooks
from autorecover.controllers.jobs.acting import NO_JOB_HOOKS, JobHooks
from autorecover.controllers.jobs.records import JobActionKind
from autorecover.domain.hardware.lifecycle import ActionKind

ENV = "AUTORECOVER_FAILPOINT"
HOOKS = ("before_execute", "after_execute")
EXIT_STATUS = 137  # what a shell reports for a process killed by SIGKILL
_KINDS = frozenset({k.value for k in ActionKind} | {k.value for k in JobActionKind})


def _crash(status: int) -> NoReturn:
    os._exit(status)


@dataclass(frozen=True, slots=True)
class Failpoint:
    """Where to crash: a hook and an action kind."""

    hook: str
    kind: str
    exit: Callable[[int], NoReturn] = field(default=_crash, compare=False, repr=False)

    def fire(self, hook: str, kind: str, action_id: str) -> None:
        """Crash here if this is the point (a line on stderr first, for the logs)."""
        if hook == self.hook and kind == self.kind:
            said = f"{ENV}={self.hook}:{self.kind} reached by action {action_id}"
            print(f"autorecover: TEST FAILPOINT {said}: exiting {EXIT_STATUS}",
                  file=sys.stderr, flush=True)  # fmt: skip
            self.exit(EXIT_STATUS)

    def hardware_hooks(self) -> Hooks:
        """Hardware recovery's executor hooks that fire this failpoint."""
        return Hooks(
            before_execute=lambda a: self.fire("before_execute", a.kind.value, a.id),
            after_execute=lambda a: self.fire("after_execute", a.kind.value, a.id),
        )

    def job_hooks(self) -> JobHooks:
        """Job recovery's executor hooks that fire this failpoint."""
        return JobHooks(
            before_execute=lambda a: self.fire("before_execute", a.kind.value, a.id),
            after_execute=lambda a: self.fire("after_execute", a.kind.value, a.id),
        )


def failpoint_from(value: str | None) -> Failpoint | None:
    """The failpoint a variable's value names (None when unset or empty); ValueError if bad."""
    if not value:
        return None
    hook, sep, kind = value.partition(":")
    if not sep or hook not in HOOKS or kind not in _KINDS:
        raise ValueError(
            f"{ENV}={value!r}: expected HOOK:KIND, HOOK one of {', '.join(HOOKS)}, KIND one "
            f"of {', '.join(sorted(_KINDS))}"
        )
    return Failpoint(hook, kind)


def hooks_for(failpoint: Failpoint | None) -> tuple[Hooks, JobHooks]:
    """Both services' hooks: the failpoint's, or none."""
    if failpoint is None:
        return NO_HOOKS, NO_JOB_HOOKS
    return failpoint.hardware_hooks(), failpoint.job_hooks()
