"""`serve --node-actions`: none leaves the stack's ports as they are; agent wraps them so the
on-node actions become orders in the engine store's order book."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from autorecover.adapters.agents.actions import AgentNodeActions
from autorecover.adapters.agents.diagnostics import AgentDiagnostics
from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeNotifier, FakeScheduler
from autorecover.adapters.schedulers import SchedulerStack
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.cli.engine import serve_cmd
from autorecover.server.policies import load_policies
from autorecover.server.wiring import SCHEDULER_REBOOTS, cluster_for


def test_agent_actions_wiring_none_keeps_the_stacks_ports() -> None:
    cluster, _ = cluster_for("fake", SystemClock(), load_policies([]), dry_run=False)
    assert not isinstance(cluster.scheduler, AgentNodeActions)


def test_agent_actions_wiring_agent_hands_on_node_actions_to_the_agents() -> None:
    store = MemoryEngineStore()
    cluster, _ = cluster_for("fake", SystemClock(), load_policies([]), dry_run=False,
                             node_actions="agent", orders=store.orders)  # fmt: skip
    assert isinstance(cluster.scheduler, AgentNodeActions) and cluster.scheduler.reboot_by_agent
    assert isinstance(cluster.diagnostics, AgentDiagnostics)
    assert "slurm" in SCHEDULER_REBOOTS  # Slurm reboots with scontrol reboot (RebootProgram)
    with pytest.raises(ValueError, match="order book"):
        cluster_for("fake", SystemClock(), load_policies([]), dry_run=False, node_actions="agent")
    with pytest.raises(ValueError, match="--node-actions is one of none, agent"):
        cluster_for("fake", SystemClock(), load_policies([]), dry_run=False, node_actions="ssh")


def test_agent_actions_wiring_serve_offers_node_actions() -> None:
    help_text = CliRunner().invoke(serve_cmd, ["--help"]).output
    assert "--node-actions [none|agent]" in help_text
    refused = CliRunner().invoke(serve_cmd, ["--node-actions", "ssh", "--insecure-no-auth"])
    assert refused.exit_code == 2 and "ssh" in refused.output


def test_agent_actions_wiring_keeps_the_scheduler_s_pair_test_after_the_agent_s_dcgm() -> None:
    from autorecover.adapters.fakes.cluster import FakeClock, FakeDiagnostics
    from autorecover.adapters.validating import LoadValidation
    from autorecover.server.wiring import Cluster, with_agent_actions

    clock = FakeClock()
    own, pair = FakeDiagnostics(clock), FakeDiagnostics(clock)
    stack = SchedulerStack(nodes=FakeScheduler(clock), diagnostics=own, notifier=FakeNotifier(),
                           pair=pair)  # fmt: skip
    cluster = Cluster.of(stack)
    assert isinstance(cluster.diagnostics, LoadValidation)
    assert (cluster.diagnostics.inner, cluster.diagnostics.pair) == (own, pair)
    wrapped = with_agent_actions(cluster, MemoryEngineStore().orders, clock)
    assert isinstance(wrapped.diagnostics, LoadValidation)
    assert isinstance(wrapped.diagnostics.inner, AgentDiagnostics)
    assert wrapped.diagnostics.pair is pair
    alone = Cluster.of(SchedulerStack(nodes=FakeScheduler(clock), diagnostics=own,
                                      notifier=FakeNotifier()))  # fmt: skip
    assert alone.diagnostics is own
