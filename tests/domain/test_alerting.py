"""Which alerts hold: nodes for a person, nodes out too long, the breaker, failure domains and
stopped jobs — with stable ids, labels and the moment each began."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from autorecover.domain.alerting import Facts, JobFact, NodeFact, firing
from autorecover.domain.alerts import AlertName, AlertSettings, Severity
from autorecover.domain.failure_domains import DomainIncident, DomainKind, FailureDomain
from autorecover.domain.hardware.breaker import BreakerState
from autorecover.domain.hardware.lifecycle import NodeState

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
SETTINGS = AlertSettings(out_of_service_budget=4 * HOUR, job_hold=2 * HOUR)


def node(state: NodeState, *, out: datetime = T0, since: datetime = T0, seq: int = 3) -> NodeFact:
    return NodeFact("n1", state, since, seq, out, "drain timed out", "hw/n1/x", ("rack:r1",))


def names(facts: Facts, now: datetime, settings: AlertSettings = SETTINGS) -> list[str]:
    return [a.name for a in firing(facts, now, settings)]


def test_a_node_for_a_person_is_one_alert_per_visit() -> None:
    [a] = firing(Facts(nodes=(node(NodeState.NEEDS_ATTENTION),)), T0 + HOUR, SETTINGS)
    assert a.name is AlertName.NODE_NEEDS_ATTENTION and a.severity is Severity.WARNING
    assert a.id == "AutorecoverNodeNeedsAttention/n1/3" and a.at == T0
    assert a.labels() == {
        "alertname": "AutorecoverNodeNeedsAttention", "severity": "warning", "node": "n1",
        "incident": "hw/n1/x", "failure_domain": "rack:r1",
    }  # fmt: skip
    assert "drain timed out" in a.summary
    [again] = firing(Facts(nodes=(node(NodeState.NEEDS_ATTENTION, seq=7),)), T0, SETTINGS)
    assert again.id != a.id  # back in a person's hands later: a new occurrence


def test_a_node_on_the_ladder_alerts_nothing_until_its_budget_is_spent() -> None:
    facts = Facts(nodes=(node(NodeState.DIAGNOSING, since=T0 + HOUR),))
    assert names(facts, T0 + 4 * HOUR - timedelta(seconds=1)) == []
    [a] = firing(facts, T0 + 4 * HOUR, SETTINGS)
    assert a.name is AlertName.NODE_OUT_TOO_LONG and a.at == T0 + 4 * HOUR
    assert a.id == "AutorecoverNodeOutOfServiceTooLong/n1/20260105T080000.000000Z"
    assert "4h" in a.summary and "diagnosing" in a.summary
    [later] = firing(facts, T0 + 9 * HOUR, SETTINGS)
    assert later.id == a.id and later.at == a.at  # the same alert, pass after pass


def test_a_node_for_a_person_long_out_has_both_alerts() -> None:
    facts = Facts(nodes=(node(NodeState.NEEDS_ATTENTION),))
    assert names(facts, T0 + 5 * HOUR) == [
        AlertName.NODE_NEEDS_ATTENTION, AlertName.NODE_OUT_TOO_LONG,
    ]  # fmt: skip


def test_the_budget_reads_as_people_write_it() -> None:
    for seconds, text in ((86400, "24h"), (5400, "90min"), (2, "2s")):
        settings = AlertSettings(out_of_service_budget=timedelta(seconds=seconds))
        [a] = firing(Facts(nodes=(node(NodeState.QUARANTINED),)), T0 + 30 * HOUR, settings)
        assert f"longer than {text} " in a.summary


def test_a_healthy_node_alerts_nothing() -> None:
    assert names(Facts(nodes=(node(NodeState.HEALTHY),)), T0 + 100 * HOUR) == []


def test_the_tripped_breaker_is_critical_and_named_by_its_trip() -> None:
    facts = Facts(breaker=BreakerState(T0, "3 nodes taken out within 3600s, limit 2"))
    [a] = firing(facts, T0, SETTINGS)
    assert a.name is AlertName.BREAKER_TRIPPED and a.severity is Severity.CRITICAL
    assert a.id == "AutorecoverBreakerTripped/20260105T080000.000000Z" and "limit 2" in a.summary
    assert names(Facts(), T0) == []


def test_an_open_domain_incident_names_its_domain() -> None:
    rack = FailureDomain(DomainKind.RACK, "r7")
    incident = DomainIncident("domain/rack/r7/20260105T080000Z", rack, T0, frozenset({"a", "b"}))
    [a] = firing(Facts(domains=(incident,)), T0, SETTINGS)
    assert a.name is AlertName.DOMAIN_INCIDENT and a.labels()["failure_domain"] == str(rack)
    assert a.incident == incident.id and "2 nodes" in a.summary


def test_a_stopped_job_alerts_until_it_runs_again_or_its_hold_ends() -> None:
    stopped = JobFact("team/llm", "team/llm#2/failure", 2, T0, "user error: budget spent")
    failed = JobFact("team/vit", "team/vit#1/failure", 1, T0, "requeue failed", failed=True)
    facts = Facts(jobs=(stopped, failed), latest_attempts={"team/llm": 2, "team/vit": 1})
    alerts = firing(facts, T0 + HOUR, SETTINGS)
    assert [(a.name, a.labels()["job"]) for a in alerts] == [
        (AlertName.JOB_RECOVERY_FAILED, "team/vit"), (AlertName.JOB_STOPPED, "team/llm"),
    ]  # fmt: skip
    assert names(facts, T0 + 2 * HOUR) == []
    ran_again = Facts(jobs=(stopped,), latest_attempts={"team/llm": 3})
    assert names(ran_again, T0 + HOUR) == []


def test_dry_run_marks_every_alert_and_links_point_at_the_api() -> None:
    settings = AlertSettings(dry_run=True, link="https://ar.example/")
    facts = Facts(nodes=(node(NodeState.NEEDS_ATTENTION),), breaker=BreakerState(T0, "x"))
    alerts = firing(facts, T0, settings)
    assert all(a.labels()["dry_run"] == "true" for a in alerts)
    assert alerts[1].link == "https://ar.example/api/v1/nodes/n1"
    job = JobFact("team/llm", "team/llm#2/failure", 2, T0, "stopped")
    [stopped] = firing(Facts(jobs=(job,)), T0, settings)
    assert stopped.link == "https://ar.example/api/v1/incidents/team/llm%232/failure"


def test_the_same_facts_give_the_same_alerts() -> None:
    facts = Facts(nodes=(node(NodeState.NEEDS_ATTENTION),), breaker=BreakerState(T0, "x"))
    assert firing(facts, T0 + 5 * HOUR, SETTINGS) == firing(facts, T0 + 5 * HOUR, SETTINGS)
