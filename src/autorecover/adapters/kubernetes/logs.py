"""Job output on Kubernetes: the pods' logs, streamed through the API into a local spool.

For every current-attempt pod of a watched job that has a node, one follower streams
`pods/log?follow=true` of its training container and appends each line to the spool file of
(job, attempt, node); job recovery reads those files at its own byte offsets, so a long
log is downloaded once, not once per pass. A stream that breaks (API server restart, the
node's kubelet gone) is opened again and the bytes already spooled are skipped: a
container's log only grows. A follower ends when its pod ends and the stream closes.

Why the API and not `/var/log/pods` through the node agent: it works the same on every
cluster (no host path, no agent on a node that just lost its GPU), it is what `kubectl
logs` shows, and the engine already holds the RBAC for it (`pods/log get`). The cost is
one HTTP stream per pod of a watched job, through the API server to each kubelet.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
from lightkube.core.exceptions import ApiError

from autorecover.adapters.kubernetes.client import KubeSession, api_code

log = logging.getLogger(__name__)
MAX_SPOOL_BYTES = 512 << 20  # per (job, attempt, node): the scanner needs recent lines
RETRY_S = 1.0


@dataclass(frozen=True, slots=True)
class LogSource:
    """One container of one pod whose log belongs to (job, attempt, node)."""

    job: str
    attempt: int
    node: str
    namespace: str
    pod: str
    uid: str
    container: str


class LogSpool:
    """Followers of pod logs writing into one spool file per (job, attempt, node)."""

    def __init__(self, session: KubeSession, root: Path) -> None:
        self.session = session
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._following: set[str] = set()  # pod uid + container
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()
        # job -> attempt -> (spool files, followed keys): what `prune` lets go of. A follower
        # that ended stays known, so a finished pod's log is never downloaded twice.
        self._files: dict[str, dict[int, tuple[set[Path], set[str]]]] = {}

    def path(self, job: str, attempt: int, node: str) -> Path:
        """The spool file of one attempt on one node."""
        digest = hashlib.sha256(f"{job}\0{attempt}\0{node}".encode()).hexdigest()[:32]
        return self.root / f"{digest}.log"

    def follow(self, sources: Iterable[LogSource]) -> None:
        """Start a follower for each source not followed yet."""
        for source in sources:
            key = f"{source.uid}/{source.container}"
            with self._guard:
                if key in self._following:
                    continue
                self._following.add(key)
            path = self.path(source.job, source.attempt, source.node)
            with self._guard:
                files, keys = self._files.setdefault(source.job, {}).setdefault(
                    source.attempt, (set(), set()))  # fmt: skip
                files.add(path)
                keys.add(key)
                self._locks.setdefault(path, threading.Lock())
            self.session.spawn(lambda s=source: self._follow(s))  # type: ignore[misc]

    def jobs(self) -> set[str]:
        """The jobs with spooled output."""
        with self._guard:
            return set(self._files)

    def prune(self, job: str, current: int) -> None:
        """Drop the spool of attempts before the previous one (the previous stays: its
        incident may still be read); a job that is gone (`current` < 0) drops all."""
        with self._guard:
            attempts = self._files.get(job, {})
            old = [attempts.pop(a) for a in list(attempts) if a < current - 1 or current < 0]
            if not attempts:
                self._files.pop(job, None)
            paths = [p for files, _ in old for p in files]
            for path in paths:
                self._locks.pop(path, None)
            for _, keys in old:
                self._following -= keys
        for path in paths:
            path.unlink(missing_ok=True)

    def read(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes from `offset` of what the attempt wrote on the node."""
        path = self.path(job, attempt, node)
        try:
            with path.open("rb") as f:
                f.seek(offset)
                return f.read(limit)
        except FileNotFoundError:
            return b""

    async def _follow(self, source: LogSource) -> None:
        path = self.path(source.job, source.attempt, source.node)
        # Bytes of this container already in the spool (when the stream is opened again).
        done = 0
        while True:
            seen = 0
            try:
                lines = self.session.client.log(
                    source.pod, namespace=source.namespace, container=source.container,
                    follow=True,
                )  # fmt: skip
                async for line in lines:
                    data = line.encode("utf-8", "replace")
                    seen += len(data)
                    if seen <= done:
                        continue
                    start = seen - len(data)
                    if not self._append(path, data[max(0, done - start) :]):
                        return  # pruned: nobody reads this attempt any more
                    done = seen
                return  # the container ended and its log is complete
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                if api_code(exc) in (400, 404):
                    # 400: the container has not started yet; 404: the pod is gone.
                    if api_code(exc) == 404 or path not in self._locks:
                        return
                    await asyncio.sleep(RETRY_S)
                    continue
                log.info("log of %s/%s: %s; again", source.namespace, source.pod, exc)
                await asyncio.sleep(RETRY_S)
            except (httpx.HTTPError, OSError) as exc:
                log.info("log of %s/%s interrupted (%s); again", source.namespace, source.pod,
                         type(exc).__name__)  # fmt: skip
                await asyncio.sleep(RETRY_S)

    def _append(self, path: Path, data: bytes) -> bool:
        """Append to a live spool file; False once it has been pruned."""
        with self._guard:
            lock = self._locks.get(path)
        if lock is None:
            return False
        with lock:
            size = path.stat().st_size if path.exists() else 0
            if size + len(data) > MAX_SPOOL_BYTES:
                return True  # bounded: a runaway log does not fill the disk
            with path.open("ab") as f:
                f.write(data)
        return True
