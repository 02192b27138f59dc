"""The shipped Prometheus rules: `promtool check rules` accepts them, `promtool test rules`
proves each alert fires and resolves when it should, and every metric they read is one the
engine exports. promtool is installed when missing (Debian's `prometheus`); if it cannot be,
these tests fail, never skip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.server.alerting import AlertConfig, open_alerting
from autorecover.server.wiring import build_engine, fake_cluster
from autorecover.testing.alertmanager import RigError, ensure_installed, promtool
from deploy.rendering import CHART
from server.support import SETTINGS, rig_client, roomy

RULES = CHART / "rules" / "autorecover.rules.yaml"
RULE_TESTS = Path(__file__).parent / "prometheus" / "autorecover.rules.test.yaml"


@pytest.fixture(scope="module")
def installed() -> str:
    try:
        return ensure_installed()
    except RigError as exc:
        pytest.fail(f"promtool is not installed and could not be: {exc}", pytrace=False)


def rules() -> list[dict[str, object]]:
    doc = yaml.safe_load(RULES.read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_promtool_checks_the_rules(installed: str) -> None:
    done = promtool("check", "rules", str(RULES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(rules())} rules found" in done.stdout


def test_promtool_unit_tests_of_the_rules_pass(installed: str) -> None:
    done = promtool("test", "rules", str(RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_unit_tests_can_fail(installed: str, tmp_path: Path) -> None:
    """A wrong expectation must fail: the test above is not one that cannot."""
    doc = yaml.safe_load(RULE_TESTS.read_text())
    doc["rule_files"] = [str(RULES)]
    doc["tests"][0]["alert_rule_test"][0]["exp_alerts"] = [{"exp_labels": {"severity": "critical"}}]
    wrong = tmp_path / "wrong.test.yaml"
    wrong.write_text(yaml.safe_dump(doc))
    done = promtool("test", "rules", str(wrong))
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr


def test_every_rule_alert_is_tested_labelled_and_explained() -> None:
    tested = RULE_TESTS.read_text()
    for rule in rules():
        name = str(rule["alert"])
        assert f"alertname: {name}" in tested, f"{name} has no promtool test"
        labels, notes = rule["labels"], rule["annotations"]
        assert isinstance(labels, dict) and labels["severity"] in ("critical", "warning")
        assert isinstance(notes, dict) and notes["summary"] and notes["description"]


def test_every_metric_the_rules_read_is_exported_by_the_engine() -> None:
    clock = FakeClock()
    alerting = open_alerting(AlertConfig(webhooks=("http://127.0.0.1:9/hook",)), clock)
    engine = build_engine(
        MemoryEngineStore(), clock, fake_cluster(clock), roomy(), SETTINGS,
        background=False, alerting=alerting,
    )  # fmt: skip
    engine.step()
    exported = rig_client(engine).get("/metrics").text
    engine.stop()
    families = set(re.findall(r"^# TYPE (autorecover_\w+) ", exported, re.MULTILINE))
    samples = set(re.findall(r"^(autorecover_\w+)", exported, re.MULTILINE))
    used = {m for rule in rules() for m in re.findall(r"autorecover_\w+", str(rule["expr"]))}
    # A per-node gauge has no sample while every node is in service: its family must exist.
    missing = {m for m in used if m not in samples and m not in families}
    assert not missing, f"rules read metrics the engine does not export: {sorted(missing)}"
