"""The real Slurm cluster for the tests in this folder: installed when missing, never skipped.

`slurm_cluster` (session): Debian's Slurm and munge are installed if a binary is missing
(`apt-get install`, then `apt-get update` and again if that fails), and a cluster of four
nodes with 8 GPUs each is started in a temporary folder and stopped after the session. If
any of that fails, every test that needs it FAILS with the reason: these tests must never be
skipped. `slurm` (per test): the cluster reset to a clean state (no jobs, all nodes idle)
and a fresh `SlurmScheduler` on it. `postgres_url` (per test): a fresh database on a real
PostgreSQL started once per session, for the engine processes. Unit tests here need neither.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.testing import postgres
from autorecover.testing.slurm.cluster import ClusterError, SlurmTestCluster, ensure_installed
from autorecover.testing.slurm.harness import SlurmHarness

FIXTURES = Path(__file__).parents[2] / "fixtures" / "slurm"


@pytest.fixture(scope="session")
def slurm_cluster(request: pytest.FixtureRequest) -> Iterator[SlurmTestCluster]:
    """A running 4-node Slurm cluster for the whole session."""
    started = time.monotonic()
    try:
        installed = ensure_installed()
    except ClusterError as exc:
        pytest.fail(f"Slurm is not installed and could not be installed: {exc}", pytrace=False)
    base = Path(tempfile.mkdtemp(prefix="ar-slurm-"))
    cluster = SlurmTestCluster(base, nodes=4)
    try:
        cluster.start()
    except ClusterError as exc:
        cluster.stop()
        pytest.fail(f"the Slurm test cluster did not start ({installed}): {exc}", pytrace=False)
    print(f"\nslurm test cluster in {base}: {installed}, up in "
          f"{time.monotonic() - started:.1f} s")  # fmt: skip
    yield cluster
    cluster.stop()
    if request.session.testsfailed:
        print(f"\nslurm test cluster logs kept in {base}/log")
    else:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def slurm(slurm_cluster: SlurmTestCluster) -> SlurmHarness:
    """The cluster with no jobs and every node idle, and a fresh adapter on it."""
    slurm_cluster.reset()
    return SlurmHarness(slurm_cluster)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[postgres.Cluster]:
    """A real PostgreSQL for the engine processes (raises when missing: never skipped)."""
    server = postgres.start()
    try:
        yield server
    finally:
        server.stop()


_databases = itertools.count(1)


@pytest.fixture
def postgres_url(postgres_server: postgres.Cluster) -> Iterator[str]:
    """A fresh, empty database for one test's engine."""
    name = f"autorecover_slurm{next(_databases)}"
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)
