"""Golden lines from sweep 9 over what distributed data processing prints when a job fails
(signatures-dataproc.toml): Dask's nanny, scheduler, worker and comms, RAPIDS RMM under cuDF,
dask-cuda and cuML, Apache Spark's executor losses, shuffle fetches and memory errors, and the
RAPIDS Accelerator for Spark's GPU out-of-memory retries.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a worker, executor, task or
GPU pool that ran out of its own memory is the job's; a lost executor or worker, a missed heartbeat,
a closed comm or a failed fetch only restates a failure elsewhere; a node YARN lost, a preempted
container or a decommissioned executor is outside the job. Healthy look-alikes must not match.
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

FILE = "signatures-dataproc.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "dask.worker_memory_budget_exceeded": Blame.APPLICATION,
    "dask.worker_memory_pressure": Blame.INFO,
    "dask.killed_worker": Blame.SYMPTOM,
    "dask.worker_heartbeat_failed": Blame.SYMPTOM,
    "dask.worker_process_died": Blame.SYMPTOM,
    "dask.connect_timeout": Blame.SYMPTOM,
    "dask.comm_closed": Blame.SYMPTOM,
    "dask.p2p_shuffle_failed": Blame.SYMPTOM,
    "dask.no_worker": Blame.SYMPTOM,
    "dask.no_valid_worker": Blame.APPLICATION,
    "ucxpy.endpoint_error": Blame.SYMPTOM,
    "rmm.out_of_memory": Blame.APPLICATION,
    "spark.yarn_memory_limit_exceeded": Blame.APPLICATION,
    "spark.executor_node_lost": Blame.TRANSIENT,
    "spark.executor_decommissioned": Blame.TRANSIENT,
    "spark.executor_lost": Blame.SYMPTOM,
    "spark.executor_possible_oom": Blame.APPLICATION,
    "spark.shuffle_fetch_failed": Blame.SYMPTOM,
    "spark.task_memory_exhausted": Blame.APPLICATION,
    "spark.jvm_out_of_memory": Blame.APPLICATION,
    "spark.driver_max_result_size": Blame.APPLICATION,
    "spark.python_worker_crashed": Blame.SYMPTOM,
    "sparkrapids.split_retry_oom": Blame.APPLICATION,
    "sparkrapids.retry_oom": Blame.APPLICATION,
    "ray.raylet_marked_dead_exit": Blame.SYMPTOM,
}

NAMESPACES = frozenset({"dask", "ucxpy", "rmm", "spark", "sparkrapids", "ray"})

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # CoffeaTeam/coffea-casa pull request #409 (terminate: 0), modin-project/modin issue #1643,
    # dask/distributed issue #1829 (the older nanny wording, with two spaces)
    (
        "distributed.nanny.memory - WARNING - Worker tls://192.168.204.84:34937 (pid=129) exceeded "
        "0% memory budget. Restarting...",
        "dask.worker_memory_budget_exceeded",
        {"worker": "tls://192.168.204.84:34937", "pid": "129", "percent": "0"},
    ),
    (
        "distributed.nanny - WARNING - Worker exceeded 95% memory budget. Restarting",
        "dask.worker_memory_budget_exceeded",
        {"percent": "95"},
    ),
    (
        "distributed.nanny - WARNING - Worker exceeded 95% memory budget.  Restarting",
        "dask.worker_memory_budget_exceeded",
        {"percent": "95"},
    ),
    # PSLmodels/OG-USA pull request #108, equinor/ert issue #2831
    (
        "2024-05-08 16:43:36,648 - distributed.worker.memory - WARNING - Worker is at 89% memory "
        "usage. Pausing worker.  Process memory: 2.09 GiB -- Worker memory limit: 2.33 GiB",
        "dask.worker_memory_pressure",
        {},
    ),
    (
        "2024-05-08 16:43:33,866 - distributed.worker.memory - WARNING - Unmanaged memory use is "
        "high. This may indicate a memory leak or the memory may not be released to the OS; see "
        "https://distributed.dask.org/en/latest/worker-memory.html#memory-not-released-back-to-the-os"
        " for more information. -- Unmanaged memory: 1.49 GiB -- Worker memory limit: 2.33 GiB",
        "dask.worker_memory_pressure",
        {},
    ),
    (
        "distributed.worker - WARNING - Memory use is high but worker has no data to store to "
        "disk.  Perhaps some other process is leaking memory?  Process memory: 3.70 GB -- Worker "
        "memory limit: 4.00 GB",
        "dask.worker_memory_pressure",
        {},
    ),
    # coiled/benchmarks pull request #1308 (two KilledWorker failures)
    (
        "FAILED tests/tpch/test_correctness.py::test_dask_results[9] - "
        "distributed.scheduler.KilledWorker: Attempted to run task "
        "('readparquet-fused-chunk-03c3a346f7973a36c8db77225bf8e915', 1) on 4 different workers, "
        "but all those workers died while running it. The last worker that attempt to run the "
        "task was tcp://127.0.0.1:33209. Inspecting worker logs is often a good next step to "
        "diagnose what went wrong. For more information see "
        "https://distributed.dask.org/en/stable/killed.html.",
        "dask.killed_worker",
        {"attempts": "4", "worker": "tcp://127.0.0.1:33209"},
    ),
    (
        "FAILED tests/tpch/test_dask.py::test_query_9 - distributed.scheduler.KilledWorker: "
        "Attempted to run task ('readparquet-bec6f578be4fe0e15801f53f9dbeb108', 5) on 4 different "
        "workers, but all those workers died while running it. The last worker that attempt to "
        "run the task was tls://10.0.32.47:45841. Inspecting worker logs is often a good next "
        "step to diagnose what went wrong. For more information see "
        "https://distributed.dask.org/en/stable/killed.html.",
        "dask.killed_worker",
        {"attempts": "4", "worker": "tls://10.0.32.47:45841"},
    ),
    # dask/distributed scheduler.py remove_worker, rendered
    (
        "distributed.scheduler - ERROR - Task ('read-csv-0c4e1b7a9f', 3) marked as failed because "
        "4 workers died while trying to run it",
        "dask.killed_worker",
        {"deaths": "4"},
    ),
    # NVIDIA/cuml issue #7341 (a multi-GPU DBSCAN hang); the pre-2024.3 wording rendered
    (
        "2025-10-14 21:30:26,167 - distributed.scheduler - WARNING - Worker failed to heartbeat "
        "for 588s; attempting restart: <WorkerState 'tcp://127.0.0.1:46605', name: 1, status: "
        "running, memory: 1, processing: 1>",
        "dask.worker_heartbeat_failed",
        {"seconds": "588", "worker": "tcp://127.0.0.1:46605"},
    ),
    (
        "distributed.scheduler - WARNING - Worker failed to heartbeat within 300 seconds. Closing: "
        "<WorkerState 'tcp://10.1.2.3:40211', name: 7, status: running, memory: 12, processing: 3>",
        "dask.worker_heartbeat_failed",
        {"ttl": "300", "worker": "tcp://10.1.2.3:40211"},
    ),
    # dask/distributed issue #1829, NVIDIA/cuml issue #7341; a signal rendered from the format
    (
        "distributed.nanny - WARNING - Worker process 22204 was killed by unknown signal",
        "dask.worker_process_died",
        {"pid": "22204"},
    ),
    (
        "distributed.nanny - INFO - Worker process 31337 was killed by signal 9",
        "dask.worker_process_died",
        {"pid": "31337", "signal": "9"},
    ),
    (
        "2025-10-14 21:30:30,170 - distributed.nanny - WARNING - Worker process still alive after "
        "4.0 seconds, killing",
        "dask.worker_process_died",
        {},
    ),
    # LiberTEM/LiberTEM pull request #941, dask/distributed issue #3142 (the older quoted form)
    (
        "OSError: Timed out trying to connect to tcp://192.168.178.24:55678 after 10 s",
        "dask.connect_timeout",
        {"peer": "tcp://192.168.178.24:55678", "seconds": "10"},
    ),
    (
        "OSError: Timed out trying to connect to 'tcp://172.20.129.23:43394' after 10 s: Timed out "
        "trying to connect to 'tcp://172.20.129.23:43394' after 10 s: connect() didn't finish in time",
        "dask.connect_timeout",
        {"peer": "tcp://172.20.129.23:43394"},
    ),
    # dask/distributed issue #7192, NVIDIA/cuml issue #7341, dask/distributed issue #3488
    (
        "distributed.comm.core.CommClosedError: in <distributed.comm.tcp.TCPConnector object at "
        "0x151a785a4d00>: ConnectionRefusedError: [Errno 111] Connection refused",
        "dask.comm_closed",
        {"reason": "ConnectionRefusedError: [Errno 111] Connection refused"},
    ),
    ("tornado.iostream.StreamClosedError: Stream is closed", "dask.comm_closed", {}),
    (
        "2025-10-14 21:30:30,269 - distributed.worker - ERROR - Worker stream died during "
        "communication: tcp://127.0.0.1:46605",
        "dask.comm_closed",
        {"peer": "tcp://127.0.0.1:46605"},
    ),
    ("distributed.worker - WARNING - Heartbeat to scheduler failed", "dask.comm_closed", {}),
    (
        "distributed.worker - INFO - Connection to scheduler broken.  Reconnecting...",
        "dask.comm_closed",
        {},
    ),
    # coiled/benchmarks pull request #1308 (the 2023 wording); the current one rendered
    (
        "FAILED tests/tpch/test_dask.py::test_query_10 - RuntimeError: shuffle_barrier failed "
        "during shuffle b7a495806f2cd27b1a3444c0db304e59",
        "dask.p2p_shuffle_failed",
        {"old_shuffle": "b7a495806f2cd27b1a3444c0db304e59"},
    ),
    (
        "RuntimeError: P2P 3f8d1c2b9e7a4b60a1d2c3e4f5a6b7c8 failed during transfer phase",
        "dask.p2p_shuffle_failed",
        {"shuffle": "3f8d1c2b9e7a4b60a1d2c3e4f5a6b7c8", "phase": "transfer"},
    ),
    # dask/distributed scheduler.py NoWorkerError and NoValidWorkerError, rendered
    (
        "distributed.scheduler.NoWorkerError: Attempted to run task ('train-8f3a2c', 0) but timed "
        "out after 10m 0s waiting without any running workers.",
        "dask.no_worker",
        {"task": "('train-8f3a2c', 0)", "timeout": "10m 0s"},
    ),
    (
        "distributed.scheduler.NoValidWorkerError: Attempted to run task ('fit-gpu-5d1e', 3) but "
        "timed out after 10m 0s waiting for a valid worker matching all restrictions.",
        "dask.no_valid_worker",
        {"task": "('fit-gpu-5d1e', 3)"},
    ),
    # rapidsai/dask-cuda issue #713 (UCX-Py at shutdown), dask/distributed issue #7000 (the
    # endpoint callback, DEBUG)
    (
        "ucp.exceptions.UCXConnectionReset: Endpoint 0x7f5440fb3d00 error: Connection reset by "
        "remote peer",
        "ucxpy.endpoint_error",
        {"exception": "ConnectionReset"},
    ),
    (
        "[1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint "
        "0x2b492843d3c8 called with status -6: Destination is unreachable",
        "ucxpy.endpoint_error",
        {"status": "-6", "text": "Destination is unreachable"},
    ),
    # rapidsai/rmm issue #1421, neka-nat/cupoch issue #98 (the pool's maximum), rapidsai/dask-cuda
    # issue #986 (the line as pasted, cut after the file), NVIDIA/cudf issue #6087 and rapidsai/rmm
    # issue #496 (the 0.15 form, line number glued to the file), rapidsai/rmm issue #201 (0.x)
    (
        "MemoryError: std::bad_alloc: out_of_memory: RMM failure at:/blue/program/miniconda3/envs/"
        "rapids-23.10/include/rmm/mr/device/pool_memory_resource.hpp:196: Maximum pool size "
        "exceeded",
        "rmm.out_of_memory",
        {"reason": "Maximum pool size exceeded"},
    ),
    (
        "MemoryError: std::bad_alloc: RMM failure at:/home/adolf/cupoch/third_party/rmm/include/"
        "rmm/mr/device/pool_memory_resource.hpp:179: Maximum pool size exceeded",
        "rmm.out_of_memory",
        {"reason": "Maximum pool size exceeded"},
    ),
    (
        "MemoryError: std::bad_alloc: out_of_memory: CUDA error at: /miniconda3/envs/daskcuda_1/"
        "include/rmm/mr/device/cuda_memory_resource.hpp",
        "rmm.out_of_memory",
        {},
    ),
    (
        "MemoryError: std::bad_alloc: CUDA error at: /conda/conda-bld/librmm_1591196551527/work/"
        "include/rmm/mr/device/cuda_memory_resource.hpp66: cudaErrorMemoryAllocation out of memory",
        "rmm.out_of_memory",
        {},
    ),
    (
        "MemoryError: std::bad_alloc: CUDA error at: ../include/rmm/mr/device/"
        "cuda_memory_resource.hpp68: cudaErrorMemoryAllocation out of memory",
        "rmm.out_of_memory",
        {},
    ),
    # rapidsai/rmm limiting_resource_adaptor_impl.cpp, rendered
    (
        "MemoryError: std::bad_alloc: out_of_memory: RMM failure at:/opt/conda/include/rmm/mr/"
        "limiting_resource_adaptor.hpp:142: Exceeded memory limit (failed to allocate 1.50 GiB)",
        "rmm.out_of_memory",
        {"reason": "Exceeded memory limit"},
    ),
    # yahoo/TensorFlowOnSpark issue #134 (both lines), openaire/iis issue #1566; the 2.3+ wording
    # rendered from YarnAllocator.scala
    (
        "17/11/25 18:23:24 ERROR YarnClusterScheduler: Lost executor 9 on "
        "harrisburg.cs.colostate.edu: Container killed by YARN for exceeding memory limits. 7.2 GB "
        "of 4.2 GB virtual memory used. Consider boosting spark.yarn.executor.memoryOverhead.",
        "spark.yarn_memory_limit_exceeded",
        {"used": "7.2 GB", "limit": "4.2 GB"},
    ),
    (
        "17/11/25 18:23:24 WARN TaskSetManager: Lost task 3.0 in stage 1.0 (TID 10, "
        "harrisburg.cs.colostate.edu, executor 9): ExecutorLostFailure (executor 9 exited caused "
        "by one of the running tasks) Reason: Container killed by YARN for exceeding memory "
        "limits. 7.2 GB of 4.2 GB virtual memory used. Consider boosting "
        "spark.yarn.executor.memoryOverhead.",
        "spark.yarn_memory_limit_exceeded",
        {"used": "7.2 GB"},
    ),
    (
        "ExecutorLostFailure (executor 72 exited caused by one of the running tasks) Reason: "
        "Container killed by YARN for exceeding memory limits. 12.0 GB of 12 GB physical memory "
        "used. Consider boosting spark.yarn.executor.memoryOverhead or disabling "
        "yarn.nodemanager.vmem-check-enabled because of YARN-4714",
        "spark.yarn_memory_limit_exceeded",
        {"used": "12.0 GB", "limit": "12 GB"},
    ),
    (
        "ExecutorLostFailure (executor 5 exited caused by one of the running tasks) Reason: "
        "Container killed by YARN for exceeding physical memory limits. 10.4 GB of 10.4 GB "
        "physical memory used. Consider boosting spark.executor.memoryOverhead.",
        "spark.yarn_memory_limit_exceeded",
        {"kind": "physical", "used": "10.4 GB"},
    ),
    # apache/spark YarnAllocator.scala, ABORTED on a lost node and PREEMPTED, rendered
    (
        "ExecutorLostFailure (executor 12 exited unrelated to the running tasks) Reason: "
        "Container marked as failed: container_1645539745894_0001_01_000072 on host: "
        "ip-172-31-44-2.us-east-2.compute.internal. Exit status: -100. Diagnostics: Container "
        "released on a *lost* node.",
        "spark.executor_node_lost",
        {},
    ),
    (
        "22/02/22 14:50:01 WARN YarnAllocator: Container container_1645539745894_0001_01_000080 on "
        "host: ip-172-31-40-7.us-east-2.compute.internal was preempted.",
        "spark.executor_node_lost",
        {
            "container": "container_1645539745894_0001_01_000080",
            "host": "ip-172-31-40-7.us-east-2.compute.internal",
        },
    ),
    # apache/spark pull request #36707
    (
        "22/05/28 01:25:29 ERROR TaskSchedulerImpl: Lost executor 8 on 100.103.40.13: Executor "
        "decommission.",
        "spark.executor_decommissioned",
        {"executor": "8", "host": "100.103.40.13"},
    ),
    # apache/spark pull request #34536 (heartbeat), raster-foundry/raster-foundry issue #246
    # (Spark 1.x), ldbc/ldbc_snb_datagen_spark issue #381 (YARN's "bad node" for exit 137)
    (
        "21/11/13 05:06:21,000 ERROR [dispatcher-CoarseGrainedScheduler] cluster.YarnScheduler:73 "
        ": Lost executor 3056 on executor_host: Executor heartbeat timed out after 350149 ms",
        "spark.executor_lost",
        {"executor": "3056", "reason": "Executor heartbeat timed out after 350149 ms"},
    ),
    (
        "21/11/13 05:06:20,999 WARN [dispatcher-event-loop-36] spark.HeartbeatReceiver:69 : "
        "Removing executor 3056 with no recent heartbeats: 350149 ms exceeds timeout 300000 ms",
        "spark.executor_lost",
        {"removed": "3056"},
    ),
    (
        "15/10/26 16:13:40 ERROR cluster.YarnClusterScheduler: Lost executor 4 on "
        "ip-172-31-11-158.ec2.internal: remote Rpc client disassociated",
        "spark.executor_lost",
        {"executor": "4", "host": "ip-172-31-11-158.ec2.internal"},
    ),
    (
        "15/10/26 16:13:40 WARN scheduler.TaskSetManager: Lost task 1.1 in stage 0.0 (TID 2, "
        "ip-172-31-11-158.ec2.internal): ExecutorLostFailure (executor 4 lost)",
        "spark.executor_lost",
        {"failed_executor": "4"},
    ),
    (
        "22/02/22 15:02:23 ERROR YarnScheduler: Lost executor 38 on "
        "ip-172-31-39-85.us-east-2.compute.internal: Container from a bad node: "
        "container_1645539745894_0001_01_000074 on host: ip-172-31-39-85.us-east-2.compute.internal"
        ". Exit status: 137. Diagnostics: [2022-02-22 15:02:23.483]Container killed on request. "
        "Exit code is 137",
        "spark.executor_lost",
        {"executor": "38", "reason": "Container from a bad node"},
    ),
    # apache/spark pull request #38233 (the Spark UI's text for a Kubernetes executor)
    (
        "The executor with id 32 exited with exit code 137 (SIGKILL, possible container OOM).",
        "spark.executor_possible_oom",
        {"executor": "32"},
    ),
    # databrickslabs/overwatch issue #1165 (the bare class); the messages rendered from the formats
    ("org.apache.spark.shuffle.FetchFailedException", "spark.shuffle_fetch_failed", {}),
    (
        "org.apache.spark.shuffle.FetchFailedException: Failed to connect to "
        "ip-10-0-3-17.ec2.internal/10.0.3.17:7337",
        "spark.shuffle_fetch_failed",
        {"peer": "ip-10-0-3-17.ec2.internal/10.0.3.17:7337"},
    ),
    (
        "org.apache.spark.shuffle.MetadataFetchFailedException: Missing an output location for "
        "shuffle 4",
        "spark.shuffle_fetch_failed",
        {"shuffle": "4"},
    ),
    # apache/spark pull request #20835, NVIDIA/spark-rapids pull request #14903 (3.4+ error class)
    (
        "org.apache.spark.memory.SparkOutOfMemoryError:  Unable to acquire 262144 bytes of memory, "
        "got 224631",
        "spark.task_memory_exhausted",
        {"bytes": "262144", "got": "224631"},
    ),
    (
        "Lost task 0.0 in stage 13547.0 (TID 33405) (ip-10-59-156-36.us-west-2.compute.internal "
        "executor driver): org.apache.spark.memory.SparkOutOfMemoryError: "
        "[UNABLE_TO_ACQUIRE_MEMORY] Unable to acquire 65536 bytes of memory, got 0. SQLSTATE: 53200",
        "spark.task_memory_exhausted",
        {"bytes": "65536", "got": "0"},
    ),
    # cortexlabs/cortex issue #46
    (
        "19/03/26 14:11:06 SPARK:WARN TaskSetManager: Lost task 1.1 in stage 8.0 (TID 14, "
        "192.168.53.180, executor 2): java.lang.OutOfMemoryError: Java heap space",
        "spark.jvm_out_of_memory",
        {"kind": "Java heap space"},
    ),
    # NVIDIA/spark-rapids issue #1626, archivesunleashed/auk issue #150, fivetran/great_expectations
    # issue #4267 (a reporter's wording without the parentheses)
    (
        "21/01/29 16:55:30 ERROR TaskSetManager: Total size of serialized results of 24771 tasks "
        "(1053.8 MiB) is bigger than spark.driver.maxResultSize (1024.0 MiB)",
        "spark.driver_max_result_size",
        {"tasks": "24771", "size": "1053.8 MiB"},
    ),
    (
        "org.apache.spark.SparkException: Job aborted due to stage failure: Total size of "
        "serialized results of 2572 tasks (1062.8 MB) is bigger than spark.driver.maxResultSize "
        "(1024.0 MB)",
        "spark.driver_max_result_size",
        {"tasks": "2572", "size": "1062.8 MB"},
    ),
    (
        "`Job aborted due to stage failure: Total size of serialized results of 12 tasks (4.2 GiB) "
        "is bigger than spark.driver.maxResultSize 4.0 GiB.`",
        "spark.driver_max_result_size",
        {"size": "4.2 GiB"},
    ),
    # uber/petastorm issue #288, TargetHolding/pyspark-cassandra issue #108
    (
        "Caused by: org.apache.spark.SparkException: Python worker exited unexpectedly (crashed)",
        "spark.python_worker_crashed",
        {},
    ),
    (
        "16/07/25 14:54:23 ERROR PythonRunner: Python worker exited unexpectedly (crashed)",
        "spark.python_worker_crashed",
        {},
    ),
    # NVIDIA/spark-rapids issues #11584 and #11603, #9208 (before the Gpu prefix), #8090 (23.04)
    (
        "Caused by: com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM: GPU OutOfMemory: could not "
        "split inputs and retry",
        "sparkrapids.split_retry_oom",
        {},
    ),
    (
        "com.nvidia.spark.rapids.jni.SplitAndRetryOOM: GPU OutOfMemory: could not split inputs "
        "and retry",
        "sparkrapids.split_retry_oom",
        {},
    ),
    (
        "Job aborted due to stage failure: Task 33 in stage 1303.0 failed 4 times, most recent "
        "failure: Lost task 33.3 in stage 1303.0 (TID 37289) (10.59.128.149 executor 2): "
        "com.nvidia.spark.rapids.jni.SplitAndRetryOOM: Attempted to handle a split, but was not "
        "initialized with a splitPolicy.",
        "sparkrapids.split_retry_oom",
        {},
    ),
    # NVIDIA/spark-rapids issue #8050
    (
        "23/04/06 15:58:50 WARN TaskSetManager: Lost task 82.0 in stage 2.0 (TID 294) "
        "(10.28.9.113 executor 0): com.nvidia.spark.rapids.jni.RetryOOM: task should retry "
        "operation",
        "sparkrapids.retry_oom",
        {"exception": "RetryOOM"},
    ),
    # NVIDIA/spark-rapids issue #8240 (an uncaught split-and-retry in an aggregation) and #13445
    # (the host memory limit)
    (
        "Caused by: org.apache.spark.SparkException: Job aborted due to stage failure: Task 142 in "
        "stage 1089.0 failed 4 times, most recent failure: Lost task 142.3 in stage 1089.0 (TID "
        "24175) (10.59.240.71 executor 0): com.nvidia.spark.rapids.jni.SplitAndRetryOOM: GPU "
        "OutOfMemory",
        "sparkrapids.retry_oom",
        {"exception": "SplitAndRetryOOM", "device": "GPU"},
    ),
    (
        "com.nvidia.spark.rapids.jni.CpuRetryOOM: CPU OutOfMemory",
        "sparkrapids.retry_oom",
        {"exception": "CpuRetryOOM", "device": "CPU"},
    ),
    # ray-project/ray issue #28562 (a chaos test killing nodes)
    (
        "(raylet, ip=172.31.84.216) [2022-09-15 09:58:43,756 C 3288 3288] (raylet) "
        "node_manager.cc:999: [Timeout] Exiting because this node manager has mistakenly been "
        "marked as dead by the GCS: GCS didn't receive heartbeats from this node for 30000 ms. "
        "This is likely because the machine or raylet has become overloaded.",
        "ray.raylet_marked_dead_exit",
        {"ms": "30000"},
    ),
]

# (key, line): healthy or other look-alikes the key must not read
NEGATIVE: list[tuple[str, str]] = [
    # the worker resuming, and the nanny's plain restart notice (also a client's restart):
    # dask/distributed worker_memory.py rendered, modin-project/modin issue #1643
    (
        "dask.worker_memory_pressure",
        "distributed.worker.memory - WARNING - Worker is at 55% memory usage. Resuming worker. "
        "Process memory: 1.28 GiB -- Worker memory limit: 2.33 GiB",
    ),
    ("dask.worker_memory_budget_exceeded", "distributed.nanny - WARNING - Restarting worker"),
    # the old KilledWorker repr, with no reason in it (mozilla/jetstream issue #336)
    (
        "dask.killed_worker",
        "ERROR:2020-11-20 04:09:51,165:jetstream.cli:('counts-6ec2db25-426a-482d-b186-7ed8c6a9aeaa'"
        ", <Worker 'tcp://127.0.0.1:34589', name: 2, memory: 0, processing: 3>)",
    ),
    # the nanny's normal exit and a worker closing (dask/distributed nanny.py, rendered)
    (
        "dask.worker_process_died",
        "distributed.nanny - INFO - Worker process 22204 exited with status 0",
    ),
    ("dask.worker_process_died", "distributed.nanny - INFO - Worker closed"),
    # a FatalCommClosedError is a TLS configuration, not a dropped peer (comm/tcp.py, rendered)
    (
        "dask.comm_closed",
        "distributed.comm.core.FatalCommClosedError: in <TLS (closed) ConnectionPool.heartbeat_"
        "worker local=tls://10.0.0.5:40022 remote=tls://10.0.0.2:8786>: SSLError: [SSL: "
        "TLSV1_ALERT_UNKNOWN_CA] tlsv1 alert unknown ca",
    ),
    # a CUDA OOM from CuPy is not RMM's (dask/dask issue #10202)
    (
        "rmm.out_of_memory",
        "OutOfMemoryError: Out of memory allocating 26,409,535,488 bytes (allocated so far: "
        "53,224,481,792 bytes).",
    ),
    # libstdc++'s host std::bad_alloc is libstdcxx.bad_alloc's (NVIDIA/DALI issue #3599)
    ("rmm.out_of_memory", "  what():  std::bad_alloc"),
    # Spark's routine executor removals and decommission set-up (apache/spark pull request #36707)
    (
        "spark.executor_decommissioned",
        "22/05/28 01:25:28 INFO KubernetesClusterSchedulerBackend: Decommission executors: 8",
    ),
    (
        "spark.executor_lost",
        "22/05/28 01:25:29 INFO DAGScheduler: Executor lost: 8 (epoch 7)",
    ),
    (
        "spark.executor_lost",
        "15/10/26 16:13:40 INFO storage.BlockManagerMasterEndpoint: Trying to remove executor 4 "
        "from BlockManagerMaster.",
    ),
    # a clean Kubernetes executor exit (apache/spark pull request #48275: exit code 0)
    (
        "spark.executor_possible_oom",
        "2024-09-25 02:35:29,383 ERROR TaskSchedulerImpl.logExecutorLoss - Lost executor 1 on "
        "XXXXX: The executor with id 1 exited with exit code 0(success).",
    ),
    # the memory limits of the lost executor, not its node (yahoo/TensorFlowOnSpark issue #134)
    (
        "spark.executor_node_lost",
        "17/11/25 18:23:24 ERROR YarnClusterScheduler: Lost executor 9 on "
        "harrisburg.cs.colostate.edu: Container killed by YARN for exceeding memory limits. 7.2 GB "
        "of 4.2 GB virtual memory used. Consider boosting spark.yarn.executor.memoryOverhead.",
    ),
    # a JVM out of threads is a ulimit, not the heap (rendered from the JVM's text)
    (
        "spark.jvm_out_of_memory",
        "java.lang.OutOfMemoryError: unable to create new native thread",
    ),
    # UCX-Py's healthy endpoint set-up and a batched comm closing at shutdown (rapidsai/dask-cuda
    # issue #713)
    (
        "ucxpy.endpoint_error",
        "distributed.batched - INFO - Batched Comm Closed <UCX (closed) Client->Scheduler "
        "local=None remote=ucx://127.0.0.1:39119>",
    ),
    # Ray's GCS client retrying, which ray.gcs_connect_retry reads (ray-project/ray issue #36651)
    (
        "ray.raylet_marked_dead_exit",
        "2023-06-14 23:53:52,845 ERROR utils.py:1391 -- Failed to connect to GCS. Please check "
        "`gcs_server.out` for more details.",
    ),
    # the accelerator's final split failure is split_retry_oom's (NVIDIA/spark-rapids issue #11584)
    (
        "sparkrapids.retry_oom",
        "Caused by: com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM: GPU OutOfMemory: could not "
        "split inputs and retry",
    ),
    # a driver setting quoted in advice, not a failure (archivesunleashed/auk issue #150)
    (
        "spark.driver_max_result_size",
        "We need to set spark.driver.maxResultSize for our Apache Spark job",
    ),
    # the accelerator's OOM documentation heading and a healthy retry count (NVIDIA/spark-rapids
    # pull request #8076)
    ("sparkrapids.retry_oom", "### What is a `RetryOOM` or `SplitAndRetryOOM` exception?"),
    ("sparkrapids.split_retry_oom", "### What is a `RetryOOM` or `SplitAndRetryOOM` exception?"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_nothing_in_the_family_acts_on_a_node() -> None:
    """A data-processing engine's failure says nothing of a node's hardware: no entry drains,
    inspects or reboots the node its line was printed on."""
    assert_no_node_action(FAMILY)
    for key in sorted(FAMILY):
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_restatements_stay_below_the_collective_weight() -> None:
    """A lost worker or executor, a missed heartbeat, a closed comm or a failed fetch only restates
    a failure elsewhere: symptoms of at most 25, so the line that says why decides."""
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert 10 <= sig.weight <= 25, key


def test_a_lost_executor_that_says_why_is_read_by_the_reason() -> None:
    """The reason a Spark loss line gives outweighs the loss itself: exceeding its memory is the
    job's, a lost node or preemption is outside it."""
    memory = hits(
        "17/11/25 18:23:24 ERROR YarnClusterScheduler: Lost executor 9 on "
        "harrisburg.cs.colostate.edu: Container killed by YARN for exceeding memory limits. 7.2 GB "
        "of 4.2 GB virtual memory used. Consider boosting spark.yarn.executor.memoryOverhead."
    )
    assert set(memory) & FAMILY == {"spark.yarn_memory_limit_exceeded"}
    lost = CATALOG.signatures["spark.executor_node_lost"]
    assert lost.weight > CATALOG.signatures["spark.executor_lost"].weight
    decommission = CATALOG.signatures["spark.executor_decommissioned"]
    assert decommission.weight < lost.weight


def test_healthy_engine_output_matches_nothing_of_the_family() -> None:
    """Normal progress lines of the engines read as nothing of this family."""
    healthy = [
        # dask/distributed issue #3488 (a worker registering)
        "distributed.worker - INFO -         Registered to: tcp://192.168.104.12:35330",
        "distributed.core - INFO - Starting established connection",
        # raster-foundry/raster-foundry issue #246 (Spark 1.x progress)
        "15/10/26 16:13:03 INFO storage.BlockManagerInfo: Added broadcast_0_piece0 in memory on "
        "ip-172-31-11-158.ec2.internal:38124 (size: 11.2 KB, free: 535.0 MB)",
        "15/10/26 16:13:40 INFO scheduler.TaskSetManager: Re-queueing tasks for 4 from TaskSet 0.0",
        # apache/spark pull request #36707 (decommissioning set-up)
        "22/05/28 01:25:28 INFO KubernetesClusterSchedulerBackend: Notify executor 8 to "
        "decommissioning.",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line
