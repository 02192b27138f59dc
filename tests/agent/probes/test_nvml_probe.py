"""The NVML probe on replayed snapshots: the same logic the live driver feeds."""

from __future__ import annotations

from agent.support import FIXTURES, at
from autorecover.adapters.host.nvml_snapshots import NvmlErrorKind, NvmlSnapshot, ReplayBackend
from autorecover.agent.probes.base import ProbeStatus
from autorecover.agent.probes.nvml import NvmlProbe
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, NodeAction

NVML = FIXTURES / "nvml"


def probe(
    name: str, thresholds: Thresholds, catalog: Catalog, expected: int | None = 4
) -> NvmlProbe:
    return NvmlProbe(
        node="gpu-h02",
        backend=ReplayBackend(NVML / name),
        thresholds=thresholds,
        catalog=catalog,
        expected_gpus=expected,
    )


def keys(result: object) -> list[tuple[str, str | None]]:
    return sorted((s.signal, s.component) for s in result.signals)  # type: ignore[attr-defined]


def test_healthy_node_says_nothing(thresholds: Thresholds, catalog: Catalog) -> None:
    p = probe("healthy.json", thresholds, catalog)
    for t in (0, 10, 20, 30):  # idle GPUs (reason 0x1) are never throttled
        result = p.poll(at(t))
        assert result.status is ProbeStatus.OK and result.signals == ()


def test_gpu_count_below_expected(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe("gpu-missing.json", thresholds, catalog).poll(at(0)).signals
    assert sig.signal == "nvml.gpu_missing" and sig.node_action is NodeAction.REBOOT
    assert (sig.detail("found"), sig.detail("expected")) == ("3", "4")
    assert probe("gpu-missing.json", thresholds, catalog, expected=None).poll(at(0)).signals == ()


def test_gpu_lost(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe("gpu-lost.json", thresholds, catalog).poll(at(0)).signals
    assert (sig.signal, sig.component, sig.weight) == ("nvml.gpu_lost", "0000:3a:00", 100)


def test_double_bit_ecc(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe("dbe.json", thresholds, catalog).poll(at(0)).signals
    assert (sig.signal, sig.component, sig.node_action) == (
        "nvml.ecc_dbe_volatile",
        "0000:18:00",
        NodeAction.RESET_GPU,
    )
    assert sig.detail("value") == "2"


def test_row_remapping_pending_and_failed(thresholds: Thresholds, catalog: Catalog) -> None:
    [pending] = probe("row-remap-pending.json", thresholds, catalog).poll(at(0)).signals
    assert (pending.signal, pending.node_action) == ("nvml.row_remap_pending", NodeAction.RESET_GPU)
    [failed] = probe("row-remap-failure.json", thresholds, catalog).poll(at(0)).signals
    assert (failed.signal, failed.node_action) == ("nvml.row_remap_failure", NodeAction.INSPECT)


def test_driver_recovery_action(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe("recovery-action.json", thresholds, catalog).poll(at(0)).signals
    assert (sig.signal, sig.component, sig.node_action, sig.detail("action")) == (
        "nvml.recovery_action",
        "0000:2a:00",
        NodeAction.REBOOT,
        "NODE_REBOOT",
    )


def test_thermal_needs_consecutive_samples(thresholds: Thresholds, catalog: Catalog) -> None:
    p = probe("thermal-sequence.json", thresholds, catalog)
    runs = [keys(p.poll(at(15 * i))) for i in range(4)]
    assert runs[:2] == [[], []]
    assert runs[2] == runs[3] == [("nvml.thermal_slowdown", "0000:5d:00")]


def test_thermal_flapping_never_adds_up(thresholds: Thresholds, catalog: Catalog) -> None:
    p = probe("thermal-flapping.json", thresholds, catalog)
    assert all(p.poll(at(15 * i)).signals == () for i in range(6))


def test_thermal_run_survives_a_restart(thresholds: Thresholds, catalog: Catalog) -> None:
    first = probe("thermal-sequence.json", thresholds, catalog)
    first.poll(at(0))
    first.poll(at(15))
    second = probe("thermal-sequence.json", thresholds, catalog)
    second.restore(first.state())
    second.backend.snapshot()  # the replay's first two looks were already taken
    second.backend.snapshot()
    assert keys(second.poll(at(30))) == [("nvml.thermal_slowdown", "0000:5d:00")]


def test_xid_events_fold_and_read_through_the_catalog(
    thresholds: Thresholds, catalog: Catalog
) -> None:
    got = {s.signal: s for s in probe("xid-events.json", thresholds, catalog).poll(at(0)).signals}
    assert got["xid.79"].count == 3 and got["xid.79"].component == "0000:5d:00"
    assert got["xid.13"].blame is Blame.APPLICATION


def test_nvlink_that_was_up_going_down(thresholds: Thresholds, catalog: Catalog) -> None:
    p = probe("nvlink-down-sequence.json", thresholds, catalog)
    assert p.poll(at(0)).signals == ()
    assert keys(p.poll(at(10))) == [("nvml.nvlink_down", "0000:18:00/nvlink5")]


def test_no_driver(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe("driver-not-loaded.json", thresholds, catalog).poll(at(0)).signals
    assert sig.signal == "nvml.gpu_missing" and "Driver Not Loaded" in sig.text
    # A node that is not meant to have GPUs: NVML is simply not there.
    result = probe("driver-not-loaded.json", thresholds, catalog, expected=None).poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.UNAVAILABLE, ())
    result = probe("driver-not-loaded.json", thresholds, catalog, expected=0).poll(at(0))
    assert result.status is ProbeStatus.UNAVAILABLE


class Broken:
    def snapshot(self) -> NvmlSnapshot:
        return NvmlSnapshot(
            error=NvmlErrorKind.NO_PERMISSION, error_text="NVML: Insufficient Permissions"
        )

    def close(self) -> None:
        pass


def test_an_nvml_that_cannot_be_asked_is_an_error_not_a_fault(
    thresholds: Thresholds, catalog: Catalog
) -> None:
    p = NvmlProbe(
        node="n", backend=Broken(), thresholds=thresholds, catalog=catalog, expected_gpus=8
    )
    result = p.poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.ERROR, ())
