"""`AgentNodeActions`: a scheduler's node port whose on-node actions are the agent's orders.

Cordon, taint, drain, resume and what the scheduler shows stay the wrapped scheduler's. A GPU
reset is a `reset_gpu` order (the GPU the evidence names, when that is a PCI bus id; else every
GPU of the drained node), and a reboot a `reboot` order where the agent reboots its host (on
Slurm `scontrol reboot` stays the scheduler's: `reboot_by_agent=False`). While the order is
queued or running the port raises `Underway`, so the action stays intended and is asked about
again without spending the rate limit; `done` completes it; `failed`, `refused` and an order
nobody answered by its deadline fail it (`PermanentError` with the agent's words), and the
ladder climbs to its next rung.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from autorecover.adapters.agents.placing import placed
from autorecover.adapters.agents.settings import DEFAULT_SETTINGS, OrderSettings
from autorecover.controllers.hardware.ports import SchedulerNode, SchedulerPort
from autorecover.controllers.orders import OrderBook
from autorecover.controllers.ports import Clock, PermanentError, Provenance, Underway
from autorecover.domain.orders import BUS_ID, NodeOrder, OrderKind, OrderStatus

# What XID lines name a GPU by: `PCI:0000:18:00` (no function); a GPU's function is 0.
_BUS_NO_FUNCTION = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}")


def gpus_of(component: str | None) -> list[str]:
    """The bus ids to reset for the evidence's component: [] (every GPU) unless it names one."""
    if not component:
        return []
    name = component.removeprefix("PCI:")
    if _BUS_NO_FUNCTION.fullmatch(name):
        name += ".0"
    return [name.lower()] if BUS_ID.fullmatch(name) else []


def outcome(order: NodeOrder) -> str:
    """What a finished order leaves on the action's record; raises while it runs or when it
    did not succeed."""
    if order.status in (OrderStatus.QUEUED, OrderStatus.RUNNING):
        raise Underway(f"{order.kind} on {order.node}: {order.status} by its agent")
    if order.status is OrderStatus.DONE:
        return f"agent: {order.detail}" if order.detail else "agent: done"
    said = order.detail or "no detail"
    raise PermanentError(f"{order.kind} {order.status} by the agent on {order.node}: {said}")


class AgentNodeActions:
    """`SchedulerPort`: the scheduler's node actions, with resets and reboots by the agent."""

    def __init__(
        self,
        scheduler: SchedulerPort,
        orders: OrderBook,
        clock: Clock,
        *,
        reboot_by_agent: bool = True,
        settings: OrderSettings = DEFAULT_SETTINGS,
    ) -> None:
        self.scheduler = scheduler
        self._orders, self._clock = orders, clock
        self.reboot_by_agent = reboot_by_agent
        self._settings = settings

    def observe(self, nodes: Sequence[str]) -> Mapping[str, SchedulerNode]:
        """The scheduler's view of these nodes."""
        return self.scheduler.observe(nodes)

    def cordoned(self) -> Mapping[str, SchedulerNode]:
        """Every node somebody has cordoned."""
        return self.scheduler.cordoned()

    def cordon(self, node: str, provenance: Provenance) -> None:
        """The scheduler's cordon."""
        self.scheduler.cordon(node, provenance)

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """The scheduler's taint."""
        self.scheduler.taint(node, key, provenance)

    def drain(self, node: str, provenance: Provenance) -> None:
        """The scheduler's drain."""
        self.scheduler.drain(node, provenance)

    def resume(self, node: str, provenance: Provenance) -> None:
        """The scheduler's resume."""
        self.scheduler.resume(node, provenance)

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Order the node's agent to reset the GPU (every GPU when none is named by bus id)."""
        args = {"gpus": gpus_of(component)}
        self._run(node, OrderKind.RESET_GPU, args, provenance, self._settings.reset_s)

    def reboot(self, node: str, provenance: Provenance) -> None:
        """Order the node's agent to reboot its host, or let the scheduler reboot it."""
        if not self.reboot_by_agent:
            self.scheduler.reboot(node, provenance)
            return
        self._run(node, OrderKind.REBOOT, {}, provenance, self._settings.reboot_s)

    def _run(
        self, node: str, kind: OrderKind, args: Mapping[str, Any], provenance: Provenance,
        deadline_s: float,
    ) -> None:  # fmt: skip
        outcome(placed(self._orders, self._clock, node, kind, args, provenance, deadline_s))
