"""Job recovery's `JobSchedulerPort` for Kubeflow Trainer v2 TrainJobs
(`trainer.kubeflow.org/v1alpha1`), which run as a JobSet of the same name.

The Trainer controller builds that JobSet from the TrainJob and its runtime and applies it
(server-side, forcing its fields: `spec.suspend` follows the TrainJob's), and copies the
JobSet's `Completed`/`Failed` condition onto the TrainJob, after which it leaves a finished
TrainJob alone. So a TrainJob is read and restarted through its JobSet, as `KubeJobSets`
does, with the requeue's annotations and `spec.suspend` on the TrainJob (the user's object):

* status: the JobSet's (`jobset_states.jobset_status`: the attempt is its
  `status.restarts`), under the TrainJob's annotations and id (`trainjob:namespace/name`);
  no JobSet yet reads as PENDING at attempt 0;
* requeue: 1. annotate and suspend the TrainJob; 2. drop its terminal condition (the Trainer
  reconciles only a TrainJob it has not marked finished), wait for the Trainer to suspend the
  JobSet, raise the JobSet's `status.restarts` (not `restartsCountTowardsMax`) and drop the
  TrainJob's terminal condition again if the Trainer copied it back meanwhile; 3. the
  exclusions into the new child Jobs' pod templates: a TrainJob's pod overrides
  (`podSpecOverrides` in v2.0.0) carry node selector and tolerations but no affinity, and
  JobSet's webhook would refuse it on the JobSet; 4. resume the TrainJob (the Trainer
  resumes its JobSet), or hold it until its delay passes;
* stop: suspend the TrainJob for good.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, ClassVar

from lightkube.core.exceptions import ApiError
from lightkube.generic_resource import create_namespaced_resource
from lightkube.types import PatchType

from autorecover.adapters.kubernetes.client import NotFoundError, mapped
from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.adapters.kubernetes.jobset_restarts import JobSet
from autorecover.adapters.kubernetes.jobset_states import (
    JOBSET_NAME_LABEL,
    current_pods,
    jobset_status,
    restarts,
)
from autorecover.adapters.kubernetes.jobsets import KubeJobSets
from autorecover.adapters.kubernetes.names import parse_trainjob_key, trainjob_key
from autorecover.adapters.kubernetes.policy import watched_job
from autorecover.adapters.kubernetes.states import pods_by_owner
from autorecover.controllers.jobs.records import JobStatus, WatchedJob
from autorecover.controllers.ports import TransientError

TrainJob = create_namespaced_resource("trainer.kubeflow.org", "v1alpha1", "TrainJob",
                                      "trainjobs")  # fmt: skip
TRAINJOB_ENDED = ("Complete", "Failed")


@dataclass
class KubeTrainJobs(KubeJobSets):
    """`JobSchedulerPort` for TrainJobs; `jobsets` is the JobSet informer's cache."""

    trainjobs: ObjectCache[Any] = field(kw_only=True)
    HOLDER: ClassVar[type[Any]] = TrainJob
    KIND: ClassVar[str] = "TrainJob"
    API_VERSION: ClassVar[str] = "trainer.kubeflow.org/v1alpha1"

    def collect(self) -> list[WatchedJob]:
        """Every TrainJob that opted in, with its JobSet's current restart's status."""
        self.trainjobs.wait_synced()
        self.jobsets.wait_synced()
        self.pods.wait_synced()
        sets = {(m.get("namespace", ""), m.get("name", "")): js
                for js in (o.to_dict() for o in self.jobsets.items())
                if (m := js.get("metadata") or {})}  # fmt: skip
        everyone = self.pods.dicts()
        by_set = pods_by_owner(everyone, (JOBSET_NAME_LABEL,))
        gone_by_set = pods_by_owner(self.failures.departed(everyone), (JOBSET_NAME_LABEL,))
        out: list[WatchedJob] = []
        for obj in self.trainjobs.items():
            trainjob = obj.to_dict()
            meta = trainjob.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            jobset = as_jobset(trainjob, sets.get(key))
            pods = by_set.get(key, [])
            watched = watched_job(trainjob, pods, self.site, partial(_status_of, jobset))
            if watched is None:
                continue
            current = current_pods(jobset, pods)
            gone = current_pods(jobset, gone_by_set.get(key, []))
            out.append(self.failures.precise(self.failures.placed(watched, gone), current))
            self._follow(watched, current)
            self.spool.prune(watched.job, watched.status.attempt)
            self._resume_if_due(trainjob)
        return out

    # --- what a TrainJob does differently ------------------------------------------------------

    def _parse(self, job: str) -> tuple[str, str]:
        return parse_trainjob_key(job)

    async def _restarts_now(self, namespace: str, name: str, holder: dict[str, Any]) -> int:
        """The TrainJob's JobSet's restart count (0 before the Trainer made it)."""
        try:
            return restarts(await self.steps.get(JobSet, namespace, name))
        except NotFoundError:
            return 0

    async def _restart(self, namespace: str, name: str, target: int) -> None:
        """Let the Trainer suspend the JobSet, raise its restarts, let the Trainer go on.

        The Trainer applies the JobSet with the TrainJob's `suspend` from its own cache, and
        does so only for a TrainJob it has not marked finished: so first the TrainJob's
        terminal condition goes (the Trainer then reconciles it, having seen the suspend
        asked in step 1) and we wait until the JobSet is suspended by the Trainer itself.
        Suspending the JobSet ourselves would race a reconcile that read the TrainJob
        before step 1 and applies `suspend: false` over ours, so the next restart's Jobs
        would start before their exclusions are written."""
        if restarts(await self.steps.get(JobSet, namespace, name)) < target:
            await self._clear_ended(namespace, name)
            deadline = asyncio.get_running_loop().time() + self.jobs_ready_s
            while not (await self.steps.get(JobSet, namespace, name)).get("spec", {}).get(
                    "suspend"):  # fmt: skip
                if asyncio.get_running_loop().time() >= deadline:
                    raise TransientError(f"requeue TrainJob {namespace}/{name}: the Trainer "
                                         "has not suspended its JobSet yet")  # fmt: skip
                await asyncio.sleep(0.05)
            await self.steps.restart(namespace, name, target)
        await self._clear_ended(namespace, name)  # the Trainer may have copied Failed again

    async def _clear_ended(self, namespace: str, name: str) -> None:
        """Drop the TrainJob's `Complete`/`Failed` condition (the Trainer reconciles a
        TrainJob only while it has none)."""
        current = await self.steps.get(TrainJob, namespace, name)
        conditions = (current.get("status") or {}).get("conditions") or []
        kept = [c for c in conditions if c.get("type") not in TRAINJOB_ENDED]
        if len(kept) == len(conditions):
            return
        try:
            await self.session.client.patch(TrainJob.Status, name,
                                             {"status": {"conditions": kept}},
                                             namespace=namespace,
                                             patch_type=PatchType.MERGE)  # fmt: skip
        except ApiError as exc:
            raise mapped(exc, f"patch TrainJob {namespace}/{name} status") from exc


def as_jobset(trainjob: dict[str, Any], jobset: dict[str, Any] | None) -> dict[str, Any]:
    """The TrainJob's JobSet as `jobset_status` reads it, under the TrainJob's name,
    annotations and `spec.suspend` (the requeue's state is on the TrainJob); an empty one,
    never restarted, before the Trainer made it."""
    meta = trainjob.get("metadata") or {}
    base = jobset or {"status": {}}
    return {
        **base,
        "metadata": {**(base.get("metadata") or {}), "name": meta.get("name", ""),
                     "namespace": meta.get("namespace", ""),
                     "annotations": meta.get("annotations") or {}},
        "spec": {**(base.get("spec") or {}),
                 "suspend": bool((trainjob.get("spec") or {}).get("suspend"))},
    }  # fmt: skip


def _status_of(jobset: Mapping[str, Any], _trainjob: Mapping[str, Any],
               pods: Sequence[Mapping[str, Any]]) -> JobStatus:  # fmt: skip
    return trainjob_status(jobset, pods)


def trainjob_status(jobset: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> JobStatus:
    """`as_jobset(...)`'s status under the TrainJob's id."""
    meta = jobset["metadata"]
    return replace(jobset_status(jobset, pods), job=trainjob_key(meta["namespace"], meta["name"]))
