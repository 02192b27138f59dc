"""Hearing nodes' agents, and finding the silent ones: the engine's `host.unresponsive`.

The controller tells `Silences` every node whose agent reported; on a tick it asks which
nodes are silent: unheard longer than the policy's `silence` AND shown by the scheduler as not
responding. Each silence is raised once (until the agent is heard again), so a node that went
through the ladder and stays silent is not taken out again and again. Only nodes heard since
this controller started can be silent: a node with no agent at all is never power-cycled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from autorecover.controllers.hardware.ports import SchedulerPort
from autorecover.controllers.ports import PermanentError, TransientError
from autorecover.domain.hardware.silence import quiet, unresponsive
from autorecover.domain.signals import NodeSignal


class Silences:
    """When each node's agent was last heard, and which silences were already raised."""

    def __init__(self, scheduler: SchedulerPort, silence: timedelta) -> None:
        self._scheduler = scheduler
        self._silence = silence
        self._heard: dict[str, datetime] = {}
        self._raised: dict[str, datetime] = {}  # node -> the last-heard time it was raised for

    def heard(self, nodes: Iterable[str], now: datetime) -> None:
        """These nodes' agents reported at `now`."""
        for node in nodes:
            self._heard[node] = now
            self._raised.pop(node, None)

    def silent(self, now: datetime, eligible: Callable[[str], bool]) -> dict[str, NodeSignal]:
        """The engine's signal for each eligible node that is newly silent."""
        nodes = [
            n
            for n in quiet(self._heard, now, self._silence)
            if n not in self._raised and eligible(n)
        ]
        if not nodes:
            return {}
        try:
            views = self._scheduler.observe(nodes)  # a read: asked in dry-run too
        except (TransientError, PermanentError):
            return {}  # nothing learned: the next tick asks again
        found = {}
        for node in nodes:
            view = views.get(node)
            if view is not None and not view.responding:
                found[node] = unresponsive(node, now, self._heard[node], view.shows)
                self._raised[node] = self._heard[node]
        return found
