"""Suspicion that accumulates per node across jobs and decays with time.

One incident naming a node may be bad luck; a node that keeps turning up in incidents of
different jobs is handed to hardware recovery as suspect (no new jobs there) even when no
single incident proved it broken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Mark:
    """A node's decayed score as of a time."""

    score: float
    at: datetime


@dataclass(frozen=True, slots=True)
class Suspicion:
    """Decaying per-node scores; immutable, each update returns a new ledger."""

    half_life_s: float
    marks: dict[str, Mark] = field(default_factory=dict)

    def score(self, node: str, now: datetime) -> float:
        """The node's score at `now`, decayed since its last mark."""
        mark = self.marks.get(node)
        if mark is None:
            return 0.0
        age = max((now - mark.at).total_seconds(), 0.0)
        return mark.score * math.pow(0.5, age / self.half_life_s)

    def add(self, node: str, now: datetime, weight: float = 1.0) -> Suspicion:
        """One more incident naming `node`."""
        marks = dict(self.marks)
        marks[node] = Mark(self.score(node, now) + weight, now)
        return replace(self, marks=marks)

    def over(self, threshold: float, now: datetime) -> tuple[str, ...]:
        """Nodes whose decayed score reaches the threshold, sorted."""
        return tuple(sorted(n for n in self.marks if self.score(n, now) >= threshold))
