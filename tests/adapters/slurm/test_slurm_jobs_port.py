"""`SlurmJobs`, the job recovery port over `SlurmScheduler`, on the in-memory fake Slurm."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.slurm import SitePolicy, SlurmScheduler
from autorecover.adapters.slurm.jobs import SlurmJobs
from autorecover.controllers.jobs.records import JobPhase
from autorecover.controllers.ports import Provenance

from .fakes import FakeSlurm


def _prov(action_id: str) -> Provenance:
    return Provenance(action_id, "job-recovery", "why", datetime(2026, 11, 29, tzinfo=UTC),
                      (), "inc-1")  # fmt: skip


def _port(fake: FakeSlurm, site: SitePolicy | None = None, tasks: int = 1) -> SlurmJobs:
    return SlurmJobs(SlurmScheduler(fake, timer=fake.timer), site, tasks_per_node=tasks)


def test_slurm_port_watches_the_jobs_that_opted_in() -> None:
    fake = FakeSlurm()
    fake.add_job("1", Comment="ckpt hourly; autorecover:on,user_restarts=3",
                 Restarts="2", ExcNodeList="gpu07", JobState="FAILED", ExitCode="1:0")  # fmt: skip
    fake.add_job("2", Comment="no directive")
    fake.add_job("3", Comment="autorecover:off")
    fake.add_job("4", Comment="autorecover:yes")  # malformed: off whatever the site says

    watched = _port(fake).watched()
    assert [w.job for w in watched] == ["1"]
    (one,) = watched
    assert one.scheduler == "slurm" and dict(one.overrides) == {"user_restarts": 3}
    status = one.status
    assert (status.phase, status.state, status.attempt) == (JobPhase.FAILED, "FAILED", 2)
    assert status.exclusions == ("gpu07",) and status.nodes == ("gpu01", "gpu02")
    assert status.exit_codes == (("gpu01", 1),)

    everyone = _port(fake, SitePolicy(opt_in=False)).watched()
    assert [w.job for w in everyone] == ["1", "2"]
    assert dict(everyone[1].overrides) == {} and everyone[1].origin == "comment: no directive"


def test_slurm_port_never_watches_its_own_pair_jobs_and_warns_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeSlurm()
    fake.add_job("5", Comment="autorecover:validate:gpu01:gpu02")  # a validation pair job
    fake.add_job("6", Comment="autorecover:yes")
    port = _port(fake, SitePolicy(opt_in=False))
    with caplog.at_level("WARNING"):
        assert port.watched() == [] and port.watched() == []
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 1 and warned[0].startswith("job 6: "), warned


def test_slurm_port_attributes_srun_l_lines_to_nodes_by_rank(tmp_path: Path) -> None:
    out = tmp_path / "train-5.out"
    out.write_bytes(
        b"batch restart=0\n0: step 1\n1: step 1\n2: step 1\n3: step 1\n"
        b"srun: error: gpu02: task 3: Killed\n1: unfinished"
    )
    fake = FakeSlurm()
    fake.add_job("5", Comment="autorecover:on", StdOut=str(out))
    port = _port(fake, tasks=2)  # ranks 0, 1 on gpu01; 2, 3 on gpu02
    port.watched()

    gpu01 = port.read_output("5", 0, "gpu01", 0, 1 << 20)
    gpu02 = port.read_output("5", 0, "gpu02", 0, 1 << 20)
    assert gpu01 == b"batch restart=0\n0: step 1\n1: step 1\nsrun: error: gpu02: task 3: Killed\n"
    assert gpu02 == b"2: step 1\n3: step 1\n"
    assert port.read_output("5", 0, "gpu02", 10, 5) == b"3: st"
    assert port.read_output("5", 0, "gpu03", 0, 100) == b""


def test_slurm_port_splits_appended_attempts_where_it_requeued(tmp_path: Path) -> None:
    out = tmp_path / "train-6.out"
    out.write_bytes(b"0: attempt 0\n0: XID\n")
    fake = FakeSlurm()
    fake.add_job("6", Comment="autorecover:on", StdOut=str(out), NodeList="gpu01",
                 BatchHost="gpu01", NumNodes="1")  # fmt: skip
    port = _port(fake)
    port.watched()

    port.requeue("6", ["gpu01"], 0.0, _prov("6#0/failure/requeue_excluding"))
    with out.open("ab") as f:
        f.write(b"0: attempt 1\n")
    (w,) = port.watched()

    assert w.status.attempt == 1 and "gpu01" in w.status.exclusions
    node = w.status.nodes[0]
    assert port.read_output("6", 0, "gpu01", 0, 100) == b"0: attempt 0\n0: XID\n"
    assert port.read_output("6", 1, node, 0, 100) == b"0: attempt 1\n"


def test_slurm_port_asked_again_after_a_restart_keeps_reading_the_new_attempt(
    tmp_path: Path,
) -> None:
    # The engine requeued job 6 and died before recording it; a new port (nothing in memory)
    # is asked again under the same action: no requeue, and attempt 1's stream goes on.
    out = tmp_path / "train-6.out"
    out.write_bytes(b"0: attempt 0\n")
    fake = FakeSlurm()
    fake.add_job("6", Comment="autorecover:on", StdOut=str(out), NodeList="gpu01",
                 BatchHost="gpu01", NumNodes="1")  # fmt: skip
    prov = _prov("6#0/failure/requeue_excluding")
    _port(fake).requeue("6", ["gpu01"], 0.0, prov)
    with out.open("ab") as f:
        f.write(b"0: attempt 1, step 1\n")
    port = _port(fake)
    (w,) = port.watched()
    done = len(fake.mutations)
    port.requeue("6", ["gpu01"], 0.0, prov)
    assert len(fake.mutations) == done  # not requeued twice
    with out.open("ab") as f:
        f.write(b"0: attempt 1, step 2\n")
    node = w.status.nodes[0]
    assert port.read_output("6", 1, node, 0, 100) == b"0: attempt 1, step 2\n"


def test_slurm_port_reads_a_truncated_file_from_its_start(tmp_path: Path) -> None:
    out = tmp_path / "train-9.out"
    out.write_bytes(b"0: attempt 0, a long line\n")
    fake = FakeSlurm()
    fake.add_job("9", Comment="autorecover:on", StdOut=str(out), NodeList="gpu01",
                 BatchHost="gpu01", NumNodes="1")  # fmt: skip
    port = _port(fake)
    port.watched()
    port.requeue("9", ["gpu01"], 0.0, _prov("9#0/failure/requeue_excluding"))
    out.write_bytes(b"0: attempt 1\n")  # Slurm's default open mode truncates on requeue
    (w,) = port.watched()

    assert port.read_output("9", 1, w.status.nodes[0], 0, 100) == b"0: attempt 1\n"


def test_slurm_port_reads_per_node_files(tmp_path: Path) -> None:
    for node in ("gpu01", "gpu02"):
        (tmp_path / f"out-7-{node}.txt").write_bytes(f"on {node}\n".encode())
    fake = FakeSlurm()
    fake.add_job("7", Comment="autorecover:on", StdOut=str(tmp_path / "out-7-%N.txt"))
    port = _port(fake)
    port.watched()

    assert port.read_output("7", 0, "gpu02", 0, 100) == b"on gpu02\n"
    assert port.read_output("7", 0, "gpu02", 3, 100) == b"gpu02\n"
    assert port.read_output("7", 1, "gpu02", 0, 100) == b""  # not the current attempt


def test_slurm_port_requeues_with_backoff_stops_and_acts_once() -> None:
    fake = FakeSlurm()
    fake.add_job("8", Comment="autorecover:on", ExcNodeList="gpu07")
    port = _port(fake)

    # Nothing new to exclude: a plain requeue with the delay.
    port.requeue("8", ["gpu07"], 30.0, _prov("8#0/failure/requeue"))
    port.requeue("8", ["gpu07"], 30.0, _prov("8#0/failure/requeue"))  # the same id: nothing
    updates = [c for c in fake.mutations if c[:2] == ("scontrol", "update")]
    assert any("StartTime=now+30" in " ".join(c) for c in updates), updates
    assert sum(c[:2] == ("scontrol", "requeuehold") for c in fake.mutations) == 1

    port.stop("8", _prov("8#1/failure/stop"))
    port.stop("8", _prov("8#1/failure/stop"))
    assert sum(c[0] == "scancel" for c in fake.mutations) == 1
