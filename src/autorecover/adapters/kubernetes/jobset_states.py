"""A JobSet (`jobset.x-k8s.io/v1alpha2`) and its pods -> `JobStatus` (pure).

The attempt is JobSet's own count, `status.restarts`: the JobSet controller labels every
child Job and pod with the restart it belongs to (`jobset.sigs.k8s.io/restart-attempt`),
deletes those of earlier restarts and creates the next ones from the templates. Only the
current restart's pods count, and never pods being deleted. A restart the controller does by
itself (the user's `failurePolicy`) is a new attempt too; the ones autorecover asks for
leave `status.restartsCountTowardsMax` alone, as the policy's
`RestartJobSetAndIgnoreMaxRestarts` does, so they never spend the user's `maxRestarts`.

The controller writes `Completed` or `Failed` when the JobSet ends and `Suspended` while it
is held; between them, a current pod running means the attempt runs. A failed pod is the
failure even before the controller marks the JobSet (which then deletes the other child
Jobs and their pods: the failed ones stay, with their exit codes).

Exclusions are read from the current pods' node affinity (written into each child Job's pod
template by the requeue, see `jobsets.py`), so they are what the scheduler enforces now;
before the restart's pods exist, from what its Jobs carry (the user's templates' and ours).
While a requeue is under way the attempt stays the last one, even once `status.restarts` is
raised: the new restart is not the attempt until the requeue is done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypedDict, cast

from autorecover.adapters.kubernetes.exclusions import ObjectMeta, excluded_in, ours
from autorecover.adapters.kubernetes.names import jobset_key
from autorecover.adapters.kubernetes.states import (
    REQUEUE_ACTION_ANNOTATION,
    REQUEUED_ANNOTATION,
    Pod,
    exit_codes,
    finished_at,
    job_attempt,
    nodes_by_pod,
    parse_time,
    pod_failed,
    pod_reason,
)
from autorecover.controllers.jobs.records import TERMINAL, JobPhase, JobStatus

JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
RESTART_LABEL = "jobset.sigs.k8s.io/restart-attempt"
REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
_ENDED: dict[str, JobPhase] = {"Completed": JobPhase.SUCCEEDED, "Failed": JobPhase.FAILED}


class JobSetCondition(TypedDict, total=False):
    """One of a JobSet's `status.conditions` (metav1.Condition)."""

    type: str  # Completed, Failed, Suspended, StartupPolicyInProgress, ...
    status: str
    reason: str
    message: str
    lastTransitionTime: str


class JobSetStatus(TypedDict, total=False):
    """A JobSet's status, as far as we read it."""

    conditions: list[JobSetCondition]
    restarts: int
    restartsCountTowardsMax: int
    terminalState: str
    replicatedJobsStatus: list[dict[str, Any]]


class ReplicatedJob(TypedDict, total=False):
    """One replicated job: `replicas` batch Jobs from one Job template."""

    name: str
    replicas: int
    dependsOn: list[dict[str, Any]]
    template: dict[str, Any]


class JobSetSpec(TypedDict, total=False):
    """A JobSet's spec, as far as we read it."""

    replicatedJobs: list[ReplicatedJob]
    suspend: bool
    failurePolicy: dict[str, Any]


class JobSet(TypedDict, total=False):
    """A `jobset.x-k8s.io/v1alpha2` JobSet."""

    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: JobSetSpec
    status: JobSetStatus


def restarts(jobset: Mapping[str, Any]) -> int:
    """The JobSet's restart count (0 before its first status)."""
    value = cast(JobSet, jobset).get("status", {}).get("restarts", 0)
    return value if isinstance(value, int) and value >= 0 else 0


def controlled_by(obj: Mapping[str, Any]) -> str | None:
    """The kind of the object's controlling owner (`TrainJob` for a Trainer's JobSet)."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("kind", ""))
    return None


def belongs(jobset: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """True when a pod (or child Job) is this JobSet's: its namespace and JobSet label."""
    meta = cast(JobSet, jobset).get("metadata", {})
    other = cast(Pod, obj).get("metadata", {})
    labels = other.get("labels") or {}
    return (labels.get(JOBSET_NAME_LABEL) == meta.get("name")
            and other.get("namespace", meta.get("namespace")) == meta.get("namespace"))  # fmt: skip


def restart_of(obj: Mapping[str, Any]) -> int | None:
    """The restart a pod or child Job belongs to, from its label; None when unreadable."""
    raw = (cast(Pod, obj).get("metadata", {}).get("labels") or {}).get(RESTART_LABEL)
    return int(raw) if isinstance(raw, str) and raw.isdigit() and len(raw) < 10 else None


def current_pods(jobset: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> list[Pod]:
    """The JobSet's pods of its current restart that are not being deleted, by name."""
    now = restarts(jobset)
    out = [cast(Pod, p) for p in pods
           if belongs(jobset, p) and restart_of(p) == now
           and not cast(Pod, p).get("metadata", {}).get("deletionTimestamp")]  # fmt: skip
    return sorted(out, key=lambda p: p.get("metadata", {}).get("name", ""))


def main_container(pod: Mapping[str, Any]) -> str:
    """The pod's first container: the one whose output is the training's."""
    containers = (pod.get("spec") or {}).get("containers") or []
    return str(containers[0].get("name", "")) if containers else ""


def jobset_status(jobset: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> JobStatus:
    """The JobSet's current restart as `JobStatus` (pods of other restarts are ignored)."""
    typed = cast(JobSet, jobset)
    meta = typed.get("metadata", {})
    notes = meta.get("annotations") or {}
    current = current_pods(jobset, pods)
    phase, state = _phase(typed, current)
    requeueing = notes.get(REQUEUE_ACTION_ANNOTATION, "") not in (
        "", notes.get(REQUEUED_ANNOTATION))  # fmt: skip
    if requeueing:
        # autorecover's requeue is part-way: the next restart has not started, whatever the
        # status (and the last restart's failed pods, until it is raised) still say.
        phase, state = JobPhase.PENDING, "Requeueing"
    failed = sorted(
        (p for p in current if pod_failed(p) and not requeueing),
        key=lambda p: (finished_at(p) or _FAR, p.get("metadata", {}).get("name", "")),
    )
    if failed and phase not in TERMINAL:
        phase = JobPhase.FAILED  # the controller may be slow to write the condition
    if failed and phase is JobPhase.FAILED:
        state = pod_reason(failed[0]) or state
    ended: datetime | None = None
    if phase in TERMINAL:
        ended = max((t for p in failed if (t := finished_at(p)) is not None), default=None)
        ended = ended or _condition_time(typed)
    starts = [t for p in current if (t := parse_time(p.get("status", {}).get("startTime")))]
    attempt = restarts(jobset)
    if requeueing:  # the restart asked for is not this attempt until the requeue is done
        asked, _ = job_attempt(jobset)
        attempt = min(attempt, max(asked - 1, 0)) if asked else attempt
    return JobStatus(
        job=jobset_key(meta.get("namespace", ""), meta.get("name", "")),
        phase=phase,
        state=state,
        attempt=attempt,
        nodes=tuple(sorted(set(nodes_by_pod(current).values()))),
        started=min(starts, default=None),
        ended=ended,
        exit_codes=exit_codes(current),
        exclusions=_exclusions(typed, current),
    )


def _exclusions(jobset: JobSet, current: Sequence[Pod]) -> tuple[str, ...]:
    """What the scheduler enforces: the current pods' node affinity; before they exist, what
    the restart's Jobs carry: the user's templates' and ours (the annotation)."""
    if current:
        return excluded_in([{"template": {"spec": p.get("spec", {})}} for p in current])
    templates = [r.get("template", {}).get("spec", {})
                 for r in jobset.get("spec", {}).get("replicatedJobs") or []]  # fmt: skip
    return tuple(sorted(set(excluded_in(templates)) | set(ours(jobset))))


def _phase(jobset: JobSet, current: Sequence[Pod]) -> tuple[JobPhase, str]:
    conditions = jobset.get("status", {}).get("conditions") or []
    holding = {c.get("type", ""): c for c in conditions if c.get("status") == "True"}
    for kind, phase in _ENDED.items():
        if kind in holding:
            return phase, holding[kind].get("reason") or kind
    if "Suspended" in holding or jobset.get("spec", {}).get("suspend"):
        return JobPhase.PENDING, "Suspended"
    if any(p.get("status", {}).get("phase") == "Running" for p in current):
        return JobPhase.RUNNING, "Running"
    return JobPhase.PENDING, "Pending"


def _condition_time(jobset: JobSet) -> datetime | None:
    """When the JobSet's terminal condition was written (whole seconds)."""
    for c in jobset.get("status", {}).get("conditions") or []:
        if c.get("type") in _ENDED and c.get("status") == "True":
            return parse_time(c.get("lastTransitionTime"))
    return None


_FAR = datetime.fromisoformat("9999-12-31T23:59:59+00:00")
