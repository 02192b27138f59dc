"""The scheduler's own final word on a job (`job.json`'s `state`), as a finding.

Slurm's `PREEMPTED`, `TIMEOUT`, `OUT_OF_MEMORY` and `NODE_FAIL` and Kubernetes' pod reasons
(`OOMKilled`, `Evicted`, `DisruptionTarget`, `Preempted`, `NodeShutdown`) say what happened
to the job as a whole; attribution weighs them like any other line. Slurm's `DEADLINE` (the
job's `--deadline` passed: slurm/src/common/slurm_protocol_defs.c, job_state_string) is its
time limit by another clock, and `BOOT_FAIL` ("terminated due to launch failure, typically due
to a hardware failure", sacct's man page) a node failure before the job ran; Kubernetes'
`DeadlineExceeded` (activeDeadlineSeconds) and `NodeLost` (the node controller's reason for a
pod whose node stopped answering) are read as the catalog reads the same words in a line.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Finding, JobRecord, Source

STATE_SIGNALS: dict[str, tuple[str, Blame, int]] = {
    "PREEMPTED": ("slurm.preempted", Blame.TRANSIENT, 90),
    "TIMEOUT": ("slurm.time_limit", Blame.TRANSIENT, 80),
    "OUT_OF_MEMORY": ("slurm.oom_kill", Blame.APPLICATION, 75),
    "NODE_FAIL": ("slurm.node_fail", Blame.SYMPTOM, 60),
    "OOMKilled": ("k8s.oomkilled", Blame.APPLICATION, 75),
    "Evicted": ("k8s.evicted", Blame.TRANSIENT, 70),
    "DisruptionTarget": ("k8s.disruption_target", Blame.TRANSIENT, 70),
    "Preempted": ("k8s.preempted", Blame.TRANSIENT, 80),
    "NodeShutdown": ("k8s.node_shutdown", Blame.TRANSIENT, 70),
    "DEADLINE": ("slurm.time_limit", Blame.TRANSIENT, 80),
    "BOOT_FAIL": ("slurm.node_fail", Blame.SYMPTOM, 60),
    "DeadlineExceeded": ("cloud.k8s_active_deadline", Blame.TRANSIENT, 60),
    "NodeLost": ("cloud.k8s_pod_node_lost", Blame.SYMPTOM, 25),
}


def state_findings(job: JobRecord) -> list[Finding]:
    """The scheduler's own final word, as a finding from `job.json`."""
    hit = STATE_SIGNALS.get(job.state)
    if hit is None:
        return []
    signal, blame, weight = hit
    return [
        Finding(
            signal=signal,
            node=min(job.nodes, default=""),  # any node: the job's word; not the list's order
            source=Source.JOB,
            line=job.state_line,
            text=f'"state": "{job.state}"',
            blame=blame,
            weight=weight,
            at=job.ended,
        )
    ]
