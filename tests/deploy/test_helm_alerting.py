"""The chart's alerting: receivers and the signing key reach `serve`; the PrometheusRule is
the plain rules file, with or without its fleet group."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from deploy.rendering import (
    CHART,
    HelmError,
    Manifest,
    Rendered,
    argv,
    build_helm,
    env,
    flag_values,
    render,
)

BASE: dict[str, Any] = {"store": {"url": "postgresql://ar:pw@db.ops.svc:5432/ar"}}
ENGINE = "ar-autorecover-engine"
RULES = CHART / "rules" / "autorecover.rules.yaml"


@pytest.fixture(scope="module")
def helm() -> Path:
    try:
        return build_helm()
    except HelmError as exc:
        pytest.fail(f"cannot build helm to render the chart: {exc}", pytrace=False)


def rendered(helm: Path, values: dict[str, Any]) -> Rendered:
    return Rendered(tuple(render(helm, {**BASE, **values})))


def engine(r: Rendered) -> Manifest:
    return r.one("Deployment", ENGINE)


def test_helm_alert_receivers_and_the_signing_key_reach_serve(helm: Path) -> None:
    alerting = {
        "alertmanagers": ["http://am-0.monitoring:9093", "http://am-1.monitoring:9093"],
        "webhooks": ["https://hooks.example/ar"],
        "webhookSecret": {"existingSecret": "ar-hooks", "key": "hmac"},
        "outOfServiceBudgetS": 7200,
        "externalUrl": "https://autorecover.example",
    }
    deployment = engine(rendered(helm, {"alerting": alerting}))
    args = argv(deployment)
    assert flag_values(args, "--alertmanager-url") == alerting["alertmanagers"]
    assert flag_values(args, "--alert-webhook") == ["https://hooks.example/ar"]
    assert flag_values(args, "--alert-out-of-service-s") == ["7200"]
    assert flag_values(args, "--external-url") == ["https://autorecover.example"]
    [path] = flag_values(args, "--alert-webhook-secret-file")
    spec = deployment["spec"]["template"]["spec"]
    [volume] = [v for v in spec["volumes"] if v["name"] == "alerting"]
    assert volume["secret"] == {
        "secretName": "ar-hooks", "items": [{"key": "hmac", "path": "webhook-secret"}],
    }  # fmt: skip
    [mount] = [m for m in spec["containers"][0]["volumeMounts"] if m["name"] == "alerting"]
    assert path == f"{mount['mountPath']}/webhook-secret" and mount["readOnly"]
    assert "AUTORECOVER_ALERT_WEBHOOKS" not in env(deployment)


def test_helm_no_receivers_configured_sends_nothing_but_the_log(helm: Path) -> None:
    deployment = engine(rendered(helm, {}))
    args = argv(deployment)
    assert not flag_values(args, "--alertmanager-url") and not flag_values(args, "--alert-webhook")
    assert "--alert-webhook-secret-file" not in args and "--external-url" not in args
    assert flag_values(args, "--alert-out-of-service-s") == ["86400"]
    assert not [
        v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == "alerting"
    ]


def test_helm_webhook_urls_that_are_secrets_come_from_a_secret(helm: Path) -> None:
    values = {"alerting": {"webhooksFromSecret": {"name": "ar-hook-urls", "key": "urls"}}}
    deployment = engine(rendered(helm, values))
    assert env(deployment)["AUTORECOVER_ALERT_WEBHOOKS"]["valueFrom"] == {
        "secretKeyRef": {"name": "ar-hook-urls", "key": "urls"}
    }
    assert "--alert-webhook" not in argv(deployment)


def test_helm_prometheus_rule_is_the_plain_rules_file(helm: Path) -> None:
    plain = yaml.safe_load(RULES.read_text())
    assert not rendered(helm, {}).of_kind("PrometheusRule")
    r = rendered(helm, {"prometheusRules": {"enabled": True, "labels": {"release": "prom"}}})
    rule = r.one("PrometheusRule", ENGINE)
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    assert rule["metadata"]["namespace"] == "ops"
    assert rule["metadata"]["labels"]["release"] == "prom"
    assert rule["spec"]["groups"] == plain["groups"]
    quiet = rendered(helm, {"prometheusRules": {"enabled": True, "fleet": False}})
    groups = quiet.one("PrometheusRule", ENGINE)["spec"]["groups"]
    assert [g["name"] for g in groups] == ["autorecover.engine"]
