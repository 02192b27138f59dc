"""Job recovery's `JobSchedulerPort` for Kubeflow `PyTorchJob`s (`kubeflow.org/v1`).

* `watched()` — the PyTorchJob and pod informers' caches, through `policy.watched_job`
  (annotation opt-in, attempt, phase, nodes, exit codes, exclusions). It also starts a log
  follower for each current pod (logs.py) and resumes jobs whose requeue delay has passed.
* `read_output(job, attempt, node, ...)` — the spooled log of that attempt's pods on that node.
* `requeue(job, exclude, delay_s)` — one requeue, in steps that are each safe to repeat, with
  its state on the job itself so that an engine restart at any point finishes it:
  1. patch the job (with its resource version): every replica's node affinity excludes
     `exclude` (merged with the user's own, `exclusions.with_exclusions`), the attempt
     annotation becomes N+1 on the job and on every pod template, provenance annotations,
     `runPolicy.suspend: true` (the operator stops creating pods; a running gang stops whole);
  2. delete the pods of earlier attempts (the operator does not, for a job it marked Failed);
  3. once they are gone: drop a terminal condition from the job's status (the operator then
     treats it as live again) and resume it (`suspend: false`), or, with a delay, record
     `autorecover.io/resume-at` and leave it suspended until `watched()` sees the time pass.
  The operator recreates every replica from the new templates and the scheduler (default or
  KAI) places the gang again; `schedulerName`, queue labels and pod-group settings are the
  user's and are never touched. The controller verifies placement from `watched()`.
* `stop(job)` — suspend the job for good (`autorecover.io/stopped`); its object stays for people.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.generic_resource import create_namespaced_resource
from lightkube.resources.core_v1 import Pod
from lightkube.types import PatchType

from autorecover.adapters.kubernetes import marks
from autorecover.adapters.kubernetes.client import ConflictError, KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.events import EventRecorder, job_regarding
from autorecover.adapters.kubernetes.exclusions import with_exclusions
from autorecover.adapters.kubernetes.failures import FailureTimes
from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.adapters.kubernetes.logs import LogSource, LogSpool, forget_others
from autorecover.adapters.kubernetes.names import job_key, parse_job_key
from autorecover.adapters.kubernetes.policy import watched_job
from autorecover.adapters.kubernetes.states import (
    ATTEMPT_ANNOTATION,
    ATTEMPT_STARTED_ANNOTATION,
    JOB_NAME_LABELS,
    REQUEUE_ACTION_ANNOTATION,
    REQUEUED_ANNOTATION,
    job_attempt,
    pod_attempt,
    pods_by_owner,
    pods_of,
)
from autorecover.controllers.jobs.records import WatchedJob
from autorecover.controllers.ports import Clock, Provenance, TransientError
from autorecover.domain.jobs.settings import SitePolicy

log = logging.getLogger(__name__)
PyTorchJob = create_namespaced_resource("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs")
RESUME_AT = "autorecover.io/resume-at"
STOPPED = "autorecover.io/stopped"
CONTAINER = "pytorch"  # the training operator requires this container name
_TERMINAL = ("Failed", "Succeeded")
PODS_GONE_S = 15.0  # how long one requeue call waits for old pods to go before leaving it
_CONFLICT_TRIES = 5
DELETES_AT_ONCE = 32  # a gang's pods are deleted this many at a time (1,250 one by one: ~1 min)


@dataclass
class KubeJobs:
    """`JobSchedulerPort` for PyTorchJobs."""

    session: KubeSession
    jobs: ObjectCache[Any]
    pods: ObjectCache[Pod]
    clock: Clock
    spool: LogSpool
    site: SitePolicy | None = None
    pods_gone_s: float = PODS_GONE_S
    events: EventRecorder | None = None
    failures: FailureTimes = field(init=False)

    def __post_init__(self) -> None:
        self.failures = FailureTimes(self.clock)
        self.failures.watch(self.pods)

    # --- reads ---------------------------------------------------------------------------------

    def watched(self) -> Sequence[WatchedJob]:
        """Every PyTorchJob that opted in, with its current attempt's status; the spool
        forgets the jobs no longer watched."""
        out = self.collect()
        forget_others(self.spool, {w.job for w in out})
        return out

    def collect(self) -> list[WatchedJob]:
        """`watched()` without the spool's pruning of other jobs (`KubeWorkloads` prunes
        once for every kind)."""
        self.jobs.wait_synced()
        self.pods.wait_synced()
        everyone = self.pods.dicts()
        by_job = pods_by_owner(everyone, JOB_NAME_LABELS)
        gone_by_job = pods_by_owner(self.failures.departed(everyone), JOB_NAME_LABELS)
        out: list[WatchedJob] = []
        for obj in self.jobs.items():
            job = obj.to_dict()
            meta = job.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            pods = by_job.get(key, [])
            watched = watched_job(job, pods, self.site)
            if watched is None:
                continue
            watched = self.failures.placed(watched, pods_of(job, gone_by_job.get(key, [])))
            out.append(self.failures.precise(watched, pods_of(job, pods)))
            self._follow(job, pods)
            self.spool.prune(watched.job, watched.status.attempt)
            self._resume_if_due(job)
        return out

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes the attempt's pods on `node` logged, from `offset`."""
        return self.spool.read(job, attempt, node, offset, limit)

    # --- mutations -----------------------------------------------------------------------------

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Restart the job's gang on nodes other than `exclude`, after `delay_s`."""
        namespace, name = parse_job_key(job)
        self.session.call(self._requeue(namespace, name, list(exclude), delay_s, provenance),
                          timeout_s=self.pods_gone_s + 15)  # fmt: skip

    def stop(self, job: str, provenance: Provenance) -> None:
        """Suspend the job for good; its object and history stay."""
        namespace, name = parse_job_key(job)

        async def act() -> None:
            current = await self._get(namespace, name)
            notes = current.get("metadata", {}).get("annotations") or {}
            if notes.get(STOPPED) == provenance.action_id:
                return
            patch = {
                "metadata": {"annotations": {**marks.provenance_annotations(provenance),
                                             STOPPED: provenance.action_id}},
                "spec": {"runPolicy": {"suspend": True}},
            }  # fmt: skip
            await self._patch(namespace, name, patch)
            if self.events is not None:
                await self.events.write(job_regarding(current), "Stop", "Stopped", provenance,
                                        warning=True)  # fmt: skip

        self.session.call(act())

    # --- requeue steps --------------------------------------------------------------------------

    async def _requeue(
        self, namespace: str, name: str, exclude: list[str], delay_s: float, prov: Provenance
    ) -> None:
        for tries in range(_CONFLICT_TRIES):
            current = await self._get(namespace, name)
            notes = current.get("metadata", {}).get("annotations") or {}
            if notes.get(REQUEUED_ANNOTATION) == prov.action_id:
                return  # done before (a repeat after a crash or a retry)
            attempt, _ = job_attempt(current)
            if notes.get(REQUEUE_ACTION_ANNOTATION) == prov.action_id:
                break  # prepared before an interruption: go on from there
            attempt += 1
            try:
                await self._prepare(current, exclude, attempt, prov)
                break
            except ConflictError:
                # The operator writes the job too (its status moves the resource version):
                # read it again and redo the step.
                if tries == _CONFLICT_TRIES - 1:
                    raise
        await self._delete_older_pods(namespace, name, attempt, exclude)
        await self._wait_pods_gone(namespace, name, attempt)
        await self._clear_terminal(namespace, name)
        resume: dict[str, Any] = {
            "metadata": {"annotations": {REQUEUED_ANNOTATION: prov.action_id}}
        }
        if delay_s > 0:
            at = self.clock.now() + timedelta(seconds=delay_s)
            resume["metadata"]["annotations"][RESUME_AT] = at.isoformat()
        else:
            resume["metadata"]["annotations"][RESUME_AT] = None
            resume["spec"] = {"runPolicy": {"suspend": False}}
        await self._patch(namespace, name, resume)
        if self.events is not None:
            where = f" without {', '.join(exclude)}" if exclude else " on the same nodes"
            told = replace(prov, why=f"attempt {attempt}{where}: {prov.why}")
            await self.events.write(job_regarding(current), "Requeue", "Requeued", told)

    async def _prepare(
        self, current: dict[str, Any], exclude: list[str], attempt: int, prov: Provenance
    ) -> None:
        """Step 1: exclusions, the next attempt, provenance, suspended (one replace, so
        exclusions lifted from the user's affinity really go, with the resource version)."""
        wanted = with_exclusions(current, exclude)
        for replica in wanted["spec"]["pytorchReplicaSpecs"].values():
            template = replica.setdefault("template", {})
            template.setdefault("metadata", {}).setdefault("annotations", {})[
                ATTEMPT_ANNOTATION] = str(attempt)  # fmt: skip
        meta = wanted["metadata"]
        meta["annotations"] = {
            **(meta.get("annotations") or {}),
            **marks.provenance_annotations(prov),
            ATTEMPT_ANNOTATION: str(attempt),
            ATTEMPT_STARTED_ANNOTATION: self.clock.now().isoformat(),
            REQUEUE_ACTION_ANNOTATION: prov.action_id,
        }
        meta["annotations"].pop(REQUEUED_ANNOTATION, None)
        wanted["spec"].setdefault("runPolicy", {})["suspend"] = True
        wanted.pop("status", None)
        try:
            await self.session.client.replace(PyTorchJob.from_dict(wanted))
        except ApiError as exc:
            if api_code(exc) == 409:
                raise ConflictError(f"PyTorchJob {meta['namespace']}/{meta['name']} changed "
                               "meanwhile; again") from exc  # fmt: skip
            raise mapped(exc, f"replace PyTorchJob {meta['namespace']}/{meta['name']}") from exc
        except Exception as exc:
            raise mapped(exc, f"replace PyTorchJob {meta['namespace']}/{meta['name']}") from exc

    async def _delete_older_pods(
        self, namespace: str, name: str, attempt: int, exclude: Sequence[str] = ()
    ) -> None:
        """Step 2: the pods of earlier attempts go (the whole gang).

        A pod on a node being excluded is deleted at once (no grace): its node is suspect and
        may never confirm the kill. The others get their grace period, so their GPUs are
        really free before the new gang is placed (perhaps on the same nodes)."""
        suspect = set(exclude)
        gate = asyncio.Semaphore(DELETES_AT_ONCE)

        async def delete(pod_name: str, force: bool) -> None:
            async with gate:
                try:
                    await self.session.client.delete(Pod, pod_name, namespace=namespace,
                                                     grace_period=0 if force else None)  # fmt: skip
                except ApiError as exc:
                    if api_code(exc) != 404:
                        raise mapped(exc, f"delete pod {namespace}/{pod_name}") from exc

        deletes = []
        for pod in await self._job_pods(namespace, name):
            pod_meta = pod.get("metadata") or {}
            if (pod_attempt(pod) or 0) >= attempt:
                continue
            force = (pod.get("spec") or {}).get("nodeName") in suspect
            if pod_meta.get("deletionTimestamp") and not force:
                continue  # going already, at its own pace
            deletes.append(delete(pod_meta["name"], force))
        await asyncio.gather(*deletes)

    async def _wait_pods_gone(self, namespace: str, name: str, attempt: int) -> None:
        deadline = asyncio.get_running_loop().time() + self.pods_gone_s
        poll_s = 0.05
        while True:
            left = [p["metadata"]["name"] for p in await self._job_pods(namespace, name)
                    if (pod_attempt(p) or 0) < attempt]  # fmt: skip
            if not left:
                return
            if asyncio.get_running_loop().time() >= deadline:
                raise TransientError(f"requeue {namespace}/{name}: waiting for pods of "
                                     f"earlier attempts to go: {', '.join(left[:20])}"
                                     f"{' ...' if len(left) > 20 else ''}")  # fmt: skip
            await asyncio.sleep(poll_s)
            poll_s = min(poll_s * 2, 1.0)  # a 1,250-pod list 20 times a second is no poll

    async def _clear_terminal(self, namespace: str, name: str) -> None:
        """Step 3a: a job the operator marked Failed (or Succeeded) is live again."""
        current = await self._get(namespace, name)
        conditions = (current.get("status") or {}).get("conditions") or []
        kept = [c for c in conditions if c.get("type") not in _TERMINAL]
        if len(kept) == len(conditions):
            return
        try:
            await self.session.client.patch(
                PyTorchJob.Status, name, {"status": {"conditions": kept}}, namespace=namespace,
                patch_type=PatchType.MERGE,
            )  # fmt: skip
        except Exception as exc:
            raise mapped(exc, f"patch {namespace}/{name} status") from exc

    # --- delayed resumes, logs -----------------------------------------------------------------

    def _resume_if_due(self, job: dict[str, Any]) -> None:
        meta = job.get("metadata") or {}
        notes = meta.get("annotations") or {}
        due = notes.get(RESUME_AT)
        if not due or notes.get(STOPPED):
            return
        try:
            at = datetime.fromisoformat(due)
        except ValueError:
            log.warning("job %s/%s: %s=%r is not a time; resuming now", meta.get("namespace"),
                        meta.get("name"), RESUME_AT, due)  # fmt: skip
            at = self.clock.now()
        if at > self.clock.now():
            return
        patch = {"metadata": {"annotations": {RESUME_AT: None}},
                 "spec": {"runPolicy": {"suspend": False}}}  # fmt: skip
        try:
            self.session.call(self._patch(meta["namespace"], meta["name"], patch))
        except TransientError as exc:
            log.info("resume %s/%s: %s (next pass)", meta.get("namespace"), meta.get("name"), exc)

    def _follow(self, job: dict[str, Any], pods: Sequence[Mapping[str, Any]]) -> None:
        meta = job.get("metadata") or {}
        key = job_key(meta.get("namespace", ""), meta.get("name", ""))
        attempt, _ = job_attempt(job)
        sources = []
        for pod in pods_of(job, pods):
            pod_meta, spec = pod.get("metadata", {}), pod.get("spec", {})
            node = spec.get("nodeName")
            phase = (pod.get("status") or {}).get("phase")
            if not node or phase == "Pending":
                continue
            sources.append(LogSource(key, attempt, node, pod_meta.get("namespace", ""),
                                     pod_meta.get("name", ""), pod_meta.get("uid", ""),
                                     CONTAINER))  # fmt: skip
        self.spool.follow(sources)

    # --- API plumbing --------------------------------------------------------------------------

    async def _get(self, namespace: str, name: str) -> dict[str, Any]:
        try:
            obj = await self.session.client.get(PyTorchJob, name, namespace=namespace)
        except Exception as exc:
            raise mapped(exc, f"get PyTorchJob {namespace}/{name}") from exc
        return dict(obj.to_dict())  # type: ignore[no-untyped-call]

    async def _patch(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        try:
            await self.session.client.patch(PyTorchJob, name, patch, namespace=namespace,
                                             patch_type=PatchType.MERGE)  # fmt: skip
        except ApiError as exc:
            if api_code(exc) == 409:
                raise ConflictError(
                    f"PyTorchJob {namespace}/{name} changed meanwhile; again"
                ) from exc
            raise mapped(exc, f"patch PyTorchJob {namespace}/{name}") from exc
        except Exception as exc:
            raise mapped(exc, f"patch PyTorchJob {namespace}/{name}") from exc

    async def _job_pods(self, namespace: str, name: str) -> list[dict[str, Any]]:
        try:
            return [p.to_dict() async for p in self.session.client.list(
                Pod, namespace=namespace, labels={JOB_NAME_LABELS[0]: name})]  # fmt: skip
        except Exception as exc:
            raise mapped(exc, f"list pods of {namespace}/{name}") from exc
