"""The BMC inventory: its format, its errors, credentials by reference only."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.adapters.redfish.inventory import (
    InventoryError,
    load_inventory,
    parse_inventory,
)

GOOD = """
[[bmc]]
node = "gpu01"
url = "https://10.0.0.11"
system = "1"
credentials = "file:/etc/autorecover/bmc/gpu01"

[[bmc]]
node = "gpu02"
url = "https://10.0.0.12/"
credentials = "env:GPU02_BMC"
verify = false
"""


def test_redfish_inventory_reads_entries_with_defaults() -> None:
    inv = parse_inventory(GOOD, "bmc.toml")
    one, two = inv.of("gpu01"), inv.of("gpu02")
    assert one is not None and one.url == "https://10.0.0.11" and one.system == "1"
    assert one.credentials == "file:/etc/autorecover/bmc/gpu01" and one.verify
    assert two is not None and two.system == "1" and two.url == "https://10.0.0.12"
    assert not two.verify and inv.of("gpu03") is None


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('node = "gpu01"\ncredentials = "env:X"', "bmc[0] (gpu01): field 'url' is missing"),
        ('node = "gpu 01"\nurl = "https://b"\ncredentials = "env:X"', "not a valid node name"),
        ('node = "gpu01"\nurl = "ftp://b"\ncredentials = "env:X"', "field 'url'"),
        ('node = "gpu01"\nurl = "https://root:calvin@b"\ncredentials = "env:X"', "no user or"),
        ('node = "gpu01"\nurl = "https://b/redfish/v1"\ncredentials = "env:X"', "no path"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "calvin"', "never the password"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "file:rel/path"', "absolute path"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "env:1X"', "variable name"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "env:X"\nverify = "no"', "'verify'"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "env:X"\nport = 1', "unknown field"),
        ('node = "gpu01"\nurl = "https://b"\ncredentials = "env:X"\nsystem = "../x"', "system id"),
        (
            'node = "gpu01"\nurl = "https://b"\ncredentials = "env:X"\nca_file = "/no/such"',
            "field 'ca_file'",
        ),
    ],
)
def test_redfish_inventory_errors_name_file_entry_and_field(entry: str, message: str) -> None:
    with pytest.raises(InventoryError, match=r"bmc\.toml: bmc\[0\]") as caught:
        parse_inventory(f"[[bmc]]\n{entry}\n", "bmc.toml")
    assert message in str(caught.value)


def test_redfish_inventory_refuses_a_node_twice_and_other_tables() -> None:
    twice = GOOD + '\n[[bmc]]\nnode = "gpu01"\nurl = "https://b"\ncredentials = "env:X"\n'
    with pytest.raises(InventoryError, match=r"bmc\[2\] \(gpu01\): field 'node': listed twice"):
        parse_inventory(twice, "bmc.toml")
    with pytest.raises(InventoryError, match="unknown table 'nodes'"):
        parse_inventory("[nodes]\n", "bmc.toml")
    with pytest.raises(InventoryError, match="not valid TOML"):
        parse_inventory("[[bmc]\n", "bmc.toml")
    with pytest.raises(InventoryError, match="cannot read"):
        load_inventory(Path("/no/such/bmc.toml"))


def test_redfish_credentials_are_read_at_use_and_never_echoed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "gpu01"
    secret.write_text("operator:s3cret\n")
    text = f'[[bmc]]\nnode = "gpu01"\nurl = "https://b"\ncredentials = "file:{secret}"\n'
    text += '[[bmc]]\nnode = "gpu02"\nurl = "https://c"\ncredentials = "env:GPU02_BMC"\n'
    inv = parse_inventory(text, "bmc.toml")
    one, two = inv.of("gpu01"), inv.of("gpu02")
    assert one is not None and two is not None
    assert one.login() == ("operator", "s3cret")
    secret.write_text("operator:rotated\n")  # a rotated password needs no restart
    assert one.login() == ("operator", "rotated")
    with pytest.raises(InventoryError, match="not set"):
        two.login()
    monkeypatch.setenv("GPU02_BMC", "no-colon-here")
    with pytest.raises(InventoryError, match="user:password") as caught:
        two.login()
    assert "no-colon-here" not in str(caught.value)
    monkeypatch.setenv("GPU02_BMC", "admin:pw:with:colons")
    assert two.login() == ("admin", "pw:with:colons")
