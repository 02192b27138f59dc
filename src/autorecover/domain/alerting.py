"""Which alerts hold: derived from what the store records about nodes, the breaker, failure
domains and jobs — nodes a person must look at, nodes out of service longer than their
budget, the tripped breaker, open failure-domain incidents, jobs recovery stopped. Pure: the
same facts at the same `now` give the same alerts with the same ids, across restarts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType

from autorecover.domain.alerts import Alert, AlertName, AlertSettings, Severity
from autorecover.domain.failure_domains import DomainIncident
from autorecover.domain.hardware.breaker import CLOSED, BreakerState
from autorecover.domain.hardware.lifecycle import NodeState


@dataclass(frozen=True, slots=True)
class NodeFact:
    """A node out of service, as alerting reads it from the store."""

    node: str
    state: NodeState
    since: datetime  # when it entered `state`
    seq: int  # its transition count: the occurrence of `state` it is in
    out_since: datetime  # when it last left healthy (at the latest: `since`)
    reason: str = ""
    incident: str | None = None
    domains: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobFact:
    """A job recovery stopped, or whose recovery failed for good."""

    job: str
    incident: str
    attempt: int
    at: datetime  # when it was stopped or failed
    why: str
    failed: bool = False  # the recovery itself failed (else: recovery decided to stop it)
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Facts:
    """Everything the alerts are derived from."""

    nodes: tuple[NodeFact, ...] = ()
    breaker: BreakerState = CLOSED
    domains: tuple[DomainIncident, ...] = ()  # open ones
    jobs: tuple[JobFact, ...] = ()
    latest_attempts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")


def _path(text: str) -> str:
    """Percent-encoded for a URL path (an incident id's `#` would end the path)."""
    out = (c if c in _UNRESERVED else "".join(f"%{b:02X}" for b in c.encode()) for c in text)
    return "".join(out)


def _stamp(at: datetime) -> str:
    return f"{at:%Y%m%dT%H%M%S.%fZ}"


def _span(span: timedelta) -> str:
    """A budget as people write it: 24h, 90min, 45s."""
    seconds = span.total_seconds()
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}min"
    return f"{seconds:g}s"


def firing(facts: Facts, now: datetime, settings: AlertSettings) -> tuple[Alert, ...]:
    """Every alert that holds at `now`, ordered by id."""
    base = settings.link.rstrip("/")
    dry = settings.dry_run
    out: list[Alert] = []
    for n in facts.nodes:
        where = ",".join(sorted(n.domains))
        link = f"{base}/api/v1/nodes/{_path(n.node)}" if base else ""
        if n.state is NodeState.NEEDS_ATTENTION:
            out.append(
                Alert(
                    f"{AlertName.NODE_NEEDS_ATTENTION}/{n.node}/{n.seq}", n.since,
                    f"node {n.node} needs a person: {n.reason}", n.node, n.incident,
                    name=AlertName.NODE_NEEDS_ATTENTION, severity=Severity.WARNING,
                    domain=where, link=link, dry_run=dry,
                    description=(
                        f"autorecover took {n.node} out of service and handed it to a person "
                        f"at {n.since:%Y-%m-%dT%H:%M:%SZ}. Repair it, then release it "
                        "(the node returns through validation)."
                    ),
                )
            )  # fmt: skip
        over = n.out_since + settings.out_of_service_budget
        if n.state is not NodeState.HEALTHY and now >= over:
            budget = _span(settings.out_of_service_budget)
            out.append(
                Alert(
                    f"{AlertName.NODE_OUT_TOO_LONG}/{n.node}/{_stamp(n.out_since)}", over,
                    f"node {n.node} out of service longer than {budget} (now {n.state})",
                    n.node, n.incident, name=AlertName.NODE_OUT_TOO_LONG,
                    severity=Severity.WARNING, domain=where, link=link, dry_run=dry,
                    description=(
                        f"{n.node} left service at {n.out_since:%Y-%m-%dT%H:%M:%SZ} and has "
                        f"not returned; its budget is {budget}. Last reason: {n.reason}"
                    ),
                )
            )  # fmt: skip
    breaker = facts.breaker
    if breaker.tripped_at is not None:
        out.append(
            Alert(
                f"{AlertName.BREAKER_TRIPPED}/{_stamp(breaker.tripped_at)}", breaker.tripped_at,
                f"circuit breaker tripped: {breaker.reason}", name=AlertName.BREAKER_TRIPPED,
                severity=Severity.CRITICAL, dry_run=dry,
                description=(
                    "Hardware recovery takes no more nodes out of service until a person "
                    "resets the breaker; validated nodes keep returning."
                ),
            )
        )  # fmt: skip
    for i in facts.domains:
        nodes = ", ".join(sorted(i.nodes))
        out.append(
            Alert(
                f"{AlertName.DOMAIN_INCIDENT}/{i.id}", i.opened_at,
                f"failure domain {i.domain}: {len(i.nodes)} nodes faulted together", "", i.id,
                name=AlertName.DOMAIN_INCIDENT, severity=Severity.CRITICAL,
                domain=str(i.domain),
                link=f"{base}/api/v1/incidents/{_path(i.id)}" if base else "",
                description=f"One incident for a person (a PDU, a switch, a leaf): {nodes}",
                dry_run=dry,
            )
        )  # fmt: skip
    for j in facts.jobs:
        if now - j.at >= settings.job_hold or facts.latest_attempts.get(j.job, 0) > j.attempt:
            continue  # held long enough, or the job has run again since
        name = AlertName.JOB_RECOVERY_FAILED if j.failed else AlertName.JOB_STOPPED
        what = "recovery failed" if j.failed else "stopped by recovery"
        out.append(
            Alert(
                f"{name}/{j.incident}", j.at, f"job {j.job} {what}: {j.why}", "", j.incident,
                name=name, severity=Severity.WARNING, job=j.job,
                link=f"{base}/api/v1/incidents/{_path(j.incident)}" if base else "",
                description=(
                    f"Attempt {j.attempt} on {', '.join(j.nodes) or 'no nodes'}; autorecover "
                    "will not restart it: a person decides."
                ),
                dry_run=dry,
            )
        )  # fmt: skip
    return tuple(sorted(out, key=lambda a: a.id))
