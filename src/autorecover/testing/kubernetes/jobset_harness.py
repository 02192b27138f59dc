"""Helpers for JobSet and TrainJob tests on the real control plane, beside a `KubeHarness`.

`JobSetHarness` adds to one test's harness (its namespace, session, pod informer and spool) a
JobSet informer and the `KubeJobSets` port, and the test's side of things: submitting a
JobSet, finding its pods of a restart, and pointing each pod's log at a file (a kwok `Logs`
object). JobSet's pods are named by their batch Job with a random suffix, so their `Logs`
objects are made once the pods exist (`logs_for`); until then kwok answers `pods/log` with
400 and the engine's follower asks again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from lightkube import ApiError
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.batch_v1 import Job
from lightkube.resources.core_v1 import Pod
from lightkube.types import CascadeType

from autorecover.adapters.kubernetes.events import EventRecorder
from autorecover.adapters.kubernetes.informers import Informer
from autorecover.adapters.kubernetes.jobset_restarts import JobSet
from autorecover.adapters.kubernetes.jobset_states import JOBSET_NAME_LABEL, RESTART_LABEL
from autorecover.adapters.kubernetes.jobsets import KubeJobSets
from autorecover.adapters.kubernetes.trainjobs import KubeTrainJobs, TrainJob
from autorecover.testing.kubernetes.harness import KubeHarness, Logs, replica_template
from autorecover.testing.waiting import wait

CONTAINER = "trainer"


class JobSetHarness:
    """JobSets in one test's namespace, on the session's control plane (JobSet running)."""

    container = CONTAINER  # the pods' first container, whose output is followed

    def __init__(self, kube: KubeHarness) -> None:
        self.kube = kube
        self.namespace = kube.namespace
        self.informer: Informer[Any] = Informer(kube.session, JobSet)
        self.informer.start()
        self.informer.wait_synced()
        events = EventRecorder(kube.session, "pytest")
        self.jobs = KubeJobSets(kube.session, self.informer, kube.pod_informer, kube.clock,
                                kube.spool, events=events)  # fmt: skip

    def submit(
        self, name: str = "train", *, jobs: int = 2, pods_per_job: int = 2,
        annotations: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
        scheduler: str | None = None, failure_policy: Mapping[str, Any] | None = None,
    ) -> str:  # fmt: skip
        """A JobSet of one replicated job: `jobs` batch Jobs of `pods_per_job` pods, each
        pod asking for a node's 8 GPUs, failing for good on a pod's failure (`restartPolicy:
        Never`, `backoffLimit: 0`); its job key."""
        notes = {"autorecover.io/recovery": "on"} if annotations is None else dict(annotations)
        template = replica_template(labels, scheduler=scheduler)
        template["spec"]["containers"][0]["name"] = CONTAINER
        template["spec"]["restartPolicy"] = "Never"
        spec: dict[str, Any] = {"replicatedJobs": [{
            "name": "workers", "replicas": jobs,
            "template": {"spec": {"parallelism": pods_per_job, "completions": pods_per_job,
                                  "backoffLimit": 0, "template": template}},
        }]}  # fmt: skip
        if failure_policy is not None:
            spec["failurePolicy"] = dict(failure_policy)
        self.kube.client.create(JobSet(
            metadata=ObjectMeta(name=name, namespace=self.namespace, annotations=notes,
                                labels=dict(labels or {})),
            spec=spec,
        ))  # fmt: skip
        return f"jobset:{self.namespace}/{name}"

    def jobset(self, name: str = "train") -> dict[str, Any]:
        """The JobSet as the API has it now."""
        return dict(self.kube.client.get(JobSet, name, namespace=self.namespace).to_dict())  # type: ignore[no-untyped-call]

    def pods(self, name: str = "train", restart: int | None = None) -> list[dict[str, Any]]:
        """The JobSet's pods (of one restart) that are not being deleted, by name."""
        found = [p.to_dict() for p in self.kube.client.list(
            Pod, namespace=self.namespace, labels={JOBSET_NAME_LABEL: name})]  # fmt: skip
        return sorted(
            (p for p in found if not p["metadata"].get("deletionTimestamp")
             and (restart is None or p["metadata"]["labels"].get(RESTART_LABEL) == str(restart))),
            key=lambda p: p["metadata"]["name"],
        )  # fmt: skip

    def running(
        self, name: str = "train", restart: int = 0, count: int = 4
    ) -> dict[str, str] | None:
        """Pod -> node once `count` pods of that restart run (their logs made), else None."""
        pods = [p for p in self.pods(name, restart)
                if p.get("status", {}).get("phase") == "Running"]  # fmt: skip
        if len(pods) < count:
            return None
        self.logs_for(p["metadata"]["name"] for p in pods)
        return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods}

    def placement(self, name: str = "train", restart: int = 0, count: int = 4,
                  timeout_s: float = 30.0) -> dict[str, str]:  # fmt: skip
        """Pod -> node once `count` pods of that restart run (bounded wait)."""
        return wait(lambda: self.running(name, restart, count),
                    f"{count} pods of restart {restart} running", timeout_s)  # fmt: skip

    def describe(self, name: str = "train") -> str:
        """The JobSet's suspend, restarts and conditions and each of its pods' restart, phase,
        node and scheduling condition: for a failure message (what the scheduler did)."""
        try:
            jobset = self.jobset(name)
        except ApiError as exc:
            return f"JobSet {name}: {exc}"
        status = jobset.get("status") or {}
        conditions = _conditions(status)
        lines = [f"JobSet {name}: suspend={(jobset.get('spec') or {}).get('suspend')} "
                 f"restarts={status.get('restarts', 0)} conditions={conditions}"]  # fmt: skip
        for pod in self.pods(name):
            meta, spec, state = pod["metadata"], pod.get("spec") or {}, pod.get("status") or {}
            scheduled = [f"{c.get('status')} {c.get('reason') or ''} {c.get('message') or ''}"
                         for c in state.get("conditions") or []
                         if c.get("type") == "PodScheduled"]  # fmt: skip
            restart = meta["labels"].get(RESTART_LABEL)
            lines.append(f"pod {meta['name']} restart={restart} phase={state.get('phase')} "
                         f"node={spec.get('nodeName')} scheduler={spec.get('schedulerName')} "
                         f"scheduled={scheduled}")  # fmt: skip
        return "\n".join(lines)

    def fail_all(self, pods: Iterable[str], exit_code: int = 1) -> None:
        """Every rank exits with this code at once (kwok's autorecover-pod-fail stage). A
        batch Job with `backoffLimit: 0` ends its other pods once one fails, so the pods are
        marked together and a pod already gone is left alone."""
        notes = {"autorecover.test/exit-code": str(exit_code), "autorecover.test/reason": "Error"}
        for pod in pods:
            with contextlib.suppress(ApiError):
                self.kube.client.patch(Pod, pod, {"metadata": {"annotations": notes}},
                                       namespace=self.namespace)  # fmt: skip

    def logs_for(self, pods: Iterable[str]) -> None:
        """Point each pod's log at its file (kwok serves it through `pods/log`)."""
        for pod in pods:
            path = self.kube.log_path(pod)
            if path.exists():
                continue
            path.touch()
            self.kube.client.create(Logs(
                metadata=ObjectMeta(name=pod, namespace=self.namespace),
                spec={"logs": [{"containers": [self.container], "follow": True,
                                "logsFile": str(path)}]},
            ))  # fmt: skip

    def close(self) -> None:
        """Delete this test's TrainJobs, then its JobSets, and wait for their Jobs to go (the
        harness then deletes the pods: no Job is left to make them again).

        A TrainJob goes in the background, its JobSet left to the garbage collector and to
        the JobSet deletion below: held in foreground deletion, the Trainer (v2.0.0) applies
        its JobSet again after each deletion of it, and every new JobSet makes its Jobs and
        pods again, for minutes, while the next test runs."""
        if self.kube.cluster.get("/apis/trainer.kubeflow.org/v1alpha1/trainjobs") is not None:
            self._delete_all(TrainJob, CascadeType.BACKGROUND)
            wait(lambda: not list(self.kube.client.list(TrainJob, namespace=self.namespace)),
                 "the test's TrainJobs gone", 30)  # fmt: skip
        self._delete_all(JobSet, CascadeType.FOREGROUND)
        wait(lambda: not list(self.kube.client.list(Job, namespace=self.namespace)),
             "the test's Jobs gone", 30)  # fmt: skip

    def _delete_all(self, kind: type[Any], cascade: CascadeType) -> None:
        for obj in self.kube.client.list(kind, namespace=self.namespace):
            name = obj.to_dict()["metadata"]["name"]
            with contextlib.suppress(ApiError):
                self.kube.client.delete(kind, name, namespace=self.namespace, cascade=cascade)


class TrainJobHarness(JobSetHarness):
    """TrainJobs (Kubeflow Trainer v2) in one test's namespace; each runs as the JobSet of
    its name, so `pods`, `running` and `placement` read that JobSet's pods."""

    container = "node"  # the torch runtime's container

    def __init__(self, kube: KubeHarness) -> None:
        super().__init__(kube)
        self.trainjobs: Informer[Any] = Informer(kube.session, TrainJob)
        self.trainjobs.start()
        self.trainjobs.wait_synced()
        events = EventRecorder(kube.session, "pytest")
        self.jobs = KubeTrainJobs(kube.session, self.informer, kube.pod_informer, kube.clock,
                                  kube.spool, events=events, trainjobs=self.trainjobs)  # fmt: skip

    def submit(  # type: ignore[override]
        self, name: str = "train", *, nodes: int = 4, runtime: str = "torch-fail-fast",
        annotations: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
    ) -> str:  # fmt: skip
        """A TrainJob of `nodes` nodes of 8 GPUs on a ClusterTrainingRuntime; its job key."""
        notes = {"autorecover.io/recovery": "on"} if annotations is None else dict(annotations)
        self.kube.client.create(TrainJob(
            metadata=ObjectMeta(name=name, namespace=self.namespace, annotations=notes,
                                labels=dict(labels or {})),
            spec={"runtimeRef": {"name": runtime},
                  "trainer": {"numNodes": nodes,
                              "resourcesPerNode": {"limits": {"nvidia.com/gpu": "8"}}}},
        ))  # fmt: skip
        return f"trainjob:{self.namespace}/{name}"

    def trainjob(self, name: str = "train") -> dict[str, Any]:
        """The TrainJob as the API has it now."""
        found = self.kube.client.get(TrainJob, name, namespace=self.namespace)
        return dict(found.to_dict())  # type: ignore[no-untyped-call]

    def describe(self, name: str = "train") -> str:
        """The TrainJob's suspend and conditions, then its JobSet's and pods' (`JobSetHarness`)."""
        try:
            trainjob = self.trainjob(name)
        except ApiError as exc:
            return f"TrainJob {name}: {exc}\n{super().describe(name)}"
        conditions = _conditions(trainjob.get("status") or {})
        head = (f"TrainJob {name}: suspend={(trainjob.get('spec') or {}).get('suspend')} "
                f"conditions={conditions}")  # fmt: skip
        return f"{head}\n{super().describe(name)}"


def _conditions(status: dict[str, Any]) -> list[str]:
    """An object's status conditions, one `Type=Status (Reason)` each: for a failure message."""
    return [f"{c.get('type')}={c.get('status')} ({c.get('reason')})"
            for c in status.get("conditions") or []]  # fmt: skip
