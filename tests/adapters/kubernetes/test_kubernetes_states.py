"""A PyTorchJob and its pods as `JobStatus`: the current attempt only, failed pods first."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.kubernetes.states import (
    ATTEMPT_ANNOTATION,
    condition_phase,
    exit_codes,
    job_attempt,
    job_status,
    nodes_by_pod,
    pod_attempt,
    pod_failed,
    pods_of,
)
from autorecover.controllers.jobs.records import JobPhase

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kubernetes"


def load(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with (FIXTURES / name).open() as f:
        job, *pods = yaml.safe_load_all(f)
    return job, pods


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def condition(kind: str, when: str, status: str = "True", reason: str = "") -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason or f"PyTorchJob{kind}",
            "lastTransitionTime": when, "lastUpdateTime": when}  # fmt: skip


def test_kubernetes_running_job() -> None:
    job, pods = load("pytorchjob-running.yaml")
    status = job_status(job, pods)
    assert status.job == "research/llama-7b"
    assert status.phase is JobPhase.RUNNING and status.state == "PyTorchJobRunning"
    assert status.attempt == 0
    assert status.nodes == ("gpu-node-01", "gpu-node-02", "gpu-node-03")
    assert status.started == at("2026-11-29T10:00:02")
    assert status.started is not None and status.started.tzinfo is not None
    assert status.ended is None
    assert status.exit_codes == (("gpu-node-02", 1),)  # worker-0's container restarted once
    assert status.exclusions == ()


def test_kubernetes_a_failed_pod_fails_the_job_before_the_operator_says_so() -> None:
    job, pods = load("pytorchjob-oom.yaml")
    status = job_status(job, pods)
    assert status.job == "research/gpt-neox" and status.attempt == 1
    assert status.phase is JobPhase.FAILED and status.state == "OOMKilled"
    assert status.ended == at("2026-11-29T11:42:17")  # the OOM-killed container's finish
    # attempt 0's pod on gpu-node-05 is being deleted, and of the old attempt: not counted
    assert status.nodes == ("gpu-node-01", "gpu-node-02", "gpu-node-03")
    assert status.exit_codes == (("gpu-node-03", 137),)
    assert status.exclusions == ("gpu-node-05", "gpu-node-09")
    assert status.started == at("2026-11-29T09:10:02")


def test_kubernetes_evicted_pod_with_the_operators_failed_condition() -> None:
    job, pods = load("pytorchjob-evicted.yaml")
    status = job_status(job, pods)
    assert status.job == "team-a/bert-ft"
    assert status.phase is JobPhase.FAILED
    assert status.state == "Evicted"  # the pod's word, not ContainerStatusUnknown
    assert status.ended == at("2026-11-28T23:14:09")  # the job's completionTime
    assert status.nodes == ("cpu-gpu-17.rack2.example.com",)  # older labels still match
    assert status.exit_codes == (("cpu-gpu-17.rack2.example.com", 137),)


def test_kubernetes_failed_condition_without_pods_says_the_conditions_reason() -> None:
    job, _ = load("pytorchjob-evicted.yaml")
    status = job_status(job, [])
    assert status.phase is JobPhase.FAILED and status.state == "PyTorchJobFailed"
    assert status.nodes == () and status.exit_codes == ()


def test_kubernetes_succeeded_job_stays_succeeded_despite_an_old_failed_container() -> None:
    job, pods = load("pytorchjob-running.yaml")
    job["status"]["conditions"].append(condition("Succeeded", "2026-11-29T18:00:00Z"))
    job["status"]["completionTime"] = "2026-11-29T18:00:00Z"
    pods[2]["status"]["phase"] = "Failed"  # even a failed pod: the job's success is terminal
    status = job_status(job, pods)
    assert status.phase is JobPhase.SUCCEEDED and status.state == "PyTorchJobSucceeded"
    assert status.ended == at("2026-11-29T18:00:00")


@pytest.mark.parametrize(
    ("kind", "phase"),
    [("Created", JobPhase.PENDING), ("Running", JobPhase.RUNNING),
     ("Restarting", JobPhase.RUNNING), ("Succeeded", JobPhase.SUCCEEDED),
     ("Failed", JobPhase.FAILED), ("Suspended", JobPhase.PENDING)],
)  # fmt: skip
def test_kubernetes_the_latest_condition_that_holds_gives_the_phase(
    kind: str, phase: JobPhase
) -> None:
    job = {"status": {"conditions": [
        condition(kind, "2026-11-29T10:05:00Z"),  # listed first, but latest
        condition("Created", "2026-11-29T10:00:00Z"),
        condition("Running", "2026-11-29T10:09:00Z", status="False"),  # does not hold
        condition("Unheard", "2026-11-29T10:10:00Z"),  # a type we do not know
    ]}}  # fmt: skip
    assert condition_phase(job) == (phase, f"PyTorchJob{kind}")


def test_kubernetes_condition_ties_go_to_the_later_in_the_list() -> None:
    same = "2026-11-29T10:00:00Z"
    job = {"status": {"conditions": [condition("Running", same), condition("Restarting", same)]}}
    assert condition_phase(job) == (JobPhase.RUNNING, "PyTorchJobRestarting")
    job = {"status": {"conditions": [condition("Restarting", same), condition("Failed", same)]}}
    assert condition_phase(job)[0] is JobPhase.FAILED
    no_times = {"status": {"conditions": [{"type": "Failed", "status": "True"},
                                          {"type": "Created", "status": "True"}]}}  # fmt: skip
    assert condition_phase(no_times) == (JobPhase.PENDING, "Created")  # no reason: the type


def test_kubernetes_no_conditions_is_pending() -> None:
    assert condition_phase({}) == (JobPhase.PENDING, "Pending")
    status = job_status({"metadata": {"name": "j", "namespace": "ns"}}, [])
    assert status.phase is JobPhase.PENDING and status.job == "ns/j" and status.started is None


def test_kubernetes_attempt_annotation() -> None:
    assert job_attempt({}) == (0, None)
    assert job_attempt({"metadata": {"annotations": {ATTEMPT_ANNOTATION: "7"}}}) == (7, None)
    for bad in ("-1", "one", "", "07", "1.0", " 1", "9" * 12):
        job = {"metadata": {"name": "j", "annotations": {ATTEMPT_ANNOTATION: bad}}}
        attempt, why = job_attempt(job)
        assert attempt == 0 and why is not None
        assert ATTEMPT_ANNOTATION in why and repr(bad)[:20] in why
    assert (
        pod_attempt({}) == 0
        and pod_attempt({"metadata": {"annotations": {ATTEMPT_ANNOTATION: "x"}}}) is None
    )


def test_kubernetes_invalid_attempt_reads_as_zero_and_the_status_still_comes() -> None:
    job, pods = load("pytorchjob-running.yaml")
    job["metadata"]["annotations"] = {ATTEMPT_ANNOTATION: "two"}
    status = job_status(job, pods)
    assert status.attempt == 0 and len(status.nodes) == 3  # the pods without one are attempt 0


def test_kubernetes_only_current_attempt_pods_not_being_deleted() -> None:
    job, pods = load("pytorchjob-oom.yaml")
    assert [p["metadata"]["name"] for p in pods_of(job, pods)] == [
        "gpt-neox-master-0", "gpt-neox-worker-0", "gpt-neox-worker-1"]  # fmt: skip
    old = copy.deepcopy(pods[-1])
    del old["metadata"]["deletionTimestamp"]  # attempt 0 (no annotation), not being deleted
    assert old not in pods_of(job, [old])
    job["metadata"]["annotations"][ATTEMPT_ANNOTATION] = "0"
    assert [p["metadata"]["name"] for p in pods_of(job, [*pods[:-1], old])] == [
        "gpt-neox-worker-1-old"]  # fmt: skip


def test_kubernetes_pods_of_other_jobs_or_namespaces_do_not_count() -> None:
    job, pods = load("pytorchjob-running.yaml")
    stranger = copy.deepcopy(pods[0])
    stranger["metadata"]["labels"]["training.kubeflow.org/job-name"] = "llama-7b-2"
    elsewhere = copy.deepcopy(pods[1])
    elsewhere["metadata"]["namespace"] = "prod"
    unlabelled = copy.deepcopy(pods[2])
    unlabelled["metadata"]["labels"] = {}
    assert pods_of(job, [stranger, elsewhere, unlabelled]) == []


def test_kubernetes_pod_helpers() -> None:
    _, pods = load("pytorchjob-oom.yaml")
    assert [pod_failed(p) for p in pods] == [False, False, True, True]
    assert nodes_by_pod(pods[:3]) == {
        "gpt-neox-master-0": "gpu-node-01", "gpt-neox-worker-0": "gpu-node-02",
        "gpt-neox-worker-1": "gpu-node-03"}  # fmt: skip
    assert nodes_by_pod([{"metadata": {"name": "unbound"}, "spec": {}}]) == {}


def test_kubernetes_the_first_pod_to_fail_names_the_failure() -> None:
    job, pods = load("pytorchjob-oom.yaml")
    master = pods[0]
    master["status"] = {"phase": "Failed", "containerStatuses": [{"name": "pytorch", "state": {
        "terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-11-29T11:42:30Z"}}}]}  # fmt: skip
    status = job_status(job, pods)
    assert status.state == "OOMKilled"  # worker-1 failed first; the master followed
    assert status.ended == at("2026-11-29T11:42:30")  # the last to finish
    assert status.exit_codes == (("gpu-node-01", 1), ("gpu-node-03", 137))


def test_kubernetes_worst_exit_code_per_node() -> None:
    def pod(node: str, *codes: int, last: int | None = None) -> dict[str, Any]:
        containers = [
            {"name": f"c{i}", "state": {"terminated": {"exitCode": c}}} for i, c in enumerate(codes)
        ]
        if last is not None:
            containers.append(
                {
                    "name": "r",
                    "state": {"running": {}},
                    "lastState": {"terminated": {"exitCode": last}},
                }
            )
        return {"spec": {"nodeName": node}, "status": {"containerStatuses": containers}}

    pods = [pod("a", 0, 1), pod("a", 0), pod("b", 0), pod("c", last=139), pod("c", 2), pod("d")]
    assert exit_codes(pods) == (("a", 1), ("b", 0), ("c", 139))
    assert exit_codes([pod("e", 0, 255), {"status": {}}]) == (("e", 255),)


@given(st.lists(st.one_of(st.none(), st.integers(-5, 300)), max_size=5))
def test_kubernetes_property_worst_code_is_nonzero_if_any_and_the_highest(
    codes: list[int | None],
) -> None:
    pods = [{"spec": {"nodeName": "n"}, "status": {"containerStatuses": [
        {"state": {"terminated": {"exitCode": c}} if c is not None else {"running": {}}}]}}
        for c in codes]  # fmt: skip
    got = dict(exit_codes(pods)).get("n")
    present = [c for c in codes if c is not None]
    nonzero = [c for c in present if c != 0]
    assert got == (max(nonzero) if nonzero else (0 if present else None))


def test_kubernetes_malformed_times_read_as_absent() -> None:
    job, pods = load("pytorchjob-running.yaml")
    job["status"]["startTime"] = "yesterday"
    assert job_status(job, pods).started is None
    job["status"]["startTime"] = "2026-11-29T10:00:02"  # no zone: not RFC 3339
    assert job_status(job, pods).started is None
    job["status"]["startTime"] = "2026-11-29T10:00:02.123456+02:00"
    assert job_status(job, pods).started == datetime.fromisoformat(
        "2026-11-29T08:00:02.123456+00:00"
    )


def test_kubernetes_a_pod_being_deleted_does_not_count() -> None:
    job, pods = load("pytorchjob-oom.yaml")
    pods[2]["metadata"]["deletionTimestamp"] = "2026-11-29T11:42:20Z"  # the OOM-killed worker
    status = job_status(job, pods)
    assert status.phase is JobPhase.RUNNING and status.nodes == ("gpu-node-01", "gpu-node-02")
    assert status.exit_codes == ()


def _requeued_job(**notes: str) -> dict[str, Any]:
    return {
        "metadata": {"name": "train", "namespace": "ml", "annotations": {
            "autorecover.io/attempt": "1", **notes}},
        "status": {"conditions": [
            {"type": "Created", "status": "True", "lastTransitionTime": "2026-11-30T01:00:00Z"},
            {"type": "Failed", "status": "True", "lastTransitionTime": "2026-11-30T01:00:05Z",
             "reason": "PyTorchJobFailed"},
        ]},
    }  # fmt: skip


def test_a_requeue_part_way_is_pending_not_a_new_failure() -> None:
    job = _requeued_job(**{"autorecover.io/requeue-action": "inc#0/requeue_excluding"})
    status = job_status(job, [])
    assert status.phase is JobPhase.PENDING and status.state == "Requeueing"
    done = _requeued_job(**{"autorecover.io/requeue-action": "a", "autorecover.io/requeued": "a"})
    assert job_status(done, []).phase is JobPhase.FAILED  # finished requeue: conditions speak


def test_a_terminal_condition_older_than_the_attempt_is_an_earlier_attempts() -> None:
    later = {"autorecover.io/attempt-started": "2026-11-30T01:00:05.400000+00:00",
             "autorecover.io/requeue-action": "a", "autorecover.io/requeued": "a"}  # fmt: skip
    assert job_status(_requeued_job(**later), []).phase is JobPhase.PENDING
    earlier = {**later, "autorecover.io/attempt-started": "2026-11-30T01:00:01+00:00"}
    assert job_status(_requeued_job(**earlier), []).phase is JobPhase.FAILED
