"""The fakes with time: a remedy takes its time and cures what it can; a diagnostic answers
from the truth once it has run; cordons are counted and their lifting wakes the queue."""

from __future__ import annotations

from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.records import NodeAction
from autorecover.simulation.events import EventQueue, SimClock
from autorecover.simulation.fleet import Broken, Fleet
from autorecover.simulation.ports import SimDiagnostics, SimScheduler

REPAIR = {"reset_s": 120.0, "reboot_s": 900.0, "diagnose_s": 600.0, "validate_s": 900.0}


def _prov(clock: SimClock, aid: str) -> Provenance:
    return Provenance(aid, "autorecover", "test", clock.now())


def _rig() -> tuple[EventQueue, Fleet, SimScheduler, SimDiagnostics, list[str]]:
    clock = SimClock()
    queue = EventQueue(clock)
    fleet = Fleet(8, 4, 1, 4, [1.0] * 8)
    said: list[str] = []
    scheduler = SimScheduler(queue, fleet, REPAIR, lambda: said.append("wake"),
                             lambda n: said.append(f"cordon {n}"),
                             lambda: said.append("capacity"))  # fmt: skip
    diagnostics = SimDiagnostics(queue, fleet, scheduler, REPAIR, lambda: said.append("wake"))
    return queue, fleet, scheduler, diagnostics, said


def test_a_reboot_takes_its_time_and_a_diagnostic_waits_for_it() -> None:
    queue, fleet, scheduler, diagnostics, said = _rig()
    clock = queue.clock
    fleet.broken[3] = Broken("gpu_hbm3", "reboot", 0.0)
    scheduler.reset_gpu("n00003", None, _prov(clock, "a1"))
    queue.run(until=200.0)
    assert 3 in fleet.broken  # a reset does not cure what needs a reboot
    scheduler.reboot("n00003", _prov(clock, "a2"))
    diagnostics.start("n00003", DiagnosticLevel.LOAD, _prov(clock, "a3"))
    queue.run(until=200.0 + 900.0 + 899.0)
    assert diagnostics.result("a3") is None  # the reboot, then 900 s of validation
    queue.run(until=200.0 + 900.0 + 901.0)
    result = diagnostics.result("a3")
    assert result is not None and result.verdict is Verdict.PASS
    assert 3 not in fleet.broken and said.count("wake") == 3


def test_a_broken_node_fails_its_diagnostic_with_the_remedy_it_needs() -> None:
    queue, fleet, _, diagnostics, _ = _rig()
    fleet.broken[5] = Broken("faulty_gpu", "rma", 0.0)
    diagnostics.start("n00005", DiagnosticLevel.QUICK, _prov(queue.clock, "d1"))
    diagnostics.start("n00005", DiagnosticLevel.QUICK, _prov(queue.clock, "d1"))  # once per id
    queue.run(until=601.0)
    result = diagnostics.result("d1")
    assert result is not None and result.verdict is Verdict.FAIL
    assert result.recommended is NodeAction.INSPECT and "rma" in result.evidence[0]


def test_cordons_are_counted_once_and_a_resume_frees_capacity() -> None:
    queue, _, scheduler, _, said = _rig()
    clock = queue.clock
    scheduler.cordon("n00002", _prov(clock, "c1"))
    scheduler.cordon("n00002", _prov(clock, "c1"))
    assert scheduler.held == {2} and said == ["cordon 2"]
    scheduler.nodes["n00002"].running_jobs = 1
    scheduler.drain("n00002", _prov(clock, "c2"))
    assert scheduler.observe(["n00002"])["n00002"].running_jobs == 1  # waits for the job
    scheduler.resume("n00002", _prov(clock, "c3"))
    assert scheduler.held == set() and said[-1] == "capacity"
