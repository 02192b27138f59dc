"""The fabric probe on recorded nvidia-smi -q and nvidia-imex-ctl output: the node's clique
once, fabric health per GPU, registration and IMEX readiness only after N looks in a row."""

from __future__ import annotations

from pathlib import Path

from agent.support import FIXTURES, at
from autorecover.adapters.host.fabric import (
    FabricUnavailableError,
    GpuFabric,
    Imex,
    RecordedTools,
    SmiFabric,
)
from autorecover.agent.probes.base import ProbeStatus, effective_action
from autorecover.agent.probes.fabric import FabricProbe
from autorecover.agent.thresholds import Thresholds
from autorecover.agent.wiring import AgentConfig, fabric_probe
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe

FABRIC = FIXTURES / "fabric"
CLIQUE = "5c6c21a4-9f0b-4d8b-a1c3-2e7f1b0d9a44.32766"


def probe(case: str, thresholds: Thresholds) -> FabricProbe:
    config = AgentConfig(node="gb200-r07-t03", fabric_replay=FABRIC / case)
    return fabric_probe(config, thresholds, builtin_catalog())


def keys(p: FabricProbe, seconds: float) -> list[str]:
    return sorted(s.signal for s in p.poll(at(seconds)).signals)


def test_healthy_tray_reports_its_clique_once(thresholds: Thresholds) -> None:
    p = probe("healthy", thresholds)
    first = p.poll(at(0))
    assert first.status is ProbeStatus.OK
    (clique,) = first.signals
    assert (clique.signal, dict(clique.details)) == ("fabric.clique", {"clique": CLIQUE})
    assert (clique.blame, effective_action(clique)) == (Blame.INFO, NodeAction.NONE)
    assert p.poll(at(30)).signals == ()  # said once; the engine keeps it
    assert [s.signal for s in p.poll(at(3600)).signals] == ["fabric.clique"]  # and hourly


def test_route_unhealthy_and_a_degraded_imex_domain(thresholds: Thresholds) -> None:
    result = probe("route-unhealthy", thresholds).poll(at(0))
    got = [(s.signal, s.component) for s in result.signals]
    assert got == [
        ("fabric.route_unhealthy", "00000008:01:00.0"),
        ("fabric.route_unhealthy", "00000009:01:00.0"),
        ("fabric.clique", None),
        ("imex.domain_degraded", None),
    ]
    unhealthy = result.signals[0]
    assert (unhealthy.probe, unhealthy.node_action, unhealthy.weight) == (
        Probe.FABRIC, NodeAction.INSPECT, 80,
    )  # fmt: skip
    assert "10.40.1.12 UNAVAILABLE" in result.signals[-1].text


def test_registration_and_imex_wait_counts_only_after_n_looks(thresholds: Thresholds) -> None:
    p = probe("registering", thresholds)
    assert thresholds.fabric_consecutive == 3
    # The domain's own DOWN state is reported at once; the node's waiting is not, yet.
    assert keys(p, 0) == keys(p, 30) == ["imex.domain_down"]
    third = keys(p, 60)
    assert third.count("fabric.not_registered") == 4
    assert "imex.daemon_not_ready" in third
    assert "fabric.clique" not in third  # no clique until the GPUs are registered


def test_the_looks_in_a_row_survive_a_restart(thresholds: Thresholds) -> None:
    p = probe("registering", thresholds)
    p.poll(at(0))
    p.poll(at(30))
    again = probe("registering", thresholds)
    again.restore(p.state())
    assert "fabric.not_registered" in keys(again, 60)


def test_a_node_off_the_fabric_says_nothing(thresholds: Thresholds) -> None:
    result = probe("no-fabric", thresholds).poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.OK, ())


def test_nothing_to_ask_is_unavailable_not_unhealthy(
    thresholds: Thresholds, tmp_path: Path
) -> None:
    result = probe_in(tmp_path, thresholds).poll(at(0))
    assert (result.status, result.signals) == (ProbeStatus.UNAVAILABLE, ())


def probe_in(directory: Path, thresholds: Thresholds) -> FabricProbe:
    tools = RecordedTools(directory)
    return FabricProbe(
        node="gb200-r07-t03", sources=[SmiFabric(tools)], imex=Imex(tools),
        thresholds=thresholds, catalog=builtin_catalog(),
    )  # fmt: skip


class Unavailable:
    def gpus(self) -> tuple[GpuFabric, ...]:
        raise FabricUnavailableError("nvidia-ml-py has no nvmlDeviceGetGpuFabricInfoV")


def test_nvidia_smi_answers_where_nvml_cannot(thresholds: Thresholds) -> None:
    tools = RecordedTools(FABRIC / "route-unhealthy")
    p = FabricProbe(
        node="gb200-r07-t03", sources=[Unavailable(), SmiFabric(tools)], imex=None,
        thresholds=thresholds, catalog=builtin_catalog(),
    )  # fmt: skip
    result = p.poll(at(0))
    assert result.status is ProbeStatus.OK
    assert "no nvmlDeviceGetGpuFabricInfoV" in result.reason
    assert [s.signal for s in result.signals].count("fabric.route_unhealthy") == 2


class Records:
    def __init__(self, *gpus: GpuFabric) -> None:
        self.records = gpus

    def gpus(self) -> tuple[GpuFabric, ...]:
        return self.records


def test_failed_registration_configuration_and_gfm(thresholds: Thresholds) -> None:
    from autorecover.adapters.host.fabric import FabricState

    done = FabricState.COMPLETED
    p = FabricProbe(
        node="gb200-r07-t03",
        sources=[
            Records(
                GpuFabric("0008:01:00.0", done, "nvml_error_999", 7, "u"),
                GpuFabric("0009:01:00.0", done, "success", 8, "u",
                          frozenset({"gfm_disconnected", "access_timeout_recovery"}),
                          "insufficient_nvlinks"),
            )
        ],
        imex=None, thresholds=thresholds, catalog=builtin_catalog(),
    )  # fmt: skip
    got = {(s.signal, s.component, s.node_action) for s in p.poll(at(0)).signals}
    assert got == {
        ("fabric.registration_failed", "0008:01:00.0", NodeAction.REBOOT),
        ("fabric.gfm_disconnected", "0009:01:00.0", NodeAction.INSPECT),
        ("fabric.recovering", "0009:01:00.0", NodeAction.MONITOR),
        ("fabric.config_incorrect", "0009:01:00.0", NodeAction.INSPECT),
    }  # two GPUs in two cliques: the node reports none
