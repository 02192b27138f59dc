"""Golden lines from the fifth tracker sweep of issue 14 over the multi-node inference-serving and
RL stacks and their schedulers: what Ray prints when a request cannot be placed (a bundle pinned
to an address no node carries, more GPUs than the cluster has), when its object store is full,
when a runtime_env cannot be built, when an actor is ended on purpose, when a raylet lags or
disappears and when a node cannot join the GCS; Ray Serve's and Ray Train's restatements; what
vLLM prints when its parallel layout cannot be placed or does not divide the model, when its
nodes' addresses do not line up, when another process holds its GPU and when one of its worker
processes dies or stalls; SGLang's restatements, watchdog and PD transfer failures; TensorRT-LLM's
own assertions; processes hitting their thread limit under many Ray workers; and what a JAX task
prints when it cannot register with, or loses, the coordination service.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the emitter means. Look-alikes that the same code paths print when nothing failed, or that
say something else, must not match; a restatement never reads as the application's error.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, golden_line_checks, hits

A, S = Blame.APPLICATION, Blame.SYMPTOM

BLAME: dict[str, Blame] = {
    "ray.infeasible_request": A,
    "ray.actor_killed": S,
    "ray.raylet_unhealthy": S,
    "ray.serve_replica_failed": S,
    "ray.gcs_join_failed": A,
    "ray.runtime_env_failed": A,
    "vllm.parallel_layout_invalid": A,
    "ray.train_worker_group_timeout": S,
    "sglang.kv_transfer_failed": S,
    "vllm.startup_memory_taken": A,
    "vllm.shm_broadcast_stalled": S,
    "vllm.node_ip_mismatch": A,
    "ray.object_store_full": A,
    "python.thread_limit": A,
    "trtllm.assertion_failed": A,
    "sglang.watchdog_timeout": S,
    "vllm.placement_group_unavailable": A,
    "vllm.worker_process_died": S,
    "sglang.child_failed": S,
    "xla.preemption_notice_failed": S,
    "xla.register_task_failed": S,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # vllm-project/vllm issue #8908 (TP=16 over four nodes after an upgrade)
    (
        "(autoscaler +21m12s) Error: No available node types can fulfill resource request "
        "{'node:10.2.0.127': 0.001, 'GPU': 1.0}. Add suitable node types to this cluster to "
        "resolve this issue.",
        "ray.infeasible_request",
        {"request": "{'node:10.2.0.127': 0.001, 'GPU': 1.0}"},
    ),
    # a public KubeRay walkthrough quoting autoscaler v2 (40 one-CPU tasks on three CPUs)
    (
        "(autoscaler +5s) No available node types can fulfill resource requests {'CPU': 1.0}*14. "
        "Add suitable node types to this cluster to resolve this issue.",
        "ray.infeasible_request",
        {"request": "{'CPU': 1.0}"},
    ),
    # ray-project/ray src/ray/raylet/scheduling/cluster_task_manager.cc, as KubeRay's e2e log shows
    (
        "(raylet) There are tasks with infeasible resource requests that cannot be scheduled. "
        "See https://docs.ray.io/en/latest/ray-core/scheduling/index.html#ray-scheduling-resources "
        "for more details.",
        "ray.infeasible_request",
        {},
    ),
    # ray-project/ray gcs_actor_manager.cc GenActorOutOfScopeCause, as a Ray docs example prints
    # it (with the doubled word some 2.x releases have)
    (
        "# The actor is dead because because all references to the actor were removed.",
        "ray.actor_killed",
        {},
    ),
    # ray-project/ray issue #22425 (the raylet's fatal line, with its typo)
    (
        "[2022-02-16 12:46:52,789 C 149 149] node_manager.cc:170: This node has beem marked as "
        "dead.",
        "ray.raylet_unhealthy",
        {},
    ),
    # ray-project/ray issue #34971 (the GCS before the actor's node died)
    (
        "[2023-05-01 16:19:23,477 W 281 281] (gcs_server) gcs_health_check_manager.cc:108: Health "
        "check failed for node 2eea4cfb179ce7951c4bbdd5ba3029c3a4dcf7cb66db376084f7c270",
        "ray.raylet_unhealthy",
        {"node_id": "2eea4cfb179ce7951c4bbdd5ba3029c3a4dcf7cb66db376084f7c270"},
    ),
    # ray-project/ray issue #7788 (a worker whose raylet had gone)
    (
        "F0328 18:49:23.675355 81818 raylet_client.cc:83] Could not connect to socket "
        "/tmp/ray/session_2020-03-28_18-07-49_270759_76175/sockets/raylet",
        "ray.raylet_unhealthy",
        {},
    ),
    # vllm-project/vllm-ascend issue #946 (`ray start --block` on the worker node)
    ("Some Ray subprocesses exited unexpectedly:", "ray.raylet_unhealthy", {}),
    # rendered from ray-project/ray deployment_state.py's 1.x format (no public log line found)
    (
        "Replica echo#kKvmLq of deployment echo failed health check, stopping it. "
        "component=serve deployment=echo replica=echo#kKvmLq",
        "ray.serve_replica_failed",
        {},
    ),
    # a vLLM report behind Ray Serve LLM (the controller's status message over an NCCL error)
    (
        "The deployment failed to start 3 times in a row. This may be due to a problem with its "
        "constructor or initial health check failing. See controller logs for details. Error: "
        "ray::ServeReplica:Qwen3 235B A22B Thinking:vLLMGenericAPI.initialize_and_get_metadata()",
        "ray.serve_replica_failed",
        {},
    ),
    # ray-project/ray issue #26477 (Slurm workers joining the head)
    (
        "2022-07-13 15:19:40,592\tWARNING utils.py:1242 -- Unable to connect to GCS at "
        "10.249.16.183:6379. Check that (1) Ray GCS with matching version started successfully "
        "at the specified address, and (2) there is no firewall setting preventing access.",
        "ray.gcs_join_failed",
        {"gcs": "10.249.16.183:6379"},
    ),
    # ray-project/ray issue #20483 (a working_dir URI that does not parse)
    (
        "(raylet) [2021-11-17 10:43:46,668 E 99870 16327337] agent_manager.cc:190: Failed to "
        'create runtime env: {"working_dir": "s3://fake.zip"}, error message: not enough values '
        "to unpack (expected 2, got 1)",
        "ray.runtime_env_failed",
        {},
    ),
    # ray-project/ray issue #22472 (the job manager's status, and the exception's second line)
    (
        "Status message: runtime_env setup failed: Failed to set up runtime environment.",
        "ray.runtime_env_failed",
        {},
    ),
    (
        "Could not create the actor because its associated runtime env failed to be created.",
        "ray.runtime_env_failed",
        {},
    ),
    # ray-project/ray issue #38312 (the pip plugin)
    (
        "(pid=runtime_env, ip=192.168.1.100) ValueError: Local directory /tmp/ray/session_2023-08-"
        "14_16-30-15_404117_349384/runtime_resources/pip/4950ef80135a68b4f9621da6c5c2f4759041a698 "
        "for URI pip://4950ef80135a68b4f9621da6c5c2f4759041a698 does not exist on the cluster. "
        "Something may have gone wrong while installing the runtime_env `pip` packages.",
        "ray.runtime_env_failed",
        {},
    ),
    # ray-project/ray issue #11594 (RLlib's weight sync, 25 GB)
    (
        "ray.exceptions.ObjectStoreFullError: Failed to put object ffffffffffffffffdf5a1a82010000000"
        "2000000 in object store because it is full. Object size is 25892330588 bytes.",
        "ray.object_store_full",
        {"bytes": "25892330588"},
    ),
    (
        "The local object store is full of objects that are still in scope and cannot be evicted. "
        "Tip: Use the `ray memory` command to list active objects in the cluster.",
        "ray.object_store_full",
        {},
    ),
    # OpenMathLib/OpenBLAS issue #1668 (the older wording, with the limit it hit),
    # CFIA-NCFAD/nf-flu issue #105, infiniflow/ragflow issue #5342 (a container refusing clone)
    (
        "    OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable",
        "python.thread_limit",
        {},
    ),
    (
        "    OpenBLAS blas_thread_init: RLIMIT_NPROC 1032189 current, 1032189 max",
        "python.thread_limit",
        {},
    ),
    (
        "OpenBLAS blas_thread_init: pthread_create failed for thread 86 of 128: Resource "
        "temporarily unavailable",
        "python.thread_limit",
        {},
    ),
    (
        "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 48: Operation not "
        "permitted",
        "python.thread_limit",
        {},
    ),
    # sjtu-marl/malib issue #33 (title: std::thread's system_error), golang/go issue #37006
    ("thread: Resource temporarily unavailable", "python.thread_limit", {}),
    (
        "runtime/cgo: pthread_create failed: Resource temporarily unavailable",
        "python.thread_limit",
        {},
    ),
    # NVIDIA/TensorRT-LLM issue #1796 (one GPU for a tp=2 engine), NVIDIA/NeMo-Aligner issue #264
    (
        "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/home/jenkins/"
        "agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/"
        "worldConfig.cpp:99)",
        "trtllm.assertion_failed",
        {"check": "mpiSize == tp * pp"},
    ),
    (
        "RuntimeError: RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Failed to refit "
        "transformer.layers.0.input_layernorm.bias (/opt/TensorRT-LLM/cpp/tensorrt_llm/runtime/"
        "tllmRuntime.cpp:229)",
        "trtllm.assertion_failed",
        {"check": "Failed to refit transformer.layers.0.input_layernorm.bias"},
    ),
    # vllm-project/vllm pull request #43095 (as quoted there, the counts left as N)
    (
        "RuntimeError: Every node should have a unique IP address. Got N nodes",
        "vllm.node_ip_mismatch",
        {},
    ),
    # a public multi-node runbook quoting it (the driver's address matching no Ray node)
    ("**`Every node should have a unique IP address`**", "vllm.node_ip_mismatch", {}),
    # vllm-project/vllm issue #2652, and #52435 (pydantic's rendering)
    (
        "ValueError: Total number of attention heads (52) must be divisible by tensor parallel "
        "size (8).",
        "vllm.parallel_layout_invalid",
        {"heads": "52", "tp": "8"},
    ),
    (
        "Value error, Total number of attention heads (64) must be divisible by tensor parallel "
        "size (3).",
        "vllm.parallel_layout_invalid",
        {"heads": "64", "tp": "3"},
    ),
    # vllm-project/vllm issue #596 (three GPUs, tensor parallel size 2)
    (
        "ValueError: The number of GPUs per node is not divisible by the number of tensor "
        "parallelism.",
        "vllm.parallel_layout_invalid",
        {},
    ),
    # ray-project/ray pull request #60376 (the controller's retry, runtime_env still installing)
    (
        "The worker group startup timed out after 30.0 seconds waiting for 8 workers. Potential "
        "causes include: (1) temporary insufficient cluster resources while waiting for "
        "autoscaling (ignore this warning in this case), (2) infeasible resource request where "
        "the provided `ScalingConfig` cannot be satisfied), and (3) transient network issues.",
        "ray.train_worker_group_timeout",
        {},
    ),
    # sgl-project/sglang issue #7338 (the aborted request's message)
    (
        "Decode transfer failed for request rank=0 decode_req.req.rid='c564d0c547f945aa987620f1255b"
        "838d' decode_req.req.bootstrap_room=2170015846053279415 with exception KVTransferError("
        "bootstrap_room=2170015846053279415): Failed to get kvcache from prefill instance, it "
        "might be dead",
        "sglang.kv_transfer_failed",
        {},
    ),
    # pytorch/pytorch issue #175666 (vLLM's distributed CI on a 22 GiB GPU)
    (
        "[2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:1 "
        "(19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 "
        "GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
        "vllm.startup_memory_taken",
        {},
    ),
    # vllm-project/vllm pull request #33358 (the V1 wording, quoted from an XPU run)
    (
        "(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in "
        "memory profiling. Initial free memory 30.3 GiB, current free memory 30.3 GiB. This "
        "happens when other processes sharing the same container release GPU memory while vLLM "
        "is profiling during initialization.",
        "vllm.startup_memory_taken",
        {},
    ),
    # vllm-project/vllm issue #8908 (the line up to the third of its sixteen bundles)
    (
        "INFO 09-27 16:47:50 ray_utils.py:183] Waiting for creating a placement group of specs "
        "for 1270 seconds. specs=[{'node:10.2.0.127': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, "
        "{'GPU': 1.0},",
        "vllm.placement_group_unavailable",
        {},
    ),
    # InternLM/lmdeploy's Ascend note (the raise's first line; the specs follow on others)
    (
        "ValueError: Cannot provide a placement group of placement_group_specs=[",
        "vllm.placement_group_unavailable",
        {},
    ),
    # vllm-project/vllm issue #3190 (a head node without GPUs)
    (
        "ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the "
        "Ray placement group or running the driver on a GPU node.",
        "vllm.placement_group_unavailable",
        {},
    ),
    # vllm-project/vllm issues #6823 and #15295
    (
        "ERROR 07-26 14:50:35 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 214281 "
        "died, exit code: -11",
        "vllm.worker_process_died",
        {"code": "-11"},
    ),
    # vllm-project/vllm issue #23582
    (
        "(EngineCore_0 pid=271) ERROR 08-25 12:24:19 [multiproc_executor.py:146] Worker proc "
        "VllmWorker-1 died unexpectedly, shutting down executor.",
        "vllm.worker_process_died",
        {},
    ),
    # vllm-project/vllm issue #14452 (the executor's typo is vLLM's own)
    (
        "CRITICAL 03-15 17:24:18 [multiproc_executor.py:48] MulitprocExecutor got fatal signal "
        "from worker processes, shutting down. See stack trace above for root cause issue.",
        "vllm.worker_process_died",
        {},
    ),
    # vllm-project/vllm issue #18577
    (
        "(VllmWorker rank=2 pid=808339) ERROR 06-10 03:43:33 [multiproc_executor.py:487] "
        "WorkerProc failed to start.",
        "vllm.worker_process_died",
        {},
    ),
    # intel/llm-scaler issue #154
    (
        "eap-llm-server-on-arc  | ERROR 11-08 11:01:30 [core.py:502] EngineCore encountered a "
        "fatal error.",
        "vllm.worker_process_died",
        {},
    ),
    # vllm/v1/engine/utils.py wait_for_engine_startup, as public serving logs quote it
    (
        "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause "
        "above. Failed core proc(s): {}",
        "vllm.worker_process_died",
        {},
    ),
    # vllm-project/vllm-ascend issue #3717 (the V1 wording), OpenPipe/ART issue #201 (DEBUG, early)
    (
        "(EngineCore_DP0 pid=323240) INFO 12-09 11:25:53 [shm_broadcast.py:466] No available shared "
        "memory broadcast block found in 60 seconds. This typically happens when some processes "
        "are hanging or doing some time-consuming work (e.g. compilation).",
        "vllm.shm_broadcast_stalled",
        {},
    ),
    (
        "DEBUG 07-04 17:35:10 [shm_broadcast.py:456] No available shared memory broadcast block "
        "found in 60 second.",
        "vllm.shm_broadcast_stalled",
        {},
    ),
    # OpenRLHF/OpenRLHF issue #1193 (an RL weight update run on every vLLM worker)
    (
        "(LLMRayActor pid=585804) (EngineCore_DP0 pid=586112) ERROR 03-05 00:25:45 [core.py:1094] "
        "Invocation of collective_rpc method failed",
        "vllm.worker_process_died",
        {},
    ),
    # sgl-project/sglang issue #3752 (every TP rank at once)
    (
        "[2025-03-09 00:57:15 TP4] Watchdog timeout (self.watchdog_timeout=300)",
        "sglang.watchdog_timeout",
        {},
    ),
    # sgl-project/sglang issue #3685 (the older wording)
    (
        "Message: 'Received sigquit from a child proces. It usually means the child failed.'",
        "sglang.child_failed",
        {},
    ),
    # sgl-project/sglang issue #4766 (a TP rank on the second node)
    (
        "[2025-03-25 14:34:11 TP10] Scheduler hit an exception: Traceback (most recent call last):",
        "sglang.child_failed",
        {},
    ),
    # jax-ml/jax issue #19596
    (
        "2024-01-31 10:21:35.025511: W external/tsl/tsl/distributed_runtime/preemption/"
        "preemption_sync_manager.cc:170] Failed to retrieve preemption notice from coordination "
        "service: UNAVAILABLE: Socket closed",
        "xla.preemption_notice_failed",
        {},
    ),
    # jax-ml/jax issue #35905
    ("RPC: /tensorflow.CoordinationService/RegisterTask", "xla.register_task_failed", {}),
]

# (key, line that must not yield it)
NEGATIVE: list[tuple[str, str]] = [
    # the autoscaler's status while it scales up: pending, not infeasible
    (
        "ray.infeasible_request",
        "Resized to 64 CPUs, 8 GPUs. Demands: {'GPU': 1.0}: 8+ pending tasks/actors",
    ),
    ("ray.actor_killed", "The actor died unexpectedly before finishing this task."),
    ("ray.actor_killed", "ray.kill(actor) called by the driver during shutdown"),
    # KubeRay's worker-side line names the GCS, not this raylet's own state (ray.node_marked_dead)
    (
        "ray.raylet_unhealthy",
        "Exiting because this node manager has mistakenly been marked as dead by the GCS",
    ),
    ("ray.raylet_unhealthy", "Health check failed for node gpu-a03: connection refused"),
    ("ray.raylet_unhealthy", "Health check passed for node 2eea4cfb179ce7951c4bbdd5ba3029c3a4dc"),
    # vLLM's placement succeeding
    (
        "vllm.placement_group_unavailable",
        "INFO 09-27 16:47:50 ray_utils.py:213] Placement group created: specs=[{'GPU': 1.0}]",
    ),
    # vLLM's workers shutting down after the parent exited, and a clean engine shutdown
    (
        "vllm.worker_process_died",
        "(VllmWorker TP0 pid=405) INFO 08-25 12:24:19 [multiproc_executor.py:520] Parent process "
        "exited, terminating worker",
    ),
    ("vllm.worker_process_died", "INFO 07-04 17:35:16 [core.py:400] EngineCore exiting."),
    ("sglang.child_failed", "[2025-03-25 14:34:11 TP10] Scheduler started."),
    # a raylet that lost the GCS it had joined (ray.gcs_unreachable), not a join failure
    (
        "ray.gcs_join_failed",
        "gcs_rpc_client.h:533: Failed to connect to GCS within 60 seconds. GCS may have been "
        "killed.",
    ),
    # Ray reusing an environment it built, and vLLM's parallel config echoed at start
    (
        "ray.runtime_env_failed",
        'INFO runtime_env_agent.py:400 -- Successfully created runtime env: {"pip": ["x"]}',
    ),
    (
        "vllm.parallel_layout_invalid",
        "tensor_parallel_size=8, pipeline_parallel_size=1, disable_custom_all_reduce=False",
    ),
    # Ray Train starting its group normally; SGLang's bootstrap handshake succeeding
    (
        "ray.train_worker_group_timeout",
        "Attempting to start training worker group of size 8 with the following resources: "
        "[{'GPU': 1}] * 8",
    ),
    (
        "sglang.kv_transfer_failed",
        "[2025-09-17 16:23:13 TP0] Decode transfer done for request rank=0 bootstrap_room=1655",
    ),
    # vLLM's startup snapshot when the check passes
    (
        "vllm.startup_memory_taken",
        "Free memory on device (110.37/121.69 GiB) on startup. Desired GPU memory utilization is "
        "(0.87, 105.87 GiB).",
    ),
    # vLLM announcing its broadcast queue at start-up
    (
        "vllm.shm_broadcast_stalled",
        "(VllmWorker rank=0 pid=403) INFO 07-23 19:34:48 [shm_broadcast.py:289] vLLM message queue "
        "communication handle: Handle(local_reader_ranks=[0], buffer_handle=(1, 10485760, 10, "
        "'psm_0d5af338'))",
    ),
    # vLLM announcing its driver's address
    ("vllm.node_ip_mismatch", "INFO 08-19 21:25:13 ray_gpu_executor.py:120] driver_ip: 10.0.0.2"),
    # Ray spilling objects to disk, as it should
    (
        "ray.object_store_full",
        "(raylet) Spilled 4096 MiB, 12 objects, write throughput 1200 MiB/s. Set "
        "RAY_verbose_spill_logs=0 to disable this message.",
    ),
    # a thread's frame in a backtrace, and a non-blocking read with nothing to read
    (
        "python.thread_limit",
        "#5  0x00007fe587aef609 in start_thread (arg=<optimised out>) at pthread_create.c:477",
    ),
    ("python.thread_limit", "read: Resource temporarily unavailable"),
    # TensorRT-LLM's MPI check failing is MPI's story (NVIDIA/TensorRT-LLM issue #1826)
    (
        "trtllm.assertion_failed",
        "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /home/jenkins/agent/"
        "workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/common/mpiUtils.cpp:211 '6'",
    ),
    # SGLang's launch argument, echoed in server_args
    ("sglang.watchdog_timeout", "server_args=ServerArgs(watchdog_timeout=300, dist_timeout=None)"),
    # Serve's health checks passing, and a replica stopped on a scale-down
    ("ray.serve_replica_failed", "Replica echo#kKvmLq of deployment echo passed health check."),
    (
        "ray.serve_replica_failed",
        "Stopping 1 replicas of deployment 'echo' with outdated versions.",
    ),
    (
        "xla.preemption_notice_failed",
        "preemption_sync_manager.cc:200] Received preemption notice with death time 2024-01-31",
    ),
    ("xla.register_task_failed", "RPC: /tensorflow.CoordinationService/Heartbeat"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_none_acts_on_a_node() -> None:
    for key in BLAME:
        assert CATALOG.signatures[key].node_action.value == "none", key


def test_restatements_weigh_less_than_a_collective_complaint() -> None:
    """A launcher or engine restating that a process died names no cause: it must stay under the
    20 of a collective symptom, so the line that says why decides."""
    for key in (
        "ray.actor_killed",
        "vllm.shm_broadcast_stalled",
        "ray.serve_replica_failed",
        "ray.train_worker_group_timeout",
        "sglang.watchdog_timeout",
        "vllm.worker_process_died",
        "sglang.child_failed",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is S and sig.weight <= 10, key


def test_placement_refusals_are_configuration_hints_not_verdicts() -> None:
    """Ray waits on a request it cannot place, and shows the same text while an autoscaling
    cluster drains a queue: a hint at the job's setup, weighed below a framework's refusal."""
    assert CATALOG.signatures["ray.infeasible_request"].weight <= 50
    assert CATALOG.signatures["vllm.placement_group_unavailable"].weight >= 55


def test_a_failed_vllm_worker_no_longer_reads_as_the_application() -> None:
    line = (
        "(APIServer pid=1370) RuntimeError: Engine core initialization failed. See root cause "
        "above. Failed core proc(s): {}"
    )
    assert set(hits(line)) == {"vllm.worker_process_died"}


def test_configuration_refusals_outweigh_the_generic_exception() -> None:
    """A refusal of the job's own setup must stay above the generic exception (50), which
    attribution drops once the node's own collective complaint came first."""
    for key in (
        "python.thread_limit",
        "ray.object_store_full",
        "vllm.node_ip_mismatch",
        "vllm.parallel_layout_invalid",
        "vllm.placement_group_unavailable",
    ):
        assert CATALOG.signatures[key].weight > 50, key


def test_texts_that_may_be_the_node_weigh_as_the_generic_exception() -> None:
    """A runtime_env that Ray could not build (a package index out of reach, Ray's agent) and a
    GPU shared with another process (a leftover of an earlier job) are not surely the job's:
    named now, they weigh exactly as the generic exception they were read as before."""
    generic = CATALOG.signatures["python.exception"].weight
    for key in ("ray.runtime_env_failed", "vllm.startup_memory_taken"):
        sig = CATALOG.signatures[key]
        assert sig.blame is A and sig.weight == generic, key
