"""The NCCL pair test on the real Slurm cluster: reservation, job, parsing, judging, clean-up.

Everything here is real but `all_reduce_perf`: the reservation, the resume, the `sbatch`
job with `srun` on two nodes, the output file, the drain and the reservation's deletion.
`all_reduce_perf` is a stand-in (there are no GPUs) that replays an output published by
people who ran it (tests/fixtures/nccl/README.md) and records how it was called.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.slurm import SlurmScheduler, SubprocessRunner, node_status
from autorecover.adapters.slurm.errors import SlurmNotFoundError
from autorecover.adapters.slurm.states import NodeCondition
from autorecover.adapters.slurm.validation import SlurmPairValidation, pair_name
from autorecover.adapters.validating import LoadValidation
from autorecover.controllers.ports import Provenance
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.hardware.validation import NcclSettings
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.standins import StandIns

NCCL = Path(__file__).parents[2] / "fixtures" / "nccl"
TOPOLOGY = Topology.from_labels({
    "gpu01": {"rack": "r1"}, "gpu02": {"rack": "r1"},
    "gpu03": {"rack": "r2"}, "gpu04": {"rack": "r2"},
})  # fmt: skip
SETTINGS = NcclSettings(end_bytes=8 << 30, min_bytes=1 << 28, timeout_s=120.0)
_SERIAL = iter(range(1, 10_000))


class _Passing:
    """The node's own diagnostic (DCGM in production): passes at once."""

    def __init__(self) -> None:
        self.started: dict[str, str] = {}

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        self.started[provenance.action_id] = node

    def result(self, action_id: str) -> DiagnosticResult | None:
        node = self.started.get(action_id)
        if node is None:
            return None
        return DiagnosticResult(action_id, node, DiagnosticLevel.LOAD, Verdict.PASS,
                                datetime.now(UTC), evidence=("dcgm: pass",))  # fmt: skip


def _rig(slurm: SlurmHarness, tmp_path: Path, output: str) -> tuple[SlurmPairValidation, StandIns]:
    kit = StandIns(tmp_path / "standins")
    kit.answer("all_reduce_perf", r"^-b 8 -e ", stdout=NCCL / output)
    env = {**slurm.cluster.env, "PATH": kit.path(slurm.cluster.env["PATH"].split(":"))}
    scheduler = SlurmScheduler(SubprocessRunner(env, inherit=False))
    spool = slurm.cluster.base / "jobs" / f"validation-{tmp_path.name}"
    port = SlurmPairValidation(scheduler, SETTINGS, TOPOLOGY, spool, user="root")
    return port, kit


def _provenance(why: str) -> Provenance:
    return Provenance(f"validate/gpu01/{next(_SERIAL)}/{time.time_ns()}", "pytest", why,
                      datetime.now(UTC), ("test",), "inc-val")  # fmt: skip


def _wait(read, timeout_s: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while True:
        found = read()
        if found is not None:
            return found
        assert time.monotonic() < deadline, "no result in time"
        time.sleep(0.1)


def _reservation_gone(slurm: SlurmHarness, name: str) -> bool:
    try:
        slurm.scheduler.commands.read(["scontrol", "show", "reservation", name])
    except SlurmNotFoundError:
        return True
    return False


def test_slurm_pair_test_passes_and_returns_the_node_by_deleting_the_reservation(
    slurm: SlurmHarness, tmp_path: Path
) -> None:
    port, kit = _rig(slurm, tmp_path, "h100-2node-ok.txt")
    prov = _provenance("validation after reboot")
    slurm.scheduler.nodes.drain("gpu01", None, prov)  # quarantined by us

    port.start("gpu01", DiagnosticLevel.LOAD, prov)
    name = pair_name(prov.action_id)
    assert not _reservation_gone(slurm, name)
    assert not node_status(slurm.scheduler.reader.node("gpu01")).drain  # into the reservation
    port.start("gpu01", DiagnosticLevel.LOAD, prov)  # again: nothing twice

    result = _wait(lambda: port.result(prov.action_id))
    assert result.verdict is Verdict.PASS, result.evidence
    assert "busbw 338.8 GB/s >= 80% of 340 GB/s expected within rack r1" in result.evidence[0]
    calls = kit.calls("all_reduce_perf")
    assert len(calls) == 2  # one task per node, one job
    assert sorted(c.env["SLURMD_NODENAME"] for c in calls) == ["gpu01", "gpu02"]
    assert sorted(c.env["SLURM_PROCID"] for c in calls) == ["0", "1"]
    assert calls[0].argv == ["-b", "8", "-e", str(8 << 30), "-f", "2", "-g", "8", "-n", "20",
                             "-w", "5", "-c", "1"]  # fmt: skip
    assert {c.env["SLURM_JOB_NAME"] for c in calls} == {name}
    assert _reservation_gone(slurm, name)
    after = slurm.scheduler.reader.node("gpu01")
    assert node_status(after).condition is NodeCondition.UP and not after.flags
    assert slurm.scheduler.nodes.resume("gpu01", prov).change == "not_needed"  # engine no-op
    ops = [r.operation for r in port.commands.journal.records]
    assert ops == ["reserve", "resume", "validate", "unreserve"]
    assert all(r.provenance.action_id == prov.action_id for r in port.commands.journal.records)
    assert port.result(prov.action_id) == result  # asked again: the same answer


def test_slurm_pair_test_with_slow_busbw_fails_and_drains_the_node_again(
    slurm: SlurmHarness, tmp_path: Path
) -> None:
    port, kit = _rig(slurm, tmp_path, "rtx3090-2node-slow.txt")
    prov = _provenance("validation after reset")
    slurm.scheduler.nodes.drain("gpu03", None, prov)
    port.start("gpu03", DiagnosticLevel.LOAD, prov)
    result = _wait(lambda: port.result(prov.action_id))
    assert result.verdict is Verdict.FAIL
    assert result.evidence[0].startswith("busbw 9.8 GB/s < 80% of 340 GB/s expected within rack r2")
    assert sorted(c.env["SLURMD_NODENAME"] for c in kit.calls("all_reduce_perf")) == [
        "gpu03", "gpu04"]  # fmt: skip
    node = slurm.scheduler.reader.node("gpu03")
    status = node_status(node)
    assert status.drain and status.ours, node
    assert "validation fail" in node.reason
    assert _reservation_gone(slurm, pair_name(prov.action_id))
    assert not slurm.scheduler.reader.node("gpu04").flags  # the peer is back as it was


def test_slurm_pair_test_without_a_peer_in_the_domain_is_an_error(
    slurm: SlurmHarness, tmp_path: Path
) -> None:
    port, kit = _rig(slurm, tmp_path, "h100-2node-ok.txt")
    prov = _provenance("validation")
    slurm.scheduler.nodes.drain("gpu01", None, prov)
    slurm.scheduler.nodes.drain("gpu02", None, _provenance("other"))  # the only rack peer
    port.start("gpu01", DiagnosticLevel.LOAD, prov)
    result = port.result(prov.action_id)
    assert result is not None and result.verdict is Verdict.ERROR
    assert "no known-good peer" in result.evidence[0]
    assert kit.calls() == [] and port.commands.journal.records == []  # nothing reserved


def test_slurm_pair_test_found_again_after_a_restart(slurm: SlurmHarness, tmp_path: Path) -> None:
    port, _ = _rig(slurm, tmp_path, "h100-2node-ok.txt")
    prov = _provenance("validation")
    slurm.scheduler.nodes.drain("gpu02", None, prov)
    port.start("gpu02", DiagnosticLevel.LOAD, prov)
    again, _ = _rig(slurm, tmp_path, "h100-2node-ok.txt")  # a new engine process
    again.start("gpu02", DiagnosticLevel.LOAD, prov)  # finds the job: submits nothing
    result = _wait(lambda: again.result(prov.action_id))
    assert result.verdict is Verdict.PASS
    assert [r.operation for r in again.commands.journal.records] == ["unreserve"]
    assert _reservation_gone(slurm, pair_name(prov.action_id))


def test_slurm_load_validation_runs_dcgm_then_the_pair_job(
    slurm: SlurmHarness, tmp_path: Path
) -> None:
    port, kit = _rig(slurm, tmp_path, "rtx3090-2node-wrong.txt")
    inner = _Passing()
    load = LoadValidation(inner, port)
    prov = _provenance("validation")
    slurm.scheduler.nodes.drain("gpu04", None, prov)
    load.start("gpu04", DiagnosticLevel.LOAD, prov)
    result = _wait(lambda: load.result(prov.action_id))
    assert result.verdict is Verdict.FAIL and result.id == prov.action_id
    assert result.evidence[0] == "dcgm: pass"
    assert "wrong all-reduce results: out of bounds values 108" in result.evidence[1]
    assert len(kit.calls("all_reduce_perf")) == 2
    assert node_status(slurm.scheduler.reader.node("gpu04")).drain


@pytest.mark.parametrize("level", [DiagnosticLevel.QUICK])
def test_slurm_load_validation_sends_quick_diagnostics_to_the_node_alone(
    slurm: SlurmHarness, tmp_path: Path, level: DiagnosticLevel
) -> None:
    port, kit = _rig(slurm, tmp_path, "h100-2node-ok.txt")
    inner = _Passing()
    load = LoadValidation(inner, port)
    prov = _provenance("diagnose")
    load.start("gpu01", level, prov)
    assert inner.started == {prov.action_id: "gpu01"}
    assert kit.calls() == [] and port.commands.journal.records == []


def test_the_clusters_reset_deletes_a_reservation_a_failed_test_left(slurm: SlurmHarness) -> None:
    """One pair test that timed out must not fail every later test's set-up."""
    slurm.scheduler.commands.mutate(["scontrol", "create", "reservation", "ReservationName=left",
                                     "Users=root", "Nodes=gpu03,gpu04", "StartTime=now",
                                     "Duration=60", "Flags=MAINT,IGNORE_JOBS"])  # fmt: skip
    _wait(lambda: "MAINTENANCE" in slurm.scheduler.reader.node("gpu03").flags or None, 10.0)
    slurm.cluster.reset()
    assert _reservation_gone(slurm, "left")
    assert all(not n.flags for n in slurm.scheduler.reader.nodes())
