"""The DCGM probe: absent DCGM is unavailable, not unhealthy; severities decide."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent.support import FIXTURES, at
from autorecover.adapters.host.dcgm import (
    CommandResult,
    Dcgmi,
    DcgmUnavailableError,
    RecordedRunner,
)
from autorecover.agent.probes.base import ProbeStatus, effective_action
from autorecover.agent.probes.dcgm import DcgmProbe, slug
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.records import Blame, NodeAction

DCGM = FIXTURES / "dcgm"


def recorded(tmp_path: Path, health: str | None, diag: str | None = None) -> Dcgmi:
    if health:
        (tmp_path / "health.json").write_text((DCGM / health).read_text())
    if diag:
        (tmp_path / "diag-r1.json").write_text((DCGM / diag).read_text())
    return Dcgmi(RecordedRunner(tmp_path))


def probe(dcgmi: Dcgmi, thresholds: Thresholds, level: int | None = None) -> DcgmProbe:
    return DcgmProbe(node="gpu-h02", dcgmi=dcgmi, thresholds=thresholds, diag_level=level)


def test_no_dcgm_is_unavailable(thresholds: Thresholds) -> None:
    def missing(args: Sequence[str], timeout_s: float) -> CommandResult:
        raise DcgmUnavailableError("dcgmi: not installed")

    result = probe(Dcgmi(missing), thresholds, level=1).poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.UNAVAILABLE, ())


def test_healthy(tmp_path: Path, thresholds: Thresholds) -> None:
    result = probe(
        recorded(tmp_path, "health-healthy.json", "diag-4x-pass.json"), thresholds, 1
    ).poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.OK, ())


def test_health_failure(tmp_path: Path, thresholds: Thresholds) -> None:
    got = {
        s.signal: s
        for s in probe(recorded(tmp_path, "health-failure.json"), thresholds).poll(at(0)).signals
    }
    assert set(got) == {"dcgm.health.memory", "dcgm.health.pcie"}
    assert got["dcgm.health.memory"].node_action is NodeAction.RESET_GPU
    assert got["dcgm.health.memory"].component == "gpu0"
    assert got["dcgm.health.pcie"].node_action is NodeAction.MONITOR


def test_diag_isolate_severity(tmp_path: Path, thresholds: Thresholds) -> None:
    p = probe(
        recorded(tmp_path, "health-healthy.json", "diag-4x-memory-isolate.json"), thresholds, 1
    )
    [sig] = p.poll(at(0)).signals
    assert (sig.signal, sig.component, sig.node_action) == (
        "dcgm.diag.memory",
        "gpu0",
        NodeAction.RESET_GPU,
    )
    assert sig.detail("error_ids") == "52"


def test_a_configuration_finding_is_not_a_hardware_fault(
    tmp_path: Path, thresholds: Thresholds
) -> None:
    p = probe(recorded(tmp_path, "health-healthy.json", "diag-4x-config-only.json"), thresholds, 1)
    [sig] = p.poll(at(0)).signals  # persistence mode off: reported, but the node stays usable
    assert sig.blame is Blame.INFO and effective_action(sig) is NodeAction.MONITOR


def test_diag_does_not_run_unless_asked(tmp_path: Path, thresholds: Thresholds) -> None:
    calls: list[list[str]] = []

    def runner(args: Sequence[str], timeout_s: float) -> CommandResult:
        calls.append(list(args))
        return RecordedRunner(DCGM.parent / "nodes/healthy/dcgm")(args, timeout_s)

    probe(Dcgmi(runner), thresholds).poll(at(0))
    assert calls == [["dcgmi", "health", "-c", "-j"]]


def test_watches_not_enabled_is_an_error_status(thresholds: Thresholds) -> None:
    def runner(args: Sequence[str], timeout_s: float) -> CommandResult:
        return CommandResult(255, "Error: Health watches not enabled. Please enable watches.\n")

    result = probe(Dcgmi(runner), thresholds).poll(at(0))
    assert result.status is ProbeStatus.ERROR and "watches not enabled" in result.reason


def test_slug() -> None:
    assert slug("Memory system") == "memory" and slug("Targeted Stress") == "targeted_stress"
    assert slug("NVLINK system") == "nvlink" and slug("???") == "unknown"
