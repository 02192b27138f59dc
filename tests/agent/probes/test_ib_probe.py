"""The InfiniBand probe on fixture sysfs trees: states, fatal increases, rates, resets."""

from __future__ import annotations

from pathlib import Path

from agent.support import NODES, at, ib_port
from autorecover.agent.probes.base import ProbeStatus
from autorecover.agent.probes.infiniband import InfinibandProbe
from autorecover.agent.thresholds import Thresholds, load_thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import NodeAction

QUIET = {
    "symbol_error": 12,
    "link_downed": 1,
    "link_error_recovery": 0,
    "port_rcv_errors": 0,
    "local_link_integrity_errors": 0,
    "excessive_buffer_overrun_errors": 0,
    "port_xmit_discards": 0,
    "hw_rnr_nak_retry_err": 0,
    "hw_roce_slow_restart": 0,
}


def probe(root: Path, thresholds: Thresholds, catalog: Catalog) -> InfinibandProbe:
    return InfinibandProbe(node="gpu-h02", root=root, thresholds=thresholds, catalog=catalog)


def signals(p: InfinibandProbe, t: float) -> list[tuple[str, str | None]]:
    return sorted((s.signal, s.component) for s in p.poll(at(t)).signals)


def test_healthy_fixture(thresholds: Thresholds, catalog: Catalog) -> None:
    p = probe(NODES / "healthy", thresholds, catalog)
    # Counters that are non-zero at the first look (link training at boot, PAM4 symbol errors)
    # are history, not faults; a disabled management port is not a fault either.
    assert signals(p, 0) == [] and signals(p, 30) == []


def test_port_down_in_the_faulty_fixture(thresholds: Thresholds, catalog: Catalog) -> None:
    [sig] = probe(NODES / "faulty", thresholds, catalog).poll(at(0)).signals
    assert (sig.signal, sig.component, sig.node_action) == (
        "ib.port_down",
        "mlx5_1/1",
        NodeAction.INSPECT,
    )
    assert (sig.detail("state"), sig.detail("phys_state")) == ("DOWN", "Polling")


def test_link_downed_increase_is_fatal(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    ib_port(tmp_path, **QUIET)
    p = probe(tmp_path, thresholds, catalog)
    assert signals(p, 0) == []
    ib_port(tmp_path, **{**QUIET, "link_downed": 2, "hw_rnr_nak_retry_err": 1})
    assert signals(p, 30) == [("ib.link_downed", "mlx5_0/1"), ("ib.rnr_nak_retry_err", "mlx5_0/1")]
    assert signals(p, 60) == []  # it went down once; no new increase, no new signal


def test_symbol_error_velocity_and_ber(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    ib_port(tmp_path, **QUIET)
    p = probe(tmp_path, thresholds, catalog)
    signals(p, 0)
    ib_port(tmp_path, **{**QUIET, "symbol_error": 12 + 100})  # +100 in 30 s: 3.3/s, under both
    assert signals(p, 30) == []
    ib_port(tmp_path, **{**QUIET, "symbol_error": 112 + 30})  # +130 in the hour: over the BER limit
    assert signals(p, 60) == [("ib.symbol_error_ber", "mlx5_0/1")]
    ib_port(tmp_path, **{**QUIET, "symbol_error": 142 + 600})  # 20/s
    got = {s.signal: s for s in p.poll(at(90)).signals}
    assert set(got) == {"ib.symbol_error_ber", "ib.symbol_error_rate"}
    assert got["ib.symbol_error_ber"].node_action is NodeAction.INSPECT
    assert got["ib.symbol_error_rate"].node_action is NodeAction.MONITOR


def test_counter_reset_is_not_an_error(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    ib_port(tmp_path, **{**QUIET, "link_downed": 5, "port_rcv_errors": 9000})
    p = probe(tmp_path, thresholds, catalog)
    signals(p, 0)
    ib_port(tmp_path, **QUIET | {"link_downed": 0, "port_rcv_errors": 0})  # perfquery -r
    assert signals(p, 30) == []
    ib_port(tmp_path, **QUIET | {"link_downed": 1, "port_rcv_errors": 0})  # after the reset
    assert signals(p, 60) == [("ib.link_downed", "mlx5_0/1")]


def test_repeated_non_fatal_rates_escalate(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    ib_port(tmp_path, **QUIET)
    p = probe(tmp_path, thresholds, catalog)
    signals(p, 0)
    actions = []
    for i in range(1, 4):
        ib_port(tmp_path, **{**QUIET, "port_rcv_errors": i * 600})  # 20/s each time
        [sig] = p.poll(at(30 * i)).signals
        actions.append(sig.node_action)
    assert actions == [NodeAction.MONITOR, NodeAction.MONITOR, NodeAction.INSPECT]


def test_baselines_survive_a_restart(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    ib_port(tmp_path, **QUIET)
    first = probe(tmp_path, thresholds, catalog)
    signals(first, 0)
    ib_port(tmp_path, **{**QUIET, "link_downed": 2})
    second = probe(tmp_path, thresholds, catalog)
    second.restore(first.state())
    assert signals(second, 30) == [("ib.link_downed", "mlx5_0/1")]


def test_ignored_devices(tmp_path: Path, catalog: Catalog) -> None:
    ib_port(tmp_path, "mlx5_bond_0", state="1: DOWN", phys="2: Polling", **QUIET)
    t = load_thresholds([("site", {"infiniband": {"ignore_devices": ["mlx5_bond_0"]}})])
    assert signals(probe(tmp_path, t, catalog), 0) == []


def test_no_infiniband_is_unavailable(
    tmp_path: Path, thresholds: Thresholds, catalog: Catalog
) -> None:
    assert probe(tmp_path, thresholds, catalog).poll(at(0)).status is ProbeStatus.UNAVAILABLE
