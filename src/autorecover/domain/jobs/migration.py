"""Checkpoint-aware proactive migration: leave a node that warns, right after a checkpoint.

A health warning is a node signal blamed on hardware whose catalog action is `monitor` (a
trend or RMA-watch signal: clocks held down, a PCIe link trained slow, DCGM's health warning,
rising link error rates): hardware recovery marks such a node suspect — no new jobs — and
leaves running jobs alone, so a job already on it would otherwise run on until it crashes
there. With `migrate_on_warning`, job recovery instead requeues the job without that node as
soon as the job completes a checkpoint after the warning, so the move loses (almost) no work.

`decide_migration` is the whole policy, pure: the warning, the job's last completed checkpoint,
its history, the fleet's recent migrations and `now` in; wait, migrate, let it run on (no
checkpoint within the deadline) or refuse (budget spent) out. The controller
(`controllers/jobs/migrating.py`) records and acts on it; the simulator can call it as is.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from autorecover.domain.jobs.cliques import Widened
from autorecover.domain.jobs.decisions import Attempt, Budget, Exclusion, JobHistory
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Action, Blame, Cause, NodeAction
from autorecover.domain.signals import NodeSignal, Probe


@dataclass(frozen=True, slots=True)
class HealthWarning:
    """A node of the job warned: not a fault yet, but a reason to leave at the next chance."""

    node: str
    signal: str  # the signal's key, e.g. "nvml.thermal_slowdown"
    at: datetime  # when it was observed
    weight: int
    text: str = ""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The job's last completed checkpoint: its iteration and when it completed."""

    iteration: int
    at: datetime


class MigrationStep(StrEnum):
    """What `decide_migration` says (persisted in outcomes' wording only: never rename)."""

    OFF = "off"  # the job's policy does not ask for proactive migration
    WAIT = "wait"  # no checkpoint since the warning yet (or the fleet's limit is reached)
    MIGRATE = "migrate"  # a checkpoint completed after the warning: requeue without the node
    EXPIRED = "expired"  # no checkpoint within the deadline: the job runs on, as without it
    REFUSED = "refused"  # the job's migration budget is spent: the job runs on


@dataclass(frozen=True, slots=True)
class MigrationDecision:
    """One decision about one warning, with its reason; `history` is the job's new history
    when the step is `migrate` (the attempt charged to the proactive budget, the exclusion)."""

    step: MigrationStep
    reason: str
    exclude: tuple[str, ...] = ()
    history: JobHistory | None = None


def health_warnings(
    signals: Iterable[NodeSignal], nodes: Collection[str], min_weight: int
) -> tuple[HealthWarning, ...]:
    """The first warning per node among `nodes`, oldest first.

    Job recovery's own attributions (`probe=job`) are no warning: they follow a failure."""
    first: dict[str, HealthWarning] = {}
    for s in signals:
        if (
            s.node in nodes
            and s.probe is not Probe.JOB
            and s.blame is Blame.HARDWARE
            and s.node_action is NodeAction.MONITOR
            and s.weight >= min_weight
            and (s.node not in first or s.at < first[s.node].at)
        ):
            first[s.node] = HealthWarning(s.node, s.signal, s.at, s.weight, s.text)
    return tuple(sorted(first.values(), key=lambda w: (w.at, w.node)))


def fleet_migrations(histories: Mapping[str, JobHistory], now: datetime, window_s: float) -> int:
    """Proactive migrations across all jobs within the last `window_s` (from the histories the
    store keeps, so a restarted engine counts the same)."""
    since = now - timedelta(seconds=window_s)
    return sum(
        1
        for h in histories.values()
        for a in h.attempts
        if a.budget is Budget.PROACTIVE and a.at > since
    )


def decide_migration(
    warning: HealthWarning,
    checkpoint: Checkpoint | None,
    history: JobHistory,
    now: datetime,
    policy: JobPolicy,
    *,
    incident: str,
    fleet_recent: int = 0,
    fleet_limit: int | None = None,
    widened: Widened | None = None,
) -> MigrationDecision:
    """Wait for the job's next completed checkpoint after `warning`, then move it off the node.

    A checkpoint counts when it completed after the warning and within
    `migration_deadline_s` of it; past the deadline with none, the job runs on (what it does
    without this feature: a suspect node's running jobs are left alone, and a crash there is
    recovered as any failure). `migration_budget` proactive requeues per job;
    `fleet_limit` within the site's window for all jobs together (reached: wait, up to the
    deadline). `widened` (a job placed by whole NVLink cliques: `cliques.widen_to_cliques`)
    says which nodes the job avoids for the warned one; without it, that node alone."""
    node, key = warning.node, warning.signal
    if not policy.migrate_on_warning:
        return MigrationDecision(MigrationStep.OFF, "proactive migration is off for the job")
    spent = history.spent(Budget.PROACTIVE)
    if spent >= policy.migration_budget:
        return MigrationDecision(
            MigrationStep.REFUSED,
            f"warning {key} on node {node}: the job's proactive migration budget "
            f"({policy.migration_budget}) is spent; it runs on",
        )
    deadline = warning.at + timedelta(seconds=policy.migration_deadline_s)
    if checkpoint is not None and warning.at < checkpoint.at <= deadline:
        if fleet_limit is not None and fleet_recent >= fleet_limit:
            if now >= deadline:
                return _expired(warning, "the fleet's migration limit was reached until then")
            return MigrationDecision(
                MigrationStep.WAIT,
                f"fleet limit: {fleet_recent} proactive migrations in the window "
                f"(limit {fleet_limit}); waiting",
            )
        until = now + timedelta(seconds=policy.exclusion_ttl_s)
        attempt = Attempt(
            now, Cause.HARDWARE, key, (node,), checkpoint.iteration, Budget.PROACTIVE,
            Action.REQUEUE_EXCLUDING,
        )  # fmt: skip
        live = tuple(e for e in history.exclusions if e.until > now)
        avoid = widened.exclude.get(node, (node,)) if widened is not None else (node,)
        added = tuple(Exclusion(n, until, incident) for n in avoid)
        new = JobHistory((*history.attempts, attempt), (*live, *added))
        reason = (
            f"proactive migration after checkpoint {checkpoint.iteration}, warning {key} on "
            f"node {node}: requeue without {node} "
            f"({spent + 1} of {policy.migration_budget})"
        )
        if widened is not None and widened.notes:
            reason += " (" + "; ".join(widened.notes) + ")"
        return MigrationDecision(MigrationStep.MIGRATE, reason, new.excluded(now), new)
    if now >= deadline:
        return _expired(warning, "no checkpoint completed")
    return MigrationDecision(
        MigrationStep.WAIT, f"warning {key} on node {node}: waiting for a completed checkpoint"
    )


def _expired(warning: HealthWarning, why: str) -> MigrationDecision:
    return MigrationDecision(
        MigrationStep.EXPIRED,
        f"warning {warning.signal} on node {warning.node}: {why} within the deadline; the job "
        f"runs on (a crash there is recovered as any failure)",
    )
