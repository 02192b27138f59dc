"""Hardware recovery's decision: `decide(node, signals, now, context) -> Decision`.

Pure: it reads the node's record, the new signals, what the controller observed (drained?
actions still pending or failed? the current diagnostic's result?), the breaker's counts and
the node's open domain incident, and returns the new record, at most one transition and the
actions to take. It never reads a clock and never does I/O; the controller records the
decision before it executes the actions, so a crash anywhere converges on restart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.domain.hardware.breaker import admit
from autorecover.domain.hardware.lifecycle import (
    RELEASES,
    Action,
    ActionKind,
    NodeState,
    action_id,
)
from autorecover.domain.hardware.policy import (
    HardwarePolicy,
    Mark,
    SignalClass,
    remember,
    strongest,
)
from autorecover.domain.hardware.records import (
    EVIDENCE_LINES,
    Decision,
    DecisionContext,
    NodeRecord,
    move,
    target,
)
from autorecover.domain.hardware.remediation import (
    Attempt,
    DiagnosticResult,
    Step,
    Verdict,
    after,
    higher,
    keeps_coming_back,
    next_step,
    prune,
    step_for,
)
from autorecover.domain.signals import NodeSignal

_S, _NA = NodeState.SUSPECT, NodeState.NEEDS_ATTENTION


@dataclass(frozen=True, slots=True)
class _Found:
    cls: SignalClass = SignalClass.IGNORE
    evidence: tuple[str, ...] = ()
    step: Step | None = None
    component: str | None = None
    incident: str | None = None
    signals: tuple[NodeSignal, ...] = ()


def decide(
    record: NodeRecord, signals: Sequence[NodeSignal], now: datetime, ctx: DecisionContext
) -> Decision:
    """The node's next state and actions, given new signals and what was observed."""
    if not signals and record.state is NodeState.HEALTHY and record.held is None:
        return Decision(record)  # the common case: a healthy node reporting nothing
    signals, stale = _current(record, signals)
    found, marks = _classify(record, signals, now, ctx.policy)
    rec = replace(record, marks=marks) if marks is not record.marks else record
    if found.evidence:
        rec = replace(rec, evidence=(*rec.evidence, *found.evidence)[-EVIDENCE_LINES:])
    decision = _HANDLERS[rec.state](rec, found, now, ctx)
    if stale:
        note = f"{stale} signal(s) from before the last validation ignored: {stale[0]}"
        decision = replace(decision, notes=(*decision.notes, note[:300]))
    if ctx.paused and (decision.transition is not None or decision.actions):
        return _held_by_pause(rec, decision, now)
    return decision


def _held_by_pause(rec: NodeRecord, decision: Decision, now: datetime) -> Decision:
    """Acting is paused: the decision is noted as held and nothing moves. A removal it wanted
    is held like one the breaker refused, so it goes ahead once acting resumes (within
    `hold`); the ladder waits where it is, its deadlines running."""
    t = decision.transition
    what = f"{t.frm} -> {t.to}: {t.why}" if t else ", ".join(a.kind for a in decision.actions)
    if t is not None and t.frm in (NodeState.HEALTHY, _S) and t.to in (_S, NodeState.QUARANTINED):
        cls = SignalClass.QUARANTINE if t.to is NodeState.QUARANTINED else SignalClass.SUSPECT
        held = cls if rec.held is None else strongest(rec.held, cls)
        rec = replace(rec, held=held, held_since=rec.held_since if rec.held else now)
    return Decision(rec, notes=(f"acting paused: held {what}",), paused=True)


def evidence_time(signal: NodeSignal) -> datetime:
    """When the signal's evidence was seen: the `evidence_at` detail a hand-over from job
    recovery carries (its line is older than the hand-over), else when it was observed."""
    text = signal.detail("evidence_at")
    if text:
        try:
            at = datetime.fromisoformat(text)
        except ValueError:
            return signal.at
        return at if at.tzinfo is not None else signal.at
    return signal.at


def _current(
    record: NodeRecord, signals: Sequence[NodeSignal]
) -> tuple[Sequence[NodeSignal], tuple[str, ...]]:
    """Signals minus those whose evidence predates the node's last validated return: the
    node was diagnosed, repaired and validated since, so that evidence is history (a new
    fault prints new lines). Returns what is current and a line per ignored signal."""
    if not record.returns or record.state not in (NodeState.HEALTHY, _S) or not signals:
        return signals, ()
    returned = record.returns[-1]
    kept = [s for s in signals if evidence_time(s) > returned]
    if len(kept) == len(signals):
        return signals, ()
    stale = tuple(
        f"{s.probe}:{s.signal} seen {evidence_time(s):%Y-%m-%dT%H:%M:%SZ}, "
        f"validated {returned:%Y-%m-%dT%H:%M:%SZ}"
        for s in signals
        if evidence_time(s) <= returned
    )
    return kept, stale


def _classify(
    record: NodeRecord, signals: Sequence[NodeSignal], now: datetime, policy: HardwarePolicy
) -> tuple[_Found, tuple[Mark, ...]]:
    since = now - policy.hold  # an agent's buffer replayed late decides nothing any more
    relevant = [(s, policy.classify(s)) for s in signals if s.at >= since]
    relevant = [(s, c) for s, c in relevant if c is not SignalClass.IGNORE]
    if not relevant:
        return _Found(), record.marks
    marks = remember(
        record.marks, (Mark(s.signal, s.probe, c, s.at) for s, c in relevant), now, policy
    )
    cls, step, parts = SignalClass.IGNORE, None, set()
    for s, c in relevant:
        cls = strongest(cls, strongest(c, policy.escalated(s, marks, now)))
        step = higher(step, step_for(s.node_action))
        parts.add(s.component)
    return (
        _Found(
            cls=cls,
            evidence=tuple(_line(s) for s, _ in relevant),
            step=step,
            component=parts.pop() if len(parts) == 1 else None,
            incident=next((s.incident for s, _ in relevant if s.incident), None),
            signals=tuple(s for s, _ in relevant),
        ),
        marks,
    )


def _line(s: NodeSignal) -> str:
    where = f"@{s.component}" if s.component else ""
    times = f" x{s.count}" if s.count > 1 else ""
    return f"{s.at:%Y-%m-%dT%H:%M:%SZ} {s.probe}:{s.signal}{where}{times} {s.text}"[:300]


# --- healthy and suspect: detection -----------------------------------------------------------


def _detect(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    if rec.state is _S and ctx.observation.failed:
        return _to_person(rec, now, ctx, f"suspect: {ctx.observation.failed}")
    want, held = found.cls, rec.held
    notes: tuple[str, ...] = ()
    if held is not None:
        if now - (rec.held_since or now) > ctx.policy.hold:
            rec, notes = replace(rec, held=None, held_since=None), ("hold expired",)
        else:
            want = strongest(want, held)
    if want is SignalClass.QUARANTINE and ctx.incident is not None:
        want = SignalClass.SUSPECT  # node remedies cannot fix a domain's fault
    healthy = rec.state is NodeState.HEALTHY
    if want is SignalClass.QUARANTINE:
        to = NodeState.QUARANTINED
    elif want is SignalClass.SUSPECT and healthy:
        to = _S
    else:
        if not healthy and _quiet(rec, now, ctx.policy):
            return move(
                rec, NodeState.HEALTHY, now, ctx.by, "quiet period over", [ActionKind.RESUME]
            )
        return Decision(rec, notes=notes)
    verdict = admit(ctx.breaker, ctx.domains, removal=healthy)
    if not verdict.admitted:
        if rec.held is not None and rec.held.rank >= want.rank:
            return Decision(rec, notes=notes, refusal=verdict)  # still held: nothing new
        waiting = replace(rec, held=want, held_since=rec.held_since or now)
        if rec.held is None:
            notes = (*notes, f"held: {verdict.reason}")
        return Decision(waiting, notes=notes, refusal=verdict)
    if ctx.incident is not None:
        incident = ctx.incident.id
    else:
        kept = None if healthy else rec.incident
        # The node's transition count makes the id unique: a node released and faulting
        # again within the same second is a second incident, not more of the first.
        fresh = f"hw/{rec.node}/{now:%Y%m%dT%H%M%SZ}-{rec.seq + 1}"
        incident = found.incident or kept or fresh
    cleared = {"held": None, "held_since": None, "incident": incident}
    if to is _S:
        why = f"suspect: {_cause(found, rec)}" + (
            f" (domain incident {ctx.incident.id})" if ctx.incident else ""
        )
        return move(rec, _S, now, ctx.by, why, [ActionKind.CORDON], **cleared)
    kinds = (
        [ActionKind.TAINT, ActionKind.DRAIN]
        if not healthy
        else [ActionKind.CORDON, ActionKind.TAINT, ActionKind.DRAIN]
    )
    return move(
        rec,
        NodeState.QUARANTINED,
        now,
        ctx.by,
        f"quarantine: {_cause(found, rec)}",
        kinds,
        wanted=higher(rec.wanted, found.step),
        component=found.component or rec.component,
        **cleared,
    )


def _cause(found: _Found, rec: NodeRecord) -> str:
    keys = sorted({s.signal for s in found.signals})
    return ", ".join(keys) if keys else f"held since {rec.held_since:%Y-%m-%dT%H:%M:%SZ}"


def _quiet(rec: NodeRecord, now: datetime, policy: HardwarePolicy) -> bool:
    last = max((m.at for m in rec.marks), default=rec.since)
    return now - max(last, rec.since) >= policy.suspect_clear


# --- the ladder: quarantined, diagnosing, remediating, validating -----------------------------


def _ladder_common(rec: NodeRecord, found: _Found) -> NodeRecord:
    """New evidence during the ladder can only raise the step it asks for."""
    wanted = higher(rec.wanted, found.step)
    return rec if wanted is rec.wanted else replace(rec, wanted=wanted)


def _to_person(rec: NodeRecord, now: datetime, ctx: DecisionContext, why: str) -> Decision:
    return move(rec, _NA, now, ctx.by, why)


def _quarantined(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    rec, obs = _ladder_common(rec, found), ctx.observation
    if obs.failed:
        return _to_person(rec, now, ctx, f"quarantine failed: {obs.failed}")
    if now - rec.since >= ctx.policy.timeouts.drain:
        return _to_person(rec, now, ctx, "drain timed out")
    if obs.pending or not (obs.drained or ctx.dry_run):
        return Decision(rec)
    if rec.wanted is Step.POWER_CYCLE:  # the host does not answer: it cannot run a diagnostic
        return _remedy(rec, Step.POWER_CYCLE, now, ctx)
    return move(rec, NodeState.DIAGNOSING, now, ctx.by, "drained: diagnose", [ActionKind.DIAGNOSE])


def _result(
    rec: NodeRecord, now: datetime, ctx: DecisionContext, kind: ActionKind, limit_s: float
) -> DiagnosticResult | Decision:
    """The usable diagnostic result, or the decision to wait, rerun or hand over."""
    result, obs = ctx.observation.result, ctx.observation
    if obs.failed:
        return _to_person(rec, now, ctx, f"{kind} failed to start: {obs.failed}")
    broken = result is not None and (
        result.verdict is Verdict.ERROR or (result.verdict is Verdict.SKIPPED and not ctx.dry_run)
    )
    if result is not None and not obs.pending and not broken:
        return result
    if (now - rec.since).total_seconds() >= limit_s:  # the deadline holds whatever happens
        return _to_person(rec, now, ctx, f"{kind} timed out")
    if result is None or obs.pending:
        return Decision(rec)
    if rec.tries >= ctx.policy.ladder.diagnostic_retries:
        return _to_person(
            rec, now, ctx, f"{kind} kept erroring: {'; '.join(result.evidence)[:200]}"
        )
    tries = rec.tries + 1
    again = replace(rec, tries=tries)
    note = f"{kind} errored, rerun {tries}"
    rerun = action_id(rec.node, rec.seq, kind, tries)
    act = Action(
        rerun, rec.node, kind, now, ctx.by, note, rec.evidence, rec.incident,
        target(kind, rec), rec.seq,
    )  # fmt: skip
    return Decision(again, actions=(act,), notes=(note,))


def _diagnosing(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    rec, ladder = _ladder_common(rec, found), ctx.policy.ladder
    got = _result(rec, now, ctx, ActionKind.DIAGNOSE, ctx.policy.timeouts.diagnose.total_seconds())
    if isinstance(got, Decision):
        return got
    rec = replace(rec, evidence=(*rec.evidence, *_diag_lines(got))[-EVIDENCE_LINES:])
    if keeps_coming_back(ladder, rec.returns, now):
        return _to_person(rec, now, ctx, f"returned {len(rec.returns)} times lately: stays out")
    if got.verdict is Verdict.FAIL:
        asked = step_for(got.recommended) or Step.RESET_GPU
        return _remedy(rec, higher(rec.wanted, asked) or asked, now, ctx)
    if rec.wanted is not None:
        return _remedy(rec, rec.wanted, now, ctx)
    why = "diagnostic found nothing: validate"
    return move(rec, NodeState.VALIDATING, now, ctx.by, why, [ActionKind.VALIDATE])


_REMEDIES = {
    Step.RESET_GPU: ActionKind.RESET_GPU,
    Step.REBOOT: ActionKind.REBOOT,
    Step.POWER_CYCLE: ActionKind.POWER_CYCLE,
}


def _remedy(rec: NodeRecord, wanted: Step, now: datetime, ctx: DecisionContext) -> Decision:
    attempts = prune(rec.attempts, now, ctx.policy.ladder)
    step = next_step(ctx.policy.ladder, wanted, attempts, now)
    if step is Step.PERSON:
        if wanted is not Step.PERSON:
            why = "remediation budget spent"
        elif rec.step is None:
            why = "the evidence asks for a person"
        else:
            why = f"{rec.step} did not fix it: no step left"
        return _to_person(replace(rec, attempts=attempts), now, ctx, why)
    kind = _REMEDIES[step]
    tried = (*attempts, Attempt(step, now))
    why = f"remediate: {step}"
    return move(
        rec,
        NodeState.REMEDIATING,
        now,
        ctx.by,
        why,
        [kind],
        step=step,
        wanted=wanted,
        attempts=tried,
    )


def _remediating(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    rec, obs = _ladder_common(rec, found), ctx.observation
    if obs.failed:
        return _climb(rec, now, ctx, f"{rec.step} failed: {obs.failed}")
    if obs.pending:
        if now - rec.since >= ctx.policy.timeouts.remediate:
            return _climb(rec, now, ctx, f"{rec.step} timed out")
        return Decision(rec)
    return move(
        rec, NodeState.VALIDATING, now, ctx.by, f"{rec.step} done: validate", [ActionKind.VALIDATE]
    )


def _climb(rec: NodeRecord, now: datetime, ctx: DecisionContext, why: str) -> Decision:
    """A remedy that failed or never finished: the ladder's next rung (its budget permitting),
    with what went wrong kept in the evidence and noted; a person when no rung is left."""
    wanted = after(rec.step, ctx.policy.ladder) if rec.step is not None else Step.REBOOT
    ladder = ctx.policy.ladder
    if next_step(ladder, wanted, prune(rec.attempts, now, ladder), now) is Step.PERSON:
        return _to_person(rec, now, ctx, why)
    line = f"{now:%Y-%m-%dT%H:%M:%SZ} {why}"[:300]
    rec = replace(rec, evidence=(*rec.evidence, line)[-EVIDENCE_LINES:])
    decision = _remedy(rec, wanted, now, ctx)
    return replace(decision, notes=(*decision.notes, why))


def _validating(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    rec = _ladder_common(rec, found)
    got = _result(rec, now, ctx, ActionKind.VALIDATE, ctx.policy.timeouts.validate.total_seconds())
    if isinstance(got, Decision):
        return got
    rec = replace(rec, evidence=(*rec.evidence, *_diag_lines(got))[-EVIDENCE_LINES:])
    if got.verdict in (Verdict.PASS, Verdict.SKIPPED):
        why, returns = "validation passed: return", (*rec.returns, now)[-8:]
        return move(
            rec, NodeState.HEALTHY, now, ctx.by, why, [ActionKind.RESUME],
            returns=returns, wanted=None, step=None, component=None,
        )  # fmt: skip
    wanted = after(rec.step, ctx.policy.ladder) if rec.step is not None else Step.RESET_GPU
    return _remedy(rec, higher(wanted, step_for(got.recommended)) or wanted, now, ctx)


def _diag_lines(result: DiagnosticResult) -> tuple[str, ...]:
    head = f"{result.at:%Y-%m-%dT%H:%M:%SZ} diagnostic {result.level}: {result.verdict}"
    return (head, *(f"  {line}"[:300] for line in result.evidence[:4]))


def _attention(rec: NodeRecord, found: _Found, now: datetime, ctx: DecisionContext) -> Decision:
    return Decision(rec)  # a person has it; signals are only recorded


_HANDLERS: dict[NodeState, Callable[[NodeRecord, _Found, datetime, DecisionContext], Decision]] = {
    NodeState.HEALTHY: _detect,
    NodeState.SUSPECT: _detect,
    NodeState.QUARANTINED: _quarantined,
    NodeState.DIAGNOSING: _diagnosing,
    NodeState.REMEDIATING: _remediating,
    NodeState.VALIDATING: _validating,
    NodeState.NEEDS_ATTENTION: _attention,
}


def release(
    record: NodeRecord, now: datetime, by: str, why: str, validate: bool = False
) -> Decision:
    """A person hands a node back from any state of ours: to service at once (our cordon
    and taint lifted by `resume`), or, from needs-attention, through validation first."""
    to = NodeState.VALIDATING if validate else NodeState.HEALTHY
    if record.state is NodeState.HEALTHY:
        raise ValueError(f"{record.node} is healthy: nothing to release")
    if (record.state, to) not in RELEASES:
        raise ValueError(
            f"{record.node} is {record.state}: validation first applies to needs_attention only"
        )
    kinds = [ActionKind.VALIDATE] if validate else [ActionKind.RESUME]
    fresh = {"attempts": (), "returns": (), "wanted": None, "step": None}
    fresh |= {"held": None, "held_since": None}
    return move(record, to, now, by, f"released: {why}", kinds, **fresh)
