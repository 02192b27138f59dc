"""Which replica acts: leader election on a lease, with a port for other kinds of lease.

Every replica serves reads and takes signals in; only the leader runs controller passes.
`DbLeadership` keeps the lease in the store's `leases` table, renewed every `renew_s`, and
stops calling itself leader `margin_s` before the lease runs out, so a renewal that fails
(a slow database, a paused process) ends its passes before a standby can take over. The
store checks the fence again inside every pass's transaction, so even a replica that missed
all of that records nothing, and so executes nothing, once its lease has gone.

In a Kubernetes cluster, `ClusterLeaseLeadership` elects the leader on a
`coordination.k8s.io/Lease` (what `kubectl get lease` and every operator's tooling show)
and keeps the store's fencing: only the Lease's holder takes the store's lease, so commits
are still checked against the store, the source of truth. A replica that lost the Lease
stops at once; the next holder's store lease waits at most one TTL for the old one to end.
The port such a lease implements, `ExternalLease`, is in `adapters.schedulers`: a scheduler's
stack hands out its leases.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from autorecover.adapters.schedulers import ExternalLease
from autorecover.adapters.store.base import EngineStore, Fence
from autorecover.controllers.ports import Clock

log = logging.getLogger(__name__)

LEASE_NAME = "autorecover-engine"


class Leadership(Protocol):
    """Leader election as the runner sees it."""

    holder: str  # this replica's name

    def renew(self) -> None:
        """Take or renew the lease (called every `next_renew_s()`)."""
        ...

    def next_renew_s(self) -> float:
        """How long until the next `renew` is worth making: `renew_s` while leading or while
        nobody's expiry is known; a standby tries again just after the lease it saw runs out,
        so a dead leader is replaced one TTL after its last renewal, not up to `renew_s` later."""
        ...

    def fence(self) -> Fence | None:
        """This replica's fence while it leads; None while it stands by."""
        ...

    def leader(self) -> str | None:
        """Who leads, as last seen (None: nobody, or not known yet)."""
        ...

    def release(self) -> None:
        """Give the lease up (on shutdown), so a standby takes over at once."""
        ...


def replica_name() -> str:
    """A name for this replica: host, process and a random part (restarts get new names)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True, slots=True)
class _Held:
    fence: Fence
    until: datetime  # stop acting here: the lease's expiry less the margin


class DbLeadership:
    """A lease row in the engine's store."""

    def __init__(
        self,
        store: EngineStore,
        clock: Clock,
        holder: str | None = None,
        *,
        name: str = LEASE_NAME,
        ttl_s: float = 15.0,
        margin_s: float | None = None,
    ) -> None:
        self._store, self._clock, self.name = store, clock, name
        self.holder = holder or replica_name()
        self.ttl_s = ttl_s
        self.renew_s = ttl_s / 3  # two renewals may fail before the lease is at risk
        self.margin = timedelta(seconds=ttl_s / 5 if margin_s is None else margin_s)
        self._held: _Held | None = None
        self._leader: str | None = None
        self._others_until: datetime | None = None  # another holder's expiry, as last seen

    def renew(self) -> None:
        """Take or renew the lease; a store error leaves the old lease to run out by itself."""
        now = self._clock.now()
        try:
            lease = self._store.acquire(self.name, self.holder, now, self.ttl_s)
        except Exception:  # a supervisor: log, and let the margin end our passes in time
            log.exception("renewing the lease %s failed", self.name)
            return
        was = self._held
        self._others_until = None if lease.holder == self.holder else lease.expires_at
        if lease.holder == self.holder:
            fence = Fence(self.name, self.holder, lease.term)
            self._held = _Held(fence, lease.expires_at - self.margin)
            if was is None or was.fence != fence:
                log.info("%s leads (term %d)", self.holder, lease.term)
        else:
            self._held = None
            if was is not None:
                log.warning("%s lost the lease to %s", self.holder, lease.holder)
        self._leader = lease.holder

    def next_renew_s(self) -> float:
        """`renew_s`, or sooner: just after another holder's lease runs out."""
        return _until_expiry(self._others_until, self._clock.now(), self.renew_s)

    def fence(self) -> Fence | None:
        """Our fence while the lease holds (with the margin)."""
        held = self._held
        if held is None or self._clock.now() >= held.until:
            return None
        return held.fence

    def leader(self) -> str | None:
        """Who leads, as last seen."""
        return self.holder if self.fence() is not None else self._leader

    def release(self) -> None:
        """Give the lease up if we hold it."""
        if self._held is None:
            return
        self._held = None
        try:
            self._store.release(self.name, self.holder)
        except Exception:  # shutting down: the lease runs out by itself
            log.exception("releasing the lease %s failed", self.name)


class ClusterLeaseLeadership:
    """Leader election on an external lease, fenced by the store's lease underneath."""

    def __init__(self, lease: ExternalLease, db: DbLeadership, clock: Clock) -> None:
        self._lease, self._db, self._clock = lease, db, clock
        self.holder = db.holder
        self.ttl_s, self.renew_s = db.ttl_s, db.renew_s
        self._until: datetime | None = None  # stop acting here (the Lease's expiry less margin)
        self._leader: str | None = None
        self._others_until: datetime | None = None  # another holder's expiry, as last seen

    def renew(self) -> None:
        """Renew the external lease; while it is ours, take or renew the store's too."""
        now = self._clock.now()
        try:
            seen = self._lease.acquire(self.holder, now, self.ttl_s)
        except Exception:  # a supervisor: log, and let the margin end our passes in time
            log.exception("renewing the cluster lease failed")
            return
        self._leader = seen.holder
        theirs = seen.holder is not None and seen.holder != self.holder
        self._others_until = seen.expires_at if theirs else None
        if seen.holder == self.holder and seen.expires_at is not None:
            self._until = seen.expires_at - self._db.margin
            self._db.renew()
        else:
            if self._until is not None:
                log.warning("%s lost the cluster lease to %s", self.holder, seen.holder)
            self._until = None
            self._db.release()

    def next_renew_s(self) -> float:
        """`renew_s`, or sooner: just after another holder's Lease runs out."""
        return _until_expiry(self._others_until, self._clock.now(), self.renew_s)

    def fence(self) -> Fence | None:
        """The store's fence while both leases are ours."""
        if self._until is None or self._clock.now() >= self._until:
            return None
        return self._db.fence()

    def leader(self) -> str | None:
        """Who holds the external lease, as last seen."""
        return self._leader

    def release(self) -> None:
        """Give both leases up."""
        self._db.release()
        if self._until is None:
            return
        self._until = None
        try:
            self._lease.release(self.holder)
        except Exception:  # shutting down: the lease runs out by itself
            log.exception("releasing the cluster lease failed")


TAKEOVER_SLACK_S = 0.05  # try this long after the seen expiry (the store compares exactly)
MIN_RENEW_S = 0.05


def _until_expiry(until: datetime | None, now: datetime, renew_s: float) -> float:
    """Seconds to wait before the next try: just past `until` when that is sooner than
    `renew_s` (never less than `MIN_RENEW_S`: no busy loop on a lease already past)."""
    if until is None:
        return renew_s
    wait = (until - now).total_seconds() + TAKEOVER_SLACK_S
    return max(MIN_RENEW_S, min(renew_s, wait))
