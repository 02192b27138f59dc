"""The Helm chart: rendered by a real helm, every manifest schema-checked, its promises tested.

helm is built from its Go module by scripts/helm-binary (cached after the first build). If it
cannot be built the tests fail with the reason: an unrendered chart is an untested chart.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import kubernetes_validate
import pytest

from autorecover.adapters.store.url import open_store
from autorecover.cli.agent import run_cmd as agent_run_cmd
from autorecover.cli.engine import serve_cmd
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.server.policies import load_policies
from autorecover.server.tokens import Role
from deploy.rendering import (
    KUBE_VERSION,
    NAMESPACE,
    HelmError,
    Manifest,
    Rendered,
    argv,
    build_helm,
    container,
    env,
    flag_values,
    lint,
    render,
)
from server.support import Fleet

STORE_URL = "postgresql://autorecover:s3cret@db.ops.svc:5432/autorecover"
# The HA shape (values-ha.yaml with a URL): two leader-elected replicas on PostgreSQL. The
# embedded default (one replica on SQLite, no values at all) is test_helm_store.py's.
BASE: dict[str, Any] = {"store": {"url": STORE_URL}, "engine": {"replicas": 2}}
ENGINE = "ar-autorecover-engine"
AGENT = "ar-autorecover-agent"
LEASE = ENGINE
STATE_DIR = "/var/lib/autorecover/agent"

SITE_POLICY = "[breaker]\nmax_nodes = 8\n"
JOB_POLICY = "[job]\nuser_restarts = 3\n"
POLICIES = {"20-site.toml": SITE_POLICY, "10-jobs.toml": JOB_POLICY}

VALUE_SETS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "acting": {"dryRun": False},
    "agent-disabled": {"agent": {"enabled": False}},
    "service-monitor": {"serviceMonitor": {"enabled": True, "labels": {"release": "prom"}}},
    "policies": {"policies": POLICIES},
    "namespaces": {"namespaces": ["team-a", "team-b"]},
    "journal": {"agent": {"kernelSource": "journal", "expectedGpus": 8}},
    "no-kernel-log": {"agent": {"kernelSource": "none", "runtimeClassName": ""}},
    "no-actions": {"agent": {"actions": False, "kernelSource": "journal"}},
    "existing-secret": {
        "store": {"url": "", "existingSecret": "ar-db", "existingSecretKey": "dsn"}
    },
    "extra-args": {
        "engine": {"extraArgs": ["--tick-s", "2"]},
        "agent": {"extraArgs": ["--skip", "dcgm"]},
    },
    "alerting": {
        "alerting": {
            "alertmanagers": ["http://am-0.monitoring:9093", "http://am-1.monitoring:9093"],
            "webhooks": ["https://hooks.example/autorecover"],
            "webhookSecret": {"existingSecret": "ar-hooks"},
        },
        "prometheusRules": {"enabled": True, "labels": {"release": "prom"}},
    },
    # Authentication and its network (test_security_helm_chart.py tests what they render).
    "tokens-and-tls": {
        "auth": {"tokens": "# no tokens yet\n", "kubernetes": {"roles": ["group:sre=operator"]}},
        "tls": {"secretName": "ar-engine-tls"},
        "serviceMonitor": {"enabled": True, "authorization": {"secretName": "ar-prometheus"}},
    },
    "tokens-only": {
        "agent": {"enabled": False},
        "auth": {"kubernetes": {"enabled": False}, "existingSecret": "ar-tokens"},
        "networkPolicy": {"monitoringNamespaces": []},
    },
}

# (apiGroup, resource, verb): what the engine is granted, and why (docs/deployment.md).
CLUSTER_GRANTS = {
    *(("", "nodes", v) for v in ("get", "list", "watch", "patch")),
    ("", "nodes/status", "patch"),
    *(("", "pods", v) for v in ("get", "list", "watch")),
    ("", "pods/eviction", "create"),
    ("events.k8s.io", "events", "create"),
    # Agents' ServiceAccount tokens are checked with TokenReview (auth.kubernetes.enabled).
    ("authentication.k8s.io", "tokenreviews", "create"),
}
WORKLOAD_GRANTS = {
    ("", "pods", "delete"),
    ("", "pods/log", "get"),
    *(("kubeflow.org", "pytorchjobs", v) for v in ("get", "list", "watch", "update", "patch")),
    ("kubeflow.org", "pytorchjobs/status", "patch"),
    *(("jobset.x-k8s.io", "jobsets", v) for v in ("get", "list", "watch", "patch")),
    ("jobset.x-k8s.io", "jobsets/status", "patch"),
    *(("batch", "jobs", v) for v in ("get", "list", "patch")),
    *(("trainer.kubeflow.org", "trainjobs", v) for v in ("get", "list", "watch", "patch")),
    ("trainer.kubeflow.org", "trainjobs/status", "patch"),
}


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` deep-merged onto `base`, as helm merges a values file onto defaults."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


@pytest.fixture(scope="session")
def helm() -> Path:
    try:
        return build_helm()
    except HelmError as exc:
        reason = str(exc)
    pytest.fail(f"cannot build helm to render the chart: {reason}", pytrace=False)


@pytest.fixture(scope="session")
def chart(helm: Path) -> Callable[[dict[str, Any]], Rendered]:
    """Renders the chart with BASE plus the given values (memoised: helm is slow to start)."""
    cache: dict[str, Rendered] = {}

    def rendered(values: dict[str, Any]) -> Rendered:
        key = json.dumps(values, sort_keys=True)
        if key not in cache:
            cache[key] = Rendered(tuple(render(helm, merged(BASE, values))))
        return cache[key]

    return rendered


def grants(rules: list[Manifest]) -> set[tuple[str, str, str]]:
    return {
        (group, resource, verb)
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def host_path_volumes(spec: Manifest) -> dict[str, str]:
    return {v["name"]: v["hostPath"]["path"] for v in spec.get("volumes", []) if "hostPath" in v}


# --- every manifest is valid -----------------------------------------------------------------


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_helm_every_manifest_validates_against_kubernetes(
    chart: Callable[[dict[str, Any]], Rendered], values: dict[str, Any]
) -> None:
    rendered = chart(values)
    assert rendered.manifests
    for manifest in rendered.manifests:
        if manifest["kind"] in ("ServiceMonitor", "PrometheusRule"):
            continue  # CRDs kubernetes_validate has no schema for: checked by hand
        name = f"{manifest['kind']}/{manifest['metadata']['name']}"
        try:
            kubernetes_validate.validate(manifest, KUBE_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name} is invalid for Kubernetes {KUBE_VERSION}: {exc.message}")
        assert manifest["metadata"].get("namespace", NAMESPACE) in (NAMESPACE, "team-a", "team-b")


def test_helm_service_monitor_only_when_enabled_and_well_formed(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    assert not chart({}).of_kind("ServiceMonitor")
    rendered = chart(VALUE_SETS["service-monitor"])
    monitor = rendered.one("ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    assert monitor["metadata"]["name"] == ENGINE
    assert monitor["metadata"]["labels"]["release"] == "prom"
    spec = monitor["spec"]
    assert set(spec) == {"selector", "namespaceSelector", "endpoints"}
    assert spec["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    [endpoint] = spec["endpoints"]
    assert endpoint["port"] == "http"
    assert endpoint["path"] == "/metrics"
    assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
    # It selects the engine Service, and that Service has the port it names.
    service = rendered.one("Service", ENGINE)
    labels = service["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    assert "http" in {p["name"] for p in service["spec"]["ports"]}


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_helm_lint_strict_passes(helm: Path, values: dict[str, Any]) -> None:
    assert "0 chart(s) failed" in lint(helm, merged(BASE, values))


def test_helm_render_takes_one_store_url_source(helm: Path) -> None:
    both = {"store": {"url": STORE_URL, "existingSecret": "ar-db"}}
    with pytest.raises(HelmError, match="not both"):
        render(helm, both)


def test_helm_rejects_an_unknown_kernel_source(helm: Path) -> None:
    with pytest.raises(HelmError, match=r"agent\.kernelSource"):
        render(helm, merged(BASE, {"agent": {"kernelSource": "dmesg"}}))


# --- RBAC --------------------------------------------------------------------------------------


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_helm_no_rbac_rule_has_a_wildcard(
    chart: Callable[[dict[str, Any]], Rendered], values: dict[str, Any]
) -> None:
    rendered = chart(values)
    roles = rendered.of_kind("ClusterRole") + rendered.of_kind("Role")
    assert roles
    for role in roles:
        for rule in role["rules"]:
            for field in ("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"):
                assert not any("*" in item for item in rule.get(field, [])), (role, rule)


def test_helm_engine_cluster_role_grants_exactly_what_it_uses(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({})
    role = rendered.one("ClusterRole", ENGINE)
    assert grants(role["rules"]) == CLUSTER_GRANTS | WORKLOAD_GRANTS
    assert not any("resourceNames" in r or "nonResourceURLs" in r for r in role["rules"])
    binding = rendered.one("ClusterRoleBinding", ENGINE)
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": ENGINE,
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": ENGINE, "namespace": NAMESPACE}
    ]
    # No Secret access anywhere: the store URL reaches the engine as an env var.
    all_grants = grants([r for role in rendered.of_kind("Role") for r in role["rules"]])
    assert not {g for g in all_grants | grants(role["rules"]) if g[1] == "secrets"}


def test_helm_watched_namespaces_scope_pod_and_job_grants(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart(VALUE_SETS["namespaces"])
    assert grants(rendered.one("ClusterRole", ENGINE)["rules"]) == CLUSTER_GRANTS
    for ns in ("team-a", "team-b"):
        [role] = [r for r in rendered.of_kind("Role") if r["metadata"]["namespace"] == ns]
        assert role["metadata"]["name"] == ENGINE
        assert grants(role["rules"]) == WORKLOAD_GRANTS
        [binding] = [b for b in rendered.of_kind("RoleBinding") if b["metadata"]["namespace"] == ns]
        assert binding["roleRef"]["name"] == ENGINE
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": ENGINE, "namespace": NAMESPACE}
        ]
    engine = rendered.one("Deployment", ENGINE)
    assert env(engine)["AUTORECOVER_NAMESPACES"]["value"] == "team-a,team-b"
    assert "AUTORECOVER_NAMESPACES" not in env(chart({}).one("Deployment", ENGINE))


def test_helm_lease_role_is_namespaced_and_names_the_lease(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({})
    role = rendered.one("Role", f"{ENGINE}-lease")
    assert role["metadata"]["namespace"] == NAMESPACE
    create, named, *diagnostics = role["rules"]
    # create cannot be limited by name (the authorizer sees no name before the object exists).
    assert grants([create]) == {("coordination.k8s.io", "leases", "create")}
    assert "resourceNames" not in create
    assert grants([named]) == {
        ("coordination.k8s.io", "leases", "get"),
        ("coordination.k8s.io", "leases", "update"),
    }
    assert named["resourceNames"] == [LEASE]
    # DCGM diagnostic pods run in the release's namespace, and their logs are the result.
    assert grants(diagnostics) == {("", "pods", "create"), ("", "pods/log", "get")}
    # ... and the engine campaigns for exactly that Lease.
    assert flag_values(argv(rendered.one("Deployment", ENGINE)), "--lease-name") == [LEASE]
    binding = rendered.one("RoleBinding", f"{ENGINE}-lease")
    assert binding["roleRef"]["name"] == f"{ENGINE}-lease"
    assert binding["subjects"][0]["name"] == ENGINE


def test_helm_rbac_create_false_renders_no_roles(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({"rbac": {"create": False}})
    for kind in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"):
        assert not rendered.of_kind(kind)
    assert rendered.one("ServiceAccount", ENGINE)


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_helm_agent_has_no_api_permissions_and_no_api_token(
    chart: Callable[[dict[str, Any]], Rendered], values: dict[str, Any]
) -> None:
    rendered = chart(values)
    for binding in rendered.of_kind("RoleBinding") + rendered.of_kind("ClusterRoleBinding"):
        assert AGENT not in {s["name"] for s in binding["subjects"]}
        assert all(s["kind"] == "ServiceAccount" for s in binding["subjects"])
    if not rendered.of_kind("DaemonSet"):
        assert values.get("agent", {}).get("enabled") is False
        assert not [a for a in rendered.of_kind("ServiceAccount") if a["metadata"]["name"] == AGENT]
        return
    assert rendered.one("ServiceAccount", AGENT)["automountServiceAccountToken"] is False
    spec = rendered.one("DaemonSet", AGENT)["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == AGENT
    assert spec["automountServiceAccountToken"] is False
    # Its one token is for the engine's audience, which the API server refuses.
    tokens = [
        source["serviceAccountToken"]
        for v in spec["volumes"]
        for source in v.get("projected", {}).get("sources", [])
        if "serviceAccountToken" in source
    ]
    assert [t["audience"] for t in tokens] == ["autorecover"]
    assert not spec.get("hostNetwork") and not spec.get("hostIPC")
    # The host's PID namespace only for node actions (who holds a GPU; nsenter to reboot).
    actions = values.get("agent", {}).get("actions", True)
    assert bool(spec.get("hostPID")) is actions


# --- the engine ------------------------------------------------------------------------------


@pytest.mark.parametrize("dry_run", [True, False])
def test_helm_dry_run_flag_present_iff_dry_run(
    chart: Callable[[dict[str, Any]], Rendered], dry_run: bool
) -> None:
    args = argv(chart({"dryRun": dry_run}).one("Deployment", ENGINE))
    assert ("--dry-run" in args) is dry_run


def test_helm_a_new_install_observes_first(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    assert "--dry-run" in argv(chart({}).one("Deployment", ENGINE))


def test_helm_engine_is_leader_elected_on_a_lease(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    engine = chart({}).one("Deployment", ENGINE)
    assert engine["spec"]["replicas"] == 2
    args = argv(engine)
    assert args[:2] == ["autorecover", "serve"]
    assert flag_values(args, "--scheduler") == ["kubernetes"]
    assert flag_values(args, "--leadership") == ["kubernetes"]
    assert flag_values(args, "--lease-namespace") == ["$(POD_NAMESPACE)"]
    assert flag_values(args, "--lease-name") == [LEASE]
    assert flag_values(args, "--replica") == ["$(POD_NAME)"]
    assert flag_values(args, "--listen") == ["0.0.0.0:8080"]
    variables = env(engine)
    assert variables["POD_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert variables["POD_NAMESPACE"]["valueFrom"] == {
        "fieldRef": {"fieldPath": "metadata.namespace"}
    }


def test_helm_engine_flags_are_ones_serve_accepts(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    known = {opt for p in serve_cmd.params for opt in p.opts}
    for name in ("defaults", "acting", "policies", "alerting", "tokens-and-tls", "tokens-only"):
        args = argv(chart(VALUE_SETS[name]).one("Deployment", ENGINE))
        used = {a for a in args[2:] if a.startswith("--")}
        assert used <= known, f"serve has no {sorted(used - known)}"
    scheduler = next(p for p in serve_cmd.params if p.name == "scheduler")
    assert isinstance(scheduler.type, click.Choice)
    assert "kubernetes" in scheduler.type.choices
    node_actions = next(p for p in serve_cmd.params if p.name == "node_actions")
    assert isinstance(node_actions.type, click.Choice)
    assert "agent" in node_actions.type.choices


def test_helm_store_url_stays_in_a_secret(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    rendered = chart({})
    engine = rendered.one("Deployment", ENGINE)
    assert STORE_URL not in json.dumps(engine)
    assert "--store" not in argv(engine)
    ref = env(engine)["AUTORECOVER_STORE"]["valueFrom"]["secretKeyRef"]
    secret = rendered.one("Secret", ref["name"])
    assert secret["stringData"][ref["key"]] == STORE_URL
    # `serve` reads its --store from exactly this variable.
    store = next(p for p in serve_cmd.params if p.name == "store_url")
    assert isinstance(store, click.Option)
    assert store.envvar == "AUTORECOVER_STORE"


def test_helm_store_from_an_existing_secret(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    rendered = chart(VALUE_SETS["existing-secret"])
    assert not rendered.of_kind("Secret")
    ref = env(rendered.one("Deployment", ENGINE))["AUTORECOVER_STORE"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "ar-db", "key": "dsn"}


def test_helm_policies_reach_the_engine_as_files(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({"policies": POLICIES})
    configmap = rendered.one("ConfigMap", "ar-autorecover-policies")
    assert configmap["data"] == POLICIES
    for text in configmap["data"].values():
        tomllib.loads(text)
    engine = rendered.one("Deployment", ENGINE)
    # In file-name order: later files override earlier ones.
    assert flag_values(argv(engine), "--policy") == [
        "/etc/autorecover/policies/10-jobs.toml",
        "/etc/autorecover/policies/20-site.toml",
    ]
    [mount] = [m for m in container(engine)["volumeMounts"] if m["name"] == "policies"]
    assert mount == {"name": "policies", "mountPath": "/etc/autorecover/policies", "readOnly": True}
    [volume] = [v for v in engine["spec"]["template"]["spec"]["volumes"] if v["name"] == "policies"]
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    # The engine itself accepts the rendered files, in the order it is given them.
    policies = load_policies(sorted(configmap["data"].items()))
    assert policies.hardware.breaker.max_nodes == 8
    assert policies.jobs.user_restarts == 3


def test_helm_no_policies_no_configmap(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    rendered = chart({})
    assert not rendered.of_kind("ConfigMap")
    assert "--policy" not in argv(rendered.one("Deployment", ENGINE))


def test_helm_policy_file_names_are_checked(helm: Path) -> None:
    with pytest.raises(HelmError, match=r"is not a file name ending in \.toml"):
        render(helm, merged(BASE, {"policies": {"../escape.toml": SITE_POLICY}}))


def test_helm_policy_change_rolls_the_engine(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    def checksum(values: dict[str, Any]) -> str:
        engine = chart(values).one("Deployment", ENGINE)
        result: str = engine["spec"]["template"]["metadata"]["annotations"]["checksum/policies"]
        return result

    assert checksum({}) != checksum({"policies": POLICIES})


def test_helm_engine_probes_service_and_hardening(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({})
    engine = rendered.one("Deployment", ENGINE)
    c = container(engine)
    assert c["ports"] == [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    pod = engine["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert c["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert c["resources"]["requests"] and c["resources"]["limits"]
    service = rendered.one("Service", ENGINE)
    assert service["spec"]["ports"] == [
        {"name": "http", "port": 8080, "targetPort": "http", "protocol": "TCP"}
    ]
    selector = service["spec"]["selector"]
    assert selector.items() <= engine["spec"]["template"]["metadata"]["labels"].items()
    assert rendered.one("PodDisruptionBudget", ENGINE)["spec"]["maxUnavailable"] == 1


def test_helm_engine_answers_on_the_probed_paths(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    engine = chart(VALUE_SETS["service-monitor"]).one("Deployment", ENGINE)
    probed = [container(engine)[p]["httpGet"]["path"] for p in ("livenessProbe", "readinessProbe")]
    scraped = chart(VALUE_SETS["service-monitor"]).one("ServiceMonitor")["spec"]["endpoints"]
    fleet = Fleet()
    replica = fleet.replica(open_store("memory://"), "a")
    kubelet = fleet.client(replica, None)  # probes carry no credentials
    for path in probed:
        assert kubelet.get(path).status_code == 200, path
    prometheus = fleet.client(replica, fleet.tokens.add("prometheus", Role.VIEWER))
    for path in (e["path"] for e in scraped):
        assert prometheus.get(path).status_code == 200, path
        assert kubelet.get(path).status_code == 401, path


# --- the agent -------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["kmsg", "journal", "none"])
def test_helm_agent_host_paths_are_read_only(
    chart: Callable[[dict[str, Any]], Rendered], source: str
) -> None:
    agent = chart({"agent": {"kernelSource": source}}).one("DaemonSet", AGENT)
    spec = agent["spec"]["template"]["spec"]
    host = host_path_volumes(spec)
    assert {"/proc", "/sys"} <= set(host.values())
    assert ("/dev/kmsg" in host.values()) is (source == "kmsg")
    assert ("/var/log/journal" in host.values()) is (source == "journal")
    mounts = [m for m in container(agent)["volumeMounts"] if m["name"] in host]
    assert {m["name"] for m in mounts} == set(host)
    # The one exception: the agent's own state directory, which must outlive the pod.
    [state] = [m for m in mounts if m["name"] == "state"]
    assert host["state"] == STATE_DIR
    assert flag_values(argv(agent), "--state-dir") == [state["mountPath"]]
    for mount in mounts:
        if mount is not state:
            assert mount.get("readOnly") is True, mount
    # Probes read under --root, so the host's tree must sit there.
    by_path = {host[m["name"]]: m["mountPath"] for m in mounts}
    assert by_path["/proc"] == "/host/proc"
    assert by_path["/sys"] == "/host/sys"
    if source == "kmsg":
        assert by_path["/dev/kmsg"] == "/host/dev/kmsg"


def test_helm_agent_state_can_stay_off_the_host_without_actions(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    agent = chart({"agent": {"stateHostPath": "", "actions": False}}).one("DaemonSet", AGENT)
    spec = agent["spec"]["template"]["spec"]
    [state] = [v for v in spec["volumes"] if v["name"] == "state"]
    assert "emptyDir" in state
    for mount in container(agent)["volumeMounts"]:
        if mount["name"] in host_path_volumes(spec):
            assert mount.get("readOnly") is True, mount


@pytest.mark.parametrize("source", ["kmsg", "journal", "none"])
def test_helm_agent_privileged_only_to_read_dev_kmsg_or_act(
    chart: Callable[[dict[str, Any]], Rendered], source: str
) -> None:
    values = {"agent": {"kernelSource": source, "actions": False}}
    security = container(chart(values).one("DaemonSet", AGENT))["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    if source == "kmsg":
        assert security["privileged"] is True
    else:
        assert security["privileged"] is False
        assert security["allowPrivilegeEscalation"] is False
        assert security["capabilities"] == {"drop": ["ALL"]}


@pytest.mark.parametrize("source", ["kmsg", "journal", "none"])
def test_helm_agent_actions_the_engine_orders_and_the_agent_runs_them(
    chart: Callable[[dict[str, Any]], Rendered], source: str
) -> None:
    rendered = chart({"agent": {"kernelSource": source}})  # actions: on by default
    assert flag_values(argv(rendered.one("Deployment", ENGINE)), "--node-actions") == ["agent"]
    agent = rendered.one("DaemonSet", AGENT)
    spec = agent["spec"]["template"]["spec"]
    args = argv(agent)
    assert "--reboot-in-host" in args and "--no-actions" not in args
    assert spec["hostPID"] is True
    security = container(agent)["securityContext"]
    assert security["privileged"] is True and security["readOnlyRootFilesystem"] is True
    assert "allowPrivilegeEscalation" not in security  # the API refuses it false when privileged
    # The orders' journal outlives the pod: on the host, where --state-dir points.
    assert host_path_volumes(spec)["state"] == STATE_DIR
    assert flag_values(args, "--state-dir") == [STATE_DIR]
    assert {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"} in container(agent)["env"]


def test_helm_agent_actions_off_the_engine_keeps_its_ports_and_the_agent_refuses(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart(VALUE_SETS["no-actions"])
    assert "--node-actions" not in argv(rendered.one("Deployment", ENGINE))
    agent = rendered.one("DaemonSet", AGENT)
    args = argv(agent)
    assert "--no-actions" in args and "--reboot-in-host" not in args
    assert "hostPID" not in agent["spec"]["template"]["spec"]
    assert container(agent)["securityContext"]["privileged"] is False
    # No agent, no orders: the engine must not wait for agents that are not there.
    alone = chart({"agent": {"enabled": False}}).one("Deployment", ENGINE)
    assert "--node-actions" not in argv(alone)


def test_helm_agent_actions_need_the_state_on_the_host(helm: Path) -> None:
    with pytest.raises(HelmError, match=r"agent\.actions needs agent\.stateHostPath"):
        render(helm, merged(BASE, {"agent": {"stateHostPath": ""}}))


def test_helm_agent_runs_on_gpu_nodes_and_reports_to_the_engine(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = chart({})
    agent = rendered.one("DaemonSet", AGENT)
    spec = agent["spec"]["template"]["spec"]
    args = argv(agent)
    assert args[:3] == ["autorecover", "agent", "run"]
    service = rendered.one("Service", ENGINE)
    port = service["spec"]["ports"][0]["port"]
    assert flag_values(args, "--engine") == [f"http://{ENGINE}.{NAMESPACE}.svc:{port}"]
    assert flag_values(args, "--node") == ["$(NODE_NAME)"]
    assert flag_values(args, "--root") == ["/host"]
    assert flag_values(args, "--kernel-source") == ["kmsg"]
    variables = env(agent)
    assert variables["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert variables["NVIDIA_VISIBLE_DEVICES"]["value"] == "all"
    assert spec["runtimeClassName"] == "nvidia"
    assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    # It keeps running on the nodes autorecover quarantines, whatever the taint's effect.
    tolerations = spec["tolerations"]
    assert {"key": QUARANTINE_TAINT, "operator": "Exists"} in tolerations
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations
    # It observes GPUs; it must not take one away from training jobs.
    assert "nvidia.com/gpu" not in json.dumps(container(agent)["resources"])


def test_helm_agent_runtime_class_can_be_disabled(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    spec = chart(VALUE_SETS["no-kernel-log"]).one("DaemonSet", AGENT)["spec"]["template"]["spec"]
    assert "runtimeClassName" not in spec


def test_helm_agent_flags_are_ones_agent_run_accepts(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    known = {opt for p in agent_run_cmd.params for opt in (*p.opts, *p.secondary_opts)}
    for name in ("defaults", "journal", "extra-args", "tokens-and-tls", "no-actions"):
        args = argv(chart(VALUE_SETS[name]).one("DaemonSet", AGENT))
        used = {a for a in args[3:] if a.startswith("--")}
        assert used <= known, f"agent run has no {sorted(used - known)}"
    source = next(p for p in agent_run_cmd.params if p.name == "kernel_source")
    assert isinstance(source.type, click.Choice)
    assert {"kmsg", "journal", "none"} <= set(source.type.choices)


def test_helm_agent_disabled_renders_no_agent(chart: Callable[[dict[str, Any]], Rendered]) -> None:
    rendered = chart(VALUE_SETS["agent-disabled"])
    assert not rendered.of_kind("DaemonSet")
    assert rendered.one("Deployment", ENGINE)


def test_helm_chart_version_matches_the_package() -> None:
    root = Path(__file__).parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    chart_yaml = (root / "deploy/helm/autorecover/Chart.yaml").read_text()
    assert f'appVersion: "{project["version"]}"' in chart_yaml


@pytest.mark.parametrize("size", [64, 1024])
def test_helm_the_engine_spool_stays_below_its_volume(
    chart: Callable[[dict[str, Any]], Rendered], size: int
) -> None:
    engine = chart({"engine": {"spoolSizeMiB": size}}).one("Deployment", ENGINE)
    spec = engine["spec"]["template"]["spec"]
    [volume] = [v for v in spec["volumes"] if v["name"] == "spool"]
    assert volume["emptyDir"]["sizeLimit"] == f"{size}Mi"
    [mount] = [m for m in container(engine)["volumeMounts"] if m["name"] == "spool"]
    assert flag_values(argv(engine), "--spool-dir") == [mount["mountPath"]]
    (bound,) = flag_values(argv(engine), "--spool-max-mib")
    assert 0 < int(bound) < size  # the engine refuses to spool past it: never evicted for it


@pytest.mark.parametrize("on", [True, False])
def test_helm_the_agent_reads_pod_logs_read_only_when_asked(
    chart: Callable[[dict[str, Any]], Rendered], on: bool
) -> None:
    agent = chart({"agent": {"podLogs": on}}).one("DaemonSet", AGENT)
    host = host_path_volumes(agent["spec"]["template"]["spec"])
    assert ("/var/log/pods" in host.values()) is on
    assert flag_values(argv(agent), "--pod-logs") == (["/var/log/pods"] if on else [])
    engine = argv(chart({"agent": {"podLogs": on}}).one("Deployment", ENGINE))
    assert flag_values(engine, "--pod-log-grace-s") == ([] if on else ["0"])
    if on:
        [mount] = [m for m in container(agent)["volumeMounts"] if m["name"] == "host-pod-logs"]
        assert mount["readOnly"] is True and mount["mountPath"] == "/var/log/pods"


def test_helm_taint_effect_and_tick_reach_the_engine(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    default = argv(chart({}).one("Deployment", ENGINE))
    assert flag_values(default, "--taint-effect") == ["NoSchedule"]
    assert flag_values(default, "--tick-s") == ["1"]
    evicting = argv(chart({"taintEffect": "NoExecute"}).one("Deployment", ENGINE))
    assert flag_values(evicting, "--taint-effect") == ["NoExecute"]
    assert flag_values(default, "--domain-label") == ["nvlink=nvidia.com/gpu.clique"]
    racks = {"failureDomainLabels": {"rack": "topology.kubernetes.io/rack"}}
    assert sorted(flag_values(argv(chart(racks).one("Deployment", ENGINE)), "--domain-label")) == [
        "nvlink=nvidia.com/gpu.clique",
        "rack=topology.kubernetes.io/rack",
    ]


def test_helm_nccl_image_turns_on_the_pair_test_and_its_mpijob_rights(
    chart: Callable[[dict[str, Any]], Rendered],
) -> None:
    plain = chart({})
    assert flag_values(argv(plain.one("Deployment", ENGINE)), "--nccl-image") == []
    *_, diagnostics_log = plain.one("Role", f"{ENGINE}-lease")["rules"]
    assert grants([diagnostics_log]) == {("", "pods/log", "get")}
    rendered = chart({"validation": {"ncclImage": "registry.example/nccl-tests:2.13"}})
    deployment = rendered.one("Deployment", ENGINE)
    assert flag_values(argv(deployment), "--nccl-image") == ["registry.example/nccl-tests:2.13"]
    *_, mpijobs = rendered.one("Role", f"{ENGINE}-lease")["rules"]
    assert grants([mpijobs]) == {
        ("kubeflow.org", "mpijobs", v) for v in ("create", "get", "delete")
    }
