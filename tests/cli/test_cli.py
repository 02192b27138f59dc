"""The `autorecover` command line, run in-process with click's runner."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from autorecover.cli.main import main
from conftest import SAMPLES


def run(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), env=env)


def test_help_names_the_commands() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "explain" in result.output and "catalog" in result.output


def test_explain_prints_a_readable_verdict() -> None:
    result = run("explain", str(SAMPLES / "xid79-fell-off-bus"))
    assert result.exit_code == 0, result.output
    assert "cause:    hardware" in result.output
    assert "suspects: gpu-a03" in result.output
    assert "system/gpu-a03.log:33  [xid.79]" in result.output


def test_explain_says_what_job_recovery_does_first(tmp_path: Path) -> None:
    """`action` is the verdict's; `recovery` is job recovery's first decision on it: a stop on
    application evidence under 70 waits for one confirmation retry."""
    result = run("explain", str(SAMPLES / "xid79-fell-off-bus"))
    assert "  recovery: hardware (xid.79) on gpu-a03: requeue at once without them" in (
        result.output
    )
    bundle = tmp_path / "value-error"
    (bundle / "logs").mkdir(parents=True)
    job = {"scheduler": "slurm", "job": "7", "nodes": ["n1"], "started": "2026-05-04T08:00:00Z",
           "ended": "2026-05-04T09:00:00Z", "collected": "2026-05-04T09:05:00Z",
           "state": "FAILED"}  # fmt: skip
    (bundle / "job.json").write_text(json.dumps(job))
    (bundle / "logs" / "n1.log").write_text("[rank0]: ValueError: bad shape\n")
    result = run("explain", str(bundle))
    assert result.exit_code == 0, result.output
    assert "  action:   stop\n" in result.output
    assert (
        "  recovery: application (python.exception) on weak evidence: one confirmation retry "
        "(job recovery on a first failure, built-in policy)"
    ) in result.output


def test_explain_json_is_the_format_object() -> None:
    result = run("explain", "--json", str(SAMPLES / "xid48-ecc-one-node"))
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    assert verdict["cause"] == "hardware"
    assert verdict["suspect_nodes"] == ["gpu-a04"]
    assert verdict["action"] == "requeue_excluding"
    first = verdict["evidence"][0]
    assert set(first) == {"node", "source", "line", "signal", "text"}
    assert (first["node"], first["source"], first["line"], first["signal"]) == (
        "gpu-a04",
        "system",
        31,
        "xid.48",
    )


def test_directory_gets_a_summary_table_and_one_bad_bundle_does_not_stop_the_rest(
    tmp_path: Path,
) -> None:
    shutil.copytree(SAMPLES, tmp_path / "all")
    (tmp_path / "all" / "zz-broken").mkdir()
    (tmp_path / "all" / "zz-broken" / "job.json").write_text("{")
    result = run("explain", str(tmp_path / "all"))
    assert result.exit_code == 2
    assert "8 explained, 1 unreadable" in result.output
    assert "zz-broken/job.json: line 1: not valid JSON" in result.output
    assert re.search(r"xid79-fell-off-bus\s+hardware\s+gpu-a03\s+requeue_excluding", result.output)


def test_catalog_override_is_merged_by_key(tmp_path: Path) -> None:
    override = tmp_path / "site.toml"
    override.write_text('schema = 1\nversion = "site.1"\n[xid.79]\nenabled = false\n')
    result = run(
        "explain", "--json", "--catalog", str(override), str(SAMPLES / "xid79-fell-off-bus")
    )
    verdict = json.loads(result.output)
    # With XID 79 switched off the NVRM "fallen off the bus" line still names the node.
    assert verdict["suspect_nodes"] == ["gpu-a03"]
    assert all(e["signal"] != "xid.79" for e in verdict["evidence"])


def test_bad_override_names_file_and_field(tmp_path: Path) -> None:
    override = tmp_path / "bad.toml"
    override.write_text('[xid.79]\nblame = "gremlins"\n')
    result = run("catalog", "check", str(override))
    assert result.exit_code == 1
    assert "bad.toml: [xid.79]: field 'blame'" in result.output


def test_catalog_listings() -> None:
    xids = run("catalog", "xids")
    assert xids.exit_code == 0 and "GPU_HAS_FALLEN_OFF_THE_BUS" in xids.output
    sigs = run("catalog", "signatures")
    assert sigs.exit_code == 0 and "nccl.watchdog_timeout" in sigs.output
