"""The test failpoint: `AUTORECOVER_FAILPOINT=HOOK:KIND` crashes at exactly that point."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NoReturn

import pytest

from autorecover.controllers.hardware.executing import NO_HOOKS
from autorecover.controllers.jobs.acting import NO_JOB_HOOKS
from autorecover.controllers.jobs.records import JobAction, JobActionKind
from autorecover.domain.hardware.lifecycle import Action, ActionKind
from autorecover.server.failpoints import EXIT_STATUS, Failpoint, failpoint_from, hooks_for

NOW = datetime(2026, 12, 1, tzinfo=UTC)


class CrashedError(Exception):
    """What the injected exit raises instead of ending the test process."""


def _exit(status: int) -> NoReturn:
    raise CrashedError(status)


def test_failpoint_unset_means_no_hooks() -> None:
    assert failpoint_from(None) is None and failpoint_from("") is None
    assert hooks_for(None) == (NO_HOOKS, NO_JOB_HOOKS)


@pytest.mark.parametrize("bad", ["requeue", "during:requeue", "before_execute:reboot_all"])
def test_failpoint_refuses_a_malformed_value_naming_the_variable(bad: str) -> None:
    with pytest.raises(ValueError, match="AUTORECOVER_FAILPOINT"):
        failpoint_from(bad)


def test_failpoint_crashes_at_its_hook_and_kind_only(capsys: pytest.CaptureFixture[str]) -> None:
    point = failpoint_from("before_execute:requeue_excluding")
    assert point == Failpoint("before_execute", "requeue_excluding")
    armed = Failpoint(point.hook, point.kind, exit=_exit)
    hardware, jobs = hooks_for(armed)
    drain = Action("n1/1/drain", "n1", ActionKind.DRAIN, NOW, "autorecover", "why")
    hardware.before_execute(drain)  # another kind: nothing
    requeue = JobAction("j1/1/requeue", "17", JobActionKind.REQUEUE_EXCLUDING, NOW, "a", "why")
    jobs.after_execute(requeue)  # another hook: nothing
    with pytest.raises(CrashedError) as crashed:
        jobs.before_execute(requeue)
    assert crashed.value.args == (EXIT_STATUS,)
    assert "TEST FAILPOINT" in capsys.readouterr().err
    cordon = Failpoint("after_execute", "cordon", exit=_exit).hardware_hooks()
    with pytest.raises(CrashedError):
        cordon.after_execute(Action("n1/1/cordon", "n1", ActionKind.CORDON, NOW, "a", "why"))
