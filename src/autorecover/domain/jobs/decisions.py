"""Job recovery's decision: given a verdict and the job's history, what to do now.

Pure: `decide_job` takes the verdict, the job's history, `now` and the policy, and returns the
action, the nodes to exclude, the delay, the budget spent and the new history. The controller
records the decision before it acts and verifies the result after.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from autorecover.domain.jobs.cliques import Widened
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Action, Cause, Verdict


class Budget(StrEnum):
    """Whose retry budget a restart spends (persisted: never rename a value)."""

    INFRASTRUCTURE = "infrastructure"  # hardware and transient causes: never the user's
    USER = "user"  # unknown causes and confirmation retries
    NONE = "none"  # a stop spends nothing
    PROACTIVE = "proactive"  # a move off a warning node after a checkpoint (migration.py)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One failure of the job and what was done about it."""

    at: datetime
    cause: Cause
    root: str  # the decisive signal, e.g. "xid.79", or the cause when nothing decided
    suspects: tuple[str, ...]
    checkpoint: int | None  # the last completed checkpoint when it failed
    budget: Budget
    action: Action
    # Where the failure started and the last training step reached, as the job's history
    # records them (`attribution.recorded`): the attribution of a later attempt reads them.
    origin: str = ""
    step: int | None = None
    rank: int | None = None  # the rank of the line that says where it started, when known


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A node this job stays away from until a time (exclusions decay)."""

    node: str
    until: datetime
    incident: str


@dataclass(frozen=True, slots=True)
class JobHistory:
    """Everything job recovery remembers about one job."""

    attempts: tuple[Attempt, ...] = ()
    exclusions: tuple[Exclusion, ...] = ()

    def spent(self, budget: Budget) -> int:
        """Restarts charged to a budget so far."""
        return sum(1 for a in self.attempts if a.budget is budget and a.action is not Action.STOP)

    def excluded(self, now: datetime) -> tuple[str, ...]:
        """Nodes still excluded at `now`, sorted."""
        return tuple(sorted({e.node for e in self.exclusions if e.until > now}))


@dataclass(frozen=True, slots=True)
class JobDecision:
    """What to do with a failed or hung job, and why."""

    action: Action
    exclude: tuple[str, ...]  # every node the requeued job must avoid (old and new)
    delay_s: float
    budget: Budget
    reason: str
    history: JobHistory
    hand_over: tuple[str, ...] = ()  # suspects to tell hardware recovery about, at once


def decide_job(
    verdict: Verdict,
    history: JobHistory,
    now: datetime,
    policy: JobPolicy,
    *,
    incident: str,
    checkpoint: int | None,
    widened: Widened | None = None,
    origin: str = "",
    step: int | None = None,
    rank: int | None = None,
) -> JobDecision:
    """Decide requeue (excluding suspects), retry with backoff, or stop, by cause and budget.

    `widened` (a job that needs whole cliques: `cliques.widen_to_cliques`) says, per suspect,
    which nodes the job avoids for it; without it, each suspect alone. `origin` (the node the
    failure started on), `step` (the last step reached) and `rank` (the rank of the line that
    says where) go into the history's record."""
    root = verdict.evidence[0].signal if verdict.evidence else str(verdict.cause)
    live = tuple(e for e in history.exclusions if e.until > now)  # decayed ones are forgotten
    past = JobHistory(attempts=history.attempts, exclusions=live)
    made = _Step(verdict, past, now, root, checkpoint, origin, step, rank)

    stop = _stop_reason(verdict, past, now, policy, root, checkpoint)
    if stop is not None:
        return made.stop(stop)
    if (
        verdict.cause in (Cause.HARDWARE, Cause.TRANSIENT)
        and past.spent(Budget.INFRASTRUCTURE) >= policy.infrastructure_restarts
    ):
        return made.stop("the infrastructure restart budget is spent")
    if verdict.cause is Cause.HARDWARE:
        until = now + timedelta(seconds=policy.exclusion_ttl_s)
        avoid = widened.exclude if widened is not None else {}
        nodes = dict.fromkeys(n for s in verdict.suspect_nodes for n in avoid.get(s, (s,)))
        added = tuple(Exclusion(n, until, incident) for n in nodes)
        why = (
            f"hardware ({root}) on {', '.join(verdict.suspect_nodes)}: requeue at once without them"
        )
        if widened is not None and widened.notes:
            why += " (" + "; ".join(widened.notes) + ")"
        return made.requeue(
            Budget.INFRASTRUCTURE, why, added=added, hand_over=verdict.suspect_nodes
        )
    if verdict.cause is Cause.TRANSIENT:
        delay = _backoff(past, policy)
        why = f"transient ({root}): retry on the same nodes in {delay:.0f} s"
        return made.requeue(Budget.INFRASTRUCTURE, why, delay_s=delay)
    if verdict.cause is Cause.APPLICATION:
        if _confirm(verdict, past, policy, root):
            why = f"application ({root}) on weak evidence: one confirmation retry"
            return made.requeue(Budget.USER, why, delay_s=policy.transient_backoff_s[0])
        return made.stop(f"application ({root}): a retry would fail the same way")
    if past.spent(Budget.USER) >= policy.user_restarts:
        return made.stop("cause unknown and the user's retry budget is spent")
    why = f"cause unknown ({root}): bounded retry"
    return made.requeue(Budget.USER, why, delay_s=policy.transient_backoff_s[0])


def first_decision(verdict: Verdict, policy: JobPolicy) -> JobDecision:
    """The decision on `verdict` as a job's first failure (no history, no checkpoint): what
    `autorecover explain` and the corpus score show beside a verdict. Without history the time
    changes nothing."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return decide_job(verdict, JobHistory(), now, policy, incident="first", checkpoint=None)


@dataclass(frozen=True, slots=True)
class _Step:
    """Builds the decision and the history that records it."""

    verdict: Verdict
    past: JobHistory
    now: datetime
    root: str
    checkpoint: int | None
    origin: str = ""
    step: int | None = None
    rank: int | None = None

    def _attempt(self, action: Action, budget: Budget) -> Attempt:
        v = self.verdict
        return Attempt(
            self.now, v.cause, self.root, v.suspect_nodes, self.checkpoint, budget, action,
            self.origin, self.step, self.rank,
        )  # fmt: skip

    def stop(self, reason: str) -> JobDecision:
        history = replace(
            self.past, attempts=(*self.past.attempts, self._attempt(Action.STOP, Budget.NONE))
        )
        return JobDecision(Action.STOP, (), 0.0, Budget.NONE, reason, history)

    def requeue(
        self,
        budget: Budget,
        reason: str,
        *,
        delay_s: float = 0.0,
        added: tuple[Exclusion, ...] = (),
        hand_over: tuple[str, ...] = (),
    ) -> JobDecision:
        action = Action.REQUEUE_EXCLUDING if added else Action.REQUEUE
        history = JobHistory(
            attempts=(*self.past.attempts, self._attempt(action, budget)),
            exclusions=(*self.past.exclusions, *added),
        )
        exclude = history.excluded(self.now)
        return JobDecision(action, exclude, delay_s, budget, reason, history, hand_over)


def _stop_reason(
    verdict: Verdict,
    past: JobHistory,
    now: datetime,
    policy: JobPolicy,
    root: str,
    checkpoint: int | None,
) -> str | None:
    """Loops that no retry will end: crash loops, one cause again and again, no progress.

    Proactive migrations are no failures: they count toward none of these."""
    past = JobHistory(tuple(a for a in past.attempts if a.budget is not Budget.PROACTIVE))
    window = timedelta(seconds=policy.crash_loop_window_s)
    recent = [a for a in past.attempts if now - a.at <= window]
    if len(recent) + 1 >= policy.crash_loop_failures:
        return f"crash loop: {len(recent) + 1} failures within {policy.crash_loop_window_s:.0f} s"
    same = sum(1 for a in past.attempts if a.root == root)
    if verdict.cause is not Cause.HARDWARE and same + 1 >= policy.same_cause_ceiling:
        return f"the same cause ({root}) {same + 1} times: stop"
    n = policy.no_progress_restarts
    if n and len(past.attempts) >= n:
        marks = [a.checkpoint for a in past.attempts[-n:]] + [checkpoint]
        if all(m == marks[0] for m in marks):
            return f"no completed checkpoint across {n} restarts: stop"
    return None


def _backoff(past: JobHistory, policy: JobPolicy) -> float:
    """Backoff grows with each transient failure in a row, to the last step of the ladder."""
    streak = 0
    for a in reversed(past.attempts):
        if a.cause is not Cause.TRANSIENT:
            break
        streak += 1
    ladder = policy.transient_backoff_s
    return ladder[min(streak, len(ladder) - 1)]


def _confirm(verdict: Verdict, past: JobHistory, policy: JobPolicy, root: str) -> bool:
    """Weak application evidence earns one confirmation retry, charged to the user."""
    if not policy.confirm_weak_application or verdict.strength >= policy.weak_evidence_below:
        return False
    if past.spent(Budget.USER) >= policy.user_restarts:
        return False
    # An earlier attempt that failed on the same root (as the application, or unexplained and
    # retried) was the confirmation already.
    confirmed = (Cause.APPLICATION, Cause.UNKNOWN)
    return not any(a.root == root and a.cause in confirmed for a in past.attempts)
