"""Golden lines from the third tracker sweep of issue 14 over what HPC sites print around a
training job: Open MPI's and PMIx's start-up and clean-up texts (Horovod and mpirun threads),
srun's step teardown and Slurm's prolog failures, the older EFA provider's completion errors and
the mlx5 RDMA driver's kernel-side error completions.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a launch configuration the job's own but weak alone, a launcher's
restatement a symptom, a failed send to a peer a symptom of the far end). Look-alikes must not
match, and none of these lines may read as the application's error unless the entry means it.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "ompi.init_failed": Blame.APPLICATION,
    "ompi.cleanup_restatement": Blame.SYMPTOM,
    "ompi.daemon_failed": Blame.SYMPTOM,
    "ompi.launch_config": Blame.APPLICATION,
    "ompi.unreachable_config": Blame.APPLICATION,
    "ompi.tcp_peer_lost": Blame.SYMPTOM,
    "mpich.mpi_abort": Blame.SYMPTOM,
    "slurm.step_terminating": Blame.SYMPTOM,
    "slurm.prolog_failed": Blame.TRANSIENT,
    "slurm.node_unexpected_reboot": Blame.HARDWARE,
    "cloud.k8s_node_shutdown": Blame.TRANSIENT,
    "efa.rxr_completion_error": Blame.SYMPTOM,
    "nic.mlx5_kernel_cqe_error": Blame.SYMPTOM,
    "ucx.ep_error": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # open-mpi/ompi pull request #8090 (srun direct launch against a PMIx it was not built for)
    (
        "It looks like MPI runtime init failed for some reason; your parallel process is",
        "ompi.init_failed",
        {"stage": "MPI runtime init"},
    ),
    # NVIDIA/pyxis issue #88 and openpmix/prrte issue #1127 (PMIx's munge component missing)
    (
        "It looks like pmix_init failed for some reason; your parallel process is",
        "ompi.init_failed",
        {"stage": "pmix_init"},
    ),
    # horovod/horovod issue #465 (mpirun across three hosts)
    ("  ompi_mpi_init: ompi_rte_init failed", "ompi.init_failed", {}),
    ("*** An error occurred in MPI_Init_thread", "ompi.init_failed", {}),
    # adda-team/adda issue #151 (mpiexec's clean-up after rank 0 aborted)
    ("WARNING: A process refused to die despite all the efforts!", "ompi.cleanup_restatement", {}),
    (
        "8 total processes killed (some possibly by mpiexec during cleanup)",
        "ompi.cleanup_restatement",
        {},
    ),
    # horovod/horovod issues #504 and #1850, volcano-sh/volcano issue #2226 (ssh to a worker
    # refused or unresolved: the daemon never came up)
    (
        "ORTE does not know how to route a message to the specified daemon",
        "ompi.daemon_failed",
        {},
    ),
    # horovod/horovod issue #1021 (Open MPI not on the remote node's PATH)
    ("bash: orted: command not found", "ompi.launch_config", {}),
    # horovod/horovod issue #1363 (a pair of ranks with no common transport)
    (
        "At least one pair of MPI processes are unable to reach each other for",
        "ompi.unreachable_config",
        {},
    ),
    # horovod/horovod issue #2043 (a firewall on the remote host)
    (
        "A process or daemon was unable to complete a TCP connection",
        "ompi.unreachable_config",
        {},
    ),
    # jbornschein/mpi4py-examples issue #11 (a peer's port no longer answering)
    (
        "WARNING: Open MPI failed to TCP connect to a peer MPI process.  This",
        "ompi.tcp_peer_lost",
        {},
    ),
    # flux-framework/flux-core issue #2500 (MPICH under srun and under Flux)
    (
        " 0: application called MPI_Abort(MPI_COMM_WORLD, 1) - process 0",
        "mpich.mpi_abort",
        {"comm": "MPI_COMM_WORLD", "code": "1", "rank": "0"},
    ),
    (
        "PMI2_Abort: (15) application called MPI_Abort(MPI_COMM_WORLD, 1) - process 15",
        "mpich.mpi_abort",
        {"rank": "15"},
    ),
    # ufs-community/ufs-weather-model issue #2947 (Cray MPICH names an unnamed communicator)
    (
        "MPICH ERROR [Rank 245] [job id 211698912.0] [Sat Oct 18 02:47:34 2025] [c6n1493] - "
        "Abort(1) (rank 245 in comm 496): application called MPI_Abort(comm=0x84000001, 1) - "
        "process 245",
        "mpich.mpi_abort",
        {"comm": "0x84000001", "code": "1", "rank": "245"},
    ),
    # hafs-community/HAFS issue #101 (after a task's Bus error)
    ("srun: Terminating job step 3495450.0", "slurm.step_terminating", {"step": "3495450.0"}),
    # openpmix/openpmix issue #3872 (the PMIx set-up of a 1042-task step failed)
    (
        "srun: StepId=9155831.0 aborted before step completely launched.",
        "slurm.step_terminating",
        {"aborted": "9155831.0"},
    ),
    (
        "srun: error: task 0 launch failed: Unspecified error",
        "slurm.step_terminating",
        {"task": "0", "reason": "Unspecified error"},
    ),
    # AMDResearch/hpcfund issue #69 (every node drained on allocation)
    ("salloc: Prolog failure on node k003-006", "slurm.prolog_failed", {"host": "k003-006"}),
    (
        "salloc: error: Job allocation 235454 has been revoked",
        "slurm.step_terminating",
        {"allocation": "235454"},
    ),
    # mknoxnv/ubuntu-slurm issue #4 (the prolog directory missing on the node)
    (
        "srun: error: Task launch for 23.0 failed on node hpc: Job prolog failed",
        "slurm.prolog_failed",
        {},
    ),
    # nebius/nebius-solutions-library pull request #265 (a prolog hung on a slow node)
    (
        "slurmstepd: error: Prolog hung on node worker-X",
        "slurm.prolog_failed",
        {"host": "worker-X"},
    ),
    # rapidsai/ucx-py issue #131 (UCX 1.6's wording, then the retry count exceeded)
    (
        "[1564069506.097666] [dgx15:34226:0]     ucp_worker.c:505  UCX  ERROR error 'Endpoint "
        "timeout' will not be handled for ep 0x7fb7fd48f120 - rc_mlx5/mlx5_3:1",
        "ucx.ep_error",
        {"via": "dgx15", "status": "Endpoint timeout"},
    ),
    # openucx/ucx issue #6253 (Intel MPI over UCX's UD transport)
    (
        "[compute-0-20:9358 :0:9358]    ud_iface.c:737  UCX Fatal: transport error: Endpoint "
        "timeout",
        "ucx.ep_error",
        {"via": "compute-0-20"},
    ),
    # ArjunaCluster/ArjunaUsers issue #164 (every node after a power event)
    (
        "   Reason=Node unexpectedly rebooted [slurm@2022-07-23T15:31:00]",
        "slurm.node_unexpected_reboot",
        {},
    ),
    # the same event in slurmctld's log (rendered from node_mgr.c)
    (
        "[2026-03-06T03:44:12.000] error: validate_node_specs: Node gpu-a03 unexpectedly rebooted "
        "boot_time=1772768652 last response=1772768400",
        "slurm.node_unexpected_reboot",
        {"host": "gpu-a03"},
    ),
    # kubernetes-sigs/karpenter issue #1894 (the kubelet seeing the node's shutdown, JSON-wrapped)
    (
        '{"stime":"Nov 30 15:12:02","pid":"2227","message":"I1130 15:12:02.781961    2227 '
        'nodeshutdown_manager_linux.go:265] \\"Shutdown manager detected new shutdown event, '
        'isNodeShuttingDownNow\\" event=true"}',
        "cloud.k8s_node_shutdown",
        {},
    ),
    (
        'I1130 15:12:02.781961    2227 nodeshutdown_manager_linux.go:265] "Shutdown manager '
        'detected new shutdown event, isNodeShuttingDownNow" event=true',
        "cloud.k8s_node_shutdown",
        {},
    ),
    # linux-nvme/nvme-cli issue #3268 (an RDMA queue pair's error completion in the kernel)
    (
        "[15601.662156] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on "
        "cqn 0x406:",
        "nic.mlx5_kernel_cqe_error",
        {"device": "rocep33s0f0", "side": "Responder"},
    ),
    # aws/aws-ofi-nccl issue #156 (a security group blocking the peers)
    (
        "[1,13]<stderr>:libfabric:35:1668017255::efa:cq:rxr_cq_write_tx_error():243<warn> "
        "rxr_cq_write_tx_error: err: 20, prov_err: Not a directory (20)",
        "efa.rxr_completion_error",
        {"err": "20", "error": "Not a directory"},
    ),
    # ofiwg/libfabric issues #6249 and #5716 (a completion error with no event queue bound)
    (
        "Unable to write to EQ: Missing or unavailable event queue. err: Input/output error (5) "
        "prov_errno: Unknown error -12 (-12) prov/efa/src/rxr/rxr.h:1343",
        "efa.rxr_completion_error",
        {"eq_error": "Input/output error"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # an MPI error in a later call is the call's own, not start-up
    ("ompi.init_failed", "*** An error occurred in MPI_Allreduce"),
    ("ompi.init_failed", "It looks like the download failed; retrying"),
    # ordinary process accounting
    ("ompi.cleanup_restatement", "Total processes: 8 (0 killed)"),
    # Open MPI accepting a stray connection is a warning about another job, not a lost peer
    (
        "ompi.tcp_peer_lost",
        "WARNING: Open MPI accepted a TCP connection from what appears to be a",
    ),
    ("ompi.unreachable_config", "All MPI processes were able to reach each other"),
    ("mpich.mpi_abort", "application called MPI_Finalize - process 0"),
    # srun starting a step, not ending one
    ("slurm.step_terminating", "srun: launch/slurm: launch_p_step_launch: StepId=77.0 aborted"),
    ("slurm.step_terminating", "srun: Terminated"),
    # an epilog or a healthy prolog is another line
    ("slurm.prolog_failed", "slurmd: debug:  completed prolog for job 235454"),
    ("slurm.prolog_failed", "Epilog failure on node k003-006"),
    # the mlx5 driver's health and link lines are not completions
    ("nic.mlx5_kernel_cqe_error", "[   21.365907] mlx5_core 0000:08:00.0 ens1: Link up"),
    # the openib BTL's routine warning on UCX builds, a gRPC transport error
    ("ucx.ep_error", "No OpenFabrics connection schemes reported that they were able to be"),
    ("ucx.ep_error", "grpc: transport error: connection reset"),
    # a cancelled shutdown, and a node Slurm rebooted on request
    (
        "cloud.k8s_node_shutdown",
        'nodeshutdown_manager_linux.go:265] "Shutdown manager detected new shutdown event, '
        'isNodeShuttingDownNow" event=false',
    ),
    ("slurm.node_unexpected_reboot", "   State=DOWN+DRAIN+REBOOT_ISSUED Reason=Reboot ASAP"),
    # the command missing on the user's side is the user's script, not Open MPI's daemon
    ("ompi.launch_config", "bash: torchrun: command not found"),
    # libfabric's newer provider naming the peer is efa.peer_unreachable's
    (
        "efa.rxr_completion_error",
        "libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, "
        "message: Invalid address",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_restatements_decide_nothing() -> None:
    """Launcher and provider restatements say who stopped, not why: never decisive alone."""
    for key in ("ompi.cleanup_restatement", "slurm.step_terminating", "efa.rxr_completion_error",
                "mpich.mpi_abort", "nic.mlx5_kernel_cqe_error"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.weight < 50, key
        assert sig.node_action.value == "none", key


def test_a_failed_prolog_retries_without_blaming_the_job() -> None:
    """Slurm drains the node and requeues the job itself: a retry, no node action of ours."""
    sig = CATALOG.signatures["slurm.prolog_failed"]
    assert sig.weight >= 50
    assert sig.node_action.value == "none"


def test_an_unexpected_reboot_is_a_weak_pointer_at_the_node() -> None:
    """A planned reboot outside Slurm reads the same: inspect the node, never decide alone."""
    sig = CATALOG.signatures["slurm.node_unexpected_reboot"]
    assert 0 < sig.weight < 60
    assert sig.node_action.value == "inspect"


def test_a_failed_start_up_is_weak_alone() -> None:
    """A failed MPI start-up or an unreachable pair is usually the launch's configuration, but a
    node's own fault can stop a daemon too: the job's, below a decisive weight."""
    for key in ("ompi.init_failed", "ompi.unreachable_config"):
        assert 0 < CATALOG.signatures[key].weight < 50, key
