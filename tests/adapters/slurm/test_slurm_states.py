"""Slurm job and node states -> the domain's words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from autorecover.adapters.slurm.records import SlurmNode
from autorecover.adapters.slurm.states import (
    JobPhase,
    NodeCondition,
    canonical_job_state,
    job_phase,
    node_status,
    parse_sinfo_state,
)


@pytest.mark.parametrize(
    ("state", "reason", "phase"),
    [("PENDING", "BeginTime", JobPhase.PENDING), ("PENDING", "JobHeldAdmin", JobPhase.HELD),
     ("PENDING", "job_requeued_in_held_state", JobPhase.HELD), ("RUNNING", "", JobPhase.RUNNING),
     ("CONFIGURING", "", JobPhase.RUNNING), ("COMPLETING", "", JobPhase.COMPLETING),
     ("REQUEUED", "", JobPhase.REQUEUEING), ("REQUEUE_HOLD", "", JobPhase.HELD),
     ("SPECIAL_EXIT", "", JobPhase.HELD), ("NODE_FAIL", "", JobPhase.FAILED),
     ("PREEMPTED", "", JobPhase.FAILED), ("TIMEOUT", "", JobPhase.FAILED),
     ("OUT_OF_MEMORY", "", JobPhase.FAILED), ("BOOT_FAIL", "", JobPhase.FAILED),
     ("DEADLINE", "", JobPhase.FAILED), ("FAILED", "", JobPhase.FAILED),
     ("COMPLETED", "", JobPhase.SUCCEEDED), ("CANCELLED by 0", "", JobPhase.CANCELLED),
     ("NF", "", JobPhase.FAILED), ("oom", "", JobPhase.FAILED), ("SE", "", JobPhase.HELD),
     ("PR", "", JobPhase.FAILED), ("TO", "", JobPhase.FAILED), ("RQ", "", JobPhase.REQUEUEING),
     ("SUSPENDED", "", JobPhase.SUSPENDED), ("WEIRD", "", JobPhase.UNKNOWN)],
)  # fmt: skip
def test_slurm_job_states(state: str, reason: str, phase: JobPhase) -> None:
    assert job_phase(state, reason) is phase


def test_slurm_canonical_names_are_what_attribution_reads() -> None:
    assert [canonical_job_state(s) for s in ("nf", "PR", "TO", "OOM", "CANCELLED by 1000")] == [
        "NODE_FAIL", "PREEMPTED", "TIMEOUT", "OUT_OF_MEMORY", "CANCELLED"
    ]  # fmt: skip


def _node(state: str, *flags: str, reason: str = "") -> SlurmNode:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return SlurmNode("gpu01", state, frozenset(flags), reason, "root" if reason else "",
                     at if reason else None, "gpu:h100:8", "127.0.0.1", "localhost", 17001,
                     ("gpu",), 8, 0, at, at)  # fmt: skip


@pytest.mark.parametrize(
    ("node", "condition", "responding", "ours"),
    [(_node("idle"), NodeCondition.UP, True, False),
     (_node("mixed", "DRAIN", reason="autorecover: inc-1 x"), NodeCondition.DRAINING, True, True),
     (_node("idle", "DRAIN", reason="fan"), NodeCondition.DRAINED, True, False),
     (_node("down", "NOT_RESPONDING", reason="Not responding"), NodeCondition.DOWN, False, False),
     (_node("idle", "DRAIN", "REBOOT_REQUESTED", reason="autorecover: i r"),
      NodeCondition.REBOOTING, True, True),
     (_node("down", "DRAIN", "REBOOT_ISSUED"), NodeCondition.REBOOTING, True, False),
     (_node("allocated", "FAIL"), NodeCondition.FAILED, True, False),
     (_node("future"), NodeCondition.UNKNOWN, True, False)],
)  # fmt: skip
def test_slurm_node_states(
    node: SlurmNode, condition: NodeCondition, responding: bool, ours: bool
) -> None:
    status = node_status(node)
    assert (status.condition, status.responding, status.ours) == (condition, responding, ours)


@pytest.mark.parametrize(
    ("word", "base", "flags"),
    [("idle", "idle", set()), ("drained", "idle", {"DRAIN"}), ("draining", "mixed", {"DRAIN"}),
     ("down*", "down", {"NOT_RESPONDING"}), ("draining@", "mixed", {"DRAIN", "REBOOT_REQUESTED"}),
     ("reboot^", "idle", {"REBOOT_ISSUED"}), ("idle~", "idle", {"POWERED_DOWN"})],
)  # fmt: skip
def test_slurm_sinfo_words(word: str, base: str, flags: set[str]) -> None:
    assert parse_sinfo_state(word) == (base, frozenset(flags))
