"""Identity detection from torchrun, Slurm and Kubeflow environments, and init() overrides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover import telemetry
from autorecover.telemetry import Identity, MemoryOutput, detect_identity

# What torchrun (torch.distributed.elastic) puts in each worker's environment.
TORCHRUN = {
    "RANK": "5", "LOCAL_RANK": "1", "WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8",
    "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "2", "ROLE_RANK": "5", "ROLE_NAME": "default",
    "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "llm-70b-run",
    "TORCHELASTIC_RESTART_COUNT": "2", "TORCHELASTIC_MAX_RESTARTS": "3",
}  # fmt: skip
# An srun task (one per GPU).
SLURM = {
    "SLURM_JOB_ID": "481516", "SLURM_JOB_NAME": "llm", "SLURM_PROCID": "13",
    "SLURM_LOCALID": "5", "SLURM_NTASKS": "64", "SLURM_NNODES": "8",
    "SLURMD_NODENAME": "gpu-017", "SLURM_RESTART_COUNT": "1", "SLURM_NODEID": "1",
}  # fmt: skip
# training-operator v1 PyTorchJob pod without torchrun (nproc_per_node 1): RANK is the
# replica's index (worker N -> N + 1), WORLD_SIZE the number of replicas times nproc.
KUBEFLOW = {
    "MASTER_ADDR": "llm-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "4", "RANK": "3",
    "PET_NPROC_PER_NODE": "1", "PET_NODE_RANK": "3", "PET_NNODES": "4",
    "PYTHONUNBUFFERED": "0", "HOSTNAME": "llm-worker-2",
}  # fmt: skip


def test_torchrun() -> None:
    ident = detect_identity(TORCHRUN, hostname="node-a")
    assert ident == Identity(
        job="llm-70b-run", rank=5, local_rank=1, world_size=16, node="node-a",
        restart_count=2, launcher="torchelastic",
    )  # fmt: skip


def test_torchrun_default_run_id_is_no_job_name() -> None:
    ident = detect_identity({**TORCHRUN, "TORCHELASTIC_RUN_ID": "none"}, hostname="h")
    assert ident.job is None and ident.rank == 5


def test_torchrun_recognised_without_run_id() -> None:
    env = {k: v for k, v in TORCHRUN.items() if not k.startswith("TORCHELASTIC")}
    ident = detect_identity(env, hostname="h")
    assert ident.launcher == "torchelastic" and ident.rank == 5 and ident.restart_count == 0


def test_slurm() -> None:
    ident = detect_identity(SLURM, hostname="ignored")
    assert ident == Identity(
        job="481516", rank=13, local_rank=5, world_size=64, node="gpu-017", restart_count=1,
        launcher="slurm",
    )  # fmt: skip


def test_slurm_array_task_and_nprocs() -> None:
    env = {**SLURM, "SLURM_ARRAY_JOB_ID": "481500", "SLURM_ARRAY_TASK_ID": "16"}
    del env["SLURM_NTASKS"]
    env["SLURM_NPROCS"] = "32"
    ident = detect_identity(env)
    assert ident.job == "481500_16" and ident.world_size == 32


def test_slurm_batch_script_without_step() -> None:
    ident = detect_identity({"SLURM_JOB_ID": "7", "SLURMD_NODENAME": "n1"}, hostname="x")
    assert (ident.job, ident.rank, ident.world_size, ident.node) == ("7", 0, 1, "n1")


def test_torchrun_inside_slurm() -> None:
    # one srun task per node runs torchrun: SLURM_PROCID is the node, torchrun knows the rank
    env = {**SLURM, "SLURM_PROCID": "1", "SLURM_NTASKS": "2", **TORCHRUN}
    ident = detect_identity(env)
    assert (ident.rank, ident.local_rank, ident.world_size) == (5, 1, 16)
    assert ident.job == "481516" and ident.node == "gpu-017"
    assert ident.restart_count == 3  # 1 Slurm requeue + 2 torchelastic restarts
    assert ident.launcher == "slurm+torchelastic"


def test_kubeflow_pytorchjob() -> None:
    ident = detect_identity(KUBEFLOW)
    assert ident == Identity(
        job="llm", rank=3, local_rank=0, world_size=4, node="llm-worker-2", restart_count=0,
        launcher="kubeflow",
    )  # fmt: skip


def test_kubeflow_master_pod() -> None:
    env = {**KUBEFLOW, "RANK": "0", "HOSTNAME": "llm-master-0"}
    ident = detect_identity(env)
    assert (ident.job, ident.rank, ident.node) == ("llm", 0, "llm-master-0")


def test_kubeflow_rank_from_pod_name_when_rank_missing() -> None:
    env = {k: v for k, v in KUBEFLOW.items() if k != "RANK"}
    assert detect_identity(env).rank == 3  # worker-2 comes after master-0


def test_kubeflow_job_from_master_addr_and_node_name() -> None:
    env = {"PET_MASTER_ADDR": "bert-ft-master-0", "PET_NNODES": "2", "NODE_NAME": "gpu-9"}
    ident = detect_identity(env, hostname="some-pod")
    assert (ident.job, ident.node, ident.launcher) == ("bert-ft", "gpu-9", "kubeflow")


def test_kubeflow_with_torchrun_in_the_pod() -> None:
    env = {**KUBEFLOW, **TORCHRUN, "HOSTNAME": "llm-worker-2"}
    ident = detect_identity(env)
    assert ident.job == "llm"  # the PyTorchJob's name beats the rendezvous id
    assert (ident.rank, ident.local_rank, ident.world_size) == (5, 1, 16)
    assert ident.launcher == "kubeflow+torchelastic"


def test_no_launcher() -> None:
    ident = detect_identity({}, hostname="laptop")
    assert ident == Identity(node="laptop")


def test_hostname_from_environment() -> None:
    assert detect_identity({"HOSTNAME": "box"}).node == "box"


@pytest.mark.parametrize("bad", ["", "  ", "abc", "-1", "1.5", "99999999999", "٣"])
def test_bad_numbers_fall_back(bad: str) -> None:
    ident = detect_identity({**TORCHRUN, "RANK": bad, "WORLD_SIZE": bad}, hostname="h")
    assert (ident.rank, ident.world_size) == (0, 1)


ENV_KEYS = sorted({*TORCHRUN, *SLURM, *KUBEFLOW, "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"})


@given(st.dictionaries(st.sampled_from(ENV_KEYS), st.text(max_size=20)), st.text(max_size=30))
def test_detection_never_raises(env: dict[str, str], hostname: str) -> None:
    ident = detect_identity(env, hostname=hostname or None)
    assert ident.rank >= 0 and ident.local_rank >= 0 and ident.world_size >= 0
    assert ident.restart_count >= 0 and ident.launcher


def test_init_overrides_detection() -> None:
    out = MemoryOutput()
    rec = telemetry.init(
        output=out, env=SLURM, rank=2, job="override", node="n9", restart_count=0,
        install_hooks=False, background=False, hang=None,
    )  # fmt: skip
    assert rec.identity == Identity(job="override", rank=2, local_rank=5, world_size=64,
                                    node="n9", restart_count=0, launcher="slurm")  # fmt: skip
    rec.close()
    (init,) = out.records("init")
    assert (init["rank"], init["job"], init["node"], init["world_size"]) == (
        2,
        "override",
        "n9",
        64,
    )


def test_init_reads_the_environment_when_called(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in SLURM.items():
        monkeypatch.setenv(key, value)
    rec = telemetry.init(output=MemoryOutput(), install_hooks=False, background=False, hang=None)
    assert rec.identity.job == "481516" and rec.identity.rank == 13
