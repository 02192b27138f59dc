"""The real Kubernetes control plane for the tests in this folder: built when missing, never skipped.

`kube_cluster` (session): `scripts/kube-binaries` builds etcd, kube-apiserver, kube-scheduler,
kube-controller-manager, kwok and the training operator from their Go modules (cached
outside the repository: minutes the first time, instant after), and the control plane is
started in a temporary folder with 6 kwok nodes of 8 GPUs each. If any of that fails, every
test that needs it FAILS with the reason. `kube` (per test): a fresh namespace, every node
back to schedulable with no taints or marks of ours, and a fresh adapter session on it.
Unit tests here need neither.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.testing.kubernetes.cluster import (
    ClusterError,
    KubeTestCluster,
    build_binaries,
)
from autorecover.testing.kubernetes.harness import KubeHarness


@pytest.fixture(scope="session")
def kube_cluster(request: pytest.FixtureRequest) -> Iterator[KubeTestCluster]:
    """A running control plane with 6 GPU nodes for the whole session."""
    started = time.monotonic()
    try:
        binaries = build_binaries()
    except ClusterError as exc:
        pytest.fail(f"the Kubernetes control plane could not be built: {exc}", pytrace=False)
    built = time.monotonic() - started
    base = Path(tempfile.mkdtemp(prefix="ar-kube-"))
    cluster = KubeTestCluster(base, binaries, nodes=6)
    try:
        cluster.start()
    except ClusterError as exc:
        cluster.stop()
        pytest.fail(f"the Kubernetes control plane did not start: {exc}", pytrace=False)
    print(f"\nkubernetes control plane in {base}: binaries in {built:.1f} s, up in "
          f"{time.monotonic() - started - built:.1f} s")  # fmt: skip
    yield cluster
    cluster.stop()
    if request.session.testsfailed:
        print(f"\nkubernetes control plane logs kept in {base}/log")
    else:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def kube(kube_cluster: KubeTestCluster, tmp_path: Path) -> Iterator[KubeHarness]:
    """A fresh namespace and adapter session; nodes reset before and after."""
    harness = KubeHarness(kube_cluster, tmp_path)
    try:
        yield harness
    finally:
        harness.close()
