"""`autorecover agent check` on fixture nodes: exit status, drain reason, JSON; and the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agent.support import FIXTURES, NODES
from autorecover.cli.agent import agent_group

# The faulty node's fabric reports a route unhealthy; the healthy one is on no NVLink fabric.
FABRIC = {"faulty": "route-unhealthy", "healthy": "no-fabric"}


def check(node: str, *extra: str) -> Result:
    root = NODES / node
    args = [
        "check",
        "--once",
        "--node",
        "gpu-h02",
        "--root",
        str(root),
        "--nvml-replay",
        str(root / "nvml.json"),
        "--dcgm-replay",
        str(root / "dcgm"),
        "--fabric-replay",
        str(FIXTURES / "fabric" / FABRIC[node]),
        "--expected-gpus",
        "4",
        *extra,
    ]
    return CliRunner().invoke(agent_group, args)


def test_healthy_node_exits_0_silently() -> None:
    result = check("healthy")
    assert result.exit_code == 0, result.output
    assert result.output == ""


def test_unhealthy_node_exits_1_with_a_one_line_reason() -> None:
    result = check("faulty")
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith("autorecover inspect: ")
    assert re.fullmatch(r"[A-Za-z0-9 ._:/,+#()-]{1,120}", line)


def test_json_report() -> None:
    result = check("faulty", "--json")
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["healthy"] is False and doc["node"] == "gpu-h02"
    found = {(s["probe"], s["signal"]) for s in doc["signals"]}
    assert {
        ("kernel", "xid.79"),
        ("kernel", "xid.48"),
        ("nvml", "nvml.gpu_missing"),
        ("nvml", "nvml.ecc_dbe_volatile"),
        ("nvml", "nvml.row_remap_pending"),
        ("infiniband", "ib.port_down"),
        ("pcie", "pcie.link_width"),
        ("pcie", "pcie.aer_fatal"),
        ("dcgm", "dcgm.health.memory"),
        ("fabric", "fabric.route_unhealthy"),
    } <= found
    assert {p["probe"]: p["status"] for p in doc["probes"]} == {
        "kernel": "ok",
        "nvml": "ok",
        "infiniband": "ok",
        "pcie": "ok",
        "dcgm": "ok",
        "fabric": "ok",
    }  # no boot probe: a one-shot check cannot tell a crash from a shutdown


def test_healthy_json_lists_what_each_probe_saw() -> None:
    doc = json.loads(check("healthy", "--json", "--skip", "dcgm").output)
    assert doc["healthy"] is True and doc["reason"] == "" and doc["signals"] == []
    probes = [p["probe"] for p in doc["probes"]]
    assert probes == ["kernel", "nvml", "infiniband", "pcie", "fabric"]


def test_missing_interfaces_are_unavailable_not_unhealthy(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        agent_group,
        [
            "check",
            "--json",
            "--node",
            "bare",
            "--root",
            str(tmp_path),
            "--dcgmi",
            "/nonexistent/dcgmi",
        ],
    )
    assert result.exit_code == 0, result.output
    statuses = {p["probe"]: p["status"] for p in json.loads(result.output)["probes"]}
    assert statuses == {
        "kernel": "unavailable",
        "nvml": "unavailable",  # no driver on this machine and no GPUs expected
        "infiniband": "unavailable",
        "pcie": "unavailable",
        "dcgm": "unavailable",
        "fabric": "unavailable",  # no NVML fabric call answers, no nvidia-smi, no IMEX
    }


def test_state_dir_carries_the_kernel_cursor(tmp_path: Path) -> None:
    first = json.loads(check("faulty", "--json", "--state-dir", str(tmp_path)).output)
    second = json.loads(check("faulty", "--json", "--state-dir", str(tmp_path)).output)
    kernel = lambda doc: [s["signal"] for s in doc["signals"] if s["probe"] == "kernel"]  # noqa: E731
    assert "xid.79" in kernel(first) and kernel(second) == []
    # Conditions still present are reported again: NVML's DBE count has not gone away.
    assert any(s["signal"] == "nvml.ecc_dbe_volatile" for s in second["signals"])
    assert (tmp_path / "check-state.json").exists()


def test_kernel_log_file(tmp_path: Path) -> None:
    log = tmp_path / "kern.log"
    log.write_text(
        "Mar  2 09:40:11 gpu-h02 kernel: NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.\n"
    )
    result = CliRunner().invoke(
        agent_group,
        [
            "check",
            "--node",
            "gpu-h02",
            "--root",
            str(tmp_path),
            "--kernel-log",
            str(log),
            "--skip",
            "dcgm",
        ],
    )
    assert result.exit_code == 1 and "xid.79 0000:5d:00" in result.output


@pytest.mark.parametrize("node", ["bad name", "-rf", "a;b", "x" * 300])
def test_node_names_are_validated(node: str) -> None:
    result = CliRunner().invoke(agent_group, ["check", "--node", node])
    assert result.exit_code == 2 and "not a valid node name" in result.output


def test_a_bad_thresholds_file_exits_3(tmp_path: Path) -> None:
    bad = tmp_path / "site.toml"
    bad.write_text('[signal."nvml.gpu_lost"]\nweight = 900\n')
    result = check("healthy", "--thresholds", str(bad))
    assert result.exit_code == 3 and "between 0 and 100" in result.output


def test_a_bad_nvml_recording_exits_3(tmp_path: Path) -> None:
    bad = tmp_path / "nvml.json"
    bad.write_text("{}")
    result = CliRunner().invoke(
        agent_group, ["check", "--node", "n", "--root", str(tmp_path), "--nvml-replay", str(bad)]
    )
    assert result.exit_code == 3 and "nvml-snapshot" in result.output


def test_record_nvml_without_a_gpu_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(agent_group, ["record-nvml", str(tmp_path / "out.json")])
    assert result.exit_code == 1 and "NVML unavailable" in result.output


def test_run_needs_an_http_engine() -> None:
    result = CliRunner().invoke(agent_group, ["run", "--engine", "ftp://engine", "--node", "n"])
    assert result.exit_code == 2 and "http" in result.output


def test_help_names_the_modes() -> None:
    result = CliRunner().invoke(agent_group, ["--help"])
    assert result.exit_code == 0
    assert "check --once" in result.output and "run --engine" in result.output
