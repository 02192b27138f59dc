"""How a verdict is put into words and which lines it shows (`attribution.py` decides).

The summary says what was decided and why, naming the decisive signal, its node and time; the
evidence lists the decisive lines first, then the earliest symptoms, eight at most. A verdict
that names no node and no stop says which weaker lines of a cause it weighed and set aside
(`set_aside`), and an `unknown` with only symptoms names the heaviest of them (`said`), so a
person sees what was read and can disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.domain.fatal_errors import FIRST_FATAL
from autorecover.domain.records import (
    ACTION_FOR_CAUSE,
    Blame,
    Cause,
    Evidence,
    Finding,
    JobRecord,
    Source,
    Verdict,
)
from autorecover.domain.stalls import LOCKUPS

HARDWARE_THRESHOLD = 60  # a node needs this much hardware weight to be named
APPLICATION_THRESHOLD = 50
TRANSIENT_THRESHOLD = 50
_BELOW = {
    Blame.HARDWARE: HARDWARE_THRESHOLD,
    Blame.TRANSIENT: TRANSIENT_THRESHOLD,
    Blame.APPLICATION: APPLICATION_THRESHOLD,
}
MAX_EVIDENCE = 8
REASON_TEXT = 200  # characters of a telemetry error record's text quoted in a summary


@dataclass(frozen=True, slots=True)
class Scored:
    """Per-node hardware score with the findings behind it."""

    node: str
    score: int
    findings: tuple[Finding, ...]
    first_at: datetime | None


def set_aside(
    cause: Cause,
    decisive: Sequence[Finding],
    symptoms: Sequence[Finding],
    why: str,
    seen: Sequence[Finding],
) -> Verdict:
    """A verdict that names no node and no stop, saying which weaker lines of a cause (a
    hardware line below naming, an application line below stopping) it weighed and set aside,
    and listing them with the evidence, so that a person can see them and disagree."""
    verdict = make_verdict(cause, (), decisive, symptoms, why)
    weak = weak_findings(seen)
    if not weak:
        return verdict
    shown = ", ".join(f"{f.signal} on {f.node} ({f.blame.value} {f.weight})" for f in weak)
    # after the lines the verdict rests on: its first line stays the failure's signal, which
    # the job's history compares across attempts
    listed = list(verdict.evidence[: MAX_EVIDENCE - len(weak)])
    listed.extend(e for e in map(as_evidence, weak) if e not in listed)
    return replace(
        verdict,
        evidence=tuple(listed),
        summary=f"{why} (weighed and set aside, too weak alone: {shown})",
    )


def said_symptoms(symptoms: Sequence[Finding]) -> list[Finding]:
    """The heaviest symptom lines of the job's own, one per signal and node, at most three: what
    an `unknown` with no cause read (so a person sees that lines were read, and which)."""
    out: list[Finding] = []
    for f in sorted(symptoms, key=lambda f: (-f.weight, f.node, f.line)):
        if (
            f.weight > 0
            and f.line > 0
            and all((f.signal, f.node) != (g.signal, g.node) for g in out)
        ):
            out.append(f)
    return out[:3]


def weak_findings(seen: Sequence[Finding]) -> list[Finding]:
    """The strongest findings that blamed something but stayed below its threshold: one per
    signal and node, at most three, so that an `unknown` says what it weighed and set aside (a
    strong finding another rule set aside is not 'weak' and is not listed)."""
    ranked = sorted(
        (f for f in seen if 0 < f.weight < _BELOW.get(f.blame, 0)),
        key=lambda f: (-f.weight, f.at.timestamp() if f.at else 0.0, f.node, f.line),
    )
    out: list[Finding] = []
    for f in ranked:
        if all((f.signal, f.node) != (g.signal, g.node) for g in out):
            out.append(f)
    return out[:3]


def weak_everywhere(seen: Sequence[Finding], blame: Blame = Blame.APPLICATION) -> list[Finding]:
    """One weak error of `blame` (below its threshold) that the job printed alike on several
    nodes, when every weak finding blames the same: each node's line, one per node; empty
    otherwise.

    Alone on one node, such a line may be that node's (its library, its mount, its memory, its
    resolver); the same error on several nodes is a code path or a setting they all took (the
    application's, as a crash on every node is: `shape.crashed_alone`), or something outside
    them all that failed (a transient one's: a service, the network they share)."""
    weak = [f for f in seen if 0 < f.weight < _BELOW.get(f.blame, 0)]
    if not weak or any(f.blame is not blame for f in weak):
        return []
    by_signal: dict[str, dict[str, Finding]] = {}
    printed = (f for f in weak if f.source is Source.LOGS)  # the kernel's XIDs have own rules
    for f in sorted(printed, key=lambda f: (f.at.timestamp() if f.at else 0.0, f.node, f.line)):
        by_signal.setdefault(f.signal, {}).setdefault(f.node, f)
    widest = max(by_signal.values(), key=len, default={})
    return list(widest.values()) if len(widest) >= 2 else []


def hardware_reason(
    suspects: list[str],
    hw: dict[str, Scored],
    symptoms: list[Finding],
    stall: Sequence[Finding] = (),
) -> str:
    parts = []
    for node in sorted(suspects):
        scored = hw.get(node)
        if scored is None or not scored.findings:
            said = next((f.text for f in stall if f.node == node), "stopped making progress first")
            locks = sorted({f.signal for f in symptoms if f.node == node and f.signal in LOCKUPS})
            if locks:
                said += f", while its kernel reported {', '.join(locks)}"
            parts.append(f"{node}: {said}")
            continue
        top = max(scored.findings, key=lambda f: f.weight)
        when = f" at {top.at:%H:%M:%S}Z" if top.at else ""
        if top.signal == "node.stopped_first":  # derived: its text says why
            parts.append(f"{node}: {top.text}")
            continue
        parts.append(f"{node}: {top.signal}{when} (node action: {top.node_action})")
    why = "hardware fault on " + "; ".join(parts)
    bystanders = sorted({f.node for f in symptoms if f.weight >= 20} - set(suspects))
    if bystanders:
        signals = sorted({f.signal for f in symptoms if f.node in bystanders and f.weight >= 20})
        why += f"; {len(bystanders)} other node(s) show only its symptoms ({', '.join(signals)})"
    return why + ": requeue without " + ", ".join(sorted(suspects))


def application_reason(app: list[Finding], job: JobRecord) -> str:
    top = max(app, key=lambda f: (f.weight, -(f.at.timestamp() if f.at else 0)))
    nodes = sorted({f.node for f in app})
    spread = ", ".join(nodes)
    if len(job.nodes) > 1 and set(nodes) >= set(job.nodes):
        spread = "every node"
    timed = [f for f in app if f.at is not None]
    first = min(timed, key=lambda f: (f.at, f.line)) if timed else top
    if len(nodes) > 1 and first.at is not None:
        spread += f", first on {first.node} ({first.signal} at {first.at:%H:%M:%S}Z)"
    what = top.signal
    if top.detail("telemetry") == "error":  # the library's record says who, when, what
        what += ", " + top.text.split(": ", 1)[-1][:REASON_TEXT]
        if top.detail("context") == FIRST_FATAL:
            what += f" ({FIRST_FATAL})"
    return f"the application failed ({what}) on {spread}: a retry would fail the same way"


def transient_reason(transient: list[Finding]) -> str:
    top = max(transient, key=lambda f: f.weight)
    return f"{top.signal}: an infrastructure event, not the job or a node; requeue"


def make_verdict(
    cause: Cause,
    suspects: tuple[str, ...],
    decisive: Sequence[Finding],
    symptoms: Sequence[Finding],
    why: str,
) -> Verdict:
    return Verdict(
        cause=cause,
        suspect_nodes=suspects,
        action=ACTION_FOR_CAUSE[cause],
        evidence=tuple(rank_evidence(decisive, symptoms)),
        summary=why,
        strength=max((f.weight for f in decisive), default=0),
    )


def rank_evidence(decisive: Sequence[Finding], symptoms: Sequence[Finding]) -> list[Evidence]:
    """Most decisive first; one line per (file, signal); then the earliest symptoms.

    Ties are broken by the node, never by the order of `job.json`'s node list
    (which a collector chooses); the scheduler's own word (`job.json`'s state, stamped with
    whichever node comes first) is one line of its own, not a repeat of a node's."""
    out: list[Evidence] = []
    seen: set[tuple[str, str, str]] = set()

    def order(f: Finding) -> tuple[int, float, int, str]:
        # a node's own ties keep the order the rules gave them (the most telling first)
        return (-f.weight, f.at.timestamp() if f.at else 0.0, f.line, f.origin or f.node)

    def key(f: Finding) -> tuple[str, str, str]:
        return (str(f.source), "" if f.source is Source.JOB else f.node, f.signal)

    for f in sorted(decisive, key=order):
        if key(f) in seen:
            continue
        seen.add(key(f))
        out.append(as_evidence(f))
    del out[MAX_EVIDENCE:]
    early = sorted(symptoms, key=lambda f: order(f)[1:])
    for f in early:
        if len(out) >= MAX_EVIDENCE:
            break
        if key(f) not in seen:
            seen.add(key(f))
            out.append(as_evidence(f))
    return out


def as_evidence(f: Finding) -> Evidence:
    return Evidence(f.origin or f.node, f.source, f.line, f.signal, f.text)
