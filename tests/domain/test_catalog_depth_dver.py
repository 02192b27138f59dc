"""Wording drift across NCCL releases: each line is rendered from an older (or newer) NCCL format
string of a message the catalog already reads, with the release, file and function it comes
from beside it. The catalog must read every release's wording, not only the newest, and must
keep leaving alone the INFO-level and retry look-alikes listed at the end."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import scanned_blames as found
from domain.golden import scanned_details as details


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # rendered: NCCL v2.23.4 src/transport/net_ib.cc ncclIbAsyncThreadMain (2.23-2.28.3 print
        # every non-fatal event as "Got async error event"; a port error there is weak evidence)
        ("gpu-a01:4821:4890 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async "
         "error event: port error", "nccl.ib_async_port_error_nonfatal", Blame.HARDWARE),
        # rendered: NCCL v2.23.4 src/transport/net_ib.cc ncclIbAsyncThreadMain
        ("gpu-a01:4821:4890 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async "
         "error event: port active", "nccl.ib_async_benign", Blame.INFO),
        # rendered: NCCL v2.27.7 src/transport/net_ib.cc ncclIbAsyncThreadMain
        ("gpu-a01:4821:4890 [0] transport/net_ib.cc:262 NCCL WARN NET/IB : mlx5_2:1 Got async "
         "error event: client reregistration", "nccl.ib_async_benign", Blame.INFO),
        # rendered: NCCL v2.7.8 src/include/socket.h socketProgressOpt (2.4-2.9, no peer named)
        ("gpu-a01:4821:4890 [0] include/socket.h:421 NCCL WARN Call to recv failed : Connection "
         "reset by peer", "nccl.socket_peer_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.27.7 src/misc/socket.cc socketConnectCheck ("connect" lower case)
        ("gpu-a01:4821:4890 [0] misc/socket.cc:592 NCCL WARN socketStartConnect: connect to "
         "10.1.2.3<43211> failed : Connection refused", "nccl.socket_peer_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.24.3 src/misc/socket.cc socketConnectCheck (after its retries)
        ("gpu-a01:4821:4890 [0] misc/socket.cc:543 NCCL WARN socketStartConnect: connect returned "
         "Connection refused, exceeded error retry count (35)", "nccl.socket_peer_failed",
         Blame.SYMPTOM),
        # rendered: NCCL v2.27.7 src/misc/socket.cc socketConnectCheck (2.30: src/os/linux.cc)
        ("gpu-a01:4821:4890 [0] misc/socket.cc:578 NCCL WARN socketStartConnect: connect to "
         "10.1.2.3<43211> returned Connection timed out, exceeded error retry count after 35 "
         "attempts", "nccl.socket_peer_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.27.7 src/misc/socket.cc socketPollConnect
        ("gpu-a01:4821:4890 [0] misc/socket.cc:618 NCCL WARN socketPollConnect to 10.1.2.3<43211> "
         "failed with error Connection timed out", "nccl.socket_poll_connect_failed",
         Blame.SYMPTOM),
        # rendered: NCCL v2.29.7 src/os/linux.cc ncclOsSocketPollConnect
        ("gpu-a01:4821:4890 [0] os/linux.cc:261 NCCL WARN ncclOsSocketPollConnect to "
         "10.1.2.3<43211> failed with error No route to host", "nccl.socket_poll_connect_failed",
         Blame.SYMPTOM),
        # rendered: NCCL v2.20.5 src/misc/socket.cc socketPollConnect (2.16-2.23)
        ("gpu-a01:4821:4890 [0] misc/socket.cc:513 NCCL WARN socketPollConnect: exceeded retries "
         "(34)", "nccl.socket_poll_connect_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.14.3 src/include/alloc.h ncclCudaCallocAsync
        ("gpu-a01:4821:4890 [3] include/alloc.h:124 NCCL WARN Failed to CUDA calloc async 1048576 "
         "bytes", "nccl.cuda_oom", Blame.APPLICATION),
        # rendered: NCCL v2.19.4 src/include/alloc.h, as PyTorch quotes it after "Last error:"
        ("Failed to CUDA calloc async 608 bytes", "nccl.cuda_oom", Blame.APPLICATION),
        # rendered: NCCL v2.30.7 src/enqueue.cc topoGetAlgoInfo (no "Error : " any more)
        ("gpu-a01:4821:4821 [0] enqueue.cc:2101 NCCL WARN No algorithm/protocol available for "
         "function AllReduce with datatype ncclFloat8e4m3. NCCL_ALGO was set to NVLS.",
         "nccl.no_algorithm", Blame.APPLICATION),
        # rendered: NCCL v2.29.7 src/dev_runtime.cc validateNcclVersion
        ("gpu-a01:4821:4821 [0] dev_runtime.cc:1152 NCCL WARN NCCL library version is too old. "
         "This application was compiled with NCCL version 22907, but is running with NCCL "
         "library version 22803.", "nccl.version_mismatch", Blame.APPLICATION),
        # rendered: NCCL v2.22.3 src/bootstrap.cc bootstrapRoot (2.3-2.22)
        ("gpu-a01:4821:4850 [0] bootstrap.cc:230 NCCL WARN Bootstrap Root : mismatch in rank count "
         "from procs 16 : 8", "nccl.launch_mismatch", Blame.APPLICATION),
        # rendered: NCCL v2.29.7 src/transport/net_ib/p2p.cc ncclIbTest (function name after NET/IB)
        ("gpu-a01:4821:4890 [4] p2p.cc:786 NCCL WARN NET/IB: ncclIbTest: Got CQE with error "
         "(devIndex=0, req=0x7f3a4c0d2e00, comm=0x7f3a4c001200 (send), wr_id=140545, qp_num=1187)",
         "nccl.ib_cqe_error", Blame.SYMPTOM),
        # rendered: NCCL v2.29.7 src/transport/net_ib/p2p_resiliency.cc
        # ncclIbResiliencyHandleDeviceFailure (no recovery verdict yet)
        ("gpu-a01:4821:4890 [1] p2p_resiliency.cc:312 NCCL WARN NET/IB: "
         "ncclIbResiliencyHandleDeviceFailure: Device 1 marked as failed. (send comm=0x7f03e8086000)",
         "nccl.ib_resiliency_failure", Blame.SYMPTOM),
        # rendered: NCCL v2.29.7 src/transport/net_ib/p2p_resiliency.cc ncclIbResiliencyReplaceQps
        ("gpu-a01:4821:4890 [1] p2p_resiliency.cc:95 NCCL WARN NET/IB: ncclIbResiliencyReplaceQps: "
         "Could not find a replacement QP for the failed QP with qpIndex=0 (devIndex=1)",
         "ncclib.resiliency_exhausted", Blame.SYMPTOM),
        # rendered: NCCL v2.22.3 src/misc/shmutils.cc ncclShmOpen (the path's pointer, 2.22-2.23)
        ("gpu-a01:4821:4890 [0] misc/shmutils.cc:70 NCCL WARN Error: failed to create shared "
         "memory file 0x7ffc5a8e1b20, error No space left on device (28)", "nccl.shm_exhausted",
         Blame.APPLICATION),
        # rendered: NCCL v2.11.4 src/include/shm.h shmOpen (the POSIX segment name, 2.4-2.11)
        ("gpu-a01:4821:4890 [0] include/shm.h:48 NCCL WARN Error while attaching to shared memory "
         "segment nccl-shm-recv-3a2b1c-0-1-0 (size 4194656)", "nccl.shm_attach_failed",
         Blame.APPLICATION),
        # rendered: NCCL v2.14.3 src/proxy.cc ncclProxyService (2.12-2.14)
        ("gpu-a01:4821:4895 [0] proxy.cc:1059 NCCL WARN [Proxy Service] Poll failed with error 4",
         "nccl.proxy_poll_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.9.9 src/bootstrap.cc ncclRemoteMemAllocationService (2.8-2.11)
        ("gpu-a01:4821:4895 [0] bootstrap.cc:265 NCCL WARN [Rem Allocator] Poll failed with error "
         "4", "nccl.proxy_poll_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.14.3 src/proxy.cc ncclProxyService (2.13-2.29, context form)
        ("gpu-a01:4821:4895 [3] proxy.cc:1029 NCCL WARN [Proxy Service] Failed to set CUDA context "
         "on device 3", "ncclproxy.set_device_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.9.9 src/bootstrap.cc ncclRemoteMemAllocationService
        ("gpu-a01:4821:4895 [3] bootstrap.cc:248 NCCL WARN [Rem Allocator] Failed to set CUDA "
         "device 3", "ncclproxy.set_device_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.19.4 src/transport/net_ib.cc ncclIbInit (before "port_num", 2.3-2.19)
        ("gpu-a01:4821:4821 [0] transport/net_ib.cc:210 NCCL WARN NET/IB : Unable to query port 1",
         "ncclib.query_failed", Blame.HARDWARE),
        # rendered: NCCL v2.24.3 src/proxy.cc ncclProxyCallBlockingUDS (2.20+)
        ("gpu-a01:4821:4821 [0] proxy.cc:1159 NCCL WARN ncclProxyCallBlockingUDS call to tpRank "
         "3(5f2e1a9c) failed : 2", "nccl.proxy_failed", Blame.SYMPTOM),
        # rendered: NCCL v2.10.3 src/transport/net_ib.cc ncclIbIsend (2.10-2.11, peer named)
        ("gpu-a01:4821:4890 [0] transport/net_ib.cc:681 NCCL WARN NET/IB : peer 10.1.2.3<43211> "
         "collective mismatch error local size 496640 remote 65536 addr 7f3a40000000 rkey 1a2b "
         "seq 3/4", "nccl.collective_size_mismatch", Blame.APPLICATION),
        # rendered: NCCL v2.8.4 src/include/socket.h connectAddress (2.8-2.9)
        ("gpu-a01:4821:4850 [0] include/socket.h:372 NCCL WARN Error : connecting to address with "
         "family 0 is neither AF_INET(2) nor AF_INET6(10)", "nccl.no_socket_interface",
         Blame.APPLICATION),
        # rendered: NCCL v2.12.12 src/misc/socket.cc ncclSocketConnect (2.10-2.15)
        ("gpu-a01:4821:4850 [0] misc/socket.cc:395 NCCL WARN Net : connecting to address  with "
         "family 0 is neither AF_INET(2) nor AF_INET6(10)", "nccl.no_socket_interface",
         Blame.APPLICATION),
        # rendered: NCCL v2.17.1 src/init.cc parseCommConfig (minCTAs/maxCTAs, 2.17+)
        ("gpu-a01:4821:4821 [0] init.cc:1193 NCCL WARN Invalid config min/max channels attribute "
         "value -2147483648/-2147483648", "nccl.config_invalid", Blame.APPLICATION),
        # rendered: NCCL v2.22.3 src/group.cc ncclGroupEndInternal (ncclGroupSimulateEnd, 2.22+)
        ("gpu-a01:4821:4821 [0] group.cc:502 NCCL WARN ncclSimInfo_t argument not initialized via "
         "NCCL_SIM_INFO_INITIALIZER", "ncclcomm.struct_not_initialized", Blame.APPLICATION),
    ],
)  # fmt: skip
def test_older_and_newer_wordings(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_captures_survive_the_wider_patterns() -> None:
    line = ("gpu-a01:4821:4890 [0] misc/socket.cc:578 NCCL WARN socketStartConnect: connect to "
            "10.1.2.3<43211> returned Connection timed out, exceeded error retry count after 35 "
            "attempts")  # fmt: skip
    assert details(line, "nccl.socket_peer_failed")["peer"] == "10.1.2.3"
    line = ("gpu-a01:4821:4890 [0] os/linux.cc:261 NCCL WARN ncclOsSocketPollConnect to "
            "10.1.2.3<43211> failed with error No route to host")  # fmt: skip
    assert details(line, "nccl.socket_poll_connect_failed")["peer"] == "10.1.2.3"
    line = ("gpu-a01:4821:4890 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async "
            "error event: port error")  # fmt: skip
    assert details(line, "nccl.ib_async_port_error_nonfatal") == {"device": "mlx5_0", "port": "1"}
    assert "nccl.ib_async_port_error" not in found(line)
    line = "gpu-a01:4821:4890 [3] NCCL WARN Failed to CUDA calloc async 4096 bytes"
    assert details(line, "nccl.cuda_oom")["bytes"] == "4096"


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # rendered: NCCL v2.21.5 src/misc/ibvwrap.cc IBV_INT_CHECK_RET_ERRNO_OPTIONAL (an optional
        # verb's ENOTSUP, logged at INFO in 2.19-2.23; NCCL goes on without ECE)
        ("gpu-a01:4821:4890 [0] NCCL INFO Call to ibv_query_ece failed with error Operation not "
         "supported errno 95", "nccl.ibv_unsupported"),
        ("gpu-a01:4821:4890 [0] NCCL INFO Call to ibv_set_ece failed with error Operation not "
         "supported errno 95", "nccl.ibv_call_failed"),
        # rendered: NCCL v2.27.7 src/misc/socket.cc socketConnectCheck (INFO while it retries)
        ("gpu-a01:4821:4890 [0] NCCL INFO socketStartConnect: connect to 10.1.2.3<43211> returned "
         "Connection refused, retrying (1/34) after sleep for 100 msec", "nccl.socket_peer_failed"),
        # rendered: NCCL v2.24.3 src/misc/socket.cc socketConnectCheck (INFO while it retries)
        ("gpu-a01:4821:4890 [0] NCCL INFO socketStartConnect: connect returned Connection refused, "
         "retrying (1/34) after sleep for 100 msec", "nccl.socket_peer_failed"),
        # rendered: NCCL v2.30.7 src/transport/net_ib/p2p_resiliency.cc
        # ncclIbResiliencyHandleCompletionError (INFO, before the resiliency verdict)
        ("gpu-a01:4821:4890 [0] NCCL INFO NET/IB: ncclIbResiliencyHandleCompletionError: Got "
         "completion with error (devIndex=0, wc->status=(IBV_WC_RETRY_EXC_ERR)12, "
         "wc->opcode=(IBV_WC_RDMA_WRITE)1, wc->wr_id=5, wc->qp_num=7, wc->byte_len=0)",
         "nccl.ib_completion_error"),
        # rendered: NCCL v2.18.6 src/proxy.cc (INFO: the proxy thread made its context)
        ("gpu-a01:4821:4895 [3] NCCL INFO [Proxy Service] Created CUDA context on device 3",
         "ncclproxy.set_device_failed"),
        # rendered: NCCL v2.28.9 src/transport/net_ib.cc (INFO: an optional NET plugin not loaded)
        ("gpu-a01:4821:4821 [0] NCCL INFO Failed to initialize NET plugin IB",
         "nccl.no_net_plugin"),
        # an application's own message that merely contains the words
        ("allocator: ncclFailed to CUDA calloc 5 bytes", "nccl.cuda_oom"),
        ("Bootstrap Root : mismatch in rank count is expected during resize", "nccl.launch_mismatch"),
    ],
)  # fmt: skip
def test_look_alikes_do_not_match(line: str, signal: str) -> None:
    assert signal not in found(line)
