"""A JobSet restart done the JobSet controller's own way, step by step (each safe to repeat).

Shared by the JobSet port (`jobsets.py`) and the TrainJob port (`trainjobs.py`, whose
TrainJob runs as a JobSet): raise `status.restarts` (`restart`), delete the earlier restart's
pods on excluded nodes at once (`delete_on`), and write the exclusions into the new child
Jobs' pod templates while they are suspended (`exclude`). See `jobsets.py` for the whole
requeue and why the exclusions go into the child Jobs.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.generic_resource import create_namespaced_resource
from lightkube.resources.batch_v1 import Job
from lightkube.resources.core_v1 import Pod
from lightkube.types import PatchType

from autorecover.adapters.kubernetes.client import ConflictError, KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.exclusions import exclude_in
from autorecover.adapters.kubernetes.jobset_states import JOBSET_NAME_LABEL, restart_of, restarts
from autorecover.controllers.ports import TransientError

JobSet = create_namespaced_resource("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets")
JOBS_READY_S = 15.0  # how long one requeue call waits for the next restart's Jobs
ENDED = ("Completed", "Failed")  # JobSet's terminal conditions
CONFLICT_TRIES = 5


@dataclass
class JobSetRestarts:
    """The restart steps on one session."""

    session: KubeSession
    jobs_ready_s: float = JOBS_READY_S

    async def restart(self, namespace: str, name: str, target: int) -> None:
        """Step 2: `status.restarts` to `target`, a terminal condition dropped."""
        for tries in range(CONFLICT_TRIES):
            current = await self.get(JobSet, namespace, name)
            status = current.get("status") or {}
            if restarts(current) >= target:
                return
            kept = [c for c in status.get("conditions") or [] if c.get("type") not in ENDED]
            patch = {
                "metadata": {"resourceVersion": current["metadata"]["resourceVersion"]},
                "status": {"restarts": target, "conditions": kept, "terminalState": None},
            }
            try:
                await self.session.client.patch(JobSet.Status, name, patch, namespace=namespace,
                                                 patch_type=PatchType.MERGE)  # fmt: skip
                return
            except ApiError as exc:
                # The controller writes the status too: read it again and redo the step.
                if api_code(exc) != 409 or tries == CONFLICT_TRIES - 1:
                    raise mapped(exc, f"patch JobSet {namespace}/{name} status") from exc
            except Exception as exc:
                raise mapped(exc, f"patch JobSet {namespace}/{name} status") from exc

    async def delete_on(self, namespace: str, name: str, target: int, exclude: list[str]) -> None:
        """Pods of earlier restarts on nodes being excluded go at once (no grace): the node is
        suspect and may never confirm the kill. The controller deletes the others, with their
        grace period, as it deletes their Jobs."""
        suspect = set(exclude)
        for pod in await self.list(Pod, namespace, name):
            meta = pod.get("metadata") or {}
            if (restart_of(pod) or 0) >= target or (pod.get("spec") or {}).get(
                    "nodeName") not in suspect:  # fmt: skip
                continue
            try:
                await self.session.client.delete(Pod, meta["name"], namespace=namespace,
                                                 grace_period=0)  # fmt: skip
            except ApiError as exc:
                if api_code(exc) != 404:
                    raise mapped(exc, f"delete pod {namespace}/{meta['name']}") from exc

    async def exclude(self, namespace: str, name: str, target: int,
                       exclude: list[str]) -> set[str]:  # fmt: skip
        """Step 3: every child Job of the restart keeps off `exclude`; the user's own
        excluded nodes found in their templates. Waits (bounded) for the controller to have
        created them: it does once the earlier restart's Jobs are gone."""
        jobset = await self.get(JobSet, namespace, name)
        wanted = sum(
            r.get("replicas", 1)
            for r in jobset["spec"].get("replicatedJobs") or []
            if not r.get("dependsOn")
        )  # later ones wait for these to be ready
        deadline = asyncio.get_running_loop().time() + self.jobs_ready_s
        while True:
            jobs = [j for j in await self.list(Job, namespace, name) if restart_of(j) == target
                    and not (j.get("metadata") or {}).get("deletionTimestamp")]  # fmt: skip
            if len(jobs) >= wanted:
                break
            if asyncio.get_running_loop().time() >= deadline:
                raise TransientError(f"requeue JobSet {namespace}/{name}: restart {target}'s "
                                     f"Jobs not created yet ({len(jobs)} of {wanted})")  # fmt: skip
            await asyncio.sleep(0.05)
        for job in jobs:
            await self._exclude_one(namespace, job["metadata"]["name"], exclude)
        # The user's own excluded nodes are those of the JobSet's templates (a child Job
        # patched before an interruption would show ours as the user's).
        users: set[str] = set()
        for replicated in copy.deepcopy(jobset["spec"].get("replicatedJobs") or []):
            users |= exclude_in(replicated.get("template", {}).get("spec", {}), exclude)
        return users

    async def _exclude_one(self, namespace: str, name: str, exclude: list[str]) -> None:
        """One child Job keeps off `exclude` (read fresh on a conflict: the JobSet
        controller writes its Jobs too)."""
        for tries in range(CONFLICT_TRIES):
            try:
                job = (await self.session.client.get(Job, name, namespace=namespace)).to_dict()
            except Exception as exc:
                raise mapped(exc, f"get Job {namespace}/{name}") from exc
            spec = job.get("spec") or {}
            before = copy.deepcopy(spec.get("template"))
            exclude_in(spec, exclude)
            if spec.get("template") == before:
                return  # nothing to add (done before an interruption, or no exclusions)
            patch = {"metadata": {"resourceVersion": job["metadata"]["resourceVersion"]},
                     "spec": {"template": {"spec": {
                         "affinity": spec["template"]["spec"]["affinity"]}}}}  # fmt: skip
            try:
                await self.session.client.patch(Job, name, patch, namespace=namespace,
                                                 patch_type=PatchType.MERGE)  # fmt: skip
                return
            except ApiError as exc:
                if api_code(exc) != 409 or tries == CONFLICT_TRIES - 1:
                    raise mapped(exc, f"patch Job {namespace}/{name}") from exc

    # --- API plumbing --------------------------------------------------------------------------

    async def get(self, kind: type[Any], namespace: str, name: str) -> dict[str, Any]:
        """One object of `kind` (JobSet, TrainJob) as JSON."""
        what = f"{kind.__name__} {namespace}/{name}"
        try:
            obj = await self.session.client.get(kind, name, namespace=namespace)
        except Exception as exc:
            raise mapped(exc, f"get {what}") from exc
        return dict(obj.to_dict())

    async def patch(self, kind: type[Any], namespace: str, name: str,
                    patch: dict[str, Any]) -> None:  # fmt: skip
        """A JSON merge patch (with a resource version in it: 409 is `ConflictError`)."""
        what = f"{kind.__name__} {namespace}/{name}"
        try:
            await self.session.client.patch(kind, name, patch, namespace=namespace,
                                             patch_type=PatchType.MERGE)  # fmt: skip
        except ApiError as exc:
            if api_code(exc) == 409:
                raise ConflictError(f"{what} changed meanwhile; again") from exc
            raise mapped(exc, f"patch {what}") from exc
        except Exception as exc:
            raise mapped(exc, f"patch {what}") from exc

    async def list(self, kind: type[Any], namespace: str, name: str) -> list[dict[str, Any]]:
        """The pods or child Jobs of one JobSet."""
        try:
            return [o.to_dict() async for o in self.session.client.list(
                kind, namespace=namespace, labels={JOBSET_NAME_LABEL: name})]  # fmt: skip
        except Exception as exc:
            raise mapped(exc, f"list {kind.__name__}s of JobSet {namespace}/{name}") from exc
