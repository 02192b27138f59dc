"""The chart as shipped: no values at all is one engine on SQLite on a PersistentVolumeClaim;
values-ha.yaml is two leader-elected replicas on PostgreSQL; several replicas on SQLite are
refused. Rendered and linted by the real helm (the server-side dry run of both is in
tests/integration/kubernetes/test_kubernetes_chart.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.adapters.store.url import open_store, sqlite_path
from deploy.rendering import (
    CHART,
    KUBE_VERSION,
    HelmError,
    Rendered,
    argv,
    build_helm,
    container,
    env,
    flag_values,
    lint,
    render,
)

ENGINE = "ar-autorecover-engine"
CLAIM = f"{ENGINE}-data"
HA_VALUES: dict[str, Any] = yaml.safe_load((CHART / "values-ha.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def helm() -> Path:
    try:
        return build_helm()
    except HelmError as exc:
        reason = str(exc)
    pytest.fail(f"cannot build helm to render the chart: {reason}", pytrace=False)


@pytest.fixture(scope="module")
def default(helm: Path) -> Rendered:
    """`helm template` with no values at all."""
    return Rendered(tuple(render(helm, {})))


@pytest.fixture(scope="module")
def ha(helm: Path) -> Rendered:
    """`helm template -f values-ha.yaml`."""
    return Rendered(tuple(render(helm, HA_VALUES)))


@pytest.mark.parametrize("values", [{}, HA_VALUES], ids=["default", "ha"])
def test_helm_store_default_and_ha_lint_clean_and_validate(
    helm: Path, values: dict[str, Any]
) -> None:
    output = lint(helm, values)
    assert "0 chart(s) failed" in output
    assert "[WARNING]" not in output and "[ERROR]" not in output
    for manifest in render(helm, values):
        kubernetes_validate.validate(manifest, KUBE_VERSION, strict=True)


def test_helm_store_default_is_one_engine_on_sqlite_on_a_claim(
    default: Rendered, tmp_path: Path
) -> None:
    engine = default.one("Deployment", ENGINE)
    assert engine["spec"]["replicas"] == 1
    # Never two pods on the one file: the old pod is gone before the new one starts.
    assert engine["spec"]["strategy"] == {"type": "Recreate"}
    claim = default.one("PersistentVolumeClaim", CLAIM)
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"] == {"requests": {"storage": "2Gi"}}
    assert "storageClassName" not in claim["spec"]  # the cluster's default class
    # The URL is a plain value (no password, no Secret) naming a file on that claim's mount.
    url = env(engine)["AUTORECOVER_STORE"]["value"]
    pod = engine["spec"]["template"]["spec"]
    [volume] = [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
    assert volume["persistentVolumeClaim"] == {"claimName": CLAIM}
    [mount] = [m for m in container(engine)["volumeMounts"] if m["name"] == volume["name"]]
    assert not mount.get("readOnly")
    path = Path(sqlite_path(url))
    assert path.parent == Path(mount["mountPath"])
    # ... writable by the engine's user through the pod's fsGroup (the root fs is read-only).
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"]
    assert container(engine)["securityContext"]["readOnlyRootFilesystem"] is True
    # The engine opens exactly that kind of URL as a SQLite store.
    store = open_store(url.replace(str(path.parent), str(tmp_path)))
    try:
        assert isinstance(store, SqliteStore)
        assert (tmp_path / path.name).exists()
    finally:
        store.close()
    assert not default.of_kind("Secret")
    assert not default.of_kind("PodDisruptionBudget")  # one replica: a budget would block drains


def test_helm_store_default_keeps_the_lease_and_installs_no_crd_objects(
    default: Rendered,
) -> None:
    """One replica still takes the Lease (harmless, and a restart releases it on SIGTERM);
    nothing that needs the Prometheus Operator's CRDs is rendered by default."""
    args = argv(default.one("Deployment", ENGINE))
    assert flag_values(args, "--leadership") == ["kubernetes"]
    assert flag_values(args, "--lease-name") == [ENGINE]
    core = {"v1", "apps/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
            "networking.k8s.io/v1"}  # fmt: skip
    assert {m["apiVersion"] for m in default.manifests} <= core
    kinds = {m["kind"] for m in default.manifests}
    assert {"Deployment", "DaemonSet", "PersistentVolumeClaim", "Service"} <= kinds


def test_helm_store_claim_class_size_and_existing_claim(helm: Path) -> None:
    sized = Rendered(tuple(render(helm, {"store": {"sqlite": {
        "storageClassName": "fast-rwo", "size": "10Gi"}}})))  # fmt: skip
    claim = sized.one("PersistentVolumeClaim", CLAIM)
    assert claim["spec"]["storageClassName"] == "fast-rwo"
    assert claim["spec"]["resources"]["requests"]["storage"] == "10Gi"
    mine = Rendered(tuple(render(helm, {"store": {"sqlite": {"existingClaim": "ar-state"}}})))
    assert not mine.of_kind("PersistentVolumeClaim")
    volumes = mine.one("Deployment", ENGINE)["spec"]["template"]["spec"]["volumes"]
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "ar-state"}} in volumes


def test_helm_store_ha_is_two_leader_elected_replicas_on_postgresql(ha: Rendered) -> None:
    engine = ha.one("Deployment", ENGINE)
    assert engine["spec"]["replicas"] == 2
    assert "strategy" not in engine["spec"]  # rolling: a standby is up while one restarts
    assert flag_values(argv(engine), "--leadership") == ["kubernetes"]
    ref = env(engine)["AUTORECOVER_STORE"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": HA_VALUES["store"]["existingSecret"], "key": "url"}
    assert not ha.of_kind("PersistentVolumeClaim")
    assert not ha.of_kind("Secret")  # the URL is in the Secret the operator made
    assert "persistentVolumeClaim" not in json.dumps(engine)
    assert ha.one("PodDisruptionBudget", ENGINE)["spec"]["maxUnavailable"] == 1


def test_helm_store_ha_by_url_keeps_it_in_a_secret(helm: Path) -> None:
    url = "postgresql://ar:s3cret@db.ops.svc:5432/ar"
    rendered = Rendered(tuple(render(helm, {"engine": {"replicas": 2}, "store": {"url": url}})))
    engine = rendered.one("Deployment", ENGINE)
    assert url not in json.dumps(engine)
    ref = env(engine)["AUTORECOVER_STORE"]["valueFrom"]["secretKeyRef"]
    assert rendered.one("Secret", ref["name"])["stringData"][ref["key"]] == url


@pytest.mark.parametrize(
    ("values", "refusal"),
    [
        ({"engine": {"replicas": 2}}, r"engine\.replicas=2 needs PostgreSQL"),
        ({"engine": {"replicas": 3}, "store": {"sqlite": {"existingClaim": "rwx"}}},
         r"engine\.replicas=3 needs PostgreSQL"),
        ({"store": {"url": "sqlite:////var/lib/autorecover/x.db"}},
         r'store\.url must be a PostgreSQL URL .* not a "sqlite" one; leave store\.url'),
        ({"store": {"url": "mysql://ar:hunter2@db/ar"}}, r'not a "mysql" one'),
    ],
)  # fmt: skip
def test_helm_store_refuses_ha_on_sqlite_and_other_urls(
    helm: Path, values: dict[str, Any], refusal: str
) -> None:
    with pytest.raises(HelmError, match=refusal) as refused:
        render(helm, values)
    assert "hunter2" not in str(refused.value)  # the URL's password is never echoed
