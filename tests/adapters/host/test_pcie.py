"""PCIe sysfs: AER counter files and link speed/width."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.host.pcie import (
    PcieUnavailableError,
    aer_total,
    parse_aer,
    parse_speed,
    read_devices,
)

NODES = Path(__file__).parents[2] / "fixtures" / "agent" / "nodes"

AER_FATAL = """Undefined 0
DLP 0
SDES 0
TLP 0
FCP 0
CmpltTO 0
CmpltAbrt 0
UnxCmplt 0
RxOF 0
MalfTLP 1
ECRC 0
UnsupReq 0
ACSViol 0
UncorrIntErr 0
BlockedTLP 0
AtomicOpBlocked 0
TLPBlockedErr 0
PoisonTLPBlocked 0
TOTAL_ERR_FATAL 1
"""


def test_parse_aer_multiline_format() -> None:
    counts = parse_aer(AER_FATAL)
    assert counts["MalfTLP"] == 1 and counts["TOTAL_ERR_FATAL"] == 1 and len(counts) == 19
    assert aer_total(counts, "aer_dev_fatal") == 1


def test_aer_total_without_a_total_line_sums_the_rest() -> None:
    assert aer_total({"RxErr": 2, "BadTLP": 3}, "aer_dev_correctable") == 5
    assert aer_total({}, "aer_dev_correctable") is None


@pytest.mark.parametrize(
    ("text", "gts"),
    [("16.0 GT/s PCIe\n", 16.0), ("2.5 GT/s PCIe", 2.5), ("32 GT/s", 32.0), ("Unknown", None)],
)
def test_parse_speed(text: str, gts: float | None) -> None:
    assert parse_speed(text) == gts


def test_reads_gpus_and_nics_only() -> None:
    devices = read_devices(
        NODES / "faulty", frozenset({0x10DE, 0x15B3}), frozenset({0x0302, 0x0207})
    )
    by_bdf = {d.bdf: d for d in devices}
    assert "0000:00:00.0" not in by_bdf  # an Intel host bridge
    gpu = by_bdf["0000:2a:00.0"]
    assert (gpu.current_width, gpu.max_width) == (8, 16)
    assert (gpu.current_speed_gts, gpu.max_speed_gts) == (2.5, 32.0)
    assert by_bdf["0000:5d:00.0"].aer["aer_dev_fatal"] == 1
    assert by_bdf["0000:19:00.0"].aer["aer_dev_correctable"] == 2
    assert by_bdf["0000:19:00.0"].class_code == 0x0207


def test_no_pci_tree_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(PcieUnavailableError):
        read_devices(tmp_path, frozenset(), frozenset())


@given(st.text(max_size=400))
def test_aer_parser_never_crashes(text: str) -> None:
    for name, value in parse_aer(text).items():
        assert name and value >= 0
