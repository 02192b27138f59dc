"""Golden lines from the sixth tracker sweep over TensorFlow / Keras / Horovod / MXNet /
PaddlePaddle / JAX distributed GPU training (signatures-tfstack.toml and the entries of other
families these threads hit): TensorFlow's allocator and cuDNN start-up failures, its
parameter-server and collective runtime over gRPC, its GCS and S3 file systems, Horovod's stall
report and Gloo launcher, MXNet's and PaddlePaddle's GPU allocators and Paddle's launcher.

Each line is verbatim from the public thread cited beside it and goes through the scanner's own
matcher; the blame is pinned to what the line's emitter means: out of memory and a library the
build rejects are the job's, a stalled or 5xx transfer to an object store is transient, a lost
peer, a launcher's verdict or a start-up failure with its reason elsewhere is a symptom. No
entry of the family acts on a node. Look-alikes (the SDK's own retry notice, a probed key that
is missing, healthy launcher lines) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
)

FAMILY_FILE = "signatures-tfstack.toml"
NAMESPACES = frozenset({"tf", "tsl", "awssdk", "grpc", "horovod", "mxnet", "paddle"})
FAMILY_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    # this family
    "tf.oom_allocating_tensor": Blame.APPLICATION,
    "tf.cudnn_init_failed": Blame.SYMPTOM,
    "tf.dnn_library_missing": Blame.APPLICATION,
    "tf.gpu_libraries_missing": Blame.APPLICATION,
    "tf.cudnn_version_mismatch": Blame.APPLICATION,
    "tf.ps_worker_closure_error": Blame.SYMPTOM,
    "tf.collective_incarnation_mismatch": Blame.SYMPTOM,
    "tf.partition_cleanup_error": Blame.SYMPTOM,
    "grpc.os_error": Blame.SYMPTOM,
    "tsl.http_request_stalled": Blame.TRANSIENT,
    "tsl.gce_metadata_unreachable": Blame.SYMPTOM,
    "tsl.cloud_retries_exhausted": Blame.SYMPTOM,
    "awssdk.curl_transfer_failed": Blame.TRANSIENT,
    "awssdk.curl_connect_failed": Blame.SYMPTOM,
    "awssdk.http_server_error": Blame.TRANSIENT,
    "horovod.stalled_tensor": Blame.SYMPTOM,
    "horovod.process_exit": Blame.SYMPTOM,
    "mxnet.gpu_oom": Blame.APPLICATION,
    "paddle.gpu_oom": Blame.APPLICATION,
    "paddle.launch_container_failed": Blame.SYMPTOM,
    "paddle.failure_signal": Blame.SYMPTOM,
    # other families' entries the same threads hit
    "cuda.library_execution_failed": Blame.SYMPTOM,
    "cuda.library_alloc_failed": Blame.APPLICATION,
    "cuda.oom": Blame.APPLICATION,
    "grpc.transport_closed": Blame.SYMPTOM,
    "grpc.deadline_exceeded": Blame.SYMPTOM,
    "horovod.stall_warning": Blame.SYMPTOM,
    "horovod.shut_down": Blame.SYMPTOM,
    "nccl.remote_error": Blame.SYMPTOM,
    "xla.nccl_failed": Blame.SYMPTOM,
    "xla.cuda_backend_env": Blame.APPLICATION,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # keras-team/keras issue #9643 (multi_gpu_model over two GPUs)
    (
        "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with "
        "shape[128,128,109,109] and type float on /job:localhost/replica:0/task:0/device:GPU:1 "
        "by allocator GPU_1_bfc",
        "tf.oom_allocating_tensor",
        {
            "shape": "128,128,109,109",
            "dtype": "float",
            "device": "/job:localhost/replica:0/task:0/device:GPU:1",
        },
    ),
    # tensorflow/tensorflow issue #1355 (models trained in a loop)
    (
        "W tensorflow/core/common_runtime/executor.cc:1076] 0x18ef02bb0 Compute status: Resource "
        "exhausted: OOM when allocating tensor with shape",
        "tf.oom_allocating_tensor",
        {},
    ),
    # irdanish11/AnomalyEventDetection issue #1, mozilla/DeepSpeech issue #2211
    (
        "  (0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN "
        "failed to initialize, so try looking to see if a warning log message was printed above.",
        "tf.cudnn_init_failed",
        {},
    ),
    (
        "tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution "
        "algorithm. ",
        "tf.cudnn_init_failed",
        {},
    ),
    # recommenders-team/recommenders issue #2312 (the GPU nightly ran TF on the CPU)
    (
        "2026-04-27 02:03:44.118530: W tensorflow/core/common_runtime/gpu/gpu_device.cc:2344] "
        "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above "
        "are installed properly if you would like to use GPU.",
        "tf.gpu_libraries_missing",
        {},
    ),
    # tensorflow/text issue #1167
    (
        "2023-06-19 17:03:27.841329: W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES "
        "failed at conv_ops.cc:1068 : UNIMPLEMENTED: DNN library is not found.",
        "tf.dnn_library_missing",
        {},
    ),
    # endernewton/tf-faster-rcnn issue #436 (TF 1.x wording)
    (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7201 "
        "(compatibility version 7200) but source was compiled with 7004 (compatibility version "
        "7000).  If using a binary install, upgrade your CuDNN library to match.",
        "tf.cudnn_version_mismatch",
        {"loaded": "7201", "compiled": "7004"},
    ),
    # tensorflow/tensorflow issue #37606 and bmaltais/kohya_ss issue #2787 (the later wording)
    (
        "2020-07-02 18:49:18.254447: E tensorflow/stream_executor/cuda/cuda_dnn.cc:320] Loaded "
        "runtime CuDNN library: 7.5.0 but source was compiled with: 7.6.3.  CuDNN library major "
        "and minor version needs to match or have higher minor version in case of CuDNN 7.0 or "
        "later version.",
        "xla.cuda_backend_env",
        {"loaded": "7.5.0", "compiled": "7.6.3"},
    ),
    (
        "E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:447] Loaded runtime CuDNN "
        "library: 8.7.0 but source was compiled with: 8.9.4.  CuDNN library needs to have "
        "matching major version and equal or higher minor version.",
        "xla.cuda_backend_env",
        {"loaded": "8.7.0", "compiled": "8.9.4"},
    ),
    # tensorflow/tensorflow issues #39264, #14111 and Antimalweb/URLNet issue #7
    (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
        "CUDNN_STATUS_INTERNAL_ERROR",
        "cuda.library_execution_failed",
        {"status": "CUDNN_STATUS_INTERNAL_ERROR"},
    ),
    (
        "emb_mode 1 delimit_mode 1 test_size 10:   0% 0/1 [00:00<?, ?it/s]2019-05-08 "
        "02:09:42.922192: E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create "
        "cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
        "cuda.library_execution_failed",
        {},
    ),
    # tensorflow/tensorflow issues #9489 and #30912
    (
        "2017-12-30 21:18:15.018347: E tensorflow/stream_executor/cuda/cuda_blas.cc:366] failed "
        "to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED",
        "cuda.library_alloc_failed",
        {"status": "CUBLAS_STATUS_NOT_INITIALIZED"},
    ),
    (
        "2019-07-21 23:23:06.228049: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed "
        "to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        "cuda.oom",
        {},
    ),
    # tensorflow/tensorflow issue #57760 (ParameterServerStrategy, a PS pod gone)
    (
        "ERROR:tensorflow:/job:worker/task:2 encountered the following error when processing "
        "closure: UnavailableError():Graph execution error:",
        "tf.ps_worker_closure_error",
        {"task": "/job:worker/task:2", "error": "UnavailableError"},
    ),
    (
        ':{"created":"@1663638747.953042461","description":"Error received from peer '
        'ipv4:10.244.14.61:2222","file":"external/com_github_grpc_grpc/src/core/lib/surface/'
        'call.cc","file_line":1056,"grpc_message":"Socket closed","grpc_status":14}',
        "grpc.transport_closed",
        {"reason": "Socket closed"},
    ),
    # google/automl issue #964 (MultiWorkerMirroredStrategy on Kubeflow)
    (
        "Bad status from CompleteGroupDistributed: Failed precondition: Device "
        "/job:worker/replica:0/task:1/device:GPU:0 current incarnation doesn't match with one in "
        "the group. This usually means this worker has restarted but the collective leader "
        "hasn't, or this worker connects to a wrong cluster.",
        "tf.collective_incarnation_mismatch",
        {"device": "/job:worker/replica:0/task:1/device:GPU:0"},
    ),
    # tensorflow/tensorflow issue #60706 (MultiWorkerMirroredStrategy, a worker not answering)
    (
        "2023-05-25 11:10:57.934361: E tensorflow/core/common_runtime/"
        "base_collective_executor.cc:249] BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: "
        "Deadline Exceeded",
        "grpc.deadline_exceeded",
        {},
    ),
    # tensorflow/tensorflow issue #6780
    (
        "E tensorflow/core/distributed_runtime/master_session.cc:1372] Cleanup partition error: "
        "Unavailable",
        "tf.partition_cleanup_error",
        {"code": "Unavailable"},
    ),
    # tensorflow/tensorflow issues #17852 and #12080
    (
        "I0320 05:57:29.309552659    3803 subchannel.cc:677]          Connect failed: "
        '{"created":"@1521525449.309441854","description":"Failed to connect to remote host: OS '
        'Error","errno":111,"file":"external/grpc/src/core/lib/iomgr/tcp_client_posix.cc",'
        '"file_line":198,"os_error":"Connection refused","syscall":"connect",'
        '"target_address":"ipv4:10.0.1.4:14417"}',
        "grpc.os_error",
        {"os_error": "Connection refused", "syscall": "connect", "target": "ipv4:10.0.1.4:14417"},
    ),
    (
        "2017-08-07 03:51:42.191472: E tensorflow/core/distributed_runtime/master.cc:251] Master "
        'init: Unavailable: {"created":"@1502077902.191300911","description":"OS Error",'
        '"errno":104,"file":"external/grpc/src/core/lib/iomgr/tcp_posix.c","file_line":229,'
        '"grpc_status":14,"os_error":"Connection reset by peer","syscall":"recvmsg"}',
        "grpc.os_error",
        {"os_error": "Connection reset by peer", "syscall": "recvmsg"},
    ),
    # GoogleCloudPlatform/practical-ml-vision-book issue #16
    (
        "2024-12-08 20:57:51.545394: E external/local_tsl/tsl/platform/cloud/"
        "curl_http_request.cc:611] The transmission  of request 0x7fe450001930 (URI: "
        "https://storage.googleapis.com/practical-ml-vision-book/flowers_5_jpeg%2Fflower_photos"
        "%2Ftulips%2F8623170936_83f4152431.jpg) has been stuck at 0 of 0 bytes for 61 seconds "
        "and will be aborted. CURL timing information: lookup time: 0.0012 (No error)",
        "tsl.http_request_stalled",
        {"seconds": "61"},
    ),
    # google-research/t5x issue #1544 (off Google Cloud: no metadata server)
    (
        "2024-04-23 06:48:27.103605: E tensorflow/tsl/platform/cloud/curl_http_request.cc:610] "
        "The transmission  of request 0x1c1c6fa0 (URI: http://metadata.google.internal/"
        "computeMetadata/v1/instance/service-accounts/default/token) has been stuck at 0 of 0 "
        "bytes for 61 seconds and will be aborted.",
        "tsl.gce_metadata_unreachable",
        {
            "uri": "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/"
            "default/token"
        },
    ),
    # google-research/text-to-text-transfer-transformer issue #1092
    (
        "tensorflow.python.framework.errors_impl.AbortedError: All 10 retry attempts failed. The "
        "last failure: Error executing an HTTP request: libcurl code 7 meaning 'Couldn't connect "
        "to server', error details: Failed to connect to 127.0.0.1 port 65001 after 0 ms: Unknown "
        "error 111",
        "tsl.cloud_retries_exhausted",
        {"attempts": "10"},
    ),
    # tensorflow/io issue #2016
    (
        "tensorflow.python.framework.errors_impl.AbortedError: All 10 retry attempts failed. The "
        "last failure: Error executing an HTTP request: libcurl code 6 meaning 'Couldn't resolve "
        "host name', error details: Could not resolve host: metadata.google.internal",
        "tsl.cloud_retries_exhausted",
        {"attempts": "10"},
    ),
    # tensorflow/tensorflow issue #24357 and aws/sagemaker-python-sdk issue #454
    (
        "2018-12-14 01:13:09.892293: E tensorflow/core/platform/s3/aws_logging.cc:60] Curl "
        "returned error code 28",
        "awssdk.curl_transfer_failed",
        {"code": "28"},
    ),
    (
        "2018-11-02 19:06:20.388378: E tensorflow/core/platform/s3/aws_logging.cc:60] Curl "
        "returned error code 55",
        "awssdk.curl_transfer_failed",
        {"code": "55"},
    ),
    # kubeflow/website pull request #346 (TF Serving, an endpoint it could not resolve)
    (
        "2018-12-10 05:52:56.744106: E external/org_tensorflow/tensorflow/core/platform/s3/"
        "aws_logging.cc:60] Curl returned error code 6",
        "awssdk.curl_connect_failed",
        {"code": "6"},
    ),
    # tensorflow/tensorflow issue #59990 (tensorflow-io's S3, a 503 from the proxy)
    (
        "2023-03-15 12:26:40.081737: E tensorflow/c/logging.cc:40] HTTP response code: 503",
        "awssdk.http_server_error",
        {"code": "503"},
    ),
    # horovod/horovod issue #1442 (the stall inspector), #1012 and #534 (the older report)
    (
        "[1,0]<stderr>:[2019-10-09 15:36:43.594972: W horovod/common/stall_inspector.cc:105] One "
        "or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
        "and are waiting for remainder of ranks for more than 60 seconds.",
        "horovod.stall_warning",
        {},
    ),
    (
        "[1,0]<stderr>:[2019-04-13 13:53:31.851506: W horovod/common/operations.cc:588] "
        "HorovodBroadcast_dense_1_bias_Momentum_0 [missing ranks: 1]",
        "horovod.stalled_tensor",
        {"missing": "1"},
    ),
    (
        "HorovodBroadcast_fully_connected_weights_0 [missing ranks: 0]",
        "horovod.stalled_tensor",
        {"missing": "0"},
    ),
    # horovod/horovod issue #410 (a rank's exception, the others' shutdown)
    (
        "2018-07-30 06:41:52.525932: W tensorflow/core/framework/op_kernel.cc:1318] OP_REQUIRES "
        "failed at mpi_ops.cc:422 : Aborted: Horovod has been shut down. This was caused by an "
        "exception on one of the ranks or an attempt to allreduce, allgather or broadcast a "
        "tensor after one of the ranks finished execution.",
        "horovod.shut_down",
        {},
    ),
    # horovod/horovod issue #3472 (horovodrun with Gloo)
    ("Process 0 exit with status code 137.", "horovod.process_exit", {"rank": "0", "code": "137"}),
    # apache/mxnet issue #675, TuSimple/mx-maskrcnn issue #98
    (
        "mxnet.base.MXNetError: [11:18:15] src/storage/./pooled_storage_manager.h:157: cudaMalloc "
        "failed: out of memory",
        "mxnet.gpu_oom",
        {},
    ),
    (
        "  what():  [10:44:35] src/engine/./threaded_engine.h:359: [10:44:35] "
        "src/storage/./pooled_storage_manager.h:107: cudaMalloc failed: out of memory",
        "mxnet.gpu_oom",
        {},
    ),
    # PaddlePaddle/Paddle issue #42228 and PaddlePaddle/PaddleOCR issue #645
    (
        "Out of memory error on GPU 0. Cannot allocate 98.000244MB memory on GPU 0, 6.000000GB "
        "memory has been allocated and available memory is only 0.000000B.",
        "paddle.gpu_oom",
        {"gpu": "0", "size": "98.000244MB"},
    ),
    (
        "Out of memory error on GPU 0. Cannot allocate 3.125000GB memory on GPU 0, available "
        "memory is only 117.750000MB.",
        "paddle.gpu_oom",
        {"size": "3.125000GB"},
    ),
    # PaddlePaddle/PaddleDetection issue #7380 and PaddlePaddle/Paddle issue #63348
    (
        "LAUNCH ERROR 2022-11-21 02:35:54,385 Container failed !!!",
        "paddle.launch_container_failed",
        {},
    ),
    (
        "OSError: (External) NCCL error(6), remote process exited or there was a network error.",
        "nccl.remote_error",
        {},
    ),
    # PaddlePaddle/Paddle issue #24809
    (
        "W0529 18:27:06.378240 40642 init.cc:209] Warning: PaddlePaddle catches a failure signal, "
        "it may not work properly",
        "paddle.failure_signal",
        {},
    ),
    # jax-ml/jax issue #17399 (pmap across nodes)
    (
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error",
        "xla.nccl_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the line that names each library TF could not load is only its detail
    (
        "tf.gpu_libraries_missing",
        "2021-01-05 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] "
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
        "shared object file: No such file or directory",
    ),
    # the AWS SDK's own retry notice and a probed key that does not exist (TF's S3 file system
    # checks for objects with HEAD): routine
    (
        "awssdk.http_server_error",
        "2018-12-14 01:10:25.330682: E tensorflow/core/platform/s3/aws_logging.cc:60] No response "
        "body. Response code: 404",
    ),
    (
        "awssdk.curl_transfer_failed",
        "2018-11-02 19:06:20.388437: W tensorflow/core/platform/s3/aws_logging.cc:57] Request "
        "failed, now waiting 0 ms before attempting again.",
    ),
    # a timeout is the transfer entry's, not the connect entry's
    (
        "awssdk.curl_connect_failed",
        "E tensorflow/core/platform/s3/aws_logging.cc:60] Curl returned error code 28",
    ),
    ("awssdk.http_server_error", "I tensorflow/c/logging.cc:34] Returned http response code 200"),
    # a metadata-server stall is not the object store's
    (
        "tsl.http_request_stalled",
        "E tensorflow/tsl/platform/cloud/curl_http_request.cc:610] The transmission  of request "
        "0x1c1c6fa0 (URI: http://metadata.google.internal/computeMetadata/v1/token) has been "
        "stuck at 0 of 0 bytes for 61 seconds and will be aborted.",
    ),
    # a retry in progress is not the last one
    (
        "tsl.cloud_retries_exhausted",
        "I tensorflow/core/platform/cloud/retrying_utils.cc:73] The operation failed and will be "
        "automatically retried in 0.159809 seconds (attempt 1 out of 10), caused by: Unavailable",
    ),
    # healthy TensorFlow start-up lines
    (
        "tf.cudnn_version_mismatch",
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened "
        "dynamic library libcudnn.so.8",
    ),
    (
        "tf.oom_allocating_tensor",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device "
        "(/job:localhost/replica:0/task:0/device:GPU:0 with 6309 MB memory)",
    ),
    (
        "tf.ps_worker_closure_error",
        "INFO:tensorflow:Waiting for all global closures to be finished.",
    ),
    ("tf.collective_incarnation_mismatch", "INFO:tensorflow:Check health not enabled."),
    ("grpc.os_error", '{"created":"@1","description":"Deadline Exceeded","grpc_status":4}'),
    # Horovod's ready ranks and a clean exit
    ("horovod.stalled_tensor", "HorovodAllreduce_loss_Mean_0 [ready ranks: 3]"),
    ("horovod.process_exit", "Process 0 exit with status code 0 after 3 retries"),
    # Paddle's launcher while healthy, a PaddlePaddle memory notice that is no failure
    ("paddle.launch_container_failed", "LAUNCH INFO 2023-04-06 22:26:19,689 log_dir: log"),
    (
        "paddle.gpu_oom",
        "W1112 13:31:43.235133 28034 device_context.cc:338] Please NOTE: device: 0, CUDA "
        "Capability: 75, Driver API Version: 10.2, Runtime API Version: 10.2",
    ),
    ("mxnet.gpu_oom", "[11:18:15] src/storage/storage.cc:78: Using Pooled (Naive) StorageManager"),
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
) = family_contract({FAMILY_FILE: NAMESPACES}, {k: BLAME[k] for k in FAMILY_KEYS})


def test_no_entry_acts_on_a_node() -> None:
    """A framework's allocator, launcher or cloud client names no node to act on."""
    assert_no_node_action(FAMILY_KEYS)


def test_restatements_and_ambiguous_lines_stay_weak() -> None:
    """A lost peer, a launcher's verdict or a start-up failure whose reason is on another line
    never decides alone."""
    for key in sorted(FAMILY_KEYS):
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= 30, key


def test_object_store_stalls_retry_without_deciding_alone() -> None:
    """A stalled or failed transfer is the store's or the path's: transient, below the weight
    an outside service's own verdict (a 5xx through botocore) carries."""
    for key in ("tsl.http_request_stalled", "awssdk.curl_transfer_failed",
                "awssdk.http_server_error"):  # fmt: skip
        assert 0 < CATALOG.signatures[key].weight < 50, key
