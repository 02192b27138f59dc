"""Golden lines for slurmstepd's reasons a step ended (signatures-slurm.toml)."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import found


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        ("slurmstepd: error: *** JOB 1943824 ON jz-iam06 CANCELLED AT 2023-03-06T03:17:51 DUE "
         "TO JOB REQUEUE ***", "slurm.job_requeued", Blame.TRANSIENT),
        ("slurmstepd: error: *** STEP 1943824.0 ON jz-iam06 CANCELLED AT 2023-03-06T03:17:51 DUE "
         "TO TASK FAILURE ***", "slurm.task_failure_kill", Blame.SYMPTOM),
        ("slurmstepd: error: *** STEP 77.0 STEPD TERMINATED ON gpu-a03 AT 2026-01-05T08:00:00 DUE "
         "TO JOB NOT ENDING WITH SIGNALS ***", "slurm.unkillable_step", Blame.HARDWARE),
        # ArjunaCluster/ArjunaUsers issue #46
        ("slurmstepd: error: execve(): /tmp/slurmd/job00089/slurm_script: No such file or "
         "directory", "slurm.batch_script_missing", Blame.TRANSIENT),
    ],
)  # fmt: skip
def test_slurmstepd_reasons(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals


def test_a_user_cancel_is_not_a_requeue() -> None:
    line = "slurmstepd: error: *** JOB 77 ON gpu-a03 CANCELLED AT 2026-01-05T08:00:00 ***"
    assert "slurm.job_requeued" not in {s for s, _, _ in found(line, Source.LOGS)}


def test_a_user_program_exec_failure_is_not_the_spool() -> None:
    # the user's own program missing is the job's mistake, whatever slurmstepd prints around it
    line = "slurmstepd: error: execve(): /home/u/bin/train.sh: No such file or directory"
    assert "slurm.batch_script_missing" not in {s for s, _, _ in found(line, Source.LOGS)}


# --- pyxis and enroot starting the step's container (round-6 sweep: container runtimes) -------


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # NVIDIA/pyxis issue #61: the command the job asked for is not in its image
        ("slurmstepd: error: pyxis:     enroot-switchroot: failed to execute: /bin/bash: No such "
         "file or directory", "slurm.enroot_exec_failed", Blame.APPLICATION),
        ("slurmstepd: error: pyxis: container start failed with error code: 1",
         "slurm.pyxis_start_failed", Blame.SYMPTOM),
        ("slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
         "slurm.spank_plugin_failed", Blame.SYMPTOM),
        ("slurmstepd: error: Failed to invoke spank plugin stack", "slurm.spank_plugin_failed",
         Blame.SYMPTOM),
        # NVIDIA/pyxis issues #4 and #6: the node's plugin setup or kernel
        ("[2019-09-24T10:10:06.901] [321.0] error: pyxis: couldn't mkdir /run/pyxis/100005: No "
         "such file or directory", "slurm.pyxis_node_setup", Blame.HARDWARE),
        ("slurmstepd: error: pyxis: seccomp filter failed", "slurm.pyxis_node_setup",
         Blame.HARDWARE),
        # NVIDIA/pyxis issue #101 and NVIDIA/enroot issue #238: a hook restating its own error
        ("slurmstepd: error: pyxis: [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return "
         "code 1", "slurm.enroot_hook_failed", Blame.SYMPTOM),
        ("enroot-nsenter: failed to create user namespace: Permission denied",
         "slurm.enroot_userns_denied", Blame.HARDWARE),
        # NVIDIA/enroot issue #36: a --mount source that does not exist
        ("enroot-mount: failed to mount: /opt/yingbai at /home/yingbai/.local/share/enroot/ubuntu"
         "/opt/yingbai: No such file or directory", "slurm.enroot_mount_missing",
         Blame.APPLICATION),
    ],
)  # fmt: skip
def test_container_start_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals


def test_container_setup_names_no_node_alone() -> None:
    """The node-side pyxis and enroot lines stay below the weight that names a node alone."""
    for line in (
        "slurmstepd: error: pyxis: seccomp filter failed",
        "enroot-nsenter: failed to create user namespace: Permission denied",
    ):
        assert all(w < 60 for _, b, w in found(line, Source.LOGS) if b is Blame.HARDWARE), line


@pytest.mark.parametrize(
    ("signal", "line"),
    [
        # enroot-nsenter execs enroot's own helpers: its exec failure is not the job's command
        ("slurm.enroot_exec_failed", "enroot-nsenter: failed to execute: /usr/bin/bash: No such "
         "file or directory"),
        # any program's hook runner: only enroot's hooks.d entries with its [ERROR] prefix
        ("slurm.enroot_hook_failed", "run-parts: /etc/kernel/postinst.d/zz-update-grub exited "
         "with return code 2"),
        ("slurm.enroot_mount_missing", "enroot-mount: failed to mount: tmpfs at /run: Operation "
         "not permitted"),
        ("slurm.spank_plugin_failed", "srun: debug:  spank: opening plugin stack "
         "/etc/slurm/plugstack.conf"),
    ],
)  # fmt: skip
def test_container_start_neighbours_do_not_match(signal: str, line: str) -> None:
    assert signal not in {s for s, _, _ in found(line, Source.LOGS)}
