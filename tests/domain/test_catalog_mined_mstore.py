"""Real-line mining for the storage, cloud, outside-service and JAX/TPU emitters (session 23).

Each golden line was posted publicly (the thread is named beside it) and was not read by the
catalog, or was read with a meaning its emitter's source contradicts, before this session; the
entry that reads it now was added or widened from the emitter's own format string. Look-alikes
pin what each entry must leave alone: the emitter's other messages that mean something else."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame

from .golden import CATALOG, Golden, golden_line_checks, hits

# The entries this mining added or widened, with the blame each decides.
BLAME: dict[str, Blame] = {
    "storage.gcsfuse_op_failed": Blame.SYMPTOM,
    "storage.gcsfuse_op_error": Blame.SYMPTOM,
    "ocp.save_future_timeout": Blame.SYMPTOM,
    "checkpoint.file_unreadable": Blame.APPLICATION,
    "datasets.hub_unreachable": Blame.TRANSIENT,
    "service.s3_throttled": Blame.TRANSIENT,
    "service.access_denied": Blame.APPLICATION,
    "wandb.api_server_error": Blame.TRANSIENT,
    "blobfuse.auth_failed": Blame.APPLICATION,
    "storage.eio": Blame.SYMPTOM,
    "service.blobfile_retry": Blame.TRANSIENT,
    "tensorstore.file_lock_failed": Blame.SYMPTOM,
    "cloud.aws_scheduled_event": Blame.TRANSIENT,
}

GOLDEN: Golden = [
    # GoogleCloudPlatform/gcsfuse issue #516 (gcsfuse 0.34.1, a 200 GB file; JSON log wrapper)
    (
        '{"name":"root","levelname":"ERROR","severity":"ERROR","message":"fuse: *fuseops.'
        'SyncFileOp error: input/output error\\n","timestampSeconds":1618078232,'
        '"timestampNanos":397649044}',
        "storage.gcsfuse_op_failed",
        {"op": "SyncFile", "error": "input/output error"},
    ),
    (
        '{"name":"root","levelname":"ERROR","severity":"ERROR","message":"fuse: *fuseops.'
        'FlushFileOp error: input/output error\\n","timestampSeconds":1618078532,'
        '"timestampNanos":501263187}',
        "storage.gcsfuse_op_failed",
        {"op": "FlushFile", "error": "input/output error"},
    ),
    # GoogleCloudPlatform/gcsfuse issue #104 (gcsfuse 0.5, before the error mapping)
    (
        "fuse: 2015/08/05 09:18:20.810236 *fuseops.ReadDirOp error: readAllEntries: ReadEntries: "
        "ListObjects: EOF",
        "storage.gcsfuse_op_failed",
        {"op": "ReadDir", "error": "readAllEntries: ReadEntries: ListObjects: EOF"},
    ),
    # rendered from jacobsa/fuse connection.go Reply (since jacobsa/fuse #171, Feb 2025)
    (
        'E0301 10:04:05.123456 Op 0x0000a51c *fuseops.ReadFileOp] -> Error: "input/output error"',
        "storage.gcsfuse_op_failed",
        {"new_op": "ReadFile", "new_error": "input/output error"},
    ),
    # rendered from gcsfuse internal/fs/wrappers/error_mapping.go mapError (EIO, EACCES)
    (
        "E0118 10:47:13.103153 ReadFile: input/output error, fh.reader.ReadAt: readFull: not "
        'retrying Read("data/shard-00017.tar", 1673924215857402): stream error: stream ID 9713; '
        "INTERNAL_ERROR; received from peer",
        "storage.gcsfuse_op_error",
        {"op": "ReadFile", "errno": "input/output error"},
    ),
    (
        "LookUpInode: permission denied, list objects: oauth2: cannot fetch token: Post "
        '"https://oauth2.googleapis.com/token": context deadline exceeded',
        "storage.gcsfuse_op_error",
        {"op": "LookUpInode", "errno": "permission denied"},
    ),
    # keras-team/keras issue #23609 (an async Orbax save on CI timed out)
    (
        "ChainedFuture completed 0/1 futures but timed out after 1199.96 seconds",
        "ocp.save_future_timeout",
        {"done": "0", "total": "1", "seconds": "1199.96"},
    ),
    # pytorch/pytorch PR #170244 (the record-level miniz error, with PyTorch's new hint)
    (
        "*** RuntimeError: PytorchStreamReader failed reading file .format_version: invalid header "
        "or archive is corrupted. This is an internal miniz error. If you are seeing this error, "
        "there is a high likelihood that your checkpoint file is corrupted.",
        "checkpoint.file_unreadable",
        {"record": ".format_version", "miniz": "invalid header or archive is corrupted"},
    ),
    # huggingface/datasets issue #1797 and argilla-io/argilla issue #673 (datasets 1.x)
    (
        "ConnectionError: Couldn't reach https://raw.githubusercontent.com/huggingface/datasets/"
        "1.0.2/datasets/xsum/xsum.py",
        "datasets.hub_unreachable",
        {
            "url": "https://raw.githubusercontent.com/huggingface/datasets/1.0.2/datasets/xsum/xsum.py"
        },
    ),
    (
        "ConnectionError: Couldn't reach https://gitlab.lip6.fr/scialom/mlsum_data/-/raw/master/"
        "MLSUM/es_train.zip",
        "datasets.hub_unreachable",
        {"url": "https://gitlab.lip6.fr/scialom/mlsum_data/-/raw/master/MLSUM/es_train.zip"},
    ),
    # ssl-hep/ServiceX PR #958 (minio-py against an overwhelmed Ceph object store)
    (
        "minio.error.S3Error: S3 operation failed; code: SlowDown, message: None, resource: None, "
        "request_id: tx0000032ac6ddfe2121a06-0067943977-aeca260-af-object-store, host_id: "
        "aeca260-af-object-store-af-object-store",
        "service.s3_throttled",
        {"minio_code": "SlowDown"},
    ),
    # Azure/azure-storage-fuse issue #1591 (blobfuse2 2.x, azcore's ResponseError lines)
    (
        "RESPONSE 403: 403 This request is not authorized to perform this operation using this "
        "permission.",
        "service.access_denied",
        {},
    ),
    ("ERROR CODE: AuthorizationPermissionMismatch", "service.access_denied", {}),
    # skyplane-project/skyplane issue #354 (azure-storage-blob while a role assignment propagated)
    (
        "azure.core.exceptions.HttpResponseError: This request is not authorized to perform this "
        "operation using this permission.",
        "service.access_denied",
        {},
    ),
    # wandb/wandb issue #7267 (debug-internal.log: the GraphQL call's 500, then its retry)
    (
        "2024-03-30 17:51:42 ERROR   SenderThread:33739 [internal_api.py:execute():373] 500 "
        "response executing GraphQL.",
        "wandb.api_server_error",
        {"gql_status": "500"},
    ),
    # Azure/azure-storage-fuse issue #554 (blobfuse 1.3.6 behind a storage firewall)
    (
        "Unable to start blobfuse due to a lack of credentials. Please check the readme for valid "
        "auth setups.",
        "blobfuse.auth_failed",
        {},
    ),
    # GoogleCloudPlatform/gcsfuse issues #190 and #126, s3fs-fuse/s3fs-fuse issue #581
    ("ls: reading directory '.': Input/output error", "storage.eio", {"tool": "ls"}),
    (
        'rsync: ftruncate failed on "/bucket/my/r_p.cpp": Input/output error (5)',
        "storage.eio",
        {"tool": "rsync"},
    ),
    ("cat: testfile: Input/output error", "storage.eio", {"tool": "cat"}),
    # awslabs/mountpoint-s3 issue #738 (tar | gzip writing to a Mountpoint mount)
    ("gzip: stdout: Input/output error", "storage.eio", {"tool": "gzip"}),
]

GOLDEN += [
    # blobfile/blobfile issue #107 (blobfile 0.x, GCS answering 429 and 503 to concurrent writers)
    (
        "[blobfile] error request failed with status 429 when executing http request <Request "
        "method=POST url=https://storage.googleapis.com/upload/storage/v1/b/bucket/o>",
        "service.blobfile_retry",
        {"status": "429"},
    ),
    (
        "error request failed with status 503 when executing http request <Request method=PUT "
        "url=https://www.googleapis.com/upload/storage/v1/b/<bucket>/o?uploadType=resumable&"
        "upload_id=",
        "service.blobfile_retry",
        {"status": "503"},
    ),
    # rendered from blobfile _common.py execute_request (blobfile 1.x and later)
    (
        "error message=unexpected status 503: if you are writing a blob this error may be due to "
        "multiple concurrent writers - make sure you are not writing to the same blob from "
        "multiple processes simultaneously, request=<Request method=PUT url=https://storage."
        "googleapis.com/upload/storage/v1/b/bkt/o>, status=503, error=None, error_description=None,"
        " error_headers=None when executing http request <Request method=PUT url=https://storage."
        "googleapis.com/upload/storage/v1/b/bkt/o> attempt 3, sleeping for 2.4 seconds before "
        "retrying",
        "service.blobfile_retry",
        {"new_status": "503"},
    ),
]

GOLDEN += [
    # google-research/t5x issue #452 (TensorStore 0.1.19 writing a checkpoint to GPFS)
    (
        'ValueError: Error opening "zarr" driver: Error writing local file "/gpfsnyu/scratch/'
        "kf2395/jukemir_t5/pretrain/checkpoint_100.tmp-1650949633/state.param_states.decoder."
        'layers_0.pre_cross_attention_layer_norm.scale.v/.zarray": Failed to acquire lock on file: '
        "/gpfsnyu/scratch/kf2395/jukemir_t5/pretrain/checkpoint_100.tmp-1650949633/state."
        "param_states.decoder.layers_0.pre_cross_attention_layer_norm.scale.v/.zarray.__lock",
        "tensorstore.file_lock_failed",
        {},
    ),
    # femiwiki/femiwiki issue #24 and harmony-one/harmony-ops issue #42 (EC2 retirement notices)
    (
        "EC2 has detected degradation of the underlying hardware hosting your Amazon EC2 instance "
        "(instance-ID: i-08c5e37b25e2b12d7) in the ap-northeast-1 region. Due to this degradation,"
        " your instance could already be unreachable.",
        "cloud.aws_scheduled_event",
        {"instance": "i-08c5e37b25e2b12d7"},
    ),
    (
        "EC2 has detected degradation of the underlying hardware hosting your Amazon EC2 instance "
        "(instance-ID: i-0f06451ba2ca27c9c) associated with your AWS account (AWS Account ID: "
        "656503231766) in the eu-central-1 region. Due to this degradation your instance could "
        "already be unreachable. We will stop your instance after 2019-09-11 08:00 UTC.",
        "cloud.aws_scheduled_event",
        {"instance": "i-0f06451ba2ca27c9c"},
    ),
]

# The emitters' other messages, and the same words elsewhere, that the entries must leave alone.
NEGATIVE: list[tuple[str, str]] = [
    # a cancelled read (the reading process was interrupted or killed): a consequence, not a
    # storage failure (GoogleCloudPlatform/gcsfuse issue #402, gcs-fuse-csi-driver issue #36)
    (
        "storage.gcsfuse_op_failed",
        "fuse: 2020/06/18 21:07:50.890584 *fuseops.ReadFileOp error: fh.reader.ReadAt: readFull: "
        "context canceled",
    ),
    (
        "storage.gcsfuse_op_failed",
        "E0609 fuse: *fuseops.LookUpInodeOp error: interrupted system call",
    ),
    (
        "storage.gcsfuse_op_failed",
        'Op 0x0000a51c *fuseops.ReadFileOp] -> Error: "interrupted system call"',
    ),
    (
        "storage.gcsfuse_op_error",
        "E0609  ReadFile: interrupted system call, fh.reader.ReadAt: readFull: context canceled",
    ),
    (
        "storage.gcsfuse_op_error",
        "E0609 LookUpInode: interrupted system call, list objects: Error in iterating through "
        "objects: context canceled",
    ),
    # the FUSE library's healthy debug replies (GoogleCloudPlatform/gcsfuse issue #891)
    (
        "storage.gcsfuse_op_failed",
        "D0118 10:35:12.981688 fuse_debug: Op 0x0001b6ed        connection.go:498] -> OK ()",
    ),
    # Orbax's healthy completion log
    ("ocp.save_future_timeout", "ChainedFuture completed 2/2 futures in 14.03 seconds."),
    # a record that could not be read (the storage, not the content) stays the read entry's
    (
        "checkpoint.file_unreadable",
        "RuntimeError: [enforce fail at inline_container.cc:396] . PytorchStreamReader failed "
        "reading file data/0: file read failed",
    ),
    # offline mode is the job's configuration; a URL followed by more text is not datasets 1.x's
    (
        "datasets.hub_unreachable",
        "ConnectionError: Couldn't reach 'openai/gsm8k' on the Hub (OfflineModeIsEnabled)",
    ),
    ("datasets.hub_unreachable", "Couldn't reach https://example.com/data.json; skipping it"),
    # minio's other codes: the job's key, bucket or credentials
    (
        "service.s3_throttled",
        "minio.error.S3Error: S3 operation failed; code: NoSuchKey, message: The specified key "
        "does not exist., resource: /bucket/ckpt.pt, request_id: 17A, host_id: dd9",
    ),
    (
        "service.s3_throttled",
        "minio.error.S3Error: S3 operation failed; code: AccessDenied, message: Access Denied., "
        "resource: /bucket, request_id: 17B, host_id: dd9",
    ),
    # azcore's 5xx and 404 answers are not a refusal of access
    (
        "service.access_denied",
        "RESPONSE 503: 503 The server is busy.",
    ),
    ("service.access_denied", "ERROR CODE: ContainerNotFound"),
    ("service.access_denied", "ERROR CODE: ServerBusy"),
    # blobfile's non-retryable answers are raised, not retried: the job's bucket or credentials
    (
        "service.blobfile_retry",
        "error request failed with status 404 when executing http request <Request method=GET "
        "url=https://storage.googleapis.com/storage/v1/b/bkt/o/x>",
    ),
    (
        "service.blobfile_retry",
        "error message=unexpected status 403: credentials were found but do not grant access to "
        "this resource when executing http request <Request method=GET url=https://x>",
    ),
    # W&B's 4xx answers are the job's configuration (not a server error)
    ("wandb.api_server_error", "404 response executing GraphQL."),
    ("wandb.api_server_error", "403 response executing GraphQL."),
    # other tools' lines that end in the same strerror but are not coreutils' or rsync's format
    ("storage.eio", "Input/output error"),
    ("storage.eio", "mylsbackup: copied 3 files, 0 errors"),
    ("storage.eio", "lsblk: /dev/nvme0n1: Input/output error and more text afterwards"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


@pytest.mark.parametrize("key", ["storage.gcsfuse_op_failed", "storage.gcsfuse_op_error"])
def test_fuse_mount_errors_act_on_no_node(key: str) -> None:
    """A FUSE op failing is the mount's or the store's, read with the lines beside it: it names
    no node and takes no action on the one it was printed on."""
    assert CATALOG.signatures[key].node_action.value == "none"


def test_a_gcs_5xx_behind_a_fuse_op_stays_the_server_error() -> None:
    """The mount's symptom and the store's 5xx both read the line; the transient 5xx decides."""
    line = (
        "fuse: 2017/08/29 07:27:40.790608 *fuseops.LookUpInodeOp error: LookUpChild: "
        "statObjectMayNotExist: StatObject: googleapi: got HTTP response code 503 with body:"
    )
    found = hits(line)
    assert {"storage.gcsfuse_op_failed", "gcsfuse.gcs_server_error"} <= set(found)
