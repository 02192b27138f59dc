"""Reading jobs and nodes from the real cluster: `--json` and the `scontrol -o` fallback agree."""

from __future__ import annotations

from autorecover.adapters.slurm.reading import Reader, Transport
from autorecover.adapters.slurm.states import JobPhase, NodeCondition, node_status
from autorecover.testing.slurm.harness import SlurmHarness


def test_slurm_json_and_fallback_read_the_same_jobs_and_nodes(slurm: SlurmHarness) -> None:
    train = slurm.submit_training(
        nodes=2, sbatch=("--exclude=gpu04", "--comment=ckpt hourly; autorecover:on,user_restarts=3")
    )
    slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    pending = slurm.cluster.submit(["--nodes=4", "--gres=gpu:h100:8", "--wrap", "true"])
    slurm.cluster._scontrol(["scontrol", "update", "NodeName=gpu04", "State=DRAIN",
                             "Reason=person: fan noise, see ticket 12"])  # fmt: skip
    slurm.wait_job(pending, lambda j: j.state == "PENDING" and j.reason != "None", "pending")

    commands = slurm.cluster.commands()
    by_json = Reader(commands, Transport.JSON)
    by_scontrol = Reader(commands, Transport.SCONTROL)
    jobs_json, jobs_scontrol = by_json.jobs(), by_scontrol.jobs()
    nodes_json, nodes_scontrol = by_json.nodes(), by_scontrol.nodes()

    assert sorted(jobs_json, key=lambda j: j.job_id) == sorted(
        jobs_scontrol, key=lambda j: j.job_id
    )
    assert sorted(nodes_json, key=lambda n: n.name) == sorted(nodes_scontrol, key=lambda n: n.name)
    job = next(j for j in jobs_json if j.job_id == train.job_id)
    assert job.excluded == ("gpu04",)
    assert len(job.nodes) == 2 and "gpu04" not in job.nodes
    assert job.comment == "ckpt hourly; autorecover:on,user_restarts=3"
    assert job.stdout == str(train.output)
    assert job.requeue and job.batch
    assert by_json.job(train.job_id) == job  # one job, read through `scontrol show job -o ID`
    drained = next(n for n in nodes_json if n.name == "gpu04")
    assert drained.reason == "person: fan noise, see ticket 12"
    assert node_status(drained).condition is NodeCondition.DRAINED
    assert not node_status(drained).ours
    assert {n.name for n in nodes_json} == {"gpu01", "gpu02", "gpu03", "gpu04"}
    assert all(n.gres == "gpu:h100:8" for n in nodes_json)
