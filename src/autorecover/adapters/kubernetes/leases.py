"""Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leader election does it.

`KubeLease.acquire(holder, now, ttl_s)` takes the Lease when nobody holds it, when its holder
stopped renewing (`renewTime + leaseDurationSeconds` is past), or renews it when it is ours;
every write carries the Lease's resource version, so two replicas racing for it cannot both
win (the loser gets 409 and reads who won). `leaseTransitions` counts changes of holder and
serves as the term. `release(holder)` clears the holder, so a standby takes over at once.

The engine's store still fences every commit (server/leadership.py): the Lease decides who
should lead; the store's own lease, taken only by the Lease's holder, makes sure a replica
that lost the Lease but does not know it yet records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from lightkube.core.exceptions import ApiError
from lightkube.models.coordination_v1 import LeaseSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.coordination_v1 import Lease

from autorecover.adapters.kubernetes.client import KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.names import valid_namespace, valid_object_name


@dataclass(frozen=True, slots=True)
class LeaseView:
    """Who holds the Lease, until when, and how often it changed hands."""

    holder: str | None
    expires_at: datetime | None
    transitions: int


class KubeLease:
    """One named Lease in one namespace."""

    def __init__(self, session: KubeSession, namespace: str, name: str) -> None:
        self.session = session
        self.namespace = valid_namespace(namespace)
        self.name = valid_object_name(name)

    def acquire(self, holder: str, now: datetime, ttl_s: float) -> LeaseView:
        """Take or renew the Lease if it is free, expired or ours; the Lease as it stands."""
        return self.session.call(self._acquire(holder, now, ttl_s))

    def release(self, holder: str) -> None:
        """Clear the holder if it is us."""
        self.session.call(self._release(holder))

    def view(self) -> LeaseView | None:
        """The Lease as the API has it, or None when there is none."""

        async def get() -> LeaseView | None:
            lease = await self._get()
            return None if lease is None else _view(lease)

        return self.session.call(get())

    async def _get(self) -> Lease | None:
        try:
            return await self.session.client.get(Lease, self.name, namespace=self.namespace)
        except ApiError as exc:
            if api_code(exc) == 404:
                return None
            raise mapped(exc, f"get Lease {self.namespace}/{self.name}") from exc
        except Exception as exc:
            raise mapped(exc, f"get Lease {self.namespace}/{self.name}") from exc

    async def _acquire(self, holder: str, now: datetime, ttl_s: float) -> LeaseView:
        lease = await self._get()
        seconds = max(1, round(ttl_s))
        if lease is None:
            fresh = Lease(
                metadata=ObjectMeta(name=self.name, namespace=self.namespace),
                spec=LeaseSpec(holderIdentity=holder, leaseDurationSeconds=seconds,
                               acquireTime=now, renewTime=now, leaseTransitions=0),
            )  # fmt: skip
            try:
                return _view(await self.session.client.create(fresh))
            except ApiError as exc:
                if api_code(exc) == 409:  # another replica created it first
                    got = await self._get()
                    return _view(got) if got is not None else LeaseView(None, None, 0)
                raise mapped(exc, f"create Lease {self.namespace}/{self.name}") from exc
        spec = lease.spec or LeaseSpec()
        current = _view(lease)
        ours = spec.holderIdentity == holder
        free = not spec.holderIdentity or current.expires_at is None or current.expires_at <= now
        if not (ours or free):
            return current
        transitions = (spec.leaseTransitions or 0) + (0 if ours else 1)
        lease.spec = LeaseSpec(
            holderIdentity=holder, leaseDurationSeconds=seconds,
            acquireTime=spec.acquireTime if ours else now, renewTime=now,
            leaseTransitions=transitions,
        )  # fmt: skip
        try:
            return _view(await self.session.client.replace(lease))
        except ApiError as exc:
            if api_code(exc) == 409:  # someone renewed or took it meanwhile
                got = await self._get()
                return _view(got) if got is not None else LeaseView(None, None, 0)
            raise mapped(exc, f"update Lease {self.namespace}/{self.name}") from exc

    async def _release(self, holder: str) -> None:
        lease = await self._get()
        if lease is None or lease.spec is None or lease.spec.holderIdentity != holder:
            return
        lease.spec.holderIdentity = None
        lease.spec.renewTime = None
        try:
            await self.session.client.replace(lease)
        except ApiError as exc:
            if api_code(exc) != 409:  # 409: it changed hands meanwhile; nothing of ours left
                raise mapped(exc, f"release Lease {self.namespace}/{self.name}") from exc


def _view(lease: Lease) -> LeaseView:
    spec = lease.spec or LeaseSpec()
    expires = None
    if spec.holderIdentity and spec.renewTime is not None:
        renewed = spec.renewTime
        if renewed.tzinfo is None:
            renewed = renewed.replace(tzinfo=UTC)
        expires = renewed + timedelta(seconds=spec.leaseDurationSeconds or 0)
    return LeaseView(spec.holderIdentity, expires, spec.leaseTransitions or 0)
