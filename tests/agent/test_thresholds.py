"""agent.toml: loads, agrees with the catalog, merges overrides by key, names its errors."""

from __future__ import annotations

import pytest

from autorecover.agent.thresholds import (
    Kind,
    ThresholdError,
    Thresholds,
    build,
    builtin_document,
    load_thresholds,
    merge,
)
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe


def test_builtin_document_agrees_with_the_catalog(thresholds: Thresholds, catalog: Catalog) -> None:
    thresholds.check_against(catalog)
    assert (
        thresholds.meaning("pcie.aer_fatal", catalog).node_action is NodeAction.REBOOT
    )  # a signature's
    assert thresholds.meaning("nvml.gpu_lost", catalog).weight == 100


def test_reference_thresholds(thresholds: Thresholds) -> None:
    """The numbers hardware-signals.md gives (NVSentinel, IBTA)."""
    rules = {r.key: r for r in thresholds.rules_for(Probe.INFINIBAND)}
    for key in ("link_downed", "local_link_integrity_errors", "excessive_buffer_overrun_errors"):
        assert rules[f"ib.{key}"].kind is Kind.ANY_INCREASE
    assert rules["ib.rnr_nak_retry_err"].source == "hw_counters/rnr_nak_retry_err"
    ber = rules["ib.symbol_error_ber"]
    assert (ber.kind, ber.limit, ber.window_s) == (Kind.WINDOW, 120, 3600)
    per_s = {k: r.limit / r.per_s for k, r in rules.items() if r.kind is Kind.RATE}
    assert per_s == {
        "ib.symbol_error_rate": 10,
        "ib.link_error_recovery_rate": 5 / 60,
        "ib.port_rcv_errors_rate": 10,
        "ib.port_xmit_discards_rate": 100,
        "ib.roce_slow_restart_rate": 10,
    }
    assert all(
        r.escalate_after == 3 and r.escalate_window_s == 3600
        for r in rules.values()
        if r.kind is Kind.RATE
    )
    assert thresholds.nvml.thermal_consecutive == 3 and thresholds.nvml.idle_reason_mask == 0x1
    assert thresholds.nvml.recovery_actions[2][0] == "NODE_REBOOT"
    assert thresholds.dcgm.severities[5][1].blame is Blame.INFO  # CONFIG is not the hardware


def test_a_partial_override_changes_one_field_and_keeps_the_rest(catalog: Catalog) -> None:
    t = load_thresholds([("site.toml", {"counter": {"ib.symbol_error_ber": {"limit": 500}}})])
    rule = {r.key: r for r in t.counters}["ib.symbol_error_ber"]
    assert (rule.limit, rule.window_s, rule.source) == (500, 3600, "counters/symbol_error")
    assert len(t.counters) == len(load_thresholds().counters)
    t.check_against(catalog)


def test_merge_is_by_key() -> None:
    assert merge({"a": {"x": 1, "y": 2}, "b": [1]}, {"a": {"y": 3}, "b": [2]}) == {
        "a": {"x": 1, "y": 3},
        "b": [2],
    }


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"signal": {"nvml.gpu_lost": {"blame": "gremlins"}}}, r"\[signal.nvml.gpu_lost\]"),
        ({"signal": {"nvml.gpu_lost": {"weight": 300}}}, "between 0 and 100"),
        (
            {
                "counter": {
                    "ib.x": {"probe": "infiniband", "source": "counters/x", "kind": "sometimes"}
                }
            },
            "counter.ib.x",
        ),
        ({"counter": {"ib.symbol_error_rate": {"per_s": 0}}}, "per_s"),
        ({"pcie": {"vendors": ["nvidia"]}}, "hexadecimal"),
        ({"schema": 2}, "schema"),
    ],
)
def test_errors_name_the_table(override: dict[str, object], message: str) -> None:
    with pytest.raises(ThresholdError, match=message):
        build(merge(builtin_document(), override), "site.toml")


def test_a_counter_without_a_meaning_is_refused(catalog: Catalog) -> None:
    rule = {"probe": "infiniband", "source": "counters/vl15_dropped", "kind": "any_increase"}
    t = load_thresholds([("site.toml", {"counter": {"ib.vl15_dropped": rule}})])
    with pytest.raises(ThresholdError, match=r"ib\.vl15_dropped"):
        t.check_against(catalog)


def test_a_signal_may_not_shadow_a_catalog_signature(catalog: Catalog) -> None:
    meaning = {"blame": "hardware", "node_action": "reboot", "weight": 90}
    t = load_thresholds([("site.toml", {"signal": {"pcie.aer_fatal": meaning}})])
    with pytest.raises(ThresholdError, match="repeats a catalog signature"):
        t.check_against(catalog)
