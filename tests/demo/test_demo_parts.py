"""The demonstration's pieces on their own: nodes, the injector, the local cluster's wiring."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autorecover.cli.demo import demo
from autorecover.demo.faults import KINDS, inject, pid_file
from autorecover.demo.nodes import IB_PORT, sim_nodes
from autorecover.server.wiring import CLUSTERS


def test_demo_nodes_are_copies_of_the_healthy_fixture(tmp_path: Path) -> None:
    [node] = sim_nodes(tmp_path, ["node-1"])
    assert (node.root / "proc" / "stat").is_file() and node.nvml.is_file()
    assert node.kernel_log.read_text() == ""
    assert (node.root / IB_PORT / "state").read_text().strip() == "4: ACTIVE"


def test_demo_inject_writes_the_line_and_kills_the_node_ranks(tmp_path: Path) -> None:
    [node] = sim_nodes(tmp_path, ["node-1"])
    rank = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        pid = pid_file(tmp_path, "node-1", rank.pid)
        pid.parent.mkdir(parents=True)
        pid.write_text("0")
        said = inject(tmp_path, "ib-link-down", "node-1")
        assert rank.wait(timeout=10) == -9 and "1 rank(s) killed" in said
    finally:
        rank.kill()
    assert "mlx5_0: Port: 1 Link DOWN" in node.kernel_log.read_text()
    assert (node.root / IB_PORT / "state").read_text().strip() == "1: DOWN"


def test_demo_flags_apply_to_their_attempt(tmp_path: Path) -> None:
    sim_nodes(tmp_path, ["node-1"])
    inject(tmp_path, "nccl-timeout", "node-1")
    inject(tmp_path, "app-error", "node-1")
    assert (tmp_path / "faults" / "nccl-node-1").read_text() == "0"
    assert (tmp_path / "faults" / "app-error").read_text() == "all"


def test_demo_inject_refuses_an_unknown_node_or_kind(tmp_path: Path) -> None:
    sim_nodes(tmp_path, ["node-1"])
    with pytest.raises(ValueError, match="no simulated node"):
        inject(tmp_path, "xid79", "node-9")
    with pytest.raises(ValueError, match="unknown fault"):
        inject(tmp_path, "meteor", "node-1")
    result = CliRunner().invoke(
        demo, ["inject", "xid79", "--node", "node-9", "--dir", str(tmp_path)]
    )
    assert result.exit_code == 2 and "no simulated node" in result.output
    assert set(KINDS) >= {"xid79", "xid48", "nvlink", "ib-link-down", "hang", "rank-crash"}


def test_demo_local_cluster_is_wired() -> None:
    assert "local" in CLUSTERS
