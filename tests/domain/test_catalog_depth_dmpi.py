"""Wording drift across MPI and transport releases (Open MPI v2.1-v5.0 with PRRTE and PMIx, MPICH
v3.2-v4.3, UCX v1.4-v1.19): each line is rendered from an older (or newer) format string of a
message the catalog already reads, or of a failure message it did not read before, with the
release, file and function it comes from beside it. The catalog must read every release's
wording, not only the one an entry was written from, and must keep leaving alone the look-alikes
listed at the end."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG
from domain.golden import scanned_blames as found
from domain.golden import scanned_details as details

NEW_KEYS: dict[str, Blame] = {
    "ompi.oob_peer_lost": Blame.SYMPTOM,
    "ompi.ofi_call_failed": Blame.SYMPTOM,
    "ompi.ofi_modex_failed": Blame.SYMPTOM,
    "ompi.ofi_tag_bits": Blame.APPLICATION,
    "ompi.cma_denied": Blame.APPLICATION,
    "ucx.ib_speed_unknown": Blame.APPLICATION,
    "ucx.no_usable_devices": Blame.APPLICATION,
    "mpich.hydra_socket_error": Blame.SYMPTOM,
    "ompi.daemon_unreachable": Blame.SYMPTOM,
    "mpich.ucx_call_failed": Blame.SYMPTOM,
}


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # --- UCX ---------------------------------------------------------------------------
        # rendered: openucx/ucx v1.13.1 src/uct/ib/mlx5/ib_mlx5_log.c uct_ib_mlx5_completion_with_err
        # (v1.8-v1.15 print the syndrome without " error"; v1.16 added it)
        ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:171  Remote access on mlx5_0:1/IB (synd 0x13 vend "
         "0x88 hw_synd 0/0)", "ucx.ib_completion_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.13.1 ib_mlx5_log.c ("Remote OP", v1.11-v1.15)
        ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:171  Remote OP on mlx5_2:1/RoCE (synd 0x14 vend "
         "0x89 hw_synd 0/0)", "ucx.ib_completion_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.8.1 ib_mlx5_log.c ("Remote QP", v1.5-v1.10)
        ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:133  Remote QP on mlx5_0:1/IB (synd 0x14 vend 0x89 "
         "hw_synd 0/0)", "ucx.ib_completion_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.10.1 ib_mlx5_log.c ("Local protection", v1.8-v1.15)
        ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:139  Local protection on mlx5_1:1/IB (synd 0x4 vend "
         "0x51 hw_synd 0/0)", "ucx.ib_completion_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.5.0 src/uct/ib/mlx5/ib_mlx5_log.c ("Error on %s:%d QP 0x%x
        # wqe[%03d]: %s (synd ...) opcode %s", v1.5-v1.7)
        ("[gpu-07:6807 :0:6807] ib_mlx5_log.c:112  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[012]: "
         "Remote access (synd 0x13 vend 0x88 hw_synd 0/0) opcode RDMA_READ",
         "ucx.ib_completion_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.5.0 ib_mlx5_log.c (the abort syndrome in the old form)
        ("[gpu-07:6807 :0:6807] ib_mlx5_log.c:112  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[012]: "
         "Remote side aborted (synd 0x22 vend 0x0 hw_synd 0/0) opcode SEND",
         "ucx.ib_retry_exceeded", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.19.1 src/ucp/core/ucp_ep.c ucp_ep_set_failed (the CM lane's
        # description has a space: "CM lane")
        ("[1733380000.123456] [gpu-07:4242 :0]          ucp_ep.c:1517 UCX  ERROR ep 0x7f3c2c0a1000: "
         "error 'Connection reset by remote peer' on CM lane will not be handled since no error "
         "callback is installed", "ucx.ep_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.9.0 src/ucp/core/ucp_worker.c ucp_worker_iface_error_handler
        # (v1.8-v1.10, an error during wire-up)
        ("[1606219470.178373] [gpu-07:4242 :0]      ucp_worker.c:594  UCX  ERROR error 'Endpoint "
         "timeout' occurred on wireup will not be handled for ep 0x7f3c2c0a1000 since no error "
         "callback is installed", "ucx.ep_error", Blame.SYMPTOM),
        # rendered: openucx/ucx v1.13.1 src/uct/ib/base/ib_log.c uct_ib_mem_lock_limit_msg
        # (". Please set" in v1.13-v1.14; " : Please set" before and after)
        ("[1670000000.123456] [gpu-07:4242 :0]        ib_log.c:247  UCX  ERROR ibv_reg_mr(address="
         "0x7f3c2c0a1000, length=1048576, access=0xf) failed: Cannot allocate memory. Please set "
         "max locked memory (ulimit -l) to 'unlimited' (current: 65536 kbytes)",
         "ucx.memlock_limit", Blame.APPLICATION),
        # rendered: openucx/ucx v1.11.2 src/uct/ib/base/ib_iface.c uct_ib_iface_get_speed
        ("[1652345678.123456] [gpu-07:4242 :0]        ib_iface.c:1673 UCX  ERROR Invalid "
         "active_speed on mlx5_0:1: 128", "ucx.ib_speed_unknown", Blame.APPLICATION),
        # rendered: openucx/ucx v1.12.1 ib_iface.c (UCT_IB_IFACE_FMT gained "/%s")
        ("[1660000000.123456] [gpu-07:4242 :0]        ib_iface.c:1680 UCX  ERROR Invalid "
         "active_speed on mlx5_4:1/IB: 256", "ucx.ib_speed_unknown", Blame.APPLICATION),
        # rendered: openucx/ucx v1.16.0 src/ucp/core/ucp_context.c ucp_add_tl_resources
        ("[1700000000.123456] [gpu-07:4242 :0]     ucp_context.c:1451 UCX  ERROR no usable "
         "transports/devices (asked tcp on network:eth9 )", "ucx.no_usable_devices",
         Blame.APPLICATION),
        # rendered: openucx/ucx v1.16.0 src/ucp/wireup/select.c ucp_wireup_select_transport
        # (the RMA and AMO criteria titles are rendered with "registered" / "allocated" since v1.6)
        ("[1700000000.123456] [gpu-07:4242 :0]          select.c:629  UCX  ERROR   no remote "
         "registered memory access transport to gpu-08:5151: mlx5_0:1/IB - Destination is "
         "unreachable", "ucx.no_transport", Blame.APPLICATION),
        ("[1700000000.123456] [gpu-07:4242 :0]          select.c:629  UCX  ERROR   no atomic "
         "operations on registered memory transport to <no debug data>: tcp/eth0 - no amo",
         "ucx.no_transport", Blame.APPLICATION),
        # --- Open MPI, PRRTE ---------------------------------------------------------------
        # rendered: open-mpi/ompi v2.1.6 ompi/mca/pml/ucx/pml_ucx.c mca_pml_ucx_add_proc
        # (v2.1-v3.0, before "ucp_ep_create(proc=%d) failed")
        ("pml_ucx.c:270 Error: Failed to connect to proc: 3, Destination is unreachable",
         "ompi.ucx_ep_failed", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v5.0.10 ompi/mca/mtl/ofi/mtl_ofi.h ompi_mtl_ofi_progress
        ("mtl_ofi.h:214: Error returned from fi_cq_read: Input/output error(-5).",
         "ompi.ofi_completion_error", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v4.1.8 ompi/mca/mtl/ofi/mtl_ofi.h ompi_mtl_ofi_progress
        ("mtl_ofi.h:161: Error returned from fi_cq_readerr with null context. Completion flags: "
         "0000000000000000", "ompi.ofi_completion_error", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v5.0.10 ompi/mca/mtl/ofi/mtl_ofi.h ompi_mtl_ofi_progress
        ("mtl_ofi.h:208: Error returned by request (type: 1) error callback: -5.",
         "ompi.ofi_completion_error", Blame.SYMPTOM),
        # rendered: openpmix/prrte v4.1.0 src/mca/errmgr/base/help-errmgr-base.txt
        # [failed-daemon-launch] ("%s" is prte_tool_basename from v3.0 on)
        ("prterun was unable to reliably start one or more daemons.", "ompi.daemon_failed",
         Blame.SYMPTOM),
        ("mpirun was unable to reliably start one or more daemons.", "ompi.daemon_failed",
         Blame.SYMPTOM),
        # rendered: openpmix/prrte v4.1.0 src/runtime/help-prte-runtime.txt
        # [prte_init:startup:internal-failure] (v3.0+, quoted and with parentheses)
        ('It looks like "prte_init()" failed for some reason. There are many',
         "ompi.init_failed", Blame.APPLICATION),
        # rendered: open-mpi/ompi v4.1.8 ompi/runtime/help-mpi-runtime.txt
        # [mpi_init:startup:pml-add-procs-fail] (v2.1-v5.0)
        ("MPI_INIT has failed because at least one MPI process is unreachable",
         "ompi.unreachable_config", Blame.APPLICATION),
        # rendered: openpmix/prrte v4.1.0 help-errmgr-base.txt [node-died] with
        # PRTE_NAME_PRINT's "[nspace@jobid,vpid]" (Open MPI 5)
        ("  Remote daemon: [prterun-gpu-01-48213@0,1] on node gpu-02", "ompi.daemon_lost",
         Blame.SYMPTOM),
        # rendered: open-mpi/ompi v4.1.8 orte/mca/oob/tcp/oob_tcp_sendrecv.c send_msg
        ("[gpu-01:48213] oob:tcp: send_msg: write failed: Broken pipe (32) [sd = 16]",
         "ompi.oob_peer_lost", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v2.1.6 orte/mca/oob/tcp/oob_tcp_sendrecv.c mca_oob_tcp_recv_handler
        ("[gpu-01:48213] [[4617,0],0]-[[4617,0],1] mca_oob_tcp_msg_recv: readv failed: Connection "
         "reset by peer (104)", "ompi.oob_peer_lost", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v2.1.6 orte/mca/oob/tcp/oob_tcp_sendrecv.c send_bytes
        ("[gpu-01:48213] [[4617,0],0]->[[4617,0],1] mca_oob_tcp_msg_send_bytes: write failed: "
         "Connection reset by peer (104) [sd = 16]", "ompi.oob_peer_lost", Blame.SYMPTOM),
        # rendered: openpmix/prrte v3.0.14 src/mca/oob/tcp/oob_tcp_sendrecv.c
        ("[gpu-01:48213] [prterun-gpu-01-48213@0,0]-[prterun-gpu-01-48213@0,1] "
         "prte_oob_tcp_msg_recv: readv failed: Connection reset by peer (104)",
         "ompi.oob_peer_lost", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v4.1.8 ompi/mca/mtl/ofi/help-mtl-ofi.txt [OFI call fail]
        ("Open MPI failed an OFI Libfabric library call (fi_endpoint).  This is highly",
         "ompi.ofi_call_failed", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v5.0.10 ompi/mca/mtl/ofi/help-mtl-ofi.txt [modex failed]
        ("The OFI MTL was not able to find endpoint information for a remote",
         "ompi.ofi_modex_failed", Blame.SYMPTOM),
        # rendered: open-mpi/ompi v4.1.8 ompi/mca/mtl/ofi/help-mtl-ofi.txt [Not enough bits for CID]
        ('OFI provider "tcp;ofi_rxm" does not have enough free bits in its tag to fit the MPI',
         "ompi.ofi_tag_bits", Blame.APPLICATION),
        # rendered: open-mpi/ompi v4.1.8 opal/mca/btl/vader/btl_vader_get.c mca_btl_vader_get_cma
        ("Read -1, expected 65536, errno = 1", "ompi.cma_denied", Blame.APPLICATION),
        # rendered: open-mpi/ompi v4.1.8 opal/mca/btl/vader/btl_vader_put.c mca_btl_vader_put_cma
        ("[gpu-01:48213] Wrote -1, expected 131072, errno = 1", "ompi.cma_denied",
         Blame.APPLICATION),
        # rendered: open-mpi/ompi v5.0.10 opal/mca/smsc/cma/smsc_cma_module.c
        # mca_smsc_cma_copy_from
        ("CMA read -1, expected 65536, errno = 1", "ompi.cma_denied", Blame.APPLICATION),
        # rendered: openpmix/prrte v4.1.0 src/mca/rmaps/round_robin/help-prte-rmaps-rr.txt
        # [prte-rmaps-rr:not-enough-cpus] (PRRTE v3+, Open MPI 5's mpirun)
        ("There are not enough slots available in the system or not enough",
         "ompi.launch_config", Blame.APPLICATION),
        # rendered: openpmix/prrte v3.0.14 help-prte-rmaps-base.txt [out-of-resource]
        ("Either there are not enough slots available in the system to launch",
         "ompi.launch_config", Blame.APPLICATION),
        # rendered: openpmix/prrte v3.0.14 help-prte-rmaps-rr.txt (a per-node request)
        ("There are not enough slots on the nodes in your allocation to satisfy your request to "
         "launch on a 8 process-per-node basis - only 4 slots/node were available.",
         "ompi.launch_config", Blame.APPLICATION),
        # rendered: openpmix/prrte v4.1.0 src/mca/schizo/prte/help-prun.txt
        # [prun:exe-not-accessible] (the line now breaks after "could not")
        ("prterun was unable to launch the specified application as it could not",
         "ompi.launch_config", Blame.APPLICATION),
        # rendered: openpmix/prrte v3.0.14 help-prun.txt [prun:wdir-not-found]
        ("prterun was unable to launch the specified application as it could not find",
         "ompi.launch_config", Blame.APPLICATION),
        # rendered: open-mpi/ompi v4.1.8 orte/mca/errmgr/base/help-errmgr-base.txt [no-connect]
        ("ORTE is unable to establish a communication connection to the",
         "ompi.daemon_unreachable", Blame.SYMPTOM),
        # rendered: openpmix/prrte v3.0.14 help-errmgr-base.txt [no-connect]
        ("PRTE is unable to establish a communication connection to the",
         "ompi.daemon_unreachable", Blame.SYMPTOM),
        # --- MPICH -------------------------------------------------------------------------
        # rendered: pmodels/mpich v3.3.2 src/mpid/ch4/netmod/ofi/ofi_events.h
        # MPIDI_OFI_handle_cq_error (v3.3: a header, before ofi_events.c)
        ("MPIDI_OFI_handle_cq_error(884): OFI poll failed (ofi_events.h:884:"
         "MPIDI_OFI_handle_cq_error:Input/output error)", "mpich.ofi_poll_failed", Blame.SYMPTOM),
        # rendered: pmodels/mpich v4.2.3 src/mpid/ch4/netmod/ofi/init_provider.c
        # MPIDI_OFI_find_provider (v4.0+: fi_getinfo moved out of ofi_init.c)
        ("MPIDI_OFI_find_provider(126): OFI fi_getinfo() failed (init_provider.c:126:"
         "MPIDI_OFI_find_provider:No data available)", "mpich.ofi_init_failed",
         Blame.APPLICATION),
        # rendered: pmodels/mpich v4.1.3 src/mpi/errhan/errutil.c MPIR_Handle_fatal_error through
        # ch3's MPID_Abort (4.x names the generated "internal_" function, not PMPI_)
        ("Fatal error in internal_Barrier: Other MPI error, error stack:", "mpich.fatal_error",
         Blame.SYMPTOM),
        # rendered: pmodels/mpich v4.2.3 src/pm/hydra/lib/utils/sock.c HYDU_sock_connect
        ('[proxy:0:1@gpu-02] HYDU_sock_connect (lib/utils/sock.c:141): unable to connect from '
         '"gpu-02" to "gpu-01" (No route to host)', "mpich.hydra_socket_error", Blame.SYMPTOM),
        # rendered: pmodels/mpich v3.3.2 src/pm/hydra/utils/sock/sock.c HYDU_sock_write
        ("[mpiexec@gpu-01] HYDU_sock_write (utils/sock/sock.c:256): write error (Bad file "
         "descriptor)", "mpich.hydra_socket_error", Blame.SYMPTOM),
        # rendered: pmodels/mpich v4.2.3 src/mpid/ch4/netmod/ucx/ucx_impl.h MPIDI_UCX_CHK_STATUS
        ("MPIDI_UCX_init_worker(180): ucx function returned with failed status(ucx_init.c 180 "
         "MPIDI_UCX_init_worker Input/output error)", "mpich.ucx_call_failed", Blame.SYMPTOM),
        # rendered: pmodels/mpich v3.3.2 ucx_impl.h MPIDI_UCX_CHK_REQUEST
        ("MPIDI_UCX_send(84): returned failed request in UCX netmod(ucx_send.h 84 MPIDI_UCX_send "
         "Endpoint timeout)", "mpich.ucx_call_failed", Blame.SYMPTOM),
        # --- UCC ---------------------------------------------------------------------------
        # rendered: openucx/ucc v1.2.0 src/components/tl/ucp/reduce_scatter/reduce_scatter_ring.c
        ("[1700000000.123456] [gpu-07:4242:0] reduce_scatter_ring.c:21   TL_UCP ERROR failure in "
         "rs ring completion Endpoint timeout", "ucc.transport_error", Blame.SYMPTOM),
        # rendered: openucx/ucc v1.8.0 src/components/tl/ucp (one-sided get)
        ("[1700000000.123456] [gpu-07:4242:0] tl_ucp_sendrecv.h:312 TL_UCP ERROR failure in get "
         "completion Connection reset by remote peer", "ucc.transport_error", Blame.SYMPTOM),
        # --- libfabric ---------------------------------------------------------------------
        # rendered: ofiwg/libfabric v1.11.2 prov/efa/src/rxr/rxr_cq.c rxr_cq_handle_tx_error
        # (v1.9-v1.12; renamed rxr_cq_write_tx_error in v1.13)
        ("libfabric:35:1598017255::efa:cq:rxr_cq_handle_tx_error():219<warn> "
         "rxr_cq_handle_tx_error: err: 20, prov_err: Not a directory (20)",
         "efa.rxr_completion_error", Blame.SYMPTOM),
        ("libfabric:35:1598017255::efa:cq:rxr_cq_handle_rx_error():142<warn> "
         "rxr_cq_handle_rx_error: err: 5, prov_err: Input/output error (5)",
         "efa.rxr_completion_error", Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_older_and_newer_wordings(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_captures_survive_the_wider_patterns() -> None:
    line = ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:171  Remote access on mlx5_0:1/IB (synd 0x13 vend "
            "0x88 hw_synd 0/0)")  # fmt: skip
    got = details(line, "ucx.ib_completion_error")
    assert (got["error"], got["device"], got["port"], got["transport"]) == (
        "Remote access", "mlx5_0", "1", "IB")  # fmt: skip
    line = ("[1670000000.123456] [gpu-07:4242 :0]        ib_log.c:247  UCX  ERROR ibv_reg_mr(address="
            "0x7f3c2c0a1000, length=1048576, access=0xf) failed: Cannot allocate memory. Please set "
            "max locked memory (ulimit -l) to 'unlimited' (current: 65536 kbytes)")  # fmt: skip
    assert details(line, "ucx.memlock_limit")["kbytes"] == "65536"
    line = "pml_ucx.c:270 Error: Failed to connect to proc: 3, Destination is unreachable"
    assert details(line, "ompi.ucx_ep_failed")["status"] == "Destination is unreachable"
    line = "pml_ucx.c:431  Error: ucp_ep_create(proc=1) failed: Destination is unreachable"
    got = details(line, "ompi.ucx_ep_failed")
    assert (got["rank"], got["status"]) == ("1", "Destination is unreachable")
    line = "mtl_ofi.h:214: Error returned from fi_cq_read: Input/output error(-5)."
    got = details(line, "ompi.ofi_completion_error")
    assert (got["error"], got["code"]) == ("Input/output error", "-5")
    line = "  Remote daemon: [prterun-gpu-01-48213@0,1] on node gpu-02"
    assert details(line, "ompi.daemon_lost")["peer"] == "gpu-02"
    line = 'It looks like "prte_init()" failed for some reason. There are many'
    assert details(line, "ompi.init_failed")["stage"] == "prte_init"
    line = ("MPIDI_OFI_handle_cq_error(884): OFI poll failed (ofi_events.h:884:"
            "MPIDI_OFI_handle_cq_error:Input/output error)")  # fmt: skip
    assert details(line, "mpich.ofi_poll_failed")["error"] == "Input/output error"
    line = ("[1652345678.123456] [gpu-07:4242 :0]        ib_iface.c:1673 UCX  ERROR Invalid "
            "active_speed on mlx5_0:1: 128")  # fmt: skip
    assert details(line, "ucx.ib_speed_unknown") == {
        "device": "mlx5_0", "port": "1", "speed": "128"}  # fmt: skip
    line = "[gpu-01:48213] oob:tcp: send_msg: write failed: Broken pipe (32) [sd = 16]"
    assert details(line, "ompi.oob_peer_lost")["error"] == "Broken pipe"


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # rendered: openucx/ucx v1.13.1 ib_mlx5_log.c (a flushed work request: teardown, not read)
        ("[gpu-07:4242 :0:4242] ib_mlx5_log.c:171  WR flushed because QP in error state on "
         "mlx5_0:1/IB (synd 0x5 vend 0xf9 hw_synd 0/0)", "ucx.ib_completion_error"),
        # rendered: openucx/ucx v1.11.2 ib_iface.c (speed 0: a port in a bad state, not a version)
        ("[1652345678.123456] [gpu-07:4242 :0]        ib_iface.c:1673 UCX  ERROR Invalid "
         "active_speed on mlx5_0:1: 0", "ucx.ib_speed_unknown"),
        # rendered: openucx/ucx v1.19.1 ib_iface.c (the width warning, UCX goes on)
        ("[1733380000.123456] [gpu-07:4242 :0]        ib_iface.c:1860 UCX  WARN  invalid active "
         "width on mlx5_0:1/IB: 16, assuming 1x", "ucx.ib_speed_unknown"),
        # rendered: open-mpi/ompi v5.0.10 opal/mca/smsc/cma/smsc_cma_module.c (ESRCH: the peer
        # exited; not a permission problem)
        ("CMA read -1, expected 65536, errno = 3", "ompi.cma_denied"),
        ("Read -1, expected 65536, errno = 14", "ompi.cma_denied"),
        # a job's own message that contains the words
        ("Read 4096 bytes, expected 4096, errno = 0", "ompi.cma_denied"),
        # rendered: open-mpi/ompi v4.1.8 orte/mca/oob/tcp (a debug trace, not a failure)
        ("[gpu-01:48213] oob:tcp: send_msg: queued", "ompi.oob_peer_lost"),
        # the BTL's readv failure is ompi.tcp_peer_lost's, not the out-of-band channel's
        ("[gpu-01][[4617,1],3][btl_tcp_frag.c:240:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: "
         "readv failed: Connection reset by peer (104)", "ompi.oob_peer_lost"),
        # the UCX warning before "no usable transports" is not the failure itself
        ("[1700000000.123456] [gpu-07:4242 :0]     ucp_context.c:1192 UCX  WARN  network device "
         "'mlx5_9:1' is not available, please use one or more of: 'eth0'(tcp), 'lo'(tcp)",
         "ucx.no_usable_devices"),
        # Hydra's own progress trace, not a failed socket
        ("[mpiexec@gpu-01] HYDU_sock_connect: connected to gpu-02", "mpich.hydra_socket_error"),
        # a job's own message about slots
        ("There are not enough slots available in the system", "ompi.launch_config"),
        # an application sentence, not the runtime's help text
        ("It looks like training failed for some reason", "ompi.init_failed"),
    ],
)  # fmt: skip
def test_look_alikes_do_not_match(line: str, signal: str) -> None:
    assert signal not in found(line)


@pytest.mark.parametrize(("key", "blame"), sorted(NEW_KEYS.items()))
def test_new_entries_blame_and_no_node_action(key: str, blame: Blame) -> None:
    entry = CATALOG.signatures[key]
    assert entry.blame is blame
    assert entry.node_action.value == "none"


def test_new_application_entries_are_not_decisive_unless_the_source_settles_it() -> None:
    """Only the EPERM of cross-memory attach stops a job by itself; the others name a likely
    configuration but leave room for a node's own fault."""
    assert CATALOG.signatures["ompi.cma_denied"].weight >= 50
    for key in ("ompi.ofi_tag_bits", "ucx.ib_speed_unknown", "ucx.no_usable_devices"):
        assert CATALOG.signatures[key].weight < 50, key
