"""Proactive migration in the job controller: record the wait, then the requeue, with reasons.

For a running job whose policy has `migrate_on_warning`, each pass looks for a health warning
on its nodes (`domain.jobs.migration.health_warnings`, from the signals hardware recovery
recorded) and opens one `migration` incident per attempt, `observed` while it waits for a
checkpoint. `decide_migration` (pure) then says, pass after pass, to wait, to requeue without
the node (the incident moves to `acting` with its decision; the requeue is recorded before it
is executed, verified and followed like any other), or to let the job run on (closed, with
why). Everything it needs is in the store or re-read from it: the incident (with the warning as
its verdict's evidence), the history (the proactive budget, the fleet's count), the job's
output (its checkpoints) and the signals — so a restarted engine decides the same. A failure
first closes the waiting incident and is recovered as any (`following.follow`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.controllers.jobs.incidents import action_id, incident_id
from autorecover.controllers.jobs.ledger import Ledger
from autorecover.controllers.jobs.records import (
    Decided,
    IncidentKind,
    IncidentPhase,
    JobAction,
    JobActionKind,
    JobChanges,
    JobEvent,
    JobIncident,
    JobPhase,
    Stage,
    TimelineMark,
    WatchedJob,
)
from autorecover.controllers.jobs.timelines import lost_work
from autorecover.controllers.jobs.watching import AttemptWatch
from autorecover.domain.failure_domains import NO_TOPOLOGY, Topology
from autorecover.domain.jobs.cliques import widen_to_cliques
from autorecover.domain.jobs.decisions import Budget
from autorecover.domain.jobs.migration import (
    HealthWarning,
    MigrationStep,
    decide_migration,
    fleet_migrations,
    health_warnings,
)
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.records import Action, Cause, Evidence, Source, Verdict
from autorecover.domain.signals import NodeSignal

# The signals about some nodes within [since, until]; None when they could not be read.
ReadSignals = Callable[[Sequence[str], datetime, datetime], Sequence[NodeSignal] | None]


@dataclass(frozen=True, slots=True)
class Migrating:
    """What one pass decides migrations with."""

    by: str
    policy: JobPolicy  # the job's own
    site: JobPolicy  # the site's: the fleet's limit and window
    now: datetime
    dry_run: bool
    topology: Topology = NO_TOPOLOGY  # for jobs placed by whole NVLink cliques


class Migrations:
    """Warnings the controller has found, by incident (a cache the signals can rebuild)."""

    def __init__(self, read: ReadSignals) -> None:
        self._read = read
        self._warnings: dict[str, HealthWarning] = {}
        self._noted: set[str] = set()  # keyed events recorded by this controller already

    def consider(
        self,
        ledger: Ledger,
        w: WatchedJob,
        watch: AttemptWatch,
        m: Migrating,
        changes: JobChanges,
    ) -> int:
        """Open, advance or close the attempt's migration; 1 when an incident was opened."""
        s = w.status
        if not m.policy.migrate_on_warning or s.phase is not JobPhase.RUNNING or not s.nodes:
            return 0
        mine = [
            i for i in ledger.of_job(s.job)
            if i.kind is IncidentKind.MIGRATION and i.attempt == s.attempt
        ]  # fmt: skip
        if not mine and self._warnings:  # closed elsewhere (failure first, superseded, gone)
            self._warnings = {k: v for k, v in self._warnings.items() if k in ledger.incidents}
        opened = 0
        if mine:
            incident = mine[0]
            if incident.phase is not IncidentPhase.OBSERVED:
                return 0  # decided: following.follow has it now
            warning = self._warning_of(incident, w)
        elif ledger.episodes.get((s.job, s.attempt, IncidentKind.MIGRATION)):
            return 0  # this attempt's warning was dealt with already
        else:
            found = self._first_warning(w, m)
            if found is None:
                return 0
            warning, incident = found, _open(w, found, m)
            ledger.episodes[(s.job, s.attempt, IncidentKind.MIGRATION)] = 1
            ledger.put(incident, changes)
            self._warnings[incident.id] = warning
            detail = f"warning {warning.signal} on {warning.node} at {warning.at.isoformat()}"
            ledger.mark(incident.id, Stage.DETECTED, m.now, changes, detail)
            opened = 1
        self._advance(ledger, w, watch, incident, warning, m, changes)
        return opened

    # --- internals -------------------------------------------------------------------------

    def _first_warning(self, w: WatchedJob, m: Migrating) -> HealthWarning | None:
        s = w.status
        signals = self._read(s.nodes, s.started or m.now, m.now)
        if not signals:
            return None
        found = health_warnings(signals, s.nodes, m.policy.migration_min_weight)
        return found[0] if found else None

    def _warning_of(self, incident: JobIncident, w: WatchedJob) -> HealthWarning:
        """The incident's warning: remembered, else found again among the node's signals
        (after a restart), else rebuilt from its evidence with the incident's opening time."""
        known = self._warnings.get(incident.id)
        if known is not None:
            return known
        evidence = incident.verdict.evidence[0] if incident.verdict else None
        node = evidence.node if evidence else incident.nodes[0]
        key = evidence.signal if evidence else ""
        text = evidence.text if evidence else ""
        warning = HealthWarning(node, key, incident.opened_at, 0, text)
        since = w.status.started or incident.opened_at
        for s in self._read((node,), since, incident.opened_at) or ():
            if s.node == node and s.signal == key and s.at < warning.at:
                warning = HealthWarning(node, key, s.at, s.weight, s.text)
        self._warnings[incident.id] = warning
        return warning

    def _advance(
        self,
        ledger: Ledger,
        w: WatchedJob,
        watch: AttemptWatch,
        incident: JobIncident,
        warning: HealthWarning,
        m: Migrating,
        changes: JobChanges,
    ) -> None:
        s, now = w.status, m.now
        history = ledger.history(s.job)
        fleet = fleet_migrations(ledger.histories, now, m.site.migration_fleet_window_s)
        widened = None
        if m.policy.whole_cliques:
            avoided = history.excluded(now)
            widened = widen_to_cliques((warning.node,), m.topology, s.nodes, avoided)
        d = decide_migration(
            warning, watch.completed, history, now, m.policy, incident=incident.id,
            fleet_recent=fleet, fleet_limit=m.site.migration_fleet_limit, widened=widened,
        )  # fmt: skip
        if d.step is MigrationStep.WAIT:
            if d.reason.startswith("fleet limit"):
                key = f"{incident.id}/fleet-limit"
                if key not in self._noted:
                    self._noted.add(key)
                    changes.events.append(JobEvent(s.job, now, m.by, d.reason, key))
            return
        if d.step is not MigrationStep.MIGRATE or d.history is None:
            self._warnings.pop(incident.id, None)
            ledger.close(incident, f"{d.step}: {d.reason}", now, changes)
            return
        kind = JobActionKind.REQUEUE_EXCLUDING
        evidence = (f"{warning.node} {warning.signal} at {warning.at.isoformat()}: {warning.text}",)
        action = JobAction(
            action_id(incident.id, kind), s.job, kind, now, m.by, d.reason, evidence,
            incident.id, d.exclude, 0.0, s.attempt,
        )  # fmt: skip
        ledger.histories[s.job] = changes.histories[s.job] = d.history
        ledger.mark(incident.id, Stage.DECIDED, now, changes)
        completed = watch.completed
        lost = lost_work(watch.last_step, completed.iteration if completed else None,
                         watch.step_time_s)  # fmt: skip
        if lost is not None:
            ledger.marks((TimelineMark(incident.id, Stage.LOST_WORK, now, *lost),), changes)
        decided = Decided(Action.REQUEUE_EXCLUDING, d.exclude, 0.0, Budget.PROACTIVE, d.reason)
        self._warnings.pop(incident.id, None)
        if m.dry_run:  # the job runs on: its attempt is not handled, a failure is recorded
            ledger.put(
                replace(incident, phase=IncidentPhase.CLOSED, decided=decided, closed_at=now,
                        outcome=f"dry-run: would {kind}: {d.reason}"),
                changes,
            )  # fmt: skip
            ledger.record(action, True, changes)
            return
        ledger.handled.add((s.job, s.attempt))  # its end is this requeue's, not a failure
        ledger.put(replace(incident, phase=IncidentPhase.ACTING, decided=decided), changes)
        ledger.record(action, False, changes)


def _open(w: WatchedJob, warning: HealthWarning, m: Migrating) -> JobIncident:
    """The migration incident of the attempt, waiting for a checkpoint."""
    s = w.status
    iid = incident_id(s.job, s.attempt, IncidentKind.MIGRATION)
    line = Evidence(warning.node, Source.SYSTEM, 0, warning.signal, warning.text or warning.signal)
    summary = (
        f"health warning {warning.signal} on node {warning.node}: requeue without it after the "
        f"next completed checkpoint (within {m.policy.migration_deadline_s:.0f} s)"
    )
    verdict = Verdict(
        Cause.HARDWARE, (warning.node,), Action.REQUEUE_EXCLUDING, (line,), summary, warning.weight
    )
    return JobIncident(
        iid, s.job, s.attempt, IncidentKind.MIGRATION, m.now, IncidentPhase.OBSERVED, s.nodes,
        summary, verdict, None, m.dry_run,
    )  # fmt: skip
