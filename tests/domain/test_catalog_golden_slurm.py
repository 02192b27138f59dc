"""Golden lines for slurmstepd's reasons a step ended (signatures-slurm.toml)."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import timedelta

import pytest

from autorecover.domain.records import Blame, Finding, JobRecord, Source
from autorecover.domain.reports import NAMED_FAILURE_WEIGHT, about_named, named_failures
from domain.golden import SCANNER, T0, found


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        ("slurmstepd: error: *** JOB 1943824 ON jz-iam06 CANCELLED AT 2023-03-06T03:17:51 DUE "
         "TO JOB REQUEUE ***", "slurm.job_requeued", Blame.TRANSIENT),
        ("slurmstepd: error: *** STEP 1943824.0 ON jz-iam06 CANCELLED AT 2023-03-06T03:17:51 DUE "
         "TO TASK FAILURE ***", "slurm.task_failure_kill", Blame.SYMPTOM),
        ("slurmstepd: error: *** STEP 77.0 STEPD TERMINATED ON gpu-a03 AT 2026-01-05T08:00:00 DUE "
         "TO JOB NOT ENDING WITH SIGNALS ***", "slurm.unkillable_step", Blame.HARDWARE),
        # ArjunaCluster/ArjunaUsers issue #46
        ("slurmstepd: error: execve(): /tmp/slurmd/job00089/slurm_script: No such file or "
         "directory", "slurm.batch_script_missing", Blame.TRANSIENT),
    ],
)  # fmt: skip
def test_slurmstepd_reasons(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals


def test_a_user_cancel_is_not_a_requeue() -> None:
    line = "slurmstepd: error: *** JOB 77 ON gpu-a03 CANCELLED AT 2026-01-05T08:00:00 ***"
    assert "slurm.job_requeued" not in {s for s, _, _ in found(line, Source.LOGS)}


def test_a_user_program_exec_failure_is_not_the_spool() -> None:
    # the user's own program missing is the job's mistake, whatever slurmstepd prints around it
    line = "slurmstepd: error: execve(): /home/u/bin/train.sh: No such file or directory"
    assert "slurm.batch_script_missing" not in {s for s, _, _ in found(line, Source.LOGS)}


# --- pyxis and enroot starting the step's container (round-6 sweep: container runtimes) -------


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # NVIDIA/pyxis issue #61: the command the job asked for is not in its image
        ("slurmstepd: error: pyxis:     enroot-switchroot: failed to execute: /bin/bash: No such "
         "file or directory", "slurm.enroot_exec_failed", Blame.APPLICATION),
        ("slurmstepd: error: pyxis: container start failed with error code: 1",
         "slurm.pyxis_start_failed", Blame.SYMPTOM),
        ("slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
         "slurm.spank_plugin_failed", Blame.SYMPTOM),
        ("slurmstepd: error: Failed to invoke spank plugin stack", "slurm.spank_plugin_failed",
         Blame.SYMPTOM),
        # aws/aws-parallelcluster issue #6459: the plugin stack unreadable, every srun fails
        ("srun: error: spank: Failed to open /opt/slurm/etc/plugstack.conf.d/sed6Yj8Ga: "
         "Permission denied", "slurm.spank_stack_unloadable", Blame.APPLICATION),
        ("srun: error: Plug-in initialization failed", "slurm.spank_stack_unloadable",
         Blame.APPLICATION),
        # SlinkyProject/slurm-operator issue #99: enroot's unpack path cannot hold whiteouts
        ("slurmstepd: error: pyxis:     enroot-aufs2ovlfs: failed to create opaque ovlfs "
         "whiteout: /tmp/enroot.Xk3qPz/17/usr/src/python3.12/: Not supported",
         "slurm.enroot_whiteout_unsupported", Blame.APPLICATION),
        # NVIDIA/pyxis issues #4 and #6: the node's plugin setup or kernel
        ("[2019-09-24T10:10:06.901] [321.0] error: pyxis: couldn't mkdir /run/pyxis/100005: No "
         "such file or directory", "slurm.pyxis_node_setup", Blame.HARDWARE),
        ("slurmstepd: error: pyxis: seccomp filter failed", "slurm.pyxis_node_setup",
         Blame.HARDWARE),
        # NVIDIA/pyxis issue #101 and NVIDIA/enroot issue #238: a hook restating its own error
        ("slurmstepd: error: pyxis: [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return "
         "code 1", "slurm.enroot_hook_failed", Blame.SYMPTOM),
        ("enroot-nsenter: failed to create user namespace: Permission denied",
         "slurm.enroot_userns_denied", Blame.HARDWARE),
        # NVIDIA/enroot issue #36: a --mount source that does not exist
        ("enroot-mount: failed to mount: /opt/yingbai at /home/yingbai/.local/share/enroot/ubuntu"
         "/opt/yingbai: No such file or directory", "slurm.enroot_mount_missing",
         Blame.APPLICATION),
    ],
)  # fmt: skip
def test_container_start_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get(signal) is blame, signals


def test_container_setup_names_no_node_alone() -> None:
    """The node-side pyxis and enroot lines stay below the weight that names a node alone."""
    for line in (
        "slurmstepd: error: pyxis: seccomp filter failed",
        "enroot-nsenter: failed to create user namespace: Permission denied",
    ):
        assert all(w < 60 for _, b, w in found(line, Source.LOGS) if b is Blame.HARDWARE), line


@pytest.mark.parametrize(
    ("signal", "line"),
    [
        # enroot-nsenter execs enroot's own helpers: its exec failure is not the job's command
        ("slurm.enroot_exec_failed", "enroot-nsenter: failed to execute: /usr/bin/bash: No such "
         "file or directory"),
        # any program's hook runner: only enroot's hooks.d entries with its [ERROR] prefix
        ("slurm.enroot_hook_failed", "run-parts: /etc/kernel/postinst.d/zz-update-grub exited "
         "with return code 2"),
        ("slurm.enroot_mount_missing", "enroot-mount: failed to mount: tmpfs at /run: Operation "
         "not permitted"),
        ("slurm.spank_plugin_failed", "srun: debug:  spank: opening plugin stack "
         "/etc/slurm/plugstack.conf"),
        ("slurm.spank_stack_unloadable", "srun: debug:  spank: opening plugin stack "
         "/etc/slurm/plugstack.conf"),
        ("slurm.spank_stack_unloadable", "srun: debug:  spank: /etc/slurm/plugstack.conf:1: "
         "Loaded plugin spank_pyxis.so"),
    ],
)  # fmt: skip
def test_container_start_neighbours_do_not_match(signal: str, line: str) -> None:
    assert signal not in {s for s, _, _ in found(line, Source.LOGS)}


# --- the daemons' own words about a node's health (slurmctld.log, slurmd.log, scontrol) ------


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # SchedMD/slurm req.c, prep/script, node_mgr.c: the same failed Prolog, daemon by daemon
        ("[2024-03-02T10:12:31.004] error: [job 1234] prolog failed status=1:0",
         "slurm.prolog_failed", Blame.TRANSIENT),
        ("[2024-03-02T10:12:31.004] error: prolog failed: rc:230 output:Error running slurm "
         "prolog: 230", "slurm.prolog_failed", Blame.TRANSIENT),
        ("[2024-03-02T10:12:31.004] error: validate_node_specs: Prolog or job env setup failure "
         "on node gpu-a03, draining the node", "slurm.prolog_failed", Blame.TRANSIENT),
        ("   Reason=Prolog error [slurm@2024-03-02T10:12:31]", "slurm.prolog_failed",
         Blame.TRANSIENT),
        # ArjunaCluster/ArjunaUsers#123 (job_container/tmpfs after a downtime; older wording)
        ("slurmstepd: error: container_p_join: open failed /scratch/119383/.active: No such file "
         "or directory", "slurm.job_container_join_failed", Blame.TRANSIENT),
        ("slurmstepd: error: container_g_join failed", "slurm.job_container_join_failed",
         Blame.TRANSIENT),
        # the current wording, and slurmstepd's own (SchedMD/slurm slurmstepd/mgr.c)
        ("slurmstepd: error: container_p_join: open failed for /var/opt/slurm/localstorage/"
         "7233753/.ns: No such file or directory", "slurm.job_container_join_failed",
         Blame.TRANSIENT),
        ("slurmstepd: error: container_g_join(7233753): No such file or directory",
         "slurm.job_container_join_failed", Blame.TRANSIENT),
        ("[2024-03-02T10:20:41.118] error: [job 4021] epilog failed status=1:0",
         "slurm.epilog_failed", Blame.HARDWARE),
        ("   Reason=Epilog error [root@2024-03-02T10:20:41]", "slurm.epilog_failed",
         Blame.HARDWARE),
        ("[2024-03-02T10:14:11.201] error: Nodes node03 not responding, setting DOWN",
         "slurm.node_set_down", Blame.SYMPTOM),
        ("[2024-03-02T10:14:11.202] Killing JobId=48 on failed node node03",
         "slurm.node_set_down", Blame.SYMPTOM),
        ("[2024-03-02T10:12:31.004] error: Nodes gpu-a03 not responding",
         "slurm.node_not_responding", Blame.SYMPTOM),
        ("[2024-03-02T10:19:02.771] Node gpu-a03 now responding", "slurm.node_responding_again",
         Blame.INFO),
        ("[2024-03-02T10:12:31.004] error: Setting node gpu-a03 state to INVAL with reason:gres/gpu"
         " count reported lower than configured (7 < 8)", "slurm.gpu_count_dropped",
         Blame.HARDWARE),
        ("   Reason=gres/gpu count reported lower than configured (0 < 2) [slurm@2026-07-28T17:13:"
         "24]", "slurm.gpu_count_none", Blame.HARDWARE),
        ("slurmctld: error: Setting node cn1 state to INVAL with reason:Low RealMemory (reported:"
         "32082 < 100.00% of configured:32768)", "slurm.node_resources_low", Blame.HARDWARE),
        ("slurmstepd: error: TaskProlog failed status=127", "slurm.task_prolog_failed",
         Blame.SYMPTOM),
        ("slurmstepd: error: --task-prolog failed status=1", "slurm.task_prolog_failed",
         Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_daemon_node_health_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line, Source.SYSTEM)}
    assert signals.get(signal) is blame, signals


def test_only_a_gpu_count_that_dropped_names_the_node() -> None:
    """Fewer GPUs than the node has, but some: one fell off the bus, strong enough to name the
    node; none at all is nearly always the node's set-up, and stays below naming."""
    dropped = "Reason=gres/gpu count reported lower than configured (7 < 8)"
    none = "Reason=gres/gpu count reported lower than configured (0 < 8)"
    assert [s for s, _, w in found(dropped) if w >= 60] == ["slurm.gpu_count_dropped"]
    assert [s for s, _, _ in found(none)] == ["slurm.gpu_count_none"]
    assert all(w < 60 for _, _, w in found(none))


@pytest.mark.parametrize(
    "line",
    [
        "error: Nodes node03 not responding, setting DOWN",
        "Killing JobId=48 on failed node node03",
    ],
)
def test_a_node_set_down_counts_against_the_node_it_names(line: str) -> None:
    """slurmctld's log names the node it gave up on: evidence against that node at the weight
    of srun's "Node failure on X", whichever file the line sits in."""
    job = JobRecord(
        scheduler="slurm", job="48", nodes=("node01", "node02", "node03"), started=T0,
        ended=T0 + timedelta(hours=1), collected=T0 + timedelta(hours=1), state="NODE_FAIL",
    )  # fmt: skip
    scan = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="node01", source=Source.SYSTEM,
                        reference=T0)  # fmt: skip
    reports = named_failures(scan.findings, job)
    assert [(r.node, r.blame, r.weight) for r in reports] == [
        ("node03", Blame.HARDWARE, NAMED_FAILURE_WEIGHT)
    ]


@pytest.mark.parametrize(
    ("signal", "line"),
    [
        # a hostlist names no single node: it is not a set-down of one
        ("slurm.node_set_down", "error: Nodes gpu-[01-04] not responding, setting DOWN"),
        # a missed ping is not yet a node set down
        ("slurm.node_set_down", "error: Nodes gpu-a03 not responding"),
        ("slurm.node_not_responding", "nfs: server 10.0.0.1 not responding, still trying"),
        ("slurm.prolog_failed", "slurmd: debug:  completed prolog for job 235454"),
        ("slurm.epilog_failed", "slurmd: debug:  completed epilog for jobid 4021"),
        # the plugin's successful join and its declaration are not a failure
        ("slurm.job_container_join_failed", "debug:  container_p_join: job 4021 joined"),
        ("slurm.job_container_join_failed", "extern int container_g_join(slurm_step_id_t *step_id,"),
        ("slurm.gpu_count_dropped", "Reason=gres/gpu count reported lower than configured (0 < 8)"),
    ],
)  # fmt: skip
def test_daemon_node_health_neighbours_do_not_match(signal: str, line: str) -> None:
    assert signal not in {s for s, _, _ in found(line, Source.SYSTEM)}


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        ("[2024-03-02T10:12:31.004] error: Setting node node03 state to INVAL with reason:gres/gpu"
         " count reported lower than configured (7 < 8)", "slurm.gpu_count_dropped"),
        ("slurmctld: debug:  Node node03 has low real_memory size (32082 / 32768) < 100.00%",
         "slurm.node_resources_low"),
    ],
)  # fmt: skip
def test_a_controller_line_counts_for_the_node_it_names(line: str, signal: str) -> None:
    """slurmctld's log names the node a line is about: in node01's file, it counts for node03
    (the file's node kept as its origin), and for no node when the named one is not the job's:
    a controller's log names the whole cluster."""
    job = JobRecord(
        scheduler="slurm", job="48", nodes=("node01", "node02", "node03"), started=T0,
        ended=T0 + timedelta(hours=1), collected=T0 + timedelta(hours=1), state="FAILED",
    )  # fmt: skip
    scan = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="node01", source=Source.SYSTEM,
                        reference=T0)  # fmt: skip
    [moved] = [f for f in about_named(scan.findings, job) if f.signal == signal]
    assert (moved.node, moved.origin) == ("node03", "node01")
    other = replace(job, nodes=("node01", "node02"))
    assert [f for f in about_named(scan.findings, other) if f.signal == signal] == []


def test_a_line_naming_a_pods_hostname_counts_for_the_node_that_added_the_pod() -> None:
    """Megascale's digest names a JobSet pod's hostname (`<job>-<index>`); the kubelet's
    "SyncLoop ADD" in a node's journal names the pod (`<job>-<index>-<suffix>`): the line
    counts for that node, and for none when two nodes' pods share the name."""
    job = JobRecord(
        scheduler="kubernetes", job="default/mxt", nodes=("tpu-a", "tpu-b"), started=T0,
        ended=T0 + timedelta(hours=1), collected=T0 + timedelta(hours=1), state="Failed",
    )  # fmt: skip

    def scan(node: str, source: Source, *lines: str) -> list[Finding]:
        text = "\n".join(lines).encode() + b"\n"
        return SCANNER.scan(io.BytesIO(text), node=node, source=source, reference=T0).findings

    def added(pod: str) -> str:
        return f'I0302 10:00:01.1    2104 kubelet.go:2419] "SyncLoop ADD" source="api" pods=["default/{pod}"]'

    digest = scan("tpu-a", Source.LOGS, "The host that have bad TPUs are: mxt-slice-job-1-2")
    kubelets = [
        *scan("tpu-a", Source.SYSTEM, added("mxt-slice-job-0-0-jawqz")),
        *scan("tpu-b", Source.SYSTEM, added("mxt-slice-job-1-2-9ag84")),
    ]
    [moved] = [f for f in about_named([*digest, *kubelets], job) if f.signal.startswith("mega")]
    assert (moved.node, moved.origin) == ("tpu-b", "tpu-a")
    shared = scan("tpu-a", Source.SYSTEM, added("mxt-slice-job-1-2-b4x7q"))
    assert [
        f for f in about_named([*digest, *kubelets, *shared], job) if f.signal.startswith("mega")
    ] == []


@pytest.mark.parametrize(
    ("line", "job", "step"),
    [
        # slurmd req.c _rpc_launch_tasks (20.11+, and before 20.11 without "StepId=")
        ("Sep 14 11:39:56 n1 slurmd[1822]: slurmd: launch task StepId=5127.0 request from "
         "UID:1000 GID:1000 HOST:10.3.0.11 PORT:44721", "5127", "0"),
        ("Mar  2 09:59:58 n1 slurmd[88]: launch task 77.batch request from UID:0 GID:0 "
         "HOST:10.0.0.1 PORT:1", "77", "batch"),
    ],
)  # fmt: skip
def test_slurmd_launching_the_jobs_steps_says_when_it_started_there(
    line: str, job: str, step: str
) -> None:
    [f] = [f for f in SCANNER.scan(io.BytesIO(line.encode()), node="n1", source=Source.SYSTEM,
                                   reference=T0).findings if f.signal == "slurm.task_launched"]  # fmt: skip
    assert (f.blame, f.detail("jobid"), f.detail("step")) == (Blame.INFO, job, step)
    batch = "Mar  2 09:59:58 n1 slurmd[88]: slurmd: Launching batch job 77 for UID 1000"
    [g] = [g for g in SCANNER.scan(io.BytesIO(batch.encode()), node="n1", source=Source.SYSTEM,
                                   reference=T0).findings if g.signal == "slurm.task_launched"]  # fmt: skip
    assert g.detail("batch") == "77"
