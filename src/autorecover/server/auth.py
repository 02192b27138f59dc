"""Who may call what: callers, the one method+path table, and the authenticator chain.

Every request is authorized from its method and path by `TABLE`, applied to the whole app by
`guarding.AuthMiddleware`, so a route added later is covered without being named here: a GET
under /api/v1 needs `viewer`, any other method under /api/v1 needs `operator` (POST
/api/v1/signals and everything under /api/v1/agent/, the orders, need `agent`), and a path
the table does not know needs `operator`. Reads that exist to show evidence (log lines) need
`evidence`; in every other read, fields that carry evidence are emptied for a caller without
that role (`redact_evidence`). Credentials
are tried in order: a bearer token (the tokens file, then Kubernetes TokenReview when
enabled), else a verified client certificate (its CN is an agent's node). docs/security.md
is the threat model.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from autorecover.server.tokens import IMPLIED, NODE, Role, TokenTable

API = "/api/v1"
READ = frozenset({"GET", "HEAD"})
ANY = frozenset[str]()  # any method


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated caller: a name for the record (`token:alice`,
    `serviceaccount:NS:NAME`, `cert:NODE`), its roles and, for an agent, its node."""

    name: str
    roles: frozenset[Role]
    node: str | None = None
    any_node: bool = False  # only the anonymous caller of `serve --insecure-no-auth`

    def holds(self, role: Role) -> bool:
        """Whether this caller has `role`, itself or through a role that includes it."""
        return any(role in IMPLIED[r] for r in self.roles)

    def may_report(self, node: str) -> bool:
        """Whether this caller may post signals about `node`, or read and answer its
        orders: an agent, for its own."""
        return self.any_node or (self.holds(Role.AGENT) and self.node == node)


ANONYMOUS = Caller("anonymous", frozenset(Role), any_node=True)


@dataclass(frozen=True, slots=True)
class Rule:
    """Requests with one of `methods` (empty: any) on `path` (exact, or a prefix ending in
    `/**`) need `role` (None: open to anyone)."""

    methods: frozenset[str]
    path: str
    role: Role | None

    def matches(self, method: str, path: str) -> bool:
        """Whether this rule decides the request."""
        if self.methods and method not in self.methods:
            return False
        if self.path.endswith("/**"):
            prefix = self.path[:-2]  # ends with "/": the folder itself (`nodes/`) is inside
            return path.startswith(prefix)
        return path == self.path


# First match wins. docs/security.md shows this table; a test keeps the two the same.
TABLE: tuple[Rule, ...] = (
    Rule(READ, "/healthz", None),
    Rule(READ, "/readyz", None),
    Rule(READ, "/openapi.json", None),  # the API's shape and version, no fleet data
    Rule(READ, "/docs", None),
    Rule(READ, "/docs/oauth2-redirect", None),
    Rule(READ, "/redoc", None),
    Rule(READ, "/", None),  # a redirect to the dashboard
    Rule(READ, "/metrics", Role.VIEWER),
    Rule(ANY, "/ui/**", None),  # the dashboard: its own sessions and roles (dashboard/routes.py)
    Rule(frozenset({"POST"}), f"{API}/signals", Role.AGENT),
    Rule(ANY, f"{API}/agent/**", Role.AGENT),  # an agent's orders: its own node's (handlers)
    Rule(READ, f"{API}/nodes/**", Role.EVIDENCE),  # a node's signals, transitions, evidence
    Rule(READ, f"{API}/incidents/**", Role.EVIDENCE),  # an incident's evidence lines
    Rule(READ, f"{API}/dead-letters", Role.EVIDENCE),  # set-aside batches, log text and all
    Rule(READ, f"{API}/dead-letters/**", Role.EVIDENCE),
    Rule(READ, f"{API}/**", Role.VIEWER),
    Rule(ANY, f"{API}/**", Role.OPERATOR),
)
DEFAULT_ROLE = Role.OPERATOR  # a path the table does not know


def required_role(method: str, path: str) -> Role | None:
    """The role a request needs (None: open to anyone)."""
    method = method.upper()
    for rule in TABLE:
        if rule.matches(method, path):
            return rule.role
    return DEFAULT_ROLE


def redacts(method: str, path: str, caller: Caller) -> bool:
    """Whether this response's evidence fields are emptied for this caller."""
    return method.upper() in READ and path.startswith(f"{API}/") and not caller.holds(Role.EVIDENCE)


def redact_evidence(doc: Any) -> Any:
    """A JSON document without evidence: every `evidence` field emptied, and every signal's
    (an object with `probe` and `signal`) `text` and `details`."""
    if isinstance(doc, list):
        return [redact_evidence(x) for x in doc]
    if not isinstance(doc, dict):
        return doc
    signal = "probe" in doc and "signal" in doc
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "evidence":
            out[key] = [] if isinstance(value, list) else ""
        elif signal and key == "text":
            out[key] = ""
        elif signal and key == "details":
            out[key] = []
        else:
            out[key] = redact_evidence(value)
    return out


def foreign_nodes(caller: Caller, nodes: Iterable[str]) -> list[str]:
    """The nodes among `nodes` this caller may not report for, sorted."""
    return sorted({n for n in nodes if not caller.may_report(n)})


# --- authentication ----------------------------------------------------------------------------


class TokenAuthenticator(Protocol):
    """Turns a bearer token into a caller (None: not one of its tokens). May raise
    `controllers.ports.TransientError` when it cannot tell now (TokenReview unreachable)."""

    def caller_for(self, token: str) -> Caller | None:
        """The caller this token identifies, or None."""
        ...

    @property
    def blocks(self) -> bool:
        """Whether it may wait on the network (then it is called off the event loop)."""
        ...


class TokenSource(Protocol):
    """The current token table (a file re-read when it changes, or a fixed table)."""

    def current(self) -> TokenTable:
        """The table in force now."""
        ...


class TableTokens:
    """Tokens from a tokens file (`server.tokens`): `token:NAME`."""

    blocks = False

    def __init__(self, source: TokenSource) -> None:
        self._source = source

    def caller_for(self, token: str) -> Caller | None:
        """The entry's caller, when the token's hash is in the table."""
        entry = self._source.current().match(token)
        if entry is None:
            return None
        return Caller(f"token:{entry.name}", entry.roles, entry.node)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is refused: 401 (who are you?) or 403 (not allowed), with headers."""

    status: int
    detail: str
    headers: Mapping[str, str]


def _unauthenticated(detail: str, error: str | None = None) -> Refusal:
    challenge = 'Bearer realm="autorecover"'
    if error:
        challenge += f', error="{error}"'
    return Refusal(401, detail, {"WWW-Authenticate": challenge})


class Auth:
    """The authenticator chain and the table: `check` answers a caller or a refusal."""

    def __init__(
        self,
        tokens: Sequence[TokenAuthenticator] = (),
        *,
        client_certs: bool = False,
        enabled: bool = True,
    ) -> None:
        self.tokens = tuple(tokens)
        self.client_certs = client_certs
        self.enabled = enabled
        if enabled and not self.tokens and not client_certs:
            raise ValueError(
                "authentication needs a credential source: a tokens file, Kubernetes "
                "TokenReview, or client certificates (or --insecure-no-auth on loopback)"
            )

    @classmethod
    def disabled(cls) -> Auth:
        """Everyone is `anonymous` with every role: local trials only (loopback)."""
        return cls(enabled=False)

    @property
    def blocks(self) -> bool:
        """Whether `check` may wait on the network."""
        return any(t.blocks for t in self.tokens)

    def check(
        self, method: str, path: str, authorization: str | None, client_cert: str | None
    ) -> Caller | Refusal | None:
        """The caller, a refusal, or None for an open path (nobody is identified there)."""
        role = required_role(method, path)
        if role is None:
            return None
        caller = self.identify(authorization, client_cert)
        if isinstance(caller, Refusal):
            return caller
        if not caller.holds(role):
            held = ", ".join(sorted(r.value for r in caller.roles)) or "none"
            return Refusal(403, f"{method} {path} needs the {role.value} role; "
                                f"{caller.name} has {held}", {})  # fmt: skip
        return caller

    def identify(self, authorization: str | None, client_cert: str | None) -> Caller | Refusal:
        """Who is calling: a bearer token first, then a verified client certificate."""
        if not self.enabled:
            return ANONYMOUS
        if authorization is not None:
            scheme, _, token = authorization.strip().partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token:
                return _unauthenticated(
                    "the Authorization header must be 'Bearer TOKEN'", "invalid_request"
                )
            for authenticator in self.tokens:
                caller = authenticator.caller_for(token)
                if caller is not None:
                    return caller
            return _unauthenticated("the bearer token is not valid", "invalid_token")
        if self.client_certs and client_cert is not None:
            node = certificate_node(client_cert)
            if node is None:
                return _unauthenticated(
                    f"the client certificate's subject {client_cert!r} has no node name CN"
                )
            return Caller(f"cert:{node}", frozenset({Role.AGENT}), node)
        return _unauthenticated("credentials needed: Authorization: Bearer TOKEN")


def certificate_node(subject: str) -> str | None:
    """The node a verified client certificate names: its one CN (RFC 4514 subject), when
    that is a node name; None otherwise."""
    cns = [v for k, v in _rdns(subject) if k.upper() == "CN"]
    if len(cns) != 1 or not NODE.fullmatch(cns[0]):
        return None
    return cns[0]


def _rdns(subject: str) -> list[tuple[str, str]]:
    """`CN=a,O=b` -> [("CN", "a"), ("O", "b")]; an escaped character stays in its value
    (a name that needs escaping is not a node name anyway)."""
    parts, current, escaped = [], "", False
    for ch in subject:
        if escaped:
            current += "\\" + ch
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",+":
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    out = []
    for part in parts:
        key, sep, value = part.partition("=")
        if sep:
            out.append((key.strip(), value.strip()))
    return out


def is_loopback(host: str) -> bool:
    """Whether a listen address is a loopback IP (`--insecure-no-auth` allows nothing else;
    a name such as `localhost` is refused: what it resolves to is not ours to trust)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
