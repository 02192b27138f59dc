"""Job states on the real cluster, mapped to the domain's words."""

from __future__ import annotations

from datetime import UTC, datetime

from autorecover.adapters.slurm.states import JobPhase, job_phase, to_job_record
from autorecover.testing.slurm.harness import SlurmHarness


def test_slurm_job_states_map_to_the_domain(slurm: SlurmHarness) -> None:
    submit = slurm.cluster.submit
    # Time limit 0 on a running job: it times out at the controller's next periodic check
    # (every 30 s in 22.05), so this one goes first and the others run meanwhile.
    timed_out = submit(["--nodes=1", "--nodelist=gpu03", "--wrap", "sleep 300"])
    running = submit(["--nodes=1", "--nodelist=gpu01", "--wrap", "sleep 300"])
    node_failed = submit(["--nodes=1", "--nodelist=gpu02", "--no-requeue", "--wrap", "sleep 300"])
    cancelled = submit(["--nodes=1", "--nodelist=gpu01", "--wrap", "sleep 300"])
    failed = submit(["--nodes=1", "--nodelist=gpu01", "--wrap", "exit 3"])
    for job in (timed_out, running, node_failed, cancelled):
        slurm.wait_phase(job, JobPhase.RUNNING)
    pending = submit(["--nodes=4", "--gres=gpu:h100:8", "--wrap", "true"])  # gpu02 goes down
    slurm.cluster._scontrol(["scontrol", "update", f"JobId={timed_out}", "TimeLimit=0"])
    slurm.cluster._scontrol(["scancel", cancelled])
    slurm.cluster._scontrol(["scontrol", "update", "NodeName=gpu02", "State=DOWN",
                             "Reason=test: node lost"])  # fmt: skip

    expected = {
        running: ("RUNNING", JobPhase.RUNNING),
        pending: ("PENDING", JobPhase.PENDING),
        cancelled: ("CANCELLED", JobPhase.CANCELLED),
        node_failed: ("NODE_FAIL", JobPhase.FAILED),
        failed: ("FAILED", JobPhase.FAILED),
        timed_out: ("TIMEOUT", JobPhase.FAILED),
    }
    for job, (state, _) in expected.items():
        slurm.wait_job(job, lambda j, s=state: j.state == s, state, timeout_s=45)
    now = datetime.now(UTC)
    for job, (state, phase) in expected.items():
        seen = slurm.scheduler.reader.job(job)
        assert job_phase(seen.state, seen.reason) is phase, job
        record = to_job_record(seen, now)
        assert record.state == state
        assert record.scheduler == "slurm" and record.job == job
        assert (record.ended is not None) == (phase in (JobPhase.CANCELLED, JobPhase.FAILED))
    assert slurm.scheduler.reader.job(failed).exit_status == 3
    assert slurm.scheduler.job_record(node_failed).nodes == ("gpu02",)
    # The same through --json.
    by_json = {j.job_id: j for j in slurm.scheduler.list_jobs()}
    assert {job: by_json[job].state for job in expected} == {
        job: state for job, (state, _) in expected.items()
    }
