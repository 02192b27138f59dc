"""A fake cluster that outlives the engine: the fakes' effects journaled to a file.

`autorecover serve --scheduler fake` uses it until a real scheduler adapter is wired in (and
the crash tests use it): a real scheduler keeps its cordons and its running diagnostics
across an engine restart, so the fake must too. Each effect — not each call: the fakes are
idempotent by action id — is one JSON line, flushed and fsynced before the call returns, and
replayed on open; a line cut short by a crash is an effect that never happened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from autorecover.adapters.fakes.cluster import (
    FakeDiagnostics,
    FakeScheduler,
    Scripted,
)
from autorecover.adapters.store.sql import node_codec as codec
from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict


class Journal:
    """Append-only JSON lines, durable per line; `None` path keeps nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[dict[str, Any]] = []
        if path is not None and path.exists():
            for raw in path.read_text(encoding="utf-8").splitlines():
                try:
                    self.lines.append(json.loads(raw))
                except json.JSONDecodeError:
                    break  # the torn tail of a crash: that effect never happened

    def append(self, entry: dict[str, Any]) -> None:
        """Keep one effect."""
        self.lines.append(entry)
        if self.path is None:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())


class JournalScheduler(FakeScheduler):
    """`FakeScheduler` whose effects are journaled and replayed."""

    def __init__(self, clock: Clock, journal: Journal, owner: str = "autorecover") -> None:
        super().__init__(clock, owner=owner, running_jobs=0)
        self._journal = journal
        self._arg: str | None = None  # the taint key or GPU of the call under way
        self._replaying = True
        for e in [x for x in journal.lines if x.get("port") == "scheduler"]:
            prov = Provenance(e["id"], e["by"], e["why"], codec.parse_when(e["at"]))
            kind, node, arg = e["kind"], e["node"], e.get("arg")
            if kind in ("taint", "reset_gpu"):
                getattr(self, kind)(node, arg, prov)
            else:
                getattr(self, kind)(node, prov)
        self._replaying = False

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Add a taint."""
        self._arg = key
        super().taint(node, key, provenance)

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Reset a GPU."""
        self._arg = component
        super().reset_gpu(node, component, provenance)

    def _first(self, kind: str, node: str, provenance: Provenance) -> bool:
        first = super()._first(kind, node, provenance)
        if first and not self._replaying:
            self._journal.append(
                {"port": "scheduler", "kind": kind, "node": node, "id": provenance.action_id,
                 "by": provenance.by, "why": provenance.why, "at": codec.when(provenance.at),
                 "arg": self._arg if kind in ("taint", "reset_gpu") else None}
            )  # fmt: skip
        return first


class JournalDiagnostics(FakeDiagnostics):
    """`FakeDiagnostics` whose started runs are journaled and replayed."""

    def __init__(
        self, clock: Clock, journal: Journal, default: Verdict = Verdict.PASS,
        duration_s: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(clock, default, duration_s)
        self._journal = journal
        for e in [x for x in journal.lines if x.get("port") == "diagnostics"]:
            outcome = Scripted(Verdict(e["verdict"]), evidence=("fake: default",))
            at = codec.parse_when(e["at"])
            self.started[e["id"]] = (e["node"], DiagnosticLevel(e["level"]), at, outcome)

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start once per action id."""
        new = provenance.action_id not in self.started
        super().start(node, level, provenance)
        if new and provenance.action_id in self.started:
            _, _, at, outcome = self.started[provenance.action_id]
            self._journal.append(
                {"port": "diagnostics", "id": provenance.action_id, "node": node,
                 "level": level.value, "at": codec.when(at), "verdict": outcome.verdict.value}
            )  # fmt: skip


def effects(path: Path) -> dict[str, int]:
    """How often each action id took effect, as the journal says (each should be once)."""
    counts: dict[str, int] = {}
    for e in Journal(path).lines:
        counts[e["id"]] = counts.get(e["id"], 0) + 1
    return counts
