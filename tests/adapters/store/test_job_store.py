"""The job store: SQLite and memory keep the same records with the same semantics; the SQLite
one migrates its own tables, lives beside hardware recovery's in one file, and reads the node
agents' signals from hardware recovery's table."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autorecover.adapters.store.base import ConflictError, Fence, LeaseLostError
from autorecover.adapters.store.memory_jobs import MemoryJobStore, MemorySignals
from autorecover.adapters.store.sql.jobs import JOB_MIGRATIONS
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.controllers.hardware.ports import Changes
from autorecover.controllers.jobs.records import (
    Decided,
    Handover,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobActionRecord,
    JobChanges,
    JobEvent,
    JobIncident,
    Stage,
    TimelineMark,
)
from autorecover.controllers.ports import ActionStatus, Outcome
from autorecover.controllers.requests import Control, OperatorRequest, RequestStatus, Settled
from autorecover.domain.hardware.records import NodeRecord
from autorecover.domain.jobs.decisions import Attempt, Budget, Exclusion, JobHistory
from autorecover.domain.jobs.suspicion import Mark
from autorecover.domain.records import Action, Blame, Cause, Evidence, NodeAction, Source, Verdict
from autorecover.domain.signals import NodeSignal, Probe

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
VERDICT = Verdict(
    Cause.HARDWARE,
    ("n2",),
    Action.REQUEUE_EXCLUDING,
    (Evidence("n2", Source.SYSTEM, 0, "xid.79", "NVRM: Xid 79"),),
    "hardware fault on n2",
    95,
)
DECIDED = Decided(Action.REQUEUE_EXCLUDING, ("n2",), 0.0, Budget.INFRASTRUCTURE, "why", ("n2",))
HISTORY = JobHistory(
    attempts=(
        Attempt(
            T0,
            Cause.HARDWARE,
            "xid.79",
            ("n2",),
            300,
            Budget.INFRASTRUCTURE,
            Action.REQUEUE_EXCLUDING,
        ),
        Attempt(  # where the failure started and the last step reached are kept too
            T0 + timedelta(hours=1),
            Cause.UNKNOWN,
            "process.crashed",
            (),
            300,
            Budget.USER,
            Action.REQUEUE,
            "n3",
            420,
            5,
        ),
    ),
    exclusions=(Exclusion("n2", T0 + timedelta(days=1), "j#0/failure"),),
)


def _incident(phase: IncidentPhase = IncidentPhase.ACTING, **kw: object) -> JobIncident:
    fields: dict[str, object] = {
        "id": "j#0/failure", "job": "j", "attempt": 0, "kind": IncidentKind.FAILURE,
        "opened_at": T0, "phase": phase, "nodes": ("n1", "n2"), "summary": "hardware fault on n2",
        "verdict": VERDICT, "decided": DECIDED,
    }  # fmt: skip
    fields.update(kw)
    return JobIncident(**fields)  # type: ignore[arg-type]


def _requeue(aid: str = "j#0/failure/requeue_excluding") -> JobAction:
    return JobAction(
        aid, "j", JobActionKind.REQUEUE_EXCLUDING, T0, "job-recovery", "why",
        ("n2 system [xid.79] NVRM: Xid 79",), "j#0/failure", ("n2",), 0.0, 0,
    )  # fmt: skip


def _signal(node: str, at: datetime, probe: Probe = Probe.KERNEL) -> NodeSignal:
    return NodeSignal(
        node, probe, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, at, text="NVRM: Xid 79",
        details=(("job", "j"),), incident="j#0/failure" if probe is Probe.JOB else None,
    )  # fmt: skip


def _changes() -> list[JobChanges]:
    """A job's story in three passes: decided and recorded, executed, verified."""
    straggler = _incident(
        id="k#0/straggler/1", job="k", kind=IncidentKind.STRAGGLER,
        phase=IncidentPhase.OBSERVED, verdict=None, decided=None, summary="n5 slower",
    )  # fmt: skip
    first = JobChanges(
        T0,
        histories={"j": HISTORY},
        incidents=[_incident(), straggler],
        timeline=[
            TimelineMark("j#0/failure", Stage.FAILED, T0 - timedelta(seconds=2)),
            TimelineMark("j#0/failure", Stage.LOST_WORK, T0, 12.5, "5 steps x 2.5 s/step"),
        ],
        actions=[JobActionRecord(_requeue(), ActionStatus.INTENDED, T0)],
        handovers=[
            Handover("j#0/failure/hand_over/n2", _signal("n2", T0, Probe.JOB)),
            Handover("k#0/straggler/1/hand_over/n5", _signal("n5", T0, Probe.JOB), dry_run=True),
        ],
        suspicion={"n2": Mark(1.0, T0)},
        events=[JobEvent("j", T0, "job-recovery", "in-job restart", key="j#0/r/1")],
    )
    done = T0 + timedelta(seconds=1)
    second = JobChanges(
        done,
        incidents=[_incident(IncidentPhase.VERIFYING)],
        timeline=[TimelineMark("j#0/failure", Stage.STOPPED, done)],
        outcomes=[Outcome("j#0/failure/requeue_excluding", ActionStatus.DONE, done)],
        events=[JobEvent("j", done, "job-recovery", "in-job restart", key="j#0/r/1")],  # again
    )
    third = JobChanges(
        done,
        incidents=[_incident(IncidentPhase.RECOVERING)],
        verifications=[
            Outcome("j#0/failure/requeue_excluding", ActionStatus.DONE, done, "started on n1, n3")
        ],
    )
    return [first, second, third]


@pytest.fixture(params=["sqlite", "memory"])
def store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[SqliteJobStore | MemoryJobStore]:
    if request.param == "sqlite":
        s = SqliteJobStore(tmp_path / "state.db")
        yield s
        s.close()
    else:
        yield MemoryJobStore()


def test_an_empty_store_loads_empty(store: SqliteJobStore | MemoryJobStore) -> None:
    snap = store.load()
    assert (snap.histories, snap.incidents, snap.handled, snap.pending) == ({}, (), frozenset(), ())
    assert store.history("j") == JobHistory()


def test_records_come_back_as_they_went_in(store: SqliteJobStore | MemoryJobStore) -> None:
    first, second, third = _changes()
    store.commit(first)
    snap = store.load()
    assert snap.histories == {"j": HISTORY} and store.history("j") == HISTORY
    assert {i.id for i in snap.incidents} == {"j#0/failure", "k#0/straggler/1"}
    assert snap.handled == frozenset({("j", 0)})
    assert snap.episodes == {("k", 0, IncidentKind.STRAGGLER): 1}
    assert [r.action for r in snap.pending] == [_requeue()]
    assert snap.suspicion == {"n2": Mark(1.0, T0)}
    [incident] = store.incidents("j")
    assert incident == _incident()  # the verdict with its evidence, the decision: all of it
    assert [h.id for h in store.pending_handovers()] == ["j#0/failure/hand_over/n2"]
    assert store.handovers()[0].signal == _signal("n2", T0, Probe.JOB)

    store.commit(second)
    snap = store.load()
    assert snap.pending == () and [r.action.id for r in snap.verifying] == [_requeue().id]
    assert [m.stage for m in store.timeline("j#0/failure")] == [
        Stage.FAILED, Stage.LOST_WORK, Stage.STOPPED,
    ]  # fmt: skip
    assert store.timeline("j#0/failure")[1].value == 12.5
    assert len(store.events("j")) == 1  # an event with a key is recorded once

    store.commit(third)
    snap = store.load()
    assert snap.verifying == ()
    [record] = store.actions("j")
    assert (record.status, record.verified, record.result) == (
        ActionStatus.DONE, "started on n1, n3", "",
    )  # fmt: skip


def test_a_failed_verification_is_kept_as_the_actions_result(
    store: SqliteJobStore | MemoryJobStore,
) -> None:
    first, second, _ = _changes()
    store.commit(first)
    store.commit(second)
    why = "verification failed: the job does not carry the exclusion of n2"
    store.commit(
        JobChanges(T0, verifications=[Outcome(_requeue().id, ActionStatus.FAILED, T0, why)])
    )
    [record] = store.actions("j")
    assert (record.status, record.result, record.verified) == (ActionStatus.FAILED, why, "")


def test_outcomes_only_move_intended_actions(store: SqliteJobStore | MemoryJobStore) -> None:
    store.commit(_changes()[0])
    done = Outcome(_requeue().id, ActionStatus.DONE, T0)
    store.commit(JobChanges(T0, outcomes=[done]))
    store.commit(JobChanges(T0, outcomes=[Outcome(_requeue().id, ActionStatus.FAILED, T0, "x")]))
    assert store.actions()[0].status is ActionStatus.DONE
    # Recording the same action again (a restarted pass re-deriving it) changes nothing.
    store.commit(JobChanges(T0, actions=[JobActionRecord(_requeue(), ActionStatus.INTENDED, T0)]))
    assert [r.status for r in store.actions()] == [ActionStatus.DONE]


def test_hand_overs_are_delivered_once(store: SqliteJobStore | MemoryJobStore) -> None:
    store.commit(_changes()[0])
    [pending] = store.pending_handovers()
    store.handed_over([pending.id], T0)
    store.handed_over([pending.id], T0 + timedelta(hours=1))
    assert store.pending_handovers() == []
    assert len(store.handovers()) == 2  # the dry-run one is kept on the record, never pending


def test_closed_incidents_are_not_loaded_but_stay_handled(
    store: SqliteJobStore | MemoryJobStore,
) -> None:
    store.commit(_changes()[0])
    closed = _incident(IncidentPhase.CLOSED, closed_at=T0, outcome="recovered")
    store.commit(JobChanges(T0, incidents=[closed]))
    snap = store.load()
    assert [i.id for i in snap.incidents] == ["k#0/straggler/1"]
    assert ("j", 0) in snap.handled
    assert store.incidents("j")[0].outcome == "recovered"


def test_incidents_page_newest_first_and_open_ones_however_old(
    store: SqliteJobStore | MemoryJobStore,
) -> None:
    """What the incident list reads of a long history: the newest so many (oldest first among
    them), every open one, or one job's."""

    def failed(job: str, hours: int, phase: IncidentPhase) -> JobIncident:
        closed = {"closed_at": T0 + timedelta(hours=hours, minutes=5), "outcome": "recovered"}
        return _incident(phase, id=f"{job}#0/failure", job=job,
                         opened_at=T0 + timedelta(hours=hours),
                         **(closed if phase is IncidentPhase.CLOSED else {}))  # fmt: skip

    store.commit(JobChanges(T0, incidents=[
        failed("a", 0, IncidentPhase.VERIFYING), failed("b", 1, IncidentPhase.CLOSED),
        failed("c", 2, IncidentPhase.CLOSED), failed("d", 3, IncidentPhase.ACTING),
    ]))  # fmt: skip
    assert [i.job for i in store.incidents(newest=2)] == ["c", "d"]
    assert [i.job for i in store.incidents(newest=10)] == ["a", "b", "c", "d"]
    assert [i.job for i in store.incidents(open_only=True)] == ["a", "d"]
    assert [i.job for i in store.incidents(newest=1, open_only=True)] == ["d"]
    assert [i.job for i in store.incidents("b", open_only=True)] == []
    assert [i.job for i in store.incidents("b")] == ["b"]


def test_a_migration_handles_its_attempt_only_once_it_decided_for_real(
    store: SqliteJobStore | MemoryJobStore,
) -> None:
    """Waiting for a checkpoint, the attempt's failure is still job recovery's to see; decided,
    its end is the requeue's; in dry-run the job ran on. Each is its attempt's one migration."""

    def migration(job: str, **kw: object) -> JobIncident:
        return _incident(id=f"{job}#0/migration", job=job, kind=IncidentKind.MIGRATION, **kw)

    store.commit(JobChanges(T0, incidents=[
        migration("waits", phase=IncidentPhase.OBSERVED, decided=None),
        migration("moved"),
        migration("dry", phase=IncidentPhase.CLOSED, closed_at=T0, outcome="dry-run: would",
                  dry_run=True),
    ]))  # fmt: skip
    snap = store.load()
    assert snap.handled == frozenset({("moved", 0)})
    assert snap.episodes == {(j, 0, IncidentKind.MIGRATION): 1 for j in ("waits", "moved", "dry")}
    assert {i.id for i in snap.incidents} == {"waits#0/migration", "moved#0/migration"}


def test_sqlite_and_memory_agree(tmp_path: Path) -> None:
    sqlite, memory = SqliteJobStore(tmp_path / "a.db"), MemoryJobStore()
    for changes in _changes():
        sqlite.commit(changes)
        memory.commit(changes)
    assert sqlite.load() == memory.load()
    for query in ("incidents", "actions", "events", "handovers"):
        assert getattr(sqlite, query)() == getattr(memory, query)()
    assert sqlite.timeline("j#0/failure") == memory.timeline("j#0/failure")
    sqlite.close()


def test_the_schema_is_versioned_and_migrated_once(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SqliteJobStore(path)
    assert store.schema_version() == len(JOB_MIGRATIONS) == 2
    store.commit(_changes()[0])
    store.close()
    again = SqliteJobStore(path)
    assert again.schema_version() == 2 and again.history("j") == HISTORY
    again.close()


def test_it_shares_a_file_with_hardware_recovery_and_reads_its_signals(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    hardware = SqliteStore(path)
    jobs = SqliteJobStore(path)
    hardware.commit(
        Changes(
            T0,
            signals=[
                _signal("n1", T0 - timedelta(hours=3)),  # long before the window
                _signal("n2", T0),
                _signal("n3", T0),  # not one of the job's nodes
                _signal("n2", T0 + timedelta(seconds=5), Probe.JOB),
            ],
        )
    )
    found = jobs.signals(["n1", "n2"], T0 - timedelta(minutes=15), T0 + timedelta(minutes=5))
    assert [(s.node, s.probe) for s in found] == [("n2", Probe.KERNEL), ("n2", Probe.JOB)]
    assert found[0].text == "NVRM: Xid 79" and found[0].node_action is NodeAction.REBOOT
    jobs.commit(_changes()[0])
    assert hardware.schema_version() >= 1 and jobs.schema_version() == len(JOB_MIGRATIONS)
    hardware.close()
    jobs.close()


def test_both_stores_commit_only_while_the_fence_holds(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    engine, jobs = SqliteStore(path), SqliteJobStore(path)
    fence = Fence("leader", "a", engine.acquire("leader", "a", T0, 30).term)
    jobs.commit(_changes()[0], fence=fence)
    engine.commit_pass(Changes(T0, records=[NodeRecord("n1", since=T0)]), now=T0, fence=fence)
    assert jobs.history("j") == HISTORY and engine.node_views()[0].record.node == "n1"

    later = T0 + timedelta(seconds=60)  # a's lease lapsed; b takes it, a new term
    assert engine.acquire("leader", "b", later, 30).holder == "b"
    for stale in (fence, Fence("other", "a", fence.term)):  # deposed; never held
        with pytest.raises(LeaseLostError):
            jobs.commit(JobChanges(later, histories={"x": HISTORY}), fence=stale)
        with pytest.raises(LeaseLostError):
            engine.commit_pass(
                Changes(later, records=[NodeRecord("n9", since=later)]), now=later, fence=stale
            )
    assert jobs.history("x") == JobHistory()  # the deposed passes recorded nothing
    assert [v.record.node for v in engine.node_views()] == ["n1"]
    engine.close()
    jobs.close()


def test_a_file_without_hardware_tables_has_no_signals(tmp_path: Path) -> None:
    jobs = SqliteJobStore(tmp_path / "jobs-only.db")
    assert jobs.signals(["n1"], T0, T0 + timedelta(hours=1)) == []
    assert jobs.signals([], T0, T0) == []
    jobs.close()


def test_memory_signals_are_a_live_view_of_a_list() -> None:
    recorded: list[NodeSignal] = []
    source = MemorySignals(recorded)
    recorded.append(_signal("n2", T0 + timedelta(seconds=1)))
    source.add(_signal("n2", T0), _signal("n9", T0))
    assert [s.at for s in source.signals(["n2"], T0, T0 + timedelta(hours=1))] == [
        T0, T0 + timedelta(seconds=1),
    ]  # fmt: skip


def test_requests_about_jobs_are_kept_settled_once_and_a_stop_is_read_back(
    store: SqliteJobStore | MemoryJobStore,
) -> None:
    def ask(rid: str, kind: Control, job: str = "j") -> OperatorRequest:
        return store.submit(OperatorRequest(rid, kind, job, "token:dave", "why", "10.0.0.9", T0))

    assert ask("r1", Control.STOP_JOB).status is RequestStatus.PENDING
    assert ask("r1", Control.STOP_JOB) == store.requests("j")[0]  # a retry of the same id
    with pytest.raises(ConflictError):
        ask("r1", Control.RETRY_JOB)
    ask("r2", Control.RETRY_JOB, "k")
    assert [r.id for r in store.pending_requests(frozenset({Control.STOP_JOB}))] == ["r1"]
    store.commit(JobChanges(T0, settled=[Settled("r1", RequestStatus.DONE, T0)]))
    store.commit(JobChanges(T0, settled=[Settled("r1", RequestStatus.REFUSED, T0, "late")]))
    assert store.requests("j")[0].status is RequestStatus.DONE
    assert store.load().stopped == frozenset({"j"})
    ask("r3", Control.RETRY_JOB)
    store.commit(JobChanges(T0, settled=[Settled("r3", RequestStatus.DONE, T0)]))
    assert store.load().stopped == frozenset()  # a retry ends the stop
    assert [r.id for r in store.requests()] == ["r1", "r2", "r3"]
    assert store.controls().paused is None  # no engine tables here: no switches


def test_a_history_stored_before_origins_and_steps_were_kept_still_reads() -> None:
    from autorecover.adapters.store.sql.job_codec import history_from

    old = (
        '{"attempts": [{"at": "2026-03-02T10:00:00+00:00", "cause": "unknown", "root": "x", '
        '"suspects": [], "checkpoint": null, "budget": "user", "action": "requeue"}], '
        '"exclusions": []}'
    )
    [attempt] = history_from(old).attempts
    assert (attempt.origin, attempt.step, attempt.rank, attempt.root) == ("", None, None, "x")
