"""The alert record and `plan`: labels, fingerprints, resolution, and what each pass sends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.alerts import Alert, AlertName, AlertSettings, Sent, Severity, plan

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def alert(key: str = "a", **kw: object) -> Alert:
    return Alert(key, T0, f"summary {key}", **kw)  # type: ignore[arg-type]


def test_labels_leave_empty_values_out_and_name_the_condition() -> None:
    a = Alert(
        "x", T0, "n1 needs a person", "n1", "hw/n1/1", name=AlertName.NODE_NEEDS_ATTENTION,
        severity=Severity.WARNING, domain="rack:r1",
    )  # fmt: skip
    assert a.labels() == {
        "alertname": "AutorecoverNodeNeedsAttention", "severity": "warning", "node": "n1",
        "incident": "hw/n1/1", "failure_domain": "rack:r1",
    }  # fmt: skip
    assert alert(dry_run=True).labels()["dry_run"] == "true"
    assert "dry_run" not in alert().labels()


def test_fingerprint_follows_the_labels_only() -> None:
    a = alert(node="n1")
    assert a.fingerprint() == alert("other id", node="n1", description="more").fingerprint()
    assert a.fingerprint() != alert(node="n2").fingerprint()
    assert len(a.fingerprint()) == 16


def test_an_alert_resolves_never_before_it_began() -> None:
    a = alert()
    assert not a.resolved and a.status == "firing"
    done = a.ended(T0 + MINUTE)
    assert done.resolved and done.status == "resolved" and done.ends_at == T0 + MINUTE
    assert a.ended(T0 - MINUTE).ends_at == T0


def test_plan_sends_new_alerts_once_until_due_again() -> None:
    a, b = alert("a"), alert("b")
    out, sent = plan({}, [a, b], T0, MINUTE)
    assert out == (a, b) and set(sent) == {"a", "b"}
    out, sent = plan(sent, [a, b], T0 + MINUTE / 2, MINUTE)
    assert out == ()
    out, sent = plan(sent, [a, b], T0 + MINUTE, MINUTE)
    assert out == (a, b) and sent["a"].at == T0 + MINUTE


def test_plan_repeats_with_the_latest_text() -> None:
    _, sent = plan({}, [alert("a")], T0, MINUTE)
    newer = alert("a", description="now worse")
    _, sent = plan(sent, [newer], T0 + MINUTE / 2, MINUTE)
    assert sent["a"] == Sent(newer, T0)  # remembered, not yet sent
    out, _ = plan(sent, [newer], T0 + MINUTE, MINUTE)
    assert out == (newer,)


def test_plan_resolves_what_no_longer_holds_once() -> None:
    a, b = alert("a"), alert("b")
    _, sent = plan({}, [a, b], T0, MINUTE)
    out, sent = plan(sent, [b], T0 + 10 * MINUTE, MINUTE)
    assert [x.id for x in out] == ["b", "a"]
    assert out[1].resolved and out[1].ends_at == T0 + 10 * MINUTE and not out[0].resolved
    assert set(sent) == {"b"}
    out, _ = plan(sent, [b], T0 + 10 * MINUTE, MINUTE)
    assert out == ()


@pytest.mark.parametrize("name", ["out_of_service_budget", "job_hold", "resend"])
def test_settings_refuse_non_positive_durations(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        AlertSettings(**{name: timedelta(0)})  # type: ignore[arg-type]
