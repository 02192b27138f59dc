"""Golden tests for the built-in knowledge catalog (XIDs and log signatures).

Every signature's example must match with the captures it declares and contain one of its
anchors (the scanner's literal prefilter), every XID's example must be an XID line of its own
number, the keys and blame classes that attribution depends on must exist, and a set of golden
lines (most of them real lines from public issues or from the shared sample bundles) must or
must not match.
"""

from __future__ import annotations

import time

import pytest

from autorecover.domain.catalog import XID_RULES, Signature, XidEntry, builtin_catalog
from autorecover.domain.records import Blame

CATALOG = builtin_catalog()
SIGNATURES = [CATALOG.signatures[key] for key in sorted(CATALOG.signatures)]
XIDS = [CATALOG.xids[number] for number in sorted(CATALOG.xids)]
XID_SIGNATURE = CATALOG.signatures["kernel.xid"]

# Groups that carry free text (the rest of a line) rather than a fact worth pinning in `expect`.
FREE_TEXT_GROUPS = frozenset({"text"})

# Anchors so common that a prefilter built on them would pass nearly every line.
GENERIC_ANCHORS = frozenset({"error", "failed", "failure", "warn", "warning", "info", "fatal"})
# The generic exception signature can only prefilter on the class-name suffix ("Error:").
BROAD_ANCHORS_ALLOWED = frozenset({"python.exception"})

# Every XID in the hardware-signals.md table, plus the 162-172 rows that it names.
REFERENCE_XIDS = (
    *(8, 13, 31, 32, 38, 43, 44, 45, 46, 48, 54, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95),
    *(109, 110, 119, 120, 121, 136, 137, 140, 143, 144, 145, 146, 147, 148, 149, 150),
    *(151, 154, 155, 156, 157, 158),
)
BLANK_BUCKET_XIDS = (167, 168, 171, 172)  # 162-172: blank buckets in the reference's catalog

REQUIRED_SIGNATURES: dict[str, Blame] = {
    "kernel.xid": Blame.INFO,
    # kernel and system log
    "nvrm.fallen_off_bus": Blame.HARDWARE,
    "pcie.aer_fatal": Blame.HARDWARE,
    "pcie.aer_nonfatal": Blame.HARDWARE,
    "pcie.aer_corrected": Blame.INFO,
    "ib.link_down": Blame.HARDWARE,
    "ib.port_event": Blame.HARDWARE,
    "nic.mlx5_fatal": Blame.HARDWARE,
    "nic.mlx5_pci_channel_error": Blame.HARDWARE,
    "kernel.oom_kill": Blame.APPLICATION,
    "kernel.hung_task": Blame.SYMPTOM,
    # NCCL
    "nccl.ib_completion_error": Blame.SYMPTOM,
    "nccl.remote_error": Blame.SYMPTOM,
    "nccl.watchdog_timeout": Blame.SYMPTOM,
    "nccl.heartbeat_monitor": Blame.SYMPTOM,
    "nccl.unhandled_system_error": Blame.SYMPTOM,
    "nccl.unhandled_cuda_error": Blame.SYMPTOM,
    "nccl.dist_backend_error": Blame.SYMPTOM,
    # CUDA / PyTorch
    "cuda.ecc_uncorrectable": Blame.HARDWARE,
    "cuda.illegal_memory_access": Blame.APPLICATION,
    "cuda.device_side_assert": Blame.APPLICATION,
    "cuda.oom": Blame.APPLICATION,
    "cuda.unknown_error": Blame.HARDWARE,
    "cuda.launch_failure": Blame.SYMPTOM,
    "cuda.cascade": Blame.SYMPTOM,
    # torchrun / elastic and Python
    "torch.elastic_failure": Blame.SYMPTOM,
    "torch.signal": Blame.SYMPTOM,
    "python.module_not_found": Blame.APPLICATION,
    "python.exception": Blame.APPLICATION,
    # Slurm
    "slurm.preempted": Blame.TRANSIENT,
    "slurm.node_fail": Blame.SYMPTOM,
    "slurm.time_limit": Blame.TRANSIENT,
    "slurm.cancelled": Blame.SYMPTOM,
    "slurm.oom_kill": Blame.APPLICATION,
    "slurm.task_exit": Blame.SYMPTOM,
    "slurm.task_terminated": Blame.SYMPTOM,
    # Kubernetes
    "k8s.oomkilled": Blame.APPLICATION,
    "k8s.evicted": Blame.TRANSIENT,
    "k8s.disruption_target": Blame.TRANSIENT,
    "k8s.node_shutdown": Blame.TRANSIENT,
    "k8s.preempted": Blame.TRANSIENT,
    # NVIDIA Resiliency Extension
    "nvrx.missing_heartbeat": Blame.SYMPTOM,
    "nvrx.section_timeout": Blame.SYMPTOM,
    "nvrx.worker_group_restart": Blame.INFO,
    "nvrx.no_progress": Blame.APPLICATION,
    # gloo, c10d store and torch elastic: what survivors print about a lost or slow peer
    "gloo.peer_closed": Blame.SYMPTOM,
    "gloo.io_timeout": Blame.SYMPTOM,
    "gloo.pair_closure": Blame.SYMPTOM,
    "gloo.connect_full_mesh": Blame.SYMPTOM,
    "c10d.store_clients_timeout": Blame.SYMPTOM,
    "c10d.store_timeout": Blame.SYMPTOM,
    "c10d.store_connection": Blame.SYMPTOM,
    "elastic.rendezvous_failed": Blame.TRANSIENT,
    "elastic.rendezvous_closed": Blame.SYMPTOM,
    "torch.signal_received": Blame.INFO,
    # NCCL network transport, IB verbs async events and error texts
    "nccl.ib_async_device_fatal": Blame.HARDWARE,
    "nccl.p2p_disabled_nvlink": Blame.HARDWARE,
    "nccl.ib_async_port_error": Blame.HARDWARE,
    "nccl.ib_async_queue_error": Blame.SYMPTOM,
    "nccl.ib_async_benign": Blame.INFO,
    "nccl.ib_completion_flushed": Blame.SYMPTOM,
    "nccl.socket_peer_failed": Blame.SYMPTOM,
    "nccl.socket_progress_error": Blame.SYMPTOM,
    "nccl.internal_error": Blame.SYMPTOM,
    "nccl.invalid_usage": Blame.APPLICATION,
    "nccl.proxy_failed": Blame.SYMPTOM,
    "nccl.cuda_failure": Blame.SYMPTOM,
    "nccl.ibv_call_failed": Blame.SYMPTOM,
    "nccl.ibv_unsupported": Blame.APPLICATION,
    "nccl.socket_poll_connect_failed": Blame.SYMPTOM,
    "gloo.connect_failed": Blame.SYMPTOM,
    "nccl.cuda_oom": Blame.APPLICATION,
    "nccl.ib_comm_fatal": Blame.SYMPTOM,
    # CUDA runtime and driver error strings
    "cuda.launch_timeout": Blame.HARDWARE,
    "cuda.device_unavailable": Blame.HARDWARE,
    "cuda.kernel_exception": Blame.APPLICATION,
    "cuda.environment": Blame.APPLICATION,
    "cuda.invalid_usage": Blame.APPLICATION,
}

# Named groups the attribution code reads.
REQUIRED_GROUPS: dict[str, frozenset[str]] = {
    "kernel.xid": frozenset({"pci", "xid"}),
    "ib.link_down": frozenset({"device"}),
    "nccl.ib_completion_error": frozenset({"peer", "status"}),
    "torch.elastic_failure": frozenset({"exitcode"}),
    "python.exception": frozenset({"type"}),
    "slurm.cancelled": frozenset({"host"}),
    "slurm.task_exit": frozenset({"host", "task", "code"}),
    "slurm.task_terminated": frozenset({"host", "task"}),
    "gloo.peer_closed": frozenset({"peer"}),
    "c10d.store_connection": frozenset({"peer"}),
    "nccl.socket_peer_failed": frozenset({"peer"}),
    "nccl.socket_poll_connect_failed": frozenset({"peer"}),
    "nccl.remote_error": frozenset({"peer"}),
    "gloo.connect_failed": frozenset({"peer"}),
}

REQUIRED_RULES: dict[int, str] = {
    13: "app_if_all_nodes",
    31: "app_if_all_nodes",
    45: "sympathetic",
    63: "driver_handled",
    74: "registers",
    **dict.fromkeys(range(144, 151), "registers"),
    154: "recovery_action_text",
}

# (signature key, line, captures the line must yield). Sources: the shared sample bundles
# (samples/...) and public GitHub issues, as noted; a few are the documented formats.
POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (
        "kernel.xid",  # samples/hang-xid119
        "[Sun Mar  8 03:19:41 2026] NVRM: Xid (PCI:0000:9a:00): 119, pid=57645, name=python3, "
        "Timeout waiting for RPC from GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5).",
        {"pci": "0000:9a:00", "xid": "119"},
    ),
    (
        "kernel.xid",  # MIG form, leptonai/gpud test quoting NVIDIA's memory-error docs
        "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). "
        "RST: No, D-RST: No",
        {"pci": "0000:01:00 GPU-I:05", "xid": "94"},
    ),
    ("kernel.xid", "[...] NVRM: Xid (0000:03:00): 14, Channel 00000001", {"xid": "14"}),
    (
        "nvrm.fallen_off_bus",  # samples/xid79-fell-off-bus
        "Mar  2 11:31:52 gpu-a03 kernel: NVRM: GPU 0000:ba:00.0: GPU has fallen off the bus.",
        {},
    ),
    (
        "pcie.aer_fatal",  # rwth-i6/returnn#1500
        "[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
        "type=Transaction Layer, (Requester ID)",
        {"bdf": "0000:00:03.0"},
    ),
    (
        "pcie.aer_nonfatal",  # minisforum-docs/MS-02-Ultra#10 (newer kernels say Uncorrectable)
        "Sep 22 09:59:09 pve kernel: pcieport 0000:80:1b.4: PCIe Bus Error: "
        "severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Receiver ID)",
        {"bdf": "0000:80:1b.4"},
    ),
    (
        "pcie.aer_corrected",  # pop-os/pop#3363
        "Sep 19 16:18:02 bubz kernel: [68183.615810] pcieport 0000:00:03.1: PCIe Bus Error: "
        "severity=Correctable, type=Data Link Layer, (Transmitter ID)",
        {"bdf": "0000:00:03.1"},
    ),
    (
        "ib.link_down",  # samples/nccl-ib-err12-linkdown
        "[Wed Mar  4 05:17:23 2026] mlx5_core 0000:5c:00.0 mlx5_2: Port: 1 Link DOWN",
        {"device": "mlx5_2"},
    ),
    (
        "ib.link_down",
        "[ 4443.968257] mlx5_core 0000:53:00.0 enp83s0f0np0: Link down",
        {"device": "enp83s0f0np0"},
    ),
    (
        "ib.port_event",  # NVSentinel NIC driver e2e case
        "kernel: [123.456794] mlx5_core 0000:5c:00.0: Port module event[error]: module 0, "
        "Cable error, High Temperature",
        {},
    ),
    (  # linux-pci, "[PATCH] PCI/DPC: Extend DPC recovery timeout" (2025-07-07): the second port
        "nic.mlx5_pci_channel_error",
        "[ 83.442100] mlx5_core 0004:01:00.1: mlx5_pci_err_detected Device state = 2 health "
        "sensors: 1 pci_status: 1. Enter, pci channel state = 2",
        {"state": "2"},
    ),
    (  # the same thread: the health poll's report
        "nic.mlx5_pci_channel_error",
        "[ 82.395040] mlx5_core 0004:01:00.1: print_health:819:(pid 0): Fatal error detected",
        {},
    ),
    (
        "nic.mlx5_fatal",  # NVSentinel NIC driver e2e case
        "kernel: [   66.816635] mlx5_core 0000:03:00.0: wait_func:964:(pid 112): "
        "ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource",
        {},
    ),
    (
        "nic.mlx5_fatal",  # NVSentinel NIC driver e2e case
        "kernel: [   17.982217] mlx5_core 0000:41:00.0: print_health_info:458:(pid 0): "
        "synd 0x8: unrecoverable hardware error",
        {},
    ),
    (
        "kernel.oom_kill",  # kubernetes/website assign-memory-resource.md (older kernel wording)
        "Warning OOMKilling Memory cgroup out of memory: Kill process 4481 (stress) score 1994 "
        "or sacrifice child",
        {},
    ),
    (
        "kernel.oom_kill",  # 0jc1/py-autovod#7
        "[Sun Mar 30 08:24:00 2025] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
        "mems_allowed=0,global_oom,task_memcg=/init.scope,task=python,pid=7899,uid=0",
        {},
    ),
    (
        "nccl.ib_completion_error",  # samples/nccl-ib-err12-linkdown
        "gpu-a03:83437:85168 [2] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "10.20.0.12<54237> with status=12 opcode=0 len=0 vendor err 129 (Recv) "
        "localGid ::ffff:10.20.0.13 remoteGids::ffff:10.20.0.12",
        {"peer": "10.20.0.12", "status": "12"},
    ),
    (
        "nccl.ib_completion_error",  # tatsu-lab/stanford_alpaca#207 (NCCL < 2.19 wording)
        "Last error: NET/IB : Got completion from peer 11.214.147.122<39138> with error 12, "
        "opcode 0, len 0, vendor err 129",
        {"peer": "11.214.147.122", "status": "12"},
    ),
    (
        "nccl.ib_completion_error",  # NVIDIA/nccl#1664 (IBP plugin)
        "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 "
        "len=32696 vendor err 129 (Send)",
        {"peer": "7.6.13.83", "status": "12"},
    ),
    (
        "nccl.remote_error",  # samples/nccl-ib-err12-linkdown
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 12] Process group watchdog thread "
        "terminated with exception: NCCL error: remote process exited or there was a network "
        "error, NCCL version 2.21.5",
        {},
    ),
    (
        "nccl.remote_error",  # NVIDIA/nccl#795
        "a100-st-p4d24xlarge-22:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : "
        "Connection closed by remote peer a100-st-p4d24xlarge-22<47861>",
        {},
    ),
    (
        "nccl.watchdog_timeout",  # samples/nccl-timeout-no-hw
        "[rank0]:[E305 13:12:13.843730426 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] Process group watchdog thread terminated with exception: [Rank 0] "
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=138607, "
        "OpType=ALLREDUCE, NumelIn=251658240, NumelOut=251658240, Timeout(ms)=600000) ran for "
        "600683 milliseconds before timing out.",
        {},
    ),
    (
        "nccl.heartbeat_monitor",  # om-ai-lab/VLM-R1#257
        "[rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID "
        "0(default_pg) Rank 6] ProcessGroupNCCL's watchdog got stuck for 480 seconds without "
        "making progress in monitoring enqueued collectives.",
        {},
    ),
    (
        "cuda.ecc_uncorrectable",  # samples/xid48-ecc-one-node
        "3: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        {},
    ),
    (
        "cuda.nvlink_uncorrectable",
        "[rank17]: RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution",
        {},
    ),
    (
        "cuda.unknown_error",  # samples/xid79-fell-off-bus
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 22] Process group watchdog thread "
        "terminated with exception: CUDA error: unknown error",
        {},
    ),
    (
        "cuda.unknown_error",  # NVIDIA/nccl#1653
        "DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 "
        "'unknown error'",
        {},
    ),
    (
        "cuda.oom",  # samples/cuda-oom-all-ranks
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 "
        "has a total capacity of 79.10 GiB of which 724.16 MiB is free.",
        {},
    ),
    (
        "cuda.oom",  # carolchenyx/MGFN.#35
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has "
        "a total capacty of 6.00 GiB of which 0 bytes is free.",
        {},
    ),
    (
        "cuda.illegal_memory_access",  # laughtervv/DepthAwareCNN#12 (old THC wording)
        "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at "
        "/pytorch/aten/src/THC/generic/THCTensorCopy.c:20",
        {},
    ),
    (
        "cuda.device_side_assert",  # xhw205/GPLinker_torch#14
        "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:115: operator(): block: "
        "[0,0,0], thread: [1,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && "
        '"index out of bounds"` failed.',
        {},
    ),
    (
        "cuda.device_side_assert",  # MhLiao/DB#233
        "RuntimeError: transform: failed to synchronize: cudaErrorAssert: device-side assert "
        "triggered",
        {},
    ),
    (
        "cuda.launch_failure",  # pytorch/pytorch#21276 (old THC wording)
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=271 "
        "error=4 : unspecified launch failure",
        {},
    ),
    (
        "cuda.cascade",  # google-deepmind/mujoco_warp#425
        "ERROR:__main__:Training failed with error: INTERNAL: CUDA error: Failed to end stream "
        "capture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: operation failed due to a previous "
        "error during capture",
        {},
    ),
    (
        "cuda.cascade",  # NVIDIA/nccl#1653
        "DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 "
        "'unknown error'",
        {},
    ),
    (
        "torch.elastic_failure",  # samples/xid48-ecc-one-node
        "3: E0307 09:14:11.202000 79153 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: 1) local_rank: 2 (pid: 79197) of binary: /usr/bin/python",
        {"exitcode": "1"},
    ),
    ("torch.elastic_failure", "  exitcode  : -6 (pid: 14830)", {"exitcode": "-6"}),
    (
        "torch.elastic_failure",  # samples/xid48-ecc-one-node
        "3: torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        {},
    ),
    (
        "torch.signal",  # samples/xid48-ecc-one-node
        "0: torch.distributed.elastic.multiprocessing.api.SignalException: Process 31023 got "
        "signal: 15",
        {"signal": "15"},
    ),
    (
        "torch.signal",  # samples/slurm-preempted
        "W0306 03:44:12.300000 62492 torch/distributed/elastic/agent/server/api.py:719] "
        "Received 15 death signal, shutting down workers",
        {},
    ),
    (
        "python.module_not_found",  # samples/module-not-found
        "[rank0]: ModuleNotFoundError: No module named 'flash_attn'",
        {"module": "flash_attn"},
    ),
    (
        "python.module_not_found",
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        {},
    ),
    (
        "python.exception",  # samples/xid48-ecc-one-node
        "3: torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        {"type": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"},
    ),
    (
        "python.exception",  # NVIDIA/nccl#1928
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/"
        "csrc/distributed/c10d/ProcessGroupNCCL.cpp:3763, remote process exited or there was a "
        "network error, NCCL version 2.28.8",
        {"type": "torch.distributed.DistBackendError"},
    ),
    (
        "python.exception",
        "RuntimeError: CUDA error: unknown error",
        {"type": "RuntimeError"},
    ),
    ("python.exception", "SystemExit: 1", {"type": "SystemExit"}),
    (  # pallets/jinja's jinja2/exceptions.py: a class named otherwise, in an exceptions module
        "python.exception",
        "jinja2.exceptions.TemplateNotFound: chat_template.jinja",
        {"type": "jinja2.exceptions.TemplateNotFound"},
    ),
    (  # psf/requests' requests/exceptions.py
        "python.exception",
        "requests.exceptions.MissingSchema: Invalid URL 'None': No scheme supplied.",
        {"type": "requests.exceptions.MissingSchema"},
    ),
    ("python.syntax_error", "IndentationError: unexpected indent", {}),
    (
        "slurm.preempted",  # samples/slurm-preempted
        "slurmstepd: error: *** JOB 48502 ON gpu-a01 CANCELLED AT 2026-03-06T03:44:12 DUE TO "
        "PREEMPTION ***",
        {},
    ),
    (
        "slurm.preempted",
        "slurmstepd: error: *** STEP 557341.0 ON c4-n12 CANCELLED AT 2025-03-11T13:26:25 DUE TO "
        "PREEMPTION ***",
        {},
    ),
    (
        "slurm.node_fail",
        "srun: error: Node failure on jean-zay-iam37",
        {"failed_host": "jean-zay-iam37"},
    ),
    (
        "slurm.time_limit",
        "slurmstepd: error: *** JOB 42196 ON clr0710 CANCELLED AT 2022-04-14T16:17:16 DUE TO "
        "TIME LIMIT ***",
        {},
    ),
    (
        "slurm.cancelled",  # samples/xid48-ecc-one-node
        "slurmstepd: error: *** STEP 48610.0 ON gpu-a01 CANCELLED AT 2026-03-07T09:14:14 ***",
        {"host": "gpu-a01"},
    ),
    (
        "slurm.cancelled",  # lyulyul/shine-cluster#4
        "slurmstepd-localhost: error: *** STEP 204.0 ON localhost CANCELLED AT "
        "2021-02-13T16:38:01 ***",
        {"host": "localhost"},
    ),
    (
        "slurm.cancelled",  # bcbio/bcbio-nextgen#741 (old Slurm wording, host after the stars)
        "slurmstepd: *** JOB 1479012 CANCELLED AT 2015-02-04T06:33:25 *** on sh-2-3",
        {},
    ),
    (
        "slurm.oom_kill",  # lanl/PyBNF#118 (old Slurm wording)
        "slurmstepd: error: Detected 2 oom-kill event(s) in step 3756240.batch cgroup.",
        {},
    ),
    ("slurm.oom_kill", "srun: error: nid001277: tasks 1-3: Out Of Memory", {}),  # tusas#149
    (
        "slurm.task_exit",
        "srun: error: gpu-a03: task 3: Exited with exit code 1",
        {"host": "gpu-a03", "task": "3", "code": "1"},
    ),
    (
        "slurm.task_terminated",
        "srun: error: gpu-a01: task 0: Terminated",
        {"host": "gpu-a01", "task": "0"},
    ),
    ("k8s.oomkilled", "      Reason:       OOMKilled", {}),
    ("k8s.evicted", "Reason:         Evicted", {}),
    (
        "k8s.evicted",  # amygdala-labs/cosmos-operator#185
        "  message: 'The node was low on resource: memory. Container node was using 35505620Ki,",
        {},
    ),
    (  # kubernetes/enhancements pull request #3463 (the kubelet's admission refusal, no reason)
        "k8s.evicted",
        "+  - `message=Pod The node had condition: [DiskPressure].`",
        {},
    ),
    ("k8s.disruption_target", '  "reason": "PreemptionByKubeScheduler",', {}),
    (
        "k8s.disruption_target",
        "Pod [Failed][TerminationByKubelet] Pod was terminated in response to imminent node "
        "shutdown.",
        {},
    ),
    (
        "k8s.node_shutdown",
        "Pod [Failed][TerminationByKubelet] Pod was terminated in response to imminent node "
        "shutdown.",
        {},
    ),
    (
        "k8s.node_shutdown",  # kubelet pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go
        'I0405 03:12:44.089873    2311 nodeshutdown_manager_linux.go:316] "Shutdown manager '
        'killing pod with gracePeriod" pod="research/t5-xxl-ft-worker-0" gracePeriod=30',
        {},
    ),
    (
        "k8s.preempted",  # kube-scheduler's event: "Preempted by pod %v on node %v"
        "default     68s         Normal   Preempted   pod/low-priority-pod   Preempted by pod "
        "d9d25b95-4a7d-4214-8a30-8ce1fd616f67 on node worker-0",
        {},
    ),
    (
        "nvrx.missing_heartbeat",
        "[Cycle 0] Did not get initial heartbeat. Waited 7200.00 seconds.",
        {},
    ),
    (
        "nvrx.section_timeout",
        "[Cycle 3] Was out of section for 1200.50 seconds. Timeout is 1200.00 seconds.",
        {},
    ),
    (
        "nvrx.worker_group_restart",
        "[default] Worker group UNHEALTHY. 2/3 attempts left; will restart worker group",
        {},
    ),  # RVC-Project/Retrieval-based-Voice-Conversion-WebUI issue #1882 (a comment)
    (
        "gloo.peer_closed",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error "
        "[192.168.70.92]:25266: Connection reset by peer",
        {"peer": "192.168.70.92"},
    ),
    # sgl-project/sglang pull request #27944 (a comment; the reporter elided address and port)
    (
        "gloo.peer_closed",
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] Read error "
        "[node0-private-ip]:<port>: Connection timed out",
        {"peer": "node0-private-ip"},
    ),
    # facebookresearch/detectron2 issue #5121
    (
        "gloo.io_timeout",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] "
        "Timed out waiting 1800000ms for send operation to complete",
        {"timeout_ms": "1800000", "op": "send"},
    ),
    # Megvii-BaseDetection/YOLOX issue #1167 (title; a host name resolving to loopback)
    (
        "gloo.connect_failed",
        "RuntimeError: [/opt/conda/conda-bld/pytorch_1607370120218/work/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:769] connect [127.0.1.1]:3496: Connection refused",
        {"peer": "127.0.1.1"},
    ),
    # sehoffmann/dmlcloud issue #47: gloo's connect timeout without an address names no one
    (
        "gloo.connect_failed",
        "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/"
        "pair.h:301] Connect timeout [none]",
        {"peer": None},
    ),
    # gpustack/gpustack issue #2125
    (
        "gloo.connect_full_mesh",
        "(RayWorkerWrapper pid=933, ip=50.147.43.24) [rank1]:[E528 08:52:46.164295950 "
        "ProcessGroupGloo.cpp:145] Gloo connectFullMesh failed with "
        "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
        {},
    ),
    # pytorch/gloo issue #33 (gloo of 2017-2019: the connect's SO_ERROR, no peer named)
    (
        "gloo.connect_failed",
        "  what():  [enforce fail at /home/sayantan/gloo_GIT/gloo/gloo/transport/tcp/pair.cc:498] "
        "optval == 0. 111 vs 0. SO_ERROR: Connection refused",
        {},
    ),
    # alibaba/Pai-Megatron-Patch issue #468 (title)
    ("c10d.store_timeout", "torch.distributed.DistStoreError: Socket Timeout", {}),
    # pytorch/pytorch pull request #111805 (the master store's wording before 'clients')
    (
        "c10d.store_clients_timeout",
        "torch.distributed.DistStoreError: Timed out after 6 seconds waiting for workers. "
        "1/2 workers joined.",
        {"seconds": "6", "joined": "1", "expected": "2"},
    ),
    # pytorch/pytorch pull request #129985
    (
        "c10d.store_connection",
        "[trainer85612|12]:W0701 13:41:43.421574  4776 TCPStore.cpp:182] [c10d] recvValue "
        "failed on SocketImpl(fd=24, addr=[trainer85612]:41690, remote=[trainer1]:29500): "
        "Connection reset by peer",
        {"peer": "trainer1"},
    ),
    # pytorch/pytorch issue #64926
    (
        "elastic.rendezvous_failed",
        '    "message": "RendezvousConnectionError: The connection to the C10d store has '
        'failed. See inner exception for details.",',
        {"kind": "Connection"},
    ),
    # meta-llama/llama-models issue #334 (title)
    (
        "torch.signal_received",
        "traceback : Signal 9 (SIGKILL) received by PID 2198",
        {"signal": "9", "name": "SIGKILL"},
    ),
    # NVIDIA/nccl issue #905 (a comment; the reporter's flapping link)
    ("nccl.ib_async_port_error", "NCCL WARN NET/IB : Got async event : port error", {}),
    # synthesized from NCCL 2.28.9+ formats (src/transport/net_ib/common.cc), device and port
    # named; NCCL files the port error under "the above are non-fatal" and runs on
    (
        "nccl.ib_async_port_error_nonfatal",
        "gpu-b07:52211:52290 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_3:1 "
        "Got non-fatal async event: port error(10)",
        {"device": "mlx5_3", "port": "1"},
    ),
    (
        "nccl.ib_async_device_fatal",
        "gpu-b07:52211:52290 [0] transport/net_ib/common.cc:123 NCCL WARN NET/IB : mlx5_0:1 "
        "async fatal event: local catastrophic error",
        {"device": "mlx5_0", "port": "1"},
    ),
    (  # NVIDIA/nccl issue #2329 (src/graph/paths.cc: NVLink-connected GPUs without peer access)
        "nccl.p2p_disabled_nvlink",
        "hgx-c11:2104415:2104652 [0] graph/paths.cc:339 NCCL WARN P2P is disabled between NVLINK "
        "connected GPUs 1 and 0. This should not be the case given their connectivity, and is "
        "probably due to a hardware issue. If you still want to proceed, you can set "
        "NCCL_IGNORE_DISABLED_P2P=1.",
        {"gpu": "1", "peer": "0"},
    ),
    (
        "nccl.ib_async_queue_error",
        "gpu-b07:52211:52290 [0] transport/net_ib/common.cc:140 NCCL WARN NET/IB : mlx5_0:1 "
        "async fatal event on QP (0x55d0c1a0) qpn=4711 handle=3 send_cq=1 recv_cq=1 state=6 "
        "sq_psn=12 rq_psn=40: local work queue catastrophic error",
        {"device": "mlx5_0", "event": "local work queue catastrophic error"},
    ),
    # synthesized: NCCL 2.23+ non-fatal branch; the event is the one NVIDIA/nccl issue #2157 describes
    (
        "nccl.ib_async_benign",
        "NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: port active(9)",
        {"device": "mlx5_1", "event": "port active"},
    ),
    # synthesized from NCCL 2.23+ p2p.cc with status names (misc/ibvwrap.cc ibvWcStatusStr)
    (
        "nccl.ib_completion_error",
        "NCCL WARN NET/IB: Got completion from peer 10.20.0.12<54237> with "
        "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129  hca mlx5_0",
        {"peer": "10.20.0.12", "status": "12"},
    ),
    # NVIDIA/nccl-tests issue #252
    (
        "nccl.ib_completion_error",
        "kolyoz2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer "
        "10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 (Send)",
        {"peer": "10.0.35.1", "status": "4"},
    ),
    # NVIDIA/nccl issue #795 (NCCL 2.14)
    (
        "nccl.socket_peer_failed",
        "a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to "
        "recv from 10.200.84.247<58355> failed : Broken pipe",
        {"peer": "10.200.84.247"},
    ),
    # NVIDIA/nccl-tests issue #166
    (
        "nccl.socket_peer_failed",
        "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to "
        "10.0.0.2<45763> failed : Software caused connection abort",
        {"peer": "10.0.0.2"},
    ),
    # NVIDIA/nccl issue #629
    (
        "nccl.socket_peer_failed",
        "A03-R28-I49-3-9000018:46841:46987 [0] include/socket.h:428 NCCL WARN Net : Call to "
        "recv from 11.127.49.2<36048> failed : Connection reset by peer",
        {"peer": "11.127.49.2"},
    ),
    # NVIDIA/nccl issue #914 (NCCL 2.13) and NVIDIA/nccl-tests issue #166: the socket's far end
    (
        "nccl.remote_error",
        "host:22337:22400 [6] misc/socket.cc:521 NCCL WARN Net : Connection closed by remote "
        "peer 10.104.148.191<37877>",
        {"peer": "10.104.148.191"},
    ),
    (
        "nccl.remote_error",
        "ubuntu:39964:40044 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by "
        "remote peer node1<57557>",
        {"peer": "node1"},
    ),
    # NVIDIA/nccl-tests issue #185 (title); NVIDIA/nccl issue #925 (title); zai-org/ImageReward #65
    (
        "nccl.ibv_call_failed",
        "misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is "
        "unreachable",
        {"call": "ibv_modify_qp", "text": "Network is unreachable"},
    ),
    (
        "nccl.ibv_call_failed",
        "Call to ibv_modify_qp failed with error No such device",
        {"call": "ibv_modify_qp", "text": "No such device"},
    ),
    (
        "nccl.ibv_call_failed",
        "65826-86bd789679-2dxbs:80744:80744 [1] misc/ibvwrap.cc:212 NCCL WARN Call to "
        "ibv_open_device failed",
        {"call": "ibv_open_device"},
    ),
    # NVIDIA/nccl issue #778: NCCL 2.13's DMA-BUF registration on an IB driver without it
    (
        "nccl.ibv_unsupported",
        "hpc-g19:31907:31998 [0] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed "
        "with error Operation not supported",
        {"call": "ibv_reg_dmabuf_mr", "text": "Operation not supported"},
    ),
    # NVIDIA/TensorRT-LLM issue #1670; NVIDIA/nccl issue #1235 (the calloc line after it)
    (
        "nccl.cuda_oom",
        "VM-0-16-ubuntu:392:494 [2] enqueue.cc:43 NCCL WARN Cuda failure 'out of memory'",
        {},
    ),
    (
        "nccl.cuda_oom",
        "ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 "
        "bytes",
        {"bytes": "6291456"},
    ),
    # NVIDIA/nccl pull request #1618 (its description quotes two jobs' logs)
    (
        "nccl.socket_poll_connect_failed",
        "rank_604.s12gn3064.4031852.log:[0604/1024][2025-02-16 22:31:34,422] [misc/socket.cc:586] "
        "[s12gn3064:pid=3942408] NCCL WARN socketPollConnect poll() returned 1, no POLLOUT events",
        {},
    ),
    # NVIDIA/nccl-tests issue #166
    (
        "nccl.proxy_failed",
        "ubuntu:39964:40044 [0] proxy.cc:1143 NCCL WARN Socket recv failed while polling for "
        "opId=0x7f6f18cb7f40",
        {},
    ),
    # NVIDIA/nccl issue #1514 (via nccl.dist_backend_error's example)
    (
        "nccl.internal_error",
        "torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, NCCL "
        "version 2.14.3",
        {},
    ),
    # NVIDIA/nccl issue #1241 (title)
    (
        "nccl.invalid_usage",
        "NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
        "1287, invalid usage, NCCL version 2.17.1",
        {},
    ),
    # NVIDIA/nccl issue #697 (title)
    (
        "nccl.unhandled_system_error",
        "ncclSystemError: System call (socket, malloc, munmap, etc) failed when training on "
        "two remote nodes",
        {},
    ),
    # vllm-project/vllm issue #19890 (title; NCCL 2.2x adds the error number)
    (
        "nccl.cuda_failure",
        "enqueue.cc:1556 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'",
        {"code": "700"},
    ),
    # MIC-DKFZ/nnUNet issue #593 (cudaErrorMemoryAllocation as PyTorch prints it: a CUDA call,
    # not the caching allocator)
    ("cuda.call_oom", "RuntimeError: CUDA error: out of memory", {}),
    # bluer555/CR-GAN issue #8 (title)
    ("cuda.call_oom", "RuntimeError: CUDA error:out of memory", {}),
    # rendered: PyTorch >= 2.8 raises C10_CUDA_CHECK's errors as torch.AcceleratorError
    ("cuda.call_oom", "torch.AcceleratorError: CUDA error: out of memory", {}),
    # pytorch/pytorch issue #10853 (the pre-1.0 THC wording)
    (
        "cuda.launch_timeout",
        "RuntimeError: cuda runtime error (6) : the launch timed out and was terminated at "
        "/opt/conda/conda-bld/pytorch_1532582123400/work/aten/src/THC/generic/THCStorage.cpp:36",
        {},
    ),
    # facebookresearch/detectron2 issue #2580 (the runtime's older wording)
    (
        "cuda.device_unavailable",
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
        {"error": "all CUDA-capable devices are busy or unavailable"},
    ),
    # microsoft/lisa issue #2823 (an ND96asr_v4 without its fabric manager)
    (
        "cuda.device_unavailable",
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you "
        "run some cuda functions before calling NumCudaDevices() that might have already set an "
        "error? Error 802: system not yet initialized (Triggered internally at  "
        "../c10/cuda/CUDAFunctions.cpp:112.)",
        {"error": "system not yet initialized"},
    ),
    # NVIDIA/apex issue #124
    (
        "cuda.kernel_exception",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorCopy.cu line=84 error=74 : "
        "misaligned address",
        {"error": "misaligned address"},
    ),
    # NVIDIA/Fuser issue #4970 (title)
    (
        "cuda.kernel_exception",
        "CUDA_ERROR_MISALIGNED_ADDRESS failed with error misaligned address",
        {},
    ),
    # ZhaoJ9014/face.evoLVe issue #58 (title)
    (
        "cuda.invalid_usage",
        "temp_x = x.cuda(self.device_id[i]) RuntimeError: CUDA error (10): invalid device ordinal",
        {"error": "invalid device ordinal"},
    ),
    # uestc-huangyw in NovaSearch-Team/RAG-Retrieval issue #27
    (
        "cuda.invalid_usage",
        "[rank5]: RuntimeError: CUDA error: invalid device ordinal",
        {"error": "invalid device ordinal"},
    ),
    # STEllAR-GROUP/octotiger issue #290 (HPX's wrapper of the runtime's text)
    (
        "cuda.invalid_usage",
        "{what}: CUDA function returned error code invalid device ordinal: ",
        {"error": "invalid device ordinal"},
    ),
]

XID79_LINE = (  # samples/xid79-fell-off-bus
    "Mar  2 11:31:52 gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus."
)
HOST_OOM_LINE = (  # docker/for-linux#1001
    "May 15 23:09:30 ubuntu-s-1vcpu-2gb-ams3-01 kernel: [  518.050606] Out of memory: Killed "
    "process 15784 (python3) total-vm:11964kB, anon-rss:4288kB, file-rss:3028kB, shmem-rss:0kB"
)
PREEMPTION_LINE = (  # samples/slurm-preempted
    "slurmstepd: error: *** JOB 48502 ON gpu-a01 CANCELLED AT 2026-03-06T03:44:12 DUE TO "
    "PREEMPTION ***"
)
AER_FATAL = (
    "pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction "
    "Layer, id=0010(Receiver ID)"
)
AER_NONFATAL = (
    "pcieport 0000:00:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction "
    "Layer, (Requester ID)"
)
AER_CORRECTED = (
    "pcieport 0000:00:02.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
    "id=0010(Transmitter ID)"
)
DSA_HINT = "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
ASYNC_HINT = (
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect."
)

# (signature key, line that must NOT match it).
NEGATIVE: list[tuple[str, str]] = [
    # an unreachable network is the fabric's or the routing's, not a verb the stack lacks
    (
        "nccl.ibv_unsupported",
        "misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is "
        "unreachable",
    ),
    # the verbs NCCL can do without say so at INFO and go on (rendered: ibvwrap.cc's OPTIONAL check)
    ("nccl.ibv_unsupported", "n1:1:2 [0] NCCL INFO Call to ibv_query_ece not supported"),
    # a normal channel (a non-fatal error the driver carries on through), and the handler's exit
    (  # rendered: mlx5 main.c mlx5_pci_err_detected, state 1
        "nic.mlx5_pci_channel_error",
        "mlx5_core 0000:01:00.0: mlx5_pci_err_detected Device state = 1 health sensors: 0 "
        "pci_status: 1. Enter, pci channel state = 1",
    ),
    (  # the linux-pci thread above
        "nic.mlx5_pci_channel_error",
        "[ 83.431094] mlx5_core 0004:01:00.0: mlx5_pci_err_detected Device state = 2 pci_status: 0."
        " Exit, result = 3, need reset",
    ),
    ("nvrm.fallen_off_bus", XID79_LINE),
    ("nvrm.fallen_off_bus", "NVRM: Xid (PCI:0000:05:00): 79, GPU has fallen off the bus."),
    (
        "ib.link_down",
        "[Sat Feb 28 22:40:23 2026] mlx5_core 0000:0c:00.0 mlx5_0: Port: 1 Link ACTIVE",
    ),
    ("ib.link_down", "[Sat Feb 28 22:40:21 2026] mlx5_core 0000:5c:00.0 mlx5_2: Port: 1 Link INIT"),
    ("ib.link_down", "[ 4450.318539] mlx5_core 0000:53:00.0 enp83s0f0np0: Link up"),
    (
        "ib.link_down",
        "[Wed Feb 25 19:03:18 2026] mlx5_core 0000:0c:00.0: firmware version: 28.39.1002",
    ),
    ("ib.port_event", "mlx5_core 0000:63:00.1: Port module event: module 1, Cable plugged"),
    (
        "nic.mlx5_fatal",  # non-fatal per NVSentinel
        "mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) "
        "op_mod(0x1) failed, status bad operation(0x2), syndrome (0x305684), err(-22)",
    ),
    ("cuda.oom", HOST_OOM_LINE),
    ("cuda.oom", "Memory cgroup out of memory: Kill process 4481 (stress) score 1994"),
    (
        "cuda.oom",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=440575.0. Some of the step tasks "
        "have been OOM Killed.",
    ),
    (
        "kernel.oom_kill",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB.",
    ),
    ("slurm.cancelled", PREEMPTION_LINE),
    (
        "slurm.cancelled",
        "slurmstepd: error: *** JOB 494583 ON n1 CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME "
        "LIMIT ***",
    ),
    (
        "slurm.cancelled",
        "slurmstepd: error: *** STEP 1943824.0 ON jean-zay-iam17 CANCELLED AT "
        "2023-03-06T03:17:51 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***",
    ),
    (
        "slurm.preempted",
        "slurmstepd: error: *** STEP 48610.0 ON gpu-a01 CANCELLED AT 2026-03-07T09:14:14 ***",
    ),
    ("k8s.preempted", PREEMPTION_LINE),
    # Kueue's event on the workload that did the preempting (preemption.go, PreemptedWorkload)
    (
        "k8s.preempted",
        "Normal  PreemptedWorkload  kueue-admission  Preempted workload default/job-b (UID: "
        "5f1c2a7e-0d3b-4c61-9a2e-7b1f0c9d8e21) in ClusterQueue cq-a; preemptor effective "
        "priority: 100 (base: 100, boost: 0); preemptee effective priority: 0 (base: 0, boost: 0)",
    ),
    ("k8s.oomkilled", "Warning OOMKilling Memory cgroup out of memory: Kill process 4481 (stress)"),
    ("pcie.aer_fatal", AER_NONFATAL),
    ("pcie.aer_fatal", AER_CORRECTED),
    ("pcie.aer_nonfatal", AER_FATAL),
    ("pcie.aer_nonfatal", AER_CORRECTED),
    ("pcie.aer_corrected", AER_FATAL),
    ("pcie.aer_corrected", AER_NONFATAL),
    ("cuda.device_side_assert", DSA_HINT),
    ("cuda.cascade", ASYNC_HINT),
    ("cuda.cascade", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"),
    ("cuda.unknown_error", "RuntimeError: CUDA error: unspecified launch failure"),
    ("nccl.unhandled_cuda_error", "RuntimeError: NCCL error in: x.cpp:825, unhandled system error"),
    (
        "nccl.heartbeat_monitor",  # NVIDIA/nccl#1657: normal shutdown
        "[rank0]:[I323 21:57:08.461980659 ProcessGroupNCCL.cpp:1538] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] ProcessGroupNCCL heart beat monitor thread joined.",
    ),
    (
        "torch.elastic_failure",
        "W0307 09:14:10.923000 79153 torch/distributed/elastic/multiprocessing/api.py:897] "
        "Sending process 79195 closing signal SIGTERM",
    ),
    # a warning category kept in an exceptions module, and a traceback's frame in errors.py
    ("python.exception", "urllib3.exceptions.InsecureRequestWarning: Unverified HTTPS request"),
    ("python.exception", '  File "/opt/app/errors.py", line 12, in check'),
    ("python.exception", "    raise ChildFailedError("),
    ("python.exception", "    raise ValueError"),
    ("python.exception", DSA_HINT),
    ("python.exception", PREEMPTION_LINE),
    (
        "python.exception",
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 12] Process group watchdog thread "
        "terminated with exception: NCCL error: remote process exited or there was a network error",
    ),
    (
        "python.exception",
        "Exception raised from c10_cuda_check_implementation at "
        "/opt/pytorch/pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):",
    ),
    ("python.exception", "UserWarning: TypedStorage is deprecated."),
    # kubelet's Go error chain (cisco-open/martian-bank-demo issue #50, a FailedKillPod event)
    (
        "python.exception",
        'kubelet  error killing pod: failed to "KillPodSandbox" for "a33e88fb" with '
        'KillPodSandboxError: "rpc error: code = Unknown desc = networkPlugin cni failed to '
        "teardown pod",
    ),
    ("slurm.task_exit", "srun: error: nid002888: tasks 0-57,59-63: Terminated"),
    ("slurm.task_terminated", "srun: error: taurusi2031: tasks 10-11: Exited with exit code 1"),
    ("kernel.xid", "NVRM: GPU at PCI:0000:66:00: GPU-12345678-1234-5678-9abc-def012345678"),
    ("kernel.xid", "NVRM: Xid (PCI:0000:66:00): abc, pid=2280636"),
    (
        "nvrx.worker_group_restart",
        "[default] worker group successfully finished.",
    ),  # NCCL's own wording is nccl.remote_error's, not gloo's
    ("gloo.peer_closed", "NCCL WARN Net : Connection closed by remote peer 10.0.0.2<52344>"),
    # another CUDA failure inside NCCL is not its memory running out (NVIDIA/TensorRT-LLM #1670)
    (
        "nccl.cuda_oom",
        "VM-0-16-ubuntu:392:494 [2] enqueue.cc:54 NCCL WARN Cuda failure 'invalid resource handle'",
    ),
    # c10d's own connect retries (socket.cpp) are not a gloo pair, nor is connectFullMesh's "no
    # error" (pytorch/pytorch issue #150916-style line from the pytorch emitter list)
    (
        "gloo.connect_failed",
        "[W427 01:04:16.149509694 socket.cpp:752] [c10d] The client socket has failed to connect "
        "to [::ffff:198.18.0.1]:3254 (errno: 110 - Connection timed out).",
    ),
    (
        "gloo.connect_failed",
        "Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] "
        "no error",
    ),
    ("gloo.io_timeout", "Timed out waiting 1800000ms for the barrier"),
    ("elastic.rendezvous_closed", "RendezvousClosed"),
    # a flushed completion is an echo: it must not blame its peer through the error entry
    (
        "nccl.ib_completion_error",
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with status=5 opcode=0",
    ),
    (
        "nccl.ib_completion_flushed",
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12",
    ),
    ("nccl.ib_async_port_error", "NCCL WARN NET/IB : Got async event : port active"),
    ("nccl.ib_async_benign", "NCCL WARN NET/IB : Got async event : port error"),
    ("nccl.ib_async_device_fatal", "UCX WARN IB Async event on mlx5_0: local catastrophic error"),
    (  # the PCIe case: NCCL's INFO on a host without P2P (src/graph/paths.cc), ordinary
        "nccl.p2p_disabled_nvlink",
        "m5-autorl-test01:47325:48508 [1] NCCL INFO P2P is disabled between connected GPUs 1 and "
        "0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.",
    ),
    ("nccl.invalid_usage", "ValueError: invalid argument 'lr' for the optimizer"),
    ("nccl.internal_error", "RuntimeError: internal error in the data loader"),
    (
        "nccl.cuda_failure",
        "Test CUDA failure common.cu:334 'an illegal memory access was encountered'",
    ),
    # strerror's EINVAL is not a CUDA error; nor is an unrelated "invalid argument"
    ("cuda.invalid_usage", "OSError: [Errno 22] Invalid argument: '/data/shard-0001'"),
    ("cuda.invalid_usage", "ValueError: invalid argument passed to the tokenizer"),
    ("cuda.device_unavailable", "Service temporarily busy or unavailable, retrying"),
]

# Inputs that make badly written patterns (nested quantifiers, overlapping alternatives)
# backtrack for a very long time.
HOSTILE_LINES = (
    "a" * 50_000,
    "A" * 50_000,
    "a." * 25_000,
    " Error" * 10_000,
    "Error:" * 10_000,
    "NVRM: " * 10_000,
    "0000:00:00.0: " * 5_000,
    "mlx5_core 0000:00:00.0 " + "x" * 50_000,
    "*** JOB 1 ON " * 5_000,
    "Section '" * 10_000,
    "srun: error: " + "h" * 50_000,
    "NET/IB : Got completion from peer " + "1" * 50_000,
)


def _signature_id(sig: Signature) -> str:
    return sig.key


def _xid_id(entry: XidEntry) -> str:
    return f"xid{entry.xid}"


def _captures(sig: Signature, line: str) -> dict[str, str] | None:
    match = sig.compiled().search(line)
    if match is None:
        return None
    return {name: value for name, value in match.groupdict().items() if value is not None}


def _has_anchor(sig: Signature, line: str) -> bool:
    if sig.ignore_case:
        return any(anchor.lower() in line.lower() for anchor in sig.anchors)
    return any(anchor in line for anchor in sig.anchors)


# --- signatures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_pattern_compiles_and_is_unanchored(sig: Signature) -> None:
    pattern = sig.compiled()
    assert pattern.pattern == sig.pattern
    assert not sig.pattern.startswith("^"), "patterns are searched; never anchor them with ^"
    assert "(?m" not in sig.pattern


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_example_matches_with_expected_captures(sig: Signature) -> None:
    assert sig.example, f"{sig.key} needs a real example line"
    captures = _captures(sig, sig.example)
    assert captures is not None, f"{sig.key}: pattern does not match its own example"
    expected = dict(sig.expect)
    assert {name: captures.get(name) for name in expected} == expected
    unexpected = set(captures) - set(expected) - FREE_TEXT_GROUPS
    assert not unexpected, f"{sig.key}: captures {sorted(unexpected)} missing from expect"


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_example_contains_an_anchor(sig: Signature) -> None:
    assert _has_anchor(sig, sig.example), f"{sig.key}: no anchor of {sig.anchors} in its example"


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_anchors_are_distinctive_literals(sig: Signature) -> None:
    assert sig.anchors
    for anchor in sig.anchors:
        assert len(anchor) >= 3, f"{sig.key}: anchor {anchor!r} is too short to prefilter"
        if sig.key not in BROAD_ANCHORS_ALLOWED:
            assert anchor.strip(" :").lower() not in GENERIC_ANCHORS, f"{sig.key}: {anchor!r}"


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_is_described(sig: Signature) -> None:
    assert sig.description.strip()
    assert sig.sources
    assert 0 <= sig.weight <= 100


@pytest.mark.parametrize("sig", SIGNATURES, ids=_signature_id)
def test_signature_pattern_is_fast_on_hostile_input(sig: Signature) -> None:
    pattern = sig.compiled()
    # CPU time, not wall time: backtracking burns this process's CPU, while other work on a
    # loaded machine (parallel workers, other jobs) only stretches the wall clock.
    start = time.process_time()
    for line in HOSTILE_LINES:
        pattern.search(line)
    elapsed = time.process_time() - start
    assert elapsed < 2.0, f"{sig.key}: {elapsed:.2f}s on hostile input (catastrophic backtracking?)"


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_positive_golden_line(key: str, line: str, expected: dict[str, str]) -> None:
    sig = CATALOG.signatures[key]
    captures = _captures(sig, line)
    assert captures is not None, f"{key} should match: {line!r}"
    assert {name: captures.get(name) for name in expected} == expected
    assert _has_anchor(sig, line), f"{key}: the prefilter would drop {line!r}"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_golden_line(key: str, line: str) -> None:
    assert _captures(CATALOG.signatures[key], line) is None, f"{key} must not match {line!r}"


def test_required_signatures_exist_with_their_blame() -> None:
    missing = sorted(set(REQUIRED_SIGNATURES) - set(CATALOG.signatures))
    assert not missing, f"missing signatures: {missing}"
    wrong = {
        key: (str(CATALOG.signatures[key].blame), str(blame))
        for key, blame in REQUIRED_SIGNATURES.items()
        if CATALOG.signatures[key].blame is not blame
    }
    assert not wrong, f"blame (found, wanted): {wrong}"
    assert all(sig.enabled for sig in CATALOG.signatures.values())


@pytest.mark.parametrize(("key", "groups"), sorted(REQUIRED_GROUPS.items()))
def test_required_named_groups(key: str, groups: frozenset[str]) -> None:
    assert groups <= set(CATALOG.signatures[key].compiled().groupindex)


def test_golden_tables_name_existing_signatures() -> None:
    keys = {key for key, *_ in POSITIVE} | {key for key, _ in NEGATIVE}
    assert keys <= set(CATALOG.signatures)


# --- XIDs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", XIDS, ids=_xid_id)
def test_xid_example_is_an_xid_line_of_its_number(entry: XidEntry) -> None:
    captures = _captures(XID_SIGNATURE, entry.example)
    assert captures is not None, f"XID {entry.xid}: example is not an NVRM Xid line"
    assert int(captures["xid"]) == entry.xid
    assert _has_anchor(XID_SIGNATURE, entry.example)


@pytest.mark.parametrize("entry", XIDS, ids=_xid_id)
def test_xid_entry_is_complete(entry: XidEntry) -> None:
    assert entry.mnemonic.strip()
    assert entry.description.strip()
    assert 0 <= entry.weight <= 100
    assert entry.rules <= XID_RULES
    assert entry.enabled
    if 162 <= entry.xid <= 172:
        assert entry.immediate == ""
        assert entry.investigatory == ""
        assert "blank" in entry.description.lower()
    else:
        assert entry.immediate.strip()
        assert entry.investigatory.strip()


@pytest.mark.parametrize("entry", XIDS, ids=_xid_id)
def test_informational_xids_decide_nothing(entry: XidEntry) -> None:
    if entry.blame is Blame.INFO:
        assert entry.weight <= 10


def test_reference_xids_exist() -> None:
    missing = sorted(set(REFERENCE_XIDS + BLANK_BUCKET_XIDS) - set(CATALOG.xids))
    assert not missing, f"XIDs of hardware-signals.md missing from the catalog: {missing}"


@pytest.mark.parametrize(("xid", "rule"), sorted(REQUIRED_RULES.items()))
def test_xid_context_rules(xid: int, rule: str) -> None:
    assert rule in CATALOG.xids[xid].rules


@pytest.mark.parametrize("xid", [48, 64, 79, 95, 119])
def test_decisive_hardware_xids(xid: int) -> None:
    entry = CATALOG.xids[xid]
    assert entry.blame is Blame.HARDWARE
    assert entry.weight >= 90


@pytest.mark.parametrize("xid", [13, 31, 43, 69])
def test_application_class_xids(xid: int) -> None:
    entry = CATALOG.xids[xid]
    assert entry.blame is Blame.APPLICATION
    assert 30 <= entry.weight <= 50


@pytest.mark.parametrize("xid", [63, 92, 121])
def test_informational_xids(xid: int) -> None:
    entry = CATALOG.xids[xid]
    assert entry.blame is Blame.INFO
    assert entry.weight <= 10
