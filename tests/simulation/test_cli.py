"""`autorecover simulate`: the JSON object's shape, the table, the plot and the progress bar."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from autorecover.cli.main import main

SMALL = ["simulate", "--gpus", "256", "--days", "5", "--seed", "3", "--rate-scale", "5"]


def test_json_is_one_object_with_each_policys_ettr_as_a_fraction(tmp_path: Path) -> None:
    plot = tmp_path / "ettr.png"
    result = CliRunner().invoke(main, [*SMALL, "--json", "--plot", str(plot), "--progress"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc["policies"]) == [
        "manual", "blind", "cordon_all", "autorecover", "autorecover_proactive", "ideal",
    ]  # fmt: skip
    for p in doc["policies"].values():
        assert 0.0 <= p["ettr"] <= 1.0
        assert set(p["lost_gpu_hours"]) == {"by_stage", "by_cause"}
        assert set(p["recovery_s_mean"]) == {"detection", "stop", "queue", "restart", "total"}
        assert len(p["nodes_out_of_service"]["hourly"]) == 5 * 24
        assert {"quarantines", "false_quarantines", "interruptions_by_cause"} <= set(p)
    assert doc["gpus"] == 256 and doc["study"]["published_interruptions"] == 419
    assert doc["target"]["policy"] == "autorecover" and "costs" in doc["target"]
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "simulating [" in result.stderr and "100%" in result.stderr


def test_the_table_and_no_progress_bar_when_not_asked() -> None:
    result = CliRunner().invoke(main, [*SMALL, "--policy", "ideal", "--policy", "manual"])
    assert result.exit_code == 0, result.output
    assert "ideal" in result.stdout and "manual" in result.stdout and "blind" not in result.stdout
    assert "target 98.5% ETTR" not in result.stdout  # autorecover did not run
    assert result.stderr == ""


def test_job_overrides_reach_the_simulated_jobs_and_bad_ones_are_refused() -> None:
    ok = CliRunner().invoke(
        main, [*SMALL, "--policy", "autorecover", "--job-override", "infrastructure_restarts=50"]
    )
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(main, [*SMALL, "--job-override", "retries"])
    assert bad.exit_code != 0 and "FIELD=VALUE" in bad.output
    unknown = CliRunner().invoke(
        main, [*SMALL, "--policy", "autorecover", "--job-override", "retries=3"]
    )
    assert unknown.exit_code != 0 and "'retries': unknown" in unknown.output


def test_a_bad_world_file_is_a_clear_error(tmp_path: Path) -> None:
    world = tmp_path / "world.toml"
    world.write_text("[job]\ninit_s = -5\n")
    result = CliRunner().invoke(main, [*SMALL, "--world", str(world)])
    assert result.exit_code != 0
    assert f"{world}: [job]: field 'init_s' must be >= 0" in result.output
