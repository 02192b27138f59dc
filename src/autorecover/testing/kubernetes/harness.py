"""Helpers for tests against the real control plane: a namespace, PyTorchJobs, pod faults, logs.

`KubeHarness` gives each test its own namespace and a fresh adapter stack (`KubeSession`,
the node / pod / PyTorchJob informers, `KubeNodes`, `KubeJobs` with a log spool) and a
lightkube client of its own for the test's side of things: submitting jobs, making a pod's
container fail (kwok's `autorecover-pod-fail` stage), writing a pod's log (a kwok `Logs`
object pointing at a file in the CRI format kubelets write). kwok serves a log by pod name
and the training operator reuses pod names across attempts, so a pod's file holds what every
attempt of that replica wrote (a real kubelet starts a new log per container): tests write
what an attempt says after that attempt starts.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from lightkube import ApiError, Client
from lightkube.generic_resource import create_namespaced_resource
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Namespace, Node, Pod
from lightkube.types import PatchType

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.kubernetes import marks
from autorecover.adapters.kubernetes.client import KubeSession, load_config
from autorecover.adapters.kubernetes.events import EventRecorder
from autorecover.adapters.kubernetes.informers import Informer
from autorecover.adapters.kubernetes.jobs import KubeJobs, PyTorchJob
from autorecover.adapters.kubernetes.logs import LogSpool
from autorecover.adapters.kubernetes.nodes import KubeNodes
from autorecover.controllers.ports import Provenance
from autorecover.testing.kubernetes.cluster import KubeTestCluster
from autorecover.testing.waiting import wait

T = TypeVar("T")
Logs = create_namespaced_resource("kwok.x-k8s.io", "v1alpha1", "Logs", "logs")
_SERIAL = itertools.count(1)


def replica_template(labels: Mapping[str, str] | None = None,
                     affinity: Mapping[str, Any] | None = None,
                     scheduler: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A training pod template: one `pytorch` container asking for the node's 8 GPUs."""
    spec: dict[str, Any] = {"containers": [{
        "name": "pytorch", "image": "registry.example/train:1",
        "resources": {"limits": {"nvidia.com/gpu": "8"}},
    }]}  # fmt: skip
    if affinity is not None:
        spec["affinity"] = dict(affinity)
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    return {"metadata": {"labels": dict(labels or {})}, "spec": spec}


class KubeHarness:
    """One test's namespace, adapter stack and client on the session's control plane."""

    def __init__(self, cluster: KubeTestCluster, tmp: Path) -> None:
        self.cluster = cluster
        self.tmp = tmp
        self.clock = SystemClock()
        self.client = Client(load_config(cluster.kubeconfig), field_manager="pytest")
        self.namespace = f"t{os.getpid()}-{next(_SERIAL)}"
        self.client.create(Namespace(metadata=ObjectMeta(name=self.namespace)))
        self.reset_nodes()
        self.session = KubeSession(load_config(cluster.kubeconfig))
        self.node_informer: Informer[Node] = Informer(self.session, Node)
        self.pod_informer: Informer[Pod] = Informer(self.session, Pod)
        self.job_informer: Informer[Any] = Informer(self.session, PyTorchJob)
        for informer in (self.node_informer, self.pod_informer, self.job_informer):
            informer.start()
        for informer in (self.node_informer, self.pod_informer, self.job_informer):
            informer.wait_synced()
        events = EventRecorder(self.session, "pytest")
        self.nodes = KubeNodes(self.session, self.node_informer, self.pod_informer, self.clock,
                               events=events)  # fmt: skip
        self.spool = LogSpool(self.session, tmp / "spool", self.clock, grace_s=0.0)
        self.jobs = KubeJobs(self.session, self.job_informer, self.pod_informer, self.clock,
                             self.spool, events=events)  # fmt: skip

    # --- nodes -------------------------------------------------------------------------------

    def node(self, name: str) -> dict[str, Any]:
        """The node as the API has it now."""
        return dict(self.client.get(Node, name).to_dict())

    def reset_nodes(self) -> None:
        """Every node schedulable, no taints, none of our annotations or our condition."""
        for name in self.cluster.node_names:
            patch = {"metadata": {"annotations": dict.fromkeys(marks.NODE_ANNOTATIONS)},
                     "spec": {"unschedulable": None, "taints": None}}  # fmt: skip
            self.client.patch(Node, name, patch, patch_type=PatchType.MERGE)
            self.client.patch(
                Node.Status, name,
                {"status": {"conditions": [{"type": marks.CONDITION, "$patch": "delete"}]}},
                patch_type=PatchType.STRATEGIC,
            )  # fmt: skip

    def events(self, kind: str, name: str) -> list[dict[str, Any]]:
        """autorecover's Events about one object (nodes' live in `default`)."""
        namespace = "default" if kind == "Node" else self.namespace
        # Raw JSON: events other components write can lack eventTime, which the typed
        # model requires.
        listed = self.cluster.get(f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")
        found: list[dict[str, Any]] = (listed or {}).get("items", [])
        return [e for e in found if e.get("regarding", {}).get("kind") == kind
                and e["regarding"].get("name") == name
                and e.get("reportingController") == "autorecover.io/engine"]  # fmt: skip

    def provenance(self, why: str, incident: str = "inc-test") -> Provenance:
        """A provenance as a controller would give it."""
        return Provenance(f"test/{next(_SERIAL)}", "pytest", why, datetime.now(UTC),
                          ("ev-1",), incident)  # fmt: skip

    # --- jobs and pods -----------------------------------------------------------------------

    def submit(
        self, name: str = "train", *, workers: int = 3,
        annotations: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
        affinity: Mapping[str, Any] | None = None, scheduler: str | None = None,
    ) -> str:  # fmt: skip
        """Create a PyTorchJob (1 master + `workers`), with a log file per pod; its job key."""
        notes = {"autorecover.io/recovery": "on"} if annotations is None else dict(annotations)
        pods = [f"{name}-master-0"] + [f"{name}-worker-{i}" for i in range(workers)]
        for pod in pods:
            self.log_path(pod).touch()
            self.client.create(Logs(
                metadata=ObjectMeta(name=pod, namespace=self.namespace),
                spec={"logs": [{"containers": ["pytorch"], "follow": True,
                                "logsFile": str(self.log_path(pod))}]},
            ))  # fmt: skip

        def replica(count: int) -> dict[str, Any]:
            return {"replicas": count, "restartPolicy": "Never",
                    "template": replica_template(labels, affinity, scheduler)}  # fmt: skip

        specs = {"Master": replica(1)}
        if workers:
            specs["Worker"] = replica(workers)
        job = PyTorchJob(
            metadata=ObjectMeta(name=name, namespace=self.namespace, annotations=notes,
                                labels=dict(labels or {})),
            spec={"pytorchReplicaSpecs": specs},
        )  # fmt: skip
        self.client.create(job)
        return f"{self.namespace}/{name}"

    def job(self, name: str = "train") -> dict[str, Any]:
        """The PyTorchJob as the API has it now."""
        return dict(self.client.get(PyTorchJob, name, namespace=self.namespace).to_dict())  # type: ignore[no-untyped-call]

    def pods(self, job: str = "train") -> list[dict[str, Any]]:
        """The job's pods that are not being deleted, by name."""
        found = [
            p.to_dict()
            for p in self.client.list(
                Pod, namespace=self.namespace, labels={"training.kubeflow.org/job-name": job}
            )
        ]
        live = [p for p in found if not p["metadata"].get("deletionTimestamp")]
        return sorted(live, key=lambda p: p["metadata"]["name"])

    def placement(self, job: str = "train", attempt: int = 0,
                  count: int = 4, timeout_s: float = 20.0) -> dict[str, str]:  # fmt: skip
        """Pod -> node once `count` pods of that attempt are Running."""

        def running() -> dict[str, str] | None:
            pods = [p for p in self.pods(job)
                    if p["metadata"].get("annotations", {}).get("autorecover.io/attempt",
                                                                 "0") == str(attempt)
                    and p.get("status", {}).get("phase") == "Running"]  # fmt: skip
            if len(pods) < count:
                return None
            return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods}

        return wait(running, f"{count} pods of attempt {attempt} running", timeout_s)

    def fail_pod(self, pod: str, exit_code: int = 1, reason: str = "Error") -> None:
        """The pod's container exits with this code (kwok's autorecover-pod-fail stage)."""
        notes = {"autorecover.test/exit-code": str(exit_code), "autorecover.test/reason": reason}
        self.client.patch(Pod, pod, {"metadata": {"annotations": notes}},
                          namespace=self.namespace)  # fmt: skip

        def failed() -> bool:
            status = self.client.get(Pod, pod, namespace=self.namespace).status
            return status is not None and status.phase == "Failed"

        wait(failed, f"{pod} failed", 10)

    def terminating(self, pod: str) -> bool:
        """The pod is gone or being deleted."""
        try:
            found = self.client.get(Pod, pod, namespace=self.namespace)
        except ApiError as error:
            if error.status.code == 404:
                return True
            raise
        return found.metadata is not None and found.metadata.deletionTimestamp is not None

    def log_path(self, pod: str) -> Path:
        """The file kwok serves as the pod's log."""
        folder = self.tmp / "pod-logs"
        folder.mkdir(exist_ok=True)
        return folder / f"{pod}.log"

    def step(self, pod: str, node: str, step: int, rank: int = 0) -> None:
        """The pod's training script reports a step (an autorecover/1 telemetry line)."""
        record = {"telemetry": "autorecover/1", "ts": datetime.now(UTC).isoformat(),
                  "rank": rank, "event": "step", "node": node, "step": step,
                  "step_time_s": 1.0}  # fmt: skip
        self.log(pod, json.dumps(record), stream="stdout")

    def log(self, pod: str, text: str, stream: str = "stderr") -> None:
        """The pod's container writes a line (CRI log format, as kubelets store it)."""
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        with self.log_path(pod).open("a") as f:
            f.write(f"{stamp} {stream} F {text}\n")

    # --- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """Delete this test's jobs and pods (freeing the GPUs), reset nodes, end the session."""
        try:
            for job in self.client.list(PyTorchJob, namespace=self.namespace):
                self.client.delete(PyTorchJob, _name(job), namespace=self.namespace)
            for pod in self.client.list(Pod, namespace=self.namespace):
                with contextlib.suppress(ApiError):  # gone meanwhile (its job's deletion)
                    self.client.delete(Pod, _name(pod), namespace=self.namespace,
                                       grace_period=0)  # fmt: skip
            wait(lambda: not list(self.client.list(Pod, namespace=self.namespace)),
                 "the test's pods gone", 20)  # fmt: skip
            self.reset_nodes()
        finally:
            self.session.close()
            self.client.close()


def _name(obj: Any) -> str:
    """An object's name (every listed object has one)."""
    meta = obj.metadata
    assert meta is not None and meta.name is not None
    return str(meta.name)
