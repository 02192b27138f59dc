"""Real failure lines of the collective and distributed-runtime emitters (NCCL, gloo, the c10d
stores) that the catalog did not read before session 23's mining, each quoted from the public
thread named beside it, with the signal and blame its emitter's source gives it; and look-alikes
that must stay unread."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame
from autorecover.parsing.scanning import Scanner
from domain.golden import scanned_blames as found

SCANNER = Scanner(builtin_catalog())
T0 = datetime(2026, 3, 4, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # NVIDIA/nccl issue #1066: each rank sees only its own GPU; NVML cannot map the bus id
        ("gcn6:1080061:1080359 [0] misc/nvmlwrap.cc:181 NCCL WARN nvmlDeviceGetHandleByPciBusId() "
         "failed: Not Found", "nccl.nvml_call_failed", Blame.SYMPTOM),
        # NVIDIA/nccl issue #1529: two containers on one node, different GPUs
        ("ucpe-resource033018034100:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN "
         "nvmlDeviceGetHandleByPciBusId() failed: Not Found", "nccl.nvml_call_failed",
         Blame.SYMPTOM),
        # NVIDIA/nccl issue #844: NCCL 2.10's remote allocator after a closed peer and an OOM
        ("696b7901f9044f23b786795c0ef7257b000000:39:298 [0] bootstrap.cc:279 NCCL WARN [Rem "
         "Allocator] Allocation failed (segment 0, fd 130)", "nccl.remote_allocator_failed",
         Blame.SYMPTOM),
        # NVIDIA/nccl issue #1589: a peer's /dev/shm segment gone before this rank attached
        ("g148:14937:69361 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or "
         "directory", "nccl.shm_syscall_failed", Blame.SYMPTOM),
        # NVIDIA/nccl issue #328: NCCL 2.4 on a node whose /dev/shm the user could not write
        ("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission "
         "denied", "nccl.shm_syscall_failed", Blame.SYMPTOM),
        # aws/aws-ofi-nccl issue #990: the RDMA protocol's peer reported another rail count
        ("accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*, nccl_net_ofi_rdma_listen_comm_t*,"
         " nccl_net_ofi_rdma_recv_comm_t**):4909 NCCL WARN NET/OFI Unexpected number of remote "
         "rails for dev 3. Expected", "efa.rail_count_mismatch", Blame.SYMPTOM),
        # xh-liu/CC-FPSE issue #6: torch 1.x TCPStore client never reached MASTER_ADDR:PORT
        ("RuntimeError: connect() timed out.", "c10d.store_connect_failed", Blame.TRANSIENT),
        # NVIDIA/nccl issue #2077: NVSwitch multicast slots used up (fabric manager healthy)
        ("Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out "
         "of memory'.", "nccl.nvls_multicast_exhausted", Blame.SYMPTOM),
        # pytorch/gloo issue #148: c10d FileStore::wait ran out of time at init_process_group
        ("RuntimeError: Wait timeout", "c10d.store_timeout", Blame.SYMPTOM),
        # gpustack/gpustack issue #4128: a numeric host name resolved to 0.0.0.189
        ("(EngineCore_DP0 pid=90) ERROR 01-04 15:58:26 [core.py:866] RuntimeError: [enforce fail "
         "at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:212] ifa != nullptr. Unable "
         "to find interface for: [0.0.0.189]", "netconfig.gloo_no_address", Blame.APPLICATION),
        # maxrmorrison/torchcrepe issue #30: gloo's libuv transport given no interface or host
        ("RuntimeError: GlooDeviceFactory::makeUVDevice(): interface or hostname can't be empty",
         "netconfig.gloo_no_address", Blame.APPLICATION),
        # ray-project/ray issue #25866: Horovod's gloo rendezvous store on the launcher timed out
        ("  what():  [/tmp/pip-install-43a3uo3a/horovod_33a452dfb1f34b4e998a6265ba22cf83/horovod/"
         "common/gloo/http_store.cc:57] [/tmp/pip-install-43a3uo3a/horovod_33a452dfb1f34b4e998a6265"
         "ba22cf83/horovod/common/gloo/http_store.cc:57] Wait timeout after 30 seconds for key(s): "
         "0. You may want to increase the timeout via HOROVOD_GLOO_TIMEOUT_SECONDS",
         "horovod.gloo_store_timeout", Blame.SYMPTOM),
        # pytorch/gloo issue #268: a Mac and an Ubuntu host, one resolving to IPv6
        ("RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:210] address "
         "family mismatch", "netconfig.gloo_address_family_mismatch", Blame.APPLICATION),
    ],
)  # fmt: skip
def test_mined_lines(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_nvml_call_failed_captures_the_call_and_nvml_text() -> None:
    sig = builtin_catalog().signatures["nccl.nvml_call_failed"]
    m = sig.compiled().search(
        "x:1:2 [0] misc/nvmlwrap.cc:166 NCCL WARN nvmlDeviceGetHandleByIndex(3) failed: Unknown Error"
    )
    assert m is not None
    assert (m["call"], m["error"]) == ("nvmlDeviceGetHandleByIndex", "Unknown Error")


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # NCCL's INFO-level NVMLTRY texts and a program's own NVML message are not NCCL WARNs
        ("x:1:2 [0] NCCL INFO nvmlDeviceGetNvLinkState() failed: Not Supported",
         "nccl.nvml_call_failed"),
        ("Failed to get handle for device 0: Not Found", "nccl.nvml_call_failed"),
        # NCCL 2.28's symmetric-memory allocator is another entry, not the 2.9-2.11 thread
        ("[0] nccl/src/allocator.cc:229 (ncclSpaceAlloc) NCCL WARN Allocation failed. No "
         "suitable space found to accommodate size=0x2171600000 within limit=0x2d00000000",
         "nccl.remote_allocator_failed"),
        # a wait timeout inside a message, or another program's, is not the store's bare text
        ("RuntimeError: Wait timeout while polling the device", "c10d.store_timeout"),
        ("wait timeout", "c10d.store_timeout"),
        # torch 1.x's bare text only at the end of a line; another program's connect() message
        ("RuntimeError: connect() timed out. Retrying with a new socket",
         "c10d.store_connect_failed"),
        # another program's HTTP store, or Horovod's wording without the store's file
        ("store/http_store.go:88] request failed for key(s): 0", "horovod.gloo_store_timeout"),
        ("Wait timeout after 30 seconds for key(s): 0", "horovod.gloo_store_timeout"),
        # NCCL's socket and verbs calls have their own entries; a non-NCCL "Call to open failed"
        ("x:1:2 [0] misc/socket.cc:430 NCCL WARN Call to connect failed : Connection refused",
         "nccl.shm_syscall_failed"),
        ("x:1:2 [0] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_mr failed with error Bad address",
         "nccl.shm_syscall_failed"),
        ("Call to open failed: No such file or directory", "nccl.shm_syscall_failed"),
        # gloo's own address-family-aware text elsewhere, and a plain socket error
        ("socket: Address family not supported by protocol",
         "netconfig.gloo_address_family_mismatch"),
        ("RuntimeError: address family mismatch between ranks", "netconfig.gloo_address_family_mismatch"),
    ],
)  # fmt: skip
def test_look_alikes_stay_unread(line: str, signal: str) -> None:
    assert signal not in found(line)


def test_nvls_slot_exhaustion_is_not_read_as_the_nodes_fabric() -> None:
    """NVIDIA/nccl issue #2077: CUDA error 2 from the multicast bind names no failed part; the
    fabric-state errors (401, pytorch/ao pull request #3841) still read as the node's."""
    exhausted = found(
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out "
        "of memory'."
    )
    assert "nccl.nvls_bind_failed" not in exhausted
    fabric = found("  Failed to bind NVLink SHARP (NVLS) Multicast memory: CUDA error 401")
    assert fabric.get("nccl.nvls_bind_failed") is Blame.HARDWARE
    assert "nccl.nvls_multicast_exhausted" not in fabric
