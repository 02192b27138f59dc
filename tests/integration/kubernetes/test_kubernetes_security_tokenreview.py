"""Agents authenticated by their pod's ServiceAccount token, checked with TokenReview on the
real API server, as the chart wires it: the engine runs as the chart's engine account (its
RBAC applied), the agent's token is a TokenRequest for the chart's agent account, audience
`autorecover`, bound to a pod on a node. The agent reports for that node only; other tokens
are refused; the review is cached."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from lightkube.models.authentication_v1 import BoundObjectReference, TokenRequestSpec
from lightkube.models.core_v1 import Container, PodSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Pod, ServiceAccount, ServiceAccountToken

from autorecover.adapters.kubernetes.tokenreview import TokenReviewer
from autorecover.adapters.store.url import open_store
from autorecover.server.app import create_app
from autorecover.server.identities import KubeTokens, open_auth, parse_subject_roles
from autorecover.testing.kubernetes.harness import KubeHarness
from deploy.rendering import build_helm, render
from server.support import Fleet, bearer, document, xid79

ENGINE = "ar-autorecover-engine"
AGENT = "ar-autorecover-agent"
AUDIENCE = "autorecover"
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")


def request_token(kube: KubeHarness, account: str, *, audience: str | None = AUDIENCE,
                  pod: Pod | None = None) -> str:  # fmt: skip
    """A TokenRequest for `account` (as the kubelet makes one for a projected volume)."""
    bound = None
    if pod is not None and pod.metadata is not None:
        bound = BoundObjectReference(apiVersion="v1", kind="Pod", name=pod.metadata.name,
                                     uid=pod.metadata.uid)  # fmt: skip
    spec = TokenRequestSpec(audiences=[audience] if audience else [], expirationSeconds=600,
                            boundObjectRef=bound)  # fmt: skip
    request = ServiceAccountToken(metadata=ObjectMeta(name=account), spec=spec)
    made = kube.client.create(request, account, namespace=kube.namespace)
    assert made.status is not None and made.status.token
    return str(made.status.token)


@pytest.fixture
def chart_rbac(kube: KubeHarness) -> None:
    """The chart's ServiceAccounts and RBAC, in the test's namespace."""
    values = {"store": {"url": "postgresql://db/ar"}, "namespaces": [kube.namespace]}
    for manifest in render(build_helm(), values, namespace=kube.namespace):
        if manifest["kind"] in RBAC_KINDS:
            kube.cluster.apply(manifest)


@pytest.fixture
def agent_pod(kube: KubeHarness, chart_rbac: None) -> Pod:
    """The agent's pod on the first node (the DaemonSet's pod, as far as tokens go)."""
    node = kube.cluster.node_names[0]
    pod = Pod(
        metadata=ObjectMeta(name="agent-0", namespace=kube.namespace),
        spec=PodSpec(serviceAccountName=AGENT, nodeName=node, automountServiceAccountToken=False,
                     containers=[Container(name="agent", image="registry.example/ar:1")]),
    )  # fmt: skip
    return kube.client.create(pod)


@pytest.fixture
def engine(kube: KubeHarness, chart_rbac: None) -> Iterator[tuple[TestClient, KubeTokens, Fleet]]:
    """The engine's app authenticating as the chart configures it, running as the chart's
    engine ServiceAccount."""
    config = kube.cluster.user_kubeconfig(f"system:serviceaccount:{kube.namespace}:{ENGINE}",
                                          ["system:serviceaccounts"])  # fmt: skip
    auth, close = open_auth(kube=True, kubeconfig=config, kube_audiences=(AUDIENCE,),
                            kube_roles=[f"serviceaccount:{kube.namespace}:{AGENT}=agent"])  # fmt: skip
    fleet = Fleet()
    replica = fleet.replica(open_store("memory://"), "a")
    [reviewing] = [a for a in auth.tokens if isinstance(a, KubeTokens)]
    try:
        yield TestClient(create_app(replica.engine, auth=auth)), reviewing, fleet
    finally:
        close()


def post(client: TestClient, fleet: Fleet, node: str, token: str) -> Any:
    body = document(node, xid79(node, fleet.clock), clock=fleet.clock)
    return client.post("/api/v1/signals", json=body, headers=bearer(token))


def test_kubernetes_security_an_agents_pod_token_reports_for_its_node_only(
    kube: KubeHarness, agent_pod: Pod, engine: tuple[TestClient, KubeTokens, Fleet]
) -> None:
    client, reviewing, fleet = engine
    own, other = kube.cluster.node_names[0], kube.cluster.node_names[1]
    token = request_token(kube, AGENT, pod=agent_pod)
    assert post(client, fleet, own, token).status_code == 202
    forged = post(client, fleet, other, token)
    assert forged.status_code == 403
    assert (
        f"serviceaccount:{kube.namespace}:{AGENT} may not report for {other}"
        in (forged.json()["detail"])
    )
    # An agent reads nothing.
    assert client.get("/api/v1/nodes", headers=bearer(token)).status_code == 403
    # Three requests, one review: the answer is cached (by the token's hash) for a while.
    assert isinstance(reviewing.reviewer, TokenReviewer)
    assert reviewing.reviewer.reviews == 1


def test_kubernetes_security_other_tokens_are_refused(
    kube: KubeHarness, agent_pod: Pod, engine: tuple[TestClient, KubeTokens, Fleet]
) -> None:
    client, _, fleet = engine
    node = kube.cluster.node_names[0]
    # The API server's own audience: not a token for the engine.
    api_token = request_token(kube, AGENT, audience=None, pod=agent_pod)
    refused = post(client, fleet, node, api_token)
    assert refused.status_code == 401 and "invalid_token" in refused.headers["WWW-Authenticate"]
    # Another account's token for our audience: authenticated, but no role.
    kube.client.create(ServiceAccount(metadata=ObjectMeta(name="stranger",
                                                          namespace=kube.namespace)))  # fmt: skip
    stranger = post(client, fleet, node, request_token(kube, "stranger"))
    assert stranger.status_code == 403 and "has none" in stranger.json()["detail"]
    # The agent's account, but a token bound to no pod: it names no node, so none is its own.
    unbound = post(client, fleet, node, request_token(kube, AGENT))
    assert unbound.status_code == 403 and "may not report" in unbound.json()["detail"]
    assert post(client, fleet, node, "a.b.c").status_code == 401  # not a token at all


def test_kubernetes_security_a_pods_node_is_read_when_the_review_lacks_it(
    kube: KubeHarness, agent_pod: Pod, engine: tuple[TestClient, KubeTokens, Fleet]
) -> None:
    _, reviewing, _ = engine
    reviewer = reviewing.reviewer
    assert isinstance(reviewer, TokenReviewer)
    meta = agent_pod.metadata
    assert meta is not None and meta.name and meta.uid
    user = reviewer.review(request_token(kube, AGENT, pod=agent_pod))
    assert user is not None and user.service_account == (kube.namespace, AGENT)
    # Kubernetes 1.30+ names the node in the review; the pod's spec says the same.
    assert user.first("authentication.kubernetes.io/node-name") == kube.cluster.node_names[0]
    assert user.first("authentication.kubernetes.io/pod-uid") == meta.uid
    assert reviewer.pod_node(kube.namespace, meta.name, meta.uid) == kube.cluster.node_names[0]
    assert reviewer.pod_node(kube.namespace, meta.name, "another-uid") is None
    assert reviewer.pod_node(kube.namespace, "no-such-pod", meta.uid) is None
    without_node = type(user)(user.username, user.uid, user.groups,
                              {k: v for k, v in user.extra.items() if "node" not in k})  # fmt: skip

    class Reviewed:
        def review(self, token: str) -> Any:
            return without_node

        def pod_node(self, namespace: str, name: str, uid: str) -> str | None:
            return reviewer.pod_node(namespace, name, uid)

    rules = [parse_subject_roles(f"serviceaccount:{kube.namespace}:{AGENT}=agent")]
    caller = KubeTokens(Reviewed(), rules).caller_for("x.y.z")
    assert caller is not None and caller.node == kube.cluster.node_names[0]


def test_kubernetes_security_without_review_rights_the_engine_answers_503(
    kube: KubeHarness, agent_pod: Pod
) -> None:
    """An engine whose account may not create TokenReviews cannot tell: 503, retried."""
    config = kube.cluster.user_kubeconfig("system:serviceaccount:elsewhere:nobody")
    auth, close = open_auth(kube=True, kubeconfig=config,
                            kube_roles=[f"serviceaccount:{kube.namespace}:{AGENT}=agent"])  # fmt: skip
    try:
        fleet = Fleet()
        client = TestClient(create_app(fleet.replica(open_store("memory://"), "a").engine,
                                       auth=auth))  # fmt: skip
        answer = post(client, fleet, kube.cluster.node_names[0],
                      request_token(kube, AGENT, pod=agent_pod))  # fmt: skip
        assert answer.status_code == 503 and answer.headers["Retry-After"]
        assert "403" in answer.json()["detail"]
    finally:
        close()
