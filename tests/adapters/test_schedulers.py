"""The scheduler registry: names to stacks, one `open_stack` shape, opened only on demand."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.local.scheduler import LocalScheduler
from autorecover.adapters.schedulers import SCHEDULERS, SchedulerOptions, open_stack, stack_opener
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict


def _prov(aid: str, clock: FakeClock) -> Provenance:
    return Provenance(aid, "autorecover", "why", clock.now())


def test_an_unknown_scheduler_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown scheduler 'pbs' \(expected one of fake, local"):
        stack_opener("pbs")


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_every_registered_stack_module_opens_with_the_same_signature(name: str) -> None:
    module = importlib.import_module(SCHEDULERS[name])
    signature = inspect.signature(module.open_stack)
    assert list(signature.parameters) == ["options", "clock", "site"]
    assert signature.return_annotation == "SchedulerStack"
    assert stack_opener(name) is module.open_stack


def test_importing_the_registry_imports_no_cluster_client() -> None:
    code = (
        "import sys, autorecover.adapters.schedulers\n"
        "heavy = {'lightkube', 'httpx2', 'psycopg'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m.startswith('autorecover.adapters.kubernetes.stack')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_fake_stack_journals_its_nodes_and_diagnostics(tmp_path: Path) -> None:
    clock = FakeClock()
    options = SchedulerOptions(fake_state=tmp_path / "cluster.jsonl", diagnostics_s=10)
    stack = open_stack("fake", options, clock)
    assert stack.jobs is None and stack.leases is None
    stack.nodes.cordon("n1", _prov("n1/1/cordon", clock))
    stack.diagnostics.start("n1", DiagnosticLevel.QUICK, _prov("n1/2/diagnose", clock))
    stack.close()
    clock.advance(10)
    again = open_stack("fake", options, clock)  # a restarted engine sees what was done
    assert again.nodes.observe(["n1"])["n1"].cordoned_by == {"autorecover"}
    result = again.diagnostics.result("n1/2/diagnose")
    assert result is not None and result.verdict is Verdict.PASS


def test_the_local_stack_serves_both_recovery_services(tmp_path: Path) -> None:
    clock = FakeClock()
    options = SchedulerOptions(local_root=tmp_path / "jobs", local_nodes=("n1", "n2"),
                               diagnostics_s=5)  # fmt: skip
    stack = open_stack("local", options, clock)
    assert isinstance(stack.nodes, LocalScheduler) and stack.jobs is stack.nodes
    assert stack.jobs.watched() == []
    stack.nodes.cordon("n1", _prov("n1/1/cordon", clock))
    assert set(stack.nodes.cordoned()) == {"n1"}
    stack.diagnostics.start("n1", DiagnosticLevel.QUICK, _prov("n1/2/diagnose", clock))
    stack.diagnostics.start("n1", DiagnosticLevel.QUICK, _prov("n1/2/diagnose", clock))
    assert stack.diagnostics.result("n1/2/diagnose") is None  # still running
    clock.advance(5)
    result = stack.diagnostics.result("n1/2/diagnose")
    assert result is not None and result.verdict is Verdict.PASS and result.node == "n1"
    assert stack.diagnostics.result("never-started") is None


@pytest.mark.parametrize(
    "options",
    [SchedulerOptions(local_nodes=("n1",)), SchedulerOptions(local_root=Path("/tmp/jobs"))],
)
def test_the_local_stack_names_the_options_it_lacks(options: SchedulerOptions) -> None:
    with pytest.raises(ValueError, match="--local-root and --local-nodes"):
        open_stack("local", options, FakeClock())
