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
