"""A job's output on the real cluster: found from Slurm's record, followed, scanned."""

from __future__ import annotations

import io
import sys
import time
from datetime import UTC, datetime

from autorecover.adapters.slurm.output import JobOutput, find_output_files
from autorecover.adapters.slurm.states import JobPhase
from autorecover.domain.records import Source
from autorecover.parsing.scanning import Scanner
from autorecover.testing.slurm.harness import SlurmHarness


def test_slurm_output_is_found_followed_and_scanned(slurm: SlurmHarness, scanner: Scanner) -> None:
    train = slurm.submit_training(nodes=2, checkpoint_every=5)
    job = slurm.wait_phase(train.job_id, JobPhase.RUNNING)
    # slurmstepd creates the file a moment after Slurm reports RUNNING.
    deadline = time.monotonic() + 15
    while not find_output_files(job) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert find_output_files(job) == (train.output,)
    follow = JobOutput(job)
    slurm.wait_checkpoint(train, 5)
    first = follow.read()
    assert first and {path for path, _ in first} == {train.output}
    # A requeue appends (--open-mode=append): following goes on where it was.
    slurm.scheduler.requeue(train.job_id, slurm.provenance("transient"))
    slurm.wait_attempts(train, 4)
    more = follow.read()
    lines = [line for _, line in first + more]
    assert follow.followers[train.output].truncations == 0
    assert any(b"attempt restart=1" in line for line in lines)
    # The scanner reads it as it reads any job log: srun -l prefixes, telemetry progress.
    result = scanner.scan(io.BytesIO(b"\n".join(lines) + b"\n"), node=job.nodes[0],
                          source=Source.LOGS, reference=datetime.now(UTC))  # fmt: skip
    assert result.activity.progress_records > 0


def test_slurm_output_per_node_and_per_task_files(slurm: SlurmHarness, scanner: Scanner) -> None:
    jobs = slurm.cluster.base / "jobs"
    script = jobs / "per-task.sh"
    script.write_text(
        "#!/bin/bash\n"
        f"srun -l -o {jobs}/task-%j-%t.out {sys.executable} -c "
        '\'import os; print("rank", os.environ["SLURM_PROCID"], "Traceback (most recent '
        'call last):"); print("RuntimeError: CUDA error: an illegal memory access was '
        "encountered\")'\n"
    )
    job_id = slurm.cluster.submit(["--nodes=2", "--ntasks-per-node=1",
                                   f"--output={jobs}/batch-%j-%N.out"], script)  # fmt: skip
    job = slurm.wait_phase(job_id, JobPhase.SUCCEEDED)

    batch = find_output_files(job)
    tasks = find_output_files(job, extra=(f"{jobs}/task-%j-%t.out",))

    assert len(batch) == 1 and batch[0].name.startswith(f"batch-{job_id}-")  # %N: the host
    assert [p.name for p in tasks if p.name.startswith("task-")] == [
        f"task-{job_id}-0.out", f"task-{job_id}-1.out"
    ]  # fmt: skip
    text = b"".join(p.read_bytes() for p in tasks if p.name.startswith("task-"))
    assert text.count(b"illegal memory access") == 2
    result = scanner.scan(io.BytesIO(text), node=job.nodes[0], source=Source.LOGS,
                          reference=datetime.now(UTC))  # fmt: skip
    assert any(b"illegal memory access" in f.text.encode() for f in result.findings)
