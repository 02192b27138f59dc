"""Recovery of a gang scheduled by NVIDIA's KAI scheduler (built from its Go module, v0.12.0):
the pod grouper makes one PodGroup for the PyTorchJob (minMember = every replica), KAI binds
the whole gang, a GPU fault requeues the job, and KAI places the whole new gang elsewhere,
with the job's `schedulerName` and queue label untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lightkube.generic_resource import create_namespaced_resource

from autorecover.controllers.jobs.records import IncidentPhase
from autorecover.domain.records import Action, Cause
from autorecover.testing.kubernetes.cluster import ClusterError, KubeTestCluster
from autorecover.testing.kubernetes.harness import KubeHarness, wait
from autorecover.testing.kubernetes.rig import Rig

PodGroup = create_namespaced_resource("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups")
QUEUE = {"kai.scheduler/queue": "default-queue"}


@pytest.fixture
def kai(kube_cluster: KubeTestCluster, kube: KubeHarness) -> KubeHarness:
    """The session's control plane with KAI's scheduler, binder and pod grouper running."""
    try:
        kube_cluster.start_kai()
    except ClusterError as exc:
        pytest.fail(f"the KAI scheduler did not start: {exc}", pytrace=False)
    return kube


@pytest.fixture
def rig(kai: KubeHarness, tmp_path: Path) -> Iterator[Rig]:
    built = Rig(kai, tmp_path / "state.db")
    try:
        yield built
    finally:
        built.close()


def _gangs(kube: KubeHarness) -> list[dict[str, Any]]:
    return [g.to_dict() for g in kube.client.list(PodGroup, namespace=kube.namespace)]


def test_kubernetes_kai_gang_is_requeued_whole_on_other_nodes(rig: Rig) -> None:
    kube = rig.kube
    job = kube.submit(workers=3, scheduler="kai-scheduler", labels=QUEUE)
    first = kube.placement(timeout_s=60)
    (gang,) = wait(lambda: _gangs(kube), "KAI's pod grouper to make the PodGroup")
    assert gang["spec"]["minMember"] == 4 and gang["spec"]["queue"] == "default-queue"
    for pod in kube.pods():
        assert pod["spec"]["schedulerName"] == "kai-scheduler"
        assert pod["metadata"]["annotations"]["pod-group-name"] == gang["metadata"]["name"]

    bad = first["train-worker-2"]
    rig.fault(bad)
    kube.fail_pod("train-worker-2")

    def recovered() -> dict[str, str] | None:
        try:
            return kube.placement(attempt=1, timeout_s=0)
        except AssertionError:
            return None

    second = rig.until(recovered, "the whole new gang bound by KAI")
    assert bad not in second.values() and len(second) == 4
    # Job recovery sees it on its next pass, checks the placement, and moves on.
    rig.until(lambda: rig.job_store.incidents(job)[0].phase is not IncidentPhase.VERIFYING,
              "the requeue verified")  # fmt: skip
    (incident,) = rig.job_store.incidents(job)
    assert incident.verdict is not None and incident.verdict.cause is Cause.HARDWARE
    assert incident.decided is not None and incident.decided.action is Action.REQUEUE_EXCLUDING
    assert incident.phase in (IncidentPhase.RECOVERING, IncidentPhase.CLOSED)
    for pod in kube.pods():
        assert pod["spec"]["schedulerName"] == "kai-scheduler"  # still KAI's
        assert pod["metadata"]["labels"]["kai.scheduler/queue"] == "default-queue"
    (gang,) = _gangs(kube)
    assert gang["spec"]["minMember"] == 4  # still one gang of every replica
