"""A JobSet and its pods as `JobStatus`: the attempt is `status.restarts`, only its pods count."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorecover.adapters.kubernetes.jobset_states import (
    RESTART_LABEL,
    controlled_by,
    current_pods,
    jobset_status,
    main_container,
    restart_of,
)
from autorecover.adapters.kubernetes.jobsets import log_sources
from autorecover.adapters.kubernetes.names import (
    InvalidNameError,
    jobset_key,
    parse_job_key,
    parse_jobset_key,
)
from autorecover.adapters.kubernetes.states import REQUEUE_ACTION_ANNOTATION
from autorecover.adapters.kubernetes.trainjobs import as_jobset, trainjob_status
from autorecover.controllers.jobs.records import JobPhase

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kubernetes"


def load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with (FIXTURES / "jobset-failed.yaml").open() as f:
        jobset, *pods = yaml.safe_load_all(f)
    return jobset, pods


def running() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The recorded JobSet before its pod failed: no condition, the pod running."""
    jobset, pods = load()
    jobset["status"] = {"restarts": 0}
    pod = pods[0]
    pod["status"]["phase"] = "Running"
    pod["status"]["containerStatuses"][0]["state"] = {"running": {"startedAt": "x"}}
    return jobset, pods


def test_kubernetes_jobset_failed_as_recorded() -> None:
    jobset, pods = load()
    status = jobset_status(jobset, pods)
    assert status.job == "jobset:default/llama-7b"
    assert status.phase is JobPhase.FAILED and status.state == "Error"  # the pod's word
    assert status.attempt == 0
    assert status.nodes == ("gpu-02",)
    assert status.exit_codes == (("gpu-02", 1),)
    assert status.ended == datetime(2026, 12, 2, 0, 17, 28, tzinfo=UTC)
    assert status.started == datetime(2026, 12, 2, 0, 17, 28, tzinfo=UTC)
    assert status.exclusions == ()
    assert main_container(pods[0]) == "trainer"


def test_kubernetes_jobset_running_then_a_pod_fails_before_the_controller_says_so() -> None:
    jobset, pods = running()
    assert jobset_status(jobset, pods).phase is JobPhase.RUNNING
    pods[0]["status"]["phase"] = "Failed"
    status = jobset_status(jobset, pods)
    assert status.phase is JobPhase.FAILED and status.ended is None  # no finish time yet


def test_kubernetes_jobset_pods_of_an_earlier_restart_do_not_count() -> None:
    jobset, pods = load()
    jobset["status"]["restarts"] = 1
    jobset["status"]["conditions"] = []
    status = jobset_status(jobset, pods)
    assert status.attempt == 1 and status.nodes == () and status.exit_codes == ()
    assert status.phase is JobPhase.PENDING
    newer = copy.deepcopy(pods[0])
    newer["metadata"]["labels"][RESTART_LABEL] = "1"
    newer["status"]["phase"] = "Running"
    assert current_pods(jobset, [*pods, newer]) == [newer]
    assert jobset_status(jobset, [*pods, newer]).phase is JobPhase.RUNNING


def test_kubernetes_jobset_other_jobsets_pods_and_deleted_pods_do_not_count() -> None:
    jobset, pods = running()
    other = copy.deepcopy(pods[0])
    other["metadata"]["namespace"] = "elsewhere"
    going = copy.deepcopy(pods[0])
    going["metadata"]["deletionTimestamp"] = "2026-12-02T00:17:29Z"
    assert current_pods(jobset, [other, going]) == []


@pytest.mark.parametrize(
    ("conditions", "spec", "phase"),
    [
        ([{"type": "Completed", "status": "True", "reason": "AllJobsCompleted"}], {},
         JobPhase.SUCCEEDED),
        ([{"type": "Suspended", "status": "True", "reason": "SuspendedJobs"}], {},
         JobPhase.PENDING),
        ([], {"suspend": True}, JobPhase.PENDING),
        ([{"type": "Suspended", "status": "False", "reason": "ResumeJobs"}], {},
         JobPhase.RUNNING),
    ],
)  # fmt: skip
def test_kubernetes_jobset_conditions(conditions: list[dict[str, str]], spec: dict[str, Any],
                                      phase: JobPhase) -> None:  # fmt: skip
    jobset, pods = running()
    jobset["status"]["conditions"] = conditions
    jobset["spec"].update(spec)
    assert jobset_status(jobset, pods).phase is phase


def test_kubernetes_jobset_a_requeue_under_way_reads_as_pending() -> None:
    jobset, pods = load()
    jobset["metadata"]["annotations"][REQUEUE_ACTION_ANNOTATION] = "act-1"
    status = jobset_status(jobset, pods)
    assert status.phase is JobPhase.PENDING and status.state == "Requeueing"


def test_kubernetes_jobset_exclusions_are_the_pods_node_affinity() -> None:
    jobset, pods = running()
    pods[0]["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "NotIn", "values": ["gpu-03", "gpu-01"]}]}]}}}  # fmt: skip
    assert jobset_status(jobset, pods).exclusions == ("gpu-01", "gpu-03")


@pytest.mark.parametrize("label", [None, "x", "-1", "12345678901"])
def test_kubernetes_jobset_an_unreadable_restart_label_is_no_restart(label: str | None) -> None:
    _, pods = load()
    labels = pods[0]["metadata"]["labels"]
    labels.pop(RESTART_LABEL)
    if label is not None:
        labels[RESTART_LABEL] = label
    assert restart_of(pods[0]) is None


def test_kubernetes_jobset_keys_are_told_apart_from_pytorchjobs() -> None:
    key = jobset_key("team-a", "llama")
    assert key == "jobset:team-a/llama"
    assert parse_jobset_key(key) == ("team-a", "llama")
    with pytest.raises(InvalidNameError, match="JobSet's id"):
        parse_jobset_key("team-a/llama")
    with pytest.raises(InvalidNameError):
        parse_job_key(key)  # ':' is in no Kubernetes name


def test_kubernetes_trainjob_reads_as_its_jobset_under_its_own_name_and_annotations() -> None:
    jobset, pods = load()
    trainjob = {"metadata": {"name": "llama-7b", "namespace": "default",
                             "annotations": {"autorecover.io/recovery": "on"}},
                "spec": {"suspend": False}}  # fmt: skip
    status = trainjob_status(as_jobset(trainjob, jobset), pods)
    assert status.job == "trainjob:default/llama-7b"
    assert status.phase is JobPhase.FAILED and status.exit_codes == (("gpu-02", 1),)
    trainjob["spec"]["suspend"] = True
    jobset["status"] = {"restarts": 0}
    assert trainjob_status(as_jobset(trainjob, jobset), []).phase is JobPhase.PENDING
    # The Trainer has not made the JobSet yet: pending, attempt 0.
    before = trainjob_status(as_jobset(trainjob, None), [])
    assert before.phase is JobPhase.PENDING and before.attempt == 0 and before.nodes == ()


def test_kubernetes_a_trainjobs_jobset_is_told_by_its_controller() -> None:
    jobset, _ = load()
    assert controlled_by(jobset) is None
    jobset["metadata"]["ownerReferences"] = [
        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "llama-7b",
         "uid": "u", "controller": True}]  # fmt: skip
    assert controlled_by(jobset) == "TrainJob"


def test_kubernetes_jobset_attempt_stays_during_a_requeue_and_exclusions_before_pods() -> None:
    jobset, _ = load()
    notes = jobset["metadata"]["annotations"]
    notes |= {REQUEUE_ACTION_ANNOTATION: "act-1", "autorecover.io/attempt": "1",
              "autorecover.io/excluded-nodes": "gpu-02"}  # fmt: skip
    jobset["status"] = {"restarts": 1}
    status = jobset_status(jobset, [])
    assert status.attempt == 0 and status.state == "Requeueing"
    notes["autorecover.io/requeued"] = "act-1"
    status = jobset_status(jobset, [])
    assert status.attempt == 1 and status.exclusions == ("gpu-02",)  # no pods yet: the Jobs'


def test_kubernetes_jobset_pod_output_is_spooled_under_the_pods_own_restart() -> None:
    jobset, pods = running()
    jobset["status"] = {"restarts": 1}
    jobset["metadata"]["annotations"] |= {REQUEUE_ACTION_ANNOTATION: "act-1",
                                          "autorecover.io/attempt": "1"}  # not done yet  # fmt: skip
    pods[0]["metadata"]["labels"][RESTART_LABEL] = "1"
    current = current_pods(jobset, pods)
    assert jobset_status(jobset, pods).attempt == 0  # the status still says the last attempt
    (source,) = log_sources("jobset:default/llama-7b", 0, current)
    assert (source.attempt, source.node, source.container) == (1, "gpu-02", main_container(pods[0]))
    del pods[0]["metadata"]["labels"][RESTART_LABEL]  # no label: the status's attempt
    assert [s.attempt for s in log_sources("jobset:default/llama-7b", 0, pods)] == [0]
    pods[0]["status"]["phase"] = "Pending"
    assert log_sources("jobset:default/llama-7b", 0, pods) == []
