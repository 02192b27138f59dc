"""Golden lines from the second sweep over parallel and shared file systems
(signatures-storage2.toml): the Lustre mount helper that EXAScaler, FSx for Lustre and the
managed Lustre services' clients run, the MGC's configuration log, the client's close after an
eviction and the server's lock-callback eviction, LNet's o2iblnd, acceptor and routing, IBM
Storage Scale's disk lease, the CephFS mount without an MDS and the Alluxio client without its
master.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a server, router or storage network that does
not answer is a shared outage (transient, below the decisive weight alone), a mount source the MGS
does not know is the job's configuration, a close after an eviction restates it. Look-alikes
(healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    assert_no_node_action,
    family_keys,
    golden_line_checks,
)

FILE = "signatures-storage2.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "lustre.mount_mgs_unreachable": Blame.TRANSIENT,
    "lustre.mount_not_found": Blame.APPLICATION,
    "lustre.mgc_config_log_failed": Blame.SYMPTOM,
    "lustre.close_failed": Blame.SYMPTOM,
    "lustre.server_evicting_client": Blame.TRANSIENT,
    "lnet.tx_timeout": Blame.TRANSIENT,
    "lnet.connection_rejected": Blame.TRANSIENT,
    "lnet.peer_unreachable": Blame.TRANSIENT,
    "lnet.no_route": Blame.TRANSIENT,
    "gpfs.disk_lease_expired": Blame.TRANSIENT,
    "gpfs.lease_overdue": Blame.TRANSIENT,
    "cephfs.no_mds_available": Blame.TRANSIENT,
    "alluxio.master_unreachable": Blame.TRANSIENT,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # GoogleCloudPlatform/lustre-csi-driver issue #104 (Google Managed Lustre, the CSI node plugin)
    (
        "Output: mount.lustre: mount 10.153.32.6@tcp:/lfs at /var/lib/kubelet/plugins/kubernetes.io"
        "/csi/lustre.csi.storage.gke.io/14e07e8ff4d214625dafbaeb59b3539ebbd9f16c83349bdb8c3922f342"
        "a5fda2/globalmount failed: Input/output error",
        "lustre.mount_mgs_unreachable",
        {"source": "10.153.32.6@tcp:/lfs", "error": "Input/output error"},
    ),
    # whamcloud/integrated-manager-for-lustre issue #235 (a target mount racing its MGS)
    (
        "mount.lustre: mount zfs_pool_scsi0QEMU_QEMU_HARDDISK_disk3/testfs-OST0001 at "
        "/mnt/testfs-OST0001 failed: Input/output error",
        "lustre.mount_mgs_unreachable",
        {"mountpoint": "/mnt/testfs-OST0001", "error": "Input/output error"},
    ),
    # whamcloud/integrated-manager-for-lustre issue #2462 (auster's posix suite, an OST mount)
    (
        "mount.lustre: mount lustre-ost1/ost1 at /mnt/lustre-ost1 failed: No such file or directory",
        "lustre.mount_not_found",
        {"source": "lustre-ost1/ost1", "mountpoint": "/mnt/lustre-ost1"},
    ),
    # whamcloud/integrated-manager-for-lustre issue #272 (its title)
    (
        "mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 failed: No such file or directory",
        "lustre.mount_not_found",
        {"source": "/dev/sdb"},
    ),
    # amazonlinux/amazon-linux-2023 issue #723 (an AL2023 client against FSx for Lustre)
    (
        "[Fri May 31 00:55:00 2024] LustreError: 15c-8: MGC172.31.84.120@tcp: Confguration from "
        "log jxlwlxxv-client failed from MGS -5. Communication error between node & MGS, a bad "
        "configuration, or other errors. See syslog for more info",
        "lustre.mgc_config_log_failed",
        {"mgc": "MGC172.31.84.120@tcp", "log": "jxlwlxxv-client", "rc": "-5"},
    ),
    # rendered from lustre/llite/file.c ll_close_inode_openhandle (no public line found)
    (
        "LustreError: 12345:0:(file.c:250:ll_close_inode_openhandle()) "
        "lustre-clilmv-ffff8f3a2c0e5000: inode [0x200000401:0x1:0x0] mdc close failed: rc = -108",
        "lustre.close_failed",
        {"fid": "[0x200000401:0x1:0x0]", "rc": "-108"},
    ),
    # rendered from lustre/ldlm/ldlm_lockd.c expired_lock_main (no public line found)
    (
        "LustreError: 0:0:(ldlm_lockd.c:256:expired_lock_main()) ### lock callback timer expired "
        "after 101s: evicting client at 10.10.0.21@o2ib  ns: filter-lustre-OST0003_UUID lock: "
        "ffff9a2b3c4d5e00/0x8f0a1b2c3d4e5f60 lrc: 3/0,0 mode: PW/PW",
        "lustre.server_evicting_client",
        {"seconds": "101", "nid": "10.10.0.21@o2ib"},
    ),
    # rendered from lnet/klnds/o2iblnd/o2iblnd_cb.c kiblnd_check_txs_locked (no public line found)
    (
        "LNetError: 2431:0:(o2iblnd_cb.c:3528:kiblnd_check_txs_locked()) Timed out tx: tx_queue, "
        "5 seconds",
        "lnet.tx_timeout",
        {"queue": "tx_queue", "seconds": "5"},
    ),
    # rendered from lnet/klnds/o2iblnd/o2iblnd_cb.c kiblnd_rejected (no public line found)
    (
        "LNetError: 2431:0:(o2iblnd_cb.c:3024:kiblnd_rejected()) 172.31.126.88@o2ib rejected: "
        "consumer defined fatal error",
        "lnet.connection_rejected",
        {"peer": "172.31.126.88@o2ib", "reason": "consumer defined fatal error"},
    ),
    (
        "LNetError: 2431:0:(o2iblnd_cb.c:2973:kiblnd_rejected()) 172.31.126.88@o2ib rejected: "
        "no listener at 987",
        "lnet.connection_rejected",
        {"reason": "no listener at 987"},
    ),
    # rendered from lnet/lnet/acceptor.c lnet_connect_console_error (no public line found)
    (
        "LNetError: 3315:0:(acceptor.c:116:lnet_connect_console_error()) Connection to "
        "10.0.47.232@tcp at host 10.0.47.232:988 was unreachable: the network or that node may be "
        "down, or Lustre may be misconfigured.",
        "lnet.peer_unreachable",
        {"peer": "10.0.47.232@tcp", "host": "10.0.47.232:988", "outcome": "was unreachable"},
    ),
    (
        "LNetError: 3315:0:(acceptor.c:111:lnet_connect_console_error()) Connection to "
        "10.0.47.232@tcp at host 10.0.47.232:988 was refused: check that Lustre is running on that "
        "node.",
        "lnet.peer_unreachable",
        {"outcome": "was refused"},
    ),
    # rendered from lnet/lnet/lib-move.c (the routed-path lookup; no public line found)
    (
        "LNetError: 2431:0:(lib-move.c:2197:lnet_handle_find_routed_path()) no route to "
        "10.10.0.5@o2ib1 from <?>",
        "lnet.no_route",
        {"nid": "10.10.0.5@o2ib1", "source": "<?>"},
    ),
    # IBM support flash ibm10713707 (mmfs.log.latest of an ESS cluster manager losing its role)
    (
        "gssio1: [N] Disk lease period expired 0.010 seconds ago in cluster testcluster.ibm.com. "
        "Attempting to reacquire the lease.",
        "gpfs.disk_lease_expired",
        {"ago": "0.010", "cluster": "testcluster.ibm.com"},
    ),
    (
        "gssio2: [I] Lease overdue with unsuccessful replies to lease requests. Probing cluster "
        "testcluster.ibm.com",
        "gpfs.lease_overdue",
        {"cluster": "testcluster.ibm.com"},
    ),
    # rendered from ceph src/mount/mount.ceph.c and linux fs/ceph/super.c (no public line found)
    ("mount error: no mds server is up or the cluster is laggy", "cephfs.no_mds_available", {}),
    (
        "[ 1234.567890] ceph: No mds server is up or the cluster is laggy",
        "cephfs.no_mds_available",
        {},
    ),
    # Alluxio/alluxio issue #12227 (Hudi writing through Alluxio HA)
    (
        "Caused by: alluxio.exception.status.UnavailableException: Failed to connect to "
        "FileSystemMasterClient @ t3-dev-cq-ecs-dtpbu-datalake-cdh-work-03:19998 after 45 attempts",
        "alluxio.master_unreachable",
        {
            "client": "FileSystemMasterClient",
            "address": "t3-dev-cq-ecs-dtpbu-datalake-cdh-work-03:19998",
            "attempts": "45",
        },
    ),
    # Alluxio/alluxio issue #10683 (Spark on Alluxio 2.1.1; the stack's first line)
    (
        "alluxio.exception.status.UnavailableException: Failed to connect to "
        "FileSystemMasterClient @ localhost:19998 after 44 attempts",
        "alluxio.master_unreachable",
        {"address": "localhost:19998", "attempts": "44"},
    ),
    # Alluxio/alluxio issue #16167 (a client's config-hash heartbeat, Alluxio 2.8)
    (
        "alluxio.exception.status.UnavailableException: Failed to connect to master "
        "(fs-alluxio-master03.xx:19998) after 1 attempts.Please check if Alluxio master is "
        'currently running on "fs-alluxio-master03.hiido.host.yydevops.com:19998". '
        'Service="MetaMaster"',
        "alluxio.master_unreachable",
        {"master": "fs-alluxio-master03.xx:19998", "attempts": "1"},
    ),
    # Alluxio/alluxio issue #12937 (Hive on Alluxio)
    (
        "alluxio.exception.status.UnavailableException: Failed to determine address for "
        "FileSystemMasterClient after 1 attempts",
        "alluxio.master_unreachable",
        {"service": "FileSystemMasterClient"},
    ),
    # Alluxio/alluxio issue #16903 (a worker's configuration handshake)
    (
        "2023-03-03 02:55:22,295 WARN  RetryUtils - Failed to load cluster default configuration "
        "with master (attempt 1): alluxio.exception.status.UnavailableException: Failed to "
        "handshake with master alluxio-master-0:19998 to load cluster default configuration "
        "values: UNAVAILABLE: io exception",
        "alluxio.master_unreachable",
        {"handshake": "alluxio-master-0:19998"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the mount helper's usage text and a successful client mount (aws-samples/genai-video-super-
    # resolution issue #3; whamcloud/integrated-manager-for-lustre pull request #107)
    (
        "lustre.mount_mgs_unreachable",
        "usage: mount.lustre [-fhnvV] [-o <cliopt>] <mgstarget> <mountpt>",
    ),
    ("lustre.mount_not_found", "mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 succeeded"),
    (
        "lustre.close_failed",
        "Lustre: MGS: Connection restored to c7547940-8b66-9e67-9f49-79141907f91f "
        "(at 10.14.83.21@tcp)",
    ),
    ("lustre.mgc_config_log_failed", "Lustre: Unmounted jxlwlxxv-client"),
    # LNet's healthy bring-up and the timeouts storage.lnet_timeout already reads
    ("lnet.tx_timeout", "LNet: Added LNI 192.168.227.3@o2ib [8/256/0/180]"),
    (
        "lnet.tx_timeout",
        "LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for "
        "172.31.126.87@o2ib: 403055 seconds",
    ),
    ("lnet.connection_rejected", "kiblnd_connect_peer: 10.10.0.5@o2ib accepted"),
    (
        "lnet.peer_unreachable",
        "Lustre: jmain01-MDT0000-mdc-ffff88203810d800: Connection to jmain01-MDT0000 (at "
        "172.31.126.88@o2ib) was lost; in progress operations using this service will wait for "
        "recovery to complete",
    ),
    ("lnet.no_route", "lnetctl route add --net o2ib1 --gateway 10.10.0.1@o2ib"),
    # GPFS's routine lines (IBM Storage Scale documentation and support flash ibm10713707)
    ("gpfs.disk_lease_expired", "gssio2: [I] Node 10.1.1.2 (gssio2) is now the Group Leader."),
    ("gpfs.lease_overdue", "Thu Aug 12 13:22:40 EDT 2004: 6027-1642 mmstartup: Starting GPFS ..."),
    # a CephFS mount that worked (a kernel client's session messages)
    ("cephfs.no_mds_available", "libceph: mon0 (1)90.155.74.19:6789 session established"),
    # the Alluxio client's routine connect line (PasaLab/dfs-perf issue #1)
    (
        "alluxio.master_unreachable",
        "2020-01-03 16:34:06,148 INFO  logger.type (AbstractClient.java:connect) - Alluxio client "
        "(version 1.3.0) is trying to connect with FileSystemMasterClient master @ "
        "/111.111.111.111:19998",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(FILE, KEYS, frozenset({"lustre", "lnet", "gpfs", "cephfs", "alluxio"}))
    assert set(BLAME) == KEYS


def test_no_storage_line_here_names_a_node() -> None:
    """A shared file system's servers and network are every node's outage: no entry acts on the
    node it was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_an_outage_line_does_not_decide_alone() -> None:
    """An unanswered server or router is transient below the decisive weight: the lost connection,
    the eviction or every node's echo decides; restatements stay below a collective complaint."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key
