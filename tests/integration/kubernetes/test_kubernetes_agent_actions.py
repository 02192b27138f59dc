"""GPU resets, reboots and DCGM diagnostics run by the node's agent on the real control plane
(agent_actions): the real engine process (`serve --scheduler kubernetes --node-actions agent`)
cordons and taints the node on the API server and places orders; a real `autorecover agent
run` process per node runs them with stand-ins for dcgmi, nvidia-smi and systemctl (recorded
outputs; no GPU here) and reports; the node comes back untainted and schedulable. kwok nodes
run no containers, so the agents are processes named after the nodes, not the chart's
DaemonSet."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.testing.kubernetes.harness import KubeHarness
from integration.kubernetes.node_agents import ACTIONS, DCGM, Engine, NodeAgent, default_answers
from integration.kubernetes.node_agents import until as _until

SCENARIO_S = 90.0  # each scenario, from the fault to the node back
COMPUTE_APPS = ["--query-compute-apps=pid,process_name,gpu_bus_id", "--format=csv,noheader"]


@pytest.fixture
def engine(kube: KubeHarness, tmp_path: Path) -> Iterator[Engine]:
    e = Engine(kube, tmp_path)
    try:
        _until("the engine to lead", lambda: e.get("/readyz")["role"] == "leader", 60.0, e)
        yield e
    finally:
        e.stop()


@pytest.fixture
def agent(engine: Engine, kube: KubeHarness, tmp_path: Path) -> Iterator[NodeAgent]:
    a = NodeAgent(engine, kube.cluster.node_names[1], tmp_path)
    try:
        yield a
    finally:
        a.close()


def quarantined(kube: KubeHarness, node: str) -> bool:
    spec = kube.node(node)["spec"]
    taints = {t["key"] for t in spec.get("taints") or []}
    return bool(spec.get("unschedulable")) and QUARANTINE_TAINT in taints


def back(kube: KubeHarness, engine: Engine, node: str) -> bool:
    spec = kube.node(node)["spec"]
    taints = {t["key"] for t in spec.get("taints") or []}
    return (engine.state(node) == "healthy" and not spec.get("unschedulable")
            and QUARANTINE_TAINT not in taints)  # fmt: skip


def summary(orders: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(o["kind"], o["status"], o.get("verdict")) for o in orders]


def settled(engine: Engine, node: str) -> list[dict[str, Any]] | None:
    """The node's orders once none is queued or running: the evidence bundle is collected
    beside the remediation and may report after the node is back in service."""
    orders = engine.orders(node)
    return None if any(o["status"] in ("queued", "running") for o in orders) else orders


def test_kubernetes_agent_actions_xid48_gpu_reset_by_the_agent_then_validated(
    kube: KubeHarness, engine: Engine, agent: NodeAgent, tmp_path: Path
) -> None:
    started = time.monotonic()
    default_answers(agent.kit)
    agent.start()
    peer = NodeAgent(engine, kube.cluster.node_names[2], tmp_path)  # a healthy node's agent
    default_answers(peer.kit)
    peer.start()
    try:
        agent.xid(48)
        _scenario_a(kube, engine, agent, started)
        assert peer.kit.calls() == [] and engine.orders(peer.node) == []  # its own node only
        peer.assert_running()
    finally:
        peer.close()


def _scenario_a(kube: KubeHarness, engine: Engine, agent: NodeAgent, started: float) -> None:
    """The XID 48 node quarantined, diagnosed, reset, validated and returned by its agent."""
    node = agent.node

    def wait(what: str, check: Any) -> Any:
        left = SCENARIO_S - (time.monotonic() - started)
        return _until(what, check, left, engine, agent)

    wait(f"{node} cordoned and tainted on the API server", lambda: quarantined(kube, node))
    wait(f"{node} reset, validated and returned", lambda: back(kube, engine, node))

    orders = wait("every order reported final", lambda: settled(engine, node))
    assert summary(orders) == [
        ("diagnose", "done", "fail"), ("collect_bundle", "done", None),
        ("reset_gpu", "done", None), ("diagnose", "done", "pass"),
    ], orders  # fmt: skip
    quick, bundle, reset, load = orders
    assert quick["args"] == {"level": 1} and load["args"] == {"level": 3}
    assert reset["args"] == {"gpus": ["0000:18:00.0"]}
    assert reset["detail"] == "reset 1 GPU(s): GPU 00000000:18:00.0 was successfully reset."
    assert set(bundle["attachment_sizes"]) == {"kernel.log", "nvidia-smi-q.txt", "dcgm-health.json"}
    for o in orders:  # provenance: who, why, which incident, on what evidence
        assert o["by"] and o["why"] and o["incident"], o
        assert o["node"] == node and o["updated_at"] is not None
    assert any("Xid (PCI:0000:18:00): 48" in line for line in quick["evidence"]), quick
    # Each command ran exactly once, with the allow-listed argument list.
    assert sorted(agent.argv("dcgmi")) == [["diag", "-r", "1", "-j"], ["diag", "-r", "3", "-j"],
                                           ["health", "-c", "-j"]]  # fmt: skip
    assert sorted(agent.argv("nvidia-smi")) == sorted(
        [["-q"], COMPUTE_APPS, ["--gpu-reset", "-i", "0000:18:00.0"]]
    )
    (journal,) = agent.argv("journalctl")
    assert journal[:2] == ["-k", "--since"] and journal[3] == "--until"
    assert journal[5:] == ["-o", "short-iso", "--no-pager"]
    assert agent.argv("systemctl") == []
    assert time.monotonic() - started < SCENARIO_S


def test_kubernetes_agent_actions_reset_refused_while_busy_then_reboot_by_the_agent(
    kube: KubeHarness, engine: Engine, agent: NodeAgent, tmp_path: Path
) -> None:
    node, started = agent.node, time.monotonic()
    rebooted = tmp_path / "rebooted"
    agent.kit.answer(
        "nvidia-smi", r"--query-compute-apps", stdout=ACTIONS / "compute-apps-busy.csv"
    )
    agent.kit.answer("systemctl", r"^reboot$", touch=rebooted)
    default_answers(agent.kit)
    agent.start()
    agent.xid(48)

    def wait(what: str, check: Any) -> Any:
        left = SCENARIO_S - (time.monotonic() - started)
        return _until(what, check, left, engine, agent)

    wait(f"{node} cordoned and tainted", lambda: quarantined(kube, node))
    wait("systemctl reboot", rebooted.exists)
    reboot = wait("the reboot order running", lambda: [
        o for o in engine.orders(node) if o["kind"] == "reboot" and o["status"] == "running"])  # fmt: skip
    time.sleep(0.5)
    assert engine.orders(node)[-1]["status"] == "running"  # not done before the host is back
    assert quarantined(kube, node)
    # The host goes down: systemd stops the agent; it comes back under a new boot id.
    agent.stop(signal.SIGTERM)
    agent.boot.write_text("boot-b\n")
    agent.start()
    wait(f"{node} rebooted, validated and returned", lambda: back(kube, engine, node))

    orders = wait("every order reported final", lambda: settled(engine, node))
    assert summary(orders) == [
        ("diagnose", "done", "fail"), ("collect_bundle", "done", None),
        ("reset_gpu", "refused", None), ("reboot", "done", None), ("diagnose", "done", "pass"),
    ], orders  # fmt: skip
    assert "GPU 0000:18:00.0 is held by pid 31337 (python3)" in orders[2]["detail"]
    assert orders[3]["id"] == reboot[0]["id"]
    assert orders[3]["detail"] == "rebooted (boot id boot-a -> boot-b)"
    assert orders[2]["incident"] == orders[3]["incident"] == orders[4]["incident"]
    assert agent.argv("systemctl") == [["reboot"]]
    assert not [a for a in agent.argv("nvidia-smi") if "--gpu-reset" in a]  # never while busy
    assert sorted(agent.argv("dcgmi")) == [["diag", "-r", "1", "-j"], ["diag", "-r", "3", "-j"],
                                           ["health", "-c", "-j"]]  # fmt: skip
    assert time.monotonic() - started < SCENARIO_S


def test_kubernetes_agent_actions_agent_killed_mid_diagnostic_runs_it_once(
    kube: KubeHarness, engine: Engine, agent: NodeAgent
) -> None:
    node, started = agent.node, time.monotonic()
    agent.kit.answer("dcgmi", r"^diag -r 1 -j$", stdout=DCGM / "diag-4x-memory-isolate.json",
                     sleep_s=4.0)  # fmt: skip
    default_answers(agent.kit)
    agent.start()
    agent.xid(48)

    def wait(what: str, check: Any) -> Any:
        left = SCENARIO_S - (time.monotonic() - started)
        return _until(what, check, left, engine, agent)

    wait("dcgmi diag -r 1 to start", lambda: ["diag", "-r", "1", "-j"] in agent.argv("dcgmi"))
    (quick,) = wait("the diagnose order reported running", lambda: [
        o for o in engine.orders(node) if o["kind"] == "diagnose" and o["status"] == "running"])  # fmt: skip
    # The bundle's three quick reads finish well inside dcgmi's 4 s; under load, killing the
    # agent between two of them would end the bundle as interrupted (never re-run).
    wait("the bundle collected", lambda: [
        o for o in engine.orders(node) if o["kind"] == "collect_bundle" and o["status"] == "done"])  # fmt: skip
    agent.stop(signal.SIGKILL)  # while dcgmi runs (4 s): its detached runner outlives the agent
    assert ["diag", "-r", "1", "-j"] in agent.argv("dcgmi") and not [
        o for o in engine.orders(node) if o["status"] == "done" and o["kind"] == "diagnose"]  # fmt: skip
    agent.start()
    wait(f"{node} diagnosed, reset, validated and returned", lambda: back(kube, engine, node))

    orders = wait("every order reported final", lambda: settled(engine, node))
    assert summary(orders) == [
        ("diagnose", "done", "fail"), ("collect_bundle", "done", None),
        ("reset_gpu", "done", None), ("diagnose", "done", "pass"),
    ], orders  # fmt: skip
    assert orders[0]["id"] == quick["id"]
    assert agent.argv("dcgmi").count(["diag", "-r", "1", "-j"]) == 1  # ran once, not again
    assert agent.argv("nvidia-smi").count(["--gpu-reset", "-i", "0000:18:00.0"]) == 1
    assert time.monotonic() - started < SCENARIO_S
