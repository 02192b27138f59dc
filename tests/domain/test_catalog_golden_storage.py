"""Golden tests for the storage family (signatures-storage.toml).

Real lines from public issues (named beside each) must match the expected signature through
the scanner's own matcher, with their captures, and without the generic Python-exception entry
winning; lines that only look alike (virtual or removable devices, mount chatter, benign
kernel lines of the shared corpus bundles) must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-storage.toml"
NAMESPACES = frozenset({"storage"})

REQUIRED: dict[str, Blame] = {
    # real-line mining (session 23), golden lines in tests/domain/test_catalog_mined_mstore.py
    "storage.gcsfuse_op_failed": Blame.SYMPTOM,
    "storage.gcsfuse_op_error": Blame.SYMPTOM,
    # shared file systems: an outage outside every node
    "storage.lustre_rpc_failed": Blame.TRANSIENT,
    "storage.lustre_request_expired": Blame.TRANSIENT,
    "storage.lustre_connection_lost": Blame.TRANSIENT,
    "storage.lustre_connection_restored": Blame.INFO,
    "storage.lustre_evicted": Blame.TRANSIENT,
    "storage.lustre_other": Blame.SYMPTOM,
    "storage.nfs_not_responding": Blame.TRANSIENT,
    "storage.nfs_ok": Blame.INFO,
    "storage.nfs4_state_manager_failed": Blame.TRANSIENT,
    "storage.stale_handle": Blame.TRANSIENT,
    "storage.fuse_disconnected": Blame.SYMPTOM,
    "storage.gcsfuse_terminated": Blame.TRANSIENT,
    "storage.shared_fs_wait": Blame.TRANSIENT,
    # one node's own disk: its hardware, named with corroboration
    "storage.block_medium_error": Blame.HARDWARE,
    "storage.block_io_error": Blame.HARDWARE,
    "storage.scsi_host_failed": Blame.HARDWARE,
    "storage.buffer_io_error": Blame.HARDWARE,
    "storage.nvme_timeout": Blame.HARDWARE,
    "storage.nvme_controller_lost": Blame.HARDWARE,
    "storage.ext4_error": Blame.HARDWARE,
    # sweep round 6 (issue 14, helper s20e): node-problem-detector's condition for the same line
    "storage.npd_readonly_filesystem": Blame.HARDWARE,
    "storage.xfs_io_error": Blame.HARDWARE,
    # the job's configuration: a retry fails the same way
    "storage.no_space": Blame.APPLICATION,
    "storage.quota_exceeded": Blame.APPLICATION,
    # says the file system failed, not which one
    "storage.eio": Blame.SYMPTOM,
    "storage.remote_io_error": Blame.TRANSIENT,
    "storage.read_only_fs": Blame.SYMPTOM,
    "storage.torch_write_failed": Blame.SYMPTOM,
    "storage.safetensors_io": Blame.SYMPTOM,
    # depth review (session 22), tests/domain/test_catalog_depth_dstore.py
    "storage.safetensors_refused": Blame.APPLICATION,
    "storage.dcp_failed": Blame.SYMPTOM,
    "storage.lnet_timeout": Blame.TRANSIENT,  # golden lines: test_catalog_tracker_clusters.py
    # sweep L4 (issue 14): golden lines in test_catalog_tracker_platforms.py
    "storage.nfs_mount_denied": Blame.APPLICATION,
    # round 8: CephFS kernel client, BeeGFS, GPFS, DAOS: the shared storage, never this node
    "storage.ceph_evicted": Blame.TRANSIENT,
    "storage.ceph_mds_unresponsive": Blame.TRANSIENT,
    "storage.ceph_mon_session_lost": Blame.TRANSIENT,
    "storage.ceph_osd_request_timeout": Blame.TRANSIENT,
    "storage.ceph_osd_down": Blame.TRANSIENT,
    "storage.ceph_connection_error": Blame.TRANSIENT,
    "storage.beegfs_comm_error": Blame.TRANSIENT,
    "storage.beegfs_unreachable": Blame.TRANSIENT,
    "storage.gpfs_lost_membership": Blame.TRANSIENT,
    "storage.gpfs_daemon_down": Blame.TRANSIENT,
    "storage.gpfs_connection_closed": Blame.TRANSIENT,
    "storage.daos_unavailable": Blame.TRANSIENT,
    # a full pool, a quota, an ACL, a write pattern the mount cannot do: the job's
    "storage.daos_no_space": Blame.APPLICATION,
    "storage.daos_no_permission": Blame.APPLICATION,
    "storage.mountpoint_s3_out_of_order_write": Blame.APPLICATION,
    # the S3 request under a failed FUSE operation: the error chain decides
    "storage.mountpoint_s3_request_failed": Blame.SYMPTOM,
    # JuiceFS: its object storage giving up is the storage's; a failed commit says no more
    "storage.juicefs_upload_failed": Blame.TRANSIENT,
    "storage.juicefs_write_failed": Blame.SYMPTOM,
}

POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # chkpwd/iac issue #541 (an alert quoting node-problem-detector's condition)
        "storage.npd_readonly_filesystem",
        "Unknown condition true of kubernetes node cattles-k3s-9749: condition type is "
        "ReadonlyFilesystem, reason is FilesystemIsReadOnly, message is EXT4-fs (sdi): "
        "Remounting filesystem read-only",
        {},
    ),
    (  # kubernetes/node-problem-detector issue #474 (NPD's own log, cut short)
        "storage.npd_readonly_filesystem",
        "1 log_monitor.go:160] New status generated: &{Source:kernel-monitor Events:[{Severity:"
        "info Timestamp:2020-10-08 06:44:16.09315274 +0000 UTC m=+1331754.148888064 Reason:"
        "FilesystemIsReadOnly Message:Node condition ReadonlyFilesystem is now: True, reason: "
        "FilesystemIsReadOnly}]",
        {},
    ),
    (  # Requiem4Eternity/Appstream issue #90 (the node's kernel log before it ran away)
        "storage.scsi_host_failed",
        "sd 1:0:2:0: [sdc] tag#3024 FAILED Result: hostbyte=DID_BAD_TARGET driverbyte=DRIVER_OK",
        {"device": "sdc", "hostbyte": "DID_BAD_TARGET"},
    ),
    (  # a disk that went away under the host (kernel log of a USB-attached disk on removal)
        "storage.scsi_host_failed",
        "sd 2:0:0:0: [sda] Synchronize Cache(10) failed: Result: hostbyte=DID_NO_CONNECT "
        "driverbyte=DRIVER_OK",
        {"device": "sda", "hostbyte": "DID_NO_CONNECT"},
    ),
    (  # GoogleCloudPlatform/gcs-fuse-csi-driver issue #113 (GKE spot node replaced)
        "storage.gcsfuse_terminated",
        "the sidecar container failed with error: gcsfuse exited with error: signal: terminated",
        {},
    ),
    (  # amazonlinux/amazon-linux-2023 issue #723
        "storage.lustre_other",
        "[Fri May 31 00:54:38 2024] LustreError: 26155:0:(mgc_request.c:612:do_requeue()) "
        "failed processing log: -5",
        {},
    ),
    (  # linux-surface/linux-surface issue #1494 (soft mount)
        "storage.nfs_not_responding",
        "[32495.562824] nfs: server thinkcentre not responding, timed out",
        {"server": "thinkcentre", "state": "timed out"},
    ),
    (  # pulibrary/princeton_ansible issue #6612
        "storage.nfs_not_responding",
        "Oct 24 00:11:11 figgy-web-staging1 kernel: nfs: server td-mf-cl2.princeton.edu not "
        "responding, still trying",
        {"program": "nfs", "server": "td-mf-cl2.princeton.edu", "state": "still trying"},
    ),
    (  # TIGRLab/admin issue #234 (a comment quoting dmesg)
        "storage.nfs4_state_manager_failed",
        "[108570.205595] NFS: state manager: lease expired failed on NFSv4 server tigrsrv with "
        "error 1",
        {"section": "lease expired", "server": "tigrsrv", "error": "1"},
    ),
    (  # linux-surface/linux-surface issue #1494
        "storage.nfs_ok",
        "[32958.266147] nfs: server thinkcentre OK",
        {"server": "thinkcentre"},
    ),
    (  # scylladb/scylladb issue #1575 (4.x wording, failing RAID member)
        "storage.block_medium_error",
        "[104802.137143] blk_update_request: critical medium error, dev sdb, sector 4136641792",
        {"device": "sdb", "sector": "4136641792"},
    ),
    (  # longhorn/longhorn issue #2775 (print_req_error wording)
        "storage.block_medium_error",
        "Jul 12 08:01:41 immortal kernel: [518171.289145] print_req_error: critical medium "
        "error, dev sdc, sector 7988224",
        {"device": "sdc"},
    ),
    (  # MichaIng/DietPi issue #4499 (USB disk dropping off)
        "storage.block_io_error",
        "[  407.147725] blk_update_request: I/O error, dev sda, sector 6192120 op 0x1:(WRITE) "
        "flags 0x100000 phys_seg 3 prio class 0",
        {"kind": "I/O", "device": "sda", "sector": "6192120"},
    ),
    (  # Requiem4Eternity/Appstream issue #107 (a Kubernetes node)
        "storage.block_io_error",
        "Jun 14 08:04:35 k8snode230 kernel: print_req_error: I/O error, dev sdc, sector "
        "1098288304 flags 0",
        {"device": "sdc"},
    ),
    (  # openebs/openebs issue #1433
        "storage.buffer_io_error",
        "Apr 16 07:07:38 -worker-02 kernel: [33713.708530] Buffer I/O error on dev sdb, logical "
        "block 640, lost async page write",
        {"device": "sdb", "block": "640"},
    ),
    (  # xcat2/xcat-core issue #1175 (older 'device' wording)
        "storage.buffer_io_error",
        "[  543.676116] Buffer I/O error on device dm-0, logical block 2477053",
        {"device": "dm-0"},
    ),
    (  # linux-nvme/nvme-cli issue #151
        "storage.nvme_timeout",
        "[11457.533097] nvme nvme2: I/O 0 QID 0 timeout, reset controller",
        {"controller": "nvme2", "qid": "0", "action": "reset controller"},
    ),
    (  # linux-nvme/nvme-cli issue #151
        "storage.nvme_controller_lost",
        "[11508.697977] nvme nvme2: Removing after probe failure status: -19",
        {"controller": "nvme2"},
    ),
    (  # raspberrypi/linux issue #703
        "storage.ext4_error",
        "Nov 22 17:46:18 sentinel.donadio.be kernel: EXT4-fs warning (device dm-1): "
        "ext4_end_bio:316: I/O error -5 writing to inode 10223621 (offset 33554432 size 8388608 "
        "starting block 14403824)",
        {"eio_device": "dm-1"},
    ),
    (  # longhorn/longhorn issue #193 (title)
        "storage.ext4_error",
        "EXT4-fs (sdb): Remounting filesystem read-only",
        {"ro_device": "sdb"},
    ),
    (  # dm-vdo/kvdo issue #25
        "storage.xfs_io_error",
        "Jul 26 05:55:54 hdp-datanode-1 kernel: XFS (dm-7): metadata I/O error: block "
        '0x280000010 ("xlog_bread_noalign") error 5 numblks 8',
        {"device": "dm-7"},
    ),
    (  # kubernetes/node-problem-detector pull request #845
        "storage.xfs_io_error",
        "kernel: XFS (dm-4): I/O Error Detected. Shutting down filesystem",
        {"device": "dm-4"},
    ),
    (  # siderolabs/talos pull request #8733
        "storage.xfs_io_error",
        "109.200.197.196: kern:   alert: [2024-05-13T15:13:11.99477118Z]: XFS (sdb6): "
        "Filesystem has been shut down due to log error (0x2).",
        {"device": "sdb6"},
    ),
    ("storage.eio", "OSError: [Errno 5] Input/output error", {}),  # pymedusa/Medusa issue #10661
    (  # tensorflow/tensorflow issue #20090 (TensorFlow's "CONTEXT; STRERROR", a DBFS FUSE mount)
        "storage.eio",
        "2018-06-12 15:00:32,553 INFO (Thread-4-2183) Error reported to Coordinator: /dbfs/"
        "FileStore/tables/TFOS/trainData/checkpoint.tmpb97208e81436466b80430829067e21d8; "
        "Input/output error",
        {},
    ),
    (  # pesser/edflow issue #92
        "storage.remote_io_error",
        "OSError: [Errno 121] Remote I/O error: 'logs/2019-07-01T17:49:45_coords_1_pretrain_"
        "deepfashion/train/checkpoints'",
        {},
    ),
    (  # marbl/verkko issue #98
        "storage.eio",
        "OSError: [Errno 5] Input/output error: '../6-layoutContigs/unitig-popped.layout'",
        {},
    ),
    (  # pytorch/pytorch issue #45826 (torch.load from a Slurm job)
        "storage.stale_handle",
        "RuntimeError: read(): fd 33 failed with Stale file handle",
        {},
    ),
    (  # modelscope/ms-swift issue #6695 (every node of the job)
        "storage.stale_handle",
        "[rank1]: OSError: [Errno 116] Stale file handle: xxx",
        {},
    ),
    (  # h5py/h5py issue #2346 (checkpoint on a NAS)
        "storage.stale_handle",
        "OSError: [Errno 116] Unable to synchronously create file (unable to fstat file, "
        "errno = 116, error message = 'Stale file handle')",
        {},
    ),
    (  # hiyouga/LlamaFactory issue #5155 (title)
        "storage.no_space",
        "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: "
        'StorageFull, message: "No space left on device" })',
        {},
    ),
    ("storage.no_space", "[Errno 28] No space left on device", {}),  # Antergos/Cnchi issue #1031
    (  # KennthShang/HostG issue #7 (a comment)
        "storage.quota_exceeded",
        "OSError: [Errno 122] Disk quota exceeded: 'out/intermediate.ntw'",
        {},
    ),
    (  # lrstanley/Code issue #5 (Python 2 wording)
        "storage.quota_exceeded",
        "+Code | [08:00:30] IOError: [Errno 122] Disk quota exceeded (file "
        '"/root/code/modules/find.py", line 65, in save_db)',
        {},
    ),
    (  # SWivid/F5-TTS issue #458
        "storage.torch_write_failed",
        "[rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter "
        "failed writing file data.pkl: file write failed",
        {"record": "data.pkl"},
    ),
    (  # pytorch/pytorch issue #29186
        "storage.torch_write_failed",
        "RuntimeError: [enforce fail at inline_container.cc:319] . PytorchStreamWriter failed "
        "opening archive.",
        {},
    ),
    # --- round 8 ---
    (  # ceph/ceph pull request #65325 (doc/cephfs/troubleshooting.rst: an evicted client's log)
        "storage.ceph_evicted",
        "Jul 20 08:14:39 teuthology kernel: [3677602.093378] ceph: mds0 reconnect denied",
        {"mds": "0", "event": "reconnect denied"},
    ),
    (  # the same log
        "storage.ceph_mds_unresponsive",
        "Jul 20 08:14:38 teuthology kernel: [3677601.123718] ceph: mds0 closed our session",
        {"mds": "0", "state": "closed our session"},
    ),
    (  # ceph/ceph-csi issue #4050 (a node's dmesg)
        "storage.ceph_mon_session_lost",
        "[65324.056564] libceph: mon2 (1)10.0.0.247:6789 session lost, hunting for new mon",
        {"mon": "2", "addr": "(1)10.0.0.247:6789"},
    ),
    (  # a ceph-devel patch by Jeff Layton ("flush the mdlog for filesystem sync"), its kernel log
        "storage.ceph_mon_session_lost",
        "Apr 18 12:23:38 client1 kernel: libceph: mon0 (2)192.168.1.81:3300 session lost, "
        "hunting for new mon",
        {"mon": "0", "addr": "(2)192.168.1.81:3300"},
    ),
    (  # rendered from net/ceph/osd_client.c handle_timeout (no attributable public line found)
        "storage.ceph_osd_request_timeout",
        "libceph: tid 1234567 on osd5 timeout",
        {"tid": "1234567", "osd": "5"},
    ),
    (  # ceph/ceph-csi issue #4050
        "storage.ceph_osd_down",
        "[65343.725503] libceph (fb30d64e-7a8c-46d3-bbd7-77a3b1f080d1 e867): osd0 down",
        {"osd": "0"},
    ),
    (  # ceph/ceph-csi issue #4050
        "storage.ceph_connection_error",
        "[ 9856.986218] libceph: osd2 (1)10.0.0.249:6801 socket closed (con state V1_BANNER)",
        {"peer": "osd2", "error": "socket closed (con state V1_BANNER)"},
    ),
    (  # ceph/ceph pull request #65325
        "storage.ceph_connection_error",
        "Jul 20 08:14:40 teuthology kernel: [3677603.126214] libceph: mds0 172.21.5.114:6812 "
        "connection reset",
        {"peer": "mds0", "addr": "172.21.5.114:6812", "error": "connection reset"},
    ),
    (  # a ceph-devel report of a CephFS thread hung for days (its /proc/PID/stack, 2019-12-02)
        "storage.shared_fs_wait",
        "[<ffffffffc0e8fb60>] ceph_mdsc_do_request+0x180/0x240 [ceph]",
        {"function": "ceph_mdsc_do_request", "module": "ceph"},
    ),
    (  # rendered from beegfs client_module MessagingTk.c with Logger.c's prefix (no public line)
        "storage.beegfs_comm_error",
        "beegfs: python(48213): Messaging (RPC): Communication error: Node: meta01 [beegfs-meta:1] "
        "(comm result: -110; message type: 2023)",
        {"kind": "error", "node": "meta01"},
    ),
    (  # rendered from beegfs client_module FhgfsOpsCommKit.c (no public line)
        "storage.beegfs_comm_error",
        "beegfs: python(48213): readfileV2 (communication): Communication timeout in RECVDATA "
        "stage. Node: stor02 [beegfs-storage:2]",
        {"kind": "timeout", "stage": "RECVDATA", "node": "stor02"},
    ),
    (  # rendered from beegfs client_module FhgfsOpsCommKit.c (no public line)
        "storage.beegfs_unreachable",
        "beegfs: python(48213): writefile (communication): Unable to connect to server: stor01 "
        "[beegfs-storage:1]",
        {"node": "stor01"},
    ),
    (  # IBM Storage Scale 5.2.1 docs, "failures due to a network failure" (a remote cluster)
        "storage.gpfs_lost_membership",
        "Mon Jun 25 16:11:21 2018: Lost membership in cluster remote.cluster. Unmounting file "
        "systems.",
        {"cluster": "remote.cluster"},
    ),
    (  # the same page
        "storage.gpfs_connection_closed",
        "Mon Jun 25 16:11:16 2018: Close connection to 89.116.94.81 k155n01",
        {"ip": "89.116.94.81", "node": "k155n01"},
    ),
    (  # IBM Storage Scale 5.2.0 docs, "GPFS daemon went down" (message 6027-650)
        "storage.gpfs_daemon_down",
        "6027-650 [X] The mmfs daemon is shutting down abnormally.",
        {},
    ),
    (  # daos-stack/daos pull request #15972 (a client log on wolf-229)
        "storage.daos_unavailable",
        "02/26-13:49:04.72 wolf-229 DAOS[289719/289734/0] hg   WARN src/cart/crt_hg.c:1376 "
        "crt_hg_req_send_cb(0x7f58c4011840) [opc=0x2070014 (DAOS_POOL_MODULE:POOL_TGT_QUERY_MAP) "
        "rpcid=0x379d3f30000000a0 rank:tag=1:0] RPC failed; rc: DER_TIMEDOUT(-1011): 'Time out'",
        {"code": "DER_TIMEDOUT", "rc": "-1011"},
    ),
    (  # daos-stack/daos docs/admin/troubleshooting.md
        "storage.daos_no_space",
        "ERROR: dmg: pool create failed: DER_NOSPACE(-1007): No space on storage target",
        {"code": "DER_NOSPACE", "rc": "-1007"},
    ),
    (  # daos-stack/daos docs/admin/rebuild_controls.md
        "storage.daos_no_permission",
        "ERROR: dmg: pool-rebuild stop failed: DER_NO_PERM(-1001): No permission",
        {"rc": "-1001"},
    ),
    (  # awslabs/mountpoint-s3 pull request #703 (doc/TROUBLESHOOTING.md, the newer wording)
        "storage.mountpoint_s3_out_of_order_write",
        "mountpoint_s3::fuse: write failed: upload error: out of order write NOT supported by "
        "Mountpoint, aborting the upload; expected offset 0 but got 512",
        {"expected": "0", "got": "512"},
    ),
    (  # awslabs/mountpoint-s3 pull request #1334 (the description)
        "storage.mountpoint_s3_request_failed",
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: get request "
        "terminated unexpectedly",
        {"op": "read", "errno": "5"},
    ),
    (  # juicedata/juicefs issue #5088 (Spark on JuiceFS over MinIO, the Hadoop SDK's log)
        "storage.juicefs_upload_failed",
        "> 24/08/15 03:20:27 ERROR JuiceFileSystemImpl: 2024/08/15 03:20:27.101709 juicefs[14] "
        "<ERROR>: upload chunk 4247266 (length: 2616981) fail: (max tries) upload block "
        "chunks/4/4247/4247266_0_2616981: SerializationError: failed to unmarshal error message",
        {"reason": "max tries", "key": "chunks/4/4247/4247266_0_2616981"},
    ),
    (  # juicedata/juicefs issue #182 (a comment: the Redis metadata engine timing out, syslog)
        "storage.juicefs_write_failed",
        "Feb 23 14:08:22 localhost /usr/local/bin/juicefs[15590]: juicefs[15590] <ERROR>: write "
        "inode:1209840 indx:0  input/output error",
        {"inode": "1209840"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    (  # node-problem-detector issue #786: NPD printing its rules at start, on a healthy node
        "storage.npd_readonly_filesystem",
        "I0401 06:17:52.095347 4510 log_monitor.go:80] Finish parsing log monitor config file "
        "/config/readonly-monitor.json: {WatcherConfig:{Plugin:kmsg} Rules:[{Type:permanent "
        "Condition:ReadonlyFilesystem Reason:FilesystemIsReadOnly Pattern:Remounting filesystem "
        "read-only}]}",
    ),
    (  # kubernetes/node-problem-detector issue #1071: the condition's healthy state
        "storage.npd_readonly_filesystem",
        "  ReadonlyFilesystem   False  FilesystemIsNotReadOnly      Filesystem is not read-only",
    ),
    # the drive's own sense report (DID_OK) is the medium entry's, an optical drive is no disk
    (  # an Apache Jira report quoted in the index (a NodeManager's shuffle disk)
        "storage.scsi_host_failed",
        "sd 6:0:5:0: [sdf]  Result: hostbyte=DID_OK driverbyte=DRIVER_SENSE",
    ),
    (  # a USB optical drive timing out (kernel bug report quoted in the index)
        "storage.scsi_host_failed",
        "May 28 14:03:37 watership kernel: sr 1:0:0:0: [sr0] tag#0 FAILED Result: "
        "hostbyte=DID_TIME_OUT driverbyte=DRIVER_OK cmd_age=31s",
    ),
    # gcsfuse failing on its own (bad mount options) or killed at its memory limit is not a
    # pod being torn down (gcs-fuse-csi-driver README and e2e tests)
    (
        "storage.gcsfuse_terminated",
        'MountVolume.SetUp failed for volume "gcs-fuse-csi-ephemeral" : rpc error: code = '
        "Internal desc = the sidecar container failed with error: gcsfuse exited with error: "
        "exit status 1",
    ),
    ("storage.gcsfuse_terminated", "gcsfuse exited with error: signal: killed"),
    # hung-task frames outside a shared file system client (aws/aws-parallelcluster issue #1150)
    (
        "storage.shared_fs_wait",
        "Jun 17 20:18:08 ip-172-31-27-211 kernel: [<ffffffffa1766921>] "
        "schedule_timeout+0x221/0x2d0",
    ),
    # removable, flash and virtual devices say nothing about the node
    ("*", "blk_update_request: I/O error, dev mtdblock1, sector 0"),  # coolsnowwolf/lede #119
    (  # khadas/u-boot issue #44
        "*",
        "[    3.462611] blk_update_request: I/O error, dev mmcblk2, sector 0 op 0x0:(READ) flags "
        "0x0 phys_seg 1 prio class 0",
    ),
    (  # openwrt/openwrt pull request #4036
        "*",
        "[   20.724439] Buffer I/O error on dev mtdblock2, logical block 1, async page read",
    ),
    # benign lines of the shared corpus bundles (tests/corpus, system logs)
    (
        "*",
        "[Thu Mar  5 15:27:23 2026] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data "
        "mode. Opts: (null). Quota mode: none.",
    ),
    ("*", "[Thu Mar  5 15:27:22 2026] nvme nvme0: pci function 0000:41:00.0"),
    # mount chatter (dm-vdo/kvdo issue #25)
    ("*", "Jul 26 12:25:28 hdp-datanode-1 kernel: XFS (vda1): Ending clean mount"),
    ("*", "Jul 26 05:55:54 hdp-datanode-1 kernel: XFS (dm-1): Mounting V5 Filesystem"),
    # a block error's op is not a medium error, and a medium error is not a plain I/O one
    (
        "storage.block_medium_error",
        "[  415.118808] blk_update_request: I/O error, dev nvme1n1, sector 823872 op 0x0:(READ) "
        "flags 0x80700 phys_seg 1 prio class 0",
    ),
    (
        "storage.block_io_error",
        "[104802.137143] blk_update_request: critical medium error, dev sdb, sector 4136641792",
    ),
    # an NFS OK is not an outage; an NFS outage is not its end
    ("storage.nfs_not_responding", "[32958.266147] nfs: server thinkcentre OK"),
    (
        "storage.nfs_ok",
        "[1576939.453001] nfs: server 100.73.159.36 not responding, still trying",
    ),  # nfs-ganesha/nfs-ganesha issue #1295
    # the same client's complaint that its id is taken names no failed lease (TIGRLab/admin #234)
    (
        "storage.nfs4_state_manager_failed",
        "[108570.205588] NFS: Server tigrsrv reports our clientid is in use",
    ),
    # ENOSPC is not EIO and EIO is not ENOSPC
    ("storage.eio", "OSError: [Errno 28] No space left on device"),
    ("storage.no_space", "OSError: [Errno 5] Input/output error"),
    # a sentence that names the error is no TensorFlow errno
    ("storage.eio", "retrying after an Input/output error"),
    # --- round 8: status lines of the same clients are not failures ---
    # (ceph/ceph-csi issue #4050: a new session, a map marking the OSD up again, the module load)
    ("*", "[  164.209024] libceph: mon2 (1)10.0.0.247:6789 session established"),
    ("*", "[10205.084527] libceph (fb30d64e-7a8c-46d3-bbd7-77a3b1f080d1 e859): osd2 up"),
    ("*", "[  164.191591] libceph: loaded (mon/osd proto 15/24)"),
    # a reconnect starting is not one denied (ceph/ceph pull request #65325)
    ("*", "Jul 20 08:14:38 teuthology kernel: [3677601.128019] ceph: mds0 reconnect start"),
    # the BeeGFS module's own setup chatter (ThinkParQ/beegfs issue #89)
    ("*", "[12964845.755104] beegfs: mount(1516568): Built without NVFS RDMA support."),
    # GPFS reconnecting and recovering (IBM Storage Scale 5.2.1 docs, network failure)
    ("*", "Mon Jun 25 22:23:37.300 2018: Connecting to 192.168.10.109 c5n109"),
    ("*", "Mon Jun 25 22:23:38.722 2018: Recovered 1 nodes."),
    # a DAOS entity that does not exist is neither an outage nor a full pool
    # (daos-stack/daos docs/admin/rebuild_controls.md)
    (
        "*",
        "ERROR: dmg: pool-rebuild stop failed: DER_NONEXIST(-1005): The specified entity does not "
        "exist",
    ),
    # Mountpoint's start-up warning (awslabs/mountpoint-s3 issue #775)
    (
        "*",
        "Feb 22 06:26:24 ip-172-31-81-58 mount-s3[1593]: [WARN] mountpoint_s3::cli: failed to "
        "detect network throughput. Using 10 gbps as throughput.",
    ),
    # a single retried upload is harmless in the maintainers' words (juicedata/juicefs #6249)
    (
        "*",
        "juicefs[335738] : Upload chunks/2/2799/2799261_0_39942: operation error S3: PutObject, "
        "exceeded maximum number of attempts, 1, https response error StatusCode: 0, RequestID: , "
        "HostID: , request send failed (try 1) [upload@cached_store.go:422]",
    ),
    # the warning before the error names the inode but not a failed commit (juicedata/juicefs #182)
    (
        "storage.juicefs_write_failed",
        "2021/02/22 13:55:24.702249 juicefs[60254] <WARNING>: write inode:5836 error: "
        "input/output error",
    ),
    # an S3 mount's ENOTCONN is the FUSE entry's, not a failed S3 request (mountpoint-s3 #930)
    (
        "storage.mountpoint_s3_request_failed",
        "ls: cannot open directory /mnt/applications/classtream/archives: Transport endpoint is "
        "not connected",
    ),
]

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    hits = assert_matches(key, line, expected)
    assert "python.exception" not in hits, "a specific signature must win over the generic one"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
