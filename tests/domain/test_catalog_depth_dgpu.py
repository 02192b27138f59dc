"""Wording drift across GPU runtime and driver releases (s23-dgpu): DCGM's failure reasons as
DCGM 2.1-4.5 worded them (dcgmlib/dcgm_errors.h), NVIDIA's kernel driver messages across
515-580 (open-gpu-kernel-modules), and ROCm's HIP, HSA and RCCL texts across releases. Each line
is rendered from the format string of the release, file and function named beside it; the
catalog must read every release's wording of a message, not only the one an entry was written
from, and must keep leaving alone the look-alikes listed at the end."""

from __future__ import annotations

import io

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import SCANNER, T0


def found(line: str, source: Source = Source.LOGS) -> dict[str, Blame]:
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=source,
                          reference=T0)  # fmt: skip
    return {f.signal: f.blame for f in result.findings}


def details(line: str, signal: str, source: Source = Source.LOGS) -> dict[str, str]:
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=source,
                          reference=T0)  # fmt: skip
    return next(dict(f.details) for f in result.findings if f.signal == signal)


DCGM = [
    # rendered: DCGM v2.3.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_BROKEN_P2P_MEMORY_DEVICE_MSG
    (
        "GPU 2 was unsuccessfully written to in a peer-to-peer test: Memory mismatch",
        "dcgm.broken_p2p",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.3.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_BROKEN_P2P_WRITER_DEVICE_MSG
    (
        "GPU 0 unsuccessfully wrote data in a peer-to-peer test: cudaMemcpy returned an error",
        "dcgm.broken_p2p",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v4.0.0-v4.4.1 dcgmlib/dcgm_errors.h DCGM_FR_FABRIC_MANAGER_TRAINING_ERROR_MSG
    (
        "Fabric Manager (Cluster UUID: 7a9c1c1e-0000-0000-0000-000000000000, Clique ID: 32766): "
        "Fabric training failed.",
        "dcgm.fabric_manager",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v4.5.2 dcgmlib/dcgm_errors.h DCGM_FR_FIELD_THRESHOLD_DBL_MSG
    (
        "Detected 12.5 pcie_replay_counter for GPU 3 which is above the threshold 10.0",
        "dcgm.field_violation",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.3.4-v3.2.6 dcgmlib/dcgm_errors.h DCGM_FR_PENDING_ROW_REMAP_MSG
    (
        "GPU 1 has uncorrectable memory errors and row remappings are pending",
        "dcgm.row_remap_pending",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4 dcgmlib/dcgm_errors.h DCGM_FR_ROW_REMAP_FAILURE_MSG
    ("Error: Row remapping failed.", "dcgm.row_remap_failure", Blame.HARDWARE),
    # rendered: DCGM v3.2.5-v3.2.6 dcgmlib/dcgm_errors.h DCGM_FR_PCIE_REPLAYS_MSG (code 98)
    ("GPU 4 had PCIe replays, see dmesg for more information", "dcgm.pcie_replay", Blame.HARDWARE),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_CLOCK_THROTTLE_THERMAL_MSG
    (
        "Detected clock throttling due to thermal violation in GPU 2.",
        "dcgm.thermal",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4 dcgmlib/dcgm_errors.h DCGM_FR_THERMAL_VIOLATIONS_TS_MSG
    (
        "Thermal violations totaling 12 samples started at 3.0 seconds into the test for GPU 5",
        "dcgm.thermal",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_CLOCK_THROTTLE_POWER_MSG
    (
        "Detected clock throttling due to power violation in GPU 6.",
        "dcgm.power_clocks",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.3.9 dcgmlib/dcgm_errors.h DCGM_FR_THROTTLING_VIOLATION_MSG
    (
        "Clocks are being throttled for GPU 1 because of clock throttling starting 4.0 seconds into "
        "the test. HW Slowdown is engaged",
        "dcgm.power_clocks",
        Blame.HARDWARE,
    ),
    # rendered: DCGM v2.1.4-v3.1.8 dcgmlib/dcgm_errors.h DCGM_FR_PERSISTENCE_MODE_MSG
    (
        "Persistence mode for GPU 0 is currently disabled. The DCGM diagnostic requires peristence "
        "mode to be enabled.",
        "dcgm.diagnostic_setup",
        Blame.INFO,
    ),
    # rendered: DCGM v2.1.4-v4.0.0 dcgmlib/dcgm_errors.h DCGM_FR_TEST_DISABLED_MSG
    ("The Diagnostic test is skipped for this GPU.", "dcgm.diagnostic_setup", Blame.INFO),
    # rendered: DCGM v2.1.4-v2.4.7 dcgmlib/dcgm_errors.h DCGM_FR_BLACKLISTED_DRIVER_MSG
    ("Found blacklisted driver: nouveau", "dcgm.diagnostic_setup", Blame.INFO),
]


@pytest.mark.parametrize(("line", "signal", "blame"), DCGM)
def test_older_and_newer_wordings(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_captures_survive_the_wider_patterns() -> None:
    line = "GPU 2 was unsuccessfully written to in a peer-to-peer test: Memory mismatch"
    assert details(line, "dcgm.broken_p2p")["gpu"] == "2"
    line = "GPU 2 was unsuccessfully written to by GPU 0 over NVLink in a peer-to-peer test: x"
    assert details(line, "dcgm.broken_p2p") == {"gpu": "2", "writer": "0", "link": "NVLink"}
    line = "Fabric Manager (Cluster UUID: 7a9c, Clique ID: 32766): Fabric training failed."
    assert details(line, "dcgm.fabric_manager") == {"cluster": "7a9c", "clique": "32766"}
    line = "Detected 12.5 pcie_replay_counter for GPU 3 which is above the threshold 10.0"
    assert details(line, "dcgm.field_violation")["entity"] == "3"
    line = "GPU 1 has uncorrectable memory errors and row remappings are pending"
    assert details(line, "dcgm.row_remap_pending") == {"pending_gpu": "1"}


LOOK_ALIKES = [
    # nvidia-smi -q's row-remapper section: a yes/no field, not a failure
    ("        Remapping Failure Occurred        : No", "dcgm.row_remap_failure"),
    ("Row remapping failed to allocate a spare row", "dcgm.row_remap_failure"),
    # an integer over threshold stays dcgm.field_threshold's (monitor), not the violation's
    ("Detected 12 xid_errors for GPU 3 which is above the threshold 10", "dcgm.field_violation"),
]


@pytest.mark.parametrize(("line", "signal"), LOOK_ALIKES)
def test_look_alikes_do_not_match(line: str, signal: str) -> None:
    assert signal not in found(line)
