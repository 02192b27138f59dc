"""The failure-domain map both services read: the scheduler's node labels, plus the NVLink
cliques nodes' agents reported (`fabric.clique`) where no label gave one.

Hardware recovery learns cliques from the signals it takes in; job recovery reads the map
when it widens a node's exclusion to its clique. One book per engine process: a controller
rebuilt under a new fence starts from what the book learned, not from the labels alone.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from autorecover.domain.failure_domains import Topology


class TopologyBook:
    """The current topology; `learn` adds reported cliques (thread-safe: two services)."""

    def __init__(self, labels: Topology) -> None:
        self._current = labels
        self._lock = threading.Lock()

    def current(self) -> Topology:
        """The labels' domains and the cliques learned so far."""
        with self._lock:
            return self._current

    def learn(self, reported: Mapping[str, str]) -> bool:
        """Take in {node: clique} reports; True when a node joined an NVLink domain."""
        with self._lock:
            new = {n: c for n, c in reported.items() if c and self._current.nvlink_of(n) is None}
            if not new:
                return False
            self._current = self._current.with_cliques(new)
            return True
