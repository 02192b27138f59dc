"""`serve --scheduler`: which cluster the engine acts on, and when job recovery is hosted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.local.scheduler import LocalScheduler
from autorecover.adapters.schedulers import SCHEDULERS
from autorecover.server.policies import load_policies
from autorecover.server.wiring import CLUSTERS, cluster_for


def test_fake_cluster_hosts_no_job_recovery() -> None:
    cluster, jobs = cluster_for(
        "fake", SystemClock(), load_policies([]), store_path=None, dry_run=True
    )
    assert jobs is None and cluster is not None


def test_local_cluster_hosts_job_recovery_on_the_sqlite_file(tmp_path: Path) -> None:
    cluster, jobs = cluster_for(
        "local",
        SystemClock(),
        load_policies([]),
        store_path=str(tmp_path / "state.db"),
        dry_run=True,
        local_root=tmp_path / "jobs",
        local_nodes=["node-1", "node-2"],
    )
    assert jobs is not None
    assert isinstance(cluster.scheduler, LocalScheduler)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"store_path": "x.db", "local_root": None, "local_nodes": ()},
            "--local-root and --local-nodes",
        ),
        ({"store_path": None, "local_root": Path("/tmp/j"), "local_nodes": ("n1",)}, "SQLite"),
    ],
)
def test_local_cluster_needs_its_options(kw: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message):
        cluster_for("local", SystemClock(), load_policies([]), dry_run=True, **kw)


def test_unknown_scheduler_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown scheduler 'pbs' .*fake, local, kubernetes"):
        cluster_for("pbs", SystemClock(), load_policies([]), store_path=None, dry_run=True)


def test_serve_offers_the_registry_s_schedulers_without_importing_their_clients() -> None:
    assert tuple(SCHEDULERS) == CLUSTERS
    code = (
        "import sys, autorecover.server.wiring\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'lightkube', 'httpx2'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
