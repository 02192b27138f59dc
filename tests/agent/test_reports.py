"""Health reports: only hardware may fail a node; the drain reason is short and Slurm-safe."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from agent.support import T0
from autorecover.agent.probes.base import ProbeResult, ProbeStatus
from autorecover.agent.reports import drain_reason, health_report, report_to_dict
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

SAFE = re.compile(r"[A-Za-z0-9 ._:/,+#()-]*")


def sig(key: str, blame: Blame, action: NodeAction, weight: int = 50, **kw: object) -> NodeSignal:
    return NodeSignal(
        node="gpu-h02",
        probe=Probe.KERNEL,
        signal=key,
        blame=blame,
        weight=weight,
        node_action=action,
        at=T0,
        **kw,  # type: ignore[arg-type]
    )


def result(*signals: NodeSignal) -> ProbeResult:
    return ProbeResult(Probe.KERNEL, ProbeStatus.OK, signals)


def test_software_signals_never_fail_the_node() -> None:
    report = health_report(
        "gpu-h02",
        T0,
        [
            result(
                sig("xid.13", Blame.APPLICATION, NodeAction.RESTART_APP),
                sig("kernel.oom_kill", Blame.APPLICATION, NodeAction.NONE),
                sig("xid.63", Blame.INFO, NodeAction.MONITOR),
            )
        ],
    )
    assert report.healthy and report.action is NodeAction.MONITOR


def test_the_furthest_hardware_action_wins() -> None:
    report = health_report(
        "gpu-h02",
        T0,
        [
            result(sig("xid.48", Blame.HARDWARE, NodeAction.RESET_GPU, 95, component="0000:18:00")),
            result(
                sig(
                    "xid.79",
                    Blame.HARDWARE,
                    NodeAction.REBOOT,
                    100,
                    component="0000:5d:00",
                    count=3,
                )
            ),
        ],
    )
    assert not report.healthy and report.action is NodeAction.REBOOT
    assert drain_reason(report) == "autorecover reboot: xid.79 0000:5d:00 x3, xid.48 0000:18:00"


def test_reason_is_slurm_safe_and_short() -> None:
    evil = sig(
        "dcgm.diag.x",
        Blame.HARDWARE,
        NodeAction.INSPECT,
        component='gpu0"; scontrol update NodeName=ALL State=DOWN; echo `id` $HOME\n',
    )
    many = [replace(evil, signal=f"ib.rule{i}", component=f"mlx5_{i}/1") for i in range(20)]
    reason = drain_reason(health_report("n", T0, [result(evil, *many)]))
    assert SAFE.fullmatch(reason) and len(reason) <= 120
    assert "+" in reason or reason.endswith("...")


@given(st.text(max_size=200), st.text(max_size=200))
def test_reason_is_always_safe(key: str, component: str) -> None:
    s = sig(key, Blame.HARDWARE, NodeAction.REBOOT, component=component)
    reason = drain_reason(health_report("n", T0, [result(s)]))
    assert SAFE.fullmatch(reason) and "\n" not in reason and len(reason) <= 120


def test_json_shape() -> None:
    results = [
        result(sig("xid.79", Blame.HARDWARE, NodeAction.REBOOT, 100)),
        ProbeResult(Probe.DCGM, ProbeStatus.UNAVAILABLE, (), "dcgmi: not installed"),
    ]
    doc = report_to_dict(health_report("gpu-h02", T0, results), results)
    assert doc["format"] == "autorecover.health-report/1"
    assert (doc["node"], doc["action"], doc["healthy"]) == ("gpu-h02", "reboot", False)
    assert doc["reason"].startswith("autorecover reboot:")
    assert doc["signals"][0]["signal"] == "xid.79" and doc["signals"][0]["at"] == T0.isoformat()
    assert doc["probes"][1] == {
        "probe": "dcgm",
        "status": "unavailable",
        "reason": "dcgmi: not installed",
        "signals": 0,
    }
