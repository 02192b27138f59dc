"""End-to-end recovery on the real control plane: a 4-replica PyTorchJob on 6 kwok GPU nodes,
the real training operator and kube-scheduler, the node agent's kernel probe on a file per
node, job and hardware recovery on one SQLite file.

Every wait is bounded (`Rig.until`, at most 60 s); each test has its own namespace and
leaves every node as it found it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.kubernetes import marks
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT, NodeState
from autorecover.domain.records import Action, Cause
from autorecover.testing.kubernetes.harness import KubeHarness
from autorecover.testing.kubernetes.rig import POLICY, Rig
from integration.kubernetes.recovery_cases import (
    NCCL_WATCHDOG,
    TRACEBACK,
    closed_incident,
    out_of_service,
)


@pytest.fixture
def rig(kube: KubeHarness, tmp_path: Path) -> Iterator[Rig]:
    """The composed engine on a fresh store."""
    built = Rig(kube, tmp_path / "state.db")
    try:
        yield built
    finally:
        built.close()


def _requeued_and_stepping(rig: Rig, job: str) -> dict[str, str]:
    """Run passes until attempt 1's pods run; then its master reports a first step."""

    def running() -> dict[str, str] | None:
        try:
            return rig.kube.placement(attempt=1, timeout_s=0)
        except AssertionError:
            return None

    placed = rig.until(running, "attempt 1's pods running")  # passes resume a delayed one
    rig.kube.step("train-master-0", placed["train-master-0"], 11)
    return placed


def test_kubernetes_e2e_gpu_fault_cordons_the_node_and_requeues_elsewhere(rig: Rig) -> None:
    kube = rig.kube
    job = kube.submit(workers=3)
    first = kube.placement()
    bad_pod = "train-worker-1"
    bad = first[bad_pod]

    # The GPU falls off the bus: the driver's line in the node's kernel log; the rank dies.
    rig.fault(bad)
    kube.fail_pod(bad_pod, exit_code=1)

    second = _requeued_and_stepping(rig, job)
    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (first new step)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.HARDWARE, closed
    assert closed.verdict.suspect_nodes == (bad,)
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE_EXCLUDING

    # The real scheduler placed the whole new gang, on other nodes only.
    assert bad not in second.values() and len(second) == 4
    assert set(kube.job()["metadata"]["annotations"]["autorecover.io/excluded-nodes"]
               .split(",")) == {bad}  # fmt: skip
    (requeued,) = [e for e in kube.events("PyTorchJob", "train") if e["action"] == "Requeue"]
    assert f"attempt 1 without {bad}" in requeued["note"] and closed.id in requeued["note"]

    # Hardware recovery took the node out, with provenance a person can read. XID 79 wants
    # a reboot, which Kubernetes cannot do: the ladder hands the node to a person, held out.
    record = rig.until(lambda: (r := rig.hardware.node(bad)).state is NodeState.NEEDS_ATTENTION
                       and r, f"{bad} handed to a person")  # fmt: skip
    refused = [a for a in rig.hw_store.actions(bad) if a.result and "no API to reboot" in a.result]
    assert refused, rig.hw_store.actions(bad)
    node = kube.node(bad)
    assert node["spec"]["unschedulable"] is True
    assert any(t["key"] == QUARANTINE_TAINT and t["effect"] == "NoSchedule"
               for t in node["spec"]["taints"])  # fmt: skip
    notes = node["metadata"]["annotations"]
    assert notes[marks.CORDONED_BY] == rig.hardware.name
    assert notes[marks.INCIDENT] == record.incident and "79" in notes[marks.REASON]
    assert out_of_service(rig) == [bad]


def test_kubernetes_e2e_transient_failure_restarts_without_cordoning(rig: Rig) -> None:
    kube = rig.kube
    job = kube.submit(
        workers=3,
        annotations={
            "autorecover.io/recovery": "on",
            "autorecover.io/policy": "transient_backoff_s=1/2",
        },
    )
    first = kube.placement()
    pod, node = "train-worker-1", first["train-worker-1"]
    stamp = datetime.now(UTC).strftime("%m%d %H:%M:%S.%f")
    kube.log(pod, NCCL_WATCHDOG.format(stamp=stamp))
    rig.until(lambda: b"Watchdog caught" in kube.jobs.read_output(job, 0, node, 0, 1 << 20),
              "the NCCL line streamed from the pod's log")  # fmt: skip
    kube.fail_pod(pod, exit_code=1)

    second = _requeued_and_stepping(rig, job)
    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (first new step)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.TRANSIENT, closed
    assert closed.decided is not None and closed.decided.action is Action.REQUEUE
    assert closed.decided.exclude == ()
    assert len(second) == 4
    assert "autorecover.io/excluded-nodes" not in kube.job()["metadata"]["annotations"]
    assert out_of_service(rig) == []
    assert all(rig.hardware.node(n).state is NodeState.HEALTHY
               for n in kube.cluster.node_names)  # fmt: skip


def test_kubernetes_e2e_application_error_stops_the_job_and_cordons_nothing(rig: Rig) -> None:
    kube = rig.kube
    job = kube.submit(workers=3)
    first = kube.placement()
    pods = sorted(first)
    for rank, pod in enumerate(pods):  # every rank hits the same missing module
        for line in TRACEBACK:
            kube.log(pod, line.format(r=rank))
    rig.until(lambda: all(b"ModuleNotFoundError" in kube.jobs.read_output(job, 0, first[p], 0,
                                                                           1 << 20)
                          for p in pods), "every rank's traceback streamed")  # fmt: skip
    for pod in pods:
        kube.fail_pod(pod, exit_code=1)

    closed = rig.until(lambda: closed_incident(rig, job), "the incident closed (stopped)")
    assert closed.verdict is not None and closed.verdict.cause is Cause.APPLICATION, closed
    assert closed.decided is not None and closed.decided.action is Action.STOP
    for _ in range(10):  # a few more passes: it stays stopped
        rig.step()
    after = kube.job()
    notes = after["metadata"]["annotations"]
    assert "autorecover.io/stopped" in notes and after["spec"]["runPolicy"]["suspend"] is True
    assert "autorecover.io/attempt" not in notes  # never requeued
    assert out_of_service(rig) == []
    assert len(rig.job_store.incidents(job)) == 1


def test_kubernetes_e2e_breaker_stops_a_fault_storm_at_its_limit(kube: KubeHarness,
                                                                tmp_path: Path) -> None:  # fmt: skip
    limit = 2
    policy = replace(POLICY, breaker=replace(POLICY.breaker, max_nodes=limit, max_fraction=1.0,
                                             max_out_fraction=1.0))  # fmt: skip
    rig = Rig(kube, tmp_path / "state.db", policy)
    try:
        storm = kube.cluster.node_names[:5]
        for node in storm:
            rig.fault(node)
        for _ in range(20):
            rig.step()
        out = out_of_service(rig)
        assert len(out) == limit, out
        assert set(out) <= set(storm)
        assert rig.hardware.breaker.tripped, rig.hardware.breaker
        assert any("breaker" in a.summary.lower() for a in rig.notifier.alerts.values())
    finally:
        rig.close()
