"""Golden tests for the launcher family (`signatures-launchers.toml`, issue 14).

Real lines from Ray, torch.multiprocessing.spawn (Lightning ddp_spawn), Accelerate and the
DeepSpeed launcher (each cited) go through the scanner's own matcher: each must yield its
signal with the captures it names. A launcher only restates who died: none of its lines may
read as the application's error, except Ray's memory monitor, which says why it killed a
worker, and a GCS address with no host, which says the launch command was given an empty one. Lines that look alike must not match. Every entry of the family file has a golden line.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_application_only_if_meant, assert_matches, family_keys
from domain.golden import hits as _hits

FAMILY_FILE = "signatures-launchers.toml"
FAMILY_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "ray.oom_killed": Blame.APPLICATION,
    "composer.rank_exit": Blame.SYMPTOM,
    "ray.node_marked_dead": Blame.SYMPTOM,
    "ray.actor_died": Blame.SYMPTOM,
    "ray.worker_died": Blame.SYMPTOM,
    "ray.internal_check_failed": Blame.SYMPTOM,
    "ray.owner_died": Blame.SYMPTOM,
    "ray.raylet_died": Blame.SYMPTOM,
    "ray.task_error": Blame.INFO,
    "ray.object_lost": Blame.SYMPTOM,
    "ray.gcs_unreachable": Blame.SYMPTOM,
    "ray.redis_connection_closed": Blame.SYMPTOM,
    "ray.task_node_died": Blame.SYMPTOM,
    "ray.gcs_connect_retry": Blame.INFO,
    "ray.gcs_address_without_host": Blame.APPLICATION,
    "ray.gcs_cluster_id_failed": Blame.SYMPTOM,
    "lightning.rank_initializing": Blame.INFO,
    "lightning.slurm_managed": Blame.INFO,
    "deepspeed.mpi_discovered": Blame.INFO,
    "mp.process_raised": Blame.SYMPTOM,
    "mp.process_exited": Blame.SYMPTOM,
    "lightning.child_terminated": Blame.SYMPTOM,
    "launcher.subprocess_failed": Blame.SYMPTOM,
    "deepspeed.launcher_exit": Blame.SYMPTOM,
    "deepspeed.killing_subprocess": Blame.INFO,
    "deepspeed.launcher_signalled": Blame.SYMPTOM,
    "ompi.rank_signalled": Blame.SYMPTOM,
    "ompi.daemon_lost": Blame.SYMPTOM,
    "horovod.shut_down": Blame.SYMPTOM,
    "ompi.transport_peer_lost": Blame.SYMPTOM,
    # the framework-tracker sweep (golden lines in test_catalog_tracker_frameworks.py too)
    "ray.system_error": Blame.SYMPTOM,
    "ray.worker_module_missing": Blame.APPLICATION,  # depth review (s22)
    "deepspeed.ssh_check_failed": Blame.APPLICATION,
    "pdsh.ssh_exited": Blame.SYMPTOM,
    "launcher.sigterm_bypassed": Blame.SYMPTOM,
    # the round-2 sweep (more golden lines in test_catalog_tracker_frameworks.py)
    "ray.local_disk_nearly_full": Blame.APPLICATION,
    "ray.out_of_disk": Blame.APPLICATION,
    "ray.train_actor_retries_exhausted": Blame.SYMPTOM,
    # the round-4 sweep (more golden lines in test_catalog_tracker_frameworks2.py)
    "deepspeed.include_invalid": Blame.APPLICATION,
    "ray.gpu_request_exceeds_cluster": Blame.APPLICATION,
    "ray.train_failed": Blame.SYMPTOM,
    # the round-5 sweep (more golden lines in test_catalog_tracker_frameworks3.py)
    "ray.infeasible_request": Blame.APPLICATION,
    "ray.actor_killed": Blame.SYMPTOM,
    "ray.raylet_unhealthy": Blame.SYMPTOM,
    "ray.serve_replica_failed": Blame.SYMPTOM,
    "ray.gcs_join_failed": Blame.APPLICATION,
    "ray.runtime_env_failed": Blame.APPLICATION,
    "ray.train_worker_group_timeout": Blame.SYMPTOM,
    "ray.object_store_full": Blame.APPLICATION,
    # the c19c batch (issue 14): gRPC's channel status when no address of its server answered
    "grpc.connect_failed": Blame.SYMPTOM,
    # sweep round 6 (issue 14, s20b): gRPC status texts, ZeroMQ and redis-py under the control
    # planes; only the ZeroMQ state-machine misuse is the program's own
    "grpc.transport_closed": Blame.SYMPTOM,
    "grpc.deadline_exceeded": Blame.SYMPTOM,
    "grpc.rpc_failed": Blame.SYMPTOM,
    "grpc.goaway": Blame.SYMPTOM,
    "grpc.bind_failed": Blame.SYMPTOM,
    "net.address_in_use": Blame.SYMPTOM,
    "zmq.socket_state": Blame.APPLICATION,
    "redis.connection_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # ray-project/ray issue #59626 (a core worker's check, its status a broken pipe)
    (
        "[2025-12-23 07:57:11,571 C 4173 4173] task_receiver.cc:151:  An unexpected system state "
        "has occurred. You have likely discovered a bug in Ray. Please report this issue at "
        "https://github.com/ray-project/ray/issues and we'll work with you to fix it. Check "
        "failed: actor_creation_task_done_() Status not OK: IOError: Broken pipe ",
        "ray.internal_check_failed",
        {},
    ),
    # ray-project/ray issue #45639 (the wording before pull request #55276)
    (
        "2024-05-29 22:51:16\t[2024-05-29 22:51:15,987 C 4837 4890] (gcs_server) ray_syncer.cc:248:"
        " Check failed: sync_reactors_.find(reactor->GetRemoteNodeID()) == sync_reactors_.end()",
        "ray.internal_check_failed",
        {},
    ),
    # pytorch/gloo issue #33; open-mpi/ompi issue #6618; garyexplains/examples issue #13
    (
        "mpirun noticed that process rank 1 with PID 29013 on node 172.17.27.12 exited on signal "
        "6 (Aborted).",
        "ompi.rank_signalled",
        {"rank": "1", "host": "172.17.27.12", "signal": "6", "name": "Aborted"},
    ),
    (  # kubeflow/mpi-operator issue #90 (Horovod's image: the launcher binary is mpirun.real)
        "mpirun.real noticed that process rank 1 with PID 39 on node mpi-test-2-mpijob-worker-1 "
        "exited on signal 9 (Killed).",
        "ompi.rank_signalled",
        {"rank": "1", "host": "mpi-test-2-mpijob-worker-1", "signal": "9", "name": "Killed"},
    ),
    ("ORTE has lost communication with a remote daemon.", "ompi.daemon_lost", {}),
    (
        "Remote daemon: [[11377,0],1] on node i39030a4a38d4a3abcb17e488a3141ef-mpijob-0-worker-0",
        "ompi.daemon_lost",
        {"peer": "i39030a4a38d4a3abcb17e488a3141ef-mpijob-0-worker-0"},
    ),
    # aws/aws-parallelcluster issue #301 (Open MPI 2.x wording; the host follows on its own line)
    (" ORTE has lost communication with its daemon located on node:", "ompi.daemon_lost", {}),
    # open-mpi/ompi issues #1620 and #4131; openucx/ucx issue #6705
    (
        "[node12][[17490,1],60][btl_tcp_endpoint.c:457:mca_btl_tcp_endpoint_recv_blocking] "
        "recv(31) failed: Connection reset by peer (104)",
        "ompi.transport_peer_lost",
        {"text": "Connection reset by peer (104)"},
    ),
    (
        "[rhc002][[16379,1],2][btl_tcp.c:556:mca_btl_tcp_recv_blocking] remote peer unexpectedly "
        "closed connection while I was waiting for blocking message",
        "ompi.transport_peer_lost",
        {},
    ),
    (
        "[1619372637.777492] [jazz01:76429:0]          tcp_ep.c:1105 UCX  ERROR tcp_ep 0x1288210 "
        "(state=CONNECTED): recv(42) failed: Connection reset by remote peer",
        "ompi.transport_peer_lost",
        {"ucx": "Connection reset by remote peer"},
    ),
    # horovod/horovod issues #534 (TensorFlow's AbortedError) and #243 (the 2018 wording)
    (
        "AbortedError (see above for traceback): Horovod has been shut down. This was caused by an "
        "exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor "
        "after one of the ranks finished execution.",
        "horovod.shut_down",
        {},
    ),
    (
        "AbortedError (see above for traceback): Horovod has been shut down. This has been caused "
        "by an exception on one of the rank or an attempt to allreduce, allgather or broadcast a "
        "tensor after one of the ranks has finished execution.",
        "horovod.shut_down",
        {},
    ),
    # ray-project/ray#30312 (pytest output)
    (
        "E                       ray.exceptions.OutOfMemoryError: Task was killed due to the "
        "node running low on memory.",
        "ray.oom_killed",
        {},
    ),
    # WM-PO/WMPO#3 (the memory monitor's summary; the terminal wrapped the line after "at")
    (
        "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 "
        "Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to "
        "other reasons at",
        "ray.oom_killed",
        {},
    ),
    # mosaicml/llm-foundry issue #258 (Composer's launcher, a rank killed by SIGBUS)
    (
        "ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.",
        "composer.rank_exit",
        {"rank": "2", "code": "-7"},
    ),
    # rendered from composer/cli/launcher.py _print_process_exit_status
    (
        "Global rank 0 (PID 4242) exited with code -11",
        "composer.rank_exit",
        {"global_rank": "0", "exit_code": "-11"},
    ),
    # rendered from src/ray/raylet/node_manager.cc (the monitor's explanation on its own line)
    (
        "Memory on the node (IP: 10.0.0.1, ID: 5f3a) where the task (task ID: 9c1e, name=train, "
        "pid=4242, memory used=80.1GB) was running was 95.02GB / 100.00GB (0.950201), which "
        "exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 77ab) because "
        "it was the most recently scheduled task",
        "ray.oom_killed",
        {},
    ),
    # tensorflow/tpu tools/ray_tpu/README.md (the second node of the same event)
    (
        "2023-03-03 05:15:33,243 WARNING worker.py:1866 -- The node with node id: "
        "214f5e4656d1ef48f99148ddde46448253fe18672534467ee94b02ba and address: 10.130.0.114 and "
        "node name: 10.130.0.114 has been marked dead because the detector has missed too many "
        "heartbeats from it. This can happen when a       (1) raylet crashes unexpectedly (OOM, "
        "preempted node, etc.)",
        "ray.node_marked_dead",
        {"peer": "10.130.0.114"},
    ),
    # hiyouga/EasyR1#324
    (
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        "ray.actor_died",
        {},
    ),
    # ray-project/ray#18586 (title; the exception's name before Ray 2.10)
    (
        "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
        "ray.actor_died",
        {},
    ),
    # Unakar/Logic-RL#18
    (
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
        "file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM "
        "killer due to high memory usage. (2) ray stop --force is called. (3) The worker is "
        "crashed unexpectedly due to SIGSEGV or other unexpected errors.",
        "ray.actor_died",
        {},
    ),
    # ray-project/ray#26007
    (
        "  | 2022-06-21 19:14:10,718\tWARNING worker.py:1737 -- A worker died or was killed while "
        "executing a task by an unexpected system error. To troubleshoot the problem, check the "
        "logs for the dead worker. RayTask ID: ffffffffffffffff7cc1d49b6d4812ea954ca19a01000000 "
        "Worker ID: 9fb0f63d84689c6a9e5257309a6346170c827aa7f970c0ee45e79a8b Node ID: "
        "2d493b4f39f0c382a5dc28137ba73af78b0327696117e9981bd2425c Worker IP address: 172.18.0.3 "
        "Worker port: 35883 Worker PID: 31945 Worker exit type: SYSTEM_ERROR Worker exit detail: "
        "Worker unexpectedly exits with a connection error code 2. End of file. There are some "
        "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high "
        "memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due "
        "to SIGSEGV or other unexpected errors.",
        "ray.worker_died",
        {},
    ),
    # hiyouga/EasyR1#324
    (
        "The actor is dead because its owner has died. Owner Id: "
        "01000000ffffffffffffffffffffffffffffffffffffffffffffffff Owner Ip address: 172.21.160.9 "
        "Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has crashed.",
        "ray.owner_died",
        {},
    ),
    # synthesized from ray-project/ray python/ray/exceptions.py (fixed text)
    (
        "ray.exceptions.LocalRayletDiedError: The task's local raylet died. Check raylet.out for "
        "more information.",
        "ray.raylet_died",
        {},
    ),
    # hiyouga/EasyR1#193 (title)
    (
        "bug: ray.exceptions.RayTaskError(AssertionError): ray::Runner.run()",
        "ray.task_error",
        {"wrapped": "AssertionError"},
    ),
    # ray-project/ray#35365
    (
        "ray.exceptions.RayTaskError: ray::f() (pid=42963, ip=10.0.35.208)",
        "ray.task_error",
        {},
    ),
    # synthesized from ray-project/ray python/ray/exceptions.py (format only)
    (
        "All copies of 00ffffffffffffffffffffffffffffffffffffff0100000001000000 have been lost "
        "due to node failure. Check cluster logs (`/tmp/ray/session_latest/logs`) for more "
        "information about the failure.",
        "ray.object_lost",
        {},
    ),
    # ray-project/ray issue #28906 (a chaos release test killing nodes; the lost object's task
    # had spent its retries)
    (
        "ray.exceptions.ObjectReconstructionFailedMaxAttemptsExceededError: Failed to retrieve "
        "object 8137d1a777763561ffffffffffffffffffffffff0300000007000000. To see information "
        "about where this ObjectRef was created in Python, set the environment variable "
        "RAY_record_ref_creation_sites=1 during `ray start` and `ray.init()`.",
        "ray.object_lost",
        {},
    ),
    # Lightning-AI/pytorch-lightning#20392 (CI output)
    (
        "FAILED strategies\\launchers\\test_multiprocessing.py::test_fit_twice_raises - "
        "torch.multiprocessing.spawn.ProcessRaisedException: ",
        "mp.process_raised",
        {},
    ),
    # LSH9832/edgeyolo#20
    ("-- Process 1 terminated with the following error:", "mp.process_raised", {}),
    # Plachtaa/VITS-fast-fine-tuning#399 (title)
    (
        "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 1",
        "mp.process_exited",
        {"code": "1"},
    ),
    # synthesized from Lightning's subprocess_script.py (format only)
    (
        "[rank: 1] Child process with PID 52081 terminated with code 1. Forcefully terminating "
        "all other processes to avoid zombies 🧟",
        "lightning.child_terminated",
        {"code": "1"},
    ),
    # Ree1s/IDM#4 (title)
    (
        "subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.",
        "launcher.subprocess_failed",
        {"code": "1"},
    ),
    # MarvinTeichmann/MultiNet#61 (title)
    (
        "subprocess.CalledProcessError: Command returned non-zero exit status -11",
        "launcher.subprocess_failed",
        {"code": "-11"},
    ),
    # deepspeedai/DeepSpeed#5302
    (
        "[2024-03-20 20:31:29,240] [INFO] [launch.py:315:sigkill_handler] Killing subprocess "
        "3353708",
        "deepspeed.killing_subprocess",
        {},
    ),
    # deepspeedai/DeepSpeed#3232
    (
        "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', "
        "'-u', 'main.py', '--local_rank=0', '--data_path', 'Dahoas/rm-static', "
        "'Dahoas/full-hh-rlhf', 'Dahoas/synthetic-instruct-gptj-pairwise', "
        "'yitingxie/rlhf-reward-datasets', 'openai/webgpt_comparisons', 'stanfordnlp/SHP', "
        "'--data_split', '2,4,4', '--model_name_or_path', 'facebook/opt-125m', "
        "'--per_device_train_batch_size', '2', '--per_device_eval_batch_size', '8', "
        "'--max_seq_len', '512', '--learning_rate', '9.65e-6', '--weight_decay', '0.1', "
        "'--num_train_epochs', '2', '--gradient_accumulation_steps', '1', '--lr_scheduler_type', "
        "'cosine', '--num_warmup_steps', '0', '--seed', '1234', '--zero_stage', '2', "
        "'--deepspeed', '--output_dir', '/content/DeepSpeedExamples/applications/DeepSpeed-Chat/"
        "output/actor-models/125m'] exits with return code = -9",
        "deepspeed.launcher_exit",
        {"code": "-9"},
    ),
    # synthesized from microsoft/DeepSpeed deepspeed/launcher/launch.py (format only)
    (
        "[INFO] [launch.py:330:sigkill_handler] Main process received SIGTERM, exiting",
        "deepspeed.launcher_signalled",
        {},
    ),
]

GOLDEN += [
    # NVIDIA-NeMo/Speech#5819 (NeMo on Lightning); Lightning 1.0-1.4's wording (rendered)
    (
        "0: Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8",
        "lightning.rank_initializing",
        {"global_rank": "1", "member": "2", "world": "8"},
    ),
    (
        "initializing ddp (SLURM): GLOBAL_RANK: 5, MEMBER: 6/16",
        "lightning.rank_initializing",
        {"global_rank": "5", "world": "16"},
    ),
    # Lightning 1.x accelerator_connector.py (rank_zero_info), as a Slurm job's output has it
    ("0: Multi-processing is handled by Slurm.", "lightning.slurm_managed", {}),
    # a public ALCF Polaris run's log (DeepSpeed's comm.py mpi_discovery)
    (
        "[2023-10-05 16:56:41,621] [INFO] [comm.py:702:mpi_discovery] Discovered MPI settings of "
        "world_rank=4, local_rank=0, world_size=8, master_addr=10.140.57.89, master_port=29500",
        "deepspeed.mpi_discovered",
        {"global_rank": "4", "local_rank": "0", "world": "8"},
    ),
]

GOLDEN += [
    # ModalMinds/MM-EUREKA#54: `ray start --address=:6379` (the head's address variable unset)
    (
        "[2025-07-23 10:05:49,679 W 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS "
        "at address :6379 within 5 seconds.",
        "ray.gcs_address_without_host",
        {"port": "6379"},
    ),
    (
        "[2025-07-23 10:06:19,681 W 51000 51000] gcs_client.cc:183: Failed to get cluster ID "
        "from GCS server: TimedOut: Timed out while waiting for GCS to become available.",
        "ray.gcs_cluster_id_failed",
        {"status": "TimedOut"},
    ),
]

GOLDEN += [
    # kingoflolz/mesh-transformer-jax#158 (a Ray driver's threads as the head's Redis went)
    (
        "2021-11-25 17:15:42,255 ERROR worker.py:1125 -- listen_error_messages_raylet: "
        "Connection closed by server.",
        "ray.redis_connection_closed",
        {"thread": "listen_error_messages_raylet"},
    ),
    (
        "2021-11-25 17:15:42,252 ERROR worker.py:465 -- print_logs: Connection closed by server.",
        "ray.redis_connection_closed",
        {"thread": "print_logs"},
    ),
    # ray-project/ray#36651 (a release test's raylet)
    (
        "[2023-06-14 23:54:11,900 E 869 1530] gcs_rpc_client.h:542: Failed to connect to GCS "
        "within 60 seconds. GCS may have been killed. It's either GCS is terminated by `ray stop` "
        "or is killed unexpectedly. If it is killed unexpectedly, see the log file "
        "gcs_server.out. https://docs.ray.io/en/master/ray-observability/ray-logging.html"
        "#logging-directory-structure. The program will terminate.",
        "ray.gcs_unreachable",
        {},
    ),
    # marin-community/marin#2309 (a wrapper quoting Ray's task-error header)
    (
        "RuntimeError: Job 140208822563728 failed with status failed and error: "
        "ray::run_on_pod_ray() (pid=101181, ip=10.128.0.64)",
        "ray.task_error",
        {},
    ),
    # marin-community/marin#2377 (the line up to its node IP and ID)
    (
        "RuntimeError: Job 139393033556432 failed: Task failed because the node it was running "
        "on is dead or unavailable.",
        "ray.task_node_died",
        {},
    ),
    # vllm-project/vllm#15385 (title)
    (
        "[Bug]: gcs_rpc_client.h:151: Failed to connect to GCS at address 192.168.2.40:6379 "
        "within 5 seconds.",
        "ray.gcs_connect_retry",
        {},
    ),
    # ray-project/ray#35364 (many_actors release test on AWS; the maintainers: a transient
    # network error)
    (
        'debug_error_string = "UNKNOWN:failed to connect to all addresses; last error: UNKNOWN: '
        'ipv4:10.0.28.42:6379: Network is unreachable {created_time:"2023-05-15T03:44:40.21294733'
        '-07:00", grpc_status:14}"',
        "grpc.connect_failed",
        {},
    ),
    # ray-project/ray#13090 (the dashboard agent in docker; gRPC's older bare wording)
    (
        '        details = "failed to connect to all addresses"',
        "grpc.connect_failed",
        {},
    ),
    # ray-project/ray#3224 (Ray 0.5's wording of a remote task's failure)
    (
        "ray.worker.RayGetError: Could not get objectid "
        "ObjectID(01000000047ef5a3579261569b767307b25bcf53). It was created by remote function "
        "train which failed with:",
        "ray.task_error",
        {},
    ),
]

# (signal, line that must NOT match it)
# the framework-tracker sweep: verl-project/verl #1299; hpcac/2023-APAC-HPC-AI #1;
# deepspeedai/DeepSpeed #5709; facebookincubator/submitit #1708
GOLDEN += [
    (
        "ray.exceptions.RaySystemError: System error: Failed to unpickle serialized exception",
        "ray.system_error",
        {"text": "Failed to unpickle serialized exception"},
    ),
    # verl-project/verl #4482 (depth review s22: tests/domain/test_catalog_depth_drun.py)
    (
        "ray.exceptions.RaySystemError: System error: No module named 'transformers_modules'",
        "ray.worker_module_missing",
        {"module": "transformers_modules"},
    ),
    (
        "RuntimeError: Using hostfile at /home/552/dz9214/hostfile but host=gadi-gpu-v100-0011 was "
        "not reachable via ssh. If you are running with a single node please remove "
        "/home/552/dz9214/hostfile or setup passwordless ssh.",
        "deepspeed.ssh_check_failed",
        {"host": "gadi-gpu-v100-0011"},
    ),
    (
        "pdsh@jiaming-Precision-7960-Tower: localhost: ssh exited with exit code 255",
        "pdsh.ssh_exited",
        {"host": "localhost", "code": "255"},
    ),
    (
        "submitit WARNING (2022-08-12 02:06:12,301) - Bypassing signal SIGTERM",
        "launcher.sigterm_bypassed",
        {},
    ),
]

GOLDEN += [
    # InternLM/lmdeploy issue #3457 (the raylet's file-system monitor)
    (
        "(raylet) [2025-04-21 10:05:37,313 E 959680 959717] file_system_monitor.cc:116: "
        "/tmp/ray/session_2025-03-25_17-33-57_554404_959134 is over 95% full, available space: "
        "42.6695 GB; capacity: 876.137 GB. Object creation will fail if spilling is required.",
        "ray.local_disk_nearly_full",
        {},
    ),
    ("ray.exceptions.OutOfDiskError: Local disk is full", "ray.out_of_disk", {}),
    (  # ray-project/xgboost_ray xgboost_ray/main.py
        "RuntimeError: A Ray actor died during training and the maximum number of dead actors in "
        "elastic training was reached. Shutting down training.",
        "ray.train_actor_retries_exhausted",
        {},
    ),
    # deepspeedai/DeepSpeed issue #3624 (a hostfile listing 2 slots, --include=work1:2,3)
    (
        "ValueError: No slot '2' specified on host 'work1'",
        "deepspeed.include_invalid",
        {"slot": "2", "host": "work1"},
    ),
    # rendered from the format of the host check beside it in runner.py parse_resource_filter
    (
        "ValueError: Hostname 'worker-2' not found in hostfile",
        "deepspeed.include_invalid",
        {"missing_host": "worker-2"},
    ),
    # verl-project/verl issue #5954 (CUDA_VISIBLE_DEVICES hiding GPUs from Ray)
    (
        "ValueError: Total available GPUs 7.0 is less than total desired GPUs 8",
        "ray.gpu_request_exceeds_cluster",
        {},
    ),
    # ray-project/ray issue #47974
    (
        "TrainingFailedError: The Ray Train run failed. Please inspect the previous error "
        "messages for a cause.",
        "ray.train_failed",
        {},
    ),
    # vllm-project/vllm issue #13388 (a bundle pinned to the driver's address)
    (
        "Error: No available node types can fulfill resource request {'node:10.61.0.27': 0.001, "
        "'GPU': 1.0}",
        "ray.infeasible_request",
        {"request": "{'node:10.61.0.27': 0.001, 'GPU': 1.0}"},
    ),
    # RLinf/RLinf issue #728 (title)
    ("The actor is dead because it was killed by `ray.kill`.", "ray.actor_killed", {}),
    # ray-project/ray issue #22425 (raylet.out before the node was marked dead)
    (
        "[2022-02-16 12:45:07,907 W 149 199] node_manager.cc:157: Last heartbeat was sent 6901 ms "
        "ago. There might be resource pressure on this node. If heartbeat keeps lagging, this "
        "node can be marked as dead mistakenly.",
        "ray.raylet_unhealthy",
        {},
    ),
    # ray-project/ray issue #23611 (a worker joining a head at 127.0.0.1)
    (
        "2022-03-30 17:22:35,502 WARNING node.py:1465 -- Unable to connect to GCS at "
        "127.0.0.1:6379. Check that (1) Ray GCS with matching version started successfully at "
        "the specified address, and (2) there is no firewall setting preventing access.",
        "ray.gcs_join_failed",
        {"gcs": "127.0.0.1:6379"},
    ),
    # ray-project/ray issue #27962
    (
        "ray.exceptions.RuntimeEnvSetupError: Failed to setup runtime environment.",
        "ray.runtime_env_failed",
        {},
    ),
    # ray-project/ray pull request #61536 (the flaky test's failure, as quoted there)
    (
        "E               ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: The "
        "worker group startup timed out after 60.",
        "ray.train_worker_group_timeout",
        {},
    ),
    # ray-project/ray issue #22176 (a 200 GB read into a 78 GB store)
    (
        "(remote_read pid=1225) [2022-02-07 04:20:03,942 E 1225 1225] plasma_store_provider.cc:122: "
        "Failed to put object 641e079764274441ffffffffffffffffffffffff0200000001000000 in object "
        "store because it is full. Object size is 219375455268 bytes.",
        "ray.object_store_full",
        {"bytes": "219375455268"},
    ),
    # rendered from ray-project/ray deployment_state.py's 2.x format (no public log line found)
    (
        "Replica Replica(id='j28b73mh', deployment='TFServe', app='default') failed health check, "
        "stopping it.",
        "ray.serve_replica_failed",
        {},
    ),
]

GOLDEN += [
    # sweep round 6 (issue 14, s20b): real lines of the RPC layers under the launchers and engines
    # pytorch/xla#2361 (TPU training; TensorFlow's grpc_remote_master)
    (
        "2020-07-19 18:52:43.783429: W    2250 tensorflow/core/distributed_runtime/rpc/"
        'grpc_remote_master.cc:160] RPC failed with status = "Unavailable: Socket closed" and '
        'grpc_error_string = "{"created":"@1595184763.783222230","description":"Error received '
        'from peer ipv4:10.164.133.234:8470","file":"external/com_github_grpc_grpc/src/core/lib/'
        'surface/call.cc","file_line":1056,"grpc_message":"Socket closed","grpc_status":14}", '
        "maybe retrying the RPC",
        "grpc.transport_closed",
        {"reason": "Socket closed"},
    ),
    # grpc/grpc#20360 (Python's _Rendezvous repr)
    ('\tdetails = "Socket closed"', "grpc.transport_closed", {"reason": "Socket closed"}),
    # grpc/grpc#34076
    (
        '        debug_error_string = "UNKNOWN:Error received from peer  {grpc_message:"Stream '
        'removed", grpc_status:2, created_time:"2023-09-22T18:33:43.8935151+00:00"}"',
        "grpc.transport_closed",
        {"reason": "Stream removed"},
    ),
    # grpc/grpc-java#8753
    (
        "io.grpc.StatusRuntimeException: UNAVAILABLE: keepalive watchdog timeout",
        "grpc.transport_closed",
        {"reason": "keepalive watchdog timeout"},
    ),
    # marieai/marie-ai#87
    (
        "ERROR  065301be-28ca-7efa-8000-9b486b83e4ea : AsyncGRPCClient@1192118 gRPC error: "
        "StatusCode.UNAVAILABLE keepalive watchdog timeout",
        "grpc.transport_closed",
        {"reason": "keepalive watchdog timeout"},
    ),
    # grpc/grpc#22877
    (
        "E0505 17:00:34.036852668 47929 chttp2_transport.cc:2880] ipv6:[::1]:50051: Keepalive "
        "watchdog fired. Closing transport.",
        "grpc.transport_closed",
        {},
    ),
    # pytorch/xla#2246 (torch_xla's mesh service)
    (
        "Exception in device=TPU:6: tensorflow/compiler/xla/xla_client/mesh_service.cc:294 : "
        "Failed to meet rendezvous 'init': Socket closed (14)",
        "grpc.transport_closed",
        {},
    ),
    # google/paxml#77 (1024 GPUs: RegisterTask to the coordination service)
    (
        "2024-04-12 23:39:41.656900: E external/xla/xla/pjrt/distributed/client.cc:96] "
        "Coordination service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded",
        "grpc.deadline_exceeded",
        {},
    ),
    # google/paxml#77 (the same, in gRPC core's error string)
    (
        ':{"created":"@1712965181.656280441","description":"Deadline Exceeded","file":"external/'
        'com_github_grpc_grpc/src/core/ext/filters/deadline/deadline_filter.cc","file_line":69,'
        '"grpc_status":4}',
        "grpc.deadline_exceeded",
        {},
    ),
    # jumpstarter-dev/jumpstarter#141
    ("\tstatus = StatusCode.DEADLINE_EXCEEDED", "grpc.deadline_exceeded", {}),
    # apache/skywalking#2917 (grpc-java)
    (
        "io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 969455382ns",
        "grpc.deadline_exceeded",
        {},
    ),
    # googleapis/google-cloud-dotnet#5152 (C#'s RpcException)
    (
        'Grpc.Core.RpcException: Status(StatusCode=Unknown, Detail="Stream removed")',
        "grpc.transport_closed",
        {"reason": "Stream removed"},
    ),
    # istio/istio#15088 (grpc-go's connection error after a GOAWAY)
    (
        "2019-06-29T02:09:27.855116Z     info    transport: loopyWriter.run returning. connection "
        'error: desc = "transport is closing"',
        "grpc.transport_closed",
        {"reason": "transport is closing"},
    ),
    (
        "2019-06-29T02:09:27.854748Z     info    Client received GoAway with "
        "http2.ErrCodeEnhanceYourCalm.",
        "grpc.goaway",
        {"go_err": "EnhanceYourCalm"},
    ),
    # deepspeedai/DeepSpeed-MII#85
    (
        "grpc.aio._call.AioRpcError: <AioRpcError of RPC that terminated with:",
        "grpc.rpc_failed",
        {"exception": "AioRpcError"},
    ),
    # grpc/grpc#20360
    ("\tstatus = StatusCode.UNAVAILABLE", "grpc.rpc_failed", {"code": "UNAVAILABLE"}),
    # ray-project/ray#27414 (the autoscaler's GCS client, the head gone)
    (
        "ray-ac,auto-cat-ml:2022-07-29 01:10:56,884\tDEBUG gcs_utils.py:142 -- Failed to send "
        "request to gcs, reconnecting. Error <_InactiveRpcError of RPC that terminated with:",
        "grpc.rpc_failed",
        {"exception": "_InactiveRpcError"},
    ),
    # marieai/marie-ai#162 (an etcd client at :2379)
    (
        "E0000 00:00:1754611629.299163    1008 chttp2_transport.cc:1316] ipv4:172.16.11.128:2379: "
        "Received a GOAWAY with error code ENHANCE_YOUR_CALM and debug data equal to "
        '"too_many_pings". Current keepalive time (before throttling): 30000ms',
        "grpc.goaway",
        {"code": "ENHANCE_YOUR_CALM"},
    ),
    # vitessio/vitess#15726 (grpc-go)
    (
        "vtorc-5dc96749c7-d7krt vtorc E0416 20:22:43.986560       1 component.go:46] [transport] "
        "Client received GoAway with error code ENHANCE_YOUR_CALM and debug data equal to ASCII "
        '"too_many_pings".',
        "grpc.goaway",
        {"go_code": "ENHANCE_YOUR_CALM"},
    ),
    # vllm-project/vllm#20965 (two connectors on one port)
    (
        "zmq.error.ZMQError: Address already in use (addr='tcp://localhost:5557')",
        "grpc.bind_failed",
        {"zmq_address": "tcp://localhost:5557"},
    ),
    # vllm-project/vllm-ascend#8938 (the port race at simultaneous start-up)
    (
        "(Worker_DP1_TP14_EP30 pid=2493) ERROR 2026-04-25 10:01:17.340 [mooncake_connector.py:"
        "246] Mooncake KVCacheSendingThread exception: Address already in use (addr='tcp://"
        "10.235.53.16:20012')",
        "grpc.bind_failed",
        {"zmq_address": "tcp://10.235.53.16:20012"},
    ),
    # the bare errno text (marin-community/marin, libtpu's port held by a co-tenant) and
    # uvicorn's startup error (rendered from its server.py format): any server's port
    ("OSError: [Errno 98] Address already in use", "net.address_in_use", {}),
    (
        "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): "
        "address already in use",
        "net.address_in_use",
        {"address": "('0.0.0.0', 8000)"},
    ),
    # deepspeedai/DeepSpeed-MII#521 (grpc's Python server)
    (
        "[rank7]: RuntimeError: Failed to bind to address [::]:50058; set GRPC_VERBOSITY=debug "
        "environment variable to see detailed error message.",
        "grpc.bind_failed",
        {"address": "[::]:50058"},
    ),
    # marin-community/marin#5572 (gRPC core under the JAX coordinator, its line wrapped in two)
    (
        "E0510 20:48:44.272031  1 add_port.cc:83] Failed to add port to server:",
        "grpc.bind_failed",
        {},
    ),
    (
        "  No address added out of total 1 resolved for '[::]:8476'",
        "grpc.bind_failed",
        {"grpc_address": "[::]:8476"},
    ),
    # sgl-project/sglang#15723
    (
        "zmq.error.ZMQError: Operation cannot be accomplished in current state",
        "zmq.socket_state",
        {},
    ),
    # ray-project/ray#2537 (Redis gone at exit)
    (
        "redis.exceptions.ConnectionError: Error 111 connecting to 128.32.38.222:55099. "
        "Connection refused.",
        "redis.connection_failed",
        {"errno": "111", "address": "128.32.38.222:55099"},
    ),
    # ray-project/ray#19628
    (
        "redis.exceptions.ConnectionError: Error 110 connecting to 103.79.27.145:6379. "
        "Connection timed out.",
        "redis.connection_failed",
        {"errno": "110", "address": "103.79.27.145:6379"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # another client's closed connection is not Ray's Redis (only the driver's threads name it)
    (
        "ray.redis_connection_closed",
        "redis.exceptions.ConnectionError: Connection closed by server.",
    ),
    # a GCS address with a host is one attempt to reach it (ray-project/ray#28372), not an empty one
    (
        "ray.gcs_address_without_host",
        "[2022-09-08 17:15:36,340 E 46829 46829] gcs_rpc_client.h:202: Failed to connect to GCS "
        "at address 10.90.95.155:6379 within 5 seconds.",
    ),
    # glog's CHECK in another program is not Ray's (rendered: glog's "file:line] Check failed:")
    ("ray.internal_check_failed", "F0101 12:00:00.000000 123 foo.cc:45] Check failed: x == y"),
    # Lightning-AI/pytorch-lightning#151 (title): no ProcessExitedException in it
    ("mp.process_exited", "Exception: process 0 terminated with exit code 1 when DDP"),
    ("launcher.subprocess_failed", "from subprocess import CalledProcessError, run"),
    (
        "launcher.subprocess_failed",
        "    raise subprocess.CalledProcessError(returncode=1, cmd=cmd)",
    ),
    # the worker-exit detail lists the OOM killer as a possibility, not as what happened
    (
        "ray.oom_killed",
        "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a "
        "connection error code 2. (1) The process is killed by SIGKILL by OOM killer due to high "
        "memory usage.",
    ),
    # a node that left on purpose (autoscaler, ray stop) is not marked dead by the detector
    ("ray.node_marked_dead", "the actor's node was terminated expectedly: received SIGTERM"),
    ("ray.actor_died", "The actor is dead because its owner has died. Owner Id: 0100"),
    ("ray.task_error", "RayTaskError"),
    ("ray.task_error", "(raylet) ray::IDLE is using 4.5GB of memory"),
    # the per-attempt warning is not the fatal loss of the GCS, and the reverse
    (
        "ray.gcs_unreachable",
        "gcs_rpc_client.h:202: Failed to connect to GCS at address 10.90.95.155:6379 within 5 "
        "seconds.",
    ),
    (
        "ray.gcs_connect_retry",
        "gcs_rpc_client.h:533: Failed to connect to GCS within 60 seconds. GCS may have been "
        "killed.",
    ),
    ("deepspeed.launcher_exit", "Process 13266 exits successfully."),
    # a gRPC peer that answered with an error is not a channel that could not connect
    (
        "grpc.connect_failed",
        '        details = "Barrier timed out. Barrier_id: PjRT_Client_Connect"',
    ),
    # sweep round 6: an application's own "socket closed" is not a gRPC transport's
    ("grpc.transport_closed", "java.net.SocketException: Socket closed"),
    ("grpc.transport_closed", "BrokenPipeError: [Errno 32] Broken pipe"),
    # a coordination-service barrier that timed out is XLA's, not a gRPC deadline
    (
        "grpc.deadline_exceeded",
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "PjRT_Client_Connect. Timed out task names:",
    ),
    # a status a server chose is left to the lines that explain it
    ("grpc.rpc_failed", "\tstatus = StatusCode.INVALID_ARGUMENT"),
    # the c10d store's EADDRINUSE has its own entry; a bare errno text is not ZeroMQ's
    ("grpc.bind_failed", "OSError: [Errno 98] Address already in use"),
    ("redis.connection_failed", "ConnectionRefusedError: [Errno 111] Connection refused"),
    # another errno 98 text is not a port in use
    ("net.address_in_use", "OSError: [Errno 98] Address family not supported by protocol"),
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


def test_a_node_marked_dead_is_only_a_weak_hint_against_it() -> None:
    # the node's address is captured as `peer`: attribution adds a weak hardware hint against
    # the node at that address, never enough to name it without the node's own evidence
    sig = CATALOG.signatures["ray.node_marked_dead"]
    assert "peer" in sig.compiled().groupindex
    assert sig.blame is Blame.SYMPTOM
    assert sig.weight < 60
