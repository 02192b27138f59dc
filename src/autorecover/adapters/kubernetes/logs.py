"""Job output on Kubernetes: the pods' logs, read on their node by its agent or streamed
through the API, into a local spool.

Every current-attempt pod of a watched job that has a node is a source: its training
container's output goes into the spool file of (job, attempt, node), which job recovery reads
at its own byte offsets. Where the node's agent is alive (it asked for its sources within
`agent_fresh_s`), the agent reads the container's log file on the node and ships excerpts
(`agent_excerpt`, through `POST /api/v1/agent/logs`): the engine keeps no stream for that pod.
Elsewhere one follower streams `pods/log?follow=true&timestamps=true` through the API
server; a stream that breaks is opened again and the lines already spooled are skipped by the
kubelet's timestamp on each (`Resume`), which holds where counting bytes did not: after the
kubelet rotated the container's log (it serves the current file only) or on a stream asked
from a time (`sinceSeconds`); the timestamp is not spooled. A stream that ends cleanly is
opened again too (a kubelet restart, a proxy letting an idle stream go); the follower ends
when one ends at once with nothing new (`ENDED_WITHIN_S`: its container ended). Each
answer is closed however it ends (`follow_log`), so a container slow to start does not use up
the session's connections. For `grace_s` after the engine starts a source waits for its agent
rather than falling back at once (agents ask every 10 s). A pod whose agent falls silent is
followed through the API from a little before the agent's last excerpt.

Disk is bounded twice: `max_file_bytes` per spool file and `max_total_bytes` for the whole
spool, sized from the volume it lives on (the chart's spool emptyDir); an append past either
is refused, counted (`refused_bytes`) and logged once per file. The spool is emptied when the
engine starts: nothing maps its old files to jobs any more.
"""

from __future__ import annotations

import asyncio
import calendar
import hashlib
import logging
import re
import threading
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import httpx2 as httpx
from lightkube import AsyncClient
from lightkube.core.exceptions import ApiError
from lightkube.resources.core_v1 import PodLog

from autorecover.adapters.kubernetes.client import KubeSession, api_code
from autorecover.adapters.schedulers import AgentLogSource
from autorecover.controllers.ports import Clock

log = logging.getLogger(__name__)
MAX_TOTAL_BYTES = 48 << 20  # the chart's default spool volume is 64 MiB: room for the rest
MAX_FILE_BYTES = 16 << 20  # per (job, attempt, node)
RETRY_S = 1.0
AGENT_FRESH_S = 30.0  # an agent that asked for its sources this recently reads its pods
GRACE_S = 30.0  # after the engine starts, sources wait this long for their agent
OVERLAP_S = 10  # a fallback stream starts this long before the agent's last excerpt
CONNECT_S = 30.0  # a stream's connect, write and pool timeouts (it reads without one)
ENDED_WITHIN_S = 5.0  # a stream that ends this soon with nothing new: its container ended


# `timestamps=true`: the kubelet's RFC 3339 time of each line (nanoseconds, fixed width as the
# kubelet writes them; any width read), then one space, then the container's text.
STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z ")


def stamped(line: str) -> tuple[tuple[int, int] | None, str]:
    """A `timestamps=true` line's time as (seconds, nanoseconds) since the epoch and the
    container's text after it; (None, line) when it carries none."""
    m = STAMP.match(line)
    if m is None:
        return None, line
    y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
    try:
        seconds = calendar.timegm((y, mo, d, h, mi, sec, 0, 0, 0))
    except (ValueError, OverflowError):
        return None, line
    return (seconds, int((m.group(7) or "0").ljust(9, "0"))), line[m.end() :]


@dataclass(slots=True)
class Resume:
    """Where one container's spooled output ends, so that a stream opened again skips what is
    spooled: the newest kubelet timestamp spooled and how many lines carried it (one write
    of several lines shares one), or, for lines without a timestamp, the bytes spooled."""

    last: tuple[int, int] | None = None
    at_last: int = 0
    done: int = 0  # bytes of unstamped lines spooled (a server that ignores `timestamps`)
    same: int = 0  # lines stamped `last` in the stream now read
    seen: int = 0  # bytes of unstamped lines in the stream now read

    def reopened(self) -> None:
        """A new stream: it starts again from the log's beginning (or its `sinceSeconds`)."""
        self.same = self.seen = 0

    def new_part(self, line: str) -> bytes:
        """What of one line of the stream now read is not spooled yet (b"" when none)."""
        key, text = stamped(line)
        if key is not None:
            return text.encode("utf-8", "replace") if self.fresh(key) else b""
        data = line.encode("utf-8", "replace")  # no timestamp: a log only grows, count bytes
        start, self.seen = self.seen, self.seen + len(data)
        if self.seen <= self.done:
            return b""
        data, self.done = data[max(0, self.done - start) :], self.seen
        return data

    def fresh(self, key: tuple[int, int]) -> bool:
        """Whether a stamped line is new; records it when it is."""
        if self.last is not None and key < self.last:
            return False
        if key == self.last:
            self.same += 1
            if self.same <= self.at_last:
                return False
            self.at_last += 1
            return True
        self.last, self.at_last, self.same = key, 1, 1
        return True


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

    @property
    def key(self) -> str:
        """`<pod uid>/<container>`: the source's identity on the wire."""
        return f"{self.uid}/{self.container}"


class LogSpool:
    """Followers of pod logs writing into one spool file per (job, attempt, node)."""

    def __init__(
        self,
        session: KubeSession,
        root: Path,
        clock: Clock,
        *,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        max_file_bytes: int = MAX_FILE_BYTES,
        agent_fresh_s: float = AGENT_FRESH_S,
        grace_s: float = GRACE_S,
    ) -> None:
        self.session = session
        self.root = root
        self.clock = clock
        self.max_total_bytes = max_total_bytes
        self.max_file_bytes = min(max_file_bytes, max_total_bytes)
        self.agent_fresh_s = agent_fresh_s
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob("*.log"):
            old.unlink(missing_ok=True)
        self._started = clock.now()
        self._grace = timedelta(seconds=grace_s)
        self._total = 0  # bytes in the spool
        self.refused_bytes = 0  # appends refused: a file or the spool was full
        self._full: set[Path] = set()  # files whose refusal was logged
        self._following: set[str] = set()  # pod uid + container: read by the API or an agent
        self._agents: dict[str, datetime] = {}  # node -> when its agent last asked
        self._sources: dict[str, dict[str, LogSource]] = {}  # node -> key -> source
        self._by_agent: dict[str, datetime] = {}  # key -> when its agent last shipped
        self._positions: dict[str, tuple[int, int]] = {}  # key -> (inode, offset) shipped
        self.streams = 0  # API followers started
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
        """Read each source not read yet: through its node's agent when one is alive, else
        (past the start's grace) through the API; a silent agent's pods through the API."""
        now = self.clock.now()
        for source in sources:
            key = source.key
            path = self.path(source.job, source.attempt, source.node)
            with self._guard:
                files, keys = self._files.setdefault(source.job, {}).setdefault(
                    source.attempt, (set(), set()))  # fmt: skip
                files.add(path)
                keys.add(key)
                self._locks.setdefault(path, threading.Lock())
                self._sources.setdefault(source.node, {})[key] = source
                since = self._by_agent.get(key)
                if key in self._following and (since is None or self._alive(source.node, now)):
                    continue
                if since is None and self._alive(source.node, now):
                    self._following.add(key)
                    self._by_agent[key] = now
                    continue
                if since is None and now - self._started < self._grace:
                    continue  # undecided: its agent may ask yet
                self._following.add(key)
                self._by_agent.pop(key, None)
                back = None if since is None else int((now - since).total_seconds()) + OVERLAP_S
            self.streams += 1
            self.session.spawn(lambda s=source, b=back: self._follow(s, b))  # type: ignore[misc]

    def agent_sources(self, node: str) -> list[AgentLogSource]:
        """The sources on `node` its agent should read (it is alive from now on)."""
        now = self.clock.now()
        with self._guard:
            self._agents[node] = now
            out = []
            for key, source in self._sources.get(node, {}).items():
                if key in self._following and key not in self._by_agent:
                    continue  # streamed through the API
                inode, offset = self._positions.get(key, (0, 0))
                s = source
                out.append(AgentLogSource(s.namespace, s.pod, s.uid, s.container, inode, offset))
            return out

    def agent_excerpt(
        self, node: str, uid: str, container: str, inode: int, offset: int, text: bytes
    ) -> bool:
        """Append an excerpt an agent shipped; False when it is not that agent's to ship (an
        unknown pod, another node's, or one the API streams)."""
        key = f"{uid}/{container}"
        now = self.clock.now()
        with self._guard:
            source = self._sources.get(node, {}).get(key)
            if source is None or (key in self._following and key not in self._by_agent):
                return False
            self._agents[node] = now
            self._following.add(key)
            self._by_agent[key] = now
            self._positions[key] = (inode, offset)
        if text:
            self._append(self.path(source.job, source.attempt, source.node), text)
        return True

    def _alive(self, node: str, now: datetime) -> bool:
        seen = self._agents.get(node)
        return seen is not None and (now - seen).total_seconds() <= self.agent_fresh_s

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
                self._full.discard(path)
            for _, keys in old:
                self._following -= keys
                for key in keys:
                    self._by_agent.pop(key, None)
                    self._positions.pop(key, None)
                for sources in self._sources.values():
                    for key in keys & sources.keys():
                        del sources[key]
        for path in paths:
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            path.unlink(missing_ok=True)
            with self._guard:
                self._total -= size

    def read(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """Up to `limit` bytes from `offset` of what the attempt wrote on the node."""
        path = self.path(job, attempt, node)
        try:
            with path.open("rb") as f:
                f.seek(offset)
                return f.read(limit)
        except FileNotFoundError:
            return b""

    async def _follow(self, source: LogSource, since_s: int | None = None) -> None:
        path = self.path(source.job, source.attempt, source.node)
        spooled = Resume()  # what of this container is in the spool, across streams
        clock = asyncio.get_running_loop().time
        while True:
            spooled.reopened()
            fresh, opened = False, clock()
            try:
                stream = follow_log(self.session.client, source, since_s)
                async with aclosing(stream) as lines:
                    async for line in lines:
                        data = spooled.new_part(line)
                        if data and not self._append(path, data):
                            return  # pruned: nobody reads this attempt any more
                        fresh = fresh or bool(data)
                # A follow ends when its container ends, but also when the kubelet restarts
                # or a proxy on the way lets an idle stream go: opened again, a running
                # container's log goes on; an ended one's is served whole and closed at once
                # with nothing new, and that is its end.
                if not fresh and clock() - opened < ENDED_WITHIN_S:
                    return
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
            with self._guard:
                room = self._total + len(data) <= self.max_total_bytes
                if room and size + len(data) <= self.max_file_bytes:
                    self._total += len(data)
                else:
                    self.refused_bytes += len(data)
                    if path not in self._full:
                        self._full.add(path)
                        which = "the spool" if not room else "its spool file"
                        log.warning("spool %s: %s is full; output dropped", path.name, which)
                    return True  # bounded: a runaway log does not fill the disk
            with path.open("ab") as f:
                f.write(data)
        return True


async def follow_log(
    client: AsyncClient, source: LogSource, since_s: int | None = None
) -> AsyncGenerator[str, None]:
    """`pods/log?follow=true` of the source's container, line by line (each with its
    newline); an error answer raises `ApiError` with its status. The answer is closed
    however the stream ends (close this generator: `contextlib.aclosing`).

    lightkube's own `AsyncClient.log(follow=True)` reads an error answer's body with the
    synchronous `read()`, which raises RuntimeError on an asynchronous stream, and never
    closes that answer: every 400 (a container not started yet) or 404 kept one of the
    session's pooled connections for good, and a follower asks again every second, so
    within about a hundred seconds every call of the session, any follower's included,
    waited for a connection and failed with PoolTimeout. So the request is lightkube's, and
    its answer ours."""
    api = client._client  # lightkube's GenericAsyncClient: builds the request as `log` does
    request = api.prepare_request(
        "get", PodLog, name=source.pod, namespace=source.namespace,
        params={"container": source.container, "follow": True, "timestamps": True,
                "sinceSeconds": since_s},
    )  # fmt: skip
    request.timeout = httpx.Timeout(CONNECT_S, read=None)
    answer = await api.send(api.build_adapter_request(request), stream=True)  # type: ignore[no-untyped-call]
    try:
        if answer.is_error:
            await answer.aread()  # the Status in its body, for ApiError
        api.raise_for_status(answer)  # type: ignore[no-untyped-call]
        async for line in answer.aiter_lines():
            yield line + "\n"
    finally:
        await answer.aclose()


def forget_others(spool: LogSpool, watched: set[str]) -> None:
    """Drop every spooled job not in `watched` (it ended, or left recovery)."""
    for gone in spool.jobs() - watched:
        spool.prune(gone, -1)
