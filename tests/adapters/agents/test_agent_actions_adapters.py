"""The agent-run ports on the memory order book: scheduler actions delegated, resets and
reboots as orders (Underway while they run, done, refused, expired), diagnostics as orders
with a quick one's bundle, and Slurm's reboot left to the scheduler."""

from __future__ import annotations

from datetime import timedelta

import pytest

from autorecover.adapters.agents.actions import AgentNodeActions, gpus_of
from autorecover.adapters.agents.diagnostics import AgentDiagnostics, incident_start
from autorecover.adapters.agents.settings import OrderSettings
from autorecover.adapters.fakes.cluster import FakeClock, FakeScheduler
from autorecover.adapters.store.memory_orders import MemoryOrderBook
from autorecover.controllers.ports import PermanentError, Provenance, Underway
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.orders import OrderKind, OrderReport, OrderStatus, OrderVerdict

S = OrderStatus


def prov(clock: FakeClock, aid: str = "n1/4/reset_gpu") -> Provenance:
    evidence = ("2026-01-05T07:58:00Z kernel:xid.79@0000:18:00 NVRM: Xid 79",)
    return Provenance(aid, "autorecover", "remediate: reset_gpu", clock.now(), evidence, "hw/n1")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def book() -> MemoryOrderBook:
    return MemoryOrderBook()


def test_agent_actions_gpus_are_named_by_bus_id_or_not_at_all() -> None:
    assert gpus_of("0000:18:00.0") == ["0000:18:00.0"]
    assert gpus_of("0000:BA:00") == ["0000:ba:00.0"]  # as XID lines name them
    assert gpus_of("PCI:0000:18:00") == ["0000:18:00.0"]
    assert gpus_of(None) == [] and gpus_of("GPU-1234") == [] and gpus_of("0; reboot") == []


def test_agent_actions_scheduler_actions_stay_the_schedulers(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    scheduler = FakeScheduler(clock, ["n1"])
    nodes = AgentNodeActions(scheduler, book, clock)
    for step in ("cordon", "drain"):
        getattr(nodes, step)("n1", prov(clock, f"n1/1/{step}"))
    nodes.taint("n1", "autorecover.io/quarantined", prov(clock, "n1/1/taint"))
    assert set(nodes.observe(["n1"])) == {"n1"} and "n1" in nodes.cordoned()
    nodes.resume("n1", prov(clock, "n1/2/resume"))
    assert [k for k, _, _ in scheduler.log] == ["cordon", "drain", "taint", "resume"]
    assert book.for_node("n1") == []


def test_agent_actions_a_reset_is_an_order_underway_until_its_agent_reports(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    scheduler = FakeScheduler(clock, ["n1"])
    nodes = AgentNodeActions(scheduler, book, clock)
    with pytest.raises(Underway):
        nodes.reset_gpu("n1", "0000:18:00", prov(clock))
    (order,) = book.pending_for("n1")
    assert order.kind is OrderKind.RESET_GPU and order.args["gpus"] == ("0000:18:00.0",)
    assert order.deadline == clock.now() + timedelta(seconds=300) and order.incident == "hw/n1"
    book.report(order.id, OrderReport("n1", S.RUNNING), clock.now())
    with pytest.raises(Underway):
        nodes.reset_gpu("n1", "0000:18:00", prov(clock))  # asked again: the same order
    assert len(book.for_node("n1")) == 1
    book.report(order.id, OrderReport("n1", S.DONE, "reset 0000:18:00.0"), clock.now())
    nodes.reset_gpu("n1", "0000:18:00", prov(clock))  # done: returns
    assert scheduler.log == []  # the scheduler reset nothing


def test_agent_actions_a_refused_reset_fails_with_the_agents_words(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    nodes = AgentNodeActions(FakeScheduler(clock, ["n1"]), book, clock)
    with pytest.raises(Underway):
        nodes.reset_gpu("n1", None, prov(clock))
    assert book.pending_for("n1")[0].args["gpus"] == ()  # every GPU of the drained node
    book.report("n1/4/reset_gpu", OrderReport("n1", S.REFUSED, "processes hold the GPU: python"),
                clock.now())  # fmt: skip
    with pytest.raises(PermanentError, match="refused by the agent on n1: processes hold the GPU"):
        nodes.reset_gpu("n1", None, prov(clock))


def test_agent_actions_an_unanswered_order_expires_at_its_deadline(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    settings = OrderSettings(reboot_s=900)
    nodes = AgentNodeActions(FakeScheduler(clock, ["n1"]), book, clock, settings=settings)
    with pytest.raises(Underway):
        nodes.reboot("n1", prov(clock, "n1/5/reboot"))
    clock.advance(899)
    with pytest.raises(Underway):
        nodes.reboot("n1", prov(clock, "n1/5/reboot"))
    clock.advance(1)
    with pytest.raises(PermanentError, match="no report from the agent within 900 s"):
        nodes.reboot("n1", prov(clock, "n1/5/reboot"))
    assert book.get("n1/5/reboot").status is S.EXPIRED  # type: ignore[union-attr]
    assert book.pending_for("n1") == []


def test_agent_actions_slurm_reboots_through_the_scheduler(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    scheduler = FakeScheduler(clock, ["n1"])
    nodes = AgentNodeActions(scheduler, book, clock, reboot_by_agent=False)
    nodes.reboot("n1", prov(clock, "n1/5/reboot"))
    assert scheduler.nodes["n1"].reboots == 1 and book.for_node("n1") == []


def test_agent_actions_a_quick_diagnostic_is_a_level_1_order_and_a_bundle(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    diagnostics = AgentDiagnostics(book, clock)
    p = prov(clock, "n1/2/diagnose")
    diagnostics.start("n1", DiagnosticLevel.QUICK, p)
    diagnostics.start("n1", DiagnosticLevel.QUICK, p)  # once per action id
    diag, bundle = book.pending_for("n1")
    assert diag.id == "n1/2/diagnose" and diag.args == {"level": 1}
    assert diag.deadline == clock.now() + timedelta(seconds=600)
    assert bundle.id == "n1/2/diagnose#bundle" and bundle.kind is OrderKind.COLLECT_BUNDLE
    # The kernel log from ten minutes before the first evidence until now.
    assert bundle.args == {
        "since": "2026-01-05T07:48:00+00:00",
        "until": "2026-01-05T08:00:00+00:00",
    }
    assert incident_start(p).isoformat() == "2026-01-05T07:58:00+00:00"
    assert diagnostics.result("n1/2/diagnose") is None
    book.report(diag.id, OrderReport("n1", S.DONE, "dcgmi diag -r 1", OrderVerdict.FAIL,
                                     ("Memory: Fail: GPU 0 DBE",)), clock.now())  # fmt: skip
    got = diagnostics.result("n1/2/diagnose")
    assert got is not None and got.verdict is Verdict.FAIL and got.level is DiagnosticLevel.QUICK
    assert got.evidence == ("dcgmi diag -r 1: done: dcgmi diag -r 1", "Memory: Fail: GPU 0 DBE")
    assert diagnostics.result("n1/9/diagnose") is None


def test_agent_actions_a_validation_is_level_3_and_failures_are_errors(
    clock: FakeClock, book: MemoryOrderBook
) -> None:
    diagnostics = AgentDiagnostics(book, clock)
    diagnostics.start("n1", DiagnosticLevel.LOAD, prov(clock, "n1/6/validate"))
    (order,) = book.pending_for("n1")  # no bundle before a return
    assert order.args == {"level": 3} and order.deadline == clock.now() + timedelta(hours=1)
    book.report(order.id, OrderReport("n1", S.FAILED, "dcgmi: no such host engine"), clock.now())
    got = diagnostics.result("n1/6/validate")
    assert got is not None and got.verdict is Verdict.ERROR and got.level is DiagnosticLevel.LOAD
    diagnostics.start("n1", DiagnosticLevel.LOAD, prov(clock, "n1/6/validate/1"))
    clock.advance(3600)
    late = diagnostics.result("n1/6/validate/1")
    assert late is not None and late.verdict is Verdict.ERROR
    assert "no report from the agent within 3600 s" in late.evidence[0]
