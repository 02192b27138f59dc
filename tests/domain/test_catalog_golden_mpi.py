"""Golden tests for the MPI and UCX families (signatures-mpi.toml, signatures-ucx.toml).

What mpirun, Hydra, PMIx, Slurm's PMIx plugin, MPICH, Horovod and UCX print when a job fails
(real lines from the public threads named beside them, or rendered from the emitters' format
strings where the comment says so) must match with the blame the emitter means, and the
routine warnings every healthy MPI job prints must not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autorecover.adapters.bundles import explain
from autorecover.domain.records import Blame, Cause, Source
from autorecover.domain.shape import LOCAL_CRASHES, family
from domain.golden import (
    CATALOG,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
    found,
)

MPI_KEYS = family_keys("signatures-mpi.toml")
UCX_KEYS = family_keys("signatures-ucx.toml")
FAMILY_KEYS = MPI_KEYS | UCX_KEYS

REQUIRED: dict[str, Blame] = {
    "ompi.rank_aborted": Blame.SYMPTOM,
    "ompi.signal_report": Blame.SYMPTOM,
    "ompi.rank_signaled_wrapped": Blame.SYMPTOM,
    "ompi.prte_daemon_lost": Blame.SYMPTOM,
    "ompi.nonzero_exit": Blame.SYMPTOM,
    "ompi.daemon_failed": Blame.SYMPTOM,
    "ompi.daemon_not_found": Blame.APPLICATION,  # depth review (s22)
    "ompi.launch_config": Blame.APPLICATION,
    "ompi.component_not_found": Blame.APPLICATION,
    "ompi.init_failed": Blame.APPLICATION,
    "ompi.cleanup_restatement": Blame.SYMPTOM,
    "ompi.unreachable_config": Blame.APPLICATION,
    "mpich.mpi_abort": Blame.SYMPTOM,
    "ompi.mpi_abort": Blame.SYMPTOM,
    "ompi.mpi_usage_error": Blame.APPLICATION,
    "ompi.error_log": Blame.SYMPTOM,
    "ompi.launch_unpack_mismatch": Blame.APPLICATION,
    "ompi.openib_completion_error": Blame.SYMPTOM,
    "ompi.tcp_peer_lost": Blame.SYMPTOM,
    "ompi.tcp_unexpected_peer": Blame.APPLICATION,
    "ompi.peer_host": Blame.SYMPTOM,
    "ompi.ofi_completion_error": Blame.SYMPTOM,
    "ompi.ucx_ep_failed": Blame.SYMPTOM,
    "ompi.ucx_transfer_failed": Blame.SYMPTOM,
    "mpich.romio_lock_failed": Blame.APPLICATION,
    "pmix.error_log": Blame.SYMPTOM,
    "pmix.launch_config": Blame.APPLICATION,
    "pmix.slurm_peer_failed": Blame.SYMPTOM,
    "mpich.fatal_error": Blame.SYMPTOM,
    "mpich.usage_error": Blame.APPLICATION,
    "mpich.unexpected_message_alloc": Blame.APPLICATION,
    "mpich.ofi_poll_failed": Blame.SYMPTOM,
    "mpich.ofi_init_failed": Blame.APPLICATION,
    "mpich.bad_termination": Blame.SYMPTOM,
    "mpich.hydra_teardown": Blame.SYMPTOM,
    "mpich.execvp_failed": Blame.APPLICATION,  # depth review (s22)
    "mpich.assertion_failed": Blame.SYMPTOM,
    "horovod.stall_warning": Blame.SYMPTOM,
    "horovod.stall_shutdown": Blame.SYMPTOM,
    "horovod.stalled_op": Blame.INFO,
    "horovod.missing_ranks_header": Blame.INFO,
    "horovod.missing_rank": Blame.INFO,
    "horovod.mismatch": Blame.APPLICATION,
    "horovod.internal_error": Blame.SYMPTOM,
    "horovod.gloo_store_timeout": Blame.SYMPTOM,  # mnet (session 23)
    "ucx.ib_retry_exceeded": Blame.SYMPTOM,
    "ucx.ib_completion_error": Blame.SYMPTOM,
    "ucx.ib_async_device_fatal": Blame.HARDWARE,
    "ucx.ib_async_port_error": Blame.HARDWARE,
    "ucx.ib_async_queue_error": Blame.SYMPTOM,
    "ucx.ib_async_benign": Blame.INFO,
    "ucx.ep_error": Blame.SYMPTOM,
    "ucx.ud_timeout": Blame.SYMPTOM,
    "ucx.no_transport": Blame.APPLICATION,
    "ucx.caught_signal": Blame.SYMPTOM,
    "ucx.memlock_limit": Blame.APPLICATION,
    "pscom.openib_completion_error": Blame.SYMPTOM,
    "pscom.connection_failed": Blame.SYMPTOM,
    "psm.cuda_invalid_argument": Blame.APPLICATION,
    "ucx.gpu_memory_seen_as_host": Blame.APPLICATION,
    # wording-drift review (s23, dmpi)
    "ompi.oob_peer_lost": Blame.SYMPTOM,
    "ompi.ofi_call_failed": Blame.SYMPTOM,
    "ompi.ofi_modex_failed": Blame.SYMPTOM,
    "ompi.ofi_tag_bits": Blame.APPLICATION,
    "ompi.cma_denied": Blame.APPLICATION,
    "ucx.ib_speed_unknown": Blame.APPLICATION,
    "ucx.no_usable_devices": Blame.APPLICATION,
    "ucx.devx_create_failed": Blame.HARDWARE,
    "mpich.hydra_socket_error": Blame.SYMPTOM,
    "ompi.daemon_unreachable": Blame.SYMPTOM,
    "mpich.ucx_call_failed": Blame.SYMPTOM,
}


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract(
    {
        "signatures-mpi.toml": frozenset({"ompi", "pmix", "mpich", "horovod", "pscom", "psm"}),
        "signatures-ucx.toml": frozenset({"ucx"}),
    },
    REQUIRED,
)


def test_only_this_hosts_adapter_is_hardware_and_it_is_the_network_family() -> None:
    """A launcher or a peer's follow-on error never names hardware; UCX's fatal IB events do,
    and the adapter refusing a queue pair (below naming a node alone), in the `network` family
    the shape rules share across nodes."""
    hardware = {k for k in FAMILY_KEYS if CATALOG.signatures[k].blame is Blame.HARDWARE}
    assert hardware == {
        "ucx.ib_async_device_fatal", "ucx.ib_async_port_error", "ucx.devx_create_failed"
    }  # fmt: skip
    assert CATALOG.signatures["ucx.devx_create_failed"].weight < 50
    assert {family(k) for k in hardware} == {"network"}
    assert CATALOG.signatures["ucx.ib_async_port_error"].weight < 85


def test_launcher_restatements_never_decide_alone() -> None:
    for key in ("ompi.rank_aborted", "ompi.nonzero_exit", "mpich.bad_termination",
                "ompi.mpi_abort", "mpich.hydra_teardown"):  # fmt: skip
        assert CATALOG.signatures[key].weight <= 20, key


def test_a_crash_ucx_reports_is_not_a_complaint_about_a_peer() -> None:
    assert "ucx.caught_signal" in LOCAL_CRASHES


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    # Microsoft's known issues for H- and N-series VMs (2021 revisions: "MPI QP creation errors")
    (
        "ucx.devx_create_failed",
        "[1632139434.473213] [ndv4-pg0-3:28417:0]     ib_mlx5_dv.c:150  UCX  ERROR "
        "mlx5dv_devx_obj_create(QP) failed, syndrome 0: Invalid argument",
        {"object": "QP", "syndrome": "0", "reason": "Invalid argument"},
    ),
    # opal/mca/base/help-mca-base.txt as glotzerlab/software#120 and the Open MPI users list quote it
    (
        "ompi.component_not_found",
        "A requested component was not found, or was unable to be opened.  This",
        {},
    ),
    # the same line behind srun -l's rank prefix (PMIx's copy, srun's PMIx without munge)
    (
        "ompi.component_not_found",
        "0: A requested component was not found, or was unable to be opened.  This",
        {},
    ),
    # SmileiPIC/Smilei#342 (parallel HDF5 on a Lustre mounted without flock), srun -l prefixed
    (
        "mpich.romio_lock_failed",
        "0: This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH "
        "Message: File locking failed in ADIOI_Set_lock(fd 12,cmd F_SETLKW/7,type F_WRLCK/1,"
        "whence 0) with return value FFFFFFFF and errno 26.",
        {"cmd": "F_SETLKW", "errno": "26"},
    ),
    (
        "mpich.romio_lock_failed",
        "8: ADIOI_Set_lock:: Function not implemented",
        {"error": "Function not implemented"},
    ),
    # SmileiPIC/Smilei#392 (a restart's first time step; the job's Open MPI 2.0.3)
    (
        "ompi.ucx_transfer_failed",
        "[cn042:28531] pml_ucx.c:780  Error: ucx send failed: Input/output error",
        {"op": "send", "status": "Input/output error"},
    ),
    # rendered from pml_ucx.c's receive path, UCX's status string for a lost peer
    (
        "ompi.ucx_transfer_failed",
        "pml_ucx.c:1033  Error: ucx recv failed: Connection reset by remote peer",
        {"op": "recv", "status": "Connection reset by remote peer"},
    ),
    # horovod/horovod#1516 (Open MPI 4's wording), and 5.0's (rendered from btl_tcp_endpoint.c)
    (
        "ompi.tcp_unexpected_peer",
        "[ib-gpu02][[22157,1],4][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] "
        "received unexpected process identifier [[22157,1],7]",
        {"got": "[[22157,1],7]"},
    ),
    (
        "ompi.tcp_unexpected_peer",
        "[n2][[4617,1],3][btl_tcp_endpoint.c:676:mca_btl_tcp_endpoint_recv_connect_ack] received "
        "unexpected process identifier: got [[4617,1],5] expected [[4617,1],1]",
        {"got": "[[4617,1],5]"},
    ),
    # OLCF's Summit guide: IBM's collectives on GPU buffers with a complex datatype
    (
        "ompi.mpi_usage_error",
        "[h35n05:113506] *** MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
        {"error": "MPI_ERR_UNSUPPORTED_OPERATION"},
    ),
    (  # rendered: open-mpi/ompi ompi/errhandler/errcode.c, an info object's key
        "ompi.mpi_usage_error",
        "[n1:4242] *** MPI_ERR_INFO_KEY: invalid key argument for info object",
        {"error": "MPI_ERR_INFO_KEY"},
    ),
    (  # rendered: ai-dynamo/nixl src/plugins/ucx/ucx_utils.cpp, the whole message
        "ucx.gpu_memory_seen_as_host",
        "E0412 10:02:11.331207 88412 ucx_utils.cpp:592] VRAM memory is detected as host by UCX."
        " UCX is likely not configured with CUDA support. VRAM registration cannot proceed.",
        {},
    ),
    (  # rendered: ParaStation/pscom lib/pscom4openib/psoib.c, its syslog copy
        "pscom.openib_completion_error",
        "Jun 21 14:02:11 jwc04n120 fesom.x[40211]: pscom4openib: ibv_poll_cq(): Infiniband"
        " returned the wrong Opcode 5408",
        {"opcode": "5408"},
    ),
    (  # rendered: ParaStation/pscom lib/pscom4openib/psoib.c, a send completed in error
        "pscom.openib_completion_error",
        "<PSP:r0000012:ib:Failed send request (status 12 : transport retry counter exceeded)."
        " Connection broken!>",
        {"status": "12", "text": "transport retry counter exceeded"},
    ),
    (  # horovod/horovod issue #100 (one tensor of the early stall report), and mpirun's prefix
        "horovod.stalled_op",
        "model/model/DistributedAdamOptimizer_Allreduce/HorovodAllreduce_model_model_gradients_"
        "AddN_45_0 [ready ranks: 1], ",
        {
            "op": "model/model/DistributedAdamOptimizer_Allreduce/HorovodAllreduce_model_model_"
            "gradients_AddN_45_0",
            "ranks": "1",
        },
    ),
    (
        "horovod.stalled_op",
        "[1,0]<stderr>:DistributedSGD_Allreduce/HorovodAllreduce_grad_0 [ready ranks: 0, 2, 3]",
        {"op": "DistributedSGD_Allreduce/HorovodAllreduce_grad_0", "ranks": "0, 2, 3"},
    ),
    (  # rendered: horovod/common/stall_inspector.cc, a rank past the shutdown time, cut at six
        "horovod.missing_rank",
        "[1,0]<stderr>:1!: [a_0, b_0, c_0, d_0, e_0, f_0 ...]",
        {"rank": "1", "shutdown": "!", "tensors": "a_0, b_0, c_0, d_0, e_0, f_0 ..."},
    ),
    (  # open-mpi/ompi issue #6799 (Grid's unified-memory buffers through PSM2's CUDA IPC)
        "psm.cuda_invalid_argument",
        "r6i6n7.218497 Benchmark_dwf: CUDA failure: cuIpcGetMemHandle() (at /nfs/site/home/"
        "rpmbuild/BUILD/libpsm2-11.2.23/ptl_am/am_reqrep_shmem.c:1977)returned 1 ",
        {"call": "cuIpcGetMemHandle", "code": "1"},
    ),
    (  # FESOM/fesom2 issue #166 (the write side of the same connection)
        "pscom.connection_failed",
        "359: <PSP:r0000359:connection to (10.13.6.39,20811,0x168,r0000386)"
        " (type:openib,state:wo) : write : Broken pipe>",
        {"type": "openib", "op": "write", "error": "Broken pipe"},
    ),
    (  # open-mpi/ompi issue #12607 (timestamped by the CI, node on the next line)
        "ompi.rank_aborted",
        "15:50:32   mpirun has exited due to process rank 1 with PID 0 on",
        {"rank": "1"},
    ),
    (  # compas/grasp issue #118 (one line as the reporter pasted it)
        "ompi.nonzero_exit",
        "Primary job  terminated normally, but 1 process returned a non-zero exit code. Per"
        " user-direction, the job has been aborted.",
        {},
    ),
    (  # OPM/LBPM issue #48
        "ompi.ofi_completion_error",
        "> *** The Open MPI OFI MTL is aborting the MPI job (via exit(3)).",
        {},
    ),
    (  # open-mpi/orcm issue #38
        "ompi.error_log",
        "[headnode.localdomain:23414] [[0,0],1] ORTE_ERROR_LOG: Not found in file"
        " ../../orte/runtime/orte_globals.c at line 517",
        {"status": "Not found"},
    ),
    (  # open-mpi/ompi issue #4437 (two nodes' daemons at start-up)
        "ompi.launch_unpack_mismatch",
        "[s2:09741] [[24373,0],1] ORTE_ERROR_LOG: Data unpack would read past end of buffer in"
        " file grpcomm_direct.c at line 355",
        {"file": "grpcomm_direct.c"},
    ),
    (  # ORTE's abort on it (Horovod's troubleshooting guide)
        "ompi.launch_unpack_mismatch",
        "[[25215,0],1] FORCE-TERMINATE AT Data unpack would read past end of buffer:-26 - error"
        " grpcomm_direct.c(359)",
        {},
    ),
    (  # open-mpi/ompi issue #13558 (Open MPI 5 with PRRTE, the remote node)
        "ompi.launch_unpack_mismatch",
        "[vlxssl18.gpfs.boe:152058] PMIX ERROR: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER in file"
        " base/plm_base_launch_support.c at line 1578",
        {"pmix_file": "plm_base_launch_support.c"},
    ),
    (  # open-mpi/ompi issue #7529 (FQDN host in the prefix)
        "pmix.error_log",
        "[cn007.iitk.ac.in:24154] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2147",
        {"status": "UNREACHABLE"},
    ),
    (  # geoschem/geos-chem issue #822 (srun built without the pmix plugin)
        "pmix.launch_config",
        "srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files",
        {},
    ),
    (  # open-mpi/ompi issue #13523 (a pmi2 launch of Open MPI 5 starts singletons)
        "pmix.launch_config",
        "No PMIx server was reachable, but a PMI1/2 was detected.",
        {},
    ),
    (  # openpmix/openpmix issue #3098
        "pmix.slurm_peer_failed",
        "slurmstepd: error:  mpi/pmix_v2: _tcp_connect: lxbk1177 [0]: pmixp_dconn_tcp.c:139:"
        " Cannot establish the connection",
        {"via": "lxbk1177"},
    ),
    (  # ofiwg/libfabric issue #10072 (Cray MPICH on Adastra)
        "mpich.fatal_error",
        "MPICH ERROR [Rank 519] [job id 947981.0] [Tue Jun 11 15:11:42 2024] [c1207] -"
        " Abort(539602063) (rank 519 in comm 0): Fatal error in PMPI_Iprobe: Other MPI error,"
        " error stack:",
        {"via": "c1207", "rank": "519"},
    ),
    (  # rouyang2017/SISSO issue #64 (Intel MPI at init; "node 0" is the rank, not a host)
        "mpich.fatal_error",
        "Abort(1615247) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error,"
        " error stack:",
        {"rank": "0"},
    ),
    (  # ofiwg/libfabric issue #11307 (the job had been sent SIGTERM from outside)
        "mpich.ofi_poll_failed",
        "MPIDI_OFI_handle_cq_error(1075)......: OFI poll failed"
        " (ofi_events.c:1077:MPIDI_OFI_handle_cq_error:Input/output error - CANCELED)",
        {"error": "Input/output error - CANCELED"},
    ),
    (  # openai/jukebox issue #155
        "mpich.bad_termination",
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)",
        {"signal": "Killed"},
    ),
    (  # IntelligentSoftwareSystems/Galois issue #37
        "mpich.bad_termination",
        "=   PID 4774 RUNNING AT IIPLab-WS1",
        {"peer": "IIPLab-WS1"},
    ),
    (  # IntelligentSoftwareSystems/Galois issue #37
        "mpich.hydra_teardown",
        "[proxy:0:1@IIPLab-WS2] HYD_pmcd_pmip_control_cmd_cb (pm/pmiserv/pmip_cb.c:878):"
        " assert (!closed) failed",
        {},
    ),
    (  # openucx/ucx issue #5199 (UCX 1.8, DC transport)
        "ucx.ib_retry_exceeded",
        "[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB"
        " (synd 0x15 vend 0x81 hw_synd 0/0)",
        {"via": "master", "device": "mlx5_0", "port": "1", "transport": "IB"},
    ),
    (  # openucx/ucx issue #6000 (RoCE)
        "ucx.ib_retry_exceeded",
        "Error: Transport retry count exceeded on mlx5_0:1/RoCE",
        {"device": "mlx5_0", "transport": "RoCE"},
    ),
    (  # openucx/ucx pull request #5174 (timestamped prefix, ERROR level)
        "ucx.ib_retry_exceeded",
        "[1589621202.437750] [jazz11:137347:0]    ib_mlx5_log.c:143  UCX  ERROR Transport retry"
        " count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
        {"via": "jazz11", "device": "mlx5_0"},
    ),
    (  # openucx/ucx issue #2973 (UCX 1.5 wording)
        "ucx.ib_retry_exceeded",
        "[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]:"
        " Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND",
        {},
    ),
    (  # openucx/ucx issue #2483 (UCX 1.4: no device in the line)
        "ucx.ib_retry_exceeded",
        "Thu Apr  5 08:32:03 2018[1,2674]<stderr>:[clx-orion-059:27319:0:27319] ib_mlx5_log.c:113"
        "  FATAL: Error on QP 0x3ce8e wqe[12598]: Transport retry count exceeded (synd 0x15 vend"
        " 0x81) opcode SEND",
        {},
    ),
    (  # pyiron/executorlib pull request #761 (Slurm 24, no PMIx library for the plugin)
        "pmix.launch_config",
        "srun: error: Couldn't load specified plugin name for mpi/pmix: Plugin init() callback"
        " failed",
        {},
    ),
    (  # open-mpi/ompi issue #10940 (the help text's second line is not matched; the first is)
        "pmix.launch_config",
        'The application appears to have been direct launched using "srun",',
        {},
    ),
    (  # openucx/ucx issue #8487
        "ucx.ep_error",
        "[1661938336.553723] [vhost-node1:1499693:6]           flush.c:26   UCX  ERROR req"
        " 0x7fc2d40b3c00: error during flush: Endpoint timeout, flush comp 0x7fc2d40b3c90 count"
        " reduced to 2",
        {"via": "vhost-node1"},
    ),
    (  # src/ucp/core/ucp_ep.c's current wording, rendered
        "ucx.ep_error",
        "[1700000000.000000] [n1:123  :0]        ucp_ep.c:1661 UCX  ERROR ep 0x7f12: error"
        " 'Input/output error' on rc_mlx5/mlx5_0:1 will not be handled since no error callback"
        " is installed",
        {"via": "n1", "status": "Input/output error"},
    ),
    (  # openucx/ucx issue #7613 (title): a routine event
        "ucx.ib_async_benign",
        "ib_device.c:475 UCX WARN IB Async event on mlx5_0: GID table change on port 1",
        {"event": "GID table change"},
    ),
    (  # rendered from ib_md.c + ib_log.c's memlock advice (openucx/ucx issue #6264's title form)
        "ucx.memlock_limit",
        "[1669978763.134468] [node01:2163 :0]        ib_md.c:349  UCX  ERROR"
        " ibv_reg_mr(address=0x7f0b9c000000, length=268435456, access=0xf) failed: Cannot allocate"
        " memory : Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)",
        {"call": "ibv_reg_mr", "kbytes": "64"},
    ),
    (  # pytorch/pytorch issue #10344 (OPAL's signal handler, opal/util/stacktrace.c)
        "ompi.signal_report",
        "[ip-172-31-77-112:61444] Signal: Segmentation fault (11)",
        {"host": "ip-172-31-77-112", "signal": "Segmentation fault"},
    ),
    (  # the same handler's first line (opal/util/stacktrace.c show_stackframe)
        "ompi.signal_report",
        "[ip-172-31-77-112:61444] *** Process received signal ***",
        {"host": "ip-172-31-77-112"},
    ),
    (  # deepspeedai/DeepSpeed issue #2693: a Docker container's host name starts with a digit
        "ucx.caught_signal",
        "[c664db21f8dd:90422:0:95362] Caught signal 7 (Bus error: nonexistent physical address)",
        {"via": "c664db21f8dd", "number": "7", "signal": "Bus error"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


NEGATIVE: list[tuple[str, str]] = [
    # a catch-all or a resource class says nothing about the program's calls (rendered: errcode.c)
    ("ompi.mpi_usage_error", "[n1:4242] *** MPI_ERR_INTERN: internal error"),
    ("ompi.mpi_usage_error", "[n1:4242] *** MPI_ERR_NO_MEM: out of memory"),
    # NIXL's warning alone is no failure: the transports may still be selected (rendered)
    (
        "ucx.gpu_memory_seen_as_host",
        "W ucx_utils.cpp:631] 4 NVIDIA GPU(s) were detected, but UCX CUDA support was not found!",
    ),
    # pscom printing a connection's state in its debug output is no failure (rendered)
    (
        "pscom.connection_failed",
        "<PSP:r0000003:connection to (10.13.6.39,20811,0x168,r0000386) (type:openib,state:open)>",
    ),
    # a destroyed context is a teardown's, and a code that only begins like 1 is not it
    # (cornelisnetworks/opa-psm2 pull request #62: "returned 709")
    (
        "psm.cuda_invalid_argument",
        "r10i1n2.3262490 app: CUDA failure: cuIpcOpenMemHandle() (at ptl_am/am_reqrep_shmem.c:"
        "1936)returned 709",
    ),
    ("psm.cuda_invalid_argument", "x: CUDA failure: cuInit() (at psm_context.c:12)returned 100"),
    # srun -l's rank prefix before torchrun's or a warning's own brackets is no stall list
    ("horovod.missing_rank", "3: [rank3]: Traceback (most recent call last):"),
    ("horovod.missing_rank", "0: [W socket.cpp:663] [c10d] The client socket has failed"),
    # a clock in brackets is no host:pid prefix
    ("ucx.caught_signal", "[12:34:56] Caught signal 11 (Segmentation fault)"),
    # a signal number in a launcher's own summary is not OPAL's crash report
    ("ompi.signal_report", "[node1:01234] Signal: handler installed for SIGSEGV"),
    # a registration refused for another reason (GPU memory without peer memory) is no memlock
    (
        "ucx.memlock_limit",
        "[1643394930.913056] [n1:1292923:0]           ib_md.c:349  UCX  ERROR"
        " ibv_reg_mr(address=0x7f56f0f20ba0, length=3493184, access=0xf) failed: Bad address",
    ),
    # Open MPI's routine warnings on a healthy start (help-opal-runtime.txt, the openib BTL on
    # a UCX build, show_help aggregation)
    (
        "*",
        "A process has executed an operation involving a call to the fork() system call to"
        " create a child process.",
    ),
    ("*", "WARNING: There was an error initializing an OpenFabrics device."),
    ("*", "By default, for Open MPI 4.0 and later, infiniband ports on a device"),
    (
        "*",
        "[node1:01234] 3 more processes have sent help message help-mpi-btl-openib.txt / error in"
        " device init",
    ),
    (
        "*",
        '[node1:01234] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error'
        " messages",
    ),
    # a "Peer host" inside other text is no help-message field
    ("ompi.peer_host", "Local host: n1, Peer host: n2 (retrying)"),
    # the HNP's own line of the lost-daemon message names the healthy side
    ("*", "  HNP daemon   : [[64112,0],0] on node wmaster-desktop"),
    # ORTE's one-line forms are the launchers family's; this family must not match them twice
    (
        "*",
        "mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9"
        " (Killed).",
    ),
    ("*", "ORTE has lost communication with a remote daemon."),
    # UCX's routine warnings and the QP dump that follows a completion error
    (
        "*",
        "[1614593022.372530] [node1:1234 :0]          parser.c:1885 UCX  WARN  unused env"
        " variable: UCX_NET_DEVICES (set UCX_WARN_UNUSED_ENV_VARS=n to suppress this)",
    ),
    (
        "*",
        "[lxbk1127:2330856:0:2330856] ib_mlx5_log.c:177  DCI QP 0xd16 wqe[6168]: SEND s-e [rqpn"
        " 0x17de rlid 1037] [va 0x7f9f745cea80 len 5770 lkey 0x15de4]",
    ),
    # a flushed work request is the echo of an earlier error
    (
        "ompi.openib_completion_error",
        "[[1,1],2][btl_openib_component.c:3227:handle_wc] from n1 to: n2 error polling LP CQ with"
        " status WORK REQUEST FLUSHED ERROR status number 5 for wr_id 1 opcode 0  vendor error 244"
        " qp_idx 3",
    ),
    # a generic MPI failure is no usage error; an NVTE/other assertion is not MPICH's
    ("mpich.usage_error", "Fatal error in PMPI_Allreduce: Other MPI error, error stack:"),
    (
        "mpich.assertion_failed",
        "Assertion failed in file transformer_engine/common/gemm.cu at line 7",
    ),
    # Hydra's exit code line alone says nothing; Horovod's per-tensor stall lines neither
    ("*", "=   EXIT CODE: 9"),
    (
        "*",
        "[1,0]<stderr>:[2019-04-13 13:53:31.851506: W horovod/common/operations.cc:588]"
        " HorovodBroadcast_dense_1_bias_Momentum_0 [missing ranks: 1]",
    ),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)


def test_a_port_active_event_is_read_as_info_by_a_full_scan() -> None:
    line = ("[1606219470.178373] [gpu-17:3817 :0]       ib_device.c:283  UCX  WARN  IB Async event"
            " on mlx5_0: port active on port 1")  # fmt: skip
    assert found(line, Source.LOGS) == [("ucx.ib_async_benign", Blame.INFO, 0)]


# mpirun gathers every rank's output into the launch node's file; UCX names the host it ran on.
GATHERED = (
    "[1,0]<stdout>:step 100 loss 2.31\n"
    "[1,4]<stderr>:[1606219470.178373] [{host}:3817 :0]       ib_device.c:283  UCX  ERROR IB"
    " Async event on mlx5_0: local catastrophic error on port 1\n"
    "[1,0]<stderr>:[n1:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on"
    " mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n"
)


def _gathered_bundle(root: Path, host: str) -> Path:
    """A two-node mpirun job whose only job output is the launch node's (n1)."""
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "n1.log").write_text(GATHERED.format(host=host), encoding="utf-8")
    job = {"scheduler": "slurm", "job": "7", "nodes": ["n1", "n2"],
           "started": "2020-11-24T12:00:00Z", "ended": "2020-11-24T12:30:00Z",
           "collected": "2020-11-24T12:35:00Z", "state": "FAILED"}  # fmt: skip
    (root / "job.json").write_text(json.dumps(job), encoding="utf-8")
    return root


@pytest.mark.parametrize("host", ["n2", "n1"])
def test_a_gathered_ucx_line_counts_for_the_host_it_names(tmp_path: Path, host: str) -> None:
    """UCX's `[host:pid]` prefix (`via`) moves a line mpirun gathered to the node it ran on, so
    a remote adapter's fatal event does not name the launch node."""
    verdict = explain(_gathered_bundle(tmp_path, host), CATALOG).verdict
    assert verdict.cause is Cause.HARDWARE
    assert list(verdict.suspect_nodes) == [host]
