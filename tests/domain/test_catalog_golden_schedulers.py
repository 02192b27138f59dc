"""Golden tests for the schedulers other than Slurm (signatures-schedulers.toml): PBS Pro /
OpenPBS and Torque, IBM LSF, Flux, HPE PALS and Cray PMI.

Each entry blames what the scheduler says happened, as Slurm's do: a node it lost names that
node (`failed_host`, weighed like "Node failure on X"), its time limit is transient, its memory
limit the job's, a preemption or an administrator's kill transient, a launcher's restatement a
symptom. Real lines are named beside each; two PBS texts no public thread shows are rendered
from their format (said so).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.records import Blame, JobRecord, Source
from autorecover.domain.reports import NAMED_FAILURE_WEIGHT, named_failures
from domain.golden import (
    CATALOG,
    SCANNER,
    Golden,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
)

FAMILY_FILE = "signatures-schedulers.toml"
NAMESPACES = frozenset({"pbs", "lsf", "flux", "pals", "craypmi"})
FAMILY_KEYS = family_keys(FAMILY_FILE)

REQUIRED: dict[str, Blame] = {
    "pbs.walltime_exceeded": Blame.TRANSIENT,
    "pbs.mem_exceeded": Blame.APPLICATION,
    "pbs.sister_lost": Blame.SYMPTOM,
    "pbs.sister_requested_kill": Blame.SYMPTOM,
    "lsf.run_limit": Blame.TRANSIENT,
    "lsf.mem_limit": Blame.APPLICATION,
    "lsf.preempted": Blame.TRANSIENT,
    "lsf.owner_killed": Blame.SYMPTOM,
    "lsf.exit_report": Blame.SYMPTOM,
    "flux.node_failure": Blame.SYMPTOM,
    "flux.timeout": Blame.TRANSIENT,
    "flux.job_exception": Blame.SYMPTOM,
    "flux.task_exit": Blame.SYMPTOM,
    "flux.task_start_failed": Blame.APPLICATION,  # depth review (s22)
    "flux.heartbeat_lost": Blame.HARDWARE,  # its own node's journal only
    "flux.broker_lost": Blame.SYMPTOM,
    "pals.rank_signaled": Blame.SYMPTOM,
    "pals.pmi_port_unavailable": Blame.TRANSIENT,
    "pals.launch_option_rejected": Blame.APPLICATION,
    "pals.launch_forward_failed": Blame.SYMPTOM,
    "craypmi.listen_port_in_use": Blame.TRANSIENT,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)

GOLDEN: Golden = [
    # marbl/canu issue #1214 (an overlap job at its 24 h walltime)
    ("=>> PBS: job killed: walltime 86415 exceeded limit 86400", "pbs.walltime_exceeded",
     {"resource": "walltime", "limit": "86400"}),
    # biocore/qiime issue #1048 (Torque, a 72 h limit)
    ("=>> PBS: job killed: walltime 259217 exceeded limit 259200", "pbs.walltime_exceeded",
     {"resource": "walltime", "limit": "259200"}),
    # marbl/canu issue #530 (PBS Pro)
    ("=>> PBS: job killed: mem 38427376kb exceeded limit 33554432kb", "pbs.mem_exceeded",
     {"resource": "mem"}),
    # dask/dask-jobqueue issue #178 (the job-wide total, prefixed by grep with the file name)
    ("dask-worker.o1838772:=>> PBS: job killed: mem job total 115343360 kb exceeded limit "
     "115343360 kb", "pbs.mem_exceeded", {"resource": "mem"}),
    # rendered from Torque mom_main.c's SISTER_EOF format (no public line found)
    ("=>> PBS: job killed: node 2 (n003) requested job terminate, 'EOF' (code 1099) - received "
     "SISTER_EOF attempting to communicate with sister MOM's", "pbs.sister_lost",
     {"failed_host": "n003", "code": "1099"}),
    # rendered from OpenPBS mom_main.c's format (a Torque log filter tests the same line)
    ("=>> PBS: job killed: node 3 (n003) requested job die, code 9",
     "pbs.sister_requested_kill", {"host": "n003", "code": "9"}),
    # marbl/canu issue #444 (LSF's job report)
    ("TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "lsf.run_limit",
     {"reason": "RUNLIMIT"}),
    # wheaton5/souporcell issue #20
    ("TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", "lsf.mem_limit", {}),
    # IBM's termination reasons table (TERM_ADMIN, TERM_PREEMPT), as the job report prints them
    ("TERM_ADMIN: job killed by root or LSF administrator.", "lsf.preempted", {"reason": "ADMIN"}),
    ("TERM_PREEMPT: job killed after preemption.", "lsf.preempted", {"reason": "PREEMPT"}),
    ("TERM_OWNER: job killed by owner.", "lsf.owner_killed", {"reason": "OWNER"}),
    # marbl/canu issue #444 and wheaton5/souporcell issue #20 (after the TERM_* line)
    ("Exited with exit code 140.", "lsf.exit_report", {"code": "140"}),
    # flux-framework/flux-core issue #6653 (El Capitan; `flux jobs` listing the exception)
    ("fdFmCpYwQZ5  node-failure              node failure on elcap8767 (shell rank 1127)",
     "flux.node_failure", {"failed_host": "elcap8767"}),
    # flux-core job-exec bulkexec.c's critical-rank note as `flux run` prints the exception
    ("12.304s: job.exception f2yGZ5wN type=exec severity=0 node failure on tioga12 (rank 3)",
     "flux.node_failure", {"failed_host": "tioga12"}),
    # flux-framework/flux-core pull request #3962
    ("1.129s: job.exception type=timeout severity=0 resource allocation expired",
     "flux.timeout", {}),
    # flux-framework/flux-core issue #4195
    ("0.784s: job.exception type=exec severity=0 task 0: start failed: stress: No such file or "
     "directory", "flux.job_exception", {"type": "exec"}),
    # flux-framework/flux-core pull request #3962; issue #6021
    ("flux-job: task(s) exited with exit code 1", "flux.task_exit", {"code": "1"}),
    ("flux-job: task(s) Segmentation fault", "flux.task_exit", {"signal": "Segmentation fault"}),
    # E3SM-Project/E3SM pull request #6985 (Polaris)
    ("x3102c0s25b1n0.hsn.cm.polaris.alcf.anl.gov: rank 96 died from signal 11 and dumped core",
     "pals.rank_signaled", {"host": "x3102c0s25b1n0.hsn.cm.polaris.alcf.anl.gov",
                            "rank": "96", "signal": "11"}),
    # pmodels/mpich issue #7569 (Aurora)
    ("x4006c0s6b0n0.hsn.cm.aurora.alcf.anl.gov: rank 256 died from signal 11",
     "pals.rank_signaled", {"rank": "256"}),
    # ALCF's Aurora running-jobs page (an implicit-scaling --gpu-bind list)
    ("launch failed on x4520c2s1b0n0: Failed to parse implicit GPU selection",
     "pals.launch_option_rejected", {"host": "x4520c2s1b0n0"}),
    # ALCF's Polaris known-issues page
    ("launch failed on x3104c0s1b0n0: Couldn't forward RPC launch(ab751d77-e80a-4c54-b1c2-"
     "4e881f7e8c90) to child x3104c0s31b0n0.hsn.cm.polaris.alcf.anl.gov: Resource temporarily "
     "unavailable", "pals.launch_forward_failed",
     {"child": "x3104c0s31b0n0.hsn.cm.polaris.alcf.anl.gov"}),
    # flux-framework/flux-core issue #7654 (a comment quoting the node's journal)
    ("Jun 03 14:00:36 tuolumne2150 flux[371635]: overlay.crit[1150]: disconnecting: no "
     "heartbeat for 5.1m", "flux.heartbeat_lost", {"duration": "5.1m"}),
    # the same issue's description, as the user quoted the instance's log
    ("overlay.crit[802]: disconnecting : no heartbeat", "flux.heartbeat_lost", {}),
    # rendered from overlay.c log_lost_connection's format
    ("flux[88213]: overlay.err[0]: tuolumne2150 (rank 6) failed and severed contact with 3 other "
     "nodes", "flux.broker_lost", {"failed_host": "tuolumne2150"}),
    # depth review (s22), rendered from src/shell/shell.c (tests/domain/test_catalog_depth_drun.py)
    ("0.037s: flux-shell[0]: FATAL: task 0 (host tioga12): start failed: ./a.out: Permission "
     "denied", "flux.task_start_failed", {"program": "./a.out"}),
    # NOAA-EMC/global-workflow issue #776 (WCOSS2: "reruns run")
    ("launch RPC: Couldn't allocate a port for PMI to use", "pals.pmi_port_unavailable", {}),
    # flux-framework/flux-coral2 issue #323 (El Capitan, each rank's line)
    ("Fri Mar 14 11:56:06 2025: [PE_2]:inet_listen_socket_setup:bind() failed [fd=3, "
     "port=1371 err='Address already in use']", "craypmi.listen_port_in_use",
     {"pe": "2", "port": "1371"}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # a limit PBS only logs (ncpus burst, not enforced) is not a memory kill
    ("pbs.mem_exceeded", "=>> PBS: job killed: ncpus 12.3 exceeded limit 8 (burst)"),
    ("pbs.walltime_exceeded", "walltime 3600 exceeded limit 3600 in my own script's message"),
    # a sister that asked to die names no lost node
    ("pbs.sister_lost", "=>> PBS: job killed: node 3 (n003) requested job die, code 9"),
    ("lsf.preempted", "TERM_OWNER: job killed by owner."),
    ("lsf.owner_killed", "TERM_ADMIN: job killed by root or LSF administrator."),
    # srun's per-host restatement is slurm.task_exit's
    ("lsf.exit_report", "srun: error: gpu-a01: tasks 0-3: Exited with exit code 1"),
    # Slurm's wording is slurm.node_fail's
    ("flux.node_failure", "srun: error: Node failure on gpu-a03"),
    ("flux.job_exception", "1.0s: job.exception type=exec severity=0 node failure on tioga12 "
                           "(rank 3)"),
    # Dask's and a disk controller's lost heartbeats are not a Flux broker's
    ("flux.heartbeat_lost", "hpsa 0000:03:00.0: no heartbeat detected"),
    # a step that failed is not a lost broker
    ("flux.broker_lost", "step 12 (rank 3) failed with an exception"),
    # a non-fatal exception is not the job's end
    ("flux.timeout", "job.exception type=timeout severity=1 resource allocation expired"),
    # a port the job's own server could not bind is the job's (another err is not a collision)
    ("craypmi.listen_port_in_use", "[PE_0]:inet_listen_socket_setup:bind() failed [fd=3, "
                                   "port=1371 err='Cannot assign requested address']"),
    ("pals.pmi_port_unavailable", "launch RPC: Couldn't allocate memory for the launch"),
    ("pals.rank_signaled", "mpirun noticed that process rank 4 with PID 0 on node localhost "
                           "exited on signal 9 (Killed)."),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, REQUIRED)


def test_no_scheduler_line_acts_on_the_node_it_was_printed_on() -> None:
    """A scheduler's verdict never reboots or drains the node whose output holds it; a lost node
    is named through `failed_host`, which attribution weighs against that node."""
    assert_no_node_action(FAMILY_KEYS)


@pytest.mark.parametrize(
    ("key", "twin", "weight"),
    [
        ("pbs.walltime_exceeded", "slurm.time_limit", 80),
        ("lsf.run_limit", "slurm.time_limit", 80),
        ("flux.timeout", "slurm.time_limit", 80),
        ("pbs.mem_exceeded", "slurm.oom_kill", 75),
        ("lsf.mem_limit", "slurm.oom_kill", 75),
        ("pbs.sister_lost", "slurm.node_fail", 60),
        ("flux.node_failure", "slurm.node_fail", 60),
    ],
)
def test_weighed_like_slurms_own_word(key: str, twin: str, weight: int) -> None:
    sig, slurm = CATALOG.signatures[key], CATALOG.signatures[twin]
    assert (sig.blame, sig.weight) == (slurm.blame, slurm.weight)
    assert sig.weight == weight


T0 = datetime(2026, 3, 4, tzinfo=UTC)


def _job(nodes: tuple[str, ...]) -> JobRecord:
    return JobRecord(scheduler="pbs", job="1", nodes=nodes, started=T0,
                     ended=T0 + timedelta(hours=2), collected=T0 + timedelta(hours=2),
                     state="FAILED")  # fmt: skip


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("=>> PBS: job killed: node 2 (n003) requested job terminate, 'EOF' (code 1099) - "
         "received SISTER_EOF attempting to communicate with sister MOM's", "n003"),
        ("12.304s: job.exception f2yGZ5wN type=exec severity=0 node failure on n003.cluster "
         "(rank 3)", "n003"),
    ],
)  # fmt: skip
def test_a_lost_node_counts_against_the_node_it_names(line: str, named: str) -> None:
    """The line in n001's output names n003: hardware evidence against n003 at the weight of
    Slurm's "Node failure on X", never against the node that printed it."""
    scan = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n001", source=Source.LOGS,
                        reference=T0)  # fmt: skip
    reports = named_failures(scan.findings, _job(("n001", "n002", "n003")))
    assert [(r.node, r.blame, r.weight) for r in reports] == [
        (named, Blame.HARDWARE, NAMED_FAILURE_WEIGHT)
    ]


def test_a_sister_asking_to_die_names_no_node() -> None:
    line = "=>> PBS: job killed: node 3 (n003) requested job die, code 0"
    scan = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n001", source=Source.LOGS,
                        reference=T0)  # fmt: skip
    assert named_failures(scan.findings, _job(("n001", "n002", "n003"))) == []
    assert [s for s, _, _ in found(line, Source.LOGS)] == ["pbs.sister_requested_kill"]
