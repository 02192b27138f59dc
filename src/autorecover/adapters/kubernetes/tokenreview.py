"""ServiceAccount tokens checked by the API server (`TokenReview`, authentication.k8s.io/v1).

The agent's pod presents its projected ServiceAccount token (audience `autorecover`: it is
good for us and for nothing else, the API server included); the engine asks the API server
who it is. A review is cached by the token's SHA-256 (never the token) for `ttl_s` (5 min),
never past the token's own expiry, so 12,500 agents cost the API server about 40 reviews a
second, and a deleted pod's token is refused within that time; a token the API server
refused is remembered for `negative_ttl_s`. A bound token's pod and node come back as
the user's extra fields (`authentication.kubernetes.io/node-name`, since Kubernetes 1.30);
`pod_node` reads a pod's `spec.nodeName` when a cluster does not send the node.

Needs RBAC: `tokenreviews create` (cluster-wide), and `pods get` for `pod_node`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lightkube.models.authentication_v1 import TokenReviewSpec
from lightkube.resources.authentication_v1 import TokenReview
from lightkube.resources.core_v1 import Pod

from autorecover.adapters.kubernetes.client import KubeSession, NotFoundError, load_config, mapped
from autorecover.controllers.ports import TransientError

SERVICE_ACCOUNT = "system:serviceaccount:"
REVIEW_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class ReviewedUser:
    """Who the API server says a token belongs to."""

    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def service_account(self) -> tuple[str, str] | None:
        """(namespace, name) for a ServiceAccount's token, else None."""
        if not self.username.startswith(SERVICE_ACCOUNT):
            return None
        namespace, sep, name = self.username[len(SERVICE_ACCOUNT) :].partition(":")
        return (namespace, name) if sep and namespace and name else None

    def first(self, key: str) -> str | None:
        """The first value of one extra field."""
        values = self.extra.get(key, ())
        return values[0] if values else None


class TokenReviewer:
    """Reviews bearer tokens with the API server, with a small time-bounded cache."""

    def __init__(
        self,
        session: KubeSession,
        audiences: Sequence[str],
        *,
        ttl_s: float = 300.0,
        negative_ttl_s: float = 10.0,
        max_entries: int = 20_000,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.session = session
        self.audiences = tuple(audiences)
        self.ttl_s, self.negative_ttl_s = ttl_s, negative_ttl_s
        self.max_entries = max_entries
        self._monotonic, self._wall = monotonic, wall
        self._lock = threading.Lock()
        self._cache: OrderedDict[bytes, tuple[float, ReviewedUser | None]] = OrderedDict()
        # (namespace, name, uid) -> node: a pod never moves; a new pod of that name has a new uid
        self._pods: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        self.reviews = 0  # calls to the API server, for tests and metrics

    @classmethod
    def connect(cls, kubeconfig: Path | None, audiences: Sequence[str]) -> TokenReviewer:
        """A reviewer on its own session (a kubeconfig, or the in-cluster ServiceAccount)."""
        return cls(KubeSession(load_config(kubeconfig), timeout_s=REVIEW_TIMEOUT_S), audiences)

    def review(self, token: str) -> ReviewedUser | None:
        """The token's user, or None when the API server does not authenticate it for our
        audience. TransientError when the API server cannot be asked now."""
        key = hashlib.sha256(token.encode("utf-8")).digest()
        now = self._monotonic()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] > now:
                self._cache.move_to_end(key)
                return hit[1]
        user = self._ask(token)
        ttl = self.ttl_s if user is not None else self.negative_ttl_s
        left = _expires_in(token, self._wall())
        if left is not None:
            ttl = max(0.0, min(ttl, left))
        with self._lock:
            self._cache[key] = (now + ttl, user)
            self._cache.move_to_end(key)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return user

    def _ask(self, token: str) -> ReviewedUser | None:
        body = TokenReview(spec=TokenReviewSpec(token=token, audiences=list(self.audiences)))

        async def create() -> TokenReview:
            return await self.session.client.create(body)

        try:
            answer = self.session.call(create())
        except TransientError:
            raise
        except Exception as exc:  # lightkube and httpx raise several kinds; mapped once
            raise TransientError(str(mapped(exc, "TokenReview"))) from None
        self.reviews += 1
        status = answer.status
        if status is None or not status.authenticated or status.user is None:
            return None
        if self.audiences and not set(self.audiences) & set(status.audiences or ()):
            return None  # the API server authenticated it, but not for us
        info = status.user
        extra = {str(k): tuple(str(x) for x in (v or ())) for k, v in (info.extra or {}).items()}
        return ReviewedUser(info.username or "", info.uid or "", tuple(info.groups or ()), extra)

    def pod_node(self, namespace: str, name: str, uid: str) -> str | None:
        """The node the pod `namespace/name` with this uid is bound to; None when it is gone,
        is another pod of that name, or is not scheduled yet."""
        key = (namespace, name, uid)
        with self._lock:
            if key in self._pods:
                return self._pods[key]

        async def get() -> Pod:
            return await self.session.client.get(Pod, name, namespace=namespace)

        try:
            pod = self.session.call(get())
        except NotFoundError:
            return None
        except TransientError:
            raise
        except Exception as exc:
            error = mapped(exc, f"pod {namespace}/{name}")
            if isinstance(error, NotFoundError):
                return None
            raise TransientError(str(error)) from None
        if pod.metadata is None or pod.metadata.uid != uid or pod.spec is None:
            return None
        node = pod.spec.nodeName
        if node:
            with self._lock:
                self._pods[key] = node
                while len(self._pods) > self.max_entries:
                    self._pods.popitem(last=False)
        return node or None

    def close(self) -> None:
        """Close the session."""
        self.session.close()


def _expires_in(token: str, now: float) -> float | None:
    """Seconds until the JWT's `exp` (read, not verified: it only shortens the cache; the API
    server verified the token); None when it cannot be read."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return float(claims["exp"]) - now
    except (IndexError, ValueError, KeyError, TypeError):
        return None
