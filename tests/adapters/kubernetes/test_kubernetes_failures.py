"""The pod informer's memory beyond the cache: where the attempt's deleted pods ran."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from lightkube.resources.core_v1 import Pod

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.kubernetes.failures import DEPARTED_FOR, FailureTimes
from autorecover.adapters.kubernetes.states import ATTEMPT_ANNOTATION, job_status, pods_of
from autorecover.controllers.jobs.records import WatchedJob

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kubernetes"


def running() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with (FIXTURES / "pytorchjob-running.yaml").open() as f:
        job, *pods = yaml.safe_load_all(f)
    return job, pods


def nodes_now(memory: FailureTimes, job: dict[str, Any], pods: list[dict[str, Any]]) -> list[str]:
    """The attempt's nodes as the adapter reports them: the cache's pods', and the gone ones'."""
    watched = WatchedJob(status=job_status(job, pods), scheduler="kubernetes")
    gone = pods_of(job, memory.departed(pods))
    return list(memory.placed(watched, gone).status.nodes)


def delete(memory: FailureTimes, pod: dict[str, Any]) -> None:
    """The informer's DELETED event for `pod`, as the API server sends it (marked)."""
    last = copy.deepcopy(pod)
    last["metadata"]["deletionTimestamp"] = "2026-11-29T10:30:00Z"
    last["metadata"].setdefault("uid", f"uid-of-{last['metadata']['name']}")
    for status in last["status"].get("containerStatuses", []):  # what the server always sends
        status.setdefault("image", "nvcr.io/nvidia/pytorch:24.10-py3")
        status.setdefault("imageID", "")
        status.setdefault("ready", False)
        status.setdefault("restartCount", 0)
    memory._on_pod("DELETED", Pod.from_dict(last))


def test_a_pod_evicted_before_any_pass_saw_it_keeps_its_node_in_the_attempt() -> None:
    job, pods = running()
    memory = FailureTimes(FakeClock())
    evicted = pods[2]  # llama-7b-worker-1 on gpu-node-03: drained off its node
    delete(memory, evicted)
    left = pods[:2]
    assert list(job_status(job, left).nodes) == ["gpu-node-01", "gpu-node-02"]
    assert nodes_now(memory, job, left) == ["gpu-node-01", "gpu-node-02", "gpu-node-03"]


def test_a_pod_being_deleted_keeps_its_node_before_its_deleted_event() -> None:
    job, pods = running()
    memory = FailureTimes(FakeClock())
    pods[2]["metadata"]["deletionTimestamp"] = "2026-11-29T10:30:00Z"  # graceful termination
    assert list(job_status(job, pods).nodes) == ["gpu-node-01", "gpu-node-02"]
    assert nodes_now(memory, job, pods) == ["gpu-node-01", "gpu-node-02", "gpu-node-03"]


def test_a_pod_that_never_started_or_of_another_attempt_adds_no_node() -> None:
    job, pods = running()
    memory = FailureTimes(FakeClock())
    placed = copy.deepcopy(pods[2])  # bound, deleted before its container started
    placed["status"]["phase"] = "Pending"
    placed["status"]["containerStatuses"][0]["state"] = {"waiting": {"reason": "ContainerCreating"}}
    delete(memory, placed)
    assert nodes_now(memory, job, pods[:2]) == ["gpu-node-01", "gpu-node-02"]
    earlier = copy.deepcopy(pods[2])  # the previous attempt's pod, deleted by the requeue
    earlier["metadata"]["uid"] = "an-earlier-attempts-pod"
    earlier["spec"]["nodeName"] = "gpu-node-09"
    job["metadata"].setdefault("annotations", {})[ATTEMPT_ANNOTATION] = "1"
    current = [copy.deepcopy(p) for p in pods[:2]]
    for p in current:
        p["metadata"].setdefault("annotations", {})[ATTEMPT_ANNOTATION] = "1"
    delete(memory, earlier)
    assert "gpu-node-09" not in nodes_now(memory, job, current)


def test_a_deleted_pod_is_forgotten_after_a_while() -> None:
    job, pods = running()
    clock = FakeClock()
    memory = FailureTimes(clock)
    delete(memory, pods[2])
    clock.advance(DEPARTED_FOR.total_seconds() + 1)
    other = copy.deepcopy(pods[1])
    other["metadata"]["uid"] = "another-pod"
    delete(memory, other)  # each event forgets what is too old
    assert nodes_now(memory, job, pods[:2]) == ["gpu-node-01", "gpu-node-02"]
