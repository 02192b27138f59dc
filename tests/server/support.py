"""The engine test rig: engines on a virtual clock, a shared fake cluster, an in-process client.

Authentication is on, as in production: every replica's client (`RigClient`) calls as the
rig's operator, and a POST of a signal batch goes as the agent of the batch's node (its
token minted on first use), so a test reads like the API it exercises. Security tests make
their own clients (`Fleet.client(token)`) to call as someone else, or as no one.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field, replace
from typing import Any

import httpx2 as httpx
from fastapi.testclient import TestClient

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.http.wire import batch_document
from autorecover.adapters.store.base import EngineStore
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from autorecover.server.app import create_app
from autorecover.server.auth import Auth, TableTokens
from autorecover.server.engine import Engine, EngineSettings
from autorecover.server.policies import Policies, load_policies
from autorecover.server.tokens import Role, TokenEntry, TokenTable, token_digest
from autorecover.server.wiring import Cluster, build_engine, fake_cluster

SETTINGS = EngineSettings(
    tick_s=10, reconcile_s=300, intake_s=0, lease_ttl_s=15, retry_s=5, max_waiting=100,
    fleet_size=1000,  # reports make no node records: the breaker is told the fleet's size
)  # fmt: skip


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def roomy() -> Policies:
    """The built-in policies with a breaker that lets a small test fleet lose nodes."""
    base = load_policies()
    policy = load_policy()
    breaker = replace(policy.breaker, max_fraction=1.0, max_out_fraction=1.0)
    return replace(base, hardware=replace(policy, breaker=breaker))


def xid79(node: str, clock: FakeClock, **kw: Any) -> NodeSignal:
    return NodeSignal(
        node, Probe.KERNEL, "xid.79", Blame.HARDWARE, 95, NodeAction.REBOOT, clock.now(),
        component="0000:3b:00.0", text="NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
        **kw,
    )  # fmt: skip


def document(node: str, *signals: NodeSignal, clock: FakeClock) -> dict[str, Any]:
    return batch_document(node, list(signals), sent_at=clock.now(), dropped=0)


SIGNALS = "/api/v1/signals"


class RigTokens:
    """The rig's token table (a `TokenSource`): named tokens, and an agent's per node on demand."""

    def __init__(self) -> None:
        self._entries: dict[str, TokenEntry] = {}  # token -> entry
        self._agents: dict[str, str] = {}  # node -> its agent's token
        self._table: TokenTable | None = None
        self.operator = self.add("rig-operator", Role.OPERATOR)

    def add(self, name: str, *roles: Role, node: str | None = None) -> str:
        """A new token for `name` with these roles (an agent's names its node)."""
        token = f"rig-{name}-{len(self._entries)}"
        self._entries[token] = TokenEntry(name, frozenset(roles), node, token_digest(token))
        self._table = None
        return token

    def agent(self, node: str) -> str:
        """The token of `node`'s agent (made on first use)."""
        if node not in self._agents:
            self._agents[node] = self.add(f"agent-{node}", Role.AGENT, node=node)
        return self._agents[node]

    def current(self) -> TokenTable:
        """The table in force."""
        if self._table is None:
            self._table = TokenTable.of(self._entries.values())
        return self._table

    def auth(self, *, client_certs: bool = False) -> Auth:
        """An `Auth` on this table (and verified client certificates, when asked)."""
        return Auth([TableTokens(self)], client_certs=client_certs)


class RigClient(TestClient):
    """Calls as the rig's operator; a signal batch is posted as its node's agent (the node read
    from `json=` or a JSON `content=`; a body without one goes as an agent of `unnamed`, so a
    malformed body still meets the intake's validation, 422)."""

    def __init__(self, app: Any, tokens: RigTokens) -> None:
        super().__init__(app, headers={"Authorization": f"Bearer {tokens.operator}"})
        self.tokens = tokens

    def request(self, method: str, url: Any, **kwargs: Any) -> httpx.Response:  # type: ignore[override]
        headers = dict(kwargs.get("headers") or {})
        named = any(k.lower() == "authorization" for k in headers)
        if method.upper() == "POST" and str(url).endswith(SIGNALS) and not named:
            node = _node_of(kwargs.get("json"), kwargs.get("content"))
            headers["Authorization"] = f"Bearer {self.tokens.agent(node)}"
            kwargs["headers"] = headers
        return super().request(method, url, **kwargs)


def _node_of(body: Any, content: Any) -> str:
    if body is None and isinstance(content, str | bytes):
        try:
            body = json.loads(content)
        except ValueError:
            body = None
    node = body.get("node") if isinstance(body, dict) else None
    return node if isinstance(node, str) and node else "unnamed"


def bearer(token: str | None) -> dict[str, str]:
    """The Authorization header for a token (none for None)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass
class Replica:
    """One engine replica and its HTTP client."""

    engine: Engine
    client: TestClient

    def step(self) -> None:
        self.engine.step()

    @property
    def leading(self) -> bool:
        return self.engine.leadership.fence() is not None


@dataclass
class Fleet:
    """Replicas sharing a clock and a cluster; each opens its own store on the same database."""

    clock: FakeClock = field(default_factory=FakeClock)
    cluster: Cluster | None = None
    settings: EngineSettings = SETTINGS
    tokens: RigTokens = field(default_factory=RigTokens)

    def __post_init__(self) -> None:
        self.cluster = self.cluster or fake_cluster(self.clock)

    def replica(self, store: EngineStore, name: str, **settings: Any) -> Replica:
        assert self.cluster is not None
        engine = build_engine(
            store, self.clock, self.cluster, roomy(), replace(self.settings, **settings),
            replica=name, background=False, owns_store=False,
        )  # fmt: skip
        return Replica(engine, RigClient(self.app(engine), self.tokens))

    def app(self, engine: Engine) -> Any:
        """The engine's ASGI app, authenticating with the rig's tokens."""
        return create_app(engine, auth=self.tokens.auth())

    def client(self, replica: Replica, token: str | None) -> TestClient:
        """A plain client of `replica` calling with `token` (None: no credentials)."""
        return TestClient(replica.client.app, headers=bearer(token))

    def advance(self, seconds: float, *replicas: Replica) -> None:
        self.clock.advance(seconds)
        for r in replicas:
            r.step()


def rig_client(engine: Engine) -> RigClient:
    """A client of `engine`'s app on a fresh rig token table: it calls as an operator, and
    posts a signal batch as its node's agent."""
    tokens = RigTokens()
    return RigClient(create_app(engine, auth=tokens.auth()), tokens)
