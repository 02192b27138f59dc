"""Golden lines from sweep 10 over cloud object stores mounted through FUSE and their CSI drivers
(signatures-fusestorage.toml): gcsfuse's failed operations and mount, the GCS FUSE CSI driver's
rpc errors, blobfuse2's authentication, libfuse's missing device, rclone's missing helper,
Mountpoint for Amazon S3's refusals and throttling, s3fs's mount check and response codes,
goofys's bucket check and JuiceFS's unformatted volume.

Each line is a real one from the public thread or repository file cited beside it, or, where none
was found, the emitter's format string rendered (said so beside it); every line goes through the
scanner's own matcher. Blame is pinned to what a careful SRE reads from the one line: a 5xx or a
throttle from the store is transient; a bucket, credential, pod spec, mount flag or I/O pattern
the mount cannot serve is the job's setup; retry notices, progress and bare "failed to mount"
restatements stay unmatched. None of these names a node.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-fusestorage.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "gcsfuse.gcs_server_error": Blame.TRANSIENT,
    "gcsfuse.bucket_not_found": Blame.APPLICATION,
    "gcsfuse.write_needs_uniform_access": Blame.APPLICATION,
    "gcsfuse.cache_dir_permission": Blame.APPLICATION,
    "csi.gcsfuse_sidecar_missing": Blame.APPLICATION,
    "csi.gcsfuse_bucket_refused": Blame.APPLICATION,
    "csi.gcsfuse_invalid_mount_option": Blame.APPLICATION,
    "csi.gcsfuse_sidecar_killed": Blame.APPLICATION,
    "blobfuse.auth_failed": Blame.APPLICATION,
    "fuse.device_missing": Blame.APPLICATION,
    "rclone.fusermount_missing": Blame.APPLICATION,
    "mountpoint.unsupported_operation": Blame.APPLICATION,
    "mountpoint.archived_object": Blame.APPLICATION,
    "mountpoint.upload_limit": Blame.APPLICATION,
    "mountpoint.request_throttled": Blame.TRANSIENT,
    "s3fs.credentials_rejected": Blame.APPLICATION,
    "s3fs.server_error": Blame.TRANSIENT,
    "s3fs.access_denied": Blame.APPLICATION,
    "goofys.bucket_access_denied": Blame.APPLICATION,
    "juicefs.not_formatted": Blame.APPLICATION,
    "mountpoint.mount_refused": Blame.APPLICATION,
    "alluxio.master_connection_lost": Blame.TRANSIENT,
    # depth review (session 22), tests/domain/test_catalog_depth_dstore.py
    "mountpoint.request_forbidden": Blame.APPLICATION,
    "s3fs.wrong_region": Blame.APPLICATION,
    "s3fs.not_implemented": Blame.APPLICATION,
}

NAMESPACES = frozenset(
    {
        "gcsfuse",
        "csi",
        "blobfuse",
        "fuse",
        "rclone",
        "mountpoint",
        "s3fs",
        "goofys",
        "juicefs",
        "alluxio",
    }
)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # GoogleCloudPlatform/gcsfuse issues #408, #410 and #243 (GCS 503s through gcsfuse ops)
    (
        "fuseops.ReadFileOp error: fh.reader.ReadAt: startRead: NewReader: googleapi: got HTTP "
        "response code 503 with body: Backend Error",
        "gcsfuse.gcs_server_error",
        {"op": "fuseops.ReadFileOp", "status": "503"},
    ),
    (
        "fuseops.CreateFileOp error: CreateChildFile: googleapi: got HTTP response code 503 with "
        "body: [empty]",
        "gcsfuse.gcs_server_error",
        {"op": "fuseops.CreateFileOp", "status": "503"},
    ),
    (
        "fuse: 2017/08/29 07:27:40.790608 *fuseops.LookUpInodeOp error: LookUpChild: "
        "statObjectMayNotExist: StatObject: googleapi: got HTTP response code 503 with body:",
        "gcsfuse.gcs_server_error",
        {"op": "fuseops.LookUpInodeOp", "status": "503"},
    ),
    # GoogleCloudPlatform/gcsfuse issue #891 (GCS reset the HTTP/2 stream of a read)
    (
        "D0118 10:47:13.103128 debug_fs: ReadFile(1642, 786432): fh.reader.ReadAt: readFull: not "
        'retrying Read("device/imagearc/2027/01-08/ca/a7/63/tststrng-kkvps7frsz2cuxy58lha_original'
        '.jpg", 1673924215857402): Get "https://storage.googleapis.com:443/download/storage/v1/b/'
        "ph-dev-images-bkt/o/device%2Fimagearc%2F2027%2F01-08%2Fca%2Fa7%2F63%2Ftststrng-"
        'kkvps7frsz2cuxy58lha_original.jpg?alt=media&generation=1673924215857402": stream error: '
        "stream ID 9713; INTERNAL_ERROR; received from peer",
        "gcsfuse.gcs_server_error",
        {"read_op": "fh.reader.ReadAt"},
    ),
    # gcsfuse internal/fs/wrappers/error_mapping.go mapError "%s: %v, %v", rendered
    (
        "ReadFile: input/output error, fh.reader.ReadAt: readFull: googleapi: Error 503: We "
        "encountered an internal error. Please try again., backendError",
        "gcsfuse.gcs_server_error",
        {"op": "ReadFile", "status": "503"},
    ),
    # GoogleCloudPlatform/gcsfuse issue #459 (a gs:// prefix in the bucket name)
    (
        "daemonize.Run: readFromProcess: sub-process: mountWithArgs: mountWithConn: fs.NewServer: "
        'SetUpBucket: OpenBucket: Unknown bucket "gs://xxxxxxxx"',
        "gcsfuse.bucket_not_found",
        {"bucket": "gs://xxxxxxxx"},
    ),
    # GoogleCloudPlatform/gcs-fuse-csi-driver docs/troubleshooting.md (writes with Workload
    # Identity Federation, uniform bucket-level access off)
    (
        'CreateObject(\\"foo\\") (117.594269ms): gcs.PreconditionError: googleapi: Error 412: The '
        "type of authentication token used for this request requires that Uniform Bucket Level "
        'Access be enabled., conditionNotMet"}',
        "gcsfuse.write_needs_uniform_access",
        {},
    ),
    # gcs-fuse-csi-driver docs/troubleshooting.md (a custom cache volume without fsGroup)
    (
        "Panic: createFileCacheHandler: error while creating file cache directory: error in "
        "creating directory structure /gcsfuse-cache/.volumes/volume-name/gcsfuse-file-cache: "
        "mkdir /gcsfuse-cache/.volumes: permission denied",
        "gcsfuse.cache_dir_permission",
        {},
    ),
    # GoogleCloudPlatform/gcs-fuse-csi-driver issue #153 (the pod annotation missing)
    (
        'MountVolume.SetUp failed for volume "gcs-fuse-csi-pv" : rpc error: code = '
        "FailedPrecondition desc = failed to find the sidecar container in Pod spec",
        "csi.gcsfuse_sidecar_missing",
        {},
    ),
    # gcs-fuse-csi-driver docs/troubleshooting.md, the PermissionDenied and NotFound events
    (
        'MountVolume.SetUp failed for volume "xxx" : rpc error: code = PermissionDenied desc = '
        'failed to get GCS bucket "xxx": googleapi: Error 403: xxx@xxx.iam.gserviceaccount.com '
        "does not have storage.objects.list access to the Google Cloud Storage bucket. Permission "
        "'storage.objects.list' denied on resource (or it may not exist)., forbidden",
        "csi.gcsfuse_bucket_refused",
        {"code": "PermissionDenied", "bucket": "xxx"},
    ),
    (
        'MountVolume.SetUp failed for volume "xxx" : rpc error: code = NotFound desc = failed to '
        'get GCS bucket "xxx": storage: bucket doesn\'t exist',
        "csi.gcsfuse_bucket_refused",
        {"code": "NotFound", "bucket": "xxx"},
    ),
    # gcs-fuse-csi-driver docs/troubleshooting.md, the InvalidArgument event
    (
        'MountVolume.SetUp failed for volume "xxx" : rpc error: code = InvalidArgument desc = the '
        "sidecar container failed with error: Incorrect Usage. flag provided but not defined: -xxx",
        "csi.gcsfuse_invalid_mount_option",
        {},
    ),
    # gcs-fuse-csi-driver docs/troubleshooting.md, the two ResourceExhausted events
    (
        'MountVolume.SetUp failed for volume "xxx" : rpc error: code = ResourceExhausted desc = '
        "the sidecar container failed with error: signal: killed",
        "csi.gcsfuse_sidecar_killed",
        {},
    ),
    (
        'MountVolume.SetUp failed for volume "xxx" : rpc error: code = ResourceExhausted desc = '
        "the sidecar container terminated due to OOMKilled, exit code: 137",
        "csi.gcsfuse_sidecar_killed",
        {},
    ),
    # gcs-fuse-csi-driver pkg/csi_driver/utils.go checkContainerStatusErr, rendered
    (
        'rpc error: code = ResourceExhausted desc = the "gke-gcsfuse-sidecar" container terminated '
        "due to OOMKilled, exit code: 137",
        "csi.gcsfuse_sidecar_killed",
        {},
    ),
    # Azure/azure-storage-fuse issues #1376 and #1469 (blobfuse2's credentials refused)
    (
        "Error: failed to initialize new pipeline [failed to authenticate credentials for azstorage]",
        "blobfuse.auth_failed",
        {},
    ),
    (
        "Thu Jul 25 19:17:27 UTC 2024 : blobfuse2[6861] : [/home/amir/taha-mount] LOG_ERR "
        "[mount.go (413)]: mount : failed to initialize new pipeline [failed to authenticate "
        "credentials for azstorage]",
        "blobfuse.auth_failed",
        {},
    ),
    # Azure/azure-storage-fuse component/azstorage/config.go "config error in %s [%s]", rendered
    (
        "Error: failed to initialize new pipeline [config error in azstorage [account name not "
        "provided]]",
        "blobfuse.auth_failed",
        {"config": "account name not provided"},
    ),
    # StatCan/aaw issue #1738 (the Azure Blob CSI driver's event carrying blobfuse2's output)
    (
        "Warning  FailedMount  37s (x10 over 4m53s)  kubelet       MountVolume.MountDevice failed "
        'for volume "woody-biomass-detection-fdi-unclassified-wbd-eunc" : rpc error: code = '
        "Internal desc = Mount failed with error: rpc error: code = Unknown desc = exit status 1 "
        "*** blobfuse2: A new version [2.0.3] is available. Consider upgrading to latest version "
        "for bug-fixes & new features. ***                           Error: failed to initialize "
        "new pipeline [failed to authenticate credentials for azstorage] , output:",
        "blobfuse.auth_failed",
        {},
    ),
    # Azure/azure-storage-fuse issues #1651 and #602 (no /dev/fuse in the container) and
    # hackerschoice/segfault issue #112 (rclone's mount helper)
    ("fuse: device not found, try 'modprobe fuse' first", "fuse.device_missing", {}),
    (
        "2024/12/15 11:27:34 mount helper error: fusermount: fuse device not found, try 'modprobe "
        "fuse' first",
        "fuse.device_missing",
        {},
    ),
    # rclone/rclone issues #4268 and #6844 (fuse or fuse3 not installed)
    (
        "2020/05/23 22:09:03 Fatal error: failed to mount FUSE fs: fusermount: exec: "
        '"fusermount": executable file not found in $PATH',
        "rclone.fusermount_missing",
        {"helper": "fusermount"},
    ),
    (
        'Fatal error: failed to mount FUSE fs: fusermount: exec: "fusermount3": executable file '
        "not found in $PATH",
        "rclone.fusermount_missing",
        {"helper": "fusermount3"},
    ),
    # awslabs/mountpoint-s3 doc/TROUBLESHOOTING.md (operations Mountpoint refuses)
    (
        "mountpoint_s3_fs::fuse: rename failed with errno 38: inode error: rename is not "
        "supported on this bucket",
        "mountpoint.unsupported_operation",
        {"op": "rename", "errno": "38"},
    ),
    (
        "mountpoint_s3_fs::fuse: setattr failed: file overwrite is disabled by default, you need "
        "to remount with --allow-overwrite flag and open the file in truncate mode (O_TRUNC) to "
        "overwrite it",
        "mountpoint.unsupported_operation",
        {"op": "setattr"},
    ),
    (
        "mountpoint_s3_fs::fuse: unlink failed: Deletes are disabled. Use '--allow-delete' mount "
        "option to enable it.",
        "mountpoint.unsupported_operation",
        {"op": "unlink"},
    ),
    (
        "mountpoint_s3_fs::fuse: rename failed with errno 1: inode error: inode 2 (key "
        '"directory-a/") is a directory and cannot be renamed',
        "mountpoint.unsupported_operation",
        {"op": "rename", "errno": "1"},
    ),
    # awslabs/mountpoint-s3 doc/TROUBLESHOOTING.md (Glacier objects, upload and handle limits)
    (
        "mountpoint_s3_fs::inode: objects in the GLACIER and DEEP_ARCHIVE storage classes are "
        "only accessible if restored",
        "mountpoint.archived_object",
        {},
    ),
    (
        "mountpoint_s3_fs::fuse: write failed: upload error: object exceeded maximum upload size "
        "of 83886080000 bytes",
        "mountpoint.upload_limit",
        {"limit": "83886080000"},
    ),
    (
        "mountpoint_s3_fs::fuse: open failed with errno 12: cannot open file for writing: "
        "exceeded max allowed concurrent write file handles of 47 based on memory target 512MiB "
        "(part size is 8MiB). Increase --memory-target or decrease --write-part-size to allow "
        "for more concurrent writes, or close existing open-for-write file handles and retry "
        "open() operation.",
        "mountpoint.upload_limit",
        {"handles": "47"},
    ),
    # mountpoint-s3-fs s3/config.rs's cause chain inside the Mountpoint CSI driver's FailedMount
    # event, flattened onto one line as the event shows it (rendered)
    (
        'MountVolume.SetUp failed for volume "s3-pv" : rpc error: code = Internal desc = Could not '
        'mount "train-data" at "/var/lib/kubelet/pods/0d5c/volumes/kubernetes.io~csi/s3-pv/mount":'
        " Mount failed: Failed to start service output: Error: Failed to create S3 client Caused "
        "by: 0: initial ListObjectsV2 failed for bucket train-data in region us-west-2 1: Client "
        "error 2: Forbidden: Access Denied Error: Failed to create mount process",
        "mountpoint.mount_refused",
        {"bucket": "train-data", "region": "us-west-2", "reason": "Forbidden: Access Denied"},
    ),
    (
        "Error: Failed to create S3 client Caused by: 0: initial ListObjectsV2 failed for bucket "
        "train-data in region us-east-1 1: Client error 2: The bucket does not exist",
        "mountpoint.mount_refused",
        {"reason": "The bucket does not exist"},
    ),
    # awslabs/mountpoint-s3 doc/TROUBLESHOOTING.md (Throttling Errors)
    (
        "request failed request_type=Default http_status=503 range=None duration=426.995805ms "
        "ttfb=Some(7.681499ms) request_id=***",
        "mountpoint.request_throttled",
        {"status": "503"},
    ),
    # s3fs-fuse/s3fs-fuse issues #475 and #1156 (the mount's bucket check refused)
    (
        "[CRT] s3fs.cpp:s3fs_check_service(3806): invalid credentials - result of checking "
        "service.",
        "s3fs.credentials_rejected",
        {},
    ),
    (
        "[CRT] s3fs_check_service(3707): invalid credentials - result of checking service.",
        "s3fs.credentials_rejected",
        {},
    ),
    # s3fs-fuse src/s3fs.cpp s3fs_check_service, rendered
    (
        "s3fs: Failed to check bucket and directory for mount point : Bucket or directory not "
        "found(host=https://s3.amazonaws.com, message=The specified bucket does not exist)",
        "s3fs.credentials_rejected",
        {"reason": "Bucket or directory not found"},
    ),
    # s3fs-fuse src/curl.cpp RequestPerform, rendered
    (
        "curl.cpp:RequestPerform(2383): HTTP response code 503 was returned, returning EAGAIN",
        "s3fs.server_error",
        {"status": "503"},
    ),
    (
        "curl.cpp:RequestPerform(2112): HTTP response code 403, returning EPERM. Body Text: <?xml "
        'version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access '
        "Denied</Message></Error>",
        "s3fs.access_denied",
        {},
    ),
    # kahing/goofys issues #186 and #702 (the mount's bucket check refused)
    (
        "May 27 17:40:31 Brandons-MBP /Users/brandon/work/bin/goofys[7079]: main.ERROR Unable to "
        "access '<bucket-name>': permission denied",
        "goofys.bucket_access_denied",
        {"bucket": "<bucket-name>", "reason": "permission denied"},
    ),
    (
        "/usr/local/bin/goofys[135216]: s3.ERROR Unable to access 'mybucket': 401: 401 "
        "Unauthorized",
        "goofys.bucket_access_denied",
        {"bucket": "mybucket", "reason": "401: 401 Unauthorized"},
    ),
    # Alluxio/alluxio issue #15017 (Alluxio FUSE on training nodes losing the master)
    (
        "alluxio.exception.status.UnavailableException: Failed after 1 attempts: "
        "alluxio.exception.status.UnavailableException: Keepalive failed. The connection is "
        "likely gone",
        "alluxio.master_connection_lost",
        {},
    ),
    # juicedata/juicefs issue #6146 (a metadata engine without the volume)
    (
        "2025/05/26 20:42:32.592779 juicefs[14890] <FATAL>: database is not formatted, please "
        "run `juicefs format ...` first [main@main.go:31]",
        "juicefs.not_formatted",
        {},
    ),
    # depth review (session 22): rendered from mountpoint-s3-fs fuse.rs and the client's
    # S3RequestError::Forbidden (no public line of a read refused mid-run found)
    (
        'WARN read{req=14 ino=2 fh=1 offset=0 size=131072 name="shard-00000.tar"}: '
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: Client error: "
        "Forbidden: Access Denied",
        "mountpoint.request_forbidden",
        {"op": "read", "errno": "5", "message": "Access Denied"},
    ),
    # s3fs-fuse/s3fs-fuse issue #1195 (a bucket addressed through another region's endpoint)
    (
        "[ERR] curl.cpp:RequestPerform(2417): HTTP response code 301(Moved Permanently: also "
        "happens when bucket's region is incorrect), returning EIO. Body Text: <?xml "
        'version="1.0" encoding="UTF-8"?>',
        "s3fs.wrong_region",
        {},
    ),
    # rendered from s3fs-fuse curl.cpp RequestPerform's 501 case (no public line found)
    (
        "[INF]       curl.cpp:RequestPerform(2479): HTTP response code 501 was returned, "
        "returning ENOTSUP",
        "s3fs.not_implemented",
        {},
    ),
]

# (key, look-alike it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # rclone/rclone issue #550: rclone's own GCS copy, not a gcsfuse op
    (
        "gcsfuse.gcs_server_error",
        "2016/06/28 12:45:39 E9E/B0F1C92F67C452B8AB0A0F1B5E537: Failed to copy: googleapi: Error "
        "500: Backend Error, backendError",
    ),
    # GoogleCloudPlatform/gcsfuse issue #891: a healthy read in the debug log
    (
        "gcsfuse.gcs_server_error",
        'D0118 10:35:12.982286 gcs: Req           0x12f6: <- Read("device/imagearc/2027/01-08/ca/'
        'a7/63/tststrng-kkvps7frsz2cuxy58lha_original.jpg", [393216, 3868762))',
    ),
    # gcs-fuse-csi-driver issue #283: the webhook's own failure, which a restart cleared
    (
        "csi.gcsfuse_sidecar_missing",
        "Warning  FailedMount  3m58s (x890 over 30h)  kubelet  MountVolume.SetUp failed for "
        'volume "gcs-fuse-csi-ephemeral" : rpc error: code = Internal desc = the webhook failed '
        "to inject the sidecar container into the Pod spec",
    ),
    # gcs-fuse-csi-driver node.go: a pod lookup's NotFound, not the bucket's (rendered)
    (
        "csi.gcsfuse_bucket_refused",
        'rpc error: code = NotFound desc = failed to get pod: pods "train-0" not found',
    ),
    # s3fs-fuse src/curl.cpp: the retry notice and a 400 on a non-HEAD request (rendered)
    (
        "s3fs.server_error",
        "curl.cpp:RequestPerform(2367): HTTP response code 503 was returned, slowing down",
    ),
    (
        "s3fs.server_error",
        "curl.cpp:RequestPerform(2093): HTTP response code 400, returning EIO. Body Text: ",
    ),
    # mountpoint-s3 doc/TROUBLESHOOTING.md: setattr on a remote inode (touch), left open
    (
        "mountpoint.unsupported_operation",
        'mountpoint_s3_fs::fuse: setattr failed: inode error: inode 21 (full key "init.txt") is '
        "a remote inode and its attributes cannot be modified",
    ),
    # mountpoint-s3-client: a successful request's metrics line (rendered)
    (
        "mountpoint.request_throttled",
        "request finished request_type=Default http_status=200 range=None duration=12.5ms "
        "ttfb=Some(7.6ms) request_id=***",
    ),
    # awslabs/mountpoint-s3 doc/TROUBLESHOOTING.md: a DNS failure in the same chain (a path-style
    # endpoint, not the bucket's configuration), flattened as the CSI event shows it
    (
        "mountpoint.mount_refused",
        "Error: Failed to create S3 client Caused by: 0: initial ListObjectsV2 failed for bucket "
        "my-bucket in region us-east-1 1: Client error 2: Unknown CRT error 3: CRT error 1059: "
        "aws-c-io: AWS_IO_DNS_INVALID_NAME, Host name was invalid for dns resolution.",
    ),
    # Alluxio/alluxio issue #9020: the master unreachable at start (an authentication setting)
    (
        "alluxio.master_connection_lost",
        "alluxio.exception.status.UnavailableException: Failed to connect to "
        "FileSystemMasterClient @ alluxio-master/192.168.0.111:19998 after 44 attempts",
    ),
    # hackerschoice/segfault issue #112: rclone's closing line after fusermount's
    (
        "rclone.fusermount_missing",
        "2024/12/15 11:27:34 Fatal error: failed to mount FUSE fs: fusermount: exit status 1",
    ),
    # kahing/goofys issue #186: the closing line after the bucket check
    (
        "goofys.bucket_access_denied",
        "May 27 17:40:31 Brandons-MBP /Users/brandon/work/bin/goofys[7079]: main.FATAL Mounting "
        "file system: Mount: initialization failed",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_mount_lines_stay_unread() -> None:
    """Mount progress, garbage collection, debug traffic and retry notices are not findings."""
    healthy = [
        # GoogleCloudPlatform/gcsfuse issue #2391
        '{"timestamp":{"seconds":1724386014,"nanos":56292455},"severity":"INFO","message":"File '
        'system has been successfully mounted."}',
        '{"timestamp":{"seconds":1724386614,"nanos":75877035},"severity":"INFO","message":'
        '"Garbage collection succeeded after deleted 0 objects in 19.408277ms."}',
        # GoogleCloudPlatform/gcsfuse issue #891
        "D0118 10:35:12.981688 fuse_debug: Op 0x0001b6ed        connection.go:498] -> OK ()",
        # awslabs/mountpoint-s3 issue #712: the closing line after the cause chain
        "Error: Failed to create mount process",
        # juicedata/juicefs issue #4341
        "2024/01/15 10:12:26.314299 juicefs[58135] <INFO>: Mounting volume myjfs at "
        "/Users/lipeng/myjfs ... [mount_unix.go:269]",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_no_entry_names_a_node() -> None:
    """The store, the job's configuration or the pod's spec: never the node the daemon ran on."""
    assert_no_node_action(FAMILY)


def test_weights_follow_the_blame() -> None:
    """The store's 5xx and throttles are transient 50-70 (a retry survives them); the job's
    setup is application 55-75; the sidecar killed for memory weighs no more than 60."""
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert 50 <= sig.weight <= 70, key
        else:
            assert sig.blame is Blame.APPLICATION, key
            assert 55 <= sig.weight <= 75, key
    assert CATALOG.signatures["csi.gcsfuse_sidecar_killed"].weight <= 60
