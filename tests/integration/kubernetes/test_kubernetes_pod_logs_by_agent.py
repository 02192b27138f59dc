"""Job output read on the node, on the real control plane: the engine process
(`serve --scheduler kubernetes`) and one `agent run --pod-logs` process per kwok node. The
test writes each pod's container log where a kubelet would (`<root>/<ns>_<pod>_<uid>/pytorch/
0.log`, CRI format) and leaves the files kwok serves through `pods/log` empty: the fault can
reach job recovery only through the agent's excerpt. A GPU fault in one rank's output requeues
the job whole without that node."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.testing.kubernetes.harness import KubeHarness
from integration.kubernetes.node_agents import Engine, NodeAgent, until

ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"


@pytest.fixture
def engine(kube: KubeHarness, tmp_path: Path) -> Iterator[Engine]:
    e = Engine(kube, tmp_path, pod_log_grace_s=60)
    try:
        yield e
    finally:
        e.stop()


def write(root: Path, namespace: str, pod: dict[str, object], line: str) -> Path:
    meta = pod["metadata"]
    assert isinstance(meta, dict)
    folder = root / f"{namespace}_{meta['name']}_{meta['uid']}" / "pytorch"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with (folder / "0.log").open("a") as f:
        f.write(f"{stamp} stderr F {line}\n")
    return folder / "0.log"


def test_kubernetes_pod_logs_read_by_the_agents_requeue_the_job_without_the_faulty_node(
    kube: KubeHarness, engine: Engine, tmp_path: Path
) -> None:
    root = tmp_path / "pods"
    root.mkdir()
    agents = [NodeAgent(engine, n, tmp_path, pod_logs=root) for n in kube.cluster.node_names]
    try:
        until("the engine to lead", lambda: engine.get("/readyz")["role"] == "leader", 30,
              engine)  # fmt: skip
        for a in agents:
            a.start()
        job = kube.submit(workers=3)
        first = kube.placement()
        pods = {p["metadata"]["name"]: p for p in kube.pods()}
        for name in first:
            write(root, kube.namespace, pods[name], f"[rank0]: {name} starting")
        bad_pod = "train-worker-1"
        bad = first[bad_pod]
        write(root, kube.namespace, pods[bad_pod], ECC)
        spool = tmp_path / "spool"
        # 60 s, as the requeue below: a loaded runner (a CI machine shared with other work) took
        # over 30 s for three agents to tail, ship and the engine to spool the excerpt
        until("the excerpt with the fault in the engine's spool",
              lambda: any(ECC.encode() in f.read_bytes() for f in spool.glob("*.log")), 60,
              engine, *agents)  # fmt: skip
        kube.fail_pod(bad_pod, exit_code=1)

        second = kube.placement(attempt=1, timeout_s=60)
        assert bad not in second.values() and len(second) == 4
        excluded = kube.job()["metadata"]["annotations"]["autorecover.io/excluded-nodes"]
        assert excluded.split(",") == [bad]
        jobs = engine.get("/api/v1/jobs")
        assert jobs[0]["job"] == job and bad in jobs[0]["exclusions"], jobs
        # kwok's files (what pods/log serves) stayed empty: the line came through the agent.
        assert all(kube.log_path(p).read_text() == "" for p in first)
        for a in agents:
            a.assert_running()
    finally:
        for a in agents:
            a.close()
