"""Golden tests for recent NCCL (2.23-2.28) and PyTorch (2.5-2.10) texts
(signatures-ncclnew.toml, catalog round 8).

Lines from NCCL's multi-node NVLink/IMEX check, GIN, IB transport, proxy, plugin loading and RAS,
and from PyTorch's ProcessGroupNCCL (abort, heartbeat monitor, flight recorder, teardown), the
libuv TCPStore server, DTensor and torchrun's agent go through the scanner's own matcher. Real
lines are cited beside them; the others are rendered from the emitter's format string (said so
beside them) where no public line was found. No entry of the family blames this node's
hardware; look-alikes must not match, and the lines the older families read stay theirs.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    Golden,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-ncclnew.toml"
NAMESPACES = frozenset({"nccl", "c10d", "torch"})
KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "nccl.mnnvl_imex_channel_missing": Blame.APPLICATION,
    "nccl.mnnvl_imex_not_ready": Blame.TRANSIENT,
    "nccl.mem_import_failed": Blame.SYMPTOM,
    "nccl.multi_rank_same_gpu": Blame.APPLICATION,
    "nccl.gin_unavailable": Blame.APPLICATION,
    "nccl.gin_error": Blame.SYMPTOM,
    "nccl.ib_incompatible_devices": Blame.APPLICATION,
    "nccl.ib_cqe_error": Blame.SYMPTOM,
    "nccl.proxy_poll_failed": Blame.SYMPTOM,
    "nccl.comm_used_before_ready": Blame.APPLICATION,
    "nccl.plugin_load_note": Blame.INFO,
    "nccl.ras_gather_incomplete": Blame.SYMPTOM,
    "nccl.ras_version_mismatch": Blame.APPLICATION,
    "nccl.ras_dead_peer_returned": Blame.INFO,
    "c10d.nccl_abort_timeout": Blame.SYMPTOM,
    "c10d.gil_hang_suspect": Blame.SYMPTOM,
    "c10d.nccl_monitor_disabled": Blame.SYMPTOM,
    "c10d.remote_error_flag": Blame.SYMPTOM,
    "c10d.flight_recorder_note": Blame.INFO,
    "c10d.teardown_note": Blame.INFO,
    "c10d.store_libuv_bind_failed": Blame.SYMPTOM,
    "c10d.store_libuv_client_error": Blame.SYMPTOM,
    "torch.dtensor_mixed_tensor": Blame.APPLICATION,
    "torch.elastic_agent_finished": Blame.INFO,
    "nccl.coll_trace": Blame.INFO,
    "nccl.socket_foreign_connection": Blame.TRANSIENT,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # rendered from NVIDIA/nccl src/mnnvl.cc (both WARNs of ncclMnnvlCheck)
    ("gb200-a01:3021:3021 [0] NCCL WARN MNNVL (cliqueSize 4) is available but not working on "
     "this system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set "
     "NCCL_MNNVL_ENABLE=0 to ignore this issue.", "nccl.mnnvl_imex_channel_missing",
     {"clique": "4"}),
    ("gb200-a01:3021:3021 [0] NCCL WARN MNNVL (cliqueSize 18) is available but not working on "
     "this system. Check the IMEX configuration (nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to "
     "ignore this issue.", "nccl.mnnvl_imex_not_ready", {"clique": "18"}),
    # rendered from src/mem_manager.cc
    ("gpu-a02:71174:72905 [4] NCCL WARN MemManager: cuMemImportFromShareableHandle failed for "
     "ptr=0x7f3a40000000 (curet=1)", "nccl.mem_import_failed", {"code": "1"}),
    # NVIDIA/nccl issue #1716 (a comment quoting both texts from a MIG run; prefixes rendered)
    ("gpu-a02:71174:71174 [0] NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
     "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.", "nccl.multi_rank_same_gpu", {}),
    ('gpu-a02:71174:71174 [0] NCCL WARN NCCL_NVLS_ENABLE has been set to "1" and communicator '
     "has multiple ranks using the same NVML device. This is not compatible with "
     "NCCL_NVLS_ENABLE=1.", "nccl.multi_rank_same_gpu", {}),
    # rendered from src/gin/gin_host.cc, gin_host_proxy.cc and src/init.cc
    ("gpu-a02:71174:71174 [0] NCCL WARN No GIN-capable devices found.", "nccl.gin_unavailable",
     {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN GIN not supported.", "nccl.gin_unavailable", {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN GIN is disabled.", "nccl.gin_unavailable", {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN Communicator does not support symmetric memory!",
     "nccl.gin_unavailable", {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN GIN strong signals are required, but the GIN plugin does "
     "not support them.", "nccl.gin_unavailable", {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN GIN Proxy: RMA backend not found", "nccl.gin_unavailable",
     {}),
    ("gpu-a02:71174:72905 [4] NCCL WARN GIN Error detected", "nccl.gin_error", {}),
    # rendered from src/transport/net_ib/connect.cc and init.cc
    ("gpu-a02:71174:72905 [4] NCCL WARN NET/IB : Attempted to connect incompatible devices: "
     "[0]mlx5_0:1/IB and [1]mlx5_4:1/RoCE. Try selecting NICs of only one link type using "
     "NCCL_IB_HCA", "nccl.ib_incompatible_devices", {}),
    ("gpu-a02:71174:72905 [4] NCCL WARN NET/IB : Remote IB device is incompatible with the local "
     "[1]mlx5_4:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
     "nccl.ib_incompatible_devices", {}),
    ("gpu-a02:71174:71174 [0] NCCL WARN NET/IB : Attempted to merge incompatible devices: "
     "[0]mlx5_0:1/IB and [4]mlx5_4:1/RoCE. Try selecting NICs of only one link type using "
     "NCCL_IB_HCA", "nccl.ib_incompatible_devices", {}),
    # rendered from src/transport/net_ib/p2p.cc, src/proxy.cc and src/init.cc
    ("gpu-a02:71174:72905 [4] NCCL WARN NET/IB: Got CQE with error (devIndex=0, "
     "req=0x7f3a4c0d2e00, comm=0x7f3a4c001200 (send), wr_id=140545, qp_num=1187)",
     "nccl.ib_cqe_error", {"dev_index": "0", "side": "send"}),
    ("gpu-a02:71174:72910 [4] NCCL WARN [Proxy Service] Poll failed: Bad file descriptor",
     "nccl.proxy_poll_failed", {"error": "Bad file descriptor"}),
    ("gpu-a02:71174:71174 [0] NCCL WARN Attempt to use communicator before the previous "
     "operation returned ncclSuccess", "nccl.comm_used_before_ready", {}),
    # rendered from src/plugin/plugin_open.cc, profiler.cc and tuner.cc
    ("gpu-a02:71174:71174 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so",
     "nccl.plugin_load_note", {"library": "libnccl-net.so"}),
    ("gpu-a02:71174:71174 [0] NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so",
     "nccl.plugin_load_note", {"library": "libnccl-tuner.so"}),
    ("gpu-a02:71174:71174 [0] NCCL INFO External profiler plugin libnccl-profiler-inspector.so "
     "is unsupported", "nccl.plugin_load_note", {}),
    # NCCL 2.x src/net.cc before the plugin rework: the same INFO notes, dlerror's text quoted
    ("gpu-a01:2041:2041 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
     "libnccl-net.so: cannot open shared object file: No such file or directory",
     "nccl.plugin_load_note", {}),
    ("z292:58192:58192 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : librccl-net.so: "
     "cannot open shared object file: No such file or directory : when loading librccl-net.so",
     "nccl.plugin_load_note", {}),
    ("gpu-a01:2041:2041 [0] NCCL INFO NET/Plugin : No plugin found, using internal "
     "implementation", "nccl.plugin_load_note", {}),
    ("gpu-a01:2041:2041 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
     "object file: No such file or directory No plugin found (libnccl-net.so), using internal "
     "implementation", "nccl.plugin_load_note", {}),
    # rendered from src/ras/client_support.cc (the ncclras report) and src/ras/ras.cc
    (" Warning: missing data from 2 processes (received from 14, expected 16)",
     "nccl.ras_gather_incomplete", {"missing": "2", "received": "14", "expected": "16"}),
    (" Warning: encountered 1 communication timeout while gathering data",
     "nccl.ras_gather_incomplete", {"timeouts": "1"}),
    ("gpu-a02:71174:71190 [0] NCCL WARN NCCL version mismatch with remote peer 10.1.4.12<40375> "
     "(local: 2.27.5, remote 2.26.2)", "nccl.ras_version_mismatch",
     {"peer": "10.1.4.12<40375>", "local": "2.27.5", "remote": "2.26.2"}),
    ("gpu-a02:71174:71190 [0] NCCL INFO RAS connection from peer 10.1.4.12<40375> that is "
     "considered dead!", "nccl.ras_dead_peer_returned", {"peer": "10.1.4.12<40375>"}),
    # rendered from pytorch/pytorch ProcessGroupNCCL.cpp (public job logs quote the first
    # one as "[rank2]: Future for ProcessGroup abort timed out after 600000 ms")
    ("[rank3]:[E813 12:26:00.651268916 ProcessGroupNCCL.cpp:1321] [PG ID 1 PG GUID 1 Rank 3] "
     "Future for ProcessGroup abort timed out after 600000 ms", "c10d.nccl_abort_timeout",
     {"ms": "600000"}),
    ("[rank2]: Future for ProcessGroup abort timed out after 600000 ms",
     "c10d.nccl_abort_timeout", {"ms": "600000"}),
    ("[rank0]:[E1011 03:47:24.171963221 ProcessGroupNCCL.cpp:1452] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] Could not acquire GIL within 300 ms on exit, possible GIL induced "
     "hang", "c10d.gil_hang_suspect", {"ms": "300"}),
    ("[rank0]:[E1011 03:55:24.171963221 ProcessGroupNCCL.cpp:1530] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] ProcessGroupNCCL monitor thread is disabled, but would have "
     "terminated the processafter attempting to dump debug info, due to collective timeout or "
     "exception.", "c10d.nccl_monitor_disabled", {"reason": "collective timeout or exception"}),
    ("[rank5]:[E1011 03:47:24.171963221 ProcessGroupNCCL.cpp:1810] [PG ID 0 PG GUID "
     "0(default_pg) Rank 5]  remote error detected from rank: 3", "c10d.remote_error_flag",
     {"rank": "3"}),
    ("[rank0]:[I1011 03:47:25.171963221 ProcessGroupNCCL.cpp:1224] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] ProcessGroupNCCL dumping nccl trace to /tmp/nccl_trace_rank_0",
     "c10d.flight_recorder_note", {"path": "/tmp/nccl_trace_rank_0"}),
    ("[rank0]:[I1011 03:47:25.171963221 ProcessGroupNCCL.cpp:1227] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] Flight Recorder trace successfully dumped.",
     "c10d.flight_recorder_note", {}),
    ("[rank0]:[I1011 03:47:25.171963221 ProcessGroupNCCL.cpp:1418] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] Finished flight recorder successfully. Output can be analyzed using "
     "the fr_trace script.", "c10d.flight_recorder_note", {}),
    ("[rank2]:[W813 12:26:30.256219309 ProcessGroupNCCL.cpp:2114] [PG ID 1 PG GUID 1 Rank 2] "
     "timed out after waiting for 60000ms flight recorder dumps to finish.",
     "c10d.flight_recorder_note", {}),
    # anhvth/opensloth issue #17 (description)
    ("[rank0]:[W730 15:32:17.841273251 ProcessGroupNCCL.cpp:1479] Warning: WARNING: "
     "destroy_process_group() was not called before program exit, which can leak resources. For "
     "more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function "
     "operator())", "c10d.teardown_note", {}),
    # rendered from ProcessGroupNCCL.cpp (the destructor's and the watchdog's notes)
    ("WARNING: NCCL communicator hasn't been destroyed. This may cause memory leaks. To avoid the "
     "risk, you can call `destroy_process_group` during normal exit or `_abort_process_group` "
     "when handling failures.", "c10d.teardown_note", {}),
    ("main process destroyed cuda before watchdog loop exited, terminating watchdog.",
     "c10d.teardown_note", {}),
    # rendered from TCPStoreLibUvBackend.cpp
    ("torch.distributed.DistNetworkError: The server socket has failed to bind. port: 29500, "
     "useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
     "c10d.store_libuv_bind_failed", {"port": "29500", "name": "EADDRINUSE"}),
    ("[W1011 03:47:24.171963221 TCPStoreLibUvBackend.cpp:137] [c10d - debug] Write to client "
     "failed. code:-32 name:EPIPE desc:broken pipe.", "c10d.store_libuv_client_error",
     {"name": "EPIPE"}),
    ("[W1011 03:47:24.171963221 TCPStoreLibUvBackend.cpp:120] [c10d] Error processing client "
     "message: Invalid string size. size: 5208208757389214273, max: 8192",
     "c10d.store_libuv_client_error", {}),
    # huggingface/accelerate issue #3565 (title); meta-pytorch/torchtune issue #2856
    ("[rank0]: RuntimeError: aten.cat.default: got mixed torch.Tensor and DTensor, need to "
     "convert all torch.Tensor to DTensor before calling distributed operators!",
     "torch.dtensor_mixed_tensor", {"op": "aten.cat.default"}),
    ("[rank1]: RuntimeError: aten.mm.default: got mixed torch.Tensor and DTensor, need to convert "
     "all torch.Tensor to DTensor before calling distributed operators!",
     "torch.dtensor_mixed_tensor", {"op": "aten.mm.default"}),
    # rendered from torch/distributed/elastic/agent/server/api.py
    ("[default] worker group successfully finished. Waiting 300 seconds for other agents to "
     "finish.", "torch.elastic_agent_finished", {"role": "default", "seconds": "300"}),
    ("Rendezvous gracefully exited: The node 'gpu-a02_4242_0' has closed the rendezvous.",
     "torch.elastic_agent_finished", {}),
    # ROCm/rccl issue #429 (the description's trace, rank 2's line of the maintainer's reading)
    ("h03r3n06:45012:45012 [2] NCCL INFO AllGather: opCount 28c sendbuff 0x7f1fd894af00 recvbuff "
     "0x7f1ed1c00100 count 59205120 datatype 0 op 0 root 0 comm 0x559c24b55610 [nranks=4] stream "
     "0x559c248a3630", "nccl.coll_trace",
     {"emitter": "h03r3n06:45012", "op": "AllGather", "opcount": "28c", "count": "59205120",
      "nranks": "4", "comm": "0x559c24b55610"}),
    # rendered from NVIDIA/nccl's format: a point-to-point call prints its peer as the root
    ("gpu-n01:8812:8812 [3] NCCL INFO Send: opCount 1f sendbuff 0x7f00 recvbuff 0x7f00 count 1 "
     "datatype 7 op 0 root 4 comm 0x5501 [nranks=16] stream 0x5602", "nccl.coll_trace",
     {"op": "Send", "root": "4"}),
    # rendered from ROCm/rccl's format with its " task %d globalrank %d" tail
    ("gpu-n01:8812:8812 [3] NCCL INFO AllReduce: opCount 1f sendbuff 0x7f00 recvbuff 0x7f00 count "
     "1 datatype 7 op 0 root 0 comm 0x5501 [nranks=16] stream 0x5602 task 0 globalrank 11",
     "nccl.coll_trace", {"op": "AllReduce", "globalrank": "11"}),
    # NVIDIA/nccl issue #1808 (an HTTP request on the proxy's port: "GET /met" as bytes)
    ("worker-2:166:1226 [0] misc/socket.cc:484 NCCL WARN socketFinalizeAccept: wrong magic "
     "74656d2f20544547 != 7970663b906d70b9", "nccl.socket_foreign_connection",
     {"magic": "74656d2f20544547", "expected": "7970663b906d70b9"}),
    # the same check in an older socket.cc (a second job's ranks on the same NCCL_COMM_ID port)
    ("31a6b39aaaf4:367:372 [0] misc/socket.cc:432 NCCL WARN socketFinalizeAccept: wrong magic "
     "ba8657f4d3a5a02a != 134eccad5a34ad33", "nccl.socket_foreign_connection", {}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # NCCL's INFO line when MNNVL works (rendered from src/mnnvl.cc)
    ("nccl.mnnvl_imex_not_ready", "gb200-a01:3021:3021 [0] NCCL INFO MNNVL 1 cliqueId 7f0 "
     "cliqueSize 18 cliqueRank 3 nvlDomainSize 18"),
    ("nccl.mnnvl_imex_channel_missing", "gb200-a01:3021:3021 [0] NCCL WARN MNNVL (cliqueSize 18) "
     "is available but not working on this system. Check the IMEX configuration (nvidia-imex-ctl "
     "-N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue."),
    # the older duplicate-GPU check is nccl.duplicate_gpu's (horovod/horovod issue #3929)
    ("nccl.multi_rank_same_gpu", "[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN "
     "Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000"),
    # a GIN sentence outside a NCCL WARN
    ("nccl.gin_unavailable", "GIN not supported."),
    # the failed completion's status line stays nccl.ib_completion_error's
    ("nccl.ib_cqe_error", "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<55921> with "
     "status=12 opcode=1 len=0 vendor err 129 (Send)"),
    # the RAS communicators' part stays nccl.ras_unreachable's
    ("nccl.ras_gather_incomplete", "  Missing communicator data from 2 job processes"),
    # the heartbeat monitor's own kill line stays c10d.nccl_monitor_terminate's
    ("c10d.nccl_monitor_disabled", "[PG ID 0 PG GUID 0(default_pg) Rank 0] Terminating the "
     "process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang."),
    # the older backend's listen failure stays c10d.store_listen_failed's
    ("c10d.store_libuv_bind_failed", "The server socket has failed to listen on any local network "
     "address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already "
     "in use"),
    # a worker group that failed is elastic.worker_group_failed's
    ("torch.elastic_agent_finished", "[default] Worker group failed"),
    # the agent's normal progress line (rendered from api.py)
    ("torch.elastic_agent_finished", "[default] Rendezvous complete for workers. Result:"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_entry_of_the_family_names_a_node() -> None:
    """None of these texts says this node's device failed: no hardware blame, no node action."""
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key
    assert_no_node_action(KEYS)


def test_symptoms_stay_below_every_threshold() -> None:
    """What a rank says about others or about a failure already under way never decides alone."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= 25, key
        if sig.blame is Blame.INFO:
            assert sig.weight == 0, key


def test_the_older_families_keep_their_lines() -> None:
    """Lines the older families read are not taken by this one."""
    lines = {
        "nccl.heartbeat_monitor": "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat "
        "monitor timed out! Process will be terminated after dumping debug info.",
        "c10d.nccl_debug_dump": "[rank0]:[E ProcessGroupNCCL.cpp:1175] [PG ID 0 PG GUID 0 Rank 0] "
        "ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1",
        "nccl.ras_peer_dead": "  2 job processes are considered dead (unreachable via the RAS "
        "network)",
    }
    for key, line in lines.items():
        matched = set(hits(line))
        assert key in matched, (key, sorted(matched))
        assert not matched & KEYS, (key, sorted(matched & KEYS))


def test_imex_not_ready_is_a_retry_not_a_node() -> None:
    line = CATALOG.signatures["nccl.mnnvl_imex_not_ready"].example
    assert found(line, Source.LOGS) == [("nccl.mnnvl_imex_not_ready", Blame.TRANSIENT, 45)]
