from __future__ import annotations

from datetime import UTC, datetime, timedelta

from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.hardware.silence import SIGNAL, quiet, unresponsive
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe

NOW = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


def test_quiet_nodes_are_those_unheard_longer_than_the_silence() -> None:
    heard = {"b": NOW - timedelta(seconds=200), "a": NOW - timedelta(seconds=181), "c": NOW}
    assert quiet(heard, NOW, timedelta(seconds=180)) == ["a", "b"]
    assert quiet(heard, NOW, timedelta(seconds=300)) == []


def test_the_engines_signal_names_both_facts_and_asks_for_a_power_cycle() -> None:
    s = unresponsive("gpu01", NOW, NOW - timedelta(seconds=240), "state DOWN+NOT_RESPONDING")
    assert (s.signal, s.probe, s.blame, s.node_action) == (
        SIGNAL, Probe.ENGINE, Blame.HARDWARE, NodeAction.POWER_CYCLE,
    )  # fmt: skip
    assert "agent last heard 2026-01-05T07:56:00Z (240 s ago)" in s.text
    assert "does not respond (state DOWN+NOT_RESPONDING)" in s.text
    assert load_policy().classify(s).value == "quarantine"


def test_the_silence_is_policy_data() -> None:
    doc = "[detection]\nsilence_s = 600\n"
    assert load_policy([("site.toml", doc)]).silence == timedelta(seconds=600)
