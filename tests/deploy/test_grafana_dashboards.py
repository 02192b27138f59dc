"""The Grafana dashboards in deploy/grafana: every panel's query names metrics (and, in its
selectors, labels) that a real `autorecover serve` exports on /metrics."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.http.wire import batch_document
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe
from server.support import free_port

DASHBOARDS = sorted((Path(__file__).parents[2] / "deploy" / "grafana").glob("*.json"))
METRIC = re.compile(r"\b(autorecover_[a-z0-9_]+)\b(\{[^}]*\})?")
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count")}


def exported(text: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """/metrics as {family: type} and {sample name: label names seen}."""
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    labels: dict[str, set[str]] = {}
    for name, body in re.findall(r"^([a-z_:][a-z0-9_:]*)(?:\{([^}]*)\})? ", text, re.M):
        labels.setdefault(name, set()).update(re.findall(r'(\w+)="', body))
    return types, labels


def family_of(name: str, types: dict[str, str]) -> str | None:
    """The exported family a query's metric name belongs to (None: not exported). The text
    format's TYPE line names a counter with its `_total` already."""
    for family, kind in types.items():
        base = family.removesuffix("_total") if kind == "counter" else family
        if name == family or any(name == base + s for s in SUFFIXES.get(kind, ())):
            return family
    return None


@pytest.fixture(scope="module")
def metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("grafana")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    (tmp / "policy.toml").write_text("[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n")
    with (tmp / "engine.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "autorecover", "serve", "--scheduler", "fake",
             "--store", f"sqlite:///{tmp / 'engine.db'}", "--listen", f"127.0.0.1:{port}",
             "--policy", str(tmp / "policy.toml"), "--tick-s", "0.2", "--intake-s", "0.1",
             "--fleet-size", "100", "--insecure-no-auth", "--log-level", "warning",
             # a receiver nobody answers: the alert delivery families are exported too
             "--alert-webhook", f"http://127.0.0.1:{free_port()}/hook"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        text = _scrape_after_a_fault(url, proc)
        yield text
    finally:
        proc.terminate()
        proc.wait(30)


def _get(url: str, body: Any = None) -> bytes:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as r:
        return bytes(r.read())


def _scrape_after_a_fault(url: str, proc: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 30
    sent = False
    while time.monotonic() < deadline:
        assert proc.poll() is None, "serve exited"
        try:
            if not sent:
                s = NodeSignal("n1", Probe.KERNEL, "xid.79", Blame.HARDWARE, 95,
                               NodeAction.REBOOT, datetime.now(UTC), text="Xid 79")  # fmt: skip
                doc = batch_document("n1", [s], sent_at=datetime.now(UTC), dropped=0)
                _get(f"{url}/api/v1/signals", doc)
                sent = True
            text = _get(f"{url}/metrics").decode()
            if 'autorecover_incidents_total{cause="hardware"' in text:
                return text
        except OSError:
            pass  # not listening yet
        time.sleep(0.1)
    raise AssertionError("the engine never counted the incident")


def queries() -> list[tuple[str, str, str]]:
    found = []
    for path in DASHBOARDS:
        doc = json.loads(path.read_text())
        for panel in doc["panels"]:
            for target in panel.get("targets", []):
                found.append((path.name, panel["title"], target["expr"]))
    return found


def test_dashboard_grafana_files_are_importable_dashboards() -> None:
    assert [p.name for p in DASHBOARDS] == ["autorecover-engine.json", "autorecover-fleet.json"]
    for path in DASHBOARDS:
        doc = json.loads(path.read_text())
        assert doc["uid"] and doc["title"].startswith("autorecover")
        assert [i["name"] for i in doc["__inputs"]] == ["DS_PROMETHEUS"]
        ids = [p["id"] for p in doc["panels"]]
        assert len(ids) == len(set(ids)), path.name
        for panel in doc["panels"]:
            if panel["type"] != "row":
                assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}" and panel["targets"]


def test_dashboard_grafana_queries_name_metrics_serve_exports(metrics: str) -> None:
    types, labels = exported(metrics)
    assert queries(), "no panel queries"
    for name, title, expr in queries():
        used = METRIC.findall(expr)
        assert used, f"{name} {title!r}: {expr} names no autorecover metric"
        for metric, selector in used:
            family = family_of(metric, types)
            assert family, f"{name} {title!r}: {metric} is not on /metrics"
            for label in re.findall(r"(\w+)\s*[!=]~?", selector):
                seen = labels.get(metric, set()) | labels.get(family, set())
                assert label in seen, f"{name} {title!r}: {metric} has no label {label}"
