"""Real-line mining of the launcher, scheduler and orchestration emitters (session 23): lines
people posted publicly from Ray, Kubernetes (kubectl, the node lifecycle controller), Kueue,
dstack, Compute Engine as a launcher shows it and libnvidia-container that the catalog did not
read, each now read by an entry widened from the emitter's own format. Each golden line is
cited; the look-alikes keep their older reading or none."""

from __future__ import annotations

from autorecover.domain.records import Blame

from .golden import Golden, golden_line_checks

# The entries this sweep widened, with the blame each already had (unchanged).
BLAME: dict[str, Blame] = {
    "ray.node_marked_dead": Blame.SYMPTOM,
    "ray.raylet_marked_dead_exit": Blame.SYMPTOM,
    "ray.worker_died": Blame.SYMPTOM,
    "ray.raylet_died": Blame.SYMPTOM,
    "ray.object_store_full": Blame.APPLICATION,
    "ray.object_lost": Blame.SYMPTOM,
    "ray.gcs_unreachable": Blame.SYMPTOM,
    "container.cuda_requirement": Blame.APPLICATION,
    "container.cli_host_setup_failed": Blame.HARDWARE,
    "kueue.flavor_unassignable": Blame.SYMPTOM,
    "cloud.k8s_node_not_ready": Blame.SYMPTOM,
    "dstack.no_capacity": Blame.TRANSIENT,
    "cloud.capacity_unavailable": Blame.TRANSIENT,
    # new
    "deviceplugin.nvml_library_missing": Blame.HARDWARE,
    "kubelet.pleg_unhealthy": Blame.HARDWARE,
    "skypilot.cluster_not_up": Blame.SYMPTOM,
    "ray.train_failed": Blame.SYMPTOM,
    "drivercontainer.kernel_unresolved": Blame.HARDWARE,
    "ray.oom_killed": Blame.APPLICATION,
    "k8sevent.dra_prepare_failed": Blame.SYMPTOM,
}

GOLDEN: Golden = [
    # ray-project/ray issue #15128 (Ray 1.x's node removal, "and ip:")
    (
        "The node with node id: 75b2eec8a61cdafd37cc8072b1caf9abdeef9c4e74a4f24d5dfce28d and ip: "
        "10.4.4.107 has been marked dead because the detector has missed too many heartbeats "
        "from it. This can happen when a raylet crashes unexpectedly or has lagging heartbeats.",
        "ray.node_marked_dead",
        {"peer": "10.4.4.107"},
    ),
    # ray-project/ray pull request #34087 (node_manager.cc: the GCS no longer knows this raylet)
    (
        "GCS consider this node to be dead. Set the status to be unhealthy",
        "ray.raylet_marked_dead_exit",
        {},
    ),
    # ray-project/ray issue #7788 (Ray 0.8's node_manager.cc worker_died error)
    (
        "2020-03-28 18:22:59,901\tWARNING worker.py:1072 -- A worker died or was killed while "
        "executing task ffffffffffffffffeb124b350200.",
        "ray.worker_died",
        {},
    ),
    # ray-project/ray issue #7788 (core_worker.cc CheckForRayletFailure)
    (
        "(pid=81331) E0328 18:23:00.165781 81395 core_worker.cc:382] Raylet failed. Shutting down.",
        "ray.raylet_died",
        {},
    ),
    # ray-project/ray issue #6198 (Ray 0.7's RayletError)
    (
        "(pid=41720) ray.exceptions.RayletError: The Raylet died with this message: [RayletClient] "
        "Raylet connection closed.",
        "ray.raylet_died",
        {},
    ),
    # ray-project/ray issue #15016 (the error without its size)
    (
        "ray.exceptions.ObjectStoreFullError: Failed to put object "
        "87c1a0582234fb65ffffffffffffffffffffffff0100000001000000 in object store because it is "
        "full.",
        "ray.object_store_full",
        {},
    ),
    # ray-project/ray issue #4878 (Ray 0.7 on Arrow's plasma store)
    (
        "pyarrow.lib.PlasmaStoreFull: object does not fit in the plasma store",
        "ray.object_store_full",
        {},
    ),
    # ray-project/ray issue #5572 (put_reconstruction, Ray 0.7)
    (
        "The task with ID acb1c229fc06c8950ef56a75282e6bd2 is a driver task and so the object "
        "created by ray.put could not be reconstructed.",
        "ray.object_lost",
        {},
    ),
    # ray-project/ray issue #15235 (service_based_gcs_client.cc, RAY_LOG(FATAL))
    (
        "2021-03-22T21:35:51Z o F0322 14:35:51.321081     9   315 service_based_gcs_client.cc:207] "
        "Couldn't reconnect to GCS server. The last attempted GCS server address was :0",
        "ray.gcs_unreachable",
        {},
    ),
    # ray-project/ray issue #36651
    (
        "2023-06-14 23:53:52,845 ERROR utils.py:1391 -- Failed to connect to GCS. Please check "
        "`gcs_server.out` for more details.",
        "ray.gcs_unreachable",
        {},
    ),
    # NVIDIA/nvidia-docker issue #536 (libnvidia-container 1.0, no advice after the condition)
    (
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0",
        "container.cuda_requirement",
        {"condition": "cuda >= 9.0"},
    ),
    # SyneRBI/PETRIC2 issue #27 (the current wording still reads as before)
    (
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update "
        "your driver to a newer version, or use an earlier cuda container",
        "container.cuda_requirement",
        {"condition": "cuda>=12.8"},
    ),
    # NVIDIA/nvidia-container-toolkit issue #679
    (
        "nvidia-container-cli: initialization error: change root failed: no such file or "
        "directory: unknown.",
        "container.cli_host_setup_failed",
        {"chroot": "change root failed"},
    ),
    # kubernetes-sigs/kueue issue #189 (Kueue 0.1's admission message)
    ("Workload didn't fit in the remaining quota", "kueue.flavor_unassignable", {}),
    # rancher/rancher issue #29997 (kubectl describe node)
    (
        "Taints:             node.kubernetes.io/unreachable:NoExecute",
        "cloud.k8s_node_not_ready",
        {},
    ),
    # kubernetes/kubernetes issue #50127 (kubectl get nodes)
    ("10.6.0.188   NotReady   10d       v1.7.2", "cloud.k8s_node_not_ready", {}),
    # dstackai/dstack pull request #4113 (jobs_submitted.py _get_new_capacity_failure_message)
    (
        "Failed to provision in fleet 'cloud-fleet': tried 1 of 1 offers, all failed.",
        "dstack.no_capacity",
        {},
    ),
    ("Errors: p5.48xlarge in aws/us-west-1: NoCapacityError.", "dstack.no_capacity", {}),
    # dstackai/dstack issue #521 (Compute Engine's stockout text, as dstack logged it)
    (
        "A a2-highgpu-1g VM instance is currently unavailable in the us-west1-b zone. "
        "Alternatively, you can try your request again with a different VM hardware "
        "configuration or at a later time. For more information, see the troubleshooting "
        "documentation.",
        "cloud.capacity_unavailable",
        {},
    ),
]

GOLDEN += [
    # ray-project/ray issues #29412 and #45041 (the dashboard agent's process watcher)
    (
        "2022-11-02 02:42:14,808 WARNING worker.py:1849 -- Raylet is terminated: "
        "ip=172.29.58.133, id=6ad361c6d67a3180a1a9ce9e00b1b6f371aab0dd0bd32052ebbaac63. "
        "Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or system "
        "OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other "
        "termination signals. Last 20 lines of the Raylet logs:",
        "ray.raylet_died",
        {},
    ),
    (
        "2024-05-03 18:48:26,722\tERROR process_watcher.py:116 -- Raylet is terminated. "
        "Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or system "
        "OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other "
        "termination signals. Last 20 lines of the Raylet logs:",
        "ray.raylet_died",
        {},
    ),
    # NVIDIA/k8s-device-plugin issues #182 and #23 (1.8's wording)
    (
        "2020/10/14 18:04:53 Failed to initialize NVML: could not load NVML library.",
        "deviceplugin.nvml_library_missing",
        {},
    ),
    (
        "Failed to start nvml with error:  could not load NVML library",
        "deviceplugin.nvml_library_missing",
        {},
    ),
    # 0.14 and later (internal/rm/factory.go): awslabs/amazon-eks-ami issue #1744
    (
        "I0402 11:41:50.247387       1 factory.go:104] Detected non-NVML platform: could not load "
        "NVML library: libnvidia-ml.so.1: cannot open shared object file: No such file or "
        "directory",
        "deviceplugin.nvml_library_missing",
        {},
    ),
]

GOLDEN += [
    # kubernetes/kubernetes issue #61117 (kubelet's sync loop) and nds-org/jupyter-et issue #13
    # (the node's Ready condition)
    (
        "Mar 13 16:02:43 vk-prod4-node-v18-w3fz kubelet[1450]: I0313 16:02:43.934473    1450 "
        "kubelet.go:1778] skipping pod synchronization - [PLEG is not healthy: pleg was last seen "
        "active 3m5.30015447s ago; threshold is 3m0s]",
        "kubelet.pleg_unhealthy",
        {"elapsed": "3m5.30015447s", "threshold": "3m0s"},
    ),
    (
        "  Ready            False   Mon, 03 Jun 2019 13:54:18 +0000   Sun, 02 Jun 2019 21:39:37 "
        "+0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active "
        "16h17m50.791825508s ago; threshold is 3m0s",
        "kubelet.pleg_unhealthy",
        {"elapsed": "16h17m50.791825508s"},
    ),
    # NVIDIA/nvidia-docker issue #1610 (a driver library the ld cache lists is gone)
    (
        "nvidia-container-cli: detection error: open failed: "
        "/usr/lib/x86_64-linux-gnu/libnvidia-tls.so.470.86: no such file or directory: unknown.",
        "container.cli_host_setup_failed",
        {
            "missing": "open failed: /usr/lib/x86_64-linux-gnu/libnvidia-tls.so.470.86: no such file "
            "or directory"
        },
    ),
    # hekmak/Conf-net issue #5 (the configured ldconfig does not exist on this host)
    (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
        "starting container process caused: process_linux.go:545: container init caused: Running "
        "hook #1:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
        "ldcache error: open failed: /sbin/ldconfig.real: no such file or directory: unknown.",
        "container.cli_host_setup_failed",
        {"ldconfig": "open failed: /sbin/ldconfig.real: no such file or directory"},
    ),
]

GOLDEN += [
    # skypilot-org/skypilot issues #4753 and #7561 (sky/exceptions.py ClusterNotUpError)
    (
        "  | sky.exceptions.ClusterNotUpError: Executing tasks: skipped for cluster "
        "'test-back-compat-buildkite-2' (status: INIT). It is only allowed for UP clusters. Wait "
        "for a launch to finish, or use this command to try to transition the cluster to UP: sky "
        "start test-back-compat-buildkite-2",
        "skypilot.cluster_not_up",
        {},
    ),
    (
        "sky.exceptions.ClusterNotUpError: No in-progress managed jobs.",
        "skypilot.cluster_not_up",
        {},
    ),
]

GOLDEN += [
    # rendered from ray python/ray/train/v2/api/exceptions.py with the message ray-project/ray
    # pull request #51199 shows ("Training failed due to worker errors:"); the generic Python
    # entry read it as the job's own error
    (
        "ray.train.v2.api.exceptions.TrainingFailedError: Training failed due to worker errors:",
        "ray.train_failed",
        {},
    ),
    (
        "ray.train.v2.api.exceptions.WorkerGroupError: Training failed due to worker errors:",
        "ray.train_failed",
        {},
    ),
]

GOLDEN += [
    # NVIDIA/gpu-operator issue #155 (the driver container's _resolve_kernel_version)
    (
        "Unable to open the file '/lib/modules/3.10.0-862.el7.x86_64/proc/version' (No such file or "
        "directory).Could not resolve Linux kernel version",
        "drivercontainer.kernel_unresolved",
        {},
    ),
]

GOLDEN += [
    # ray-project/ray pull request #3323 and issue #20690 (Ray 0.6-1.x memory_monitor.py)
    (
        "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node",
        "ray.oom_killed",
        {},
    ),
    (
        "ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::_RemoteSingleAgentEnv.step() "
        "(pid=2162",
        "ray.oom_killed",
        {},
    ),
]

GOLDEN += [
    # kubernetes-sigs/dra-driver-nvidia-gpu pull request #1218 (the pod event) and issue #814
    # (kubelet's journal)
    (
        "  Warning  FailedPrepareDynamicResources  22s   kubelet            Failed to prepare "
        "dynamic resources: prepare dynamic resources: NodePrepareResources: rpc error: code = "
        "DeadlineExceeded desc = context deadline exceeded",
        "k8sevent.dra_prepare_failed",
        {},
    ),
    (
        "Jan 14 22:32:39 instance20260113210117 kubelet[14067]: E0114 22:32:39.849988   14067 "
        'kuberuntime_manager.go:1323] "Failed to prepare dynamic resources" err="prepare dynamic '
        'resources: DRA driver compute-domain.nvidia.com is not registered" '
        'pod="default/nccl-test-worker-0"',
        "k8sevent.dra_prepare_failed",
        {},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #35 (the GPU plugin's own log)
    (
        'E1205 22:40:41.196150       1 nonblockinggrpcserver.go:127] "dra: handling request failed" '
        'err="error preparing devices for claim 148dc683-2f43-4b2f-a11e-2d49477cf6d6: MIG device '
        "allocation failed: error creating MIG device: error creating GPU instance for '1g.20gb': "
        'Insufficient Resources" requestID=1048',
        "k8sevent.dra_prepare_failed",
        {"claim": "148dc683-2f43-4b2f-a11e-2d49477cf6d6"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # a pod's tolerations name the same taints on every healthy pod
    (
        "cloud.k8s_node_not_ready",
        "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
    ),
    (
        "cloud.k8s_node_not_ready",
        "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
    ),
    ("cloud.k8s_node_not_ready", "Taints:             <none>"),
    ("cloud.k8s_node_not_ready", "10.6.0.187   Ready      10d       v1.7.2"),
    ("cloud.k8s_node_not_ready", "k8s-node1   Ready    <none>   12d   v1.27.3"),
    # an image's requirement as its environment states it, not the hook's refusal
    ("container.cuda_requirement", "NVIDIA_REQUIRE_CUDA=cuda>=11.0 brand=tesla,driver>=418"),
    # plasma's other status texts
    ("ray.object_store_full", "object does not exist in the plasma store"),
    ("ray.object_store_full", "object already exists in the plasma store"),
    # the GCS client's per-attempt retry stays ray.gcs_connect_retry's (info)
    (
        "ray.gcs_unreachable",
        "gcs_rpc_client.h:151: Failed to connect to GCS at address 192.168.2.40:6379 within 5 "
        "seconds.",
    ),
    # dstack's other outcomes: no offer at all, another offer error
    ("dstack.no_capacity", "No offers matching the run requirements in fleet 'cloud-fleet'."),
    ("dstack.no_capacity", "Errors: p5.48xlarge in aws/us-west-1: ComputeError."),
    # a missing driver library is container.driver_libraries_missing's
    (
        "container.cli_host_setup_failed",
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
        "cannot open shared object file: no such file or directory",
    ),
    # another service's "currently unavailable"
    (
        "cloud.capacity_unavailable",
        "The service is currently unavailable in the us-east1 region, try again later",
    ),
    # Ray's current worker_died wording without a task ID is not the old one widened here
    ("ray.worker_died", "A worker died or was killed while executing task."),
    # a raylet stopped by SIGTERM (ray stop, a scale-down) is graceful
    ("ray.raylet_died", "Raylet is terminated. Termination is graceful."),
    # the plugin's hint follows every NVML init failure; other codes keep their own entries
    (
        "deviceplugin.nvml_library_missing",
        "2020/10/14 18:04:53 If this is a GPU node, did you set the docker default runtime to "
        "`nvidia`?",
    ),
    ("deviceplugin.nvml_library_missing", "Failed to initialize NVML: Driver Not Loaded."),
    ("deviceplugin.nvml_library_missing", "Failed to initialize NVML: Unknown Error"),
    # ldconfig that ran and failed inside the container's root (NVIDIA/nvidia-container-toolkit
    # issue #147) is left open: the image's or the node's
    (
        "container.cli_host_setup_failed",
        "nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with error code: "
        "1: unknown.",
    ),
    # the class named in a traceback's frame or an import is not the raised error
    ("skypilot.cluster_not_up", "    raise exceptions.ClusterNotUpError("),
    # the same words without Ray Train's exception are not its report
    ("ray.train_failed", "Training failed due to worker errors: see the log above"),
    # the driver container resolving the kernel normally
    ("drivercontainer.kernel_unresolved", "Resolving Linux kernel version..."),
    ("drivercontainer.kernel_unresolved", "Proceeding with Linux kernel version 5.0.0-36-generic"),
    # Ray 1.x's low-memory warning, before anything was killed or raised
    (
        "ray.oom_killed",
        "Memory usage on this node: 29.6/30.9 GiB: ***LOW MEMORY*** less than 10% of the memory on "
        "this node is available for use.",
    ),
    # the DRA plugin's normal request log
    (
        "k8sevent.dra_prepare_failed",
        "I1205 22:41:57.167160       1 driver.go:107] NodePrepareResource is called: request: "
        "&NodePrepareResourceRequest{Namespace:gpu-test1,ClaimUid:148dc683,ClaimName:job31-mig1g}",
    ),
    # the kubelet's healthy relist log
    (
        "kubelet.pleg_unhealthy",
        "I0131 15:43:35.414429    3072 kubelet.go:1953] SyncLoop (PLEG): "
        '"untrusted3_default(70a6b852-4440-11ea-9a3e-0624b25d9900)", event: ContainerStarted',
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)
