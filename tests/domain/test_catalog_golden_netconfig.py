"""Golden tests for the network-configuration family (signatures-netconfig.toml).

A collective library's socket layer says in its own words when the two ends of a connection
disagree on what they connect (one node on NET/IB, the other on NET/Socket) or when a rank
advertised a link-local address no other host can reach: the job's launch settings, every
retry fails the same way. Real lines (named beside each; NCCL's current formats from
src/misc/socket.cc and src/os/linux.cc) must match, and ordinary connection chatter must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_matches,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-netconfig.toml"
NAMESPACES = frozenset({"netconfig"})

REQUIRED: dict[str, Blame] = {
    "netconfig.nccl_transport_mismatch": Blame.APPLICATION,
    "netconfig.link_local_peer": Blame.APPLICATION,
    "netconfig.loopback_peer": Blame.SYMPTOM,  # the job's only when it spans nodes (context.py)
    "netconfig.loopback_coordinator": Blame.SYMPTOM,  # likewise (context.py)
    # normal on one node; the job's configuration only when it spans nodes (a context rule)
    "netconfig.loopback_interface": Blame.INFO,
    "netconfig.link_local_interface": Blame.INFO,  # likewise (early.unreachable_interfaces)
    "netconfig.gloo_no_address": Blame.APPLICATION,
    "netconfig.gloo_address_family_mismatch": Blame.APPLICATION,  # mnet (session 23)
}

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_a_configuration_mistake_names_no_node() -> None:
    assert_no_node_action(FAMILY_KEYS)


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # NVIDIA/nccl-tests issue #188 (one node NET/IB, the other NET/Socket)
        "netconfig.nccl_transport_mismatch",
        "dgx-v07:16899:16961 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3",
        {"peer_type": "4", "expected": "3"},
    ),
    (  # NCCL 2.22 and later (src/misc/socket.cc, socketFinalizeAccept): INFO, then discarded
        "netconfig.nccl_transport_mismatch",
        "node-2:311:402 [0] NCCL INFO socketFinalizeAccept from 10.0.0.12<43215>: wrong socket"
        " type (peer 3 != expected 4 -- peer connected to wrong NCCL socket), discarding peer"
        " connection",
        {"peer": "10.0.0.12<43215>", "peer_type": "3", "expected": "4"},
    ),
    (  # aws-samples/aws-do-eks pull request #54 (EKS Pod Identity link pod-id-link0)
        "netconfig.link_local_peer",
        "ip-10-1-216-156:412:1630 [0] NCCL INFO socketPollConnect: connect to 169.254.170.23<46011>"
        " returned Connection refused, retrying (13/34)",
        {"peer": "169.254.170.23"},
    ),
    (  # NCCL src/os/linux.cc: the give-up form of the same connect
        "netconfig.link_local_peer",
        "node-1:88:120 [0] NCCL WARN socketPollConnect: connect to 169.254.170.23<46011>"
        " returned Connection refused, exceeded error retry count after 35 attempts",
        {"peer": "169.254.170.23"},
    ),
]


POSITIVE += [
    (  # pytorch/examples issue #812 (two nodes, gloo)
        "netconfig.loopback_peer",
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:769] connect"
        " [127.0.1.1]:25472: Connection refused",
        {"peer": "127.0.1.1"},
    ),
    (  # pytorch/gloo issue #223 (gloo's benchmark on two nodes)
        "netconfig.loopback_peer",
        "[<some path>/gloo/gloo/transport/tcp/pair.cc:761] connect [127.0.1.1]:60817: Connection"
        " refused",
        {"peer": "127.0.1.1"},
    ),
    (  # aws-samples/aws-do-eks pull request #69 (gloo's helpers.h give-up, every rank on loopback)
        "netconfig.loopback_peer",
        "RuntimeError: Gloo connectFullMesh failed with [/pytorch/third_party/gloo/gloo/transport/"
        "tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:"
        "<port> (rank=8, size=16, local=[127.0.0.1])",
        {"peer": "127.0.0.1"},
    ),
    (  # vllm-project/vllm issue #7074 (torch's ProcessGroupGloo on the second node)
        "netconfig.loopback_interface",
        "(RayWorkerWrapper pid=1978, ip=10.41.0.8) [rank9]:[W ProcessGroupGloo.cpp:721] Warning: "
        "Unable to resolve hostname to a (local) address. Using the loopback address as fallback. "
        "Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. (function "
        "operator())",
        {},
    ),
    (  # NVIDIA/nccl issue #1053 (NCCL_SOCKET_IFNAME=lo)
        "netconfig.loopback_interface",
        "axa:3048391:3048566 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
        {"iface": "lo", "address": "127.0.0.1"},
    ),
    (  # horovod/horovod issue #584 (NCCL 2.3's interface list on a two-node job)
        "netconfig.loopback_interface",
        "paigcr-b-gpu-1012:4152:4206 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>",
        {"iface": "lo", "address": "127.0.0.1"},
    ),
    (  # Megvii-BaseDetection/YOLOX issue #139 (GLOO_SOCKET_IFNAME=ib0 on a host without ib0)
        "netconfig.gloo_no_address",
        "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83]"
        " ifa != nullptr. Unable to find address for: ib0",
        {"target": "ib0"},
    ),
    (  # aws-samples/aws-do-eks pull request #51 (NCCL's exclusion syntax given to gloo)
        "netconfig.gloo_no_address",
        "RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable"
        " to find address for: ^lo",
        {"target": "^lo"},
    ),
    (  # Oneflow-Inc/libai issue #415 (a container's veth, link-local only, in the socket list)
        "netconfig.link_local_interface",
        "m5-autorl-test02:106986:107412 [0] NCCL INFO NET/Socket : Using [0]bond0:172.27.231.80<0> "
        "[1]veth3f1c2a7:fe80::e4a1:9cff:fe3d:1b72%veth3f1c2a7<0>",
        {"iface": "veth3f1c2a7"},
    ),
    (  # aws-samples/aws-do-eks pull request #54 (EKS Pod Identity's link in the socket list)
        "netconfig.link_local_interface",
        "ip-10-1-216-156:412:412 [0] NCCL INFO NET/Socket : Using [0]enp73s0:10.1.216.156<0>"
        " [1]pod-id-link0:169.254.170.23<0>",
        {"iface": "pod-id-link0", "address": "169.254.170.23"},
    ),
    (  # made from NVIDIA/nccl src/bootstrap.cc and net_ib's "; OOB %s" with the loopback chosen
        "netconfig.loopback_interface",
        "gpu-a01:311:311 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB lo:127.0.0.1<0>",
        {"oob_iface": "lo"},
    ),
]


POSITIVE += [
    (  # jax/_src/distributed.py's log line, rendered with coordinator_address="localhost:12345"
        # (the real line's form: "Connecting to JAX distributed service on usmocpm2m-446-055:12345")
        "netconfig.loopback_coordinator",
        "I0320 19:27:41.401081 140582565907968 distributed.py:119] Connecting to JAX distributed"
        " service on localhost:12345",
        {"peer": "localhost"},
    ),
    (  # ayaka14732/llama-2-jax issue #20 (coordinator_address="localhost" on two nodes)
        "netconfig.loopback_coordinator",
        "4: I external/xla/xla/pjrt/distributed/client.cc:107] Connecting to distributed JAX"
        " controller at localhost",
        {"peer": "localhost"},
    ),
    (  # gRPC's status text on the same barrier timeout: the coordinator answered on loopback
        "netconfig.loopback_coordinator",
        '3: :{"created":"@1782987612.403885374","description":"Error received from peer'
        ' ipv4:127.0.0.1:1234","file":"external/com_github_grpc_grpc/src/core/lib/surface/call.cc"}',
        {"peer": "127.0.0.1"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


NEGATIVE: list[tuple[str, str]] = [
    # the interface list names the link but connects nowhere (aws-do-eks PR #54): no connect
    # reads it (netconfig.link_local_interface, an info marker, does; see POSITIVE)
    (
        "netconfig.link_local_peer",
        "ip-10-1-216-156:412:412 [0] NCCL INFO NET/Socket : Using [0]enp73s0:10.1.216.156<0>"
        " [1]pod-id-link0:169.254.170.23<0>",
    ),
    # the instance-metadata endpoint is link-local on purpose and reached from the node itself
    (
        "*",
        "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL:"
        ' "http://169.254.169.254/latest/api/token"',
    ),
    # a routable peer refusing is not a configuration verdict of this family
    (
        "*",
        "node-1:88:120 [0] NCCL INFO socketPollConnect: connect to 10.1.217.41<46011>"
        " returned Connection refused, retrying (3/34)",
    ),
    ("*", "node-1:88:120 [0] NCCL INFO Bootstrap : Using eth0:10.1.217.41<0>"),
    # a routable gloo peer refusing is a peer not listening (gloo.connect_failed)
    ("*", "RuntimeError: [pair.cc:799] connect [172.31.71.170]:13195: Connection refused"),
    # a loopback address in an interface list connects nowhere (the interface choice is
    # netconfig.loopback_interface's, which weighs nothing on its own)
    ("netconfig.loopback_peer", "node-1:88:88 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>"),
    # loopback listed after the routable interface is not the interface chosen for peers
    ("*", "x:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.1.1<0> [1]lo:127.0.0.1<0>"),
    # an interface whose name starts with "lo" is not the loopback
    ("*", "node-1:88:88 [0] NCCL INFO Bootstrap : Using lo0:10.1.217.41<0>"),
    # a Java resolver's message of the same words is not gloo's enforce
    ("*", "java.net.UnknownHostException: Unable to find address for: gpu-a01"),
    # a coordinator every process can reach is no configuration mistake
    (
        "*",
        "I0320 19:27:41.401081 140582565907968 distributed.py:119] Connecting to JAX distributed"
        " service on usmocpm2m-446-055:12345",
    ),
    ("*", "Connecting to JAX distributed service on localhost.cluster.example:12345"),
    ("*", '"description":"Error received from peer ipv4:10.130.0.7:8476"'),
    # gloo's give-up naming a routable peer is gloo.connect_failed's alone
    ("*", "timed out connecting: SO_ERROR: Connection refused, remote=[10.1.217.41]:14215"),
    # routable interfaces, and a link-local peer named in a connect (link_local_peer's)
    (
        "netconfig.link_local_interface",
        "gpu:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0> [1]eth1:10.1.0.5<0>",
    ),
    (
        "netconfig.link_local_interface",
        "gpu-a01:1:1 [0] NCCL INFO Bootstrap : Using ib0:10.20.0.11<0>",
    ),
]


def test_the_loopback_interface_decides_nothing_on_its_own() -> None:
    # on one node the loopback is where a job is meant to talk (wtdcode/vllm-backport issue #14,
    # a healthy 8-GPU box prints the warning): only the job's node count can make it a cause
    sig = CATALOG.signatures["netconfig.loopback_interface"]
    assert sig.blame is Blame.INFO
    assert sig.weight == 0


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
