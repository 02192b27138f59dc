"""The DCGM probe: `dcgmi health` every poll, `dcgmi diag` only at a level someone chose.

A diagnostic loads the GPUs for minutes to hours, so it never runs on the daemon's timer by
default: `check --dcgm-diag-level N` (a Prolog, a validation step) asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from autorecover.adapters.host.dcgm import DcgmError, Dcgmi, DcgmUnavailableError, DiagResult
from autorecover.agent.probes.base import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.thresholds import Meaning, Thresholds
from autorecover.domain.records import Blame, NodeAction, action_rank
from autorecover.domain.signals import NodeSignal, Probe

PASSING = frozenset({"pass", "skip", "skipped", "not run", "notrun", "n/a", ""})
UNKNOWN = Meaning(Blame.HARDWARE, NodeAction.MONITOR, 30, "unrecognised DCGM result")


def slug(text: str) -> str:
    """`Memory system` -> `memory`: a stable signal-key part from DCGM's wording."""
    s = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return s.removesuffix("_system") or "unknown"


class DcgmProbe:
    """DCGM's health watches and, on request, its diagnostic."""

    kind = Probe.DCGM

    def __init__(
        self,
        *,
        node: str,
        dcgmi: Dcgmi,
        thresholds: Thresholds,
        diag_level: int | None = None,
    ) -> None:
        self.node = node
        self.dcgmi = dcgmi
        self.thresholds = thresholds
        self.diag_level = diag_level

    def poll(self, now: datetime) -> ProbeResult:
        """Ask DCGM's health watches (and run the diagnostic when a level is set)."""
        signals: list[NodeSignal] = []
        notes: list[str] = []
        try:
            health = self.dcgmi.health()
        except DcgmUnavailableError as exc:
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), str(exc))
        except DcgmError as exc:
            notes.append(str(exc))  # e.g. watches not enabled: the diagnostic may still run
        else:
            for inc in health.incidents:
                meaning = self.thresholds.dcgm.results.get(inc.health, UNKNOWN)
                text = f"DCGM health: {inc.entity_group} {inc.entity_id} {inc.system} " + (
                    f"{inc.health}: {' '.join(inc.messages)}".strip()
                )
                signals.append(
                    make_signal(
                        node=self.node,
                        probe=self.kind,
                        key=f"dcgm.health.{slug(inc.system)}",
                        meaning=meaning,
                        at=now,
                        component=f"{inc.entity_group.lower()}{inc.entity_id}",
                        text=text,
                        details={"health": inc.health, "overall": health.overall},
                    )
                )
        if self.diag_level is not None:
            try:
                run = self.dcgmi.diag(self.diag_level)
            except DcgmUnavailableError as exc:
                return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, tuple(signals), str(exc))
            except DcgmError as exc:
                notes.append(str(exc))
            else:
                if run.runtime_error:
                    notes.append(f"dcgmi diag: {run.runtime_error}")
                signals += [self._diag_signal(r, now) for r in run.results if _failed(r)]
        status = ProbeStatus.ERROR if notes and not signals else ProbeStatus.OK
        return ProbeResult(self.kind, status, tuple(signals), "; ".join(notes))

    def _diag_signal(self, r: DiagResult, now: datetime) -> NodeSignal:
        meaning = self._diag_meaning(r)
        said = "; ".join(w.message for w in r.warnings)
        ids = ",".join(str(w.error_id) for w in r.warnings if w.error_id is not None)
        details: dict[str, object] = {"status": r.status, "category": r.category}
        if ids:
            details["error_ids"] = ids
        return make_signal(
            node=self.node,
            probe=self.kind,
            key=f"dcgm.diag.{slug(r.test)}",
            meaning=meaning,
            at=now,
            component=r.entity,
            text=f"DCGM diag level {self.diag_level} {r.test} {r.status} on {r.entity}: {said}",
            details=details,
        )

    def _diag_meaning(self, r: DiagResult) -> Meaning:
        """The furthest-reaching severity DCGM gave; the result word when it gave none."""
        severities = self.thresholds.dcgm.severities
        known = [
            severities[w.severity][1]
            for w in r.warnings
            if w.severity is not None and w.severity in severities
        ]
        if known:
            return max(known, key=lambda m: (action_rank(m.node_action), m.weight))
        return self.thresholds.dcgm.results.get(r.status.capitalize(), UNKNOWN)

    def state(self) -> dict[str, Any]:
        """Nothing to keep: DCGM keeps its own history."""
        return {}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Nothing to restore."""

    def close(self) -> None:
        """Nothing is held open between polls."""


def _failed(r: DiagResult) -> bool:
    return r.status.strip().lower() not in PASSING
