"""`AgentDiagnostics`: DCGM diagnostics run by the node's agent, as orders.

`start` places a `diagnose` order at the DCGM level the settings give the diagnostic level
(quick: `dcgmi diag -r 1`; under load, before a node returns: `-r 3`) and, for a quick
diagnostic (the first look at a quarantined node), a `collect_bundle` order `<id>#bundle` for
the kernel log from a while before the incident until now, NVML and DCGM health: attached to
the order, shown with the node's orders. `result` reads the diagnose order: none while it
runs, its verdict and evidence once reported, and an error result (a rerun, then a person)
when the agent failed, refused, or never answered by the deadline.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from autorecover.adapters.agents.placing import placed, settled
from autorecover.adapters.agents.settings import DEFAULT_SETTINGS, OrderSettings
from autorecover.controllers.orders import OrderBook
from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.orders import (
    BUNDLE_SUFFIX,
    LIVE,
    NodeOrder,
    OrderKind,
    OrderStatus,
    OrderVerdict,
)

_VERDICTS = {
    OrderVerdict.PASS: Verdict.PASS,
    OrderVerdict.FAIL: Verdict.FAIL,
    OrderVerdict.ERROR: Verdict.ERROR,
}


def incident_start(provenance: Provenance) -> datetime:
    """When the evidence begins: the earliest time its lines start with, else the decision's."""
    times = [provenance.at]
    for line in provenance.evidence:
        stamp = line.split(" ", 1)[0]
        try:
            at = datetime.fromisoformat(stamp)
        except ValueError:
            continue
        if at.tzinfo is not None:
            times.append(at)
    return min(times)


class AgentDiagnostics:
    """`DiagnosticsPort` through the node's agent."""

    def __init__(
        self, orders: OrderBook, clock: Clock, settings: OrderSettings = DEFAULT_SETTINGS
    ) -> None:
        self._orders, self._clock, self._settings = orders, clock, settings

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Place the diagnose order (and a quick one's bundle), once per action id."""
        s = self._settings
        dcgm = s.levels.get(level, 1)
        args = {"level": dcgm}
        placed(self._orders, self._clock, node, OrderKind.DIAGNOSE, args, provenance,
               s.diagnose_deadline(dcgm))  # fmt: skip
        if level is DiagnosticLevel.QUICK:
            since = incident_start(provenance) - timedelta(seconds=s.bundle_before_s)
            window = {"since": since.isoformat(), "until": self._clock.now().isoformat()}
            placed(
                self._orders, self._clock, node, OrderKind.COLLECT_BUNDLE, window, provenance,
                s.bundle_s, order_id=provenance.action_id + BUNDLE_SUFFIX,
            )  # fmt: skip

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The diagnostic's result once its agent reported an end (or the deadline passed)."""
        order = self._orders.get(action_id)
        if order is None:
            return None
        bundle = self._orders.get(action_id + BUNDLE_SUFFIX)
        if bundle is not None:  # a late bundle is expired too, not left for the agent
            settled(self._orders, bundle, self._clock)
        order = settled(self._orders, order, self._clock)
        if order.status in LIVE:
            return None
        return self._result(order)

    def _result(self, order: NodeOrder) -> DiagnosticResult:
        level = next(
            (k for k, v in self._settings.levels.items() if v == order.args.get("level")),
            DiagnosticLevel.LOAD,
        )
        at = order.updated_at or order.deadline
        head = f"dcgmi diag -r {order.args.get('level')}: {order.status}"
        if order.detail:
            head += f": {order.detail}"
        evidence = (head[:300], *order.findings)
        if order.status is OrderStatus.DONE and order.verdict is not None:
            verdict = _VERDICTS[order.verdict]
        else:  # failed, refused, expired, or done without a verdict: says nothing of the node
            verdict = Verdict.ERROR
        return DiagnosticResult(order.id, order.node, level, verdict, at, evidence=evidence)
