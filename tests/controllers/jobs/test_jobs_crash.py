"""Crash consistency: kill the job controller between recording an action and executing it,
and after executing it before its outcome is recorded; a fresh controller on the same SQLite
file converges, and no action is done twice (the fake scheduler counts effects per id)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from autorecover.adapters.store.memory_jobs import MemoryJobStore
from autorecover.adapters.store.sqlite import SqliteJobStore
from autorecover.controllers.jobs.acting import JobHooks
from autorecover.controllers.jobs.records import JobAction, JobChanges
from controllers.jobs.rig import MODULE_NOT_FOUND, JobRig

EXECUTED = 4  # a clean run: requeue a (hardware), stop b and alert (application), requeue c


class CrashError(Exception):
    """The controller process dies here."""


def _crash_at(point: str, nth: int, seen: list[str]) -> JobHooks:
    count = Counter[str]()

    def hook(where: str):  # type: ignore[no-untyped-def]
        def fire(action: JobAction) -> None:
            if where != point:
                return
            count[where] += 1
            if count[where] == nth:
                seen.append(action.id)
                raise CrashError(f"{where} {action.id}")

        return fire

    return JobHooks(before_execute=hook("before"), after_execute=hook("after"))


def _store(kind: str, path: Path):  # type: ignore[no-untyped-def]
    return SqliteJobStore(path / "state.db") if kind == "sqlite" else MemoryJobStore()


def _scenario(rig: JobRig) -> None:
    rig.submit("a", size=2, first=0)
    rig.submit("b", size=2, first=2)
    rig.submit("c", size=2, first=4)
    for job in ("a", "b", "c"):
        rig.steps(job, count=3, run=False)
    rig.xid("n1")
    rig.fail("a", culprit="n1")
    for node in rig.on("b"):
        rig.scheduler.write("b", node, MODULE_NOT_FOUND + "\n")
    rig.fail("b")
    rig.fail("c")  # no evidence at all: a bounded retry


def _settle(rig: JobRig) -> None:
    for _ in range(20):
        rig.run(step_s=5)


def _outcome(rig: JobRig) -> tuple[object, ...]:
    incidents = [(i.id, i.phase.value, i.outcome) for i in rig.store.incidents()]
    actions = [(r.action.id, r.status.value) for r in rig.store.actions()]
    handovers = [h.id for h in rig.store.handovers()]
    return incidents, actions, handovers, sorted(rig.scheduler.log), sorted(rig.notifier.alerts)


def test_a_clean_run_executes_each_action_once(tmp_path: Path) -> None:
    rig = JobRig(store=_store("sqlite", tmp_path))
    _scenario(rig)
    _settle(rig)
    executed = sum(rig.scheduler.calls.values()) + sum(rig.notifier.calls.values())
    assert executed == EXECUTED
    assert all(n == 1 for n in rig.scheduler.effects.values())
    rig.store.close()


@pytest.mark.parametrize("store_kind", ["sqlite", "memory"])
@pytest.mark.parametrize("point", ["before", "after"])
@pytest.mark.parametrize("nth", range(1, EXECUTED + 1))
def test_a_crash_anywhere_converges_without_doing_anything_twice(
    tmp_path: Path, store_kind: str, point: str, nth: int
) -> None:
    clean = JobRig()
    _scenario(clean)
    _settle(clean)

    crashed: list[str] = []
    rig = JobRig(store=_store(store_kind, tmp_path), hooks=_crash_at(point, nth, crashed))
    _scenario(rig)
    with pytest.raises(CrashError):
        _settle(rig)
    [victim] = crashed
    if point == "before":
        assert rig.scheduler.calls[victim] == 0 and rig.notifier.calls[victim] == 0

    # The process is gone: a new controller on the same file, with nothing carried over.
    if store_kind == "sqlite":
        rig.store.close()
        rig.restart(SqliteJobStore(tmp_path / "state.db"), hooks=JobHooks())
    else:
        rig.restart(hooks=JobHooks())
    _settle(rig)

    assert all(n == 1 for n in rig.scheduler.effects.values())
    assert all(n == 1 for n in Counter(a.id for a in rig.notifier.alerts.values()).values())
    if point == "after":  # done before the crash, asked again after it, done once
        assert rig.scheduler.calls[victim] + rig.notifier.calls[victim] == 2
    assert _outcome(rig) == _outcome(clean)
    if store_kind == "sqlite":
        rig.store.close()


class _FailingStore(MemoryJobStore):
    """A store whose first commit dies, as a process killed mid-transaction would leave it."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = True

    def commit(self, changes: JobChanges) -> None:
        if self.fail_next:
            self.fail_next = False
            raise CrashError("killed while recording")
        super().commit(changes)


def test_a_crash_while_recording_leaves_nothing_and_decides_again() -> None:
    store = _FailingStore()
    rig = JobRig(store=store)
    _scenario(rig)
    with pytest.raises(CrashError):
        rig.run()
    assert rig.store.incidents() == [] and rig.scheduler.calls == {}
    with pytest.raises(RuntimeError, match="fresh controller"):
        rig.controller.run_once()
    rig.restart()
    _settle(rig)
    assert {i.id for i in rig.store.incidents()} == {"a#0/failure", "b#0/failure", "c#0/failure"}
    assert all(n == 1 for n in rig.scheduler.effects.values())
