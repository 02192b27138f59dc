"""The Kubernetes client the adapters share: lightkube's asynchronous client on its own loop.

The recovery ports are synchronous (controllers run one pass at a time), the client is
asynchronous: `KubeSession` runs an asyncio loop in a daemon thread, holds one
`lightkube.AsyncClient`, and lets the ports run coroutines on it (`call`) with a deadline.
`Informer` keeps a watch-backed cache of one kind there (see informers.py).

Watches and `pods/log` follows read without a timeout (a quiet job writes nothing for hours), so
every connection to the API server carries TCP keep-alive (`adapters/keepalive.py`), as
client-go's dialer does (probes after 30 s idle), and a user timeout: a connection a network
partition, a node's reboot or a load balancer's idle timeout left half-open fails within about
a minute and is opened again, instead of leaving a watch or a log follower waiting for good.

Errors are mapped once, here, to the ports' vocabulary: a conflict, throttling, a server
error or a lost connection is `TransientError` (try again on a later pass); anything else
the API refuses is `PermanentError`; a missing object is `NotFoundError` (a `PermanentError`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx2 as httpx
from lightkube import AsyncClient, KubeConfig
from lightkube.config.client_adapter import verify_cluster
from lightkube.core.exceptions import ApiError

from autorecover.adapters import keepalive
from autorecover.controllers.ports import PermanentError, TransientError

T = TypeVar("T")
log = logging.getLogger(__name__)
FIELD_MANAGER = "autorecover"
CALL_TIMEOUT_S = 30.0
_TRANSIENT_CODES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class NotFoundError(PermanentError):
    """The object does not exist (any more)."""


class ConflictError(TransientError):
    """Someone changed the object since it was read; read it again and retry."""


def api_code(exc: BaseException) -> int | None:
    """The HTTP status of an API error, or None for anything else."""
    if isinstance(exc, ApiError):
        code = exc.status.code if exc.status is not None else None
        return int(code) if code is not None else exc.response.status_code
    return None


def mapped(exc: BaseException, what: str) -> Exception:
    """The ports' error for a client exception (call with `raise mapped(...) from exc`)."""
    code = api_code(exc)
    message = f"{what}: {exc}"
    if code == 404:
        return NotFoundError(message)
    if code == 409:
        return ConflictError(message)
    if code in _TRANSIENT_CODES:
        return TransientError(message)
    if code is not None:
        return PermanentError(f"{message} (HTTP {code})")
    if isinstance(exc, (httpx.TransportError, asyncio.TimeoutError, TimeoutError)):
        return TransientError(message)
    return PermanentError(message)


def load_config(kubeconfig: Path | None) -> KubeConfig:
    """A kubeconfig file's current context, or the in-cluster service account."""
    try:
        if kubeconfig is not None:
            return KubeConfig.from_file(str(kubeconfig))
        return KubeConfig.from_env()
    except Exception as exc:  # lightkube raises several kinds for a bad or missing config
        where = str(kubeconfig) if kubeconfig else "in-cluster service account / ~/.kube/config"
        raise ValueError(f"cannot load a Kubernetes configuration from {where}: {exc}") from None


class KubeSession:
    """One event loop in a thread with one lightkube `AsyncClient`; sync callers use `call`."""

    def __init__(self, config: KubeConfig, *, timeout_s: float = CALL_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._loop = asyncio.new_event_loop()
        self._tasks: set[asyncio.Future[None]] = set()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="kube-session", daemon=True
        )
        self._thread.start()
        self.client: AsyncClient = self.call(self._make_client(config))

    @staticmethod
    async def _make_client(config: KubeConfig) -> AsyncClient:
        # Our own transport, for its socket options; it then verifies the server (and presents
        # the user's certificate) as lightkube would have set its own up to.
        single = config.get()
        if single is None or single.user is None:
            raise ValueError("the Kubernetes configuration names no context with a user")
        verify = verify_cluster(single.cluster, single.user, single.abs_file)
        options = keepalive.socket_options()
        transport = httpx.AsyncHTTPTransport(verify=verify, socket_options=options)
        return AsyncClient(
            single, field_manager=FIELD_MANAGER, timeout=httpx.Timeout(30.0), transport=transport
        )

    def call(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run a coroutine on the session's loop and wait for it (bounded)."""
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout_s or self.timeout_s)
        except TimeoutError:
            future.cancel()
            raise TransientError(
                f"Kubernetes call took over {timeout_s or self.timeout_s} s"
            ) from None

    def spawn(self, factory: Callable[[], Awaitable[None]]) -> None:
        """Start a background task on the loop (informers)."""

        async def start() -> None:
            task = asyncio.ensure_future(factory())
            self._tasks.add(task)  # a reference, so the loop does not drop it
            task.add_done_callback(self._tasks.discard)

        self.call(start())

    def close(self) -> None:
        """Stop the loop and close the client."""
        if not self._loop.is_running():
            return

        async def shutdown() -> None:
            await _cancel_others()
            await self.client.close()
            # Cancelling a connection attempt can leave tasks it had just started (anyio's
            # happy-eyeballs `try_connect`); a loop closed with them pending drops coroutines
            # never awaited, reported whenever they are collected.
            await _cancel_others()

        try:
            self.call(shutdown(), timeout_s=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            if not self._loop.is_running():
                self._loop.run_until_complete(_cancel_others())
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
                self._loop.close()


async def _cancel_others(rounds: int = 5) -> None:
    """Cancel every task on this loop but the caller's and wait for them, again while the
    cancellations start new ones."""
    for _ in range(rounds):
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if not tasks:
            return
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def serves(session: KubeSession, resource: type[Any], namespace: str | None = None) -> bool:
    """Whether the cluster serves a kind (a CRD such as JobSet) and lets us list it: one
    list of at most one object. 404 (not installed) and 403 (our role lacks it) are "no",
    logged; anything else is raised, mapped."""

    async def probe() -> None:
        async for _ in session.client.list(resource, namespace=namespace or "*", chunk_size=1):
            break

    try:
        session.call(probe())
    except (ApiError, httpx.HTTPStatusError) as exc:
        # A path the API server does not serve answers a plain-text 404, which lightkube
        # leaves as httpx's error rather than an ApiError.
        code = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else api_code(exc)
        if code in (403, 404):
            log.info("%s not used: %s", resource.__name__, exc)
            return False
        raise mapped(exc, f"list {resource.__name__}") from exc
    return True
