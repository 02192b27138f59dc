"""What the pod informer's events tell beyond the cache: when a job's pod failed, to the
millisecond, and where the pods that are gone ran.

A container's `finishedAt` keeps whole seconds, which would cut job recovery's settle wait for
late lines and signals short and blur the timeline; the watch event arrives within
milliseconds. A pod deleted before any pass saw it bound (evicted by a drain of its node, the
operator recreating it elsewhere) leaves the cache, and its node with it: the attempt did run
there, and that node's log and signals belong in the verdict, so the pod's last state is kept
for a while. Shared by every kind of job (PyTorchJob, JobSet, TrainJob), which all run pods.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.controllers.jobs.records import WatchedJob
from autorecover.controllers.ports import Clock

_WHOLE_SECOND = timedelta(seconds=1.5)  # finishedAt's truncation, and a little slack
DEPARTED_FOR = timedelta(hours=6)  # how long a deleted pod's node is remembered
DEPARTED_MAX = 4096  # ... and at most this many pods (the oldest forgotten first)


@dataclass
class FailureTimes:
    """Pod uid -> when the pod informer saw it turn Failed; the pods deleted lately."""

    clock: Clock
    _seen: dict[str, datetime] = field(default_factory=dict)
    # pod uid -> (its last state, as a dict without its deletion mark; when it went)
    _departed: dict[str, tuple[dict[str, Any], datetime]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # events vs. the pass

    def watch(self, pods: ObjectCache[Any]) -> None:
        """Be told of the pod informer's events."""
        pods.subscribe(self._on_pod)

    def _on_pod(self, kind: str, pod: Any) -> None:
        status, meta = pod.status, pod.metadata
        if kind == "DELETED" and meta is not None and meta.uid:
            self._seen.pop(meta.uid, None)
            self._depart(meta.uid, pod)
        elif status is not None and status.phase == "Failed" and meta is not None and meta.uid:
            self._seen.setdefault(meta.uid, self.clock.now())

    def _depart(self, uid: str, pod: Any) -> None:
        """Keep a deleted pod that ran on a node, for `departed()`."""
        state = pod.to_dict()
        if not (state.get("spec") or {}).get("nodeName") or not _ran(state):
            return  # never bound, or bound and never started: the attempt did not run there
        (state.get("metadata") or {}).pop("deletionTimestamp", None)
        now = self.clock.now()
        with self._lock:
            self._departed[uid] = (state, now)
            while self._departed:  # oldest first: the dict keeps insertion order
                first, (_, at) = next(iter(self._departed.items()))
                if now - at <= DEPARTED_FOR and len(self._departed) <= DEPARTED_MAX:
                    break
                del self._departed[first]

    def departed(self, pods: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
        """The pods deleted lately, and those of `pods` being deleted, that ran on a node,
        with their deletion mark taken off (so a job's selection of its attempt's pods keeps
        them): select the job's own with its usual function."""
        with self._lock:
            gone = dict(self._departed)
        leaving = []
        for pod in pods:
            meta = pod.get("metadata") or {}
            ran = bool((pod.get("spec") or {}).get("nodeName")) and _ran(pod)
            if meta.get("deletionTimestamp") and ran and meta.get("uid") not in gone:
                unmarked = {k: v for k, v in meta.items() if k != "deletionTimestamp"}
                leaving.append({**pod, "metadata": unmarked})
        return [*(state for state, _ in gone.values()), *leaving]

    def placed(self, watched: WatchedJob, gone: Sequence[Mapping[str, Any]]) -> WatchedJob:
        """`watched` with the nodes of `gone` (the attempt's deleted pods) among its nodes."""
        nodes = {node for pod in gone if (node := (pod.get("spec") or {}).get("nodeName"))}
        status = watched.status
        if nodes <= set(status.nodes):
            return watched
        everywhere = tuple(sorted({*status.nodes, *nodes}))
        return replace(watched, status=replace(status, nodes=everywhere))

    def precise(self, watched: WatchedJob, pods: Sequence[Mapping[str, Any]]) -> WatchedJob:
        """`watched` with its end at the first failure seen among `pods` (the attempt's),
        when that is within the status's whole second; else as it was."""
        status = watched.status
        if status.ended is None:
            return watched
        seen = [self._seen[uid] for pod in pods
                if (uid := (pod.get("metadata") or {}).get("uid")) in self._seen]  # fmt: skip
        if not seen:
            return watched
        first = min(seen)
        if not timedelta(0) <= first - status.ended < _WHOLE_SECOND:
            return watched  # seen long after (an engine restart): the status's time stands
        return replace(watched, status=replace(status, ended=first))


def _ran(pod: Mapping[str, Any]) -> bool:
    """Whether a container of the pod started (it is running or has ended)."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return any((c.get("state") or {}).get("running") or (c.get("state") or {}).get("terminated")
               or (c.get("lastState") or {}).get("terminated") for c in statuses)  # fmt: skip
