"""Watch-backed caches of one kind of object (nodes, pods, PyTorchJobs): list once, then watch.

An `Informer` lists its objects, remembers the list's resource version, and watches from
there; each event updates the cache and the last resource version seen. When the watch
breaks (the API server restarted, the connection dropped) it resumes from that version
after a backoff (0.2 s doubling to 10 s), so nothing is missed and nothing is re-read; when
the server answers `410 Gone` (that version has been compacted away) it lists again and
replaces the cache. It never polls: between events it waits on the open watch.

Readers (the ports, on other threads) take snapshots under a lock: `items()`, `get()`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import httpx2 as httpx
from lightkube.core.exceptions import ApiError
from lightkube.core.resource import NamespacedResource

from autorecover.adapters.kubernetes.client import KubeSession, api_code
from autorecover.controllers.ports import TransientError

log = logging.getLogger(__name__)
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
Key = tuple[str, str]  # (namespace or "", name)
BACKOFF_S = (0.2, 10.0)


@dataclass(slots=True)
class InformerStats:
    """What an informer has been through; tests and metrics read it."""

    lists: int = 0
    events: int = 0
    resumes: int = 0  # watch restarted from the last resource version
    gone: int = 0  # 410 Gone: listed again


def key_of(obj: Any) -> Key:
    """(namespace, name) of a lightkube object."""
    meta = obj.metadata
    return (meta.namespace or "", meta.name or "")


class Informer(Generic[R]):
    """A cache of one kind kept current by list + watch on the session's loop."""

    def __init__(
        self,
        session: KubeSession,
        resource: type[R],
        *,
        namespace: str | None = None,
        labels: dict[str, Any] | None = None,
        fields: dict[str, Any] | None = None,
        name: str = "",
    ) -> None:
        self.session = session
        self.resource = resource
        # A namespaced kind is listed across namespaces ("*") unless one is given.
        namespaced = issubclass(resource, NamespacedResource)
        self.namespace = (namespace or "*") if namespaced else None
        self.labels = labels
        self.fields = fields
        self.name = name or resource.__name__
        self._listeners: list[Callable[[str, R], None]] = []
        self.stats = InformerStats()
        self.resource_version: str | None = None
        self._items: dict[Key, R] = {}
        self._dicts: dict[Key, tuple[R, dict[str, Any]]] = {}  # `dicts()`: object, its dict
        self._lock = threading.Lock()
        self._synced = threading.Event()

    # --- readers (any thread) ----------------------------------------------------------------

    def items(self) -> list[R]:
        """Every cached object, as of the last event."""
        with self._lock:
            return list(self._items.values())

    def dicts(self) -> list[dict[str, Any]]:
        """Every cached object as a dict, converted once per version of it (an event
        replaces the object): a job recovery pass reads every pod each tick, and converting
        1,250 pods each time took half a core. The dicts are shared: read them, never change
        them."""
        with self._lock:
            items = list(self._items.items())
        fresh: dict[Key, tuple[R, dict[str, Any]]] = {}
        for key, obj in items:
            known = self._dicts.get(key)
            if known is None or known[0] is not obj:
                known = (obj, obj.to_dict())  # type: ignore[attr-defined]
            fresh[key] = known
        self._dicts = fresh  # what was deleted is forgotten
        return [raw for _, raw in fresh.values()]

    def get(self, namespace: str, name: str) -> R | None:
        """One cached object, or None."""
        with self._lock:
            return self._items.get((namespace, name))

    def subscribe(self, listener: Callable[[str, R], None]) -> None:
        """Call `listener(kind, obj)` on every watch event, on the session's loop (keep it
        short): for the moment something happened, which a pass only sees a tick later."""
        self._listeners.append(listener)

    def wait_synced(self, timeout_s: float = 30.0) -> None:
        """Block until the first list arrived; `TransientError` if it did not in time."""
        if not self._synced.wait(timeout_s):
            raise TransientError(f"{self.name} cache not synced after {timeout_s} s")

    def start(self) -> None:
        """Start listing and watching on the session's loop."""
        self.session.spawn(self._run)

    # --- the loop (the session's thread) ------------------------------------------------------

    async def _run(self) -> None:
        delay = BACKOFF_S[0]
        while True:
            try:
                if self.resource_version is None:
                    await self._list()
                await self._watch()
                delay = BACKOFF_S[0]
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                if api_code(exc) == 410:
                    self.stats.gone += 1
                    log.info("%s watch: resource version %s gone; listing again", self.name,
                             self.resource_version)  # fmt: skip
                    self.resource_version = None
                    continue
                log.warning("%s watch: %s; again in %.1f s", self.name, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_S[1])
            except (httpx.HTTPError, OSError, ValueError) as exc:
                # The API server went away (restart, network): resume from where we were.
                self.stats.resumes += 1
                level = logging.WARNING if isinstance(exc, ValueError) else logging.INFO
                log.log(level, "%s watch interrupted (%s); resuming from %s in %.1f s",
                        self.name, type(exc).__name__, self.resource_version, delay)  # fmt: skip
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_S[1])

    async def _list(self) -> None:
        listing = self.session.client.list(
            self.resource,  # type: ignore[type-var]
            namespace=self.namespace, labels=self.labels, fields=self.fields,
        )  # fmt: skip
        fresh: dict[Key, R] = {}
        async for obj in listing:
            fresh[key_of(obj)] = obj
        version = str(listing.resourceVersion)  # set by the first page, even an empty one
        with self._lock:
            self._items = fresh
        self.resource_version = version
        self.stats.lists += 1
        self._synced.set()

    async def _watch(self) -> None:
        stream = self.session.client.watch(
            self.resource,  # type: ignore[type-var]
            namespace=self.namespace, labels=self.labels, fields=self.fields,
            resource_version=self.resource_version,
        )  # fmt: skip
        async for kind, obj in stream:
            self.stats.events += 1
            key = key_of(obj)
            with self._lock:
                if kind == "DELETED":
                    self._items.pop(key, None)
                else:
                    self._items[key] = obj
                version = obj.metadata.resourceVersion  # type: ignore[attr-defined]
            if version:
                self.resource_version = version
            for listener in self._listeners:
                listener(kind, obj)


class ObjectCache(Protocol[R_co]):
    """What the ports read: one informer, or several over namespaces."""

    def items(self) -> Sequence[R_co]:
        """Every cached object."""
        ...

    def dicts(self) -> Sequence[dict[str, Any]]:
        """Every cached object as a dict (shared: read-only)."""
        ...

    def wait_synced(self, timeout_s: float = 30.0) -> None:
        """Block until the first list arrived."""
        ...

    def subscribe(self, listener: Callable[[str, Any], None]) -> None:
        """Be told of every watch event."""
        ...


class Informers(Generic[R]):
    """Several informers of one kind (one per watched namespace) read as one cache."""

    def __init__(self, informers: list[Informer[R]]) -> None:
        self.informers = informers

    def items(self) -> list[R]:
        """Every object of every informer."""
        return [obj for informer in self.informers for obj in informer.items()]

    def dicts(self) -> list[dict[str, Any]]:
        """Every object of every informer, as a dict (see `Informer.dicts`)."""
        return [raw for informer in self.informers for raw in informer.dicts()]

    def get(self, namespace: str, name: str) -> R | None:
        """One object, from whichever informer has it."""
        for informer in self.informers:
            found = informer.get(namespace, name)
            if found is not None:
                return found
        return None

    def wait_synced(self, timeout_s: float = 30.0) -> None:
        """Block until every informer has listed."""
        for informer in self.informers:
            informer.wait_synced(timeout_s)

    def subscribe(self, listener: Callable[[str, R], None]) -> None:
        """Be told of every watch event of every informer."""
        for informer in self.informers:
            informer.subscribe(listener)

    def start(self) -> None:
        """Start them all."""
        for informer in self.informers:
            informer.start()
