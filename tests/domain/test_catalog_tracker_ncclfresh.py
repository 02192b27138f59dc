"""Golden lines for NCCL 2.24-2.30's newer texts (signatures-ncclfresh.toml): the communicator
revoke and abort paths, ncclCommGrow's and the split/shrink net-name checks, the API structs'
initializer checks, FP8 reductions before sm90 and group misuse, symmetric-memory window
registration, GIN's completion error and requirements, one-sided RMA, the memory manager's
suspend/resume, the proxy threads' set-device failure, the IB plugin's device and port queries,
its forced out-of-order receive queues and its resiliency running out of NICs, and the ncclras
report's clock-skew note.

No public paste of these lines could be searched for in this round, so each golden line is
rendered from the format string in NVIDIA/nccl master 5067397 (file named beside it) with NCCL's
own "host:pid:tid [dev] file:line NCCL WARN " prefix, and goes through the scanner's own matcher.
Blame is pinned to what NCCL means: a revoked or aborted communicator, a teardown error, a proxy
thread without its GPU, a GIN completion error naming a peer and IB resiliency out of NICs restate
a failure elsewhere (symptom); arguments, configs, registrations and structs the job got wrong are
the job's (application); GIN and RMA features a node cannot provide are the job's below the
decisive weight; a local IB device or port that does not answer a query is weak hardware evidence
to inspect. Look-alikes (healthy NCCL lines and texts other entries read) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-ncclfresh.toml"
KEYS = family_keys(FILE)
W = "gpu-a01:48213:48213 [0] "

BLAME: dict[str, Blame] = {
    "ncclcomm.revoked": Blame.SYMPTOM,
    "ncclcomm.abort_state": Blame.SYMPTOM,
    "ncclcomm.destroy_sync_error": Blame.SYMPTOM,
    "ncclcomm.split_net_mismatch": Blame.APPLICATION,
    "ncclcomm.grow_invalid": Blame.APPLICATION,
    "ncclcomm.struct_not_initialized": Blame.APPLICATION,
    "ncclcoll.fp8_unsupported": Blame.APPLICATION,
    "ncclcoll.group_usage": Blame.APPLICATION,
    "ncclsym.registration_mismatch": Blame.APPLICATION,
    "ncclsym.window_unsupported": Blame.APPLICATION,
    "ncclsym.gin_register_failed": Blame.SYMPTOM,
    "ncclgin.completion_error": Blame.SYMPTOM,
    "ncclgin.no_gpu_memory_registration": Blame.APPLICATION,
    "ncclgin.requirements_unmet": Blame.APPLICATION,
    "ncclrma.unsupported": Blame.APPLICATION,
    "ncclmem.suspend_unsupported": Blame.APPLICATION,
    "ncclproxy.set_device_failed": Blame.SYMPTOM,
    "ncclib.query_failed": Blame.HARDWARE,
    "ncclib.ooo_rq_forced": Blame.APPLICATION,
    "ncclib.resiliency_exhausted": Blame.SYMPTOM,
    "ncclras.clock_skew": Blame.INFO,
    "nccldiag.check_failed": Blame.HARDWARE,
}

# (line, signal, captures the line must yield); every line rendered from the format string in the
# NVIDIA/nccl file named above it (no public line could be searched for in this round)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # src/enqueue.cc ncclEnqueueCheck (2.29+)
    (
        W + "enqueue.cc:3129 NCCL WARN AllReduce: communicator was revoked",
        "ncclcomm.revoked",
        {"op": "AllReduce"},
    ),
    (
        W + "enqueue.cc:3129 NCCL WARN Broadcast: communicator was revoked",
        "ncclcomm.revoked",
        {"op": "Broadcast"},
    ),
    # src/proxy.cc ncclPollProxyResponse
    (
        W + "proxy.cc:1371 NCCL WARN Comm 0x55d1c4a3e2b0 is in abort state",
        "ncclcomm.abort_state",
        {},
    ),
    # src/init.cc commDestroySync and commReclaim (2.23+)
    (
        W + "init.cc:2742 NCCL WARN commDestroySync: comm 0x55d1c4a3e2b0 rank 1 sync hostStream "
        "error 6",
        "ncclcomm.destroy_sync_error",
        {"rank": "1", "stream": "hostStream", "result": "6"},
    ),
    (
        W + "init.cc:2745 NCCL WARN commDestroySync: comm 0x55d1c4a3e2b0 rank 7 sync deviceStream "
        "error 1",
        "ncclcomm.destroy_sync_error",
        {"stream": "deviceStream", "result": "1"},
    ),
    (
        W + "init.cc:2854 NCCL WARN commReclaim: comm 0x55d1c4a3e2b0 (rank = 1) in "
        "commDestroySync, error 6",
        "ncclcomm.destroy_sync_error",
        {"reclaim_rank": "1", "reclaim_result": "6"},
    ),
    # src/init.cc (split sharing resources) and src/plugin/net.cc (2.29+)
    (
        W + "init.cc:490 NCCL WARN Split shares resources, but parent comm netName IB is "
        "different from child comm netName Socket",
        "ncclcomm.split_net_mismatch",
        {"parent": "IB", "child": "Socket"},
    ),
    (
        W + "net.cc:361 NCCL WARN Comm config netName (Socket) does not match the parent (IB)",
        "ncclcomm.split_net_mismatch",
        {"config_child": "Socket", "config_parent": "IB"},
    ),
    # src/init.cc ncclCommGrow (2.29+)
    (
        W + "init.cc:3234 NCCL WARN ncclCommGrow: total ranks 8 is less than current ranks 16",
        "ncclcomm.grow_invalid",
        {"check": "total ranks 8 is less than current ranks"},
    ),
    (
        W + "init.cc:3266 NCCL WARN ncclCommGrow: magic mismatch computed by the root, got "
        "5f3a9c expected 5f3a9d",
        "ncclcomm.grow_invalid",
        {"check": "magic mismatch computed by the root"},
    ),
    (
        W + "init.cc:3281 NCCL WARN ncclCommGrow: new ranks must pass non-NULL uniqueId",
        "ncclcomm.grow_invalid",
        {"check": "new ranks must pass non-NULL uniqueId"},
    ),
    # src/init.cc parseCommConfig; src/dev_runtime.cc (2.28+)
    (
        W + "init.cc:2265 NCCL WARN ncclConfig_t argument not initialized via "
        "NCCL_CONFIG_INITIALIZER",
        "ncclcomm.struct_not_initialized",
        {"struct": "ncclConfig_t", "macro": "NCCL_CONFIG_INITIALIZER"},
    ),
    (
        W + "dev_runtime.cc:1507 NCCL WARN Cannot create device communicator: "
        "ncclDevCommRequirements_t argument must be initialized via "
        "NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER",
        "ncclcomm.struct_not_initialized",
        {"struct": "ncclDevCommRequirements_t"},
    ),
    # src/enqueue.cc (2.24+, FP8; self send/recv; graph-captured streams)
    (
        W + "enqueue.cc:3029 NCCL WARN FP8 reduction support begins with sm90 capable devices.",
        "ncclcoll.fp8_unsupported",
        {},
    ),
    (
        W + "enqueue.cc:1164 NCCL WARN Trying to recv to self without a matching send",
        "ncclcoll.group_usage",
        {"dir": "recv"},
    ),
    (
        W + "enqueue.cc:2596 NCCL WARN Streams given to a communicator within a NCCL group must "
        "either be all uncaptured or all captured by the same graph.",
        "ncclcoll.group_usage",
        {},
    ),
    # src/misc/argcheck.cc (2.30+)
    (
        W + "argcheck.cc:104 NCCL WARN Coll AllReduce size 1048576 symmetric registration check "
        "failed on rank 3: sendReg 0 recvReg 1 mismatch with rank 0 sendReg 1 recvReg 1",
        "ncclsym.registration_mismatch",
        {"op": "AllReduce", "rank": "3", "what": "sendReg"},
    ),
    (
        W + "argcheck.cc:172 NCCL WARN Coll ReduceScatter size 4194304 symmetric registration "
        "check failed on rank 5: recv buffer user offset (0x200000) mismatch with rank 0 (0x0)",
        "ncclsym.registration_mismatch",
        {"op": "ReduceScatter", "what": "recv buffer user offset"},
    ),
    # src/dev_runtime_segments.cc, src/gin/gin_host.cc (2.30+)
    (
        W + "dev_runtime_segments.cc:60 NCCL WARN VA represented by {userPtr = 0x7f3a40000000, "
        "size = 2097152} contains CPU-backed physical segments, but the LSA team does not "
        "support multi-node IPC on CPU-backed buffers. Please retry by setting "
        "NCCL_MNNVL_ENABLE=0",
        "ncclsym.window_unsupported",
        {"reason": "the LSA team does not support multi-node IPC on CPU-backed buffers"},
    ),
    (
        W + "gin_host.cc:383 NCCL WARN Window registration of addresses that span multiple "
        "physical segments requires DMABUF support with GIN.",
        "ncclsym.window_unsupported",
        {},
    ),
    (
        W + "dev_runtime_segments.cc:114 NCCL WARN Elastic GIN: rank 1 segment 0 size 2097152 "
        "differs from rank 0 segment 0 size 4194304; all ranks must have identical segment "
        "configurations",
        "ncclsym.window_unsupported",
        {},
    ),
    # src/gin/gin_host.cc ncclGinRegister (2.29+)
    (
        W + "gin_host.cc:393 NCCL WARN rank 2 - GIN Symmetric register failed: buff "
        "0x7f3a40000000, size 268435456",
        "ncclsym.gin_register_failed",
        {"rank": "2", "size": "268435456"},
    ),
    # src/transport/net_ib/gin.cc (2.29+)
    (
        W + "gin.cc:749 NCCL WARN NET/IB/GIN: Got completion from peer 10.20.0.13<40029> with "
        "status=12 opcode=1 len=0 vendor err 129 (Put) hca mlx5_0",
        "ncclgin.completion_error",
        {"peer": "10.20.0.13", "status": "12", "opcode": "1", "hca": "mlx5_0"},
    ),
    (
        W + "gin.cc:749 NCCL WARN NET/IB/GIN: Got completion from peer 10.20.0.14<51233> with "
        "status=10 opcode=0 len=0 vendor err 136 (Get) localGid ::ffff:10.20.0.12 remoteGids"
        "::ffff:10.20.0.14 hca mlx5_2",
        "ncclgin.completion_error",
        {"peer": "10.20.0.14", "status": "10", "hca": "mlx5_2"},
    ),
    (
        W + "gin.cc:42 NCCL WARN Unable to use GIN: Peermem is not supported, and device 0 does "
        "not support DMA-BUF.",
        "ncclgin.no_gpu_memory_registration",
        {"device": "0"},
    ),
    # src/dev_runtime.cc ncclDevCommCreate (2.30+)
    (
        W + "dev_runtime.cc:1120 NCCL WARN User requested GIN resources but did not request GIN "
        "to be enabled!",
        "ncclgin.requirements_unmet",
        {"what": "resources but did not request GIN to be enabled"},
    ),
    (
        W + "dev_runtime.cc:1142 NCCL WARN Cannot create worldGinBarrier with "
        "NCCL_GIN_CONNECTION_RAIL.",
        "ncclgin.requirements_unmet",
        {},
    ),
    # src/enqueue.cc one-sided RMA (2.30+)
    (
        W + "enqueue.cc:2820 NCCL WARN One-sided RMA requires CUDA driver 12.5 or later (found "
        "12.4).",
        "ncclrma.unsupported",
        {"required": "12.5", "found": "12.4"},
    ),
    (
        W + "enqueue.cc:2813 NCCL WARN One sided RMA: host RMA is not supported in this "
        "communicator.",
        "ncclrma.unsupported",
        {},
    ),
    # src/mem_manager.cc (2.30+)
    (
        W + "mem_manager.cc:988 NCCL WARN Memory resume not supported with split_share "
        "communicators (refCount=3)",
        "ncclmem.suspend_unsupported",
        {"op": "resume"},
    ),
    (
        W + "mem_manager.cc:940 NCCL WARN MemManager: Suspend not supported, memory manager is "
        "disabled",
        "ncclmem.suspend_unsupported",
        {"mm_op": "Suspend"},
    ),
    (
        W + "mem_manager.cc:537 NCCL WARN MemManager: Not in suspended state",
        "ncclmem.suspend_unsupported",
        {},
    ),
    # src/proxy.cc (proxy progress, service and UDS service threads)
    (
        "gpu-a01:48213:48299 [5] proxy.cc:959 NCCL WARN [Proxy Progress] Failed to set CUDA "
        "device 5",
        "ncclproxy.set_device_failed",
        {"thread": "Proxy Progress", "device": "5"},
    ),
    (
        "gpu-a01:48213:48302 [5] proxy.cc:1982 NCCL WARN [Proxy Service UDS] Failed to set CUDA "
        "device 5",
        "ncclproxy.set_device_failed",
        {"thread": "Proxy Service UDS"},
    ),
    # src/transport/net_ib/init.cc ncclIbInitDevices
    (
        W + "init.cc:350 NCCL WARN NET/IB : Unable to query device mlx5_3",
        "ncclib.query_failed",
        {"device": "mlx5_3"},
    ),
    (
        W + "init.cc:360 NCCL WARN NET/IB : Unable to query port_num 1",
        "ncclib.query_failed",
        {"port": "1"},
    ),
    # src/transport/net_ib/connect.cc (2.30+)
    (
        W + "connect.cc:676 NCCL WARN NET/IB: OOO RQ is force enabled but not supported on both "
        "sides of the connection (device=mlx5_0, localOooRq=1, remOooRq=0)",
        "ncclib.ooo_rq_forced",
        {"reason": "not supported on both sides of the connection"},
    ),
    # src/transport/net_ib/p2p_resiliency.cc (2.30+)
    (
        W + "p2p_resiliency.cc:116 NCCL WARN NET/IB: Could not find a replacement QP for the "
        "failed QP with qpIndex=0 (devIndex=1)",
        "ncclib.resiliency_exhausted",
        {"dev_index": "1"},
    ),
    (
        W + "p2p_resiliency.cc:98 NCCL WARN NET/IB: Cannot replace QP with qpIndex=0 because the "
        "new QP (qpIndex=1, devIndex=1) is not on a functional device (state=2)",
        "ncclib.resiliency_exhausted",
        {},
    ),
    (
        W + "p2p_resiliency.cc:460 NCCL WARN NET/IB: Maximum number of probing attempts (8) "
        "reached for request 0x7f3a1c0042a0 (id=17). Cannot post another probe.",
        "ncclib.resiliency_exhausted",
        {},
    ),
    # src/ras/client_support.cc (the ncclras report)
    (
        " Warning: negative travel times were observed across 1 connection,",
        "ncclras.clock_skew",
        {"connections": "1"},
    ),
    # the user guide's Diagnostics page (2.31): a partial P2P verification, verbatim
    (
        "NCCL DIAG [INFO] p2p: only 52/56 GPU-to-GPU peer accesses passed verification",
        "nccldiag.check_failed",
        {"check": "p2p", "passed": "52", "total": "56"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the diagnostics' passing report (verbatim from the Diagnostics page)
    (
        "nccldiag.check_failed",
        "NCCL DIAG [OK]   p2p: verified P2P access in both directions between every GPU pair "
        "(56 peer accesses)",
    ),
    # NCCL_DEBUG_SUBSYS=DESTROY's healthy revoke trace (src/init.cc ncclCommRevoke)
    (
        "ncclcomm.revoked",
        W + "NCCL INFO comm 0x55d1c4a3e2b0 rank 0 nRanks 8 cudaDev 0 busId 18000 - Revoke "
        "COMPLETE, result 0",
    ),
    # the NCCL user guide's PROXY example (a healthy poll)
    (
        "ncclcomm.abort_state",
        "node-01:1896541:1896562 [0] NCCL INFO ncclPollProxyResponse Received new opId=0x...",
    ),
    # the NCCL user guide's DESTROY example (a healthy teardown)
    (
        "ncclcomm.destroy_sync_error",
        "node-01:2056033:2056033 [1] NCCL INFO comm 0x... rank 1 "
        "nranks 4 cudaDev 1 busId XXXX - Destroy COMPLETE",
    ),
    # src/plugin/net.cc's INFO about the traffic class (not the net name)
    (
        "ncclcomm.split_net_mismatch",
        W + "NCCL INFO Comm config trafficClass (106) does not match the parent (0)",
    ),
    (
        "ncclcomm.struct_not_initialized",
        W + "NCCL INFO ncclCommInitRankConfig comm 0x55d1c4a3e2b0 "
        "rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1c2d - Init START",
    ),
    (
        "ncclsym.registration_mismatch",
        W + "NCCL INFO SymCheck: coll AllReduce size 1048576 rank 0 "
        "bigOffset 0 userOffset 0 info->recvbuff 0x7f00 recvWin->userPtr 0x7f00",
    ),
    # nccl.ib_completion_error's own "NET/IB:" form stays its own
    (
        "ncclgin.completion_error",
        W + "NCCL WARN NET/IB : Got completion from peer 10.20.0.13<40029> with error 12, "
        "opcode 0, len 0, vendor err 129 (Send)",
    ),
    # a flushed completion (status 5) echoes another error
    (
        "ncclgin.completion_error",
        W + "NCCL WARN NET/IB/GIN: Got completion from peer 10.20.0.13<40029> with status=5 "
        "opcode=1 len=0 vendor err 249 (Put) hca mlx5_0",
    ),
    # the NCCL user guide's INFO example (GIN assigned and working)
    (
        "ncclgin.requirements_unmet",
        "node-01:3873285:3873285 [0] NCCL INFO Assigned GIN plugin GIN_XXXX to comm",
    ),
    (
        "ncclgin.no_gpu_memory_registration",
        "node-01:3873285:3873285 [0] NCCL INFO DMA-BUF is available on GPU device 0",
    ),
    # the NCCL user guide's ALLOC example
    (
        "ncclmem.suspend_unsupported",
        "node-01:1120933:1120933 [0] NCCL INFO MemManager: Initialized for device 0",
    ),
    (
        "ncclproxy.set_device_failed",
        "node-01:1896541:1896559 [0] NCCL INFO New proxy recv "
        "connection 0 from local rank 0, transport 1",
    ),
    (
        "ncclib.query_failed",
        W + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.20.0.12<0>",
    ),
    ("ncclib.ooo_rq_forced", W + "NCCL INFO NCCL_IB_OOO_RQ set by environment to 1."),
    # the older ncclras report warnings nccl.ras_gather_incomplete reads
    ("ncclras.clock_skew", " Warning: encountered 2 communication timeouts while gathering data"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(
        FILE,
        KEYS,
        frozenset(
            {
                "ncclcomm",
                "ncclcoll",
                "ncclsym",
                "ncclgin",
                "ncclrma",
                "ncclmem",
                "ncclproxy",
                "ncclib",
                "ncclras",
                "nccldiag",
            }
        ),
    )
    assert set(BLAME) == KEYS


def test_restatements_stay_below_a_collective_complaint() -> None:
    """A revoked or aborted communicator, a teardown error, a proxy thread without its GPU and a
    GIN registration failure restate a failure elsewhere: below the collective weight. The two
    network failures (a GIN completion error, IB resiliency out of NICs) are collective complaints
    themselves; the GIN completion error weighs like NCCL's IB one."""
    network = {"ncclgin.completion_error", "ncclib.resiliency_exhausted"}
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            if key in network:
                assert COLLECTIVE <= sig.weight <= 50, key
            else:
                assert sig.weight < COLLECTIVE, key
    ib = CATALOG.signatures["nccl.ib_completion_error"]
    gin = CATALOG.signatures["ncclgin.completion_error"]
    assert (gin.blame, gin.weight) == (ib.blame, ib.weight)


def test_only_a_local_device_query_names_this_node_and_weakly() -> None:
    """The IB device/port query is hardware below the decisive weight, inspect; a failed active
    diagnostic (checked before any application traffic) decides, inspect."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.HARDWARE:
            assert key in ("ncclib.query_failed", "nccldiag.check_failed")
            assert (sig.weight < 50) is (key == "ncclib.query_failed")
            assert sig.node_action.value == "inspect"
        else:
            assert sig.node_action.value == "none", key


def test_node_capability_requests_do_not_decide_alone() -> None:
    """GIN or RMA asked for on a node that cannot provide it reads the same as one node's driver
    setup: application below the decisive weight."""
    for key in (
        "ncclgin.no_gpu_memory_registration",
        "ncclgin.requirements_unmet",
        "ncclrma.unsupported",
    ):
        assert CATALOG.signatures[key].weight < 50, key


def test_no_line_is_read_twice() -> None:
    """Each golden line is read by this family's entry alone (no other specific entry)."""
    for line, key, _ in GOLDEN:
        assert set(hits(line)) - {"python.exception", "python.exception_elsewhere"} == {key}, line
