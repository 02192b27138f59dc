"""Golden lines from the fifth tracker sweep of issue 14 over PyTorch distributed 2.x: texts
that say the job's own set-up is wrong (a torch build without NCCL or libuv, a process that
sees no GPU, a launch that set no RANK or WORLD_SIZE, a DeviceMesh larger than the world), the
notes 2.6+ prints on every healthy rank, and the lines a survivor prints when a peer or the
store's host has gone.

Each line is quoted in the public thread named beside it and goes through the scanner's own
matcher; the blame is pinned to what the emitter means. Look-alikes from the same code paths
that say something else must not match; a survivor's line never reads as the application's.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, golden_line_checks

A, S, N = Blame.APPLICATION, Blame.SYMPTOM, Blame.INFO  # N: a note (info)

BLAME: dict[str, Blame] = {
    "c10d.device_guess_note": N,
    "c10d.libuv_unavailable": A,
    "c10d.nccl_no_gpus": A,
    "c10d.nccl_not_built": A,
    "c10d.env_rendezvous_unset": A,
    "c10d.device_mesh_invalid": A,
    "c10d.store_gone_dump_check": S,
    "c10d.store_wait_poll_timeout": S,
    "c10d.store_connect_timeout_retry": N,
    "c10d.env_var_note": N,
    "nccl.comm_id_no_subnet": A,
    "nccl.socket_size_mismatch": A,
}

# (real line, key, captures); the thread is named above each
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # EvolvingLMMs-Lab/lmms-eval#670 (torch 2.6-2.8 wording)
    (
        "[rank1]:[W511 10:03:36.323250251 ProcessGroupNCCL.cpp:4715] [PG ID 0 PG GUID 0 Rank 1]  "
        "using GPU 1 as device used by this process is currently unknown. This can potentially "
        "cause a hang if this rank to GPU mapping is incorrect. You can pecify device_id in "
        "init_process_group() to force use of a particular device.",
        "c10d.device_guess_note",
        {"gpu": "1"},
    ),
    # pytorch/pytorch#178977 (the 2.9+ wording)
    (
        "Guessing device ID based on global rank. This can cause a hang if rank to GPU mapping "
        "is heterogeneous. You can specify device_id in init_process_group()",
        "c10d.device_guess_note",
        {},
    ),
    # hiyouga/LlamaFactory#8566 and meta-llama/llama-models#348 (Windows wheels under torchrun)
    (
        "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built without "
        "libuv support, run with USE_LIBUV=0 to disable it.",
        "c10d.libuv_unavailable",
        {},
    ),
    # the 2.2-2.3 wording, rendered from pytorch/pytorch pull request #105672's format
    (
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support",
        "c10d.libuv_unavailable",
        {},
    ),
    # FangyunWei/SLRT#65 (2.x raises it as a ValueError)
    (
        "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        "c10d.nccl_no_gpus",
        {},
    ),
    # OFA-Sys/OFA#304 (1.x, under fairseq's distributed_init)
    (
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        "c10d.nccl_no_gpus",
        {},
    ),
    # OFA-Sys/Chinese-CLIP#279 (a Windows machine)
    ("RuntimeError: Distributed package doesn't have NCCL built in", "c10d.nccl_not_built", {}),
    # pytorch/pytorch#159742 (the warning before the error)
    (
        "D:\\Python39\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py:613: "
        "UserWarning: Attempted to get default timeout for nccl backend, but NCCL support is not "
        "compiled",
        "c10d.nccl_not_built",
        {},
    ),
    # meta-llama/llama#391 (a torchrun script started with plain python)
    (
        "ValueError: Error initializing torch.distributed using env:// rendezvous: environment "
        "variable RANK expected, but not set",
        "c10d.env_rendezvous_unset",
        {"variable": "RANK"},
    ),
    # pytorch/pytorch#39832
    (
        "ValueError: Error initializing torch.distributed using env:// rendezvous: environment "
        "variable MASTER_ADDR expected, but not set",
        "c10d.env_rendezvous_unset",
        {"variable": "MASTER_ADDR"},
    ),
    # pytorch/pytorch#111452 (a 3x3 mesh)
    (
        "RuntimeError: Mesh should not be bigger than default world size, but found 9 ranks!",
        "c10d.device_mesh_invalid",
        {"ranks": "9"},
    ),
    # sgl-project/sglang#20859
    (
        "[rank8]:[W318 10:00:41.929037914 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 8] "
        'Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut '
        "down too early), with error: Connection reset by peer",
        "c10d.store_gone_dump_check",
        {},
    ),
    # Dere-Wah/AI-MarioKart64#3
    (
        "[rank3]:[W625 23:35:35.311127584 ProcessGroupNCCL.cpp:1662] [PG ID 0 PG GUID "
        '0(default_pg) Rank 3] Failed to check the "should dump" flag on TCPStore, (maybe '
        "TCPStore server has shut down too early), with error: failed to recv, got 0 bytes",
        "c10d.store_gone_dump_check",
        {},
    ),
    # kohya-ss/sd-scripts#1601 (every rank while one cached latents)
    (
        "[rank1]:[W915 17:32:18.928929035 socket.cpp:428] [c10d] While waitForInput, poolFD "
        "failed with (errno: 0 - Success).",
        "c10d.store_wait_poll_timeout",
        {},
    ),
    # vllm-project/vllm pull request #10502 (the 2.3+ pair)
    (
        "[rank1]:[W411 00:33:04.667467898 socket.cpp:464] [c10d] waitForInput: poll for socket "
        "SocketImpl(fd=135, addr=[localhost]:10002, remote=[localhost]:14581) returned 0, likely "
        "a timeout",
        "c10d.store_wait_poll_timeout",
        {},
    ),
    (
        "[rank1]:[W411 00:33:04.669049648 socket.cpp:489] [c10d] waitForInput: socket "
        "SocketImpl(fd=135, addr=[localhost]:10002, remote=[localhost]:14581) timed out after "
        "300000ms",
        "c10d.store_wait_poll_timeout",
        {},
    ),
    # vllm-project/vllm-metal#58
    (
        "[W106 01:33:52.536577000 socket.cpp:942] [c10d] The server socket on "
        "[::ffff:10.253.40.30]:55872 has timed out, will retry.",
        "c10d.store_connect_timeout_retry",
        {},
    ),
    # NVIDIA/physicsnemo#568 (torch 2.2+, every rank of a healthy run)
    (
        "[W Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is "
        "deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
        "c10d.env_var_note",
        {"variable": "NCCL_ASYNC_ERROR_HANDLING"},
    ),
    # pytorch/pytorch pull request #114432
    (
        "[rank3]:[W Utils.hpp:164] Warning: Environment variable NCCL_DESYNC_DEBUG is "
        "deprecated; use TORCH_NCCL_DESYNC_DEBUG instead (function getCvarBool)",
        "c10d.env_var_note",
        {"replacement": "TORCH_NCCL_DESYNC_DEBUG"},
    ),
    # NVIDIA/nccl#1176 (with the stray "0" c10d prints)
    (
        "3: [rank24]:[W ProcessGroupNCCL.cpp:2302] Warning: 0TORCH_NCCL_AVOID_RECORD_STREAMS=1 "
        "has no effect for point-to-point collectives. (function operator())",
        "c10d.env_var_note",
        {},
    ),
    # NVIDIA/nccl#929 (a PyTorch job in Docker bridge networks with NCCL_COMM_ID set)
    (
        "d9beab19e6d2:1791:1791 [0] misc/socket.cc:237 NCCL WARN Net : No interface found in the "
        "same subnet as remote address a.b.c.d0<1778>",
        "nccl.comm_id_no_subnet",
        {"remote": "a.b.c.d0"},
    ),
    # pytorch/torchtitan#1681 (NCCL 2.2x with its hint; pipeline parallelism over 4 nodes)
    (
        "[2025-09-01 21:12:17] nid001097:5838:6020 [0] transport/net_socket.cc:561 NCCL WARN "
        "NET/Socket : peer 10.249.23.66<41138> message truncated : receiving 8 bytes instead of "
        "4. If you believe your socket network is in a healthy state, there may be a mismatch in "
        "collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks",
        "nccl.socket_size_mismatch",
        {"received": "8", "expected": "4"},
    ),
    # NVIDIA/nccl#626 (NCCL 2.10, a PyTorch job on two machines)
    (
        "transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 192.168.161.30<59210> message "
        "truncated : receiving 1048576 bytes instead of 65536",
        "nccl.socket_size_mismatch",
        {"received": "1048576", "expected": "65536"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the barrier's own guess (2.4+) is c10d.barrier_device_guess, not this note
    (
        "c10d.device_guess_note",
        "[W404 00:15:21.693690333 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using "
        "GPU 0 to perform barrier as devices used by this process are currently unknown.",
    ),
    # a store built with the flag off says nothing
    ("c10d.libuv_unavailable", "TCPStore(host_name, port, world_size, use_libuv=False)"),
    # ProcessGroupNCCL's start-up summary on a healthy rank
    (
        "c10d.nccl_no_gpus",
        "[PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL initialization options: size: 8, global "
        "rank: 0, TIMEOUT(ms): 600000",
    ),
    ("c10d.nccl_not_built", "NCCL version 2.21.5+cuda12.4"),
    # a launcher printing the variables it set
    ("c10d.env_rendezvous_unset", "MASTER_ADDR=10.0.0.1 MASTER_PORT=29500 WORLD_SIZE=16 RANK=3"),
    # torchtitan announcing the mesh it builds (pytorch/torchtitan pull request #27)
    ("c10d.device_mesh_invalid", "Building 2-D device mesh with ['dp', 'sp'], [2, 4]"),
    # the flight recorder's own start is c10d.nccl_debug_dump
    (
        "c10d.store_gone_dump_check",
        "[PG ID 0 PG GUID 0(default_pg) Rank 7] ProcessGroupNCCL preparing to dump debug info. "
        "Include stack trace: 1",
    ),
    # a poll still in progress is not the timeout
    (
        "c10d.store_wait_poll_timeout",
        "[c10d] waitForInput: poll for socket SocketImpl(fd=5) returned operation_in_progress "
        "before a timeout",
    ),
    # the connection-refused retry is c10d.store_connect_retry's
    (
        "c10d.store_connect_timeout_retry",
        "[W socket.cpp:634] The server socket on [localhost]:29501 is not yet listening (errno: "
        "111 - Connection refused), will retry.",
    ),
    # the TRACE line of a successful match names the interface it found
    (
        "nccl.comm_id_no_subnet",
        "NCCL INFO NET : Found interface eth0:10.0.0.5<0> in the same subnet as remote address "
        "10.0.0.1<29500>",
    ),
    # a variable the job sets is no deprecation note
    ("c10d.env_var_note", "NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0"),
    # a failed send or recv on the socket names no sizes: nccl.socket_progress_error's
    (
        "nccl.socket_size_mismatch",
        "gpu-c02:40022:40107 [3] transport/net_socket.cc:325 NCCL WARN NET/Socket : socket "
        "progress error",
    ),
    # the bootstrap's truncation (mixed NCCL versions) is nccl.bootstrap_truncated's
    (
        "nccl.socket_size_mismatch",
        "1: compute-st-p4de24xlarge-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : "
        "received 256 bytes instead of 4",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_none_acts_on_a_node() -> None:
    """None of these lines says a device failed: none may act on the node it was printed on."""
    for key in BLAME:
        assert CATALOG.signatures[key].node_action.value == "none", key


def test_set_up_errors_outweigh_the_generic_exception() -> None:
    """c10d's set-up texts arrive as Python exceptions; each must say more than python.exception
    (application 50) does, or the entry adds nothing."""
    generic = CATALOG.signatures["python.exception"].weight
    for key, blame in BLAME.items():
        if blame is A and key.startswith("c10d."):
            assert CATALOG.signatures[key].weight > generic, key


def test_survivor_lines_weigh_little() -> None:
    """A peer or the store's host gone, or a wait that ran out, is where to look, not a cause:
    these weigh less than the collective timeouts they come with."""
    for key in ("c10d.store_gone_dump_check", "c10d.store_wait_poll_timeout"):
        assert CATALOG.signatures[key].weight <= 20, key
