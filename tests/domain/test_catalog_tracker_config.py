"""Golden lines from the fourth tracker sweep of issue 14 over distributed jobs whose setup, not
a node, broke them: the loopback interface chosen on a job spanning nodes (torch's gloo fallback
warning, NCCL's interface lines, gloo's give-up naming a loopback peer), an interface name gloo
cannot find, NCCL_ALGO / NCCL_PROTO forced onto collectives they do not fit, NCCL's bootstrap
connects in releases before 2.8, the c10d socket's harmless IPv6 notes, and a DataLoader worker
dying of SIGBUS, which a /dev/shm too small for it usually explains.

Each line is quoted from the public thread beside it and goes through the scanner's own matcher;
the blame is what the emitter means (an interface choice weighs nothing until the job's node
count speaks, a failed connect is a symptom, a worker's bus error is weak evidence of the job's
container). Two
end-to-end checks run the scanned lines through attribution: a loopback peer on a job spanning
nodes is its configuration, and on one node it is not.
"""

from __future__ import annotations

import io
from datetime import timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.records import Blame, Cause, Finding, JobRecord, Source
from domain.golden import SCANNER, T0, assert_no_node_action, golden_line_checks

A, S, INFO, T = Blame.APPLICATION, Blame.SYMPTOM, Blame.INFO, Blame.TRANSIENT

BLAME: dict[str, Blame] = {
    "netconfig.loopback_peer": S,
    "netconfig.loopback_interface": INFO,
    "netconfig.gloo_no_address": A,
    "nccl.no_algorithm": A,
    "nccl.socket_connect_legacy": S,
    "nccl.socket_connect_retry": INFO,
    "nccl.shm_exhausted": A,
    "c10d.store_connect_failed": T,
    "c10d.store_connect_retry": INFO,
    "torch.dataloader_bus_error": A,
    "c10d.barrier_device_guess": INFO,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # aws-samples/aws-do-eks pull requests #50 and #69 (vLLM's cross-node gloo group on
    # hostNetwork pods: every rank advertised 127.0.0.1; GLOO_SOCKET_IFNAME fixed it)
    (
        "RuntimeError: Gloo connectFullMesh failed with [/pytorch/third_party/gloo/gloo/transport/"
        "tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:"
        "<port> (rank=8, size=16, local=[127.0.0.1])",
        "netconfig.loopback_peer",
        {"peer": "127.0.0.1"},
    ),
    (
        "[rank8] Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection "
        "refused, remote=[127.0.0.1]:14215",
        "netconfig.loopback_peer",
        {"peer": "127.0.0.1"},
    ),
    # vllm-project/vllm issue #7074 (second node of two); wtdcode/vllm-backport issue #14 (one
    # healthy node: the same warning, which is why it weighs nothing alone)
    (
        "(RayWorkerWrapper pid=1978, ip=10.41.0.8) [rank9]:[W ProcessGroupGloo.cpp:721] Warning: "
        "Unable to resolve hostname to a (local) address. Using the loopback address as fallback. "
        "Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. (function "
        "operator())",
        "netconfig.loopback_interface",
        {},
    ),
    (
        "[rank7]:[W806 14:25:27.650991133 ProcessGroupGloo.cpp:524] Warning: Unable to resolve "
        "hostname to a (local) address. Using the loopback address as fallback. Manually set the "
        "network interface to bind to with GLOO_SOCKET_IFNAME. (function operator())",
        "netconfig.loopback_interface",
        {},
    ),
    # NVIDIA/nccl issue #1053 (NCCL_SOCKET_IFNAME=lo); horovod/horovod issue #584 (NCCL 2.3)
    (
        "axa:3048391:3048566 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
        "netconfig.loopback_interface",
        {"iface": "lo", "address": "127.0.0.1"},
    ),
    (
        "paigcr-b-gpu-1012:4152:4206 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>",
        "netconfig.loopback_interface",
        {"iface": "lo"},
    ),
    # Megvii-BaseDetection/YOLOX issue #139; AMD-AGI/Primus pull request #1063 names the same
    # failure for an IP address given where gloo wants an interface name
    (
        "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] "
        "ifa != nullptr. Unable to find address for: ib0",
        "netconfig.gloo_no_address",
        {"target": "ib0"},
    ),
    # NVIDIA/nccl issue #317 (NCCL_ALGO=Tree and a broadcast); NVIDIA/TensorRT-LLM issue #953
    (
        "dc:255756:255756 [3] enqueue.cc:1182 NCCL WARN Error : no algorithm/protocol available",
        "nccl.no_algorithm",
        {},
    ),
    # horovod/horovod issue #584 (NCCL 2.3's give-up on the two-node job above)
    (
        "paigcr-b-gpu-1012:4153:4209 [1] include/socket.h:361 NCCL WARN Call to connect timeout "
        ": Connection refused",
        "nccl.socket_connect_legacy",
        {"error": "Connection refused"},
    ),
    # Oneflow-Inc/oneflow issue #3586 (NCCL 2.7, a veth interface among the chosen ones)
    (
        "worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, "
        "retrying",
        "nccl.socket_connect_retry",
        {},
    ),
    # pytorch/torchtitan issue #853 (a CI container's 16 MiB /dev/shm; PyTorch's "Last error:")
    (
        "  Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)",
        "nccl.shm_exhausted",
        {"path": "/dev/shm/nccl-1YsMbG"},
    ),
    # vllm-project/vllm issue #2440 (no space between host and port)
    (
        "RuntimeError: The client socket has failed to connect to any network address of "
        "(0.15.4.33,39213).",
        "c10d.store_connect_failed",
        {"store": "0.15.4.33", "port": "39213"},
    ),
    # pytorch/pytorch issue #79388 (torch 1.12 via torch.distributed.run, a store never reached)
    (
        "[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to "
        "connect to (IP1, 2222).",
        "c10d.store_connect_failed",
        {"store": "IP1", "port": "2222"},
    ),
    # a healthy torchrun start on a host without IPv6, quoted in a public benchmark README
    (
        "[W socket.cpp:558] [c10d] The client socket cannot be initialized to connect to "
        "[jwb0198i.juwels]:6000 (errno: 97 - Address family not supported by protocol).",
        "c10d.store_connect_retry",
        {},
    ),
    # kohya-ss/sd-scripts issue #1925; verl-project/verl issue #752 (a hang after it there)
    (
        "[rank3]:[W325 11:49:30.413639546 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 3]  "
        "using GPU 0 to perform barrier as devices used by this process are currently unknown. "
        "This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify "
        "device_ids in barrier() to force use of a particular device, or call "
        "init_process_group() with a device_id.",
        "c10d.barrier_device_guess",
        {"gpu": "0"},
    ),
    # msr-fiddle/pipedream issue #28; microsoft/RepPoints issue #18 (fixed with --ipc=host)
    (
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).",
        "torch.dataloader_bus_error",
        {},
    ),
]

# (signal, a look-alike it must not match; "*" for none of this sweep's keys)
NEGATIVE: list[tuple[str, str]] = [
    # a routable peer refusing is gloo.connect_failed's (a peer not listening), not loopback
    (
        "netconfig.loopback_peer",
        "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/"
        "pair.cc:144] timed out connecting: SO_ERROR: Connection refused, remote=[10.0.0.7]:41717",
    ),
    # NCCL choosing a routable interface (NVIDIA/nccl issues #226 and #733)
    (
        "netconfig.loopback_interface",
        "ip-172-31-12-210:45305:45305 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.12.210<0>",
    ),
    (
        "netconfig.loopback_interface",
        "task-7700-94lc9:73:73 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB "
        "[2]mlx5_2:1/IB ; OOB eth0:172.17.80.45<0>",
    ),
    # the 2.8-2.13 wording of a failed connect is nccl.socket_peer_failed's
    (
        "nccl.socket_connect_legacy",
        "node:1:2 [0] misc/socket.cc:456 NCCL WARN Net : Connect to 192.168.1.2<35561> failed : "
        "No route to host",
    ),
    # a c10d debug line on a healthy start (NVIDIA/nccl issue #879)
    (
        "*",
        "pytorch [I socket.cpp:564] [c10d] The server socket has started to listen on [::]:23456.",
    ),
    # the main process's restatement of the worker's SIGBUS is process.crashed's
    (
        "torch.dataloader_bus_error",
        "RuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error.",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_none_of_these_acts_on_a_node() -> None:
    """A setup the job brought (an interface, a container limit) is never a node's fault."""
    assert_no_node_action(BLAME)


def _scan(node: str, lines: list[str]) -> list[Finding]:
    text = "\n".join(lines).encode() + b"\n"
    result = SCANNER.scan(io.BytesIO(text), node=node, source=Source.LOGS, reference=T0)
    return list(result.findings)


def _job(nodes: tuple[str, ...]) -> JobRecord:
    return JobRecord(scheduler="slurm", job="7", nodes=nodes, started=T0,
                     ended=T0 + timedelta(minutes=20), collected=T0 + timedelta(minutes=25),
                     state="FAILED")  # fmt: skip


# aws-samples/aws-do-eks pull request #69: the worker node's ranks reach for the leader's ranks
# at their own loopback; the leader's ranks time out waiting for them
_WORKER = [
    "RuntimeError: Gloo connectFullMesh failed with [/pytorch/third_party/gloo/gloo/transport/"
    "tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:"
    "14215 (rank=8, size=16, local=[127.0.0.1])",
]
_LEADER = [
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
    "waiting 1800000ms for recv operation to complete",
]


def test_a_loopback_peer_on_a_job_spanning_nodes_is_its_configuration() -> None:
    findings = _scan("w1", _WORKER) + _scan("l1", _LEADER)
    verdict = attribute(_job(("l1", "w1")), findings, [], {})
    assert (verdict.cause, verdict.suspect_nodes) == (Cause.APPLICATION, ())


def test_the_same_give_up_on_one_node_is_not_the_configuration() -> None:
    verdict = attribute(_job(("w1",)), _scan("w1", _WORKER), [], {})
    assert verdict.cause is not Cause.APPLICATION
