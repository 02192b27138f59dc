"""`LoadValidation`: the node's own diagnostic, then the pair test, on in-memory fakes."""

from __future__ import annotations

from autorecover.adapters.fakes.cluster import START, FakeClock, FakeDiagnostics, Scripted
from autorecover.adapters.validating import PAIR_SUFFIX, LoadValidation, worst
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.records import NodeAction

PROV = Provenance("validate/gpu01/1", "test", "validation", START)


def _rig() -> tuple[FakeClock, FakeDiagnostics, FakeDiagnostics, LoadValidation]:
    clock = FakeClock()
    inner, pair = FakeDiagnostics(clock), FakeDiagnostics(clock)
    return clock, inner, pair, LoadValidation(inner, pair)


def test_quick_goes_to_the_node_alone() -> None:
    _, inner, pair, load = _rig()
    load.start("gpu01", DiagnosticLevel.QUICK, PROV)
    result = load.result(PROV.action_id)
    assert result is not None and result.verdict is Verdict.PASS
    assert list(inner.started) == [PROV.action_id] and pair.started == {}


def test_load_runs_the_pair_test_after_the_node_passes() -> None:
    _, _, pair, load = _rig()
    pair.script("gpu01", Scripted(Verdict.FAIL, NodeAction.INSPECT, ("busbw 3 GB/s < 32",)))
    load.start("gpu01", DiagnosticLevel.LOAD, PROV)
    assert pair.started == {}  # not before the node's own diagnostic passed
    result = load.result(PROV.action_id)
    assert list(pair.started) == [PROV.action_id + PAIR_SUFFIX]
    assert result is not None and result.id == PROV.action_id
    assert result.verdict is Verdict.FAIL and result.recommended is NodeAction.INSPECT
    assert result.evidence == ("fake: default", "busbw 3 GB/s < 32")


def test_waits_for_the_pair_test() -> None:
    clock = FakeClock()
    inner, pair = FakeDiagnostics(clock), FakeDiagnostics(clock, duration_s=60)
    load = LoadValidation(inner, pair)
    load.start("gpu01", DiagnosticLevel.LOAD, PROV)
    assert load.result(PROV.action_id) is None
    clock.advance(61)
    result = load.result(PROV.action_id)
    assert result is not None and result.verdict is Verdict.PASS
    assert len(pair.started) == 1 and pair.calls[PROV.action_id + PAIR_SUFFIX] == 1


def test_a_node_that_fails_alone_gets_no_pair_test() -> None:
    _, inner, pair, load = _rig()
    inner.script("gpu01", Verdict.FAIL)
    load.start("gpu01", DiagnosticLevel.LOAD, PROV)
    result = load.result(PROV.action_id)
    assert result is not None and result.verdict is Verdict.FAIL and pair.started == {}


def test_after_a_restart_the_node_comes_from_the_inner_result() -> None:
    _, inner, pair, load = _rig()
    load.start("gpu01", DiagnosticLevel.LOAD, PROV)
    again = LoadValidation(inner, pair)  # a new process: inner still knows its run
    result = again.result(PROV.action_id)
    assert result is not None and result.verdict is Verdict.PASS
    ((node, _, _, _),) = pair.started.values()
    assert node == "gpu01"


def test_worst_orders_fail_error_skipped_pass() -> None:
    assert worst(Verdict.PASS, Verdict.ERROR) is Verdict.ERROR
    assert worst(Verdict.ERROR, Verdict.FAIL) is Verdict.FAIL
    assert worst(Verdict.PASS, Verdict.PASS) is Verdict.PASS
    assert worst(Verdict.SKIPPED, Verdict.PASS) is Verdict.SKIPPED
