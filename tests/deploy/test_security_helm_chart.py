"""The chart's authentication and network: agents by TokenReview, the tokens file in a Secret
(hashes only, mounted so rotation reaches the engine), TLS, the NetworkPolicy, and the values
it refuses. Rendered by the real helm; test_helm_chart.py validates every manifest."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autorecover.server.identities import parse_subject_roles
from autorecover.server.tokens import Role, entry_text, new_token, parse_tokens, token_hash
from deploy.rendering import (
    NAMESPACE,
    HelmError,
    Manifest,
    Rendered,
    argv,
    container,
    flag_values,
    render,
)
from deploy.test_helm_chart import AGENT, BASE, ENGINE, VALUE_SETS, chart, helm, merged

__all__ = ["chart", "helm"]  # the fixtures, shared with test_helm_chart.py

TOKEN = new_token()
TOKENS = entry_text("alice", {Role.OPERATOR}, None, token_hash(TOKEN))
Chart = Callable[[dict[str, Any]], Rendered]


def pod(workload: Manifest) -> Manifest:
    spec: Manifest = workload["spec"]["template"]["spec"]
    return spec


def mounted(workload: Manifest, name: str) -> tuple[Manifest, Manifest]:
    """(volume, its mount) of one volume."""
    [volume] = [v for v in pod(workload)["volumes"] if v["name"] == name]
    [mount] = [m for m in container(workload)["volumeMounts"] if m["name"] == name]
    return volume, mount


# --- agents: their pod's token, checked by TokenReview ----------------------------------------


def test_security_helm_agents_authenticate_by_tokenreview(chart: Chart) -> None:
    rendered = chart({})
    engine, agent = rendered.one("Deployment", ENGINE), rendered.one("DaemonSet", AGENT)
    args = argv(engine)
    assert "--kube-auth" in args
    [audience] = flag_values(args, "--kube-audience")
    # Exactly the agent's ServiceAccount is an agent, and `serve` accepts what it is given.
    [rule] = flag_values(args, "--kube-role")
    subject = parse_subject_roles(rule)
    assert (subject.kind, subject.name) == ("serviceaccount", f"{NAMESPACE}:{AGENT}")
    assert subject.roles == {Role.AGENT}
    assert pod(agent)["serviceAccountName"] == AGENT
    # The agent sends the projected token of that account, for that audience, renewed.
    volume, mount = mounted(agent, "engine-credentials")
    [source] = [s["serviceAccountToken"] for s in volume["projected"]["sources"]
                if "serviceAccountToken" in s]  # fmt: skip
    assert source == {"audience": audience, "expirationSeconds": 3600, "path": "token"}
    assert mount["readOnly"] is True
    assert flag_values(argv(agent), "--token-file") == [f"{mount['mountPath']}/token"]
    # The engine may review tokens (and nothing in the chart lets anyone else).
    rules = rendered.one("ClusterRole", ENGINE)["rules"]
    assert {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
            "verbs": ["create"]} in rules  # fmt: skip


def test_security_helm_more_subjects_get_roles(chart: Chart) -> None:
    args = argv(chart(VALUE_SETS["tokens-and-tls"]).one("Deployment", ENGINE))
    rules = [parse_subject_roles(r) for r in flag_values(args, "--kube-role")]
    assert [(r.kind, r.name, r.roles) for r in rules][-1] == ("group", "sre", {Role.OPERATOR})


def test_security_helm_without_tokenreview_no_review_rights(chart: Chart) -> None:
    rendered = chart(VALUE_SETS["tokens-only"])
    rules = rendered.one("ClusterRole", ENGINE)["rules"]
    assert not [r for r in rules if "authentication.k8s.io" in r["apiGroups"]]
    args = argv(rendered.one("Deployment", ENGINE))
    assert "--kube-auth" not in args and not flag_values(args, "--kube-role")


# --- people and tools: the tokens file ----------------------------------------------------------


def test_security_helm_tokens_file_is_a_secret_of_hashes_mounted_for_rotation(
    chart: Chart,
) -> None:
    rendered = chart({"auth": {"tokens": TOKENS}})
    engine = rendered.one("Deployment", ENGINE)
    assert TOKEN not in json.dumps(rendered.manifests)  # hashes only, anywhere
    volume, mount = mounted(engine, "tokens")
    secret = rendered.one("Secret", volume["secret"]["secretName"])
    [item] = volume["secret"]["items"]
    text = secret["stringData"][item["key"]]
    assert parse_tokens(text).match(TOKEN) is not None  # what the engine will read
    # A directory mount, not subPath: the kubelet updates it in place, the engine re-reads it.
    assert "subPath" not in mount and mount["readOnly"] is True
    [path] = flag_values(argv(engine), "--tokens-file")
    assert path == f"{mount['mountPath']}/{item['path']}"
    # Rotation must not need a restart: the tokens do not roll the engine's pods.
    annotations = engine["spec"]["template"]["metadata"]["annotations"]
    assert not [k for k in annotations if "token" in k]


def test_security_helm_tokens_from_an_existing_secret(chart: Chart) -> None:
    rendered = chart(VALUE_SETS["tokens-only"])
    volume, _ = mounted(rendered.one("Deployment", ENGINE), "tokens")
    assert volume["secret"]["secretName"] == "ar-tokens"
    assert volume["secret"]["items"] == [{"key": "tokens.toml", "path": "tokens.toml"}]
    assert not [s for s in rendered.of_kind("Secret") if s["metadata"]["name"] == "ar-tokens"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"auth": {"kubernetes": {"enabled": False}}}, "agent.enabled needs auth.kubernetes"),
        ({"agent": {"enabled": False}, "auth": {"kubernetes": {"enabled": False}}},
         "authenticates every call"),
        ({"auth": {"tokens": TOKENS, "existingSecret": "x"}}, "not both"),
    ],
)  # fmt: skip
def test_security_helm_refuses_an_engine_nobody_can_call(
    helm: Path, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(HelmError, match=message):
        render(helm, merged(BASE, values))


# --- TLS ------------------------------------------------------------------------------------------


def test_security_helm_tls_end_to_end(chart: Chart) -> None:
    rendered = chart(VALUE_SETS["tokens-and-tls"])
    engine, agent = rendered.one("Deployment", ENGINE), rendered.one("DaemonSet", AGENT)
    volume, mount = mounted(engine, "tls")
    assert volume["secret"]["secretName"] == "ar-engine-tls"
    args = argv(engine)
    assert flag_values(args, "--tls-cert") == [f"{mount['mountPath']}/tls.crt"]
    assert flag_values(args, "--tls-key") == [f"{mount['mountPath']}/tls.key"]
    for probe in ("livenessProbe", "readinessProbe"):
        assert container(engine)[probe]["httpGet"]["scheme"] == "HTTPS"
    [url] = flag_values(argv(agent), "--engine")
    assert url.startswith(f"https://{ENGINE}.{NAMESPACE}.svc:")
    creds, creds_mount = mounted(agent, "engine-credentials")
    [ca] = [s["secret"] for s in creds["projected"]["sources"] if "secret" in s]
    assert ca == {"name": "ar-engine-tls", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
    assert flag_values(argv(agent), "--ca-file") == [f"{creds_mount['mountPath']}/ca.crt"]
    [endpoint] = rendered.one("ServiceMonitor")["spec"]["endpoints"]
    assert endpoint["scheme"] == "https"
    assert endpoint["tlsConfig"]["serverName"] == f"{ENGINE}.{NAMESPACE}.svc"
    assert endpoint["tlsConfig"]["ca"]["secret"] == {"name": "ar-engine-tls", "key": "ca.crt"}
    # /metrics needs a viewer: Prometheus sends the token from its Secret.
    assert endpoint["authorization"] == {
        "type": "Bearer", "credentials": {"name": "ar-prometheus", "key": "token"}}  # fmt: skip


def test_security_helm_plain_http_without_tls(chart: Chart) -> None:
    rendered = chart({})
    engine, agent = rendered.one("Deployment", ENGINE), rendered.one("DaemonSet", AGENT)
    assert "--tls-cert" not in argv(engine)
    assert "scheme" not in container(engine)["readinessProbe"]["httpGet"]
    assert flag_values(argv(agent), "--engine")[0].startswith("http://")
    assert "--ca-file" not in argv(agent)


# --- the NetworkPolicy ------------------------------------------------------------------------


def test_security_helm_network_policy_admits_agents_and_monitoring_only(chart: Chart) -> None:
    rendered = chart({})
    policy = rendered.one("NetworkPolicy", ENGINE)
    spec = policy["spec"]
    engine = rendered.one("Deployment", ENGINE)
    labels = engine["spec"]["template"]["metadata"]["labels"]
    assert spec["podSelector"]["matchLabels"].items() <= labels.items()
    assert spec["policyTypes"] == ["Ingress"]
    [rule] = spec["ingress"]
    assert rule["ports"] == [{"port": "http", "protocol": "TCP"}]
    assert "http" in {p["name"] for p in container(engine)["ports"]}
    agents, monitoring = rule["from"]
    agent_labels = rendered.one("DaemonSet", AGENT)["spec"]["template"]["metadata"]["labels"]
    assert set(agents) == {"podSelector"}  # this namespace's agent pods, nobody else's
    assert agents["podSelector"]["matchLabels"].items() <= agent_labels.items()
    assert agents["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "agent"
    names = {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["monitoring"]}
    assert monitoring == {"namespaceSelector": {"matchExpressions": [names]}}


def test_security_helm_network_policy_extra_peers_and_none(chart: Chart) -> None:
    sre = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "sre-tools"}}}
    rendered = chart({"networkPolicy": {"extraFrom": [sre], "monitoringNamespaces": []}})
    [rule] = rendered.one("NetworkPolicy", ENGINE)["spec"]["ingress"]
    assert rule["from"][-1] == sre and len(rule["from"]) == 2
    # Nobody listed: nothing is admitted (an ingress rule without `from` would admit all).
    closed = chart(VALUE_SETS["tokens-only"]).one("NetworkPolicy", ENGINE)["spec"]
    assert closed["ingress"] == []
    assert not chart({"networkPolicy": {"enabled": False}}).of_kind("NetworkPolicy")


def test_security_helm_every_value_set_has_auth_and_a_network_policy(chart: Chart) -> None:
    for name, values in VALUE_SETS.items():
        rendered = chart(values)
        args = argv(rendered.one("Deployment", ENGINE))
        assert "--insecure-no-auth" not in args, name
        assert "--kube-auth" in args or "--tokens-file" in args, name
        assert rendered.one("NetworkPolicy", ENGINE), name
