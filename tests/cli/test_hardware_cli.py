"""`autorecover hardware`: policy, lifecycle and status views."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.cli.main import main
from autorecover.controllers.hardware.ports import Changes
from autorecover.domain.hardware.lifecycle import NodeState, mermaid
from autorecover.domain.hardware.records import NodeRecord


def test_policy_merges_an_override(tmp_path: Path) -> None:
    override = tmp_path / "site.toml"
    override.write_text('schema = 1\n[signal."xid.32"]\nclass = "suspect"\n')
    base = CliRunner().invoke(main, ["hardware", "policy"])
    assert base.exit_code == 0 and "xid.32                       watch" in base.output
    result = CliRunner().invoke(main, ["hardware", "policy", "--policy", str(override)])
    assert result.exit_code == 0, result.output
    assert "xid.32                       suspect" in result.output
    assert "reboot                       quarantine" in result.output  # the rest stays


def test_bad_policy_names_the_file(tmp_path: Path) -> None:
    override = tmp_path / "bad.toml"
    override.write_text('schema = 1\n[signal."xid.32"]\nclass = "obliterate"\n')
    result = CliRunner().invoke(main, ["hardware", "policy", "--policy", str(override)])
    assert result.exit_code == 1 and "bad.toml" in result.output


def test_lifecycle_prints_the_generated_diagram() -> None:
    result = CliRunner().invoke(main, ["hardware", "lifecycle"])
    assert result.exit_code == 0 and result.output == mermaid()


def test_status_reads_the_store(tmp_path: Path) -> None:
    db = tmp_path / "hw.db"
    store = SqliteStore(db)
    at = datetime(2026, 3, 2, 11, 31, tzinfo=UTC)
    store.commit(
        Changes(at=at, records=[NodeRecord("gpu-a03", NodeState.QUARANTINED, at, reason="xid.79")])
    )
    store.close()
    result = CliRunner().invoke(main, ["hardware", "status", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert (
        "gpu-a03" in result.output and "quarantined" in result.output and "xid.79" in result.output
    )
