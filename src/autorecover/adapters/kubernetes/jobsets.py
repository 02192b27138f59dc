"""Job recovery's `JobSchedulerPort` for JobSets (`jobset.x-k8s.io/v1alpha2`).

* `collect()` — the JobSet and pod informers' caches, through `policy.watched_job` with
  `jobset_states.jobset_status` (the same annotations as a PyTorchJob's; the attempt is
  JobSet's `status.restarts`). It follows the current pods' first container's log and resumes
  JobSets whose requeue delay has passed.
* `requeue(job, exclude, delay_s)` — a JobSet restart done the controller's own way, in steps
  that are each safe to repeat, with its state on the JobSet so an engine restart finishes it:
  1. annotate the JobSet (the action, the restart it asks for, provenance) and suspend it;
  2. raise `status.restarts` by one and drop a terminal condition, leaving
     `restartsCountTowardsMax` as it is: what JobSet's `RestartJobSetAndIgnoreMaxRestarts`
     does, so the restart never spends the user's `failurePolicy.maxRestarts`. The controller
     then deletes the child Jobs of earlier restarts (their pods with them; those on excluded
     nodes we delete at once, without grace) and creates the next restart's, suspended;
  3. write the exclusions into every new child Job's pod template (hostname `NotIn`, merged
     with the user's affinity as for a PyTorchJob). JobSet's validating webhook refuses any
     change to the JobSet's own templates' affinity, even while it is suspended, but a batch
     Job that is suspended and never started takes new node affinity, and JobSet's resume
     keeps it;
  4. resume the JobSet (`suspend: false`), or, with a delay, record `autorecover.io/resume-at`
     and leave it suspended until a pass sees the time pass.
  The scheduler (default or KAI) places the new pods; the controller verifies placement from
  `collect()`. The JobSet's own spec stays the user's: a restart the JobSet controller does
  later by itself (the user's failure policy) builds its Jobs from the user's templates.
* `stop(job)` — suspend the JobSet for good (`autorecover.io/stopped`); its object stays.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, ClassVar

from lightkube.resources.core_v1 import Pod

from autorecover.adapters.kubernetes import marks
from autorecover.adapters.kubernetes.client import ConflictError, KubeSession
from autorecover.adapters.kubernetes.events import EventRecorder, job_regarding
from autorecover.adapters.kubernetes.exclusions import EXCLUDED_ANNOTATION
from autorecover.adapters.kubernetes.failures import FailureTimes
from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.adapters.kubernetes.jobset_restarts import (
    CONFLICT_TRIES,
    JOBS_READY_S,
    JobSet,
    JobSetRestarts,
)
from autorecover.adapters.kubernetes.jobset_states import (
    JOBSET_NAME_LABEL,
    controlled_by,
    current_pods,
    jobset_status,
    main_container,
    restart_of,
    restarts,
)
from autorecover.adapters.kubernetes.logs import LogSource, LogSpool, forget_others
from autorecover.adapters.kubernetes.names import parse_jobset_key
from autorecover.adapters.kubernetes.policy import watched_job
from autorecover.adapters.kubernetes.states import (
    ATTEMPT_ANNOTATION,
    ATTEMPT_STARTED_ANNOTATION,
    REQUEUE_ACTION_ANNOTATION,
    REQUEUED_ANNOTATION,
    pods_by_owner,
)
from autorecover.controllers.jobs.records import WatchedJob
from autorecover.controllers.ports import Clock, Provenance, TransientError
from autorecover.domain.jobs.settings import SitePolicy

log = logging.getLogger(__name__)
RESUME_AT = "autorecover.io/resume-at"
STOPPED = "autorecover.io/stopped"


@dataclass
class KubeJobSets:
    """`JobSchedulerPort` for JobSets."""

    session: KubeSession
    jobsets: ObjectCache[Any]
    pods: ObjectCache[Pod]
    clock: Clock
    spool: LogSpool
    site: SitePolicy | None = None
    jobs_ready_s: float = JOBS_READY_S
    events: EventRecorder | None = None
    failures: FailureTimes = field(init=False)
    steps: JobSetRestarts = field(init=False)
    # The object that carries the requeue's annotations and `spec.suspend`: the JobSet here,
    # its TrainJob in `KubeTrainJobs`.
    HOLDER: ClassVar[type[Any]] = JobSet
    KIND: ClassVar[str] = "JobSet"
    API_VERSION: ClassVar[str] = "jobset.x-k8s.io/v1alpha2"

    def __post_init__(self) -> None:
        self.failures = FailureTimes(self.clock)
        self.failures.watch(self.pods)
        self.steps = JobSetRestarts(self.session, self.jobs_ready_s)

    # --- reads ---------------------------------------------------------------------------------

    def watched(self) -> Sequence[WatchedJob]:
        """Every JobSet that opted in; the spool forgets the jobs no longer watched."""
        out = self.collect()
        forget_others(self.spool, {w.job for w in out})
        return out

    def collect(self) -> list[WatchedJob]:
        """Every JobSet that opted in, with its current restart's status."""
        self.jobsets.wait_synced()
        self.pods.wait_synced()
        everyone = self.pods.dicts()
        by_set = pods_by_owner(everyone, (JOBSET_NAME_LABEL,))
        gone_by_set = pods_by_owner(self.failures.departed(everyone), (JOBSET_NAME_LABEL,))
        out: list[WatchedJob] = []
        for obj in self.jobsets.items():
            jobset = obj.to_dict()
            if controlled_by(jobset) == "TrainJob":
                continue  # recovered as its TrainJob (trainjobs.py)
            meta = jobset.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            pods = by_set.get(key, [])
            watched = watched_job(jobset, pods, self.site, jobset_status)
            if watched is None:
                continue
            current = current_pods(jobset, pods)
            gone = current_pods(jobset, gone_by_set.get(key, []))
            out.append(self.failures.precise(self.failures.placed(watched, gone), current))
            self._follow(watched, current)
            self.spool.prune(watched.job, watched.status.attempt)
            self._resume_if_due(jobset)
        return out

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes the restart's pods on `node` logged, from `offset`."""
        return self.spool.read(job, attempt, node, offset, limit)

    # --- mutations -----------------------------------------------------------------------------

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Restart the JobSet's gang on nodes other than `exclude`, after `delay_s`."""
        namespace, name = self._parse(job)
        self.session.call(self._requeue(namespace, name, list(exclude), delay_s, provenance),
                          timeout_s=self.jobs_ready_s + 15)  # fmt: skip

    def stop(self, job: str, provenance: Provenance) -> None:
        """Suspend the JobSet for good; its object and history stay."""
        namespace, name = self._parse(job)

        async def act() -> None:
            current = await self.steps.get(self.HOLDER, namespace, name)
            if _notes(current).get(STOPPED) == provenance.action_id:
                return
            await self.steps.patch(self.HOLDER, namespace, name, {
                "metadata": {"annotations": {**marks.provenance_annotations(provenance),
                                             STOPPED: provenance.action_id}},
                "spec": {"suspend": True},
            })  # fmt: skip
            if self.events is not None:
                await self.events.write(job_regarding(current, self.KIND, self.API_VERSION), "Stop",
                                        "Stopped", provenance, warning=True)  # fmt: skip

        self.session.call(act())

    # --- requeue steps --------------------------------------------------------------------------

    async def _requeue(
        self, namespace: str, name: str, exclude: list[str], delay_s: float, prov: Provenance
    ) -> None:
        for tries in range(CONFLICT_TRIES):
            current = await self.steps.get(self.HOLDER, namespace, name)
            notes = _notes(current)
            if notes.get(REQUEUED_ANNOTATION) == prov.action_id:
                return  # done before (a repeat after a crash or a retry)
            if notes.get(REQUEUE_ACTION_ANNOTATION) == prov.action_id:
                target = int(notes.get(ATTEMPT_ANNOTATION, "0"))
                break  # prepared before an interruption: go on from there
            target = await self._restarts_now(namespace, name, current) + 1
            try:
                await self.steps.patch(
                    self.HOLDER, namespace, name, self._prepare(current, target, prov)
                )
                break
            except ConflictError:
                if tries == CONFLICT_TRIES - 1:
                    raise
        await self._restart(namespace, name, target)
        await self.steps.delete_on(namespace, name, target, exclude)
        users = await self.steps.exclude(namespace, name, target, exclude)
        ours = sorted(set(exclude) - users)
        resume: dict[str, Any] = {"metadata": {"annotations": {
            REQUEUED_ANNOTATION: prov.action_id, EXCLUDED_ANNOTATION: ",".join(ours) or None,
        }}}  # fmt: skip
        if delay_s > 0:
            at = self.clock.now() + timedelta(seconds=delay_s)
            resume["metadata"]["annotations"][RESUME_AT] = at.isoformat()
        else:
            resume["metadata"]["annotations"][RESUME_AT] = None
            resume["spec"] = {"suspend": False}
        await self.steps.patch(self.HOLDER, namespace, name, resume)
        if self.events is not None:
            where = f" without {', '.join(exclude)}" if exclude else " on the same nodes"
            told = replace(prov, why=f"restart {target}{where}: {prov.why}")
            await self.events.write(job_regarding(current, self.KIND, self.API_VERSION), "Requeue",
                                    "Requeued", told)  # fmt: skip

    # --- what a TrainJob does differently (trainjobs.py) ----------------------------------------

    def _parse(self, job: str) -> tuple[str, str]:
        return parse_jobset_key(job)

    async def _restarts_now(self, namespace: str, name: str, holder: dict[str, Any]) -> int:
        """The JobSet's restart count now (the holder is the JobSet here)."""
        return restarts(holder)

    async def _restart(self, namespace: str, name: str, target: int) -> None:
        """Step 2 on the JobSet (suspended by step 1)."""
        await self.steps.restart(namespace, name, target)

    def _prepare(self, current: dict[str, Any], target: int, prov: Provenance) -> dict[str, Any]:
        """Step 1's patch, with the resource version read (a concurrent edit is a 409)."""
        return {
            "metadata": {
                "resourceVersion": current["metadata"]["resourceVersion"],
                "annotations": {
                    **marks.provenance_annotations(prov),
                    ATTEMPT_ANNOTATION: str(target),
                    ATTEMPT_STARTED_ANNOTATION: self.clock.now().isoformat(),
                    REQUEUE_ACTION_ANNOTATION: prov.action_id,
                    REQUEUED_ANNOTATION: None,
                },
            },
            "spec": {"suspend": True},
        }

    def _resume_if_due(self, jobset: dict[str, Any]) -> None:
        meta = jobset.get("metadata") or {}
        notes = _notes(jobset)
        due = notes.get(RESUME_AT)
        if not due or notes.get(STOPPED):
            return
        try:
            at = datetime.fromisoformat(due)
        except ValueError:
            log.warning("%s %s/%s: %s=%r is not a time; resuming now", self.KIND,
                        meta.get("namespace"),
                        meta.get("name"), RESUME_AT, due)  # fmt: skip
            at = self.clock.now()
        if at > self.clock.now():
            return
        patch = {"metadata": {"annotations": {RESUME_AT: None}}, "spec": {"suspend": False}}
        try:
            self.session.call(self.steps.patch(self.HOLDER, meta["namespace"], meta["name"],
                                               patch))  # fmt: skip
        except TransientError as exc:
            log.info("resume %s %s/%s: %s (next pass)", self.KIND, meta.get("namespace"),
                     meta.get("name"), exc)  # fmt: skip

    def _follow(self, watched: WatchedJob, current: Sequence[Any]) -> None:
        self.spool.follow(log_sources(watched.job, watched.status.attempt, current))


def _notes(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def log_sources(job: str, attempt: int, current: Sequence[Any]) -> list[LogSource]:
    """The current pods with a node, as log sources, each under the restart it belongs to
    (its label; `attempt` where it has none): while a requeue is under way the status still
    says the last attempt, and a follower started then would file the new restart's output
    under the old one for good."""
    sources = []
    for pod in current:
        meta, node = pod.get("metadata", {}), pod.get("spec", {}).get("nodeName")
        if not node or pod.get("status", {}).get("phase") == "Pending":
            continue
        restart = restart_of(pod)
        sources.append(LogSource(job, attempt if restart is None else restart, node,
                                 meta.get("namespace", ""), meta.get("name", ""),
                                 meta.get("uid", ""), main_container(pod)))  # fmt: skip
    return sources
