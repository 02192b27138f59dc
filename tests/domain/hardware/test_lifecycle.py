"""The node lifecycle table: its invariants, and the diagram in the docs generated from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.hardware.lifecycle import (
    EDGES,
    LADDER,
    OUT_OF_SERVICE,
    PERSON_ONLY,
    RELEASES,
    TRANSITIONS,
    ActionKind,
    LifecycleError,
    NodeState,
    Transition,
    action_id,
    check,
    mermaid,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "hardware-recovery.md"
H, NA = NodeState.HEALTHY, NodeState.NEEDS_ATTENTION


def _reachable(start: NodeState, edges: frozenset[tuple[NodeState, NodeState]]) -> set[NodeState]:
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for a, b in edges:
            if a is here and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def test_every_state_is_reachable_from_healthy() -> None:
    assert _reachable(H, TRANSITIONS) == set(NodeState)


def test_every_state_leads_back_to_healthy() -> None:
    for state in NodeState:
        assert H in _reachable(state, TRANSITIONS) or state is H, state


def test_without_a_person_every_state_still_ends_healthy_or_with_a_person() -> None:
    machine = TRANSITIONS - PERSON_ONLY
    for state in NodeState:
        ends = _reachable(state, machine)
        assert H in ends or NA in ends, state


def test_every_out_of_service_state_can_hand_over_to_a_person_in_one_step() -> None:
    for state in OUT_OF_SERVICE - {NA}:
        assert (state, NA) in TRANSITIONS, state


def test_only_a_person_takes_a_node_out_of_needs_attention() -> None:
    assert {(a, b) for a, b in TRANSITIONS if a is NA} <= PERSON_ONLY


def test_a_node_returns_to_healthy_only_after_validation_or_a_quiet_suspect_period() -> None:
    into_healthy = {a for a, b in TRANSITIONS - PERSON_ONLY if b is H}
    assert into_healthy == {NodeState.SUSPECT, NodeState.VALIDATING}


def test_a_person_may_release_a_node_from_every_state_of_ours() -> None:
    assert RELEASES <= TRANSITIONS
    assert {a for a, b in RELEASES if b is H} == OUT_OF_SERVICE
    assert {(a, b) for a, b in PERSON_ONLY if b is H} <= RELEASES


def test_remediation_is_always_followed_by_validation_the_next_step_or_a_person() -> None:
    machine = TRANSITIONS - PERSON_ONLY
    after_remedy = {b for a, b in machine if a is NodeState.REMEDIATING}
    assert after_remedy == {NodeState.VALIDATING, NodeState.REMEDIATING, NA}


def test_agent_actions_only_a_failed_remedy_loops_to_the_next_step_and_no_duplicate_edges() -> None:
    assert {(a, b) for a, b in TRANSITIONS if a is b} == {
        (NodeState.REMEDIATING, NodeState.REMEDIATING)
    }
    assert len(EDGES) == len(TRANSITIONS)


def test_ladder_states_are_out_of_service() -> None:
    assert LADDER <= OUT_OF_SERVICE
    assert H not in OUT_OF_SERVICE


@given(st.sampled_from(list(NodeState)), st.sampled_from(list(NodeState)))
def test_check_raises_exactly_on_pairs_outside_the_table(a: NodeState, b: NodeState) -> None:
    if (a, b) in TRANSITIONS:
        check(a, b)
        Transition("n1", 1, a, b, START, "t", "why")
    else:
        with pytest.raises(LifecycleError):
            check(a, b)
        with pytest.raises(LifecycleError):
            Transition("n1", 1, a, b, START, "t", "why")


def test_state_values_are_persisted_names() -> None:
    assert [s.value for s in NodeState] == [
        "healthy",
        "suspect",
        "quarantined",
        "diagnosing",
        "remediating",
        "validating",
        "needs_attention",
    ]


def test_action_ids_are_deterministic() -> None:
    assert action_id("n1", 3, ActionKind.CORDON) == "n1/3/cordon"
    assert action_id("n1", 3, ActionKind.DIAGNOSE, 2) == "n1/3/diagnose/2"


def test_mermaid_has_one_line_per_edge() -> None:
    text = mermaid()
    assert text.startswith("stateDiagram-v2\n    [*] --> healthy\n")
    assert text.count(" --> ") == len(EDGES) + 1


def test_the_diagram_in_the_docs_is_generated_from_the_table() -> None:
    doc = DOC.read_text(encoding="utf-8")
    found = re.search(
        r"<!-- lifecycle:begin -->\n```mermaid\n(.*?)```\n<!-- lifecycle:end -->", doc, re.S
    )
    assert found, f"{DOC} lacks the lifecycle block"
    expected = mermaid()
    assert found.group(1) == expected, (
        "docs/hardware-recovery.md's diagram differs from domain/hardware/lifecycle.py; replace the block "
        f"with:\n```mermaid\n{expected}```"
    )
