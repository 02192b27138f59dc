"""Golden tests for the XLA / JAX family (`signatures-xla.toml`, issue 14).

Real lines (each cited: public issues and jax-ml/jax docs/fault_tolerance.rst) go through the
scanner's own matcher: each must yield its signal with the captures it names. A task's
unhealthy, unreachable or late peers are symptoms (at start-up too: a job that never assembled
may be a launch mistake or slow start-up), never the application's error; running out of device
memory is the application's.
Lines that look alike must not match. Every entry of the family file has a golden line.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_application_only_if_meant, assert_matches, family_keys
from domain.golden import hits as _hits

FAMILY_FILE = "signatures-xla.toml"
FAMILY_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "xla.tasks_unhealthy": Blame.SYMPTOM,
    "xla.coordination_fatal": Blame.SYMPTOM,
    "xla.coordination_unreachable": Blame.SYMPTOM,
    "xla.init_barrier_timeout": Blame.SYMPTOM,
    "xla.barrier_timeout": Blame.SYMPTOM,
    "xla.shutdown_barrier": Blame.SYMPTOM,
    "xla.task_not_connected": Blame.SYMPTOM,
    "xla.runtime_status": Blame.SYMPTOM,
    "xla.nccl_failed": Blame.SYMPTOM,
    "xla.rendezvous_stuck": Blame.SYMPTOM,
    "xla.oom": Blame.APPLICATION,
    "xla.tpu_core_halted": Blame.APPLICATION,
    "xla.tpu_in_use": Blame.SYMPTOM,
    "xla.tpu_device_busy": Blame.HARDWARE,
    "xla.tpu_fatal_error": Blame.HARDWARE,
    "xla.tpu_init_waiting_for_hosts": Blame.SYMPTOM,
    "xla.tpu_open_denied": Blame.SYMPTOM,
    "xla.nccl_library_missing": Blame.APPLICATION,
    "xla.cuda_backend_env": Blame.APPLICATION,
    # sweep H3 (issue 14): golden lines in test_catalog_tracker_xla_rocm.py, one here each
    "xla.tpu_session_failure": Blame.SYMPTOM,
    "xla.tpu_no_device": Blame.APPLICATION,
    "xla.tpu_start_session_failed": Blame.TRANSIENT,
    "xla.tpu_driver_unreachable": Blame.TRANSIENT,
    "xla.stream_executor_bad_ordinal": Blame.APPLICATION,
    "xla.fatal_signal": Blame.SYMPTOM,
    # sweep L4 (issue 14)
    "xla.nccl_refused": Blame.APPLICATION,
    # sweep R5 (issue 14): more lines in test_catalog_tracker_frameworks3.py
    "xla.preemption_notice_failed": Blame.SYMPTOM,
    "xla.register_task_failed": Blame.SYMPTOM,
    # session 23 (m2accel) real-line mining; tests/domain/test_catalog_mined_m2accel.py
    "xla.xrt_session_lost": Blame.SYMPTOM,
    "xla.mesh_master_unreachable": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # jax-ml/jax docs/fault_tolerance.rst (a peer task killed with SIGKILL, seen from the survivors)
    (
        "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX "
        "distributed service detected fatal errors. This most likely indicates that another task "
        "died; see the other task logs for more details. Disable Python buffering, i.e. `python "
        "-u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following "
        "tasks are unhealthy (stopped sending heartbeats):",
        "xla.tasks_unhealthy",
        {},
    ),
    # jax-ml/jax docs/fault_tolerance.rst
    (
        "E0929 17:42:48.594192 1044529 coordination_service_agent.cc:332] Polled an error from "
        "coordination service (this can be an error from this or another task).",
        "xla.coordination_fatal",
        {},
    ),
    # jax-ml/jax docs/fault_tolerance.rst (the leader task died)
    (
        "F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX "
        "distributed service detected fatal errors. This most likely indicates that another task "
        "died; see the other task logs for more details. Disable Python buffering, i.e. `python "
        "-u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: Failed to "
        "send RPC to coordination service. Either the leader task was preempted/died/restarted "
        "unexpectedly or this task is experiencing network issues. Check earlier logs from 1) "
        "this task, 2) the leader (usually slice 0 task 0), and 3) cluster scheduler to debug "
        "further.",
        "xla.coordination_unreachable",
        {},
    ),
    # ayaka14732/llama-2-jax#20 (jax.distributed.initialize never assembled)
    (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "PjRT_Client_Connect. Timed out task names:",
        "xla.init_barrier_timeout",
        {},
    ),
    # marin-community/levanter#432 (a task crashed before a later barrier)
    (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "multihost_broadcast_sync0. Timed out task names:",
        "xla.barrier_timeout",
        {"barrier": "multihost_broadcast_sync0"},
    ),
    # j-towns/vdvae-jax#2 (NCCL refused the collective XLA issued)
    (
        "RuntimeError: Internal: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/"
        "nccl_all_reduce_thunk.cc:162: NCCL operation ncclAllReduce(send_buffer, recv_buffer, "
        "buffer.element_count, datatype, reduce_op, comm, *cu_stream) failed: invalid usage: while "
        "running replica 0 and partition 0 of a replicated computation (other replicas may have "
        "failed as well).",
        "xla.nccl_refused",
        {"op": "ncclAllReduce", "text": "invalid usage"},
    ),
    # jax-ml/jax issue #19596 (four processes under mpirun on one GCE instance)
    (
        "2024-01-31 10:21:35.025469: W external/tsl/tsl/distributed_runtime/preemption/"
        "preemption_sync_manager.cc:170] Failed to retrieve preemption notice from coordination "
        "service: UNAVAILABLE: Socket closed",
        "xla.preemption_notice_failed",
        {},
    ),
    # jax-ml/jax issue #35905 (the TPU coordinator port the firewall did not open)
    ("RPC: /tensorflow.CoordinationService/RegisterTask", "xla.register_task_failed", {}),
    # synthesized from openxla/xla coordination_service.cc (MakeShutdownBarrierError; format only)
    ("INTERNAL: Shutdown barrier has failed.", "xla.shutdown_barrier", {}),
    # jax-ml/jax docs/fault_tolerance.rst
    (
        "    jaxlib._jax.XlaRuntimeError: FAILED_PRECONDITION: Task with incarnation id "
        "3446767950926952685 is not connected",
        "xla.task_not_connected",
        {},
    ),
    # alpa-projects/alpa#826 (title)
    (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Connect() timed out after 0 "
        "with 1 attempts.",
        "xla.runtime_status",
        {"code": "DEADLINE_EXCEEDED"},
    ),
    # jax-ml/jax#22747 (NCCL bootstrap failed under XLA)
    (
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error (run with "
        "NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) "
        "'socketTryAccept: Accept failed: Bad file descriptor'.",
        "xla.nccl_failed",
        {"op": "ncclCommInitRank"},
    ),
    # jax-ml/jax#22740
    (
        "2024-07-29 17:14:59.920189: E external/xla/xla/service/rendezvous.cc:38] This thread "
        "has been waiting for `initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,"
        "10,11,12,13,14,15]; stream=0; run_id=724296073` for 10 seconds and may be stuck. "
        "Expected 8 threads to join the rendezvous, but not all of them arrived on time.",
        "xla.rendezvous_stuck",
        {},
    ),
    # google-deepmind/alphafold#1023
    (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 7406166528 bytes.",
        "xla.oom",
        {"bytes": "7406166528"},
    ),
    # onpix/LLNeRF#9
    (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating "
        "20029400304 bytes.",
        "xla.oom",
        {"bytes": "20029400304"},
    ),
    # kingoflolz/mesh-transformer-jax#66 (the BFC allocator's request that did not fit)
    (
        "RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on "
        "device ordinal 0",
        "xla.oom",
        {"request_bytes": "33554432"},
    ),
    # google-deepmind/alphafold#197 (title; the older wording)
    (
        "RuntimeError: Resource exhausted: Out of memory while trying to allocate 12582912 bytes.",
        "xla.oom",
        {"bytes": "12582912"},
    ),
    # pytorch/xla#9524 (title; TPU compile-time memory space)
    (
        "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. "
        "Ran out of memory in memory space vmem.",
        "xla.oom",
        {"space": "vmem"},
    ),
]

GOLDEN += [
    # sweep I (issue 14): one line per entry here; the others are in test_catalog_tracker_clusters.py
    # marin-community/marin#1534 (the TPU driver on one host of a multi-slice run)
    (
        "E0827 23:43:41.200309   39476 synchronous_driver.cc:820] [/dev/accel2 tpu1013:pe1:2] "
        "!!!! FATAL ERROR !!!! for [/dev/accel2 tpu1013:pe1:2] , fatal_error: true",
        "xla.tpu_fatal_error",
        {"device": "/dev/accel2"},
    ),
    # jax-ml/jax#12456
    (
        "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run "
        "your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html",
        "xla.tpu_init_waiting_for_hosts",
        {},
    ),
    # pytorch/xla#9604
    (
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: "
        "open(/dev/accel2): Operation not permitted",
        "xla.tpu_open_denied",
        {"device2": "/dev/accel2"},
    ),
    # jax-ml/jax#18391
    (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime "
        "executable: run time error: custom call 'xla.gpu.all_reduce' failed: "
        "external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) "
        "failed: Unable to load NCCL library. Multi-GPU collectives will not work.;",
        "xla.nccl_library_missing",
        {},
    ),
    # jax-ml/jax's fallback warning (a public JAX install blog post)
    (
        "CUDA backend failed to initialize: Found cuBLAS version 11201, but JAX was built against "
        "version 111103, which is newer.",
        "xla.cuda_backend_env",
        {"reason": "Found cuBLAS version 11201, but JAX was built against version 111103"},
    ),
    # pytorch/xla#7138 (a comment; torch_xla on a TPU litepod)
    (
        "  0%|          | 1/7800 [00:01<2:37:37,  1.21s/it]F0000 00:00:1717141650.890307    9276 "
        "pjrt_computation_client.cc:487] Non-OK-status: status status: INTERNAL: Core halted "
        "unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an "
        "on-device check-failure. Node 0 halted unexpectedly at tag:pc "
        "TensorCoreSequencer:887:0x6f1 (from TensorCoreSequencer:887:0x3b91): no debugging "
        "message found for this tag:pc. HLO: fusion.1; HLO computation: "
        "SyncTensorsGraph.55205_spmd",
        "xla.tpu_core_halted",
        {},
    ),
    # jax-ml/jax#22070 (a comment)
    (
        "INFO:2024-06-25 00:34:55,142:jax._src.xla_bridge:889: Unable to initialize backend "
        "'tpu': ABORTED: The TPU is already in use by process with pid 176028. Not attempting to "
        "load libtpu.so in this process.",
        "xla.tpu_in_use",
        {"pid": "176028"},
    ),
    # marin-community/marin#4783 (a TPU VM reused after preemption; deleting it was the fix)
    (
        "jax.errors.JaxRuntimeError: UNKNOWN: TPU initialization failed: open(/dev/vfio/0): Device "
        "or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0",
        "xla.tpu_device_busy",
        {"group": "0"},
    ),
    # vllm-project/tpu-inference#2257 (a CI worker whose TPU an earlier process still held)
    (
        "(Worker pid=6625) ERROR 04-15 07:27:42 [multiproc_executor.py:871] RuntimeError: Unable "
        "to initialize backend 'tpu': FAILED_PRECONDITION: TPU initialization failed: "
        "open(/dev/vfio/0): Device or resource busy: Device or resource busy; Couldn't open iommu "
        "group /dev/vfio/0 (set JAX_PLATFORMS='' to automatically choose an available backend)",
        "xla.tpu_device_busy",
        {"group": "0"},
    ),
]

GOLDEN += [
    # sweep H3 (issue 14): one line per entry here; the others are in
    # test_catalog_tracker_xla_rocm.py. AI-Hypercomputer/maxtext#2041 (tpunetd)
    (
        "E0511 18:18:50.796852     915 tpunetd_client.cc:311] Detected failure "
        "SLICE_FAILURE_CHIP_DRIVER_ERROR in session e6c885828b538167; Start failure handling",
        "xla.tpu_session_failure",
        {"failure": "SLICE_FAILURE_CHIP_DRIVER_ERROR"},
    ),
    # AI-Hypercomputer/maxtext#87
    (
        "XlaRuntimeError: UNKNOWN: TPU initialization failed: No ba16c7433 device found.",
        "xla.tpu_no_device",
        {"reason": "ba16c7433 device found"},
    ),
    # vllm-project/tpu-inference#3448 (the JaxRuntimeError form of the same failure)
    (
        "(RayWorkerProc pid=4388) jax.errors.JaxRuntimeError: INTERNAL: TPU initialization "
        "failed: GRPC_ERROR error message: START_SESSION failed. Contact GCE with UUID: "
        "c41e07d2-9a3b-4f18-8d5e-2b7f61a0c9e4 if this is recurring. Max # of tries(=3) exhausted.",
        "xla.tpu_start_session_failed",
        {"uuid": "c41e07d2-9a3b-4f18-8d5e-2b7f61a0c9e4"},
    ),
    # googlecolab/colabtools#3405 (every Colab TPU runtime; the lines from KoboldAI-Client#235):
    # the remote TPU driver's log line and the error JAX raises from it
    (
        "2023-02-15 17:41:46.158200: E external/org_tensorflow/tensorflow/compiler/xla/python/"
        "tpu_driver/grpc_tpu_driver.cc:1070] Failed to open the gRPC driver: 4: Deadline Exceeded: ",
        "xla.tpu_driver_unreachable",
        {"code": "4"},
    ),
    (
        "RuntimeError: Requested backend tpu_driver, but it failed to initialize: "
        "DEADLINE_EXCEEDED: Failed to connect to remote server at address: "
        "grpc://10.122.148.194:8470. Error from gRPC: Deadline Exceeded. Details: ",
        "xla.tpu_driver_unreachable",
        {"address": "grpc://10.122.148.194:8470"},
    ),
    # jax-ml/jax#23452
    (
        "W external/xla/xla/service/platform_util.cc:199] unable to create StreamExecutor for "
        "CUDA:1: failed initializing StreamExecutor for CUDA device ordinal 1: INTERNAL: Failed "
        "call to cuDeviceGet: CUDA_ERROR_INVALID_DEVICE: invalid device ordinal",
        "xla.stream_executor_bad_ordinal",
        {"ordinal": "1"},
    ),
    # jax-ml/jax#9642
    (
        "*** SIGABRT received by PID 545434 (TID 545434) on cpu 25 from PID 545434; stack "
        "trace: ***",
        "xla.fatal_signal",
        {"signal": "SIGABRT"},
    ),
    # session 23 (m2accel): pytorch/xla#2661 (XRT on a TPU pod); more in
    # test_catalog_mined_m2accel.py
    (
        "Exception in device=TPU:6: Aborted: Session 9d9f16636571817e is not found.",
        "xla.xrt_session_lost",
        {"session": "9d9f16636571817e"},
    ),
    # pytorch/xla#2604 (XRT multi-host mesh)
    (
        "Failed to connect to client mesh master: d7c1c93dfe8c:56419",
        "xla.mesh_master_unreachable",
        {"address": "d7c1c93dfe8c:56419"},
    ),
]

# (signal, line that must NOT match it)
NEGATIVE: list[tuple[str, str]] = [
    # the lockfile's report (a holder this container can see) is not the VFIO one
    (
        "xla.tpu_device_busy",
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by "
        "process with pid 2718466. Not attempting to load libtpu.so in this process.",
    ),
    # a TPU slice misconfiguration is not a busy device (huggingface/transformers#28204)
    (
        "xla.tpu_device_busy",
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
        "--2a886c8_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 1.",
    ),
    # the driver refusing a bad request is not an unreachable host (rendered: code 3)
    ("xla.tpu_driver_unreachable", "Failed to open the gRPC driver: 3: invalid worker address: "),
    # a later barrier is not the start-up one
    (
        "xla.init_barrier_timeout",
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "multihost_broadcast_sync0. Timed out task names:",
    ),
    # gRPC message-size limits and donated buffers are not memory or peers
    ("xla.oom", "RESOURCE_EXHAUSTED: grpc: received message larger than max (5000 vs. 4194304)"),
    ("xla.task_not_connected", "XlaRuntimeError: FAILED_PRECONDITION: Buffer has been deleted"),
    ("xla.runtime_status", "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: bad shape"),
    ("xla.runtime_status", "XlaRuntimeError: FAILED_PRECONDITION: Buffer has been deleted"),
    ("xla.nccl_failed", "NCCL operation completed in 12 ms"),
    # jax-ml/jax#22747: a system error under the same wrapper is not the caller's misuse
    (
        "xla.nccl_refused",
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error (run with "
        "NCCL_DEBUG=INFO for details).",
    ),
    ("xla.tasks_unhealthy", "Task /job:jax_worker/replica:0/task:3 has disconnected"),
    # jax-ml/jax#22070: a backend that is simply absent is not one in use
    (
        "xla.tpu_in_use",
        "INFO:2024-06-25 00:34:55,109:jax._src.xla_bridge:889: Unable to initialize backend "
        "'cuda': ",
    ),
]


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line_yields_its_signal(line: str, key: str, captures: dict[str, str]) -> None:
    assert_matches(key, line, captures)


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_only_application_lines_read_as_the_application(
    line: str, key: str, captures: dict[str, str]
) -> None:
    assert_application_only_if_meant(key, line)


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_line(key: str, line: str) -> None:
    assert key not in _hits(line), f"{key} must not match {line!r}"


@pytest.mark.parametrize(("key", "blame"), sorted(BLAME.items()))
def test_blame(key: str, blame: Blame) -> None:
    assert CATALOG.signatures[key].blame is blame


def test_every_family_entry_has_its_blame_and_a_golden_line() -> None:
    assert set(BLAME) >= FAMILY_KEYS
    assert {key for _, key, _ in GOLDEN} >= FAMILY_KEYS


def test_a_peer_is_a_symptom_and_memory_is_the_application() -> None:
    assert CATALOG.signatures["xla.tasks_unhealthy"].blame is Blame.SYMPTOM
    assert CATALOG.signatures["xla.oom"].weight >= CATALOG.signatures["python.exception"].weight
