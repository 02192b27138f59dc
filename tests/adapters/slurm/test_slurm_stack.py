"""`serve --scheduler slurm`'s stack: failure domains from node features, the placeholder
diagnostics, and the registry's `auto` choice."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.schedulers import SCHEDULERS, SchedulerOptions, detect, open_stack
from autorecover.adapters.slurm.commands import Commands, Completed
from autorecover.adapters.slurm.jobs import SlurmJobs
from autorecover.adapters.slurm.nodes import SlurmScheduler
from autorecover.adapters.slurm.stack import (
    UNVALIDATED,
    DomainFeature,
    UnvalidatedDiagnostics,
    domain_features_from,
    read_features,
    slurm_stack,
    topology_from_features,
)
from autorecover.controllers.ports import Provenance
from autorecover.domain.failure_domains import DomainKind, FailureDomain
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict
from autorecover.domain.jobs.settings import SitePolicy

# The shape of `sinfo --noheader --Node --format=%N|%f` (written here, not recorded from a
# cluster): one line per node and partition, "(null)" for a node without features.
SINFO = """\
gpu01|rack_r1,nvl_a,ib_l1
gpu01|rack_r1,nvl_a,ib_l1
gpu02|rack_r1,nvl_b
gpu03|(null)
bad name|rack_r9
"""


class Canned:
    """A `Runner` answering every command with one output, recording the commands."""

    def __init__(self, stdout: str) -> None:
        self.stdout = stdout
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout_s: float) -> Completed:
        self.calls.append(tuple(argv))
        return Completed(tuple(argv), 0, self.stdout, "")


def test_slurm_is_a_registered_scheduler() -> None:
    assert SCHEDULERS["slurm"] == "autorecover.adapters.slurm.stack"


def test_slurm_domain_feature_flags_parse_and_refuse_naming_the_flag() -> None:
    assert domain_features_from(["rack=rack_", "nvlink=nvl_"]) == (
        DomainFeature(DomainKind.RACK, "rack_"), DomainFeature(DomainKind.NVLINK, "nvl_"))  # fmt: skip
    for bad in ("rack", "rack=", "row=row_"):
        with pytest.raises(ValueError, match="--slurm-domain-feature"):
            domain_features_from([bad])


def test_slurm_features_read_once_per_node_without_null_or_bad_names() -> None:
    runner = Canned(SINFO)
    found = read_features(Commands(runner))
    assert found == {"gpu01": ("rack_r1", "nvl_a", "ib_l1"), "gpu02": ("rack_r1", "nvl_b"),
                     "gpu03": ()}  # fmt: skip
    assert runner.calls == [("sinfo", "--noheader", "--Node", "--format=%N|%f")]


def test_slurm_topology_from_features_lists_every_node() -> None:
    features = {"gpu01": ("rack_r1", "nvl_a"), "gpu02": ("rack_r1", "nvl_b"), "gpu03": ()}
    domains = domain_features_from(["rack=rack_", "nvlink=nvl_"])
    topology = topology_from_features(features, domains)
    assert set(topology.domains) == {"gpu01", "gpu02", "gpu03"}
    assert set(topology.domains["gpu01"]) == {
        FailureDomain(DomainKind.RACK, "r1"), FailureDomain(DomainKind.NVLINK, "a")}  # fmt: skip
    assert topology.domains["gpu03"] == ()
    assert topology_from_features({"gpu01": ("rack_",)}, domains).domains["gpu01"] == ()


def test_slurm_stack_hosts_both_services_with_placeholder_diagnostics_that_say_so() -> None:
    clock = FakeClock()
    scheduler = SlurmScheduler(Canned(SINFO))
    stack = slurm_stack(scheduler, clock, SitePolicy(), domain_features_from(["rack=rack_"]))
    assert stack.nodes is scheduler and isinstance(stack.jobs, SlurmJobs)
    assert stack.leases is None
    assert {d.name for d in stack.topology.domains["gpu02"]} == {"r1"}
    provenance = Provenance("gpu01/3/diagnose", "autorecover", "why", datetime.now(UTC))
    stack.diagnostics.start("gpu01", DiagnosticLevel.QUICK, provenance)
    result = stack.diagnostics.result("gpu01/3/diagnose")
    assert result is not None and result.verdict is Verdict.PASS
    assert result.evidence == (UNVALIDATED,) and "not validated" in UNVALIDATED
    assert stack.diagnostics.result("never-started") is None
    mine = UnvalidatedDiagnostics(clock)
    plugged = slurm_stack(scheduler, clock, SitePolicy(), diagnostics=mine)
    assert plugged.diagnostics is mine


def test_slurm_stack_refuses_a_missing_slurm_conf(tmp_path: Path) -> None:
    options = SchedulerOptions(slurm_conf=tmp_path / "slurm.conf")
    with pytest.raises(ValueError, match=r"--slurm-conf .*slurm\.conf: no such file"):
        open_stack("slurm", options, FakeClock())


def test_slurm_auto_scheduler_is_kubernetes_in_a_pod_then_slurm_never_the_fake() -> None:
    def found(name: str) -> str | None:
        return "/usr/bin/scontrol" if name == "scontrol" else None

    def nothing(name: str) -> str | None:
        return None

    assert detect({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, found) == "kubernetes"
    assert detect({}, found) == "slurm"
    with pytest.raises(ValueError, match="name the cluster with --scheduler"):
        detect({}, nothing)
