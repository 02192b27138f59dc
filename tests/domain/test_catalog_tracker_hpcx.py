"""Golden lines from the sweep over the HPC communication stack around NCCL and MPI
(signatures-hpcx.toml): HPC-X's SHARP client and HCOLL, UCC and PyTorch's ProcessGroupUCC,
GPUDirect Storage's cuFile, MVAPICH2's verbs channel, Open MPI's openib banners and coll/hcoll,
and the IMEX daemon of a multi-node NVLink domain.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a completion or transport error a symptom of the far end, a
component its caller falls back from information or a weak symptom, a cuFile driver that cannot
open the node's setup below the threshold, the IMEX daemon's failures the domain's service).
Look-alikes (HCOLL's and UCC's banners, cuFile's compatibility-mode notices, libfabric's info
lines, ProcessGroupUCC's INFO lines) must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-hpcx.toml"
NAMESPACES = frozenset(
    {"sharp", "hcoll", "ucc", "cufile", "mvapich", "ompibtl", "imex", "libfabric"}
)

BLAME: dict[str, Blame] = {
    "sharp.daemon_unreachable": Blame.SYMPTOM,
    "hcoll.sharp_init_failed": Blame.SYMPTOM,
    "hcoll.sharp_fallback_disabled": Blame.SYMPTOM,
    "hcoll.init_fallback": Blame.INFO,
    "hcoll.mcast_failed": Blame.SYMPTOM,
    "ucc.setup_error": Blame.SYMPTOM,
    "ucc.transport_error": Blame.SYMPTOM,
    "ucc.pg_error": Blame.SYMPTOM,
    "ucc.pg_unsupported": Blame.APPLICATION,
    "cufile.nvfs_unavailable": Blame.SYMPTOM,
    "cufile.driver_open_failed": Blame.HARDWARE,
    "cufile.api_error": Blame.SYMPTOM,
    "cufile.usage_error": Blame.APPLICATION,
    "mvapich.completion_error": Blame.SYMPTOM,
    "mvapich.signal_caught": Blame.SYMPTOM,
    "ompibtl.openib_retry_exceeded": Blame.SYMPTOM,
    "ompibtl.openib_network_error": Blame.SYMPTOM,
    "ompibtl.openib_unusable": Blame.SYMPTOM,
    "ompibtl.openib_memlock": Blame.APPLICATION,
    "ompibtl.hcoll_init_failed": Blame.INFO,
    "imex.memory_export_failed": Blame.TRANSIENT,
    "imex.fabric_alloc_refused": Blame.APPLICATION,
    "libfabric.psm3_nic_unavailable": Blame.SYMPTOM,
    "libfabric.psm3_cq_no_memory": Blame.APPLICATION,
}

# Consequences of a fault named elsewhere, or a fallback: weak, no action on the node.
SYMPTOMS = frozenset(key for key, blame in BLAME.items() if blame is Blame.SYMPTOM)
CRASH_REPORTS = frozenset({"mvapich.signal_caught"})

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- SHARP and HCOLL ---
    # a Chinese HPC site's notes on HPC-X SHARP (found through the code index; mpirun with
    # -x HCOLL_ENABLE_SHARP=3, the local sharpd not the HPC-X one)
    (
        "[cu02:2:10642 - context.c:276] ERROR failed to open sharp session with SHARPD daemon. "
        "please check daemon status",
        "sharp.daemon_unreachable",
        {"host": "cu02"},
    ),
    (
        "[cu02:19:10655 unique id 1827930113] ERROR Not connected in sharp_init_client_session.",
        "sharp.daemon_unreachable",
        {"host": "cu02"},
    ),
    (
        "[LOG_CAT_SHARP] Failed to initialize SHArP collectives:Cannot connect to SHArPD(-8)  "
        "job ID:1827930113",
        "hcoll.sharp_init_failed",
        {"error": "Cannot connect to SHArPD", "code": "-8"},
    ),
    ("[LOG_CAT_SHARP] Fallback is disabled. exiting ...", "hcoll.sharp_fallback_disabled", {}),
    # openucx/xccl's SHARP team library, rendered from its format (no public line found)
    (
        "Failed to initialize SHARP collectives:No available SHARP trees(-13)job ID:4181210113",
        "hcoll.sharp_init_failed",
        {"error": "No available SHARP trees", "code": "-13"},
    ),
    # a HOOMD-blue application note at an HPC site and a training run under mpirun (found
    # through the code index; a libhcoll from another HPC-X than the Open MPI that loaded it)
    (
        "[LOG_CAT_ML] component basesmuma is not available but requested in hierarchy: "
        "basesmuma,basesmuma,ucx_p2p:basesmsocket,basesmuma,p2p",
        "hcoll.init_fallback",
        {"component": "basesmuma"},
    ),
    ("[LOG_CAT_ML] ml_discover_hierarchy exited with error", "hcoll.init_fallback", {}),
    # a GPU VASP guide at a Norwegian HPC site (found through the code index; a container
    # without /dev/infiniband, "These may be ignored")
    ("[LOG_CAT_ML] You must specify a valid HCA device by setting:", "hcoll.init_fallback", {}),
    # an HPC site's HPC-X troubleshooting page (found through the code index; links at mixed
    # InfiniBand speeds)
    (
        "[LOG_CAT_MCAST] VMC Failed to join multicast, is_root 0. Unexpected event was received: "
        "event=13, str=RDMA_CM_EVENT_MULTICAST_ERROR, status=-22",
        "hcoll.mcast_failed",
        {"event": "RDMA_CM_EVENT_MULTICAST_ERROR"},
    ),
    (
        "[LOG_CAT_MCAST] MCAST rank=21: Error in initializing vmc communicator",
        "hcoll.mcast_failed",
        {"rank": "21"},
    ),
    ("[LOG_CAT_P2P] Failed to create MCAST comm", "hcoll.mcast_failed", {}),
    # --- UCC and ProcessGroupUCC ---
    # openucx/ucc issue #656 (a TL list naming a TL the build lacked)
    (
        "[1667117403.755480] [luna-0062:1724877:0]     ucc_context.c:240  UCC  ERROR required TL "
        "nccl is not part of the context",
        "ucc.setup_error",
        {"tl": "nccl"},
    ),
    # openucx/ucc issue #566 (ucc_init with no TL selected)
    (
        "[1657573854.666701] [aurora-r10:77956:0]          ucc_cl.c:57   UCC  ERROR no TLs are "
        "selected for CL_BASIC",
        "ucc.setup_error",
        {"cl": "CL_BASIC"},
    ),
    (
        "[1657573854.666713] [aurora-r10:77956:0]         ucc_lib.c:127  UCC  ERROR lib_init "
        "failed for component: basic",
        "ucc.setup_error",
        {"component": "basic"},
    ),
    # openucx/ucc issue #567 (a team of one)
    (
        "[1657643132.702496] [aurora-r10:188948:0]   cl_basic_team.c:131  CL_BASIC ERROR no tl "
        "teams were created",
        "ucc.setup_error",
        {},
    ),
    (
        "[1657643132.702508] [aurora-r10:188948:0]        ucc_team.c:294  UCC  ERROR No CL teams "
        "were created",
        "ucc.setup_error",
        {},
    ),
    # openucx/ucx issue #10055 (two containers on one host without a shared IPC namespace)
    (
        "[1723681687.718064] [ai-worker02:1225 :0]     tl_shm_team.c:617  TL_SHM ERROR Child "
        "failed to attach to shmseg, errno: Invalid argument",
        "ucc.setup_error",
        {"errno": "Invalid argument"},
    ),
    # openucx/ucc issue #1041 (TL_CUDA on a DGX-1; the ranks had set up different TLs)
    (
        "[1730117228.178968] [dgx1v-loki-23:3000 :0]   tl_cuda_cache.c:231  UCC  ERROR ipc-cache: "
        "failed to open ipc mem handle. addr:0x7f65a8000000 len:16777216 err:201",
        "ucc.transport_error",
        {"cuda_err": "201"},
    ),
    # a project's notes on an Open MPI 4.1.7 job with UCC (found through the code index; ranks
    # of two groups in different collectives)
    (
        "tl_ucp_coll.c:137 TL_UCP ERROR failure in recv completion Message truncated",
        "ucc.transport_error",
        {"op": "recv", "status": "Message truncated"},
    ),
    # the send side with UCS's log prefix, rendered from tl_ucp_sendrecv.h (no public line found)
    (
        "[1712345678.223456] [gpu-a07:51234:0]    tl_ucp_coll.c:137  TL_UCP ERROR failure in "
        "send completion Endpoint timeout",
        "ucc.transport_error",
        {"op": "send", "status": "Endpoint timeout"},
    ),
    # rendered from pytorch/pytorch UCCUtils.hpp TORCH_UCC_GET_ERROR_MSG (no public line found)
    (
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/UCCUtils.cpp:196] [Rank 3]"
        "[ProcessGroupUCC-0][COLL_PROGRESS]failed to progress UCC collective, error code -6: "
        "Unhandled error, system error code 0",
        "ucc.pg_error",
        {
            "rank": "3",
            "phase": "COLL_PROGRESS",
            "what": "failed to progress UCC collective",
            "code": "-6",
            "status": "Unhandled error",
        },
    ),
    # rendered from rapidsai/kvikio error.hpp CUFILE_TRY with cufile.h's CU_FILE_DIO_NOT_SET (no
    # public line found)
    (
        "RuntimeError: cuFile error at: /opt/kvikio/cpp/include/kvikio/file_handle.hpp:117: fd "
        "direct IO not set",
        "cufile.usage_error",
        {"error": "fd direct IO not set"},
    ),
    # rendered from pytorch/pytorch UCCUtils.hpp and ProcessGroupUCC.cpp enqueue_collective with
    # UCC's UCC_ERR_NOT_SUPPORTED (no public line found)
    (
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:473] [Rank 3]"
        "[ProcessGroupUCC-0][COLL_POST]failed to init collective, error code -1: Operation is not "
        "supported, system error code 0",
        "ucc.pg_unsupported",
        {"phase": "COLL_POST", "code": "-1", "status": "Operation is not supported"},
    ),
    # rendered from ProcessGroupUCC.cpp TORCH_UCC_LOG_ERROR under glog (no public line found)
    (
        "E0304 10:12:01.123456 4242 ProcessGroupUCC.cpp:409] [Rank 1][ProcessGroupUCC-0][INIT]"
        "[ERROR] ucc communicator was initialized with different cuda device,multi device is not "
        "supported",
        "ucc.pg_error",
        {"rank": "1", "phase": "INIT"},
    ),
    # --- cuFile ---
    # NVIDIA/gds-nvidia-fs issue #31 (cufile.log; compatibility mode followed)
    (
        " 06-11-2023 20:12:02:865 [pid=157254 tid=157254] ERROR  cufio-drv:716 nvidia-fs.ko "
        "driver not loaded",
        "cufile.nvfs_unavailable",
        {"what": "nvidia-fs.ko driver not loaded"},
    ),
    # NVIDIA/gds-nvidia-fs issue #19 (cufile_sample_002 on ext4 over NVMe)
    (
        " 27-06-2023 16:20:53:48 [pid=41337 tid=41337] ERROR  cufio-fs:204 NVMe Driver not "
        "registered with nvidia-fs!!!",
        "cufile.nvfs_unavailable",
        {"what": "NVMe Driver not registered with nvidia-fs"},
    ),
    # rendered from rapidsai/kvikio CUFILE_TRY with cufile.h's 5001 string (no public line found)
    (
        "  what():  cuFile error at: /opt/kvikio/cpp/include/kvikio/shim/cufile.hpp:73: "
        "nvidia-fs driver is not loaded",
        "cufile.driver_open_failed",
        {"error": "nvidia-fs driver is not loaded"},
    ),
    # rapidsai/kvikio issue #33 (a container without /run/udev)
    (
        "  what():  cuFile error at: /home/vyasr/local/rapids/kvikio/cpp/examples/../include/"
        "kvikio/file_handle.hpp:117: internal error",
        "cufile.api_error",
        {"error": "internal error"},
    ),
    # NVIDIA/gds-nvidia-fs issue #62 (a new file system module)
    (
        " 27-06-2025 07:45:35:135 [pid=48882 tid=48882] ERROR  cufio:340 cuFileHandleRegister "
        "error: internal error",
        "cufile.api_error",
        {"log_error": "cuFileHandleRegister error: internal error"},
    ),
    # tinygrad/open-gpu-kernel-modules issue #51 (an RTX 4090 on ext4)
    (
        " 06-04-2026 14:59:16:997 [pid=44990 tid=44990] ERROR  cufio:339 cuFileHandleRegister "
        "error: GPUDirect Storage not supported on current file",
        "cufile.api_error",
        {},
    ),
    # tinygrad/open-gpu-kernel-modules issue #50 (the open modules without GDS support)
    (
        " 29-12-2025 13:30:14:51 [pid=111425 tid=112507] ERROR  0:522 nvidia-fs MAP ioctl failed "
        ": ioctl_return: -22 ioctl_ret: -1",
        "cufile.api_error",
        {},
    ),
    # NVIDIA/gds-nvidia-fs issue #31 (after cuInit found no device)
    (
        " 05-11-2023 15:01:56:615 [pid=38031 tid=38031] ERROR  cufio:583 cuFile initialization "
        "failed",
        "cufile.api_error",
        {"log_error": "cuFile initialization failed"},
    ),
    # --- MVAPICH2 ---
    # an HPC site's RELION guide (found through the code index; local scratch full on the peer)
    (
        "[cn4021:mpi_rank_198][handle_cqe] Send desc error in msg to 196, wc_opcode=0",
        "mvapich.completion_error",
        {"host": "cn4021", "rank": "198", "to": "196"},
    ),
    (
        "[cn4021:mpi_rank_198][handle_cqe] Msg from 196: wc.status=12, wc.wr_id=0xc1cba80, "
        "wc.opcode=0, vbuf->phead->type=0 = MPIDI_CH3_PKT_EAGER_SEND",
        "mvapich.completion_error",
        {"peer": "196", "status": "12"},
    ),
    (
        "[cn4021:mpi_rank_198][handle_cqe] src/mpid/ch3/channels/mrail/src/gen2/"
        "ibv_channel_manager.c:547: [] Got completion with error 12, vendor code=0x81, dest "
        "rank=196",
        "mvapich.completion_error",
        {"code": "12", "vendor": "0x81", "dest": "196"},
    ),
    (
        "[cn3672:mpi_rank_0][error_sighandler] Caught error: Aborted (signal 6)",
        "mvapich.signal_caught",
        {"host": "cn3672", "rank": "0", "signal": "Aborted", "signo": "6"},
    ),
    # --- Open MPI openib and coll/hcoll ---
    # Open MPI users' list threads (found through the code index; after "error polling LP CQ
    # with status RETRY EXCEEDED ERROR")
    (
        "The InfiniBand retry count between two MPI processes has been",
        "ompibtl.openib_retry_exceeded",
        {},
    ),
    # rendered from help-mpi-btl-openib.txt [pp rnr retry exceeded] (no public line found)
    (
        'The OpenFabrics "receiver not ready" retry count on a per-peer',
        "ompibtl.openib_retry_exceeded",
        {"queue": "per-peer"},
    ),
    # rendered from help-mpi-btl-openib.txt [of error event] (no public line found)
    (
        "The OpenFabrics stack has reported a network error event.  Open MPI",
        "ompibtl.openib_network_error",
        {},
    ),
    # shankar1729/jdftx issue #270 and open-mpi/ompi issue #6517 (ports left to UCX)
    (
        "WARNING: There was an error initializing an OpenFabrics device.",
        "ompibtl.openib_unusable",
        {},
    ),
    # rendered from help-mpi-btl-openib.txt [no active ports found] (no public line found)
    (
        "WARNING: There is at least non-excluded one OpenFabrics device found,",
        "ompibtl.openib_unusable",
        {},
    ),
    # rendered from help-mpi-btl-openib.txt [init-fail-no-mem] (no public line found)
    (
        "allocate some locked memory.  This typically can indicate that the",
        "ompibtl.openib_memlock",
        {},
    ),
    # a GPU VASP guide at a Norwegian HPC site (found through the code index)
    (
        "[gpu-1-57:904030] Error: ../../../../../ompi/mca/coll/hcoll/coll_hcoll_module.c:310 - "
        "mca_coll_hcoll_comm_query() Hcol library init failed",
        "ompibtl.hcoll_init_failed",
        {},
    ),
    # --- IMEX ---
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #948 (the compute-domain daemon's IMEX log on
    # GB200/GB300; recreating the workload's pods got past it)
    (
        "[ERROR] Failed to get new memory reference with rc: 87",
        "imex.memory_export_failed",
        {"rc": "87"},
    ),
    ("[ERROR] Failed to allocate memory reference.", "imex.memory_export_failed", {}),
    (
        "[ERROR] Received import response from node id 0 with failure status 3",
        "imex.memory_export_failed",
        {"from_node": "0", "status": "3"},
    ),
    # the export side, with a UUID where the thread redacted one (rendered)
    (
        "[ERROR] Failed to get export ref for UUID: GPU-19a556ea-38df-750d-fcf7-3da28757ba5b for "
        "request from node id 0",
        "imex.memory_export_failed",
        {"node_id": "0"},
    ),
    # NVIDIA/nvbandwidth issue #39 (H200s without an IMEX channel; the file and line at the end
    # rendered) and issue #46 (RTX 4090 nodes without NVLink)
    (
        "[CUDA_ERROR_NOT_PERMITTED] operation not permitted in expression cuMemCreate(&handle, "
        "roundedUpAllocationSize, &prop, 0 ) on tensorflow-benchmarks-worker-0, rank = 0 in "
        "MultinodeMemoryAllocationUnicast::MultinodeMemoryAllocationUnicast(size_t, int)() : "
        "/workspace/nvbandwidth/multinode_memcpy.cpp:70",
        "imex.fabric_alloc_refused",
        {"host": "tensorflow-benchmarks-worker-0", "rank": "0"},
    ),
    # --- libfabric's PSM3 provider ---
    # cran/batchtools revdep notes on a cluster login node (found through the code index)
    (
        "dev3:pid2802163: PSM3 can't open nic unit: 0 (err=23)",
        "libfabric.psm3_nic_unavailable",
        {"unit": "0", "err": "23"},
    ),
    (
        "dev3:pid2802163.R: Unable to initialize verbs NIC /sys/class/infiniband/mlx5_0 (unit 0:0)",
        "libfabric.psm3_nic_unavailable",
        {"nic": "/sys/class/infiniband/mlx5_0"},
    ),
    (
        "dev3:pid2802163.R: Unable to create send CQ of size 5080 on mlx5_0: Cannot allocate memory",
        "libfabric.psm3_cq_no_memory",
        {"queue": "send", "device": "mlx5_0"},
    ),
    # uxlfoundation/oneDAL pull request #3741 (a CI VM with an Azure MANA NIC)
    (
        "[1787147912.586073501] runnervm76f27:rank0.svd_fast_distributed_mpi: Unable to initialize "
        "verbs NIC /sys/class/infiniband/mana_0 (unit 0:0)",
        "libfabric.psm3_nic_unavailable",
        {"nic": "/sys/class/infiniband/mana_0"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # SHARP set up fine (an invented banner-like line), and NCCL's CollNet fallback
    # (NVIDIA/nccl issue #1050) is nccl.collnet_fallback's
    ("sharp.daemon_unreachable", "[LOG_CAT_SHARP] SHARP is enabled, job ID: 1827930113"),
    (
        "hcoll.sharp_init_failed",
        "ib-vm-52:1047884:1048148 [7] sharp_plugin.c:320 NCCL WARN NET/IB : SHARP coll init "
        "error: Cannot create SHARP job(-11)",
    ),
    # an HCOLL banner naming its hierarchy is no failure (invented look-alike)
    ("hcoll.init_fallback", "[LOG_CAT_ML] hierarchy: basesmuma,ucx_p2p"),
    # a multicast join event without HCOLL's prefix (invented look-alike)
    ("hcoll.mcast_failed", "RDMA_CM_EVENT_MULTICAST_JOIN received for group ff12:401b::1"),
    # UCC's schedule bug (openucx/ucc pull request #589) and a debug line (invented)
    (
        "ucc.setup_error",
        "[1659649645.578779] [swx-clx01:440  :0]    ucc_schedule.c:64   UCC  ERROR executor "
        "wasn't initialized for the collective",
    ),
    ("ucc.transport_error", "tl_ucp_coll.c:137 TL_UCP DEBUG recv completion ok"),
    # ProcessGroupUCC's INFO line at creation
    (
        "ucc.pg_error",
        "I0304 10:12:00.123456 4242 ProcessGroupUCC.cpp:593] [Rank 1][ProcessGroupUCC-0][INIT]"
        "[INFO] Created ProcessGroupUCC with 16 ranks, with timeout 1800 secs",
    ),
    # the driver's own failures are cufile.driver_open_failed's, not the generic API error's
    (
        "cufile.api_error",
        "  what():  cuFile error at: /opt/kvikio/cpp/include/kvikio/shim/cufile.hpp:73: "
        "nvidia-fs driver is not loaded",
    ),
    (
        "cufile.driver_open_failed",
        "  what():  cuFile error at: /home/vyasr/local/rapids/kvikio/cpp/examples/../include/"
        "kvikio/file_handle.hpp:117: internal error",
    ),
    # NCCL's IB completion text (NVIDIA/nccl issue #1814, addresses redacted) and its
    # resiliency INFO line (rendered from NVIDIA/nccl's IB resiliency code) are NCCL's
    (
        "mvapich.completion_error",
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<55921> with status=12 opcode=1 "
        "len=0 vendor err 129 (Send)",
    ),
    (
        "mvapich.completion_error",
        "NCCL INFO NET/IB: ncclIbResiliencyHandleCompletionError: Got completion with error "
        "(devIndex=0, wc->status=(transport retry counter exceeded)12, wc->opcode=(SEND)0",
    ),
    # UCX's own signal line is ucx.caught_signal's (rendered from src/ucs/debug/debug.c)
    ("mvapich.signal_caught", "[n1:4242 :0:4242] Caught signal 11 (Segmentation fault: address)"),
    # Open MPI 4's notice that InfiniBand ports are left to UCX
    (
        "ompibtl.openib_unusable",
        "By default, for Open MPI 4.0 and later, infiniband ports on a device",
    ),
    # the first banner line alone cannot tell memlock from a queue that failed
    ("ompibtl.openib_memlock", "The OpenFabrics (openib) BTL failed to initialize while trying to"),
    # the banner's own explanation of the MCA parameter (help-mpi-btl-openib.txt)
    ("ompibtl.openib_retry_exceeded", "btl_openib_ib_retry_count - The number of times the sender"),
    # nvbandwidth's other CUDA failures (NVIDIA/nvbandwidth issue #44, IMEX running) are not a
    # refused fabric allocation
    (
        "imex.fabric_alloc_refused",
        "[CUDA_ERROR_INVALID_VALUE] invalid argument in expression cuMemSetAccess((CUdeviceptr) "
        "buffer, roundedUpAllocationSize, &desc, 1 ) on gpub200-nom6ae0518, rank = 8 in "
        "MultinodeMemoryAllocationUnicast::MultinodeMemoryAllocationUnicast(size_t, int)() : "
        "/home/code/external/nvbandwidth/multinode_memcpy.cpp:76",
    ),
    # PSM3's affinity note on a NIC without a NUMA cpu set (a Slurm tutorial, found through the
    # code index)
    (
        "libfabric.psm3_nic_unavailable",
        "rocky-linux810-slurm-controller-node:pid31626.a.out: Failed to get enp1s0 (unit 0) cpu set",
    ),
    # UCX's own CQ failure is ucx.memlock_limit's
    ("libfabric.psm3_cq_no_memory", "ibv_create_cq(cqe=4096) failed: Cannot allocate memory"),
    # a routine IMEX daemon line (invented look-alike)
    ("imex.memory_export_failed", "[Mar 17 2026 10:00:00] [INFO] [tid 41] Connection established"),
]

# Healthy lines around these emitters: no signature of the family may read them.
HEALTHY: list[str] = [
    # HCOLL and SHARP at work (invented look-alikes of their banners)
    "[LOG_CAT_SHARP] SHARP is enabled, job ID: 1827930113",
    "[LOG_CAT_ML] hierarchy: basesmuma,ucx_p2p",
    # cuFile's compatibility-mode notices (NVIDIA/gds-nvidia-fs issues #4, #31, #62;
    # LMCache/LMCache issue #795)
    " 09-06-2025 01:51:11:418 [pid=7742 tid=7742] NOTICE  cufio-drv:830 running in compatible mode",
    " 11-10-2023 15:49:50:24 [pid=1502621 tid=1502621] NOTICE  cufio-rdma:175 nvidia_peermem.ko "
    "is not loaded. Disabling UserSpace RDMA access.",
    " 27-06-2025 07:45:35:135 [pid=48882 tid=48882] NOTICE  cufio:294 cuFileHandleRegister GDS "
    "not supported or disabled by config, using cuFile posix read/write with compat mode enabled",
    # libfabric at FI_LOG_LEVEL=info/debug (firemodels/fds issue #7868, ofiwg/libfabric #6891)
    "libfabric:core:core:fi_param_define_():223<info> registered var perf_cntr",
    "libfabric:79126:core:core:fi_getinfo_():1033<debug> fi_getinfo: provider sockets returned "
    "success",
    "libfabric:21098:sockets:core:ofi_get_list_of_addr():1407<info> Available addr: 150.1.68.77, "
    "iface name: enp61s0, speed: 25000",
    # ProcessGroupUCC and UCC reporting their setup
    "I0304 10:12:00.123456 4242 ProcessGroupUCC.cpp:593] [Rank 1][ProcessGroupUCC-0][INIT][INFO] "
    "Created ProcessGroupUCC with 16 ranks, with timeout 1800 secs",
    # Open MPI 4's notice that InfiniBand ports are left to UCX (shankar1729/jdftx issue #270)
    "By default, for Open MPI 4.0 and later, infiniband ports on a device",
    "are not used by default.  The intent is to use UCX for these devices.",
    # a UCC debug line in UCS's prefix (invented look-alike)
    "[1712345678.123456] [gpu-a07:51234:0]    tl_ucp_coll.c:137  TL_UCP DEBUG recv completion ok",
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)


def test_restatements_decide_nothing() -> None:
    """Completion errors, transport failures and fallbacks restate a fault seen elsewhere (or
    none): weak alone, no action on the node they were printed on."""
    assert_no_node_action(SYMPTOMS)
    for key in SYMPTOMS - CRASH_REPORTS:
        assert CATALOG.signatures[key].weight <= 40, key


def test_a_ranks_crash_report_weighs_like_the_other_handlers() -> None:
    """MVAPICH2's signal handler is a rank's own crash, like Open MPI's and UCX's reports."""
    from autorecover.domain.shape import LOCAL_CRASHES

    for key in CRASH_REPORTS:
        assert key in LOCAL_CRASHES
        assert CATALOG.signatures[key].weight == CATALOG.signatures["ompi.signal_report"].weight


def test_fallbacks_are_information() -> None:
    """HCOLL that disables itself leaves Open MPI on its own collectives: nothing failed."""
    for key in ("hcoll.init_fallback", "ompibtl.hcoll_init_failed"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.INFO, key
        assert sig.weight == 0, key


def test_no_line_here_isolates_a_node() -> None:
    """A cuFile driver that will not open is the node's GDS install, a weak pointer: a person
    inspects it, and nothing in this family reaches the decisive hardware weight."""
    sig = CATALOG.signatures["cufile.driver_open_failed"]
    assert sig.node_action.value == "inspect"
    for key in BLAME:
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE or sig.weight < 60, key


def test_the_imex_service_is_retried_not_blamed_on_a_node() -> None:
    """The IMEX daemon's export/import failures are the NVLink domain's service: a retry, no
    node action, below a decisive weight."""
    sig = CATALOG.signatures["imex.memory_export_failed"]
    assert sig.node_action.value == "none"
    assert 0 < sig.weight < 50
    line = "[ERROR] Failed to get new memory reference with rc: 87"
    assert ("imex.memory_export_failed", Blame.TRANSIENT, 35) in found(line, Source.SYSTEM)


def test_a_forced_sharp_failure_reads_as_symptoms_only() -> None:
    """With SHARP forced, the daemon line, HCOLL's failure and its exit each restate the SHARP
    service's state: none reads as the job's own error."""
    lines = [
        "[cu02:2:10642 - context.c:276] ERROR failed to open sharp session with SHARPD daemon. "
        "please check daemon status",
        "[LOG_CAT_SHARP] Failed to initialize SHArP collectives:Cannot connect to SHArPD(-8)  "
        "job ID:1827930113",
        "[LOG_CAT_SHARP] Fallback is disabled. exiting ...",
    ]
    for line in lines:
        blames = {CATALOG.signatures[key].blame for key in hits(line)}
        assert blames == {Blame.SYMPTOM}, line


@pytest.mark.parametrize("line", HEALTHY)
def test_healthy_lines_stay_unread(line: str) -> None:
    """Banners, compatibility-mode notices and info lines are not failures: no signature of this
    family reads them."""
    assert_no_match("*", line, family_keys(FAMILY_FILE))
