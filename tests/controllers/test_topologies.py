"""The failure-domain map both services share: hardware recovery learns the cliques agents
report, job recovery reads them; a controller rebuilt under a new fence keeps them."""

from __future__ import annotations

from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.topologies import TopologyBook
from autorecover.domain.failure_domains import CLIQUE_SIGNAL, DomainKind, FailureDomain, Topology
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe
from controllers.hardware.rig import Rig

CU = FailureDomain(DomainKind.NVLINK, "cu.7")


def test_learn_adds_cliques_only_where_labels_say_nothing() -> None:
    book = TopologyBook(Topology.from_labels({"a": {"nvlink": "label"}, "b": {"rack": "r"}}))
    assert book.learn({"a": "cu.7", "b": "cu.7"})
    assert book.current().nvlink_of("a") == FailureDomain(DomainKind.NVLINK, "label")
    assert book.current().nvlink_of("b") == CU
    assert not book.learn({"b": "cu.8", "c": ""})  # known already, or nothing said


def test_what_hardware_recovery_learns_is_what_job_recovery_reads() -> None:
    rig = Rig(["n0", "n1"])
    book = TopologyBook(rig.topology)
    hardware = HardwareController(
        store=rig.store, scheduler=rig.scheduler, diagnostics=rig.diagnostics,
        notifier=rig.notifier, clock=rig.clock, policy=rig.policy, book=book,
    )  # fmt: skip
    said = rig.signal(
        "n1", CLIQUE_SIGNAL, NodeAction.NONE, Blame.INFO, Probe.FABRIC,
        details=(("clique", "cu.7"),),
    )  # fmt: skip
    hardware.ingest([said])
    jobs_view = book.current  # what the wiring hands job recovery
    assert jobs_view().members(CU) == {"n1"}
    # A controller rebuilt (a new fence) starts from the book, not from the labels alone.
    again = HardwareController(
        store=rig.store, scheduler=rig.scheduler, diagnostics=rig.diagnostics,
        notifier=rig.notifier, clock=rig.clock, policy=rig.policy, book=book,
    )  # fmt: skip
    assert again.topology.nvlink_of("n1") == CU
