"""When a job's pod failed, to the millisecond: the moment the pod informer saw it turn Failed.

A container's `finishedAt` keeps whole seconds, which would cut job recovery's settle wait for
late lines and signals short and blur the timeline; the watch event arrives within
milliseconds. Shared by every kind of job (PyTorchJob, JobSet), which all run pods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.controllers.jobs.records import WatchedJob
from autorecover.controllers.ports import Clock

_WHOLE_SECOND = timedelta(seconds=1.5)  # finishedAt's truncation, and a little slack


@dataclass
class FailureTimes:
    """Pod uid -> when the pod informer saw it turn Failed."""

    clock: Clock
    _seen: dict[str, datetime] = field(default_factory=dict)

    def watch(self, pods: ObjectCache[Any]) -> None:
        """Be told of the pod informer's events."""
        pods.subscribe(self._on_pod)

    def _on_pod(self, kind: str, pod: Any) -> None:
        status, meta = pod.status, pod.metadata
        if kind == "DELETED" and meta is not None and meta.uid:
            self._seen.pop(meta.uid, None)
        elif status is not None and status.phase == "Failed" and meta is not None and meta.uid:
            self._seen.setdefault(meta.uid, self.clock.now())

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
