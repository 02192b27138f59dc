"""The fakes behave as the real adapters must: idempotent by action id, people's cordons
kept, time only from the injected clock."""

from __future__ import annotations

import pytest

from autorecover.adapters.fakes.cluster import (
    START,
    FakeClock,
    FakeDiagnostics,
    FakeNotifier,
    FakeScheduler,
    Scripted,
)
from autorecover.controllers.ports import Alert, PermanentError, Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.records import NodeAction


def prov(aid: str) -> Provenance:
    return Provenance(aid, "autorecover", "why", START)


def test_the_clock_moves_only_when_told() -> None:
    clock = FakeClock()
    assert clock.now() == START
    assert clock.advance(90) == clock.now()
    assert (clock.now() - START).total_seconds() == 90


def test_scheduler_actions_are_idempotent_by_id() -> None:
    s = FakeScheduler(FakeClock(), ["n1"])
    s.cordon("n1", prov("a1"))
    s.cordon("n1", prov("a1"))
    s.reboot("n1", prov("a2"))
    s.reboot("n1", prov("a2"))
    assert s.calls == {"a1": 2, "a2": 2}
    assert s.effects == {"a1": 1, "a2": 1}
    assert s.nodes["n1"].reboots == 1
    assert s.log == [("cordon", "n1", "a1"), ("reboot", "n1", "a2")]


def test_our_resume_leaves_a_persons_cordon() -> None:
    s = FakeScheduler(FakeClock(), ["n1"])
    s.person_cordon("n1", "bob", "bios update")
    s.cordon("n1", prov("a1"))
    s.taint("n1", "autorecover.io/quarantined", prov("a2"))
    assert set(s.cordoned()["n1"].cordoned_by) == {"bob", "autorecover"}
    s.resume("n1", prov("a3"))
    view = s.observe(["n1"])["n1"]
    assert view.cordoned_by == frozenset({"bob"}) and view.taints == frozenset()
    assert not s.schedulable("n1")
    s.person_uncordon("n1", "bob")
    assert s.schedulable("n1") and s.cordoned() == {}


def test_drain_takes_its_time_on_the_clock() -> None:
    clock = FakeClock()
    s = FakeScheduler(clock, ["n1"], running_jobs=3, drain_s=60)
    s.drain("n1", prov("d"))
    assert s.observe(["n1", "unknown"])["n1"].running_jobs == 3
    clock.advance(60)
    assert s.observe(["n1"])["n1"].running_jobs == 0


def test_injected_failures_are_raised_and_counted() -> None:
    s = FakeScheduler(FakeClock(), ["n1"])
    s.failures[("drain", "n1")] = PermanentError("no")
    with pytest.raises(PermanentError):
        s.drain("n1", prov("d"))
    assert s.calls["d"] == 1 and s.effects["d"] == 0


def test_diagnostics_follow_the_script_then_the_default_after_their_duration() -> None:
    clock = FakeClock()
    d = FakeDiagnostics(clock, duration_s=30)
    d.script("n1", Scripted(Verdict.FAIL, NodeAction.REBOOT, ("dcgm: xid 79",)))
    d.start("n1", DiagnosticLevel.QUICK, prov("q"))
    d.start("n1", DiagnosticLevel.QUICK, prov("q"))  # idempotent: the script is not consumed twice
    d.start("n1", DiagnosticLevel.LOAD, prov("l"))
    assert d.result("q") is None and d.result("unknown") is None
    clock.advance(30)
    first, second = d.result("q"), d.result("l")
    assert first is not None and second is not None
    assert (first.verdict, first.recommended, first.evidence) == (
        Verdict.FAIL,
        NodeAction.REBOOT,
        ("dcgm: xid 79",),
    )
    assert second.verdict is Verdict.PASS and second.level is DiagnosticLevel.LOAD
    assert d.calls == {"q": 2, "l": 1}


def test_notifier_keeps_one_alert_per_id() -> None:
    n = FakeNotifier()
    n.alert(Alert("x", START, "first"))
    n.alert(Alert("x", START, "again"))
    assert n.alerts["x"].summary == "first" and n.calls["x"] == 2
