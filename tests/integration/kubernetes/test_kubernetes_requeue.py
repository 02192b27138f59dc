"""`KubeJobs.requeue` on the real control plane: exclusions merged with the user's, KAI's
scheduling fields kept, and a requeue interrupted at any step converges when asked again."""

from __future__ import annotations

from typing import Any

import pytest

from autorecover.adapters.kubernetes.exclusions import HOSTNAME_KEY, exclusions_of
from autorecover.adapters.kubernetes.states import REQUEUED_ANNOTATION as REQUEUED
from autorecover.testing.kubernetes.harness import KubeHarness, wait

USER_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]},
        {"key": HOSTNAME_KEY, "operator": "NotIn", "values": ["gpu-06"]},
    ]}]}}}  # fmt: skip


def _terms(job: dict[str, Any], replica: str) -> list[dict[str, Any]]:
    spec = job["spec"]["pytorchReplicaSpecs"][replica]["template"]["spec"]
    return list(spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"])  # fmt: skip


def test_kubernetes_requeue_merges_exclusions_and_keeps_kai_fields(kube: KubeHarness) -> None:
    # schedulerName and the queue label are KAI's; they must survive a requeue untouched.
    job = kube.submit(workers=1, affinity=USER_AFFINITY, scheduler="default-scheduler",
                      labels={"kai.scheduler/queue": "team-a"})  # fmt: skip
    first = kube.placement(count=2)
    bad = first["train-worker-0"]
    kube.jobs.requeue(job, [bad], 0.0, kube.provenance("hardware on " + bad))
    second = kube.placement(attempt=1, count=2)
    assert bad not in second.values() and "gpu-06" not in second.values()
    after = kube.job()
    assert set(exclusions_of(after)) == {bad, "gpu-06"}
    for replica in ("Master", "Worker"):
        (term,) = _terms(after, replica)
        assert {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]} in (
            term["matchExpressions"]
        )  # the user's own requirement stays
        template = after["spec"]["pytorchReplicaSpecs"][replica]["template"]
        assert template["spec"]["schedulerName"] == "default-scheduler"
        assert template["metadata"]["labels"]["kai.scheduler/queue"] == "team-a"
    assert after["metadata"]["labels"]["kai.scheduler/queue"] == "team-a"
    assert after["spec"]["runPolicy"]["suspend"] is False

    # Lifting our exclusion (an empty list) gives back exactly the user's.
    kube.jobs.requeue(job, [], 0.0, kube.provenance("transient"))
    kube.placement(attempt=2, count=2)
    assert exclusions_of(kube.job()) == ("gpu-06",)


@pytest.mark.parametrize("crash_after", ["prepare", "delete"])
def test_kubernetes_requeue_interrupted_converges_when_asked_again(
    kube: KubeHarness, crash_after: str
) -> None:
    job = kube.submit(workers=3)
    first = kube.placement()
    bad = first["train-worker-2"]
    kube.fail_pod("train-worker-2")
    wait(lambda: any(c["type"] == "Failed" and c["status"] == "True"
                     for c in kube.job().get("status", {}).get("conditions", [])),
         "the operator to mark the job Failed")  # fmt: skip
    prov = kube.provenance("hardware on " + bad)
    jobs = kube.jobs

    # The engine dies part-way through (the steps as `requeue` runs them).
    current = kube.job()
    kube.session.call(jobs._prepare(current, [bad], 1, prov))
    if crash_after == "delete":
        kube.session.call(jobs._delete_older_pods(kube.namespace, "train", 1))

    jobs.requeue(job, [bad], 0.0, prov)  # after the restart: the same action id
    second = kube.placement(attempt=1)
    assert bad not in second.values() and len(second) == 4
    after = kube.job()
    assert after["metadata"]["annotations"]["autorecover.io/attempt"] == "1"  # not 2
    assert after["metadata"]["annotations"][REQUEUED] == prov.action_id
    assert not any(c["type"] == "Failed" and c["status"] == "True"
                   for c in after["status"]["conditions"])  # fmt: skip
    # Once more: nothing happens (the operator still writes the status, so the resource
    # version may move; the spec's generation and our annotations must not).
    generation, notes = after["metadata"]["generation"], after["metadata"]["annotations"]
    jobs.requeue(job, [bad], 0.0, prov)
    again = kube.job()
    assert again["metadata"]["generation"] == generation
    assert again["metadata"]["annotations"] == notes
