"""People's requests as job recovery's passes act on them, with the fakes: paused acting, and a
job's recovery retried (requeue now) or stopped (left alone). The requests reach the controller
through the store, on memory and SQLite alike."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.memory_jobs import MemoryJobStore
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.controllers.jobs.records import IncidentPhase, JobActionKind
from autorecover.controllers.ports import ActionStatus
from autorecover.controllers.requests import Control, OperatorRequest, RequestStatus
from autorecover.domain.jobs.policy import ceilings_from
from controllers.jobs.rig import CATALOG, MODULE_NOT_FOUND, NCCL_TIMEOUT, SCANNER, JobRig

_ids = itertools.count(1)


class Stores:
    """The engine's store (switches) and job recovery's (job requests), on one backend."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        if kind == "memory":
            self.engine: MemoryStore | SqliteStore = MemoryStore()
            self.jobs: MemoryJobStore | SqliteJobStore = MemoryJobStore(self.engine.controls)
        else:
            self.engine = SqliteStore(tmp_path / "state.db")
            self.jobs = SqliteJobStore(tmp_path / "state.db")

    def ask(self, rig: JobRig, kind: Control, target: str = "", why: str = "checked") -> str:
        rid = f"j{next(_ids)}"
        request = OperatorRequest(rid, kind, target, "token:dave", why, "10.0.0.9", rig.clock.now())
        (self.jobs if kind in (Control.RETRY_JOB, Control.STOP_JOB) else self.engine).submit(
            request
        )
        return rid

    def request(self, rid: str) -> OperatorRequest:
        return next(r for r in self.jobs.requests() if r.id == rid)


@pytest.fixture(params=["memory", "sqlite"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    return Stores(request.param, tmp_path)


@pytest.fixture
def rig(stores: Stores) -> JobRig:
    return JobRig(store=stores.jobs)


def _transient_failure(rig: JobRig) -> None:
    rig.submit()
    rig.steps(count=3)
    for rank, node in enumerate(rig.on()):
        rig.scheduler.write("train", node, NCCL_TIMEOUT.format(rank=rank) + "\n")
    rig.fail()


# --- pause and resume ---------------------------------------------------------------------


def test_while_paused_job_recovery_decides_records_and_holds_its_actions(
    rig: JobRig, stores: Stores
) -> None:
    stores.ask(rig, Control.PAUSE_ACTING, why="change freeze")
    _transient_failure(rig)
    rig.run(passes=3)
    incident = rig.incident()
    assert incident.decided is not None and incident.phase is IncidentPhase.ACTING
    assert rig.scheduler.log == []  # nothing executed
    [action] = rig.store.actions("train")
    assert action.status is ActionStatus.INTENDED
    held = [e.text for e in rig.store.events("train") if "acting paused" in e.text]
    assert held == [f"acting paused: requeue ({action.action.id}) held until acting resumes"]
    stores.ask(rig, Control.RESUME_ACTING, why="freeze over")
    rig.run(step_s=60)
    assert [k for k, _, _ in rig.scheduler.log] == ["requeue"]


# --- retry and stop -----------------------------------------------------------------------


def test_a_retry_requeues_the_job_now_through_the_controllers_pass(
    rig: JobRig, stores: Stores
) -> None:
    rig.submit()
    rig.steps(count=3)
    for node in rig.on():
        rig.scheduler.write("train", node, MODULE_NOT_FOUND + "\n")
    rig.fail()
    rig.run()
    assert [k for k, _, _ in rig.scheduler.log] == ["stop"]  # an application error: stopped
    rid = stores.ask(rig, Control.RETRY_JOB, "train", "fixed the image: flash_attn installed")
    assert len(rig.scheduler.log) == 1  # the API never calls the cluster: the pass does
    rig.run()
    assert [k for k, _, _ in rig.scheduler.log] == ["stop", "requeue"]
    [aid] = rig.requeues()
    prov = rig.scheduler.provenance[aid]
    assert (prov.by, prov.why) == (
        "token:dave",
        "retry requested: fixed the image: flash_attn installed",
    )
    assert aid == f"operator/{rid}/requeue"
    done = stores.request(rid)
    assert done.status is RequestStatus.DONE and done.done_at == rig.clock.now()
    assert any(f"retry requested by token:dave from 10.0.0.9 ({rid})" in e.text
               for e in rig.store.events("train"))  # fmt: skip
    assert rig.controller.history("train").attempts[-1].action.value == "stop"  # no budget spent


def test_a_retry_in_dry_run_is_recorded_as_would_have(stores: Stores) -> None:
    rig = JobRig(store=stores.jobs, dry_run=True)
    rig.submit()
    rig.steps(count=2)
    stores.ask(rig, Control.RETRY_JOB, "train", "try it")
    rig.run()
    assert rig.scheduler.log == []
    [record] = [a for a in rig.store.actions("train") if a.action.id.startswith("operator/")]
    assert record.status is ActionStatus.WOULD


def test_a_stopped_job_is_left_alone_until_a_person_asks_for_a_retry(
    rig: JobRig, stores: Stores
) -> None:
    rig.submit()
    rig.steps(count=2)
    rid = stores.ask(rig, Control.STOP_JOB, "train", "debugging it by hand")
    rig.run()
    assert stores.request(rid).status is RequestStatus.DONE
    _fail_transiently(rig)
    rig.run(passes=3)
    assert rig.store.incidents("train") == [] and rig.scheduler.log == []  # hands off
    twice = stores.ask(rig, Control.STOP_JOB, "train", "again")
    rig.restart()  # the stop survives a restart
    rig.run()
    assert stores.request(twice).status is RequestStatus.REFUSED
    assert rig.store.incidents("train") == [] and rig.scheduler.log == []
    stores.ask(rig, Control.RETRY_JOB, "train", "back to you")
    rig.run()
    assert [k for k, _, _ in rig.scheduler.log] == ["requeue"]


def test_a_stop_cancels_a_queued_requeue_and_closes_the_incident(
    rig: JobRig, stores: Stores
) -> None:
    stores.ask(rig, Control.PAUSE_ACTING, why="hold everything")
    _transient_failure(rig)
    rig.run()
    assert rig.incident().phase is IncidentPhase.ACTING
    stores.ask(rig, Control.STOP_JOB, "train", "the user will resubmit")
    stores.ask(rig, Control.RESUME_ACTING, why="go")
    rig.run(step_s=60)
    assert rig.scheduler.log == []
    incident = rig.incident()
    assert incident.phase is IncidentPhase.CLOSED and "recovery stopped" in incident.outcome
    [requeue] = [a for a in rig.store.actions("train") if a.action.kind is JobActionKind.REQUEUE]
    assert requeue.status is ActionStatus.FAILED and "recovery stopped" in requeue.result


def test_a_request_about_an_unwatched_job_is_refused(rig: JobRig, stores: Stores) -> None:
    rid = stores.ask(rig, Control.RETRY_JOB, "nope", "typo")
    rig.run()
    found = stores.request(rid)
    assert (found.status, found.result) == (
        RequestStatus.REFUSED, "job 'nope' is not watched by job recovery",
    )  # fmt: skip


def _fail_transiently(rig: JobRig) -> None:
    for rank, node in enumerate(rig.on()):
        rig.scheduler.write("train", node, NCCL_TIMEOUT.format(rank=rank) + "\n")
    rig.fail()


# --- ceilings -----------------------------------------------------------------------------


def test_a_jobs_own_budget_above_the_sites_ceiling_is_clamped_and_recorded(
    stores: Stores,
) -> None:
    rig = JobRig(store=stores.jobs)
    rig.controller = JobRecoveryController(
        rig.store, rig.scheduler, rig.signals, rig.clock, rig.policy, CATALOG,
        notifier=rig.notifier, settings=rig.settings, scanner=SCANNER,
        ceilings=ceilings_from({"user_restarts": 1}, "site.toml"),
    )  # fmt: skip
    rig.submit(user_restarts=50)  # the job asks for 50 retries of unknown causes
    for _ in range(3):
        rig.steps(count=2)
        rig.fail()  # exit 1, nothing in the output: cause unknown
        rig.run(passes=3, step_s=30)
    kinds = [k for k, _, _ in rig.scheduler.log]
    assert kinds == ["requeue", "stop"]  # one retry, the ceiling, not fifty
    stop = rig.controller.history("train").attempts[-1]
    assert stop.action.value == "stop"
    notes = [e.text for e in rig.store.events("train") if "ceiling" in e.text]
    assert notes == ["fake job train: user_restarts=50 asked, site ceiling 1: clamped"]  # once
