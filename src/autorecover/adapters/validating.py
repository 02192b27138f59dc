"""Validation under load as two checks: the node's own diagnostic, then a pair test.

`LoadValidation` is a `DiagnosticsPort` over two others: `inner` (the node's own DCGM
diagnostic, whichever port runs it) and `pair` (an NCCL all-reduce with a peer, e.g.
`adapters/slurm/validation.SlurmPairValidation`). QUICK diagnostics go to `inner` alone.
LOAD runs `inner` first; only when it passes does the pair test start (a node whose own
diagnostic failed is not worth a peer's time), and the result is the worse of the two
verdicts with the evidence of both. The pair test's action id is the action's id with
`#pair` appended, so both halves stay idempotent per action across restarts.
"""

from __future__ import annotations

from dataclasses import replace

from autorecover.controllers.hardware.ports import DiagnosticsPort
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict

PAIR_SUFFIX = "#pair"
# Worst first: a failure says most about the node; an error says the check broke.
_ORDER = (Verdict.FAIL, Verdict.ERROR, Verdict.SKIPPED, Verdict.PASS)


def worst(a: Verdict, b: Verdict) -> Verdict:
    """The worse of two verdicts: FAIL, then ERROR, then SKIPPED, then PASS."""
    return a if _ORDER.index(a) <= _ORDER.index(b) else b


class LoadValidation:
    """`DiagnosticsPort`: QUICK -> `inner`; LOAD -> `inner`, then `pair` if it passed."""

    def __init__(self, inner: DiagnosticsPort, pair: DiagnosticsPort) -> None:
        self.inner = inner
        self.pair = pair
        self._load: dict[str, tuple[str, Provenance]] = {}  # action id -> node, provenance

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Start the node's own diagnostic (the pair test follows it, for LOAD)."""
        self.inner.start(node, level, provenance)
        if level is DiagnosticLevel.LOAD:
            self._load[provenance.action_id] = (node, provenance)

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The combined result, or None while either half still runs."""
        first = self.inner.result(action_id)
        if first is None or first.level is not DiagnosticLevel.LOAD:
            return first
        if first.verdict is not Verdict.PASS:
            return first  # no pair test for a node that failed on its own
        pair_id = action_id + PAIR_SUFFIX
        second = self.pair.result(pair_id)
        if second is None:
            started = self._load.get(action_id)
            if started is None:  # a restart lost who asked: the inner result names the node
                why = "validation under load: NCCL pair test"
                started = (first.node, Provenance(action_id, "autorecover", why, first.at))
            node, prov = started
            self.pair.start(node, DiagnosticLevel.LOAD, replace(prov, action_id=pair_id))
            second = self.pair.result(pair_id)
            if second is None:
                return None
        return replace(
            first,
            verdict=worst(first.verdict, second.verdict),
            at=max(first.at, second.at),
            recommended=second.recommended if second.verdict is not Verdict.PASS
            else first.recommended,
            evidence=(*first.evidence, *second.evidence),
        )  # fmt: skip
