"""Crash consistency: kill the controller between recording an action and executing it, and
after executing it before its outcome is recorded; a fresh controller on the same SQLite file
converges, and no action is done twice (the fake scheduler counts effects per action id)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.controllers.hardware.executing import Hooks
from autorecover.controllers.hardware.ports import StorePort
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.hardware.lifecycle import Action, NodeState
from controllers.hardware.rig import Rig

NODES = [f"n{i}" for i in range(8)]
LADDER = ["cordon", "taint", "drain", "reboot", "resume"]  # what a clean run does to n1 and n2
EXECUTED = 14  # actions a clean run executes: per node 3 + diagnose + reboot + validate + resume


class CrashError(Exception):
    """The controller process dies here."""


def _crash_at(point: str, nth: int, seen: list[str]) -> Hooks:
    count = Counter[str]()

    def hook(where: str):  # type: ignore[no-untyped-def]
        def fire(action: Action) -> None:
            if where != point:
                return
            count[where] += 1
            if count[where] == nth:
                seen.append(action.id)
                raise CrashError(f"{where} {action.id}")

        return fire

    return Hooks(before_execute=hook("before"), after_execute=hook("after"))


def _store(kind: str, path: Path) -> StorePort:
    return SqliteStore(path / "state.db") if kind == "sqlite" else MemoryStore()


def _close(store: StorePort) -> None:
    if isinstance(store, SqliteStore):
        store.close()


def _run(rig: Rig) -> None:
    rig.report(rig.signal("n1"), rig.signal("n2", component="0000:3b:00.0"))
    rig.settle()


def test_a_clean_run_executes_each_action_once(tmp_path: Path) -> None:
    rig = Rig(NODES, store=_store("sqlite", tmp_path))
    _run(rig)
    assert sum(rig.scheduler.calls.values()) + sum(rig.diagnostics.calls.values()) == EXECUTED
    assert rig.states(["n1", "n2"]) == {"n1": "healthy", "n2": "healthy"}
    _close(rig.store)


@pytest.mark.parametrize("store_kind", ["sqlite", "memory"])
@pytest.mark.parametrize("point", ["before", "after"])
@pytest.mark.parametrize("nth", range(1, EXECUTED + 1))
def test_a_crash_anywhere_converges_without_doing_anything_twice(
    tmp_path: Path, store_kind: str, point: str, nth: int
) -> None:
    store = _store(store_kind, tmp_path)
    crashed: list[str] = []
    rig = Rig(NODES, store=store, hooks=_crash_at(point, nth, crashed))
    with pytest.raises(CrashError):
        _run(rig)
    [victim] = crashed

    # The process is gone: a new controller on the same file, with nothing carried over.
    if isinstance(store, SqliteStore):
        store.close()
        store = SqliteStore(tmp_path / "state.db")
    rig.restart(store=store, hooks=Hooks())
    rig.settle()

    assert rig.states(["n1", "n2"]) == {"n1": "healthy", "n2": "healthy"}
    assert all(rig.scheduler.schedulable(n) for n in NODES)
    assert all(v == 1 for v in rig.scheduler.effects.values()), rig.scheduler.effects
    assert len(rig.diagnostics.started) == 4  # diagnose and validate, per node, once each
    for node in ("n1", "n2"):
        assert [k for k, n, _ in rig.scheduler.log if n == node] == LADDER
    records = rig.store.actions()
    assert all(a.status is ActionStatus.DONE for a in records)
    assert len({a.action.id for a in records}) == len(records)
    # The victim was re-sent only if it had already been executed; either way, done once.
    calls = rig.scheduler.calls[victim] or rig.diagnostics.calls[victim]
    assert calls == (2 if point == "after" else 1)
    for node in ("n1", "n2"):
        chain = rig.store.transitions(node)
        assert [t.seq for t in chain] == list(range(1, len(chain) + 1))
        assert all(a.to is b.frm for a, b in itertools.pairwise(chain))
        assert chain[-1].to is NodeState.HEALTHY
    _close(rig.store)


def test_a_crash_while_recording_leaves_nothing_half_written(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "state.db")
    rig = Rig(NODES, store=store)
    real = store.commit

    def failing(changes):  # type: ignore[no-untyped-def]
        if changes.transitions:
            raise CrashError("disk full")
        real(changes)

    store.commit = failing  # type: ignore[method-assign]
    with pytest.raises(CrashError):
        rig.report(rig.signal("n1"))
    assert rig.scheduler.log == []  # nothing executed that was not recorded
    store.close()
    rig.restart(store=SqliteStore(tmp_path / "state.db"))
    assert rig.controller.node("n1").state is NodeState.HEALTHY  # nothing was recorded
    rig.report(rig.signal("n1"))  # the agent re-sends
    rig.settle()
    assert rig.controller.node("n1").state is NodeState.HEALTHY
    assert all(v == 1 for v in rig.scheduler.effects.values())
    assert [k for k, n, _ in rig.scheduler.log] == LADDER
    _close(rig.store)
