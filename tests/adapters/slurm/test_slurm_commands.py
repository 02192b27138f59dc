"""The rails every command passes: runner, error vocabulary, rate limit, port semantics."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.slurm import (
    RateLimitedError,
    RateLimiter,
    SlurmConflictError,
    SlurmNotFoundError,
    SlurmPermanentError,
    SlurmScheduler,
    SlurmTransientError,
    SubprocessRunner,
)
from autorecover.adapters.slurm.errors import classify
from autorecover.controllers.ports import PermanentError, Provenance, TransientError
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT

from .fakes import FakeSlurm, FakeTimer

FIXTURES = Path(__file__).parents[2] / "fixtures" / "slurm"
NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _prov(action_id: str = "gpu01/1/drain") -> Provenance:
    return Provenance(action_id, "hardware-recovery", "xid 79", NOW, (), "inc-3")


def test_slurm_recorded_errors_map_to_the_vocabulary() -> None:
    recorded = json.loads((FIXTURES / "errors.json").read_text())
    kinds = [type(classify(e["argv"], e["returncode"], e["stderr"])) for e in recorded]
    assert kinds == [
        SlurmConflictError,  # ExcNodeList of a running job: "no longer pending"
        SlurmNotFoundError, SlurmNotFoundError, SlurmNotFoundError,  # no such job
        SlurmConflictError,  # resume of an idle node: "Invalid node state specified"
        SlurmNotFoundError,  # no such node
        SlurmPermanentError,  # a drain without a reason
        SlurmNotFoundError,  # scontrol show job of no such job
        SlurmPermanentError,  # scontrol show node of no such node: it says so on stdout
        SlurmConflictError,  # "Job has already finished"
        SlurmConflictError,  # requeue of a pending job
        SlurmPermanentError,  # reboot nextstate=BOGUS
        SlurmPermanentError,  # an unknown option
    ]  # fmt: skip
    assert isinstance(classify(["scontrol"], 1, "Node nosuch not found\n"), SlurmNotFoundError)
    err = classify(["squeue"], 1, "slurm_load_jobs error: Unable to contact slurm controller")
    assert isinstance(err, SlurmTransientError) and isinstance(err, TransientError)
    assert isinstance(classify(["x"], 1, "odd"), PermanentError)


def test_slurm_subprocess_runner_maps_timeouts_and_missing_binaries() -> None:
    runner = SubprocessRunner()
    done = runner.run([sys.executable, "-c", "import sys; print('ok'); sys.exit(3)"],
                      timeout_s=10)  # fmt: skip
    assert (done.returncode, done.stdout) == (3, "ok\n")
    with pytest.raises(SlurmTransientError, match="timed out"):
        runner.run([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.2)
    with pytest.raises(SlurmPermanentError, match="not installed"):
        runner.run(["/nonexistent/scontrol", "show", "job"], timeout_s=1)


def test_slurm_rate_limit_spends_and_refills_on_the_injected_clock() -> None:
    timer = FakeTimer()
    limiter = RateLimiter(limit=2, window_s=60, monotonic=timer.monotonic)
    limiter.acquire("a")
    limiter.acquire("b")
    with pytest.raises(RateLimitedError) as refused:
        limiter.acquire("c")
    assert refused.value.retry_after_s == pytest.approx(60)
    timer.sleep(60)
    limiter.acquire("d")


def test_slurm_mutations_are_rate_limited_before_any_command() -> None:
    fake = FakeSlurm()
    for n in ("gpu01", "gpu02", "gpu03"):
        fake.add_node(n)
    adapter = SlurmScheduler(fake, timer=fake.timer,
                             limiter=RateLimiter(2, 60, fake.timer.monotonic))  # fmt: skip
    adapter.drain("gpu01", _prov("a"))
    adapter.drain("gpu02", _prov("b"))
    with pytest.raises(RateLimitedError):
        adapter.drain("gpu03", _prov("c"))
    assert "+DRAIN" not in fake.nodes["gpu03"]["State"]


def test_slurm_port_is_idempotent_by_action_id_and_honours_ownership() -> None:
    fake = FakeSlurm()
    fake.add_node("gpu01")
    fake.add_node("gpu02", "IDLE+DRAIN", "bad fan")
    adapter = SlurmScheduler(fake, timer=fake.timer)

    for _ in range(3):
        adapter.cordon("gpu01", _prov("gpu01/1/cordon"))
    adapter.taint("gpu01", QUARANTINE_TAINT, _prov("gpu01/1/taint"))
    assert len([c for c in fake.mutations if c[1] == "update"]) == 1
    view = adapter.observe(["gpu01", "gpu02", "nosuch"])
    assert set(view) == {"gpu01", "gpu02"}
    assert view["gpu01"].cordoned_by == {"autorecover"}
    assert view["gpu01"].taints == {QUARANTINE_TAINT}
    assert view["gpu02"].cordoned_by == {"bob"} and not view["gpu02"].taints
    assert set(adapter.cordoned()) == {"gpu01", "gpu02"}
    with pytest.raises(PermanentError, match="bad fan"):
        adapter.drain("gpu02", _prov("gpu02/1/drain"))
    with pytest.raises(PermanentError, match="bad fan"):
        adapter.reboot("gpu02", _prov("gpu02/1/reboot"))
    adapter.resume("gpu02", _prov("gpu02/2/resume"))  # a person's: left as it is
    assert fake.nodes["gpu02"]["State"] == "IDLE+DRAIN"
    adapter.resume("gpu01", _prov("gpu01/2/resume"))
    assert fake.nodes["gpu01"]["State"] == "IDLE"
    with pytest.raises(PermanentError, match="cannot reset a GPU"):
        adapter.reset_gpu("gpu01", None, _prov("gpu01/3/reset_gpu"))


def test_slurm_reads_fall_back_to_scontrol_when_json_is_unknown() -> None:
    fake = FakeSlurm()  # answers --json as Slurm before 21.08 does: unrecognized option
    fake.add_node("gpu01")
    fake.add_job("7")
    adapter = SlurmScheduler(fake, timer=fake.timer)

    assert [j.job_id for j in adapter.list_jobs()] == ["7"]
    assert [n.name for n in adapter.list_nodes()] == ["gpu01"]
    assert [c[:2] for c in fake.calls] == [("squeue", "--json"), ("scontrol", "show"),
                                           ("scontrol", "show")]  # fmt: skip


def test_slurm_view_says_whether_the_host_responds() -> None:
    fake = FakeSlurm()
    fake.add_node("gpu01")
    fake.add_node("gpu02", "DOWN+NOT_RESPONDING", "Not responding")
    fake.add_node("gpu03", "IDLE+NOT_RESPONDING")
    fake.add_node("gpu04", "DOWN", "a person's maintenance")
    fake.add_node("gpu05", "IDLE+POWERED_DOWN")  # Slurm's power saving: not a hang
    view = SlurmScheduler(fake, timer=fake.timer).observe([f"gpu0{i}" for i in range(1, 6)])
    assert {n: v.responding for n, v in view.items()} == {
        "gpu01": True, "gpu02": False, "gpu03": False, "gpu04": False, "gpu05": True,
    }  # fmt: skip


def test_slurm_reboot_is_underway_until_the_node_has_booted_and_asked_once() -> None:
    from datetime import timedelta

    from .fakes import _stamp

    fake = FakeSlurm()
    fake.add_node("gpu01")
    adapter = SlurmScheduler(fake, timer=fake.timer)
    prov = _prov("gpu01/4/reboot")
    with pytest.raises(TransientError, match="underway"):
        adapter.reboot("gpu01", prov)
    reboot = [c for c in fake.mutations if c[1] == "reboot"]
    assert len(reboot) == 1 and "nextstate=DOWN" in reboot[0]
    # A restarted engine (nothing remembered) finds it rebooting, ours: not asked again.
    again = SlurmScheduler(fake, timer=fake.timer)
    with pytest.raises(TransientError, match="underway"):
        again.reboot("gpu01", prov)
    assert len([c for c in fake.mutations if c[1] == "reboot"]) == 1
    # Booted after the action was decided: done, by either of them.
    fake.nodes["gpu01"].update(State="DOWN", BootTime=_stamp(NOW + timedelta(seconds=30)))
    adapter.reboot("gpu01", prov)
    again.reboot("gpu01", prov)
    assert len([c for c in fake.mutations if c[1] == "reboot"]) == 1
    # A reboot that ended without a boot (cancelled by somebody) fails the action.
    fake.add_node("gpu02")
    other = _prov("gpu02/4/reboot")
    with pytest.raises(TransientError):
        adapter.reboot("gpu02", other)
    fake.nodes["gpu02"].update(State="IDLE", Reason="")
    with pytest.raises(PermanentError, match="did not boot"):
        adapter.reboot("gpu02", other)


def test_slurm_reboot_done_when_boot_time_reads_the_second_before_the_decision() -> None:
    from datetime import timedelta

    from .fakes import _stamp

    # Decided at .6 of a second; the node booted 0.3 s later, and Slurm's BootTime (whole
    # seconds: registration time less uptime, each cut) reads the second before the decision.
    fake = FakeSlurm()
    fake.add_node("gpu01")
    adapter = SlurmScheduler(fake, timer=fake.timer)
    at = NOW + timedelta(seconds=10, milliseconds=600)
    prov = Provenance("gpu01/4/reboot", "autorecover", "xid 79", at, ("NVRM: Xid 79",), "inc-1")
    with pytest.raises(TransientError, match="underway"):
        adapter.reboot("gpu01", prov)
    fake.nodes["gpu01"].update(BootTime=_stamp(NOW + timedelta(seconds=9)))
    with pytest.raises(TransientError, match="underway"):  # 1.6 s before: an older boot
        adapter.reboot("gpu01", prov)
    fake.nodes["gpu01"].update(State="DOWN", BootTime=_stamp(NOW + timedelta(seconds=10)))
    adapter.reboot("gpu01", prov)  # done
    assert len([c for c in fake.mutations if c[1] == "reboot"]) == 1
