"""Node operations on the real cluster: drain with the incident, resume only ours, reboot."""

from __future__ import annotations

import pytest

from autorecover.adapters.slurm import Change, SlurmNode, SlurmPermanentError
from autorecover.adapters.slurm.states import JobPhase, NodeCondition, node_status
from autorecover.controllers.ports import Underway
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.testing.slurm.harness import SlurmHarness


def _sinfo_reasons(slurm: SlurmHarness) -> dict[str, str]:
    done = slurm.cluster._scontrol(["sinfo", "-R", "-h", "-o", "%N|%E"])
    return dict(line.split("|", 1) for line in done.stdout.splitlines())


def _person_drains(slurm: SlurmHarness, node: str, reason: str) -> None:
    slurm.cluster._scontrol(["scontrol", "update", f"NodeName={node}", "State=DRAIN",
                             f"Reason={reason}"])  # fmt: skip


def test_slurm_drain_shows_the_incident_in_sinfo_R(slurm: SlurmHarness) -> None:
    prov = slurm.provenance("xid 79: GPU fell off the bus", incident="inc-42")
    result = slurm.scheduler.nodes.drain("gpu03", None, prov)

    assert result.change is Change.DONE
    assert _sinfo_reasons(slurm)["gpu03"] == "autorecover: inc-42 xid 79: GPU fell off the bus"
    node = slurm.scheduler.reader.node("gpu03")
    assert node_status(node).condition is NodeCondition.DRAINED and node_status(node).ours
    view = slurm.scheduler.observe(["gpu03", "gpu01"])
    assert view["gpu03"].cordoned_by == {"autorecover"}
    assert view["gpu03"].taints == {QUARANTINE_TAINT} and view["gpu03"].running_jobs == 0
    assert not view["gpu01"].cordoned_by
    # Again, under the port and another action id: nothing more is done.
    slurm.scheduler.drain("gpu03", slurm.provenance("again", incident="inc-43"))
    assert _sinfo_reasons(slurm)["gpu03"].startswith("autorecover: inc-42 ")
    assert [r.operation for r in slurm.scheduler.commands.journal.records] == ["drain"]


def test_slurm_drain_of_a_busy_node_lets_its_job_finish(slurm: SlurmHarness) -> None:
    job = slurm.submit_training(nodes=1, sbatch=("--nodelist=gpu02",))
    slurm.wait_phase(job.job_id, JobPhase.RUNNING)

    slurm.scheduler.drain("gpu02", slurm.provenance("ecc errors rising"))

    node = slurm.scheduler.reader.node("gpu02")
    assert node_status(node).condition is NodeCondition.DRAINING
    assert slurm.scheduler.observe(["gpu02"])["gpu02"].running_jobs == 1
    assert slurm.scheduler.reader.job(job.job_id).state == "RUNNING"


def test_slurm_resume_returns_only_what_autorecover_drained(slurm: SlurmHarness) -> None:
    slurm.scheduler.drain("gpu01", slurm.provenance("xid 48"))
    _person_drains(slurm, "gpu02", "bad fan (ticket 7)")

    ours = slurm.scheduler.nodes.resume("gpu01", slurm.provenance("validation passed"))
    theirs = slurm.scheduler.nodes.resume("gpu02", slurm.provenance("validation passed"))
    slurm.scheduler.resume("gpu02", slurm.provenance("the port, too"))  # no error, no change

    assert ours.change is Change.DONE
    assert theirs.change is Change.NOT_OURS
    assert "bad fan (ticket 7)" in theirs.detail and "root" in theirs.detail
    gpu01, gpu02 = (slurm.scheduler.reader.node(n) for n in ("gpu01", "gpu02"))
    assert node_status(gpu01).condition is NodeCondition.UP
    assert node_status(gpu02).condition is NodeCondition.DRAINED
    assert gpu02.reason == "bad fan (ticket 7)"
    assert slurm.scheduler.cordoned()["gpu02"].cordoned_by == {"root"}
    # Our drain never replaces a person's; the port says so.
    again = slurm.scheduler.nodes.drain("gpu02", "xid 79", slurm.provenance("xid 79"))
    assert again.change is Change.NOT_OURS
    with pytest.raises(SlurmPermanentError, match="bad fan"):
        slurm.scheduler.drain("gpu02", slurm.provenance("xid 79"))
    assert slurm.scheduler.reader.node("gpu02").reason == "bad fan (ticket 7)"
    # A node that is up needs no resume.
    assert slurm.scheduler.nodes.resume("gpu03", slurm.provenance("x")).change is Change.NOT_NEEDED


def test_slurm_reboot_asap_is_requested_then_issued(slurm: SlurmHarness) -> None:
    job = slurm.submit_training(nodes=1, sbatch=("--nodelist=gpu01",))
    slurm.wait_phase(job.job_id, JobPhase.RUNNING)

    busy = slurm.scheduler.nodes.reboot("gpu01", slurm.provenance("reset failed", "inc-9"))
    idle = slurm.scheduler.nodes.reboot("gpu04", slurm.provenance("reset failed", "inc-10"))

    assert busy.change is Change.DONE and idle.change is Change.DONE
    gpu01 = slurm.scheduler.reader.node("gpu01")
    # Busy: drained at once, the reboot waits for the job (22.05: DRAIN+REBOOT_REQUESTED).
    assert {"DRAIN", "REBOOT_REQUESTED"} <= gpu01.flags
    assert gpu01.reason == "autorecover: inc-9 reboot: reset failed"
    assert node_status(gpu01).condition is NodeCondition.REBOOTING
    # Idle: issued at once; slurmd ran the RebootProgram (here a script that records it).
    gpu04 = slurm.wait_node("gpu04", lambda n: "REBOOT_ISSUED" in n.flags, "rebooting")
    assert gpu04.state == "down" and "DRAIN" in gpu04.flags
    assert gpu04.reason.startswith("autorecover: inc-10 reboot: reset failed")
    assert "reboot" in slurm.wait_reboot_logged("gpu04")
    # Asked again under the port: nothing more is done (already rebooting, ours); the
    # action stays underway until the node has booted.
    with pytest.raises(Underway, match="underway"):
        slurm.scheduler.reboot("gpu01", slurm.provenance("again"))
    assert [r.operation for r in slurm.scheduler.commands.journal.records] == ["reboot", "reboot"]
    # A node a person drained is not rebooted by us.
    _person_drains(slurm, "gpu03", "cabling work")
    with pytest.raises(SlurmPermanentError, match="cabling work"):
        slurm.scheduler.reboot("gpu03", slurm.provenance("xid 79"))
    # Nothing here really reboots: resume takes our nodes back (cancelling the pending one).
    for node in ("gpu01", "gpu04"):
        assert slurm.scheduler.nodes.resume(node, slurm.provenance("back")).change is Change.DONE
    assert node_status(slurm.scheduler.reader.node("gpu01")).condition is NodeCondition.UP


def _rebooted(slurm: SlurmHarness, node: str, before: SlurmNode) -> SlurmNode:
    return slurm.wait_node(
        node,
        lambda n: n.boot_time is not None and before.boot_time is not None
        and n.boot_time > before.boot_time and "REBOOT_ISSUED" not in n.flags
        and "REBOOT_REQUESTED" not in n.flags,
        "rebooted",
        timeout_s=30,
    )  # fmt: skip


def test_slurm_cluster_reboot_program_reboots_the_node_into_its_next_state(
    slurm: SlurmHarness,
) -> None:
    before = {n: slurm.scheduler.reader.node(n) for n in ("gpu02", "gpu03")}
    up = slurm.scheduler.nodes.reboot("gpu02", slurm.provenance("reset failed", "inc-11"))
    down = slurm.scheduler.nodes.reboot(
        "gpu03", slurm.provenance("validate after", "inc-12"), next_state="DOWN"
    )
    assert up.change is Change.DONE and down.change is Change.DONE

    # nextstate=RESUME: the node comes back booted, idle, with no reason.
    back = _rebooted(slurm, "gpu02", before["gpu02"])
    back = slurm.wait_node("gpu02", lambda n: n.state == "idle" and not n.flags, "idle")
    assert back.reason == ""
    # nextstate=DOWN: back booted but kept out, our reason kept for `sinfo -R`.
    kept = _rebooted(slurm, "gpu03", before["gpu03"])
    assert kept.state == "down", kept
    assert kept.reason.startswith("autorecover: inc-12 reboot: validate after")
    assert node_status(kept).ours
    log = (slurm.cluster.base / "log" / "reboots.txt").read_text()
    assert "node=gpu02" in log and "node=gpu03" in log
    # A node rebooted twice (its slurmd already in an earlier reboot's time namespace).
    again = slurm.scheduler.nodes.reboot("gpu02", slurm.provenance("once more", "inc-13"))
    assert again.change is Change.DONE
    _rebooted(slurm, "gpu02", back)
    slurm.wait_node("gpu02", lambda n: n.state == "idle" and not n.flags, "idle again")
