"""The engine as a site runs it: `autorecover serve --scheduler slurm` on PostgreSQL and one
`autorecover agent run` per Slurm node, all real processes (`EngineRig`), recovering real
`sbatch` jobs on the real Slurm cluster.

The fault comes the way it would: the driver's XID line in a node's kernel log (the agent
follows it), a rank's own NCCL watchdog line, an application's traceback. Every test is
bounded (each wait, and the whole test well under 90 s) and leaves the cluster reset.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.adapters.slurm.records import SlurmJob
from autorecover.adapters.slurm.states import JobPhase as SlurmPhase
from autorecover.adapters.slurm.states import job_phase, node_status
from autorecover.controllers.jobs.records import IncidentPhase, JobActionKind, JobIncident
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.records import Action, Cause
from autorecover.server.failpoints import EXIT_STATUS
from autorecover.testing.slurm.engine_rig import EngineRig
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.slurm.rig import E2EJob

LADDER = ("drain", "reboot", "validate", "resume")
BUDGET_S = 90.0  # each test, start to end; every wait inside is bounded too


@pytest.fixture
def engine(slurm: SlurmHarness, postgres_url: str, tmp_path: Path) -> Iterator[EngineRig]:
    """The engine and agents as processes, not started yet; stopped and the cluster reset
    afterwards (the logs stay in the test's tmp_path)."""
    rig = EngineRig(slurm.cluster, postgres_url, tmp_path / "rig")
    started = time.monotonic()
    try:
        yield rig
    finally:
        took = time.monotonic() - started
        rig.close()
        slurm.cluster.reset()
    assert took < BUDGET_S, f"the test took {took:.0f} s (budget {BUDGET_S:.0f} s)"


def _running_again(rig: EngineRig, job: E2EJob, restarts: int = 1) -> SlurmJob | None:
    seen = rig.slurm_job(job)
    phase = job_phase(seen.state, seen.reason)
    return seen if seen.restarts == restarts and phase is SlurmPhase.RUNNING else None


def _closed(rig: EngineRig, job: E2EJob) -> JobIncident | None:
    found = rig.job_store().incidents(job.job_id)
    return found[0] if found and found[0].phase is IncidentPhase.CLOSED else None


def _drained(rig: EngineRig) -> list[str]:
    return [n.name for n in rig.scheduler.list_nodes() if node_status(n).drain]


def _started(rig: EngineRig, slurm: SlurmHarness, nodes: int = 2,
             comment: str = "autorecover:on") -> tuple[E2EJob, SlurmJob]:  # fmt: skip
    job = rig.submit(nodes=nodes, comment=comment)
    first = slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    slurm.wait_checkpoint(job.train, 10)
    return job, first


def test_slurm_serve_xid79_requeues_without_the_node_and_drains_it(
    engine: EngineRig, slurm: SlurmHarness
) -> None:
    engine.start()
    job, first = _started(engine, slurm)
    bad = first.nodes[1]

    engine.fault(bad)  # the driver's XID 79 line; the agent on `bad` follows the file
    drained = engine.wait(
        lambda: (n := engine.slurm_node(bad)) and node_status(n).drain and n, f"{bad} drained"
    )
    assert drained.reason.startswith("autorecover: "), drained
    shown = engine.sinfo_reason(bad).partition("|")[2]  # what an operator sees in sinfo -R
    assert shown.startswith("autorecover: ") and bad in shown, shown
    engine.kill_rank(job, bad)  # the GPU fell off the bus: its rank dies, the job fails

    after = engine.wait(lambda: _running_again(engine, job), "the job running again")
    assert bad in after.excluded and bad not in after.nodes, after
    closed = engine.wait(lambda: _closed(engine, job), "the job's incident closed")
    assert closed.verdict is not None and closed.verdict.cause is Cause.HARDWARE, closed
    assert closed.verdict.suspect_nodes == (bad,)
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE_EXCLUDING
    second = [a for a in slurm.wait_attempts(job.train, 4) if a.restart == 1]
    assert {a.node for a in second} == set(after.nodes)
    assert all(a.start >= 10 for a in second)  # resumed from the checkpoints
    assert [n for n in _drained(engine) if n != bad] == []

    # Hardware recovery's ladder on the drained node: XID 79 calls for a reboot, which
    # `scontrol reboot` really does (the test cluster's RebootProgram), validation passes
    # (no diagnostics wired on Slurm yet: a pass that says so), and the node is resumed.
    engine.wait(lambda: (r := engine.node(bad)) and r["state"] == "healthy", f"{bad} returned")
    back = engine.wait(lambda: (n := engine.slurm_node(bad)) and n.state == "idle"
                       and not n.flags and n, f"{bad} idle in Slurm")  # fmt: skip
    assert back.reason == ""
    # The resume is intended with the return and recorded done a moment after `scontrol` ran.
    actions = engine.wait(lambda: (a := engine.api(f"actions?node={bad}"))
                          and all(x["status"] != "intended" for x in a) and a,
                          f"{bad}'s actions settled")  # fmt: skip
    kinds = [(a["kind"], a["status"]) for a in actions]
    ladder = [k for k, status in kinds if status == "done" and k in LADDER]
    assert ladder == list(LADDER), kinds  # each once, in order
    assert len({a["incident"] for a in actions}) == 1, actions
    reboots = (engine.cluster.base / "log" / "reboots.txt").read_text()
    assert f"node={bad}" in reboots


def test_slurm_serve_transient_fault_requeues_on_the_same_nodes(
    engine: EngineRig, slurm: SlurmHarness
) -> None:
    engine.start()
    job, first = _started(engine, slurm, comment="autorecover:on,transient_backoff_s=1/2")

    (job.flags / f"nccl-{first.nodes[1]}-0").touch()  # NCCL watchdog timeout, exit 1

    after = engine.wait(lambda: _running_again(engine, job), "the job running again")
    assert after.excluded == () and after.nodes == first.nodes, after
    closed = engine.wait(lambda: _closed(engine, job), "the job's incident closed")
    assert closed.verdict is not None and closed.verdict.cause is Cause.TRANSIENT, closed
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE
    assert _drained(engine) == []
    assert all(engine.node(n) is None or engine.node(n)["state"] == "healthy"  # type: ignore[index]
               for n in first.nodes)  # fmt: skip


def test_slurm_serve_application_error_stops_the_job(
    engine: EngineRig, slurm: SlurmHarness
) -> None:
    engine.start()
    job, _ = _started(engine, slurm)

    (job.flags / "app").touch()  # every rank: ModuleNotFoundError

    closed = engine.wait(lambda: _closed(engine, job), "the job's incident closed")
    assert closed.verdict is not None and closed.verdict.cause is Cause.APPLICATION, closed
    assert closed.decided is not None and closed.decided.action is Action.STOP
    time.sleep(2.0)  # a few more of the engine's passes: it stays stopped
    after = engine.slurm_job(job)
    assert after.restarts == 0
    assert job_phase(after.state, after.reason) in (SlurmPhase.FAILED, SlurmPhase.CANCELLED)
    assert _drained(engine) == []
    assert len(engine.job_store().incidents(job.job_id)) == 1


@pytest.mark.parametrize("hook", ["before_execute", "after_execute"])
def test_slurm_serve_engine_killed_around_a_requeue_requeues_once(
    engine: EngineRig, slurm: SlurmHarness, hook: str
) -> None:
    engine.start(failpoint=f"{hook}:requeue_excluding")
    job, first = _started(engine, slurm)
    bad = first.nodes[1]

    engine.fault(bad)
    engine.wait(lambda: node_status(engine.slurm_node(bad)).drain, f"{bad} drained")
    engine.kill_rank(job, bad)

    # The requeue is decided and recorded as intended; the process dies before acting on
    # it (before_execute), or after acting, before recording that it did (after_execute).
    assert engine.engine.wait_exit(60) == EXIT_STATUS, engine.logs()
    intended = [r for r in engine.job_store().actions(job.job_id)
                if r.action.kind is JobActionKind.REQUEUE_EXCLUDING]  # fmt: skip
    assert [r.status for r in intended] == [ActionStatus.INTENDED], intended
    if hook == "before_execute":
        assert engine.slurm_job(job).restarts == 0  # not requeued
    else:
        engine.wait(lambda: engine.slurm_job(job).restarts == 1, "requeued before the crash")

    engine.start_engine()  # no failpoint this time
    after = engine.wait(lambda: _running_again(engine, job), "the job running again")
    assert bad in after.excluded and bad not in after.nodes, after
    engine.wait(lambda: _closed(engine, job), "the job's incident closed")
    time.sleep(2.0)  # more passes: nothing is done again
    assert engine.slurm_job(job).restarts == 1
    done = [r for r in engine.job_store().actions(job.job_id)
            if r.action.kind is JobActionKind.REQUEUE_EXCLUDING]  # fmt: skip
    assert [(r.action.id, r.status) for r in done] == [(intended[0].action.id, ActionStatus.DONE)]


def test_slurm_serve_engine_killed_before_rebooting_reboots_once(
    engine: EngineRig, slurm: SlurmHarness
) -> None:
    node = engine.cluster.node_names[-1]
    engine.start(failpoint="before_execute:reboot")

    engine.fault(node)  # an idle node: drained at once, then the reboot rung
    assert engine.engine.wait_exit(60) == EXIT_STATUS, engine.logs()
    reboots = engine.cluster.base / "log" / "reboots.txt"
    before = reboots.read_text().count(f"node={node}") if reboots.exists() else 0
    assert "REBOOT_REQUESTED" not in engine.slurm_node(node).flags

    engine.start_engine()
    engine.wait(lambda: (r := engine.node(node)) and r["state"] == "healthy", f"{node} returned")
    engine.wait(lambda: (n := engine.slurm_node(node)) and n.state == "idle" and not n.flags,
                f"{node} idle in Slurm")  # fmt: skip
    time.sleep(1.0)
    assert reboots.read_text().count(f"node={node}") == before + 1  # rebooted exactly once
    done = [a for a in engine.api(f"actions?node={node}") if a["kind"] == "reboot"]
    assert [a["status"] for a in done] == ["done"], done
