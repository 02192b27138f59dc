"""Golden lines from the tracker sweeps of issue 14 (two rounds) over what clusters print around
a job: JAX/XLA and TPU, AWS EFA and SageMaker, Slurm, Lustre and FUSE mounts, AzureML and GKE,
Kubernetes schedulers and the kubelet, the device plugin, DCGM and GPU health agents, the fabric
manager, InfiniBand adapters and the container toolkit.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a chip or adapter error on this host below the hardware
threshold, an outside reclaim transient, a launcher's or scheduler's restatement a symptom, a
missing library the job's own). Look-alikes must not match, and none of these lines may read as
the application's error unless the entry means it.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    found,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "xla.tpu_fatal_error": Blame.HARDWARE,
    "xla.tpu_init_waiting_for_hosts": Blame.SYMPTOM,
    "xla.tpu_open_denied": Blame.SYMPTOM,
    "xla.nccl_library_missing": Blame.APPLICATION,
    "xla.tpu_core_halted": Blame.APPLICATION,
    "xla.cuda_backend_env": Blame.APPLICATION,
    "efa.provider_not_found": Blame.APPLICATION,
    "deviceplugin.xid": Blame.INFO,
    "slurm.task_signaled": Blame.SYMPTOM,
    "slurm.step_aborted": Blame.SYMPTOM,
    "slurm.alloc_node_failure": Blame.SYMPTOM,
    "slurm.task_launch_failed": Blame.TRANSIENT,
    "storage.lnet_timeout": Blame.TRANSIENT,
    "storage.stale_handle": Blame.TRANSIENT,
    "nic.mlx5_user_cqe_error": Blame.SYMPTOM,
    "cloud.azureml_preempted": Blame.TRANSIENT,
    "cloud.k8s_node_shutdown": Blame.TRANSIENT,
    "cloud.sagemaker_capacity": Blame.TRANSIENT,
    "cloud.k8s_storage_limit_eviction": Blame.APPLICATION,
    "service.internal_server_error": Blame.TRANSIENT,
    "storage.fuse_disconnected": Blame.SYMPTOM,
    "cloud.k8s_gpu_unschedulable": Blame.SYMPTOM,
    "cloud.volcano_gang_unschedulable": Blame.SYMPTOM,
    "dcgm.xid": Blame.INFO,
    "gpud.ib_ports_unhealthy": Blame.HARDWARE,
    "fabricmanager.nvswitch_query_failed": Blame.HARDWARE,
    "nic.mlx5_probe_failed": Blame.HARDWARE,
    "container.driver_rpc_failed": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # marin-community/marin#1534 (the TPU driver on one host of a multi-slice run)
    (
        "(train_lm_task pid=39298, ip=10.130.0.55) E0827 23:43:41.200122   39475 "
        "synchronous_driver.cc:820] [/dev/accel0 tpu1013:pe1:0] !!!! FATAL ERROR !!!! for "
        "[/dev/accel0 tpu1013:pe1:0] , fatal_error: true, running_timer: 0xeacdbdd045e77",
        "xla.tpu_fatal_error",
        {"device": "/dev/accel0"},
    ),
    # marin-community/marin#1534 (libtpu's program continuator, same host)
    (
        "(train_lm_task pid=39298, ip=10.130.0.55) E0827 23:43:41.200512   39676 "
        "fake_program_continuator.cc:556] 1x0x2_BC1: *** [Physical location: tpu1013:pe1:3] A "
        "Unknown error has occurred, all pending programs will fail, and results may be "
        "corrupted. An unknown error has occurred, contact your next level of support.",
        "xla.tpu_fatal_error",
        {},
    ),
    # the MaxText maxtest README's example of the same continuator message
    (
        "6x2x0_SC1: *** A program or fatal error occurred, all pending programs will fail, and "
        "results may be corrupted. This is likely an XLA compiler bug or your job hit a bad TPU "
        "hardware. If you suspect a compiler bug please file a bug to xla-tpu@ and CC "
        "tfrt-devs@. Physical location: tpu3:pe2:2",
        "xla.tpu_fatal_error",
        {},
    ),
    # jax-ml/jax#19118 (the continuator's older wording names the compiler)
    (
        "E1224 22:35:53.165575   26868 real_program_continuator.cc:1331] 0x0x0_TC0: *** Halt is "
        "unexpected, all pending programs will fail. This is likely an XLA compiler bug, please "
        "file a bug to xla-tpu@ and CC tfrt-devs@.",
        "xla.tpu_core_halted",
        {},
    ),
    # jax-ml/jax#12456 (the other hosts of a v3-128 never started the program)
    (
        "/home/wilson/.local/lib/python3.8/site-packages/jax/_src/lib/xla_bridge.py:184: "
        "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run "
        "your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html "
        "for more information.",
        "xla.tpu_init_waiting_for_hosts",
        {},
    ),
    # pytorch/xla#3165
    (
        "2021-10-14 10:00:51.395531: E tensorflow/core/distributed_runtime/rpc/"
        "grpc_server_lib.cc:533] Invalid argument: Invalid fd: -1; Couldn't open device: "
        "/dev/accel0 (Operation not permitted); Unable to create Node RegisterInterface for node "
        '0, config: device_path: "/dev/accel0" mode: KERNEL',
        "xla.tpu_open_denied",
        {"device": "/dev/accel0"},
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
        "external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) "
        "failed: Unable to load NCCL library. Multi-GPU collectives will not work.;",
        "xla.nccl_library_missing",
        {},
    ),
    # public install notes (JAX's fallback to the CPU on a library older than jaxlib's)
    (
        "CUDA backend failed to initialize: Found cuSOLVER version 11405, but JAX was built "
        "against version 11502, which is newer. The copy of cuSOLVER that is installed must be at "
        "least as new as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 "
        "and rerun for more info.)",
        "xla.cuda_backend_env",
        {"reason": "Found cuSOLVER version 11405, but JAX was built against version 11502"},
    ),
    (
        "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set "
        "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
        "xla.cuda_backend_env",
        {"reason": "Unable to load cuDNN"},
    ),
    # aws/deep-learning-containers#2675 (and the plugin's v1.x ofi_init)
    (
        "7b6059672f82:104:104 [0] ofi_init:1134 NCCL WARN NET/OFI Only EFA provider is supported",
        "efa.provider_not_found",
        {},
    ),
    # NVIDIA/k8s-device-plugin#189 (the plugin's pre-2022 wording)
    (
        "2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-"
        "f93c9ea826a8, the device will go unhealthy.",
        "deviceplugin.xid",
        {"xid": "69", "device": "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8"},
    ),
    # ArjunaCluster/ArjunaUsers#48
    (
        "srun: error: c002: task 0: Killed",
        "slurm.task_signaled",
        {"host": "c002", "task": "0", "signal": "Killed"},
    ),
    # an HPC site's notes (LUMI): a segfault restated by srun
    (
        "srun: error: nid005062: task 0: Segmentation fault (core dumped)",
        "slurm.task_signaled",
        {"host": "nid005062", "signal": "Segmentation fault"},
    ),
    # ZettaAI/zetta_utils#671
    (
        "srun: Job step aborted: Waiting up to 47 seconds for job step to finish.",
        "slurm.step_aborted",
        {},
    ),
    # ArjunaCluster/ArjunaUsers#48
    ("srun: Force Terminated StepId=120.0", "slurm.step_aborted", {"step": "120.0"}),
    # nebius/soperator#854
    (
        "salloc: error: Node failure on worker-1",
        "slurm.alloc_node_failure",
        {"failed_host": "worker-1"},
    ),
    # ai4d-iasc/trixie#58 (after a reboot)
    (
        "srun: error: Task launch for 36.0 failed on node cn131: Job credential expired",
        "slurm.task_launch_failed",
        {"host": "cn131", "reason": "Job credential expired"},
    ),
    # an HPC site's notes (a slurmd that did not answer)
    (
        "srun: error: Task launch for StepId=10301666.2 failed on node gpu016: Socket timed out "
        "on send/recv operation",
        "slurm.task_launch_failed",
        {"host": "gpu016"},
    ),
    # jade-hpc-gpu/jade-hpc-gpu.github.io#14
    (
        "[Mon Oct 16 09:54:43 2017] LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed "
        "out tx for 172.31.126.87@o2ib: 403055 seconds",
        "storage.lnet_timeout",
        {"nid": "172.31.126.87@o2ib"},
    ),
    # aertslab/pySCENIC#456 (after "Job step aborted")
    ("srun: error: Timed out waiting for job step to complete", "slurm.step_aborted", {}),
    # kubernetes/kubernetes#122160 (kubectl describe events)
    (
        "Warning  Evicted              2m57s  kubelet            Pod ephemeral local storage "
        "usage exceeds the total limit of containers 5Mi.",
        "cloud.k8s_storage_limit_eviction",
        {"limit": "5Mi"},
    ),
    # the kubelet's container-level wording (kubernetes pkg/kubelet/eviction)
    (
        'Container runner exceeded its local ephemeral storage limit "4Gi". ',
        "cloud.k8s_storage_limit_eviction",
        {"container": "runner", "container_limit": "4Gi"},
    ),
    # DIAGNijmegen/rse-grand-challenge#2631 (the training job's FailureReason)
    (
        'FailureReason: "CapacityError: Unable to provision requested ML compute capacity. Please '
        'retry using a different ML instance type."',
        "cloud.sagemaker_capacity",
        {},
    ),
    # aws/sagemaker-python-sdk#70 (SageMaker's HTTP 500; S3's InternalError says the same)
    (
        "InternalServerError: We encountered an internal error. Please try again.",
        "service.internal_server_error",
        {},
    ),
    # ai4d-iasc/trixie#37 (the GPFS nodes were being rebooted)
    ("-bash: cd: /home/ryczkok: Stale file handle", "storage.stale_handle", {}),
    # Nexenta/edgefs#293 (an NFS mount)
    ("ls: cannot access /mnt/dataset/: Stale file handle", "storage.stale_handle", {}),
    # a public report of an MPICH job on a Cray GPU system (rdma-core's libmlx5, then its CQE dump)
    (
        "mlx5: nid003244: got completion with error:",
        "nic.mlx5_user_cqe_error",
        {"host": "nid003244"},
    ),
    # microsoft/MLOpsPython#346 (also MicrosoftDocs/azure-docs#66288)
    (
        "UserError: AzureMLCompute job failed. PreemptionError: Nodes of this job got pre-empted. "
        "Check if the run has failed or restarted. Reason: Received pre-emption warning signal.",
        "cloud.azureml_preempted",
        {},
    ),
    # kubernetes/kubernetes#102820 (kubectl describe of a pod after a graceful node shutdown)
    ("Message:        Node is shutting, evicting pods", "cloud.k8s_node_shutdown", {}),
    # the Kubernetes docs' wording since 1.21
    (
        "Message:        Pod was terminated in response to imminent node shutdown.",
        "cloud.k8s_node_shutdown",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #635 (coreutils after the s3fs daemon died)
    (
        "ls: cannot access /mnt/naip: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #373 (df quotes the path)
    (
        "df: \u2018/backup/tapes\u2019: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #2176 (s3fs's own syslog line)
    (
        "May 29 09:16:58 prod-main-zemtu s3fs[2017306]: s3fs: unable to access MOUNTPOINT "
        "/var/www/zemtu/public/media: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # awslabs/mountpoint-s3 issue #930
    (
        "ls: cannot open directory /mnt/applications/classtream/archives: Transport endpoint is "
        "not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # kubeflow/kubeflow issue #794 (kubectl describe events)
    (
        "  Warning  FailedScheduling  2s (x57 over 15m)  default-scheduler  0/6 nodes are "
        "available: 6 Insufficient nvidia.com/gpu.",
        "cloud.k8s_gpu_unschedulable",
        {"count": "6", "resource": "nvidia.com/gpu"},
    ),
    # NVIDIA/k8s-device-plugin issue #430
    (
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod..",
        "cloud.k8s_gpu_unschedulable",
        {"count": "1", "resource": "nvidia.com/gpu"},
    ),
    # GoogleCloudPlatform/container-engine-accelerators issue #104 (GKE's PodUnschedulable)
    (
        "PodUnschedulable Cannot schedule pods: Insufficient nvidia.com/gpu",
        "cloud.k8s_gpu_unschedulable",
        {"resource": "nvidia.com/gpu"},
    ),
    # volcano-sh/volcano issue #519 (pod events)
    (
        "  Warning  FailedScheduling  111s  volcano  10/6 tasks in gang unschedulable: job is not "
        "ready, 10 minAvailable, 6 Pending.",
        "cloud.volcano_gang_unschedulable",
        {"pending": "10", "tasks": "6"},
    ),
    # volcano-sh/volcano issue #2930
    (
        "default:job-1 unschedule,reason: 1/0 tasks in gang unschedulable: pod group is not ready, "
        "1 minAvailable",
        "cloud.volcano_gang_unschedulable",
        {"pending": "1", "tasks": "0"},
    ),
    # NVIDIA/NVSentinel issue #1357 (preflight-dcgm-diag's health event)
    (
        '"isFatal":true,"message":"Detected XID 145 for GPU 0 Please consult the documentation '
        'for details of this XID.","errorCode":["DCGM_FR_XID_ERROR"]',
        "dcgm.xid",
        {"xid": "145"},
    ),
    # NVIDIA/NVSentinel pull request #714 (gpu-health-monitor, DCGM_FR_UNCONTAINED_ERROR)
    (
        '"message":"GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot '
        'the node.","recommendedAction":15,"errorCode":["DCGM_FR_UNCONTAINED_ERROR"]',
        "dcgm.xid",
        {"xid": "95"},
    ),
    # NVIDIA/NVSentinel pull request #953
    (
        '"message":"GPU has fallen off the bus (XID 79). Node requires reboot.",'
        '"recommendedAction":15,"errorCode":["DCGM_FR_GPU_FALLEN_OFF_BUS"]',
        "dcgm.xid",
        {"xid": "79"},
    ),
    # leptonai/gpud pull request #482 (the infiniband component's reason)
    (
        "only 2 LinkUp ports found (expected at least 4); 2 'Disabled' or 'Polling' devices "
        "found (mlx5_1, mlx5_3)",
        "gpud.ib_ports_unhealthy",
        {"up": "2", "expected": "4"},
    ),
    # leptonai/gpud pull request #295 (the older wording)
    (
        "not enough LinkUp ports, only 0 LinkUp out of 18, expected at least 8 ports and 400 "
        "Gb/sec rate; some ports must be missing",
        "gpud.ib_ports_unhealthy",
        {"up_old": "0", "ports": "18"},
    ),
    # gpud components/accelerator/nvidia/infiniband (evaluate_threshold.go's drop reason)
    (
        "ib port drop -- mlx5_3 dropped 6 minutes ago",
        "gpud.ib_ports_unhealthy",
        {"kind": "drop", "device": "mlx5_3"},
    ),
    # NVIDIA/gpu-operator issue #610 (journal of the fabric manager service)
    (
        "11\u6708 15 14:15:47 leon-NF5468M6 nv-fabricmanager[4177]: request to query NVSwitch "
        "device information from NVSwitch driver failed with error:WARNING Nothing to do "
        "[NV_WARN_NOTHING_TO_DO]",
        "fabricmanager.nvswitch_query_failed",
        {"error": "WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]"},
    ),
    # data-infra/cube-studio issue #29 (the same from nvidia-fabricmanager-start.sh)
    (
        "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query "
        "NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to "
        "do [NV_WARN_NOTHING_TO_DO]",
        "fabricmanager.nvswitch_query_failed",
        {},
    ),
    # pocopico/rp-ext issue #129
    (
        "[    5.662202] mlx5_core 0000:01:00.0: mlx5_load_one failed with error code -22",
        "nic.mlx5_probe_failed",
        {"code": "-22"},
    ),
    (
        "[    5.663152] mlx5_core: probe of 0000:01:00.0 failed with error -22",
        "nic.mlx5_probe_failed",
        {"pci": "0000:01:00.0", "error": "-22"},
    ),
    # PeterSuh-Q3/tinycore-redpill issue #9
    (
        "[   14.059052] mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22",
        "nic.mlx5_probe_failed",
        {"code": "-22"},
    ),
    # NVIDIA/nvidia-container-toolkit issue #556 (docker run --gpus all)
    (
        "docker: Error response from daemon: failed to create shim task: OCI runtime create "
        "failed: runc create failed: unable to start container process: error during container "
        "init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
        "Auto-detected mode as 'legacy' nvidia-container-cli: initialization error: driver rpc "
        "error: failed to process request: unknown.",
        "container.driver_rpc_failed",
        {"reason": "failed to process request"},
    ),
    # NVIDIA/nvidia-container-toolkit issue #236 (an SXM host with one GPU that failed to init)
    (
        "nvidia-container-cli: initialization error: driver rpc error: timed out: unknown",
        "container.driver_rpc_failed",
        {"reason": "timed out"},
    ),
    # NVIDIA/nvidia-docker issue #726 (the older wording)
    (
        "nvidia-container-cli: initialization error: driver error: timed out",
        "container.driver_rpc_failed",
        {"reason": "timed out"},
    ),
    # NVIDIA/gpu-operator issue #130 (the driver daemonset's own container)
    (
        "stderr: nvidia-container-cli.real: initialization error: driver error: failed to "
        "process request: unknown",
        "container.driver_rpc_failed",
        {"reason": "failed to process request"},
    ),
    # NVIDIA/libnvidia-container issue #103
    (
        "nvidia-container-cli: initialization error: cuda error: unknown error",
        "container.driver_rpc_failed",
        {"reason": "unknown error"},
    ),
]

# (key, a line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the compiler-bug halt is not a chip fault
    (
        "xla.tpu_fatal_error",
        "0x0x0_TC0: *** Halt is unexpected, all pending programs will fail. This is likely an "
        "XLA compiler bug, please file a bug to xla-tpu@ and CC tfrt-devs@.",
    ),
    ("xla.tpu_fatal_error", "E0827 error_handler.cc:100] Received Error Interrupt! fatal: false"),
    # a busy VFIO group is tpu_device_busy's, not a denied open
    (
        "xla.tpu_open_denied",
        "TPU initialization failed: open(/dev/vfio/0): Device or resource busy",
    ),
    ("xla.tpu_init_waiting_for_hosts", "TPU backend initialization took 3.2 seconds"),
    ("xla.nccl_library_missing", "NCCL INFO NET/Plugin: Could not find: libnccl-net.so"),
    ("efa.provider_not_found", "NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)"),
    # a task that merely exited with a code is slurm.task_exit's
    ("slurm.task_signaled", "srun: error: gpu-a01: task 3: Exited with exit code 1"),
    ("slurm.task_signaled", "/tmp/slurmd/job603995/slurm_script: line 9:  4727 Killed"),
    # a launch the job's own request made impossible is not the cluster's
    (
        "slurm.task_launch_failed",
        "srun: error: Task launch for StepId=5216715.0 failed on node learnfair0537: Unable to "
        "satisfy cpu bind request",
    ),
    ("slurm.alloc_node_failure", "srun: error: Node failure on gpu-a03"),
    ("storage.lnet_timeout", "LNet: Added LNI 10.0.0.5@o2ib [8/256/0/180]"),
    # another provider's copy of the same print is not libmlx5's
    ("nic.mlx5_user_cqe_error", "gpu-node-3: got completion with error:"),
    # a file system's own bracketed status in a longer message is not the shell's ESTALE
    (
        "storage.stale_handle",
        "0-testvol-client-0: remote operation failed [Stale file handle] on gfid 62e1c5d8",
    ),
    ("cloud.azureml_preempted", "Low-priority nodes may be pre-empted at any time."),
    # a driver that is not there is a node's state, not the job's libraries
    (
        "xla.cuda_backend_env",
        "CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation "
        "gpuDeviceGetAttribute( &major, GPU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) "
        "failed: CUDA_ERROR_NOT_INITIALIZED",
    ),
    ("cloud.sagemaker_capacity", "Training job capacity: 4 x ml.p4d.24xlarge"),
    # node pressure is the node's, not the pod's limit
    (
        "cloud.k8s_storage_limit_eviction",
        "The node was low on resource: ephemeral-storage. Container helmer was using 10304Ki, "
        "request is 10Mi, has larger consumption of ephemeral-storage.",
    ),
    (
        "cloud.k8s_node_shutdown",
        "Message:        The node was low on resource: ephemeral-storage.",
    ),
    ("deviceplugin.xid", "XidCriticalError: Xid=48, All devices will go unhealthy."),
    # Lustre's ESHUTDOWN is another errno (whamcloud/integrated-manager-for-lustre issue #230)
    (
        "storage.fuse_disconnected",
        "mount.lustre failed: Cannot send after transport endpoint shutdown",
    ),
    # a socket's ENOTCONN names no path
    (
        "storage.fuse_disconnected",
        "sshd[811]: error: getpeername: Transport endpoint is not connected",
    ),
    # CPU or memory shortage is not an accelerator wait
    (
        "cloud.k8s_gpu_unschedulable",
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.",
    ),
    # Kueue's quota message is admission, not the scheduler's placement
    (
        "cloud.k8s_gpu_unschedulable",
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu "
        "in flavor on-demand, 1 more needed",
    ),
    ("cloud.volcano_gang_unschedulable", "Warning  Unschedulable  podgroup  volcano  0/1 nodes"),
    # DCGM's other field violations are not XIDs
    ("dcgm.xid", "Detected 12 volatile DBE errors for GPU 3"),
    ("dcgm.xid", "XID errors detected: 0"),
    # gpud's healthy reason
    ("gpud.ib_ports_unhealthy", "ok; no infiniband port issue"),
    # the fabric manager coming up
    (
        "fabricmanager.nvswitch_query_failed",
        "nv-fabricmanager[1120]: Successfully configured all the available NVSwitches to route "
        "GPU NVLink traffic.",
    ),
    # the nvcgo helper timing out under load (NVIDIA/nvidia-container-toolkit issue #2102) and
    # a driver not loaded at all (nvml.driver_unreachable) are other texts
    (
        "container.driver_rpc_failed",
        "nvidia-container-cli: initialization error: nvcgo rpc error: timed out",
    ),
    (
        "container.driver_rpc_failed",
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    ),
    # a healthy mlx5 probe and another driver's failed probe
    (
        "nic.mlx5_probe_failed",
        "[   12.926115] mlx5_core 0000:03:00.0: firmware version: 14.32.1010",
    ),
    ("nic.mlx5_probe_failed", "[    3.1] ahci: probe of 0000:00:17.0 failed with error -22"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_a_chip_error_alone_names_no_host() -> None:
    """One TPU fatal-error line may be a compiler bug: below the hardware threshold alone."""
    sig = CATALOG.signatures["xla.tpu_fatal_error"]
    assert 0 < sig.weight < 60
    assert sig.node_action.value == "inspect"


def test_the_device_plugin_xid_is_read_through_the_xid_catalog() -> None:
    """The plugin's older wording is an XID 48 (double-bit ECC) for this node, not info."""
    line = (
        "2020/08/10 19:09:42 XidCriticalError: Xid=48 on Device=GPU-7540a9b3-eeb9-1214-1526-"
        "f93c9ea826a8, the device will go unhealthy."
    )
    assert any(blame is Blame.HARDWARE for _, blame, _ in found(line, Source.SYSTEM))


def test_reclaims_decide_and_restatements_do_not() -> None:
    for key in ("cloud.azureml_preempted", "cloud.k8s_node_shutdown"):
        assert CATALOG.signatures[key].weight >= 50, key
        assert CATALOG.signatures[key].node_action.value == "none", key
    for key in ("slurm.task_signaled", "slurm.step_aborted"):
        assert CATALOG.signatures[key].weight < 50, key


def test_waiting_for_capacity_decides_nothing() -> None:
    """A scheduler that cannot place the pods says the job waits, not why: never decisive."""
    for key in ("cloud.k8s_gpu_unschedulable", "cloud.volcano_gang_unschedulable"):
        sig = CATALOG.signatures[key]
        assert sig.weight < 50, key
        assert sig.node_action.value == "none", key


def test_node_fabric_and_adapter_lines_stay_below_the_hardware_threshold() -> None:
    """Each may be configuration (a wrong expected port count, a node without NVSwitches, a
    driver/firmware mismatch, persistence mode off): alone they name no node."""
    for key in ("gpud.ib_ports_unhealthy", "fabricmanager.nvswitch_query_failed",
                "nic.mlx5_probe_failed", "container.driver_rpc_failed"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < 60, key
        assert sig.node_action.value == "inspect", key


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        (
            '"message":"GPU has fallen off the bus (XID 79). Node requires reboot."',
            "xid.79",
            Blame.HARDWARE,
        ),
        ("Detected XID 13 for GPU 2", "xid.13", Blame.APPLICATION),
    ],
)
def test_dcgm_xids_are_read_through_the_xid_catalog(line: str, signal: str, blame: Blame) -> None:
    assert (signal, blame) in {(s, b) for s, b, _ in found(line, Source.SYSTEM)}
