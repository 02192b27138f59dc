"""Job recovery's store contract (tests/adapters/store/test_job_store.py), run on memory, SQLite and
a real PostgreSQL: the very same test functions, with this module's `store` fixture; then what
only the SQL stores promise, on both databases: the schema migrated once (even by replicas
starting together), hardware's signals read from the shared database, exact floats, and
commits fenced by the engine's lease (memory too, through the wiring)."""

from __future__ import annotations

import importlib.util
import inspect
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.store.base import EngineStore, Fence, LeaseLostError
from autorecover.adapters.store.memory_jobs import MemoryJobStore
from autorecover.adapters.store.sql.jobs import (
    JOB_MIGRATIONS,
    PostgresJobStore,
    SqlJobStore,
    open_job_store,
)
from autorecover.adapters.store.url import open_store
from autorecover.controllers.hardware.ports import Changes
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.controllers.jobs.records import JobChanges, Stage, TimelineMark
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.jobs.suspicion import Mark
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import Probe
from autorecover.server.policies import load_policies
from autorecover.server.wiring import FencedJobStore, jobs_on

_CONTRACT = Path(__file__).parents[2] / "adapters" / "store" / "test_job_store.py"


def _contract() -> Any:
    spec = importlib.util.spec_from_file_location("job_store_contract", _CONTRACT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


contract = _contract()
CONTRACT = {
    name: fn
    for name, fn in vars(contract).items()
    if name.startswith("test_") and "store" in inspect.signature(fn).parameters
}
globals().update(CONTRACT)
T0, HISTORY = contract.T0, contract.HISTORY


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlJobStore | MemoryJobStore]:
    """One empty job store of each kind (overrides this tier's engine `store`)."""
    if request.param == "memory":
        yield MemoryJobStore()
        return
    url = (
        str(request.getfixturevalue("postgres_url"))
        if request.param == "postgres"
        else f"sqlite:///{tmp_path / 'state.db'}"
    )
    s = open_job_store(url)
    yield s
    s.close()


@pytest.fixture(params=["sqlite", "postgres"])
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of each SQL kind: one empty database per test."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite:///{tmp_path / 'state.db'}"


def test_postgres_runs_every_job_store_contract_test() -> None:
    assert len(CONTRACT) >= 6


def test_postgres_and_sqlite_agree_with_memory_to_the_bit(sql_url: str) -> None:
    sql, memory = open_job_store(sql_url), MemoryJobStore()
    first, second, third = contract._changes()
    inexact = replace(
        first,
        suspicion={"n2": Mark(0.1, T0), "n7": Mark(1 / 3, T0)},  # not float4-representable
        timeline=[
            *first.timeline,
            TimelineMark("j#0/failure", Stage.DETECTED, T0 - timedelta(seconds=1), 0.1),
        ],
    )
    for changes in (inexact, second, third):
        sql.commit(changes)
        memory.commit(changes)
    assert sql.load() == memory.load()
    for query in ("incidents", "actions", "events", "handovers"):
        assert getattr(sql, query)() == getattr(memory, query)()
    assert sql.timeline("j#0/failure") == memory.timeline("j#0/failure")
    sql.close()


def test_postgres_job_schema_is_migrated_once_even_by_replicas_starting_together(
    postgres_url: str,
) -> None:
    opened: list[PostgresJobStore] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def open_one() -> None:
        try:
            s = PostgresJobStore(postgres_url)
            with lock:
                opened.append(s)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == [] and len(opened) == 4
        assert {s.schema_version() for s in opened} == {len(JOB_MIGRATIONS)}
        opened[0].commit(contract._changes()[0])
        assert opened[1].history("j") == HISTORY
    finally:
        for s in opened:
            s.close()
    again = PostgresJobStore(postgres_url)
    assert again.schema_version() == len(JOB_MIGRATIONS) and again.history("j") == HISTORY
    again.close()


def test_postgres_job_store_shares_the_database_with_hardware_and_reads_its_signals(
    sql_url: str,
) -> None:
    jobs_first = open_job_store(sql_url)  # before the hardware tables exist: no signals
    assert jobs_first.signals(["n2"], T0, T0 + timedelta(hours=1)) == []
    hardware = open_store(sql_url)
    signal = contract._signal
    hardware.commit(
        Changes(
            T0,
            signals=[
                signal("n1", T0 - timedelta(hours=3)),  # long before the window
                signal("n2", T0),
                signal("n3", T0),  # not one of the job's nodes
                signal("n2", T0 + timedelta(seconds=5), Probe.JOB),
            ],
        )
    )
    for jobs in (jobs_first, open_job_store(sql_url)):
        found = jobs.signals(["n1", "n2"], T0 - timedelta(minutes=15), T0 + timedelta(minutes=5))
        assert [(s.node, s.probe) for s in found] == [("n2", Probe.KERNEL), ("n2", Probe.JOB)]
        assert found[0].text == "NVRM: Xid 79" and found[0].node_action is NodeAction.REBOOT
        assert jobs.signals([], T0, T0) == []
        jobs.close()
    assert hardware.schema_version() >= 1
    hardware.close()


Opener = Callable[[], EngineStore]


def test_postgres_job_commits_are_fenced_by_the_lease(store_url: str, opener: Opener) -> None:
    engine = opener()
    clock = FakeClock(T0)
    wiring = jobs_on(
        engine if store_url == "memory://" else store_url,
        FakeJobScheduler(clock, ["n1", "n2"]),
        clock,
        load_policies(),
        dry_run=False,
    )
    assert wiring.fenced is not None and wiring.commit_fenced is not None
    lease = engine.acquire("leader", "a", T0, 30)
    fence = Fence("leader", "a", lease.term)
    assert isinstance(wiring.fenced(fence), JobRecoveryController)
    view = FencedJobStore(wiring.store, wiring.commit_fenced, fence)
    view.commit(contract._changes()[0])
    assert view.history("j") == HISTORY and [i.id for i in view.load().incidents]

    later = T0 + timedelta(seconds=60)  # a's lease lapsed; b takes it, a new term
    assert engine.acquire("leader", "b", later, 30).holder == "b"
    with pytest.raises(LeaseLostError):
        view.commit(JobChanges(later, histories={"x": HISTORY}))
    assert wiring.store.history("x") == JobHistory()  # the deposed pass recorded nothing
    if isinstance(wiring.store, SqlJobStore):
        wiring.store.close()


def test_postgres_job_recovery_on_memory_url_needs_the_engines_store() -> None:
    clock = FakeClock(T0)
    with pytest.raises(ValueError, match="memory"):
        jobs_on("memory://", FakeJobScheduler(clock, ["n1"]), clock, load_policies(), False)
