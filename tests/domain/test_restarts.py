"""A node that restarted under the job (`domain/restarts.py`): a hard restart is that node's
hardware evidence, below the naming weight unless the scheduler ended the job because it lost a
node; an orderly reboot or several nodes restarting
together are transient and name none. System-log lines go through the
real scanner and catalog, and the verdict through `attribute`."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime

from autorecover.domain.attribution import attribute
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Activity, Blame, Cause, Finding, JobRecord, Source
from autorecover.domain.restarts import HARD_RESTART, RESTARTED, RESTARTED_TOGETHER, restarts
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
START = datetime(2026, 3, 11, 9, 30, tzinfo=UTC)
END = datetime(2026, 3, 11, 15, 58, 4, tzinfo=UTC)
NODES = ("z1-5", "z1-6", "z1-8")
JOB = JobRecord("slurm", "40712", NODES, START, END, datetime(2026, 3, 11, 16, 48, tzinfo=UTC),
                "NODE_FAIL")  # fmt: skip
QUIET = [
    "Mar 11 13:19:47 {n} systemd[1]: Starting Cleanup of Temporary Directories...",
    "Mar 11 15:46:13 {n} chronyd[812]: Selected source 10.1.0.1",
]
# The boot after the node went down (a real CentOS 7 banner and boot line).
BOOT = [
    "Mar 11 15:54:14 {n} kernel: Linux version 3.10.0-957.5.1.el7.x86_64 "
    "(mockbuild@kbuilder.bsys.centos.org) (gcc version 4.8.5 20150623 (Red Hat 4.8.5-36) (GCC) ) "
    "#1 SMP Fri Feb 1 14:54:57 UTC 2019",
    "Mar 11 15:54:53 {n} slurmd[1977]: slurmd version 18.08.5-2 started",
]
SHUTDOWN = ["Mar 11 15:52:02 {n} systemd-logind[1603]: The system will reboot now!"]
FAILED = replace(JOB, state="FAILED")  # the same job, ended without the scheduler losing a node


def scan(node: str, lines: list[str]) -> list[Finding]:
    text = "\n".join(line.format(n=node) for line in lines) + "\n"
    result = SCANNER.scan(io.BytesIO(text.encode()), node=node, source=Source.SYSTEM,
                          reference=START, hosts=NODES)  # fmt: skip
    return list(result.findings)


def findings(**logs: list[str]) -> list[Finding]:
    return [f for node in NODES for f in scan(node, logs.get(node.replace("-", "_"), QUIET))]


def ran(first: datetime = START) -> list[Activity]:
    """Each node's job output, from `first` on: the job ran on it before any boot after that."""
    return [Activity(n, Source.LOGS, True, lines=9, first_at=first) for n in NODES]


def test_a_node_that_went_down_hard_under_the_job_is_that_nodes_fault() -> None:
    found = restarts(FAILED, findings(z1_8=QUIET + BOOT), ran())
    assert [(f.signal, f.node, f.blame) for f in found] == [(HARD_RESTART, "z1-8", Blame.HARDWARE)]
    assert "Linux version" in found[0].text and 0 < found[0].weight < 60  # corroboration only
    # the scheduler lost a node (NODE_FAIL) and this one alone went down hard: named
    lost = restarts(JOB, findings(z1_8=QUIET + BOOT), ran())
    assert [(f.signal, f.node, f.weight) for f in lost] == [(HARD_RESTART, "z1-8", 60)]


def test_an_orderly_reboot_is_nobodys_fault() -> None:
    found = restarts(JOB, findings(z1_8=QUIET + SHUTDOWN + BOOT), ran())
    assert [(f.signal, f.node, f.blame) for f in found] == [(RESTARTED, "z1-8", Blame.TRANSIENT)]


def test_several_nodes_going_down_hard_share_a_cause() -> None:
    found = restarts(JOB, findings(z1_6=QUIET + BOOT, z1_8=QUIET + BOOT), ran())
    assert {(f.signal, f.node, f.blame) for f in found} == {
        (RESTARTED_TOGETHER, "z1-6", Blame.TRANSIENT),
        (RESTARTED_TOGETHER, "z1-8", Blame.TRANSIENT),
    }


def test_a_boot_before_the_job_or_without_a_time_decides_nothing() -> None:
    before = [
        "Mar 11 08:02:11 {n} kernel: Linux version 3.10.0-957.5.1.el7.x86_64 (mockbuild@x) #1"
    ]
    assert restarts(JOB, findings(z1_8=before + QUIET), ran()) == []
    untimed = ["kernel: Linux version 3.10.0-957.5.1.el7.x86_64 (mockbuild@x) #1", "-- Reboot --"]
    assert restarts(JOB, findings(z1_8=untimed), ran()) == []


def test_a_hard_restart_alone_names_no_node_and_an_orderly_one_is_transient() -> None:
    # The held-out split showed a hard restart naming its node alone isolating healthy nodes
    # (docs/attribution.md section 6): it needs a second pointer.
    activity = [Activity(n, Source.SYSTEM, True) for n in NODES] + ran()
    verdict = attribute(FAILED, findings(z1_8=QUIET + BOOT), activity, {})
    assert verdict.suspect_nodes == (), verdict
    orderly = attribute(JOB, findings(z1_8=QUIET + SHUTDOWN + BOOT), activity, {})
    assert orderly.cause is Cause.TRANSIENT and orderly.suspect_nodes == (), orderly


def test_a_hard_restart_in_a_job_the_scheduler_lost_a_node_of_names_it() -> None:
    """Slurm's NODE_FAIL and the node's own log going down hard point at the same node; two
    nodes going down together, or an orderly reboot, still name none."""
    activity = [Activity(n, Source.SYSTEM, True) for n in NODES] + ran()
    verdict = attribute(JOB, findings(z1_8=QUIET + BOOT), activity, {})
    assert (verdict.cause, verdict.suspect_nodes) == (Cause.HARDWARE, ("z1-8",)), verdict
    both = attribute(JOB, findings(z1_6=QUIET + BOOT, z1_8=QUIET + BOOT), activity, {})
    assert both.suspect_nodes == (), both


def test_a_node_that_booted_for_the_job_did_not_restart_under_it() -> None:
    # Slurm's power saving or a cloud node started for the job: its boot comes before the job's
    # first line on it, however late in the job's window the scheduler put the start.
    late = datetime(2026, 3, 11, 15, 56, tzinfo=UTC)  # the first job line, after the boot
    assert restarts(JOB, findings(z1_8=BOOT), ran(late)) == []
    assert restarts(JOB, findings(z1_8=BOOT), []) == []  # no job output: nothing to compare
