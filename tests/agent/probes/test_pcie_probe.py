"""The PCIe probe: AER counters and downtrained links, on fixture sysfs trees."""

from __future__ import annotations

from pathlib import Path

from agent.support import NODES, at, pci_device
from autorecover.agent.probes.base import ProbeStatus
from autorecover.agent.probes.pcie import PcieProbe
from autorecover.agent.thresholds import Thresholds, load_thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import NodeAction


def probe(root: Path, thresholds: Thresholds, catalog: Catalog) -> PcieProbe:
    return PcieProbe(node="gpu-h02", root=root, thresholds=thresholds, catalog=catalog)


def keys(p: PcieProbe, t: float) -> list[tuple[str, str | None]]:
    return sorted((s.signal, s.component) for s in p.poll(at(t)).signals)


def test_healthy_fixture(thresholds: Thresholds, catalog: Catalog) -> None:
    # Idle GPUs at 2.5 GT/s of 32 are saving power, not downtrained; 2 corrected errors are noise.
    assert keys(probe(NODES / "healthy", thresholds, catalog), 0) == []


def test_faulty_fixture(thresholds: Thresholds, catalog: Catalog) -> None:
    got = {s.signal: s for s in probe(NODES / "faulty", thresholds, catalog).poll(at(0)).signals}
    assert set(got) == {"pcie.link_width", "pcie.aer_fatal"}
    width = got["pcie.link_width"]
    assert (width.component, width.detail("width"), width.node_action) == (
        "0000:2a:00.0",
        "8/16",
        NodeAction.INSPECT,
    )
    fatal = got["pcie.aer_fatal"]  # the kernel-log signature's meaning, from the catalog
    assert (fatal.component, fatal.node_action) == ("0000:5d:00.0", NodeAction.REBOOT)


def test_aer_counts_from_boot_then_only_increases(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    pci_device(tmp_path, "0000:18:00.0", nonfatal=1)
    p = probe(tmp_path, thresholds, catalog)
    assert keys(p, 0) == [("pcie.aer_nonfatal", "0000:18:00.0")]  # AER counters start at boot
    assert keys(p, 60) == []
    pci_device(tmp_path, "0000:18:00.0", nonfatal=1, fatal=1)
    assert keys(p, 120) == [("pcie.aer_fatal", "0000:18:00.0")]


def test_corrected_errors_only_when_many(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    pci_device(tmp_path, "0000:19:00.0", vendor="0x15b3", klass="0x020700", correctable=10)
    p = probe(tmp_path, thresholds, catalog)
    assert keys(p, 0) == []
    pci_device(tmp_path, "0000:19:00.0", vendor="0x15b3", klass="0x020700", correctable=2000)
    [sig] = p.poll(at(60)).signals
    assert sig.signal == "pcie.aer_corrected" and sig.node_action is NodeAction.MONITOR


def test_nic_speed_downtraining(tmp_path: Path, thresholds: Thresholds, catalog: Catalog) -> None:
    pci_device(
        tmp_path,
        "0000:19:00.0",
        vendor="0x15b3",
        klass="0x020700",
        speed=("16.0 GT/s PCIe", "32.0 GT/s PCIe"),
    )
    [sig] = probe(tmp_path, thresholds, catalog).poll(at(0)).signals
    assert (sig.signal, sig.detail("role")) == ("pcie.link_speed", "nic")


def test_gpu_speed_when_the_operator_asks(tmp_path: Path, catalog: Catalog) -> None:
    pci_device(tmp_path, "0000:18:00.0", speed=("16.0 GT/s PCIe", "32.0 GT/s PCIe"))
    t = load_thresholds([("site", {"pcie": {"check_gpu_speed": True}})])
    assert keys(probe(tmp_path, t, catalog), 0) == [("pcie.link_speed", "0000:18:00.0")]


def test_other_devices_are_not_watched(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    pci_device(tmp_path, "0000:00:1f.0", vendor="0x8086", klass="0x060100", width=(1, 16), fatal=3)
    assert keys(probe(tmp_path, thresholds, catalog), 0) == []


def test_no_pci_tree_is_unavailable(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    assert probe(tmp_path, thresholds, catalog).poll(at(0)).status is ProbeStatus.UNAVAILABLE
