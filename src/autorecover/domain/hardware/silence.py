"""Silent nodes: a node's agent unheard too long while the scheduler says it does not respond.

Pure. The controller remembers when it last heard each node's agent and asks the scheduler
about the quiet ones; `quiet` says which to ask about and `unresponsive` makes the engine's
own signal for a node both agree on. Its node action is a power cycle: a host that answers
neither its agent's channel nor its scheduler cannot run a diagnostic, a GPU reset or a
reboot of its own, and only its BMC can still act on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

SIGNAL = "host.unresponsive"
WEIGHT = 90  # two independent witnesses agree; still short of a hardware error's certainty


def quiet(heard: Mapping[str, datetime], now: datetime, silence: timedelta) -> list[str]:
    """Nodes whose agent was last heard longer ago than `silence`, in name order."""
    return sorted(node for node, at in heard.items() if now - at > silence)


def unresponsive(node: str, now: datetime, last_heard: datetime, shows: str) -> NodeSignal:
    """The engine's signal for a silent node, its text naming both facts."""
    age = (now - last_heard).total_seconds()
    says = f" ({shows})" if shows else ""
    text = (
        f"agent last heard {last_heard:%Y-%m-%dT%H:%M:%SZ} ({age:.0f} s ago); "
        f"the scheduler says the node does not respond{says}"
    )
    return NodeSignal(
        node=node,
        probe=Probe.ENGINE,
        signal=SIGNAL,
        blame=Blame.HARDWARE,
        weight=WEIGHT,
        node_action=NodeAction.POWER_CYCLE,
        at=now,
        text=text[:1000],
        details=(("last_heard", f"{last_heard:%Y-%m-%dT%H:%M:%SZ}"),),
    )
