"""Where callers come from: the tokens file and Kubernetes TokenReview; `open_auth` builds the
chain `serve` asks for (client certificates are checked by the TLS layer, `serving`).

A Kubernetes identity gets roles by subject (`--kube-role SUBJECT=ROLE[,ROLE]`):
`serviceaccount:NS:NAME`, `group:NAME` or `user:NAME`. A ServiceAccount with the `agent`
role reports for the node its token is bound to: the node the API server names in the
review (`authentication.kubernetes.io/node-name`, Kubernetes 1.30 and later), or else the
`spec.nodeName` of the pod the token is bound to (its name and uid in the review). A token
bound to no pod names no node, and its agent may report for none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from autorecover.server.auth import Auth, Caller, TableTokens, TokenAuthenticator
from autorecover.server.tokens import Role, TokensError, parse_roles, parse_tokens

if TYPE_CHECKING:
    from autorecover.adapters.kubernetes.tokenreview import ReviewedUser

SUBJECT_KINDS = ("serviceaccount", "group", "user")
NODE_NAME = "authentication.kubernetes.io/node-name"
POD_NAME = "authentication.kubernetes.io/pod-name"
POD_UID = "authentication.kubernetes.io/pod-uid"


@dataclass(frozen=True, slots=True)
class SubjectRoles:
    """Roles for one Kubernetes subject: `kind` is serviceaccount, group or user."""

    kind: str
    name: str  # NAMESPACE:NAME for a ServiceAccount
    roles: frozenset[Role]

    def matches(self, user: ReviewedUser) -> bool:
        """Whether the reviewed user is this subject."""
        if self.kind == "serviceaccount":
            sa = user.service_account
            return sa is not None and f"{sa[0]}:{sa[1]}" == self.name
        if self.kind == "group":
            return self.name in user.groups
        return user.username == self.name


def parse_subject_roles(text: str) -> SubjectRoles:
    """`serviceaccount:NS:NAME=agent`, `group:sre=operator`, `user:alice=viewer,evidence`."""
    subject, sep, roles = text.rpartition("=")
    kind, _, name = subject.partition(":")
    if not sep or kind not in SUBJECT_KINDS or not name:
        raise TokensError(
            f"--kube-role {text!r}: expected SUBJECT=ROLE[,ROLE], SUBJECT being "
            "serviceaccount:NAMESPACE:NAME, group:NAME or user:NAME"
        )
    if kind == "serviceaccount" and (name.count(":") != 1 or "" in name.split(":")):
        raise TokensError(f"--kube-role {text!r}: a ServiceAccount is serviceaccount:NS:NAME")
    return SubjectRoles(kind, name, parse_roles(roles.split(","), f"--kube-role {text!r}"))


class Reviewer(Protocol):
    """What `KubeTokens` needs of `adapters.kubernetes.tokenreview.TokenReviewer`."""

    def review(self, token: str) -> ReviewedUser | None:
        """Who the token belongs to, or None."""
        ...

    def pod_node(self, namespace: str, name: str, uid: str) -> str | None:
        """The node a pod is bound to."""
        ...


class KubeTokens:
    """Kubernetes tokens (JWTs) by TokenReview, with roles by subject."""

    blocks = True

    def __init__(self, reviewer: Reviewer, rules: Sequence[SubjectRoles]) -> None:
        self.reviewer = reviewer
        self.rules = tuple(rules)

    def caller_for(self, token: str) -> Caller | None:
        """The reviewed caller; None for what is not a Kubernetes token or not ours."""
        if token.count(".") != 2:  # not a JWT: no need to ask the API server
            return None
        user = self.reviewer.review(token)
        if user is None:
            return None
        roles = frozenset(r for rule in self.rules if rule.matches(user) for r in rule.roles)
        sa = user.service_account
        name = f"serviceaccount:{sa[0]}:{sa[1]}" if sa else f"user:{user.username}"
        node = self._node(user, sa) if Role.AGENT in roles else None
        return Caller(name, roles, node)

    def _node(self, user: ReviewedUser, sa: tuple[str, str] | None) -> str | None:
        if sa is None:  # only a pod's ServiceAccount token is bound to a node (a webhook
            return None  # authenticator's users and groups may carry any extra fields)
        node = user.first(NODE_NAME)
        if node:
            return node
        pod, uid = user.first(POD_NAME), user.first(POD_UID)
        if not pod or not uid:
            return None
        return self.reviewer.pod_node(sa[0], pod, uid)


def open_auth(
    *,
    tokens_file: Path | None = None,
    kube_roles: Sequence[str] = (),
    kube_audiences: Sequence[str] = ("autorecover",),
    kubeconfig: Path | None = None,
    kube: bool = False,
    client_certs: bool = False,
    insecure: bool = False,
) -> tuple[Auth, Callable[[], None]]:
    """The authenticator chain `serve` asks for, and what closes it. ValueError (a
    `TokensError` among them) or OSError says what is wrong with the options."""
    if insecure:
        if tokens_file or kube or client_certs:
            raise ValueError("--insecure-no-auth takes no credentials: it lets everyone in")
        return Auth.disabled(), lambda: None
    if kube_roles and not kube:
        raise ValueError("--kube-role needs --kube-auth (TokenReview)")
    rules = [parse_subject_roles(r) for r in kube_roles]
    chain: list[TokenAuthenticator] = []
    if tokens_file is not None:
        from autorecover.adapters.reloading import ReloadingFile

        chain.append(TableTokens(ReloadingFile(tokens_file, parse_tokens)))
    close: Callable[[], None] = lambda: None  # noqa: E731
    if kube:
        if not rules:
            raise ValueError("--kube-auth needs at least one --kube-role SUBJECT=ROLE")
        from autorecover.adapters.kubernetes.tokenreview import TokenReviewer

        reviewer = TokenReviewer.connect(kubeconfig, kube_audiences)
        chain.append(KubeTokens(reviewer, rules))
        close = reviewer.close
    return Auth(chain, client_certs=client_certs), close
