"""Kubernetes identities as callers (roles by subject, the agent's node from its token or its
pod), on an in-memory reviewer; and the clients' credentials (token files read per request).
TokenReview itself runs on the real API server in tests/integration/kubernetes/."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError
from autorecover.adapters.http.engine_api import EngineApi, EngineApiError
from autorecover.adapters.http.engine_client import EngineClient, EngineError
from autorecover.adapters.kubernetes.tokenreview import ReviewedUser
from autorecover.server.identities import KubeTokens, parse_subject_roles
from autorecover.server.tokens import Role, TokensError

NS = "autorecover"
AGENT = f"system:serviceaccount:{NS}:ar-agent"
NODE_NAME = "authentication.kubernetes.io/node-name"
POD = {"authentication.kubernetes.io/pod-name": ("ar-agent-x7",),
       "authentication.kubernetes.io/pod-uid": ("uid-1",)}  # fmt: skip


class Reviews:
    """Tokens the API server would accept, and where pods run."""

    def __init__(self, users: dict[str, ReviewedUser]) -> None:
        self.users = users
        self.asked: list[str] = []
        self.pods = {(NS, "ar-agent-x7", "uid-1"): "gpu-07"}

    def review(self, token: str) -> ReviewedUser | None:
        self.asked.append(token)
        return self.users.get(token)

    def pod_node(self, namespace: str, name: str, uid: str) -> str | None:
        return self.pods.get((namespace, name, uid))


RULES = [
    parse_subject_roles(f"serviceaccount:{NS}:ar-agent=agent"),
    parse_subject_roles("group:sre=operator"),
    parse_subject_roles("user:grafana=viewer,evidence"),
]


def test_security_kube_subjects_get_their_roles() -> None:
    reviews = Reviews({
        "a.node.bound": ReviewedUser(AGENT, "u1", ("system:serviceaccounts",),
                                     {NODE_NAME: ("gpu-03",), **POD}),
        "a.pod.only": ReviewedUser(AGENT, "u1", (), POD),
        "a.not.bound": ReviewedUser(AGENT),
        "p.e.rson": ReviewedUser("alice@example.com", "u2", ("sre", "dev")),
        "g.r.afana": ReviewedUser("grafana"),
        "s.t.ranger": ReviewedUser("system:serviceaccount:default:default"),
    })  # fmt: skip
    tokens = KubeTokens(reviews, RULES)
    agent = tokens.caller_for("a.node.bound")
    assert agent is not None and agent.name == f"serviceaccount:{NS}:ar-agent"
    assert agent.roles == {Role.AGENT} and agent.node == "gpu-03"  # the review's node first
    by_pod = tokens.caller_for("a.pod.only")
    assert by_pod is not None and by_pod.node == "gpu-07"  # else the bound pod's node
    unbound = tokens.caller_for("a.not.bound")
    assert unbound is not None and unbound.node is None and not unbound.may_report("gpu-03")
    person = tokens.caller_for("p.e.rson")
    assert person is not None and person.name == "user:alice@example.com"
    assert person.roles == {Role.OPERATOR} and person.node is None
    grafana = tokens.caller_for("g.r.afana")
    assert grafana is not None and grafana.roles == {Role.VIEWER, Role.EVIDENCE}
    stranger = tokens.caller_for("s.t.ranger")
    assert stranger is not None and stranger.roles == frozenset()
    assert tokens.caller_for("x.y.z") is None  # the API server does not know it
    # Not a JWT (an `ar_` token from the tokens file, say): the API server is not asked.
    asked = len(reviews.asked)
    assert tokens.caller_for("ar_abcdef") is None and len(reviews.asked) == asked


def test_security_only_a_service_account_token_names_a_node() -> None:
    """A webhook authenticator's user may carry any extra field: a node-name on it is ignored."""
    rules = [parse_subject_roles("user:edge-agent=agent")]
    forged = ReviewedUser("edge-agent", "u3", (), {NODE_NAME: ("gpu-03",)})
    caller = KubeTokens(Reviews({"e.d.ge": forged}), rules).caller_for("e.d.ge")
    assert caller is not None and caller.node is None and not caller.may_report("gpu-03")


def test_security_a_moved_pod_is_not_its_namesake() -> None:
    reviews = Reviews({"a.b.c": ReviewedUser(AGENT, "u", (), {
        "authentication.kubernetes.io/pod-name": ("ar-agent-x7",),
        "authentication.kubernetes.io/pod-uid": ("uid-OLD",)})})  # fmt: skip
    caller = KubeTokens(reviews, RULES).caller_for("a.b.c")
    assert caller is not None and caller.node is None


@pytest.mark.parametrize(
    "text",
    ["serviceaccount:ns=agent", "serviceaccount:ns:a:b=agent", "sa:ns:a=agent", "group:=viewer",
     "group:sre", "group:sre=root", "user:x="],
)  # fmt: skip
def test_security_a_bad_kube_role_is_refused(text: str) -> None:
    with pytest.raises(TokensError, match="--kube-role"):
        parse_subject_roles(text)


# --- the clients' side ----------------------------------------------------------------------


def test_security_a_token_file_is_read_on_every_request(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("ar_first\n")
    creds = ClientCredentials(token_file=path)
    assert creds.headers() == {"Authorization": "Bearer ar_first"}
    path.write_text("ar_renewed")  # the kubelet renews a projected token in place
    assert creds.headers() == {"Authorization": "Bearer ar_renewed"}
    assert ClientCredentials(token="  ").headers() == {}
    path.write_text("")
    with pytest.raises(CredentialsError, match="empty"):
        creds.bearer()
    with pytest.raises(CredentialsError, match="go together"):
        ClientCredentials(cert_file=path)


def test_security_a_missing_token_file_is_retried_by_agents_and_told_to_people(
    tmp_path: Path,
) -> None:
    missing = ClientCredentials(token_file=tmp_path / "absent")
    with pytest.raises(EngineError, match="cannot read the token file") as agent:
        EngineClient("http://127.0.0.1:9", credentials=missing).post({"signals": []})
    assert agent.value.transient  # it may appear (a volume being mounted): keep the signals
    with pytest.raises(EngineApiError, match="cannot read the token file"):
        EngineApi("http://127.0.0.1:9", credentials=missing).get("/api/v1/nodes")
    with pytest.raises(EngineApiError, match="TLS files"):
        EngineApi("https://127.0.0.1:9",
                  credentials=ClientCredentials(ca_file=tmp_path / "absent.crt")).get("/")  # fmt: skip
