"""InfiniBand sysfs: ports, states and counters from a fixture tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.adapters.host.infiniband import InfinibandUnavailableError, parse_state, read_ports

NODES = Path(__file__).parents[2] / "fixtures" / "agent" / "nodes"


def test_reads_ports_states_and_the_named_counters() -> None:
    ports = read_ports(NODES / "faulty", ["counters/link_downed", "hw_counters/rnr_nak_retry_err"])
    by_name = {p.name: p for p in ports}
    assert sorted(by_name) == ["mlx5_0/1", "mlx5_1/1", "mlx5_2/1"]
    assert (by_name["mlx5_0/1"].state, by_name["mlx5_0/1"].phys_state) == ("ACTIVE", "LinkUp")
    assert (by_name["mlx5_1/1"].state, by_name["mlx5_1/1"].phys_state) == ("DOWN", "Polling")
    assert by_name["mlx5_1/1"].counters == {
        "counters/link_downed": 3,
        "hw_counters/rnr_nak_retry_err": 0,
    }
    assert by_name["mlx5_0/1"].link_layer == "InfiniBand"


def test_a_missing_or_odd_counter_is_none_and_odd_names_are_skipped(tmp_path: Path) -> None:
    base = tmp_path / "sys/class/infiniband/mlx5_0/ports/1"
    base.mkdir(parents=True)
    (base / "state").write_text("4: ACTIVE\n")
    (base / "counters").mkdir()
    (base / "counters/symbol_error").write_text("N/A\n")
    (tmp_path / "sys/class/infiniband/bad name").mkdir()
    ports = read_ports(tmp_path, ["counters/symbol_error", "counters/link_downed", "../../etc"])
    assert len(ports) == 1
    assert ports[0].counters == {"counters/link_downed": None, "counters/symbol_error": None}


def test_no_devices_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(InfinibandUnavailableError):
        read_ports(tmp_path, [])


@pytest.mark.parametrize(
    ("text", "state"), [("4: ACTIVE\n", "ACTIVE"), ("5: LinkUp", "LinkUp"), ("weird", "weird")]
)
def test_parse_state(text: str, state: str) -> None:
    assert parse_state(text) == state
