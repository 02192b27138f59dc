"""Depth review of the network families (session 22): entries that split a lumped error code by
what the emitter's own source says it means. Each test pins a golden line, the look-alikes with
the codes that keep their older, weaker reading, and the blame the split decides."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source

from .golden import CATALOG, Golden, found, golden_line_checks, hits

# The entries this review added, with the blame each decides.
BLAME: dict[str, Blame] = {
    "nccl.socket_connect_unroutable": Blame.APPLICATION,
    "cxi.nic_chip_not_ready": Blame.HARDWARE,
    "ucc.pg_unsupported": Blame.APPLICATION,
    "cufile.usage_error": Blame.APPLICATION,
    "rdma.mr_register_unsupported": Blame.APPLICATION,
}

GOLDEN: Golden = [
    # Oneflow-Inc/DLPerf README.md (NCCL 2.7: a container's veth address; NCCL_SOCKET_IFNAME)
    (
        "NCCL WARN Connect to fe80::a480:7fff:fecf:1ed9%13<45166> failed : Network is unreachable",
        "nccl.socket_connect_unroutable",
        {"address": "fe80::a480:7fff:fecf:1ed9%13", "text": "Network is unreachable"},
    ),
    # rendered from NVIDIA/nccl misc/socket.cc socketStartConnect (2.14-2.26)
    (
        "gpu-b07:87721:87790 [0] misc/socket.cc:485 NCCL WARN socketStartConnect: Connect to "
        "10.42.8.11<43791> failed : Network is unreachable",
        "nccl.socket_connect_unroutable",
        {"address": "10.42.8.11", "text": "Network is unreachable"},
    ),
    # rendered from NVIDIA/nccl os/linux.cc socketConnectCheck (2.27+, lower-case "connect")
    (
        "gpu-b07:87721:87790 [0] os/linux.cc:302 NCCL WARN ncclOsSocketStartConnect: connect to "
        "10.0.0.2<45763> failed : Address family not supported by protocol",
        "nccl.socket_connect_unroutable",
        {"address": "10.0.0.2", "text": "Address family not supported by protocol"},
    ),
    # rendered from shs-cxi-driver cass_core.c init_hw (no public line found)
    (
        "cxi_ss1 0000:c5:00.0: cxi0[hsn0] chip not ready",
        "cxi.nic_chip_not_ready",
        {"device": "cxi0", "netdev": "hsn0"},
    ),
    (
        "cxi_core 0000:c5:00.0: cxi1[hsn1] init_hw failed: -524",
        "cxi.nic_chip_not_ready",
        {"device": "cxi1", "netdev": "hsn1"},
    ),
    # rendered from pytorch/pytorch UCCUtils.hpp TORCH_UCC_GET_ERROR_MSG with openucx/ucc's
    # ucc_status_string (no public line found)
    (
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:473] [Rank 3]"
        "[ProcessGroupUCC-0][COLL_POST]failed to init collective, error code -1: Operation is not "
        "supported, system error code 0",
        "ucc.pg_unsupported",
        {"phase": "COLL_POST", "code": "-1", "status": "Operation is not supported"},
    ),
    (
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:473] [Rank 0]"
        "[ProcessGroupUCC-0][COLL_POST]failed to init collective, error code -3: Invalid "
        "parameter, system error code 0",
        "ucc.pg_unsupported",
        {"code": "-3", "status": "Invalid parameter"},
    ),
]

# rendered from rapidsai/kvikio error.hpp CUFILE_TRY with cufile.h's CUFILE_ERRSTR texts (no
# public line found)
GOLDEN += [
    (
        "RuntimeError: cuFile error at: /opt/kvikio/cpp/include/kvikio/file_handle.hpp:117: fd "
        "direct IO not set",
        "cufile.usage_error",
        {"error": "fd direct IO not set"},
    ),
    (
        "  what():  cuFile error at: /opt/kvikio/cpp/include/kvikio/buffer.hpp:48: device pointer "
        "already registered",
        "cufile.usage_error",
        {"error": "device pointer already registered"},
    ),
    (
        "cuFile error at: /opt/kvikio/cpp/include/kvikio/file_handle.hpp:203: access beyond "
        "maximum pinned size",
        "cufile.usage_error",
        {"error": "access beyond maximum pinned size"},
    ),
]

GOLDEN += [
    # linux-rdma/perftest issue #280 (--use_cuda_dmabuf on a stack without DMA-BUF registration)
    ("Couldn't allocate MR with error=93", "rdma.mr_register_unsupported", {"errno": "93"}),
    # rendered from perftest src/perftest_resources.c register_memory_region
    ("Couldn't allocate MR with error=95", "rdma.mr_register_unsupported", {"errno": "95"}),
    ("OFED stack does not support DMA-BUF", "rdma.mr_register_unsupported", {}),
]

# The codes that keep the older entry's reading, and other look-alikes.
NEGATIVE: list[tuple[str, str]] = [
    # NVIDIA/nccl issue #1920's wording: a reset by the peer is the peer's
    (
        "nccl.socket_connect_unroutable",
        "misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send to 10.44.137.149<52905> "
        "failed : Connection reset by peer",
    ),
    # refused and no route to host: retried by NCCL, then the peer's or a firewall's
    (
        "nccl.socket_connect_unroutable",
        "NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Connection refused",
    ),
    (
        "nccl.socket_connect_unroutable",
        "NCCL WARN Net : Connect to 10.0.0.2<45763> failed : No route to host",
    ),
    # the asynchronous path's SO_ERROR (an ICMP answer from a router) is not split
    (
        "nccl.socket_connect_unroutable",
        "NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 101(Network is "
        "unreachable) errno 115(Operation now in progress)",
    ),
    # c10d's own IPv6 probe warning (pytorch, healthy): not NCCL's connect
    (
        "nccl.socket_connect_unroutable",
        "[W socket.cpp:697] [c10d] The client socket cannot be initialized to connect to "
        "[x08j01357.cloud.sqa.na131.tbsite.net]:50704 (errno: 97 - Address family not supported "
        "by protocol).",
    ),
    # init_hw's other codes: an allocation, the telemetry setup
    ("cxi.nic_chip_not_ready", "cxi_core 0000:c5:00.0: cxi0[hsn0] init_hw failed: -12"),
    ("cxi.nic_chip_not_ready", "cxi_ss1 0000:c5:00.0: cxi0[hsn0] init_hw failed: -95"),
    ("cxi.nic_chip_not_ready", "cxi_core 0000:c5:00.0: cxi0[hsn0] init_hw failed: -5240"),
    # ProcessGroupUCC's other codes stay ucc.pg_error's
    (
        "ucc.pg_unsupported",
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/UCCUtils.cpp:196] [Rank 3]"
        "[ProcessGroupUCC-0][COLL_PROGRESS]failed to progress UCC collective, error code -6: "
        "Unhandled error, system error code 0",
    ),
    (
        "ucc.pg_unsupported",
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/UCCUtils.cpp:93] [Rank 0]"
        "[ProcessGroupUCC-0][INIT]failed to init UCC lib, error code -5: Resources are not "
        "available for the operation, system error code 2",
    ),
    (
        "ucc.pg_unsupported",
        "[/opt/pytorch/pytorch/torch/csrc/distributed/c10d/UCCUtils.cpp:196] [Rank 2]"
        "[ProcessGroupUCC-0][COLL_PROGRESS]failed to progress UCC collective, error code -8: "
        "Timeout expired, system error code 0",
    ),
    # cuFile's file-system, node and library statuses stay cufile.api_error's (rapidsai/kvikio
    # issue #33; tinygrad/open-gpu-kernel-modules issue #51) or the driver entry's
    (
        "cufile.usage_error",
        "  what():  cuFile error at: /home/vyasr/local/rapids/kvikio/cpp/examples/../include/"
        "kvikio/file_handle.hpp:117: internal error",
    ),
    (
        "cufile.usage_error",
        "cuFile error at: /opt/kvikio/cpp/include/kvikio/file_handle.hpp:117: GPUDirect Storage "
        "not supported on current file",
    ),
    (
        "cufile.usage_error",
        "cuFile error at: /opt/kvikio/cpp/include/kvikio/file_handle.hpp:117: driver or file "
        "access error",
    ),
    (
        "cufile.usage_error",
        "  what():  cuFile error at: /opt/kvikio/cpp/include/kvikio/shim/cufile.hpp:73: "
        "nvidia-fs driver is not loaded",
    ),
    # the same words in another message
    ("cufile.usage_error", "ValueError: invalid arguments"),
    # perftest's other registration errnos: a memlock limit, a GPU buffer without peer memory
    ("rdma.mr_register_unsupported", "Couldn't allocate MR with error=12"),
    ("rdma.mr_register_unsupported", "Couldn't allocate MR with error=14"),
    ("rdma.mr_register_unsupported", "Couldn't allocate MR with error=930"),
    ("rdma.mr_register_unsupported", "Couldn't allocate MR"),
    # error code -10 is not -1
    (
        "ucc.pg_unsupported",
        "[Rank 2][ProcessGroupUCC-0][COLL_POST]failed to post collective, error code -10: "
        "Operation is not supported, system error code 0",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_every_new_entry_weighs_what_its_class_asks() -> None:
    # application 50-60 stops the job; hardware 50-60 with a node action, under 60 where the
    # family keeps a NIC's own init failure from naming a node alone
    for key, blame in BLAME.items():
        assert 50 <= CATALOG.signatures[key].weight <= 60, key
        if blame is Blame.HARDWARE:
            assert CATALOG.signatures[key].node_action.value != "none", key


def test_an_unroutable_connect_is_the_jobs_but_a_refused_one_stays_the_peers() -> None:
    unroutable = "NCCL WARN socketStartConnect: Connect to 10.42.8.11<43791> failed : Network is "
    unroutable += "unreachable"
    refused = "NCCL WARN socketStartConnect: Connect to 10.42.8.11<43791> failed : Connection "
    refused += "refused"
    assert ("nccl.socket_connect_unroutable", Blame.APPLICATION, 50) in found(
        unroutable, Source.LOGS
    )
    assert {s for s, _, _ in found(refused, Source.LOGS)} == {"nccl.socket_peer_failed"}
    # the older entry still reads the unroutable line (and names the address it tried)
    assert hits(unroutable)["nccl.socket_peer_failed"]["peer"] == "10.42.8.11"


def test_a_chip_that_never_became_ready_outweighs_an_allocation_failure() -> None:
    chip = found("cxi_ss1 0000:c5:00.0: cxi0[hsn0] chip not ready", Source.SYSTEM)
    assert ("cxi.nic_chip_not_ready", Blame.HARDWARE, 55) in chip
    assert CATALOG.signatures["cxi.nic_chip_not_ready"].node_action.value == "inspect"
    enomem = found("cxi_core 0000:c5:00.0: cxi0[hsn0] init_hw failed: -12", Source.SYSTEM)
    assert enomem and all(weight < 55 for _, _, weight in enomem)


@pytest.mark.parametrize("code", ["-1", "-2", "-3"])
def test_ucc_refusing_the_call_is_the_jobs_use_of_the_backend(code: str) -> None:
    status = {
        "-1": "Operation is not supported",
        "-2": "Not implemented",
        "-3": "Invalid parameter",
    }
    line = (
        f"[Rank 1][ProcessGroupUCC-0][COLL_POST]failed to init collective, error code {code}: "
        f"{status[code]}, system error code 0"
    )
    assert hits(line)["ucc.pg_unsupported"]["code"] == code
    assert "ucc.pg_error" in hits(line)
