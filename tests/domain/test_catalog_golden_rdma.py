"""Golden tests for the RDMA user-space stack family (signatures-rdma.toml).

Lines printed through libibverbs' status and event strings (gloo's ibverbs transport, the verbs
test tools, transfer engines), libibverbs' own warnings, librdmacm's event names, and the
bnxt_re / irdma / IB core kernel drivers go through the scanner's own matcher. Each line is
quoted from the public source named beside it, or rendered from the emitter's format string
where no public line was found (said so). A completion error is the far end's or the program's
(`symptom`), a device fatal event, a port error or a driver's firmware stall this node's
(`hardware`), memory-registration and addressing failures the job's environment (`application`).
NCCL's and UCX's own wordings of the same conditions stay with their signatures.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from autorecover.domain.shape import family
from domain.golden import (
    CATALOG,
    Golden,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-rdma.toml"
NAMESPACES = frozenset({"rdma"})
RDMA_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "rdma.wc_retry_exceeded": Blame.SYMPTOM,
    "rdma.wc_remote_error": Blame.SYMPTOM,
    "rdma.wc_local_error": Blame.SYMPTOM,
    "rdma.wc_flushed": Blame.SYMPTOM,
    "rdma.wc_other_error": Blame.SYMPTOM,
    "rdma.async_device_fatal": Blame.HARDWARE,
    "rdma.async_port_error": Blame.HARDWARE,
    "rdma.async_queue_error": Blame.SYMPTOM,
    "rdma.async_benign": Blame.INFO,
    "rdma.cm_unreachable": Blame.SYMPTOM,
    "rdma.cm_addr_error": Blame.APPLICATION,
    "rdma.cm_device_removal": Blame.HARDWARE,
    "rdma.mr_register_failed": Blame.APPLICATION,
    "rdma.mr_register_unsupported": Blame.APPLICATION,
    "rdma.memlock_limit": Blame.APPLICATION,
    "rdma.memlock_warning": Blame.APPLICATION,
    "rdma.qp_transition_failed": Blame.APPLICATION,
    "rdma.verbs_resource_failed": Blame.APPLICATION,
    "rdma.no_device": Blame.APPLICATION,
    "rdma.libibverbs_driver_warning": Blame.INFO,
    "rdma.libibverbs_abi_mismatch": Blame.APPLICATION,
    "rdma.gloo_ibverbs_timeout": Blame.SYMPTOM,
    "rdma.bnxt_re_fw_stall": Blame.HARDWARE,
    "rdma.bnxt_re_cmd_failed": Blame.SYMPTOM,
    "rdma.irdma_device_reset": Blame.HARDWARE,
    "rdma.irdma_cqp_cmd_error": Blame.SYMPTOM,
    "rdma.ib_mad_port_failed": Blame.HARDWARE,
    "rdma.kernel_qp_error": Blame.SYMPTOM,
    "rdma.infinipath_tid_update_failed": Blame.APPLICATION,
    "rdma.infinipath_pin_failed": Blame.APPLICATION,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # QLogic InfiniPath User Guide IB6054601-00 D, page C-24 (PSM and the ipath driver)
    ("ipath_update_tid_err: Failed TID update for rendevous, allocation problem",
     "rdma.infinipath_tid_update_failed", {}),
    ("May 21 14:12:07 ipn103 kernel: infinipath: Failed to lock addr 0002aaaaeb50000, 65 pages: "
     "errno 12", "rdma.infinipath_pin_failed", {"pages": "65", "errno": "12"}),
    # pytorch/pytorch issue #10936 (gloo's ibverbs transport)
    ("  what():  [enforce fail at /home/zhoushengkai/code/pytorch_v0.4.1_for_src/third_party/gloo/"
     "gloo/transport/ibverbs/pair.cc:462] wc->status == IBV_WC_SUCCESS. 12 vs 0. Memory region "
     "send for slot 0: transport retry counter exceeded", "rdma.wc_retry_exceeded",
     {"error": "transport retry counter exceeded"}),
    # kvcache-ai/Mooncake issue #2039 (every pod, after one node's port failed)
    ("E0505 16:29:11.891577 12891 worker_pool.cpp:296] Worker: Process failed for slice (opcode: "
     "0, source_addr: 0x7f204ae9c000, length: 65536, dest_addr: 0x7f6bad588000, local_nic: mlx5_9, "
     "peer_nic: localhost:14278@mlx5_5, dest_rkey: 2099456, retry_cnt: 0): transport retry "
     "counter exceeded", "rdma.wc_retry_exceeded", {"error": "transport retry counter exceeded"}),
    # openucx/ucx issue #2322 (UCX's older rc_verbs transport)
    ("Tue Feb 27 20:11:36 2018[1,312]<stderr>:[jazz22:93644:0:93644] rc_verbs_iface.c:63   FATAL: "
     "send completion with error: transport retry counter exceeded", "rdma.wc_retry_exceeded", {}),
    # wxdwfc/rlib issue #3 (title)
    ("[qp_impl.hpp:131] poll till completion error: 12 transport retry counter exceeded",
     "rdma.wc_retry_exceeded", {}),
    # rendered from linux-rdma/perftest src/perftest_resources.h (NOTIFY_COMP_ERROR_SEND)
    (" Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81",
     "rdma.wc_retry_exceeded", {"error": "transport retry counter exceeded"}),
    (" Failed status 12: wr_id 0 syndrom 0x81", "rdma.wc_retry_exceeded", {"status": "12"}),
    # rendered from rdma-core libibverbs/examples/rc_pingpong.c with IBV_WC_RESP_TIMEOUT_ERR
    ("Failed status response timeout error (20) for wr_id 2", "rdma.wc_retry_exceeded",
     {"framed": "response timeout error"}),
    # rendered from pytorch/gloo gloo/transport/ibverbs/pair.cc with IBV_WC_REM_ACCESS_ERR
    ("[enforce fail at ../third_party/gloo/gloo/transport/ibverbs/pair.cc:645] wc->status == "
     "IBV_WC_SUCCESS. 10 vs 0. Memory region send for slot 0: remote access error",
     "rdma.wc_remote_error", {"error": "remote access error"}),
    ("Failed status aborted error (16) for wr_id 2", "rdma.wc_remote_error",
     {"framed": "aborted error"}),
    # pytorch/gloo issue #474
    ("[/nvme1/chenxin/ws/test/gloo/gloo/transport/ibverbs/pair.cc:587] ERROR LID: 0 QPN: 5728 "
     "PSN: 3360883->LID: 0 QPN: 5727 PSN: 3360883: Exception in handleCompletion: [enforce fail "
     "at /nvme1/chenxin/ws/test/gloo/gloo/transport/ibverbs/pair.cc:681] wc->status == "
     "IBV_WC_SUCCESS. 1 vs 0. Memory region recv for slot 0: local length error",
     "rdma.wc_local_error", {"error": "local length error"}),
    # facebookarchive/caffe2 issue #616
    ("  what():  [enforce fail at /cm/shared/scratch/rengan/caffe2-ibverbs/third_party/gloo/gloo/"
     "transport/ibverbs/pair.cc:470] wc->status == IBV_WC_SUCCESS. 8 vs 0. Memory region send "
     "for slot 0: local access error", "rdma.wc_local_error", {"error": "local access error"}),
    # pytorch/gloo issues #340 and #147
    ("gloo/transport/ibverbs/pair.cc:438] wc->status == IBV_WC_SUCCESS. 5 vs 0. Send for slot 0: "
     "Work Request Flushed Error", "rdma.wc_flushed", {}),
    ("wc->status == IBV_WC_SUCCESS. 5 vs 0. Send for slot 0: Work Request Flushed Error",
     "rdma.wc_flushed", {}),
    # uccl-project/uccl issue #933
    ("[rdma/providers/ib/rdma_data_channel_impl_ib.cc:186] pollOnce - channel_id: 1, CQE error, "
     "wr_id=0, status=5 (Work Request Flushed Error)", "rdma.wc_flushed", {}),
    # rendered from rdma-core libibverbs/examples/rc_pingpong.c (IBV_WC_FATAL_ERR, GENERAL_ERR)
    ("Failed status fatal error (19) for wr_id 2", "rdma.wc_other_error", {"error": "fatal error"}),
    ("Failed status general error (21) for wr_id 2", "rdma.wc_other_error",
     {"error": "general error"}),
    (" Failed status 4: wr_id 0 syndrom 0x51", "rdma.wc_other_error", {"status": "4"}),
    # rendered from kvcache-ai/Mooncake worker_pool.cpp (issue #2039's wording) and asyncwatch.c
    ("W0506 07:33:46.083428 13050 worker_pool.cpp:419] Worker: Received context async event "
     "local catastrophic error for context mlx5_10", "rdma.async_device_fatal",
     {"device": "mlx5_10"}),
    ("  event_type IBV_EVENT_DEVICE_FATAL (8), port 1", "rdma.async_device_fatal", {}),
    # kvcache-ai/Mooncake issue #2039
    ("W0506 07:33:46.083428 13050 worker_pool.cpp:419] Worker: Received context async event port "
     "error for context mlx5_10", "rdma.async_port_error", {"device": "mlx5_10"}),
    # rendered from rdma-core libibverbs/examples/asyncwatch.c
    ("  event_type IBV_EVENT_PORT_ERR (10), port 1", "rdma.async_port_error", {}),
    # rendered from kvcache-ai/Mooncake worker_pool.cpp and libibverbs' IBV_EVENT_QP_FATAL text
    ("W0506 07:33:46.083428 13050 worker_pool.cpp:419] Worker: Received context async event local "
     "work queue catastrophic error for context mlx5_10", "rdma.async_queue_error",
     {"event": "local work queue catastrophic error"}),
    # kvcache-ai/Mooncake issue #2039
    ("W0506 07:33:58.189013 2344 worker_pool.cpp:419] Worker: Received context async event client "
     "reregistration for context mlx5_10", "rdma.async_benign", {"event": "client reregistration"}),
    ("  event_type IBV_EVENT_PORT_ACTIVE (9), port 1", "rdma.async_benign", {"name": "PORT_ACTIVE"}),
    # rapidsai/dask-cuda pull request #168 (UCX's older rdmacm_iface.c)
    ("[1573656987.606494] [dgx11:29685:0]   rdmacm_iface.c:405  UCX  ERROR received event "
     "RDMA_CM_EVENT_UNREACHABLE. status = 2. Peer: 127.0.0.1:45601.", "rdma.cm_unreachable",
     {"event": "UNREACHABLE", "peer": "127.0.0.1"}),
    # Eyescale/Equalizer issue #84
    ("10550 Main /home/bilgili/Equalizer/libs/co/rdmaConnection.cpp:1224 18 0x1f261e0 : "
     "RDMA_CM_EVENT_REJECTED( _not_ expected )", "rdma.cm_unreachable", {"event": "REJECTED"}),
    # rendered from librdmacm/examples/rping.c and perftest src/perftest_communication.c
    ("cma event RDMA_CM_EVENT_ROUTE_ERROR, error -110", "rdma.cm_unreachable",
     {"event": "ROUTE_ERROR"}),
    ("Event: RDMA_CM_EVENT_ADDR_ERROR; error: -19.", "rdma.cm_addr_error", {}),
    # rendered from openucx/ucx src/uct/ib/rdmacm/rdmacm_cm.c
    ("[cep 0x1b7f2c0 10.0.0.1:52310->10.0.0.2:13337 client] got error event "
     "RDMA_CM_EVENT_DEVICE_REMOVAL, event status No such device (-19)", "rdma.cm_device_removal",
     {}),
    # linux-rdma/perftest issues #280 and #126
    ("Couldn't allocate MR with error=93", "rdma.mr_register_failed", {"errno": "93"}),
    ("Couldn't allocate MR", "rdma.mr_register_failed", {}),
    # linux-rdma/perftest issue #280 (the same line: EPROTONOSUPPORT, the kernel lacks the method)
    ("Couldn't allocate MR with error=93", "rdma.mr_register_unsupported", {"errno": "93"}),
    # rendered from pytorch/gloo gloo/transport/ibverbs/buffer.cc (EFAULT hint)
    ("[enforce fail at ../third_party/gloo/gloo/transport/ibverbs/buffer.cc:40] mr_ != nullptr. "
     "ibv_reg_mr: Bad address (kernel module 'nv_peer_mem' not loaded; did you specify a pointer "
     "to GPU memory?)", "rdma.mr_register_failed", {"error": "Bad address"}),
    # rendered from pytorch/gloo gloo/transport/ibverbs/buffer.cc (ENOMEM hint)
    ("[enforce fail at ../third_party/gloo/gloo/transport/ibverbs/buffer.cc:51] mr_ != nullptr. "
     "ibv_reg_mr: Cannot allocate memory (did you run into the locked memory limit?)",
     "rdma.memlock_limit", {"error": "Cannot allocate memory"}),
    # rendered from rdma-core libibverbs/init.c (check_memlock_limit)
    ("libibverbs: Warning: RLIMIT_MEMLOCK is 32768 bytes.", "rdma.memlock_warning",
     {"bytes": "32768"}),
    # kvcache-ai/Mooncake issue #204
    ("E0331 12:03:04.222625 56060 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, "
     "check mtu, gid, peer lid, peer qp num: Connection timed out [110]",
     "rdma.qp_transition_failed", {"state": "RTR"}),
    # uccl-project/uccl issue #641, linux-rdma/perftest issue #132
    ("Failed to modify QP to RTR: Connection timed out", "rdma.qp_transition_failed",
     {"state": "RTR"}),
    ("Failed to modify QP to RTS", "rdma.qp_transition_failed", {"state": "RTS"}),
    # thustorage/Sherman issue #5
    ("failed to modify QP state to RTR", "rdma.qp_transition_failed", {"state": "RTR"}),
    # NVIDIA/nvshmem issue #42
    ("main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp "
     "failed.", "rdma.qp_transition_failed", {}),
    # jcxue/RDMA-Tutorial issue #6
    ("[ERROR] (setup_ib.c:184:setup_ib: errno: Cannot allocate memory) Failed to create qp",
     "rdma.verbs_resource_failed", {}),
    # rendered from linux-rdma/perftest src/perftest_resources.c
    ("Unable to create QP.", "rdma.verbs_resource_failed", {}),
    # nminoru/pib issue #2
    ("No IB devices found", "rdma.no_device", {}),
    # NVSHMEM FAQ (IBRC transport, no InfiniBand device found), as cuFFTMp's ranks print it
    ("10: src/comm/transports/ibrc/ibrc.cpp: NULL value get_device_list failed", "rdma.no_device", {}),
    # rendered from pytorch/gloo gloo/transport/ibverbs/device.cc
    ("[../third_party/gloo/gloo/transport/ibverbs/device.cc:117] Unable to find device named: "
     "mlx5_9", "rdma.no_device", {"name": "mlx5_9"}),
    # rendered from ofiwg/libfabric prov/efa/src/efa_device.c (an EKS pod without the EFA device)
    ("ibv_open_device failed! errno: 2", "rdma.no_device", {"errno": "2"}),
    # rendered from microsoft/mscclpp src/ib.cc
    ("ibv_open_device failed (errno 13, device name mlx5_0)", "rdma.no_device", {"errno": "13"}),
    # bytedance/byteps issue #313, nminoru/pib issue #2, open-mmlab/mmdetection issue #6002
    ("libibverbs: Warning: couldn't load driver 'mlx4': libmlx4-rdmav2.so: cannot open shared "
     "object file: No such file or directory", "rdma.libibverbs_driver_warning",
     {"driver": "mlx4"}),
    ("libibverbs: Warning: no userspace device-specific driver found for /sys/class/"
     "infiniband_verbs/uverbs1", "rdma.libibverbs_driver_warning",
     {"path": "/sys/class/infiniband_verbs/uverbs1"}),
    ("libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.",
     "rdma.libibverbs_driver_warning", {}),
    # linux-rdma/perftest issue #262 (a provider for hardware the host does not have)
    ("libibverbs: Warning: couldn't load driver 'libmana-rdmav34.so': libmana-rdmav34.so: cannot "
     "open shared object file: No such file or directory", "rdma.libibverbs_driver_warning",
     {"driver": "libmana-rdmav34.so"}),
    # vllm-project/vllm issue #32186
    ("libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) "
     "for device /sys/class/infiniband/rdma6", "rdma.libibverbs_abi_mismatch",
     {"driver": "bnxt_re"}),
    # rendered from pytorch/gloo gloo/transport/ibverbs/pair.cc and buffer.cc
    ("[../third_party/gloo/gloo/transport/ibverbs/pair.cc:265] Timeout waiting for memory region "
     "from LID: 0 QPN: 5727 PSN: 3360883", "rdma.gloo_ibverbs_timeout",
     {"lid": "0", "qpn": "5727"}),
    # yoannlr/yoannlr.github.io content/broadcom-bcm57416-driver.md
    ("Nov 29 13:06:13 pve2-xxx kernel: bnxt_en 0000:12:00.0: QPLIB: bnxt_re_is_fw_stalled: FW "
     "STALL Detected. cmdq[0xe]=0x3 waited (103641 > 100000) msec active 1 ",
     "rdma.bnxt_re_fw_stall", {}),
    ("Nov 29 13:06:13 pve2-xxx kernel: bnxt_en 0000:12:00.0 bnxt_re0: Failed to modify HW QP",
     "rdma.bnxt_re_cmd_failed", {"device": "bnxt_re0"}),
    ("Nov 29 13:06:13 pve2-xxx kernel: bnxt_en 0000:12:00.0 bnxt_re0: Failed to destroy HW QP",
     "rdma.bnxt_re_cmd_failed", {"device": "bnxt_re0"}),
    ("Nov 29 13:06:13 pve2-xxx kernel: infiniband bnxt_re0: Couldn't open port 1",
     "rdma.ib_mad_port_failed", {"device": "bnxt_re0", "port": "1"}),
    ("Nov 29 13:06:13 pve2-xxx kernel: infiniband bnxt_re0: Couldn't change QP1 state to INIT: "
     "-110", "rdma.ib_mad_port_failed", {"device": "bnxt_re0"}),
    ("Nov 29 13:06:13 pve2-xxx kernel: infiniband bnxt_re0: Couldn't start port",
     "rdma.ib_mad_port_failed", {"device": "bnxt_re0"}),
    # torvalds/linux commit 23c619190318 (its log)
    ("[  662.815014] ice 0000:4c:00.0 rocep76s0: critical PE Error, GLPE_CRITERR=0x00011424",
     "rdma.irdma_device_reset", {"device": "rocep76s0"}),
    ("[  662.815017] ice 0000:4c:00.0 rocep76s0: Requesting a reset", "rdma.irdma_device_reset",
     {"device": "rocep76s0"}),
    ("[  662.676609] ice 0000:4c:00.0 rocep76s0: [Modify QP Cmd Error][op_code=8] status=-29 "
     "waiting=1 completion_err=1 maj=0xffff min=0x8003", "rdma.irdma_cqp_cmd_error",
     {"command": "Modify QP Cmd", "op": "8", "status": "-29"}),
    # kvcache-ai/Mooncake issue #3299; linux drivers/infiniband/hw/mlx5/qp.c mlx5_ib_qp_err_syndrome
    ("Oct 14 03:12:55 gpu-pd-07 kernel: mlx5_bond_0/1: QP 51291 error: local length error (0x8e "
     "0x0 0x0)", "rdma.kernel_qp_error",
     {"device": "mlx5_bond_0", "port": "1", "qpn": "51291", "error": "local length error",
      "vendor": "8e"}),
    ("[ 8842.113021] rocep2s0/1: QP 137 error: unrecognized status (0x41 0x0 0x0)",
     "rdma.kernel_qp_error", {"device": "rocep2s0", "error": "unrecognized status"}),
    ("mlx5_0/1: QP 2248 error: transport retry counter exceeded (0x81 0x0 0x0)",
     "rdma.kernel_qp_error", {"device": "mlx5_0", "error": "transport retry counter exceeded"}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # NCCL's and UCX's wordings of the same events stay with nccl.* and ucx.*
    ("rdma.async_port_error", "...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : "
     "Got async event : port error"),
    ("rdma.async_port_error", "gpu-b07:52211:52290 [0] transport/net_ib/common.cc:179 NCCL WARN "
     "NET/IB : mlx5_2:1 Got non-fatal async event: port error(10)"),
    ("rdma.async_device_fatal", "[1606219470.178373] [gpu-17:3817 :0]       ib_device.c:283  UCX  "
     "ERROR IB Async event on mlx5_0: local catastrophic error on port 1"),
    ("rdma.async_device_fatal", "h100-28:238:1313 [0] NCCL WARN NET/IB : mlx5_0:1 async fatal "
     "event: local catastrophic error"),
    ("rdma.async_queue_error", "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN "
     "NET/IB : mlx5_0:1 Got async event : local access violation work queue error"),
    ("rdma.wc_local_error", "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : "
     "mlx5_0:1 Got async event : local access violation work queue error"),
    ("rdma.wc_retry_exceeded", "[lxbk1127:2330859:0:2330859] ib_mlx5_log.c:177  Transport retry "
     "count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)"),
    ("rdma.wc_remote_error", "[node1:12345:0:12345] ib_mlx5_log.c:177  Remote access error on "
     "mlx5_0:1/IB (synd 0x13 vend 0x88 hw_synd 0/0)"),
    ("rdma.qp_transition_failed", "_ibvwrap.cc: NCCL WARN Call to ibv_modify_qp failed with error "
     "Connection timed out"),
    ("rdma.verbs_resource_failed", "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_create_qp failed "
     "with error Cannot allocate memory"),
    ("rdma.mr_register_failed", "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed "
     "with error Cannot allocate memory"),
    # a web service's timeout is not a verbs completion
    ("rdma.wc_retry_exceeded", "upstream gateway response timeout error after 30s"),
    ("rdma.wc_remote_error", "job aborted error: user cancelled"),
    ("rdma.wc_other_error", "RuntimeError: fatal error: unexpected end of file"),
    # healthy connection-manager events, a success status, and the benign tag-matching status
    ("rdma.cm_unreachable", "cma event RDMA_CM_EVENT_ESTABLISHED, error 0"),
    ("rdma.cm_unreachable", "RDMA_CM_EVENT_ROUTE_RESOLVED( expected )"),
    ("rdma.wc_other_error", "Failed status TM software rendezvous (23) for wr_id 2"),
    # the enum name with a suffix is another event
    ("rdma.async_benign", "  event_type IBV_EVENT_PATH_MIG_ERR (7), port 1"),
    ("rdma.async_port_error", "  event_type IBV_EVENT_PORT_ACTIVE (9), port 1"),
    # an interface without an address is netconfig's; a socket reset is not a cm event
    ("rdma.no_device", "NCCL INFO NET/IB : No device found."),
    # a device that went away is not the container's setup
    ("rdma.no_device", "ibv_open_device failed! errno: 19"),
    ("rdma.irdma_device_reset", "ice 0000:4c:00.0: PF reset requested"),
    ("rdma.bnxt_re_fw_stall", "bnxt_en 0000:12:00.0 (unnamed net_device) (uninitialized): Device "
     "requests max timeout of 100 seconds, may trigger hung task watchdog"),
    ("rdma.ib_mad_port_failed", "Couldn't listen to port 18515"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_keys_are_the_network_family() -> None:
    """Attribution's shape rules read every rdma.* key with ib., nic. and efa.: a port error on
    every node at once is the fabric, not every node."""
    assert all(family(key) == "network" for key in RDMA_KEYS)


def test_only_this_nodes_device_events_are_hardware() -> None:
    """Hardware only for the local device's own failure; the decisive ones act on the node."""
    hardware = {k for k, b in BLAME.items() if b is Blame.HARDWARE}
    assert hardware == {
        "rdma.async_device_fatal", "rdma.async_port_error", "rdma.cm_device_removal",
        "rdma.bnxt_re_fw_stall", "rdma.irdma_device_reset", "rdma.ib_mad_port_failed",
    }  # fmt: skip
    for key in hardware:
        assert CATALOG.signatures[key].node_action.value in {"inspect", "reboot"}, key
    for key in set(BLAME) - hardware:
        assert CATALOG.signatures[key].node_action.value == "none", key
    # a removal or a port the IB core could not start does not name a node alone
    assert CATALOG.signatures["rdma.cm_device_removal"].weight < 60
    assert CATALOG.signatures["rdma.ib_mad_port_failed"].weight < 60


def test_completion_errors_never_blame_the_reporting_node() -> None:
    """Every ibv_wc_status text a program prints is the far end's, the path's or the program's."""
    statuses = [
        "local length error", "local QP operation error", "local protection error",
        "Work Request Flushed Error", "memory management operation error", "local access error",
        "remote invalid request error", "remote access error", "remote operation error",
        "transport retry counter exceeded", "RNR retry counter exceeded",
        "remote invalid RD request", "aborted error", "fatal error", "response timeout error",
        "general error", "bad response error",
    ]  # fmt: skip
    for n, status in enumerate(statuses, 1):
        line = f"Failed status {status} ({n}) for wr_id 2"
        signals = found(line, Source.LOGS)
        assert signals, line
        assert all(blame is Blame.SYMPTOM for _, blame, _ in signals), (line, signals)


def test_a_libibverbs_provider_warning_is_not_a_missing_library() -> None:
    """libibverbs' warning for a provider of hardware the host lacks is harmless: the glibc
    entry for libraries that cannot be loaded leaves it, and keeps the job's own libraries."""
    line = ("libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so': "
            "libvmw_pvrdma-rdmav34.so: cannot open shared object file: No such file or directory")  # fmt: skip
    assert set(hits(line)) == {"rdma.libibverbs_driver_warning"}
    assert "ldso.library_not_loadable" in hits(
        "libibverbs.so.1: cannot open shared object file: No such file or directory"
    )


def test_the_memlock_hint_is_read_once() -> None:
    """gloo's locked-memory hint is rdma.memlock_limit alone, not also a generic MR failure."""
    line = ("[enforce fail at ../third_party/gloo/gloo/transport/ibverbs/unbound_buffer.cc:59] "
            "mr != nullptr. ibv_reg_mr: Cannot allocate memory (did you run into the locked "
            "memory limit?)")  # fmt: skip
    assert set(hits(line)) & RDMA_KEYS == {"rdma.memlock_limit"}
