"""End-to-end recovery of JobSets on the real control plane: JobSet's own controller (built
from `sigs.k8s.io/jobset` v0.10.1, its webhooks admitting every change), kube-controller-
manager's job controller, kwok's GPU nodes, and job and hardware recovery composed as the
engine composes them. Each case runs under kube-scheduler and under NVIDIA's KAI scheduler.

A JobSet here is 2 batch Jobs of 2 pods, each pod on a whole node (8 GPUs), failing for good
when a pod fails; the attempt is JobSet's `status.restarts`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from lightkube.generic_resource import create_namespaced_resource
from lightkube.resources.batch_v1 import Job

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.kubernetes.client import ConflictError
from autorecover.adapters.kubernetes.jobset_restarts import JobSet
from autorecover.adapters.kubernetes.stack import KubeSettings, KubeStack
from autorecover.domain.records import Action, Cause
from autorecover.testing.kubernetes.cluster import ClusterError, KubeTestCluster
from autorecover.testing.kubernetes.harness import KubeHarness
from autorecover.testing.kubernetes.jobset_harness import JobSetHarness
from autorecover.testing.kubernetes.rig import Rig
from autorecover.testing.waiting import wait
from deploy.rendering import build_helm, render
from integration.kubernetes.recovery_cases import (
    NCCL_WATCHDOG,
    QUEUE,
    TRACEBACK,
    closed_incident,
    out_of_service,
)

PodGroup = create_namespaced_resource("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups")
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
ENGINE = "ar-autorecover-engine"


# The restart's gang is placed by the scheduler after the Trainer/JobSet controllers recreate
# its Jobs; under KAI (PodGroup made by its pod-grouper, then a scheduling cycle) on a loaded
# two-core CI machine the TrainJob case took over 60 s twice in CI (twelfth session), never in
# isolation.
RESTART_WAIT_S = 120.0


@pytest.fixture(params=["kube-scheduler", "kai"])
def scheduler(request: pytest.FixtureRequest, kube_cluster: KubeTestCluster) -> str:
    """The JobSet controller running, and KAI too for the KAI case."""
    try:
        kube_cluster.start_jobset()
        if request.param == "kai":
            kube_cluster.start_kai()
    except ClusterError as exc:
        pytest.fail(f"the JobSet controller or KAI did not start: {exc}", pytrace=False)
    return str(request.param)


@pytest.fixture
def js(scheduler: str, kube: KubeHarness) -> Iterator[JobSetHarness]:
    """The test's JobSets; deleted (and their Jobs gone) before the harness cleans up."""
    harness = JobSetHarness(kube)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def rig(js: JobSetHarness, tmp_path: Path) -> Iterator[Rig]:
    """The composed engine on a fresh store, recovering JobSets."""
    built = Rig(js.kube, tmp_path / "state.db", jobs=js.jobs)
    try:
        yield built
    finally:
        built.close()


def _submit(js: JobSetHarness, scheduler: str, **kwargs: Any) -> str:
    if scheduler == "kai":
        return js.submit(scheduler="kai-scheduler", labels=QUEUE, **kwargs)
    return js.submit(**kwargs)


def _restarted_and_stepping(rig: Rig, js: JobSetHarness) -> dict[str, str]:
    """Run passes until restart 1's pods run; then its first pod reports a first step."""
    placed = rig.until(lambda: js.running(restart=1), "restart 1's pods running",
                       RESTART_WAIT_S, context=js.describe)  # fmt: skip
    first = sorted(placed)[0]
    rig.kube.step(first, placed[first], 11)
    return placed


def _kept_by(scheduler: str, js: JobSetHarness) -> None:
    """The pods are still the chosen scheduler's, with the user's queue label."""
    for pod in js.pods():
        if scheduler == "kai":
            assert pod["spec"]["schedulerName"] == "kai-scheduler"
            assert pod["metadata"]["labels"]["kai.scheduler/queue"] == "default-queue"
        else:
            assert pod["spec"].get("schedulerName", "default-scheduler") == "default-scheduler"
    if scheduler == "kai":
        (gang,) = [g.to_dict() for g in js.kube.client.list(PodGroup, namespace=js.namespace)]
        assert gang["metadata"]["ownerReferences"][0]["kind"] == "JobSet"


def test_kubernetes_jobset_gpu_fault_requeues_whole_without_the_node(
    scheduler: str, rig: Rig, js: JobSetHarness
) -> None:
    kube = rig.kube
    job = _submit(js, scheduler)
    first = js.placement(timeout_s=60)
    bad_pod = sorted(first)[1]
    bad = first[bad_pod]

    rig.fault(bad)  # the GPU falls off the bus; its rank dies
    kube.fail_pod(bad_pod, exit_code=1)

    second = _restarted_and_stepping(rig, js)
    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (first new step)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.HARDWARE, closed
    assert closed.verdict.suspect_nodes == (bad,)
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE_EXCLUDING

    # JobSet restarted the whole gang (every Job of restart 1) and the scheduler placed it
    # on other nodes only; the restart did not spend the user's maxRestarts.
    assert bad not in second.values() and len(second) == 4
    jobset = js.jobset()
    assert jobset["status"]["restarts"] == 1
    assert jobset["status"].get("restartsCountTowardsMax", 0) == 0
    assert jobset["metadata"]["annotations"]["autorecover.io/excluded-nodes"] == bad
    children = [j.to_dict() for j in kube.client.list(Job, namespace=kube.namespace)]
    assert len(children) == 2
    for child in children:
        terms = child["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]  # fmt: skip
        assert {"key": "kubernetes.io/hostname", "operator": "NotIn",
                "values": [bad]} in terms[0]["matchExpressions"]  # fmt: skip
    # The JobSet's own templates stay the user's (JobSet's webhook refuses changing them).
    template = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert "affinity" not in template
    (requeued,) = [e for e in kube.events("JobSet", "train") if e["action"] == "Requeue"]
    assert f"restart 1 without {bad}" in requeued["note"] and closed.id in requeued["note"]
    _kept_by(scheduler, js)
    # Hardware recovery took the node out.
    rig.until(lambda: bad in out_of_service(rig), f"{bad} cordoned")


def test_kubernetes_jobset_transient_failure_restarts_in_place(
    scheduler: str, rig: Rig, js: JobSetHarness
) -> None:
    kube = rig.kube
    job = _submit(js, scheduler, annotations={"autorecover.io/recovery": "on",
                                               "autorecover.io/policy": "transient_backoff_s=1/2"})  # fmt: skip
    first = js.placement(timeout_s=60)
    pod = sorted(first)[2]
    node = first[pod]
    stamp = datetime.now(UTC).strftime("%m%d %H:%M:%S.%f")
    kube.log(pod, NCCL_WATCHDOG.format(stamp=stamp))
    rig.until(lambda: b"Watchdog caught" in js.jobs.read_output(job, 0, node, 0, 1 << 20),
              "the NCCL line streamed from the pod's log")  # fmt: skip
    kube.fail_pod(pod, exit_code=1)

    second = _restarted_and_stepping(rig, js)  # passes resume it once its delay passed
    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (first new step)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.TRANSIENT, closed
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE
    assert closed.decided.exclude == ()
    assert len(second) == 4
    jobset = js.jobset()
    assert jobset["status"]["restarts"] == 1
    assert jobset["status"].get("restartsCountTowardsMax", 0) == 0
    assert "autorecover.io/excluded-nodes" not in jobset["metadata"]["annotations"]
    for child in kube.client.list(Job, namespace=kube.namespace):
        assert child.spec is not None and child.spec.template.spec is not None
        assert child.spec.template.spec.affinity is None  # restarted in place: no exclusions
    assert out_of_service(rig) == []
    _kept_by(scheduler, js)


def test_kubernetes_jobset_application_error_stops_it(
    scheduler: str, rig: Rig, js: JobSetHarness
) -> None:
    kube = rig.kube
    job = _submit(js, scheduler)
    first = js.placement(timeout_s=60)
    pods = sorted(first)
    for rank, pod in enumerate(pods):  # every rank hits the same missing module
        for line in TRACEBACK:
            kube.log(pod, line.format(r=rank))
    rig.until(lambda: all(b"ModuleNotFoundError" in js.jobs.read_output(job, 0, first[p], 0,
                                                                         1 << 20)
                          for p in pods), "every rank's traceback streamed")  # fmt: skip
    js.fail_all(pods)

    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (stopped)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.APPLICATION, closed
    assert closed.decided is not None and closed.decided.action is Action.STOP
    for _ in range(10):  # a few more passes: it stays stopped
        rig.step()
    jobset = js.jobset()
    assert "autorecover.io/stopped" in jobset["metadata"]["annotations"]
    assert jobset["spec"]["suspend"] is True
    assert jobset["status"]["restarts"] == 0  # never restarted
    assert out_of_service(rig) == []
    assert len(rig.job_store.incidents(job)) == 1


def test_kubernetes_jobset_through_the_engines_stack_with_the_charts_rbac(
    kube_cluster: KubeTestCluster, kube: KubeHarness
) -> None:
    """The engine's own stack, as the chart's service account: it finds JobSet served, lists
    JobSets beside PyTorchJobs, and requeues one with exactly the chart's rights."""
    try:
        kube_cluster.start_jobset()
    except ClusterError as exc:
        pytest.fail(f"the JobSet controller did not start: {exc}", pytrace=False)
    ns = kube.namespace
    manifests = render(build_helm(), {"store": {"url": "postgresql://db/ar"}, "namespaces": [ns]},
                       namespace=ns)  # fmt: skip
    for manifest in manifests:
        if manifest["kind"] in RBAC_KINDS:
            kube.cluster.apply(manifest)
    config = kube.cluster.user_kubeconfig(f"system:serviceaccount:{ns}:{ENGINE}",
                                          ["system:serviceaccounts"])  # fmt: skip
    settings = KubeSettings(kubeconfig=config, namespaces=(ns,), diagnostics_namespace=ns)
    js = JobSetHarness(kube)
    stack = KubeStack.connect(settings, SystemClock())
    try:
        assert stack.jobsets is not None
        pytorchjob = kube.submit(workers=1)
        job = js.submit(jobs=1)
        first = js.placement(count=2)
        bad_pod = sorted(first)[0]
        kube.fail_pod(bad_pod)
        wait(lambda: {w.job for w in stack.jobs.watched()} == {pytorchjob, job},
             "both kinds watched")  # fmt: skip
        stack.jobs.requeue(job, [first[bad_pod]], 0.0, kube.provenance("hardware"))
        assert first[bad_pod] not in js.placement(restart=1, count=2).values()
        (watched,) = [w for w in stack.jobs.watched() if w.job == job]
        assert watched.status.attempt == 1 and watched.status.exclusions == (first[bad_pod],)
    finally:
        stack.close()
        js.close()


@pytest.fixture
def plain(kube_cluster: KubeTestCluster, kube: KubeHarness) -> Iterator[JobSetHarness]:
    """The test's JobSets under kube-scheduler, for the port on its own."""
    try:
        kube_cluster.start_jobset()
    except ClusterError as exc:
        pytest.fail(f"the JobSet controller did not start: {exc}", pytrace=False)
    harness = JobSetHarness(kube)
    try:
        yield harness
    finally:
        harness.close()


def test_kubernetes_jobset_requeue_finishes_after_an_interruption_and_restarts_once(
    plain: JobSetHarness,
) -> None:
    js, kube = plain, plain.kube
    job = js.submit()
    first = js.placement()
    bad_pod = sorted(first)[0]
    bad = first[bad_pod]
    kube.fail_pod(bad_pod)
    wait(lambda: any(c["type"] == "Failed" for c in js.jobset()["status"].get("conditions", [])),
         "the JobSet marked Failed")  # fmt: skip

    # An engine killed right after step 1: annotated and suspended, restarts not raised yet.
    prov = kube.provenance("hardware")
    port = js.jobs

    def prepared() -> bool:  # read fresh until the controller's own status write is not between
        try:
            patch = port._prepare(js.jobset(), 1, prov)
            port.session.call(port.steps.patch(JobSet, kube.namespace, "train", patch))
        except ConflictError:
            return False
        return True

    wait(prepared, "step 1 written")
    (seen,) = wait(lambda: [w for w in port.watched() if w.status.state == "Requeueing"] or None,
                   "the half-done requeue read as Requeueing")  # fmt: skip
    assert seen.status.phase.value == "pending" and seen.status.attempt == 0

    port.requeue(job, [bad], 0.0, prov)  # the repeat finishes it
    second = js.placement(restart=1)
    assert bad not in second.values()
    port.requeue(job, [bad], 0.0, prov)  # and once more: nothing
    assert js.jobset()["status"]["restarts"] == 1
    assert set(js.placement(restart=1)) == set(second)

    # A later requeue with a delay and no exclusions: held suspended, then resumed by a pass.
    port.requeue(job, [], 1.0, kube.provenance("transient"))
    held = js.jobset()
    assert held["spec"]["suspend"] is True and held["status"]["restarts"] == 2
    assert "autorecover.io/resume-at" in held["metadata"]["annotations"]
    assert "autorecover.io/excluded-nodes" not in held["metadata"]["annotations"]
    third = wait(lambda: port.watched() and js.running(restart=2), "restart 2 resumed", 30)
    assert len(third) == 4
    for child in kube.client.list(Job, namespace=kube.namespace):
        assert child.spec is not None and child.spec.template.spec is not None
        assert child.spec.template.spec.affinity is None  # the exclusion was lifted
