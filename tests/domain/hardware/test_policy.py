"""Policy as data: signal classes, repeats, the software-never-removes rule, merge by key."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.catalog import Catalog
from autorecover.domain.failure_domains import DomainKind
from autorecover.domain.hardware.policy import HardwarePolicy, Mark, SignalClass, remember
from autorecover.domain.hardware.policy_loading import (
    PolicyError,
    load_policy,
    merged,
    parse_policy,
)
from autorecover.domain.hardware.remediation import Step
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

POLICY = load_policy()
Q, S, W, IGN = SignalClass.QUARANTINE, SignalClass.SUSPECT, SignalClass.WATCH, SignalClass.IGNORE


def sig(
    key: str = "xid.79",
    action: NodeAction = NodeAction.REBOOT,
    blame: Blame = Blame.HARDWARE,
    probe: Probe = Probe.KERNEL,
    at_s: float = 0,
) -> NodeSignal:
    return NodeSignal("n1", probe, key, blame, 90, action, START + timedelta(seconds=at_s))


def test_builtin_policy_loads_with_a_version() -> None:
    assert POLICY.version == "2026.12.1"
    assert POLICY.ladder.steps == (Step.RESET_GPU, Step.REBOOT, Step.POWER_CYCLE)
    assert POLICY.silence == timedelta(seconds=180)
    assert POLICY.breaker.domain_budget[DomainKind.RACK] == 4
    assert POLICY.correlation.min_nodes == 3


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        (NodeAction.NONE, W),
        (NodeAction.MONITOR, W),
        (NodeAction.RESTART_APP, W),
        (NodeAction.RESET_GPU, Q),
        (NodeAction.DRAIN_AND_RESET, Q),
        (NodeAction.REBOOT, Q),
        (NodeAction.INSPECT, Q),
    ],
)
def test_hardware_signals_are_classed_by_the_catalogs_recommended_action(
    action: NodeAction, expected: SignalClass
) -> None:
    assert POLICY.classify(sig("some.key", action)) is expected


def test_a_signal_rule_beats_the_action_rule() -> None:
    assert POLICY.classify(sig("nvml.thermal_slowdown", NodeAction.MONITOR)) is S
    assert POLICY.classify(sig("xid.32", NodeAction.MONITOR)) is W


def test_job_recovery_attributions_only_mark_suspect_until_they_repeat() -> None:
    first = sig("xid.79", NodeAction.REBOOT, probe=Probe.JOB)
    assert POLICY.classify(first) is S
    marks = (Mark("xid.79", Probe.JOB, S, START),)
    assert POLICY.escalated(first, marks, START) is IGN
    second = sig("nccl.peer", NodeAction.REBOOT, probe=Probe.JOB, at_s=3600)
    both = (*marks, Mark("nccl.peer", Probe.JOB, S, second.at))
    assert POLICY.escalated(second, both, second.at) is Q
    # A day later the first no longer counts.
    late = START + timedelta(days=1, seconds=1)
    assert POLICY.escalated(second, both, late) is IGN


def test_repeats_within_the_window_escalate() -> None:
    s = sig("nvml.thermal_slowdown", NodeAction.MONITOR)
    marks = tuple(Mark(s.signal, s.probe, S, START + timedelta(minutes=m)) for m in (0, 10, 20))
    assert POLICY.escalated(s, marks, START + timedelta(minutes=20)) is Q
    assert POLICY.escalated(s, marks[:2], START + timedelta(minutes=20)) is IGN
    assert POLICY.escalated(s, marks, START + timedelta(minutes=61)) is IGN


def test_marks_fold_repeats_closer_than_the_gap_into_one_occurrence() -> None:
    storm = [Mark("k", Probe.KERNEL, W, START + timedelta(seconds=s)) for s in range(0, 300, 10)]
    kept = remember((), storm, START + timedelta(seconds=300), POLICY)
    assert len(kept) == 1
    assert kept[0].at == START + timedelta(seconds=290)
    apart = [Mark("k", Probe.KERNEL, W, START + timedelta(minutes=m)) for m in (0, 2, 4)]
    assert len(remember((), apart, START + timedelta(minutes=4), POLICY)) == 3


def test_old_marks_are_forgotten_past_the_horizon() -> None:
    old = (Mark("k", Probe.KERNEL, W, START),)
    assert remember(old, (), START + POLICY.horizon() + timedelta(seconds=1), POLICY) == ()


@given(
    blame=st.sampled_from([b for b in Blame if b is not Blame.HARDWARE]),
    action=st.sampled_from(list(NodeAction)),
    probe=st.sampled_from(list(Probe)),
    forced=st.sampled_from(list(SignalClass)),
)
def test_a_software_class_signal_is_ignored_whatever_the_policy_says(
    blame: Blame, action: NodeAction, probe: Probe, forced: SignalClass
) -> None:
    doc = {
        "action": {action.value: {"class": forced.value, "escalate_after": 1}},
        "signal": {"k": {"class": forced.value, "escalate_after": 1}},
        "probe": {probe.value: {"cap": "quarantine", "escalate_after": 1}},
    }
    policy = merged(POLICY, doc, "site.toml")
    s = sig("k", action, blame, probe)
    assert policy.classify(s) is IGN
    assert policy.escalated(s, [Mark("k", probe, Q, START)] * 5, START) is IGN


def test_every_catalog_xid_classifies_by_its_blame_and_action(catalog: Catalog) -> None:
    for number, entry in catalog.xids.items():
        s = sig(f"xid.{number}", entry.node_action, entry.blame)
        got = POLICY.classify(s)
        if entry.blame is not Blame.HARDWARE:
            assert got is IGN, number
        elif entry.node_action in (NodeAction.NONE, NodeAction.MONITOR, NodeAction.RESTART_APP):
            assert got in (W, S), number
        else:
            assert got is Q, number


def test_a_partial_override_changes_only_what_it_names() -> None:
    text = """
    version = "site.1"
    [signal."nvml.thermal_slowdown"]
    escalate_after = 5
    [signal."site.pdu_alarm"]
    class = "suspect"
    [breaker]
    max_nodes = 10
    [ladder.attempts]
    reboot = 3
    """
    policy = load_policy([("site.toml", text)])
    thermal = policy.signals["nvml.thermal_slowdown"]
    assert thermal.escalate_after == 5
    assert thermal.cls is S  # kept from the built-in entry
    assert thermal.escalate_window == timedelta(hours=1)
    assert "nvml.power_brake" in policy.signals  # other entries kept
    assert policy.classify(sig("site.pdu_alarm", NodeAction.NONE)) is S
    assert policy.breaker.max_nodes == 10
    assert policy.breaker.max_fraction == POLICY.breaker.max_fraction
    assert policy.ladder.attempts[Step.REBOOT] == 3
    assert policy.version == "2026.12.1+site.1"


def test_a_rule_can_be_switched_off() -> None:
    policy = load_policy([("site.toml", '[signal."nvml.thermal_slowdown"]\nenabled = false\n')])
    assert policy.classify(sig("nvml.thermal_slowdown", NodeAction.MONITOR)) is IGN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[breakr]\nwindow_s = 1\n", "unknown table 'breakr'"),
        ("[breaker]\nwindow = 1\n", "[breaker]: unknown field 'window'"),
        ("[breaker]\nmax_fraction = 2\n", "field 'max_fraction': must be a fraction"),
        ("[breaker]\nwindow_s = -1\n", "field 'window_s': must be a positive number"),
        ("[action.explode]\nclass = 'watch'\n", "'explode' is not one of"),
        ("[probe.kernel]\ncap = 'maybe'\n", "'maybe' is not one of"),
        ('[signal."k"]\nescalate_after = true\n', "must be an integer"),
        ("[ladder]\nsteps = []\n", "non-empty list of steps"),
        ("[breaker.domain_budget]\nrow = 2\n", "'row' is not one of"),
        ("schema = 2\n", "schema 2 is not supported"),
        ("[domains]\nmin_nodes = 1\n", "must be an integer >= 2"),
    ],
)
def test_errors_name_the_document_table_and_field(text: str, message: str) -> None:
    with pytest.raises(PolicyError) as info:
        load_policy([("site.toml", text)])
    assert str(info.value).startswith("site.toml")
    assert message in str(info.value)


def test_invalid_toml_names_the_document() -> None:
    with pytest.raises(PolicyError, match=r"site\.toml: not valid TOML"):
        parse_policy("[[[", "site.toml")


def test_the_empty_policy_watches_everything_hardware() -> None:
    assert HardwarePolicy().classify(sig()) is W
