"""Golden lines from the round-3 tracker sweep of issue 14 over what users paste about the
NVIDIA driver and GPU health around training failures: NVRM kernel lines in their older and
GSP-era wordings, nvidia-smi's messages, and CUDA sample tools naming error 802.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a GPU gone from the bus on this host decides; a GSP banner or an
empty nvidia-smi listing stays below the hardware threshold because a driver bug or a container
given no GPU prints them too). Look-alikes must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_application_only_if_meant, assert_matches
from domain.golden import hits as _hits

BLAME: dict[str, Blame] = {
    "nvrm.gpu_off_bus_legacy": Blame.HARDWARE,
    "nvrm.gsp_timeout": Blame.HARDWARE,
    "nvml.no_devices_found": Blame.HARDWARE,
    "cuda.runtime_system_not_ready": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # Bumblebee-Project/Bumblebee issue #554 (dmesg, the older driver's wording)
    (
        "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
        "nvrm.gpu_off_bus_legacy",
        {"pci": "0000:01:00.0"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1230 (the heartbeat, then the banner before XID 119)
    (
        "[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs "
        "812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200",
        "nvrm.gsp_timeout",
        {},
    ),
    (
        "[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP "
        "Timeout **********************************",
        "nvrm.gsp_timeout",
        {},
    ),
    # the shorter banner of _kgspLogXid119 in later drivers, as a journal line
    (
        "Dec 02 03:11:09 gpu-n3 kernel: NVRM: _kgspLogXid119: ***** GSP Timeout *****",
        "nvrm.gsp_timeout",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #789 (nvidia-smi with RmInitAdapter failed in dmesg)
    ("No devices were found", "nvml.no_devices_found", {}),
    # pytorch/pytorch issue #35710 (cuda-samples' bandwidthTest, no fabric manager)
    (
        'CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) '
        '"cudaSetDevice(currentDevice)"',
        "cuda.runtime_system_not_ready",
        {},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # the current wording is gpu.fell_off_bus's, with its own PCI form
    ("nvrm.gpu_off_bus_legacy", "NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus."),
    # a user's sentence about it names no device
    ("nvrm.gpu_off_bus_legacy", "I think the GPU at slot 2 has fallen off the bus again"),
    # a job's own RPC timeout is not the GPU's firmware
    ("nvrm.gsp_timeout", "RuntimeError: RPC Timeout after 60000 ms (rpc_timeout)"),
    ("nvrm.gsp_timeout", "grpc heartbeat timed out after 30s"),
    # other tools' empty listings carry more words
    ("nvml.no_devices_found", "No devices were found matching the filter 'mlx5_*'"),
    ("nvml.no_devices_found", "lspci: No devices were found on bus 3, continuing"),
    # the success code and other codes are not 802
    ("cuda.runtime_system_not_ready", "cudaGetDeviceCount returned 0 -> cudaSuccess"),
    ("cuda.runtime_system_not_ready", "CUDA error at x.cu:10 code=100(cudaErrorNoDevice)"),
]


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line_yields_its_signal(line: str, key: str, captures: dict[str, str]) -> None:
    hits = assert_matches(key, line, captures)
    assert "python.exception" not in hits or CATALOG.signatures[key].blame is Blame.APPLICATION


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_only_application_lines_read_as_the_application(
    line: str, key: str, captures: dict[str, str]
) -> None:
    assert_application_only_if_meant(key, line)


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_line(key: str, line: str) -> None:
    assert key not in _hits(line), f"{key} must not match {line!r}"


@pytest.mark.parametrize(("key", "blame"), sorted(BLAME.items()))
def test_blame(key: str, blame: Blame) -> None:
    assert CATALOG.signatures[key].blame is blame


def test_every_entry_pinned_here_has_a_golden_line() -> None:
    assert set(BLAME) == {key for _, key, _ in GOLDEN}


def test_a_gpu_gone_from_the_bus_decides() -> None:
    sig = CATALOG.signatures["nvrm.gpu_off_bus_legacy"]
    assert sig.weight >= 60
    assert sig.node_action.value == "reboot"


def test_lines_that_may_be_software_stay_below_the_hardware_threshold() -> None:
    """A GSP banner may be a driver bug, an empty listing a container given no GPU, error 802 a
    fabric manager not started: alone they name no node; the XID or RmInitAdapter lines do."""
    for key in ("nvrm.gsp_timeout", "nvml.no_devices_found", "cuda.runtime_system_not_ready"):
        assert 0 < CATALOG.signatures[key].weight < 60, key
