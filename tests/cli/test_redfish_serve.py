"""`serve --bmc-inventory FILE`: the inventory read and checked at start, wired to hardware recovery."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.redfish.power import RedfishPower
from autorecover.cli.engine import _with_power
from autorecover.cli.main import main
from autorecover.server.wiring import fake_cluster
from autorecover.testing.redfish import free_port


def test_redfish_serve_refuses_a_bad_inventory_naming_file_entry_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bmc.toml"
    bad.write_text('[[bmc]]\nnode = "gpu01"\nurl = "https://10.0.0.11"\ncredentials = "calvin"\n')
    result = CliRunner().invoke(
        main,
        ["serve", "--store", "memory://", "--scheduler", "fake", "--insecure-no-auth",
         "--listen", f"127.0.0.1:{free_port()}", "--bmc-inventory", str(bad)],
    )  # fmt: skip
    assert result.exit_code != 0
    assert f"{bad}: bmc[0] (gpu01): field 'credentials'" in result.output
    assert "calvin" not in result.output  # a password given in place of a reference is not echoed


def test_redfish_serve_help_names_the_inventory() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert "--bmc-inventory" in result.output


def test_redfish_inventory_gives_the_cluster_a_power_port(tmp_path: Path) -> None:
    good = tmp_path / "bmc.toml"
    good.write_text('[[bmc]]\nnode = "gpu01"\nurl = "https://10.0.0.11"\ncredentials = "env:X"\n')
    cluster = _with_power(fake_cluster(FakeClock()), good)
    assert isinstance(cluster.power, RedfishPower)
    assert cluster.power.inventory.of("gpu01") is not None
