"""The shared records: the node actions' ranking, which the agent and job recovery both use."""

from __future__ import annotations

from autorecover.domain.records import NODE_ACTION_ORDER, NodeAction, action_rank


def test_every_node_action_has_one_rank_from_none_to_a_person() -> None:
    assert sorted(NODE_ACTION_ORDER) == sorted(NodeAction)
    assert len(set(NODE_ACTION_ORDER)) == len(NodeAction)
    assert action_rank(NodeAction.NONE) == 0
    assert max(NodeAction, key=action_rank) is NodeAction.INSPECT
    assert action_rank(NodeAction.REBOOT) > action_rank(NodeAction.RESET_GPU)
