"""A PyTorchJob and its pods -> `JobStatus`, the scheduler's word on the job's current attempt.

The training operator writes the job's conditions (Created, Running, Restarting, Succeeded,
Failed, Suspended); the latest one that holds gives the phase. Pods say more, and sooner:
a pod that failed is the failure we act on even while the operator has yet to mark the job
Failed, and its container's `reason` (`OOMKilled`, `Error`) or the pod's own (`Evicted`) is a
better word for what happened than the condition's `PyTorchJobFailed`.

Attempts: autorecover numbers the attempts it starts with the annotation
`autorecover.io/attempt` on the job and on the pods it starts for that attempt; pods without
it belong to attempt 0. Only the current attempt's pods count, and never pods being deleted.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypedDict, cast

from autorecover.adapters.kubernetes.exclusions import (
    ObjectMeta,
    PodSpec,
    PyTorchJob,
    exclusions_of,
)
from autorecover.adapters.kubernetes.names import job_key
from autorecover.controllers.jobs.records import TERMINAL, JobPhase, JobStatus

ATTEMPT_ANNOTATION = "autorecover.io/attempt"
ATTEMPT_STARTED_ANNOTATION = "autorecover.io/attempt-started"  # when our requeue began it
REQUEUE_ACTION_ANNOTATION = "autorecover.io/requeue-action"  # the requeue in progress or done
REQUEUED_ANNOTATION = "autorecover.io/requeued"  # the requeue whose steps all completed
JOB_NAME_LABELS = ("training.kubeflow.org/job-name", "job-name")  # operator v1.x, then older

_ATTEMPT = re.compile(r"0|[1-9][0-9]{0,8}")
_TERMINAL_TYPES = frozenset({"Failed", "Succeeded"})
_PHASES: dict[str, JobPhase] = {
    "Created": JobPhase.PENDING,
    "Suspended": JobPhase.PENDING,  # resumes as a new start: waiting, not running
    "Running": JobPhase.RUNNING,
    "Restarting": JobPhase.RUNNING,  # the operator restarts pods within the attempt
    "Succeeded": JobPhase.SUCCEEDED,
    "Failed": JobPhase.FAILED,
}

# --- raw JSON at the edge: only the fields we read ------------------------------------------


class Condition(TypedDict, total=False):
    """One of a PyTorchJob's `status.conditions`."""

    type: str
    status: str  # "True", "False", "Unknown"
    reason: str
    message: str
    lastUpdateTime: str
    lastTransitionTime: str


class PyTorchJobStatus(TypedDict, total=False):
    """A PyTorchJob's status."""

    conditions: list[Condition]
    replicaStatuses: dict[str, dict[str, Any]]
    startTime: str
    completionTime: str
    lastReconcileTime: str


class TrainingJob(PyTorchJob, total=False):
    """A PyTorchJob with its status."""

    status: PyTorchJobStatus


class Terminated(TypedDict, total=False):
    """A container's terminated state."""

    exitCode: int
    signal: int
    reason: str
    message: str
    startedAt: str
    finishedAt: str


class ContainerState(TypedDict, total=False):
    """A container's state (one of running, waiting, terminated)."""

    running: dict[str, Any]
    waiting: dict[str, Any]
    terminated: Terminated


class ContainerStatus(TypedDict, total=False):
    """One container's status in a pod."""

    name: str
    state: ContainerState
    lastState: ContainerState
    restartCount: int
    ready: bool


class PodStatus(TypedDict, total=False):
    """A pod's status."""

    phase: str  # Pending, Running, Succeeded, Failed, Unknown
    reason: str  # e.g. "Evicted"
    message: str
    startTime: str
    containerStatuses: list[ContainerStatus]
    initContainerStatuses: list[ContainerStatus]


class Pod(TypedDict, total=False):
    """A pod of a PyTorchJob."""

    metadata: ObjectMeta
    spec: PodSpec
    status: PodStatus


# --- attempts and pods ----------------------------------------------------------------------


def job_attempt(job: Mapping[str, Any]) -> tuple[int, str | None]:
    """The job's attempt (its annotation, 0 without one) and, when it is malformed, why.

    A malformed attempt reads as 0 and never raises: the caller reports the reason.
    """
    name = cast(TrainingJob, job).get("metadata", {}).get("name", "?")
    raw = _annotations(job).get(ATTEMPT_ANNOTATION)
    if raw is None:
        return 0, None
    if not isinstance(raw, str) or not _ATTEMPT.fullmatch(raw):
        return 0, (
            f"job {name}: annotation {ATTEMPT_ANNOTATION}={str(raw)[:40]!r} is not a whole "
            "number >= 0; read as attempt 0"
        )
    return int(raw), None


def pod_attempt(pod: Mapping[str, Any]) -> int | None:
    """The attempt a pod belongs to (0 without the annotation); None when it is malformed."""
    raw = _annotations(pod).get(ATTEMPT_ANNOTATION)
    if raw is None:
        return 0
    return int(raw) if isinstance(raw, str) and _ATTEMPT.fullmatch(raw) else None


def pods_of(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> list[Pod]:
    """The job's pods of its current attempt that are not being deleted, by name.

    A pod is the job's when it is in the job's namespace and its job-name label (either
    spelling) names the job, so a list of every pod in the cluster may be passed.
    """
    meta = cast(TrainingJob, job).get("metadata", {})
    name, namespace = meta.get("name"), meta.get("namespace")
    attempt, _ = job_attempt(job)
    out: list[Pod] = []
    for raw in pods:
        pod = cast(Pod, raw)
        pod_meta = pod.get("metadata", {})
        labels = pod_meta.get("labels") or {}
        if not any(labels.get(k) == name for k in JOB_NAME_LABELS):
            continue
        if pod_meta.get("namespace", namespace) != namespace:
            continue
        if pod_meta.get("deletionTimestamp") or pod_attempt(raw) != attempt:
            continue
        out.append(pod)
    return sorted(out, key=lambda p: p.get("metadata", {}).get("name", ""))


def pod_failed(pod: Mapping[str, Any]) -> bool:
    """True when the pod has failed (its phase is `Failed`: evicted, or a container failed)."""
    return cast(Pod, pod).get("status", {}).get("phase") == "Failed"


def nodes_by_pod(pods: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Pod name -> the node it is bound to, for the pods that are bound."""
    out: dict[str, str] = {}
    for raw in pods:
        pod = cast(Pod, raw)
        node = pod.get("spec", {}).get("nodeName")
        name = pod.get("metadata", {}).get("name")
        if node and name:
            out[name] = node
    return out


# --- the status -----------------------------------------------------------------------------


def condition_phase(job: Mapping[str, Any], since: datetime | None = None) -> tuple[JobPhase, str]:
    """The phase from the job's latest condition that holds, and that condition's reason.

    A terminal condition (`Failed`, `Succeeded`) from before `since` (the current attempt's
    start) is an earlier attempt's and does not count: the operator may not have rewritten
    its status yet, and a stale cache may still show it. (Conditions keep whole seconds, so
    one from the attempt's first second is taken as older; a failed pod of the attempt
    still makes it FAILED.)"""
    conditions = cast(TrainingJob, job).get("status", {}).get("conditions") or []
    holding = [
        (i, c)
        for i, c in enumerate(conditions)
        if c.get("status") == "True" and c.get("type") in _PHASES
        and not (since is not None and c.get("type") in _TERMINAL_TYPES
                 and (parse_time(c.get("lastTransitionTime")) or _EPOCH) < since)
    ]  # fmt: skip
    if not holding:
        return JobPhase.PENDING, "Pending"
    # latest by transition time; ties (and missing times) by list order
    _, latest = max(
        holding, key=lambda ic: (parse_time(ic[1].get("lastTransitionTime")) or _EPOCH, ic[0])
    )
    kind = latest.get("type", "")
    return _PHASES[kind], latest.get("reason") or kind


def job_status(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> JobStatus:
    """The job's current attempt as `JobStatus` (pods of other attempts are ignored)."""
    typed = cast(TrainingJob, job)
    meta = typed.get("metadata", {})
    status = typed.get("status", {})
    attempt, _ = job_attempt(job)
    current = pods_of(job, pods)
    notes = _annotations(job)
    since = parse_time(notes.get(ATTEMPT_STARTED_ANNOTATION))
    phase, state = condition_phase(job, since)
    if notes.get(REQUEUE_ACTION_ANNOTATION, "") not in ("", notes.get(REQUEUED_ANNOTATION)):
        # autorecover's requeue is part-way (an engine restart came in between): the attempt
        # has not started, whatever the old attempt's status still says.
        phase, state = JobPhase.PENDING, "Requeueing"
    failed = sorted(
        (p for p in current if pod_failed(p)),
        key=lambda p: (finished_at(p) or _FAR, p.get("metadata", {}).get("name", "")),
    )
    if failed and phase not in TERMINAL:
        phase = JobPhase.FAILED  # the operator may be slow to write the condition
    if failed and phase is JobPhase.FAILED:
        state = pod_reason(failed[0]) or state
    ended: datetime | None = None
    if phase in TERMINAL:
        ended = parse_time(status.get("completionTime"))
        if ended is None and failed:
            ended = max((t for p in failed if (t := finished_at(p)) is not None), default=None)
    return JobStatus(
        job=job_key(meta.get("namespace", ""), meta.get("name", "")),
        phase=phase,
        state=state,
        attempt=attempt,
        nodes=tuple(sorted(set(nodes_by_pod(current).values()))),
        started=parse_time(status.get("startTime")),
        ended=ended,
        exit_codes=exit_codes(current),
        exclusions=exclusions_of(job),
    )


def exit_codes(pods: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, int], ...]:
    """Per node, the worst exit code of any container of these pods (non-zero first, highest).

    Both the current and the last terminated state count: a container the kubelet restarted
    within the pod keeps its earlier failure in `lastState`.
    """
    worst: dict[str, int] = {}
    for raw in pods:
        pod = cast(Pod, raw)
        node = pod.get("spec", {}).get("nodeName")
        if not node:
            continue
        for code in _codes(pod):
            if node not in worst or _badness(code) > _badness(worst[node]):
                worst[node] = code
    return tuple(sorted(worst.items()))


# --- helpers --------------------------------------------------------------------------------

_EPOCH = datetime.fromisoformat("1970-01-01T00:00:00+00:00")
_FAR = datetime.fromisoformat("9999-12-31T23:59:59+00:00")


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return cast(Pod, obj).get("metadata", {}).get("annotations") or {}


def _containers(pod: Pod) -> list[ContainerStatus]:
    status = pod.get("status", {})
    return [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]


def _terminated(pod: Pod) -> list[Terminated]:
    out: list[Terminated] = []
    for container in _containers(pod):
        for state in (container.get("state"), container.get("lastState")):
            terminated = (state or {}).get("terminated")
            if terminated:
                out.append(terminated)
    return out


def _codes(pod: Pod) -> list[int]:
    return [t["exitCode"] for t in _terminated(pod) if isinstance(t.get("exitCode"), int)]


def _badness(code: int) -> tuple[bool, int]:
    return code != 0, code


def pod_reason(pod: Pod) -> str:
    """The failed pod's own word: the pod's reason, else its failed container's.

    A reason on the pod (`Evicted`, `NodeLost`, `Shutdown`) means the node or kubelet ended
    it, and the container's reason then is only the consequence (`ContainerStatusUnknown`,
    `Error` on SIGTERM); otherwise the container says what happened (`OOMKilled`, `Error`).
    """
    reason = pod.get("status", {}).get("reason")
    if reason:
        return reason
    current = [(c.get("state") or {}).get("terminated") or {} for c in _containers(pod)]
    failing = [t for t in current if t.get("exitCode", 0) != 0 and t.get("reason")]
    if failing:  # the highest exit code's reason: 137 (OOMKilled) over 1 (Error)
        return max(failing, key=lambda t: t.get("exitCode", 0)).get("reason", "")
    return ""


def finished_at(pod: Pod) -> datetime | None:
    """When the pod's last container finished (None when none has)."""
    times = [t for x in _terminated(pod) if (t := parse_time(x.get("finishedAt"))) is not None]
    return max(times, default=None)


def parse_time(text: str | None) -> datetime | None:
    """RFC 3339 (`2026-11-29T10:00:02Z`) as an aware datetime; None when absent or malformed."""
    if not text or not isinstance(text, str):
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def pods_by_owner(
    pods: Iterable[dict[str, Any]], labels: Sequence[str]
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Pods grouped by (namespace, owner's name), the owner read from the first of `labels` a
    pod carries (a PyTorchJob's, a JobSet's); pods with none are left out."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for raw in pods:
        meta = raw.get("metadata") or {}
        carried = meta.get("labels") or {}
        name = next((carried[k] for k in labels if k in carried), None)
        if name is not None:
            out[(meta.get("namespace", ""), name)].append(raw)
    return out
