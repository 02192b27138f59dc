"""Golden lines from the eighth sweep: operating-system errors (errno) as the programs around a
training job print them. CPython's "[Errno N] strerror" (3.x subclasses, 2.x IOError and
socket.error), Rust's "strerror (os error N)", C's "prog: path: strerror", PyTorch's
"strerror (N)" and Go's lower-cased "op path: strerror" all read the same for the same number.

Each line is cited beside it (real lines users pasted in public threads; the few rendered from the
emitter's format say so) and goes through the scanner's own matcher. Blame is pinned to what the
errno means in a training job: a per-process limit (EMFILE, received 0 items of ancdata) is the
job's; host ENOMEM is the job's but weak; a missing or busy device, a lost link, a refused or
reset connection, a lock the file system refuses are symptoms. Before this family none of the
46 errno lines here had a specific reading (21 fell to the generic Python entry, the
application's, 25 to nothing); after it all 46 do. Look-alikes must not match: healthy limit
lines, and lines more specific entries own.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    golden_line_checks,
)

FAMILY_FILE = "signatures-errno.toml"
NAMESPACES = frozenset({"errno"})

FAMILY_BLAME: dict[str, Blame] = {
    "errno.fd_limit": Blame.APPLICATION,
    "errno.file_table_full": Blame.SYMPTOM,
    "errno.host_memory": Blame.APPLICATION,
    "errno.try_again": Blame.SYMPTOM,
    "errno.address_unavailable": Blame.APPLICATION,
    "errno.value_overflow": Blame.APPLICATION,
    "errno.device_unavailable": Blame.SYMPTOM,
    "errno.protocol_error": Blame.SYMPTOM,
    "errno.bad_address": Blame.SYMPTOM,
    "errno.not_a_socket": Blame.APPLICATION,
    "errno.file_lock_unavailable": Blame.SYMPTOM,
    "errno.network_down": Blame.SYMPTOM,
    "errno.connection_error": Blame.SYMPTOM,
    "errno.fs_error": Blame.SYMPTOM,
    "errno.remote_fs_error": Blame.TRANSIENT,
}

# The same errnos' CPython 3 lines, read by the storage and network families: pinned here so the
# carriers above stay read alike.
BLAME: dict[str, Blame] = {
    **FAMILY_BLAME,
    "storage.eio": Blame.SYMPTOM,
    "storage.stale_handle": Blame.TRANSIENT,
    "net.oserror_unreachable": Blame.SYMPTOM,
    "service.socket_error": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # kuleshov-group/caduceus issue #58 (DataLoader workers opening a pipe each)
    ("OSError: [Errno 24] Too many open files", "errno.fd_limit", {}),
    # SuperDARNCanada/borealis issue #344 (multiprocessing.shared_memory segments left open)
    ("OSError: [Errno 24] Too many open files: '/psm_034f1316'", "errno.fd_limit", {}),
    # lzccccc/SMOKE issue #21 (the descriptor-passing sharing strategy out of descriptors)
    ("RuntimeError: received 0 items of ancdata", "errno.fd_limit", {}),
    # KaranGauswami/socks-to-http-proxy issue #14 (Rust)
    ("Too many open files (os error 24)", "errno.fd_limit", {}),
    # Alexays/Waybar issue #3431 (C perror forms)
    ("socket(): Too many open files", "errno.fd_limit", {}),
    ("shared memfd open() failed: Too many open files", "errno.fd_limit", {}),
    # NebulousLabs/Sia issue #2935 (Go's net/http accept loop)
    (
        "2018/04/12 07:32:43 http: Accept error: accept tcp 127.0.0.1:9980: accept4: too many "
        "open files; retrying in 1s",
        "errno.fd_limit",
        {},
    ),
    # harness/harness issue #644 (Go's dial)
    ("2014/10/28 18:09:05 dial tcp :0: too many open files", "errno.fd_limit", {}),
    # nystudio107/craft-scripts issue #16 (the host's file table)
    ("find: fts_read: Too many open files in system", "errno.file_table_full", {}),
    # ClementPinard/FlowNetPytorch issue #85 (os.fork of DataLoader workers, the RAM filled)
    ("OSError: [Errno 12] Cannot allocate memory", "errno.host_memory", {}),
    # sahib/rmlint issue #5 and alexa-pi/AlexaPi issue #92 (C's mmap)
    ("ERROR:mmap(): Cannot allocate memory", "errno.host_memory", {}),
    (
        "Nov 18 18:16:49 MagicMirror01 python[5914]: mmap() failed: Cannot allocate memory",
        "errno.host_memory",
        {},
    ),
    # lijiejie/BBScan issue #13, evkl1d/CVE-2023-46604 issue #2, 2024baibai/Atc issue #1
    ("IOError: [Errno 11] Resource temporarily unavailable", "errno.try_again", {}),
    ("BlockingIOError: [Errno 11] Resource temporarily unavailable", "errno.try_again", {}),
    ("OSError: [Errno 11] Resource temporarily unavailable", "errno.try_again", {}),
    # gpustack/gpustack issue #4241 (vLLM workers on one node), shadowsocks/shadowsocks issue #412
    ("OSError: [Errno 99] Cannot assign requested address", "errno.address_unavailable", {}),
    ("socket.error: [Errno 99] Cannot assign requested address", "errno.address_unavailable", {}),
    # xMistt/PartyServer issue #1 (asyncio's bind)
    (
        "OSError: [Errno 99] error while attempting to bind on address ('30.30.40.40', 8080): "
        "cannot assign requested address",
        "errno.address_unavailable",
        {},
    ),
    # ticarpi/jwt_tool issue #113, borgbackup/borg issue #3211 (Python), v3l0c1r4pt0r/xSDM issue #5
    # (C on a 32-bit build)
    ("OSError: [Errno 75] Value too large for defined data type", "errno.value_overflow", {}),
    (
        "/mnt/windows/ProgramData/Microsoft/Windows Defender/Scans/mpcache-DF082AE069A0F1C782CB59D6"
        "90F64B31F33CB9A0.bin.VE0: read: [Errno 75] Value too large for defined data type",
        "errno.value_overflow",
        {},
    ),
    (
        "/home/gabriele/Downloads/01.sdc: Value too large for defined data type",
        "errno.value_overflow",
        {},
    ),
    # black-forest-labs/flux issue #47 and zai-org/CogVideo issue #455 (safetensors' mmap on Ceph)
    ("OSError: No such device (os error 19)", "errno.device_unavailable", {}),
    ("[rank0]: OSError: No such device (os error 19)", "errno.device_unavailable", {}),
    # f4rih/websploit issue #94, segofensiva/OSfooler-ng issue #6, ProjectNeura/LEADS pull #153
    ("OSError: [Errno 19] No such device", "errno.device_unavailable", {"errno": "19"}),
    ("IOError: [Errno 19] No such device", "errno.device_unavailable", {"errno": "19"}),
    ("OSError: [Errno 6] No such device or address", "errno.device_unavailable", {"errno": "6"}),
    # Vision-CAIR/MiniGPT-4 issue #369, PRIME-RL/RL-Compositionality issue #5 (an NFS silly-rename
    # file still open), shadow3aaa/fas-rs issue #216 (Rust)
    ("OSError: [Errno 16] Device or resource busy", "errno.device_unavailable", {"errno": "16"}),
    ("OSError: [Errno 16] Device or resource busy: '.nfsxxx'", "errno.device_unavailable", {}),
    ("ERROR: Device or resource busy (os error 16)", "errno.device_unavailable", {}),
    # rendered from CPython's OSError str() for EPROTO (no attributable public line found)
    ("OSError: [Errno 71] Protocol error", "errno.protocol_error", {}),
    # bytedance/byteps issue #49 (ps-lite's receive thread at exit), and CPython's form
    (
        "[06:42:50] src/./zmq_van.h:304: Check failed: 0 failed to receive message. errno: 88 "
        "Socket operation on non-socket",
        "errno.not_a_socket",
        {},
    ),
    ("OSError: [Errno 88] Socket operation on non-socket", "errno.not_a_socket", {}),
    # jabberd2/jabberd2 issue #176 (strerror and its number)
    (
        "c2s/s2s/sm: connection attempt to router failed: Bad address (14)",
        "errno.bad_address",
        {},
    ),
    # uzh-rpg/RVT issue #75 and h5py/h5py issue #1082 (HDF5's lock on NFS)
    (
        "OSError: [Errno 37] Unable to open file (unable to lock file, errno = 37, error message = "
        "'No locks available')",
        "errno.file_lock_unavailable",
        {},
    ),
    (
        "OSError: Unable to create file (unable to lock file, errno = 37, error message = 'No "
        "locks available')",
        "errno.file_lock_unavailable",
        {},
    ),
    # hubert3/iSniff-GPS issue #29 (the capture interface down)
    ("OSError: [Errno 100] Network is down", "errno.network_down", {"errno": "100"}),
    # tomerfiliba-org/rpyc issue #125 (Python 2)
    ("socket.error: [Errno 111] Connection refused", "errno.connection_error", {"errno": "111"}),
    # shadowsocks/shadowsocks issue #286 (a logged OSError without its class)
    (
        "2015-02-04 10:56:04 ERROR    [Errno 111] Connection refused",
        "errno.connection_error",
        {"errno": "111"},
    ),
    # equeny/tornadomail issue #10 (tornado's connect)
    (
        "WARNING:tornado.general:Connect error on fd 9: [Errno 101] Network is unreachable",
        "errno.connection_error",
        {"errno": "101"},
    ),
    # shadowsocks/shadowsocks-rust issue #789, rigelminer/rigel issue #220 (Rust)
    (
        "ssservice[957]: ERROR tcp tunnel 127.0.0.1:57472 -> 127.0.0.1:5001 connect failed, "
        "error: Connection refused (os error 111)",
        "errno.connection_error",
        {},
    ),
    (
        " [157.90.79.171:8888] connection error: Connection refused (os error 111)",
        "errno.connection_error",
        {},
    ),
    # shadowsocks/shadowsocks-go issue #278 and hhyo/Archery issue #821 (Go)
    (
        "error getting request: read tcp 127.0.0.1:1080->127.0.0.1:41308: read: connection reset "
        "by peer",
        "errno.connection_error",
        {},
    ),
    (
        "2020-07-20T02:50:52.654927737Z [mysql] 2020/07/20 10:50:52 packets.go:36: read tcp "
        "172.20.0.6:36866->192.18.18.3:3306: read: connection reset by peer",
        "errno.connection_error",
        {},
    ),
    # TIGRLab/admin issue #522, borgbackup/borg issue #5064, astrada/google-drive-ocamlfuse
    # issue #421 (coreutils on a failing mount)
    (
        "head: error reading \u2018/external/PNC/data/clinical_data/psychosis_spectrum/"
        "pnc_clinical+spectrum+fs.csv\u2019: Input/output error",
        "errno.fs_error",
        {},
    ),
    ("ls: cannot access '/mnt/repo': Input/output error", "errno.fs_error", {}),
    ("df: /www/backup: Input/output error", "errno.fs_error", {}),
    # rendered from Go's os.PathError over syscall.EIO (no attributable public line found)
    ("read /mnt/data/shards/train-00017.tar: input/output error", "errno.fs_error", {}),
    # rendered from Rust's io::Error Display for ESTALE (no attributable public line found)
    ("Error: Stale file handle (os error 116)", "errno.remote_fs_error", {"errno": "116"}),
    # the CPython lines of the same errnos stay the storage and network families': whwu95/Text4Vis
    # issue #6, modelscope/ms-swift issue #6695, ASFHyP3/hyp3-isce2 issue #207, pytorch/pytorch
    # issue #56364
    (
        "OSError: [Errno 5] Input/output error: '/opt/data/private/dataset/k400_frame/train/"
        "auctioning/97nosiYXJm8_000087_000097'",
        "storage.eio",
        {},
    ),
    ("[rank1]: OSError: [Errno 116] Stale file handle: xxx", "storage.stale_handle", {}),
    ("OSError: [Errno 101] Network is unreachable", "net.oserror_unreachable", {}),
    ("ConnectionRefusedError: [Errno 111] Connection refused", "service.socket_error", {}),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # healthy limit lines (bash's ulimit -a, /proc/<pid>/limits)
    ("errno.fd_limit", "open files                          (-n) 1048576"),
    ("errno.fd_limit", "Max open files            1048576              1048576              files"),
    ("errno.fd_limit", "Raised the soft limit to avoid 'Too many open files'"),
    # the Neuron collectives' accept loop is neuroncoll.accept_fd_limit's (aws-neuron-sdk #713)
    (
        "errno.fd_limit",
        "2023-Aug-01 16:12:43.0204 332066:332438 [21] bootstrap.cc:106 CCOM WARN Call to accept "
        "failed : Too many open files",
    ),
    # an old PyTorch's shm failure without its errno says nothing about descriptors
    # (facebookresearch/maskrcnn-benchmark issue #158)
    (
        "errno.fd_limit",
        "RuntimeError: unable to open shared memory object </torch_30997_2076642173> in "
        "read-write mode",
    ),
    # the system-wide table is another errno
    ("errno.fd_limit", "find: fts_read: Too many open files in system"),
    # RDMA registrations are the RDMA entries'; a cgroup mkdir is the node's kernel
    ("errno.host_memory", "ibv_reg_mr: Cannot allocate memory"),
    (
        "errno.host_memory",
        "mkdir /sys/fs/cgroup/memory/kubepods/burstable/pod1: cannot allocate memory",
    ),
    # PyTorch's store line with the same errno is the c10d entries' (pytorch/PiPPy issue #158)
    (
        "errno.address_unavailable",
        "[W socket.cpp:558] [c10d] The client socket has failed to connect to [localhost]:29500 "
        "(errno: 99 - Cannot assign requested address).",
    ),
    # the driver failing to load is the driver entries'
    ("errno.device_unavailable", "modprobe: ERROR: could not insert 'nvidia': No such device"),
    # an HTTP or TLS protocol error is not EPROTO
    ("errno.protocol_error", "httpx.RemoteProtocolError: Server disconnected without sending"),
    ("errno.protocol_error", "ssl.SSLError: [SSL] protocol error (_ssl.c:1000)"),
    # HDF5's lock held by another process is another errno
    (
        "errno.file_lock_unavailable",
        "BlockingIOError: [Errno 11] Unable to open file (unable to lock file, errno = 11, error "
        "message = 'Resource temporarily unavailable')",
    ),
    # Python 3's socket errors stay service.socket_error's; urllib's wrapper the services entry's
    ("errno.connection_error", "ConnectionRefusedError: [Errno 111] Connection refused"),
    ("errno.connection_error", "OSError: [Errno 101] Network is unreachable"),
    ("errno.connection_error", "<urlopen error [Errno 111] Connection refused>"),
    # a retry loop's own note
    ("errno.connection_error", "Waiting for the master at 10.0.0.1:29500 (connection refused)"),
    # a kernel block-layer line is the storage family's, not a carried EIO
    (
        "errno.fs_error",
        "[ 1234.567890] blk_update_request: I/O error, dev nvme0n1, sector 123456 op 0x0:(READ)",
    ),
    # the CPython line of ESTALE is storage.stale_handle's
    ("errno.remote_fs_error", "OSError: [Errno 116] Stale file handle"),
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
) = family_contract({FAMILY_FILE: NAMESPACES}, FAMILY_BLAME)


def test_no_errno_names_a_node() -> None:
    """An errno alone never acts on the node it was printed on."""
    assert_no_node_action(FAMILY_BLAME)
    for key in FAMILY_BLAME:
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE, key


def test_the_job_own_limits_and_the_weak_readings() -> None:
    """EMFILE is decisive (a retry fails the same way); host ENOMEM and a foreign address are
    the job's but below a decisive weight; the symptoms weigh little alone."""
    assert CATALOG.signatures["errno.fd_limit"].weight > 50
    for key in ("errno.host_memory", "errno.address_unavailable", "errno.value_overflow"):
        assert 30 <= CATALOG.signatures[key].weight < 50, key
    for key, blame in FAMILY_BLAME.items():
        if blame is Blame.SYMPTOM:  # a symptom's weight (docs/attribution.md section 5)
            assert 20 <= CATALOG.signatures[key].weight <= 30, key


def test_carried_lines_read_as_the_storage_and_network_families_do() -> None:
    """The carriers of an errno another family reads keep that family's blame and weight."""
    pairs = {
        "errno.fs_error": "storage.eio",
        "errno.remote_fs_error": "storage.stale_handle",
        "errno.connection_error": "service.socket_error",
    }
    for carried, own in pairs.items():
        assert CATALOG.signatures[carried].blame is CATALOG.signatures[own].blame, carried
        assert CATALOG.signatures[carried].weight == CATALOG.signatures[own].weight, carried
