"""The ports job recovery watches, acts and remembers through, as Protocols.

`JobSchedulerPort` is what a scheduler adapter (Slurm, Kubernetes, the local one) implements:
the jobs that opted in with their state, their output per node, and the two mutations,
requeue (with the nodes to avoid and a delay) and stop. Mutations carry their provenance and
are idempotent by action id, like the hardware ports: after a crash the controller may ask
again with the same id, and the port must not requeue twice. Errors are the hardware ports'
vocabulary: `TransientError` (try again on a later pass), `PermanentError` (failed).

Verification reads the job back through `watched()`: the controller checks what the
scheduler reports, never the adapter's own claim that it did as asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from autorecover.controllers.jobs.records import (
    Handover,
    JobActionRecord,
    JobChanges,
    JobEvent,
    JobIncident,
    JobSnapshot,
    TimelineMark,
    WatchedJob,
)
from autorecover.controllers.ports import Provenance
from autorecover.controllers.requests import Control, Controls, OperatorRequest
from autorecover.domain.jobs.decisions import JobHistory
from autorecover.domain.signals import NodeSignal


class JobSchedulerPort(Protocol):
    """Watched jobs, their output, and requeue / stop."""

    def watched(self) -> Sequence[WatchedJob]:
        """Every job that opted in to job recovery, with its current attempt's status.

        The opt-in and its overrides come from the job itself (a Slurm `--comment`, a
        Kubernetes annotation, a flag of the local scheduler), parsed by the adapter into
        `JobPolicy` field names."""
        ...

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes of what the attempt wrote on `node`, from byte `offset`.

        b"" when there is nothing (yet) at that offset or no output for that node."""
        ...

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Stop the job if it still runs and start it again, after `delay_s`, on nodes other
        than `exclude` (the full list: the job's exclusions become exactly these plus the
        user's own). Once per action id."""
        ...

    def stop(self, job: str, provenance: Provenance) -> None:
        """Stop the job for good (no automatic requeue). Once per action id."""
        ...


class SignalSource(Protocol):
    """The node agents' signals as hardware recovery recorded them."""

    def signals(
        self, nodes: Sequence[str], since: datetime, until: datetime
    ) -> Sequence[NodeSignal]:
        """Signals about these nodes observed within [since, until], oldest first."""
        ...


class JobStorePort(Protocol):
    """Job recovery's memory: histories, incidents, timelines, actions, hand-overs, events."""

    def load(self) -> JobSnapshot:
        """Everything needed to resume after a restart."""
        ...

    def commit(self, changes: JobChanges) -> None:
        """Record one pass's changes atomically: all of them or none."""
        ...

    def history(self, job: str) -> JobHistory:
        """A job's attempts and exclusions (empty if never seen)."""
        ...

    def incidents(
        self, job: str | None = None, *, newest: int | None = None, open_only: bool = False
    ) -> list[JobIncident]:
        """Recorded incidents, oldest first: of one job or all, only the `newest` so many,
        only the open ones."""
        ...

    def timeline(self, incident: str) -> list[TimelineMark]:
        """An incident's timeline, in order of time."""
        ...

    def actions(self, job: str | None = None) -> list[JobActionRecord]:
        """Recorded actions, oldest first."""
        ...

    def events(self, job: str | None = None) -> list[JobEvent]:
        """Recorded events, oldest first."""
        ...

    def controls(self) -> Controls:
        """The operator's switches in force (acting paused?), read every pass."""
        ...

    def pending_requests(self, kinds: frozenset[Control]) -> list[OperatorRequest]:
        """People's requests about jobs (retry, stop) not yet settled, oldest first."""
        ...


class HandoverOutbox(Protocol):
    """Nodes job recovery named, kept in the store until hardware recovery has them."""

    def pending_handovers(self, limit: int = 100) -> list[Handover]:
        """Hand-overs not yet delivered (dry-run ones never are), oldest first."""
        ...

    def handed_over(self, ids: Sequence[str], at: datetime) -> None:
        """Mark hand-overs delivered."""
        ...

    def handovers(self) -> list[Handover]:
        """Every recorded hand-over, oldest first."""
        ...
