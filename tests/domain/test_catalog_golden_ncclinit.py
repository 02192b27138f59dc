"""Golden lines for NCCL's initialization and configuration errors (signatures-ncclinit.toml).
Each line is quoted from the public issue named beside it."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from importlib import resources

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame
from autorecover.parsing.scanning import Scanner
from domain.golden import scanned_blames as found

SCANNER = Scanner(builtin_catalog())
T0 = datetime(2026, 3, 4, tzinfo=UTC)
_DATA = resources.files("autorecover.domain") / "data" / "signatures-ncclinit.toml"
INIT_KEYS = frozenset(tomllib.loads(_DATA.read_text(encoding="utf-8"))["signature"])


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # horovod/horovod issue #3929; NVIDIA/Megatron-LM issue #661 (PyTorch's "Last error:")
        ("[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected "
         ": rank 2 and rank 0 both on CUDA device 1000", "nccl.duplicate_gpu", Blame.APPLICATION),
        ("Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000",
         "nccl.duplicate_gpu", Blame.APPLICATION),
        # EasonXiao-888/MambaTree issue #14
        ("Bootstrap : no socket interface found", "nccl.no_socket_interface", Blame.APPLICATION),
        # NVIDIA/nccl issue #1837 (NCCL_SOCKET_IFNAME naming a missing interface, NCCL 2.27)
        ("[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither "
         "AF_INET(2) nor AF_INET6(10)", "nccl.no_socket_interface", Blame.APPLICATION),
        # NVIDIA/nccl issues #379 (NCCL_TOPO_FILE) and #573 (WSL2 hides /sys PCI paths)
        ("graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found", "nccl.topology_xml",
         Blame.APPLICATION),
        ("SHJS-PF4ZKYLL:92777:92889 [0] graph/xml.cc:332 NCCL WARN Could not find real path of "
         "/sys/class/pci_bus/0000:01/../../0000:01:00.0", "nccl.topology_xml", Blame.APPLICATION),
        # NVIDIA/nccl issues #520 and #1020
        ("compute-dy-p4d24xlarge-5: compute-dy-p4d24xlarge-5:3049:4987 [3] graph/rings.cc:38 NCCL "
         "WARN Error : ring 2 does not loop back to start (2 != 3)", "nccl.ring_mismatch",
         Blame.APPLICATION),
        ("[7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).",
         "nccl.ring_mismatch", Blame.APPLICATION),
        # pytorch/ci-infra pull request #490; NVIDIA/nccl-tests issue #166; NVIDIA/nccl #1518
        ("[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:"
         "202235 [0] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE "
         "to 9637892 bytes, error: No space left on device (28)", "nccl.shm_exhausted",
         Blame.APPLICATION),
        ("ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory "
         "segment /dev/shm/nccl-KWfVyt (size 5967872)", "nccl.shm_exhausted", Blame.APPLICATION),
        ("ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend "
         "/dev/shm/nccl-fjwOOB to 5967876 bytes", "nccl.shm_exhausted", Blame.APPLICATION),
        ("[1] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment "
         "/dev/shm/nccl-NzwJ7O (size 9637888)", "nccl.shm_exhausted", Blame.APPLICATION),
        # NVIDIA/nccl issue #1589
        ("g148:14937:69361 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared "
         "memory segment /dev/shm/nccl-glnlGK (size 14156128), error: No such file or directory "
         "(2)", "nccl.shm_attach_failed", Blame.APPLICATION),
        # ray-project/ray_lightning issue #24; ai-dynamo/dynamo issue #1229 (PyTorch's wording)
        ("(pid=909608) z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA "
         "IPC handle : 217 peer access is not supported between these two devices",
         "nccl.p2p_unsupported", Blame.APPLICATION),
        ("RuntimeError: CUDA error: peer access is not supported between these two devices",
         "nccl.p2p_unsupported", Blame.APPLICATION),
        # zai-org/ImageReward issue #65: a device the container cannot open, NCCL goes on
        ("65826-86bd789679-2dxbs:80746:80746 [3] transport/net_ib.cc:149 NCCL WARN NET/IB : "
         "Unable to open device mlx5_59", "nccl.ib_open_device_failed", Blame.SYMPTOM),
        # NVIDIA/nccl issue #653 (NCCL_ALGO=CollNet); issue #1709 (PyTorch's "Last error:", 2.26)
        ("201: :41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol available",
         "nccl.no_algorithm", Blame.APPLICATION),
        ("238: [rank238]: Error : no algorithm/protocol available for function AllGather with "
         "datatype ncclInt8.", "nccl.no_algorithm", Blame.APPLICATION),
        # horovod/horovod issue #584 (NCCL 2.3); NVIDIA/nccl issue #111 (NCCL 2.0, no "NCCL ")
        ("paigcr-b-gpu-1012:4153:4209 [1] include/socket.h:361 NCCL WARN Call to connect timeout "
         ": Connection refused", "nccl.socket_connect_legacy", Blame.SYMPTOM),
        ("*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused",
         "nccl.socket_connect_legacy", Blame.SYMPTOM),
        # Oneflow-Inc/oneflow issue #3586 (NCCL 2.7, the retry before the give-up)
        ("worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, "
         "retrying", "nccl.socket_connect_retry", Blame.INFO),
        # NCCL's RAS report (ncclras): the NCCL user guide's troubleshooting/ras.rst; NVIDIA/nccl
        # issues #1911 and #1730, pull request #2263
        ("  1 job process is considered dead (unreachable via the RAS network)",
         "nccl.ras_peer_dead", Blame.SYMPTOM),
        ("   [2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1",
         "nccl.ras_peer_dead", Blame.SYMPTOM),
        ("  Missing communicator data from 1 job process", "nccl.ras_unreachable", Blame.SYMPTOM),
        ("  Missing communicator data from 1 rank", "nccl.ras_unreachable", Blame.SYMPTOM),
        ("  Encountered 2 communication timeouts while gathering communicator data",
         "nccl.ras_unreachable", Blame.SYMPTOM),
        ("  Asynchronous errors on 4 ranks", "nccl.ras_comm_error", Blame.SYMPTOM),
        ("  Communicator ranks have different AllGather operation counts", "nccl.ras_mismatch",
         Blame.INFO),
        ("  30 ranks have launched up to operation 640", "nccl.ras_mismatch", Blame.INFO),
        ("#0-0 (fa93daea854b060b) MISMATCH", "nccl.ras_mismatch", Blame.INFO),
        # NVIDIA/nccl issue #1050; Mellanox/nccl-rdma-sharp-plugins issue #151: CollNet falls back
        ("ib-vm-52:1047884:1048148 [7] sharp_plugin.c:320 NCCL WARN NET/IB : SHARP coll init "
         "error: Cannot create SHARP job(-11)", "nccl.collnet_fallback", Blame.INFO),
        ("ib-vm-41:1056918:1057186 [0] transport.cc:323 NCCL WARN Cannot initialize CollNet, "
         "using point-to-point network instead", "nccl.collnet_fallback", Blame.INFO),
        ("C25L19:19373:19491 [3] sharp_plugin.c:302 NCCL WARN SHARP group create: Streaming Tree "
         "lock failed (-18)", "nccl.collnet_fallback", Blame.INFO),
        # the CollNet form of the device-count check (NVIDIA/nccl src/init.cc)
        ("NCCL WARN Detected mixed local CollNet device counts across ranks (min 0, max 1). Set "
         "NCCL_IGNORE_COLLNET_MISMATCH=1 to continue.", "nccl.net_count_mismatch", Blame.SYMPTOM),
        # pytorch/pytorch pull request #155740 (teardown); NVIDIA/nccl issue #2331 (symmetric VA)
        ("[2025-06-17 21:49:04] devvm5552:3355146:3355146 [0] init.cc:2143 NCCL WARN commReclaim: "
         "cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1",
         "nccl.comm_cleanup_failed", Blame.SYMPTOM),
        ("[0] nccl/src/allocator.cc:229 (ncclSpaceAlloc) NCCL WARN Allocation failed. No suitable "
         "space found to accommodate size=0x2171600000 within limit=0x2d00000000",
         "nccl.symmetric_space_exhausted", Blame.APPLICATION),
    ],
)  # fmt: skip
def test_init_lines(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_a_ring_mismatch_alone_does_not_decide_but_a_duplicate_gpu_does() -> None:
    catalog = builtin_catalog()
    assert catalog.signatures["nccl.ring_mismatch"].weight < 50
    assert catalog.signatures["nccl.shm_attach_failed"].weight < 50
    assert catalog.signatures["nccl.duplicate_gpu"].weight >= 50


def test_a_legacy_connect_failure_names_no_cause() -> None:
    # NCCL before 2.8 says only that the connect failed: a peer not listening, a firewall or a
    # wrong interface, which other lines tell apart; as weak as the newer wordings
    catalog = builtin_catalog()
    legacy = catalog.signatures["nccl.socket_connect_legacy"]
    assert legacy.weight == catalog.signatures["nccl.socket_poll_connect_failed"].weight
    assert legacy.node_action.value == "none"


@pytest.mark.parametrize(
    "line",
    [
        # NVIDIA/nccl issue #601: the same words at INFO level are harmless
        "gpu23:1513:1528 [2] NCCL INFO Attribute coll of node net not found",
        # NVIDIA/nccl-tests issue #188; NVIDIA/nccl issue #1267: normal fallbacks
        "user:852750:852750 [0] NCCL INFO NET/Plugin : No plugin found, using internal "
        "implementation",
        "instance-8g-96c-2:525781:525957 [0] NCCL INFO NET/IB : No device found.",
        "instance-8g-96c-2:525781:525957 [0] NCCL INFO NET/Socket : Using [0]ens7:10.128.0.31<0>",
        "instance-8g-96c-2:525781:525957 [0] NCCL INFO comm 0x55f90cbfd740 rank 0 nranks 1 cudaDev "
        "0 nvmlDev 0 busId 30 commId 0x795b968dc454cfee - Init START",
        # NVIDIA/nccl issue #258: NCCL probing P2P and falling back
        "> warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)",
        # NVIDIA/nccl issue #1232
        "[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
        # NVIDIA/nccl issue #1304: the tuning trace names the algorithm it found
        "[1] 15269.938482 topoGetAlgoInfo:1535 NCCL TRACE 24 Bytes -> Algo 1 proto 0 time "
        "2771.401367",
        # NVIDIA/nccl issue #367: the verbs library missing, NCCL goes on with sockets
        "26a46eb2b1d3:111329:111329 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open "
        "libibverbs.so[.1]",
        # a socket call other than connect failing (its own entries, if any, say what it means)
        "node1:311:402 [0] include/socket.h:390 NCCL WARN Call to accept failed : Too many open "
        "files",
        # NVIDIA/nccl issues #1730 and #1584: a healthy RAS summary, RAS and SHARP starting up
        "    0         1        32         8       256       256   RUNNING      OK",
        "NCCL INFO RAS client listening socket at ::1<28028>",
        "C25L18:24972:25066 [3] NCCL INFO Sharp rank 0/2 initialized on mlx5_5:1",
        "NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v8)",
        # the RAS report's listing lines name processes, not a fault; monitor mode's new peers
        "  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124",
        "  Process 3487984 on node 172.16.64.213 managing GPU 5",
        "[2025-12-19 13:06:50] PEER_NEW: Process 1524345 on node 172.16.64.245 managing GPU 1",
    ],
)
def test_init_neighbours_do_not_match(line: str) -> None:
    assert not set(found(line)) & INIT_KEYS


def test_ras_names_a_dead_peer_but_not_the_ranks_a_mismatch_lists() -> None:
    # a process RAS declares dead is a weak hint against its node (like Ray's dead nodes); the
    # ranks a MISMATCH lists may be the ones ahead (NVIDIA/nccl issue #1911) and name no one
    scanner = Scanner(builtin_catalog())
    hits = {
        s.key: m
        for s, m in scanner.match_line(
            "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1"
        )
    }
    assert hits["nccl.ras_peer_dead"].group("peer") == "172.16.64.245"
    catalog = builtin_catalog()
    assert catalog.signatures["nccl.ras_peer_dead"].weight < 50
    assert "peer" not in catalog.signatures["nccl.ras_mismatch"].compiled().groupindex
    assert catalog.signatures["nccl.collnet_fallback"].weight == 0
