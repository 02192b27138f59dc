"""Context rules: what a finding means given the job's window and the other findings.

A finding's catalog meaning is its meaning alone. Here it meets its neighbours: lines from
outside the job's window are dropped, XID 45 after another XID is sympathetic, XID 13/31 on
every node of a job is the application, XID 154 follows the driver's recovery-action text,
NVLink5 XIDs marked non-fatal in their own text decide nothing, and an ECC error the driver
contained (XID 94, no 48/64/95/140) is the application's to retry, not the node's. A CUDA
error that may be the device or the software (a launch timeout, no usable GPU) on every node
of a job at once is the software; CUDA finding no usable GPU (or, in PyTorch's words, no memory
for a CUDA call; NCCL's NVLS set-up failing; NVML not reaching a GPU) on one node of a
multi-node job, and on no other, is that node's, and the CUDA text on NCCL's NVLS warning is
the set-up's. A peer on a loopback address in a job spanning nodes is the job's network
configuration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import pairwise

from autorecover.domain.records import Blame, Finding, JobRecord, NodeAction, Source
from autorecover.domain.shape import LOCAL_CRASHES

# Hardware faults shortly before the start can still explain a failure at start-up.
LEAD_IN = timedelta(minutes=15)
# Lines logged while the job was being torn down still belong to it.
GRACE = timedelta(minutes=5)

# CUDA (and HIP) errors that can be one node's device or driver, or the job's own setup: on
# every node of a multi-node job they are the job's (nodes do not fail together).
DEVICE_OR_SOFTWARE_SIGNALS = frozenset({
    "cuda.launch_timeout", "cuda.device_unavailable", "cuda.launch_failure", "cuda.unknown_error",
    "cuda.library_execution_failed", "cuda.setup_either",
    # the one-node signals below: either alone, the job's on every node
    "cuda.call_oom", "nccl.nvls_setup_failure", "nvml.py_unknown_error",
    "cuda.no_gpu_visible",  # the job's alone, as its catalog entry says; one node's on one node
    # the same errors by code name, or in other runtimes' words (signatures-gpuusers.toml)
    "cuda.launch_failed_code", "ort.cuda_unknown_error", "torch.thc_cublas_failed",
    "tf.cuinit_failed",
    # their HIP and ROCr counterparts (signatures-rocm.toml)
    "hip.device_unavailable", "hip.unknown_error", "hsa.gpu_hang",
    # and the other accelerators' (signatures-accelerators.toml)
    "neuron.exec_error", "neuron.dma_abort", "neuron.cores_unavailable",
    "habana.device_acquire_failed", "xpu.device_lost",
    # a node's GPU stack the job's container cannot reach (the device plugin finding no NVML
    # library): on every node, the cluster's node image or runtime setup
    "deviceplugin.nvml_library_missing",
    # the mlx5 adapter refusing UCX a queue pair: one host's adapter state, or the job's settings
    "ucx.devx_create_failed",
    # the container runtime failing to create the job's container (its hooks, mounts, the
    # image): on every node of the job, the image or the runtime setup the nodes share
    "oci.runtime_create_failed", "apptainer.creation_failed",
    # ranks giving up on the c10d TCPStore on every node of the job: the store is hosted by one
    # of the job's own processes (rank 0, torchrun's agent), whose node connects locally; when
    # every node is a client that timed out, no rank of the job serves the address they all
    # dial (a MASTER_ADDR outside the job, a port nobody binds, a launcher that made every rank
    # a client): the launch configuration; a store host that died or came late leaves its own
    # node out, or says so
    "c10d.store_connect_failed",
    # NCCL finding NVLink-connected GPUs without peer access: one host's fabric, or on every
    # node the image's or the VMs' peer-access setting
    "nccl.p2p_disabled_nvlink",
})  # fmt: skip

# CUDA finding no usable GPU (busy, none visible, not ready) is the node's GPUs or driver stack
# when one node of a multi-node job says it and the others do not: they started the same code
# on GPUs that answered, which is the corroboration the text alone lacks.
NO_USABLE_GPU = "cuda.device_unavailable"
# PyTorch's "CUDA error: out of memory" from a CUDA call (the context, at the first one) is the
# same story: a GPU whose memory other processes hold, or that cannot allocate, on that node.
NO_GPU_MEMORY = "cuda.call_oom"
# NCCL failing to set up NVLink SHARP multicast is the node's fabric state or the software: on
# one node of a multi-node job only, that node's NVSwitch fabric (nccl.nvls_setup_failure).
NO_NVLS = "nccl.nvls_setup_failure"
LAST_ERROR = "nccl.last_error_cuda_failure"  # PyTorch quoting NCCL's last CUDA error
# pynvml's NVMLError_Unknown: the driver could not reach a GPU, or the container lost it.
NVML_UNREACHED = "nvml.py_unknown_error"
# A framework seeing no GPU at all ("No CUDA GPUs are available", "No XPU devices are
# available") is the job's request or environment when it is the only story (the catalog's
# reading, application); on one node of a multi-node job whose other nodes, launched the same
# way, found theirs, it is that node's GPUs or driver that vanished. Only where every node answers
# the same request (a batch scheduler's allocation): on Kubernetes a Ray or serving job's pods
# differ, and a pod placed on a CPU node seeing no GPU is the placement, the job's.
NO_GPU_VISIBLE = "cuda.no_gpu_visible"
# One-node signals whose own reading is the job's: named on one node only under a batch
# scheduler, and given a look (their catalog entry carries no node action).
JOBS_ALONE = frozenset({NO_GPU_VISIBLE})
ONE_NODE_SIGNALS = {
    NO_USABLE_GPU: "the only node of the job without a usable GPU",
    NO_GPU_MEMORY: "the only node of the job whose GPU had no memory for a CUDA call",
    NO_NVLS: "the only node of the job whose NVLS multicast set-up failed",
    NVML_UNREACHED: "the only node of the job whose GPU NVML could not reach",
    NO_GPU_VISIBLE: "the only node of the job where the framework saw no GPU at all",
    "ucx.devx_create_failed": "the only node of the job whose adapter refused UCX a queue pair",
}
ONE_NODE_NO_GPU_WEIGHT = 65
COMPLAINT_WEIGHT = 20  # a collective symptom (a lost peer, a timeout), as in shape.py

# SIGBUS is Linux's answer to an access past the end of a mapped file or shared-memory object,
# or to a page the kernel poisoned after a memory error (which it logs: "Memory failure: ...",
# an MCE, EDAC or APEI line). Several processes of one node dying of it together, with no such
# line from that node's kernel, touched a mapping they share (a /dev/shm too small or full, a
# file truncated under them): the job's data or container configuration, not the node. In a
# Kubernetes pod one such death is enough: a container's /dev/shm is the runtime's 64 MB
# (Docker's and containerd's default) unless the pod mounts a memory-backed volume there, and
# a process that outgrows it (DataLoader workers, NCCL's shm transport, a checkpoint staged in
# shared memory) dies of SIGBUS (intelligent-machine-learning/dlrover PR #1046: a flash
# checkpoint in a pod with the default /dev/shm).
MEMORY_ERRORS = frozenset({"kernel.memory_failure", "mce.fatal", "edac.uncorrected",
                           "ghes.uncorrected"})  # fmt: skip
SIGBUS_TOGETHER = timedelta(minutes=1)
KUBERNETES = "kubernetes"  # a job's `scheduler` (job.json, the Kubernetes adapters' jobs)
# How the crash entries name SIGBUS (`signal`, `fatal`: strsignal()'s text, the signal's name,
# PaddlePaddle's POSIX description; `number`: 7).
SIGBUS_NAMES = frozenset(
    {"Bus error", "SIGBUS", "Access to an undefined portion of a memory object"}
)

# A peer on a loopback address cannot be another node's: on a job spanning nodes, a rank
# advertised 127.0.1.1 or `lo` (its host name in /etc/hosts, a socket interface left to pick):
# the job's network configuration, which fails the same way on every retry. Not once the job
# trained: its ranks reached each other at those addresses (nodes that share one host, as
# simulated nodes do), so a later refused connect is a peer that went away.
LOOPBACK_PEERS = frozenset({"netconfig.loopback_peer", "netconfig.loopback_coordinator"})
LOOPBACK_PEER_WEIGHT = 60

# Outside-service refusals that the job's own request volume causes: a rate limit hit from
# every node of a job at once is the job's many ranks asking at once (a retry asks again).
VOLUME_SIGNALS = frozenset({"service.rate_limited"})

# States of a node that the driver logs once (at boot or when they start) and that hold until
# the node reboots: a GPU the driver could not take, a driver that is not there. Logged before
# the job's window, they still count when no boot came between (up to a week back).
PERSISTENT_STATES = frozenset({
    "nvrm.probe_failed", "nvrm.init_adapter_failed", "nvrm.gsp_wpr2_up", "nvrm.gpu_lost_status",
    "nvml.gpu_is_lost", "nvml.version_mismatch", "nvml.driver_unreachable",
    "amdgpu.init_failed", "amdgpu.bad_page_threshold", "habana.init_failed",
    "nvrm.gsp_init_failed", "nvrm.gpu_boot_failed", "nvrm.gsp_firmware_missing",
    "nvrm.uvm_fatal_reboot", "fabricmanager.version_mismatch",
})  # fmt: skip
PERSISTENT_LOOKBACK = timedelta(days=7)
BOOT = "kernel.boot"

# Uncontained or unrecoverable memory XIDs: with one of these, an ECC error is the node's.
HARD_MEMORY_XIDS = frozenset({48, 64, 95, 140})

_RECOVERY = re.compile(r"to 0x[0-9a-fA-F]+ \(([^)]*)\)")
_RECOVERY_ACTIONS: dict[str, tuple[NodeAction, int]] = {
    "none": (NodeAction.NONE, 0),
    "gpu reset required": (NodeAction.RESET_GPU, 85),
    "node reboot required": (NodeAction.REBOOT, 90),
    "drain p2p": (NodeAction.DRAIN_AND_RESET, 80),
    "drain and reset": (NodeAction.DRAIN_AND_RESET, 85),
}


@dataclass(frozen=True, slots=True)
class Window:
    """The span of time whose evidence belongs to a job."""

    start: datetime
    end: datetime

    @classmethod
    def of(cls, job: JobRecord) -> Window:
        """The job's window: its run, a lead-in before, a grace period after."""
        end = job.ended if job.ended is not None else job.collected
        return cls(start=job.started - LEAD_IN, end=end + GRACE)

    def holds(self, at: datetime | None) -> bool:
        """Untimed lines (seconds-since-boot kernel logs) are kept: the file covers the run."""
        return at is None or self.start <= at <= self.end


def in_context(
    job: JobRecord,
    findings: Sequence[Finding],
    rules: dict[int, frozenset[str]],
    *,
    trained: bool = False,
) -> list[Finding]:
    """Findings inside the job's window, re-read under the catalog's context rules; `trained`:
    the job's logs recorded training progress (its ranks had reached each other)."""
    window = Window.of(job)
    kept = [f for f in findings if window.holds(f.at) or _still_holds(f, findings, window)]
    xids_by_node: dict[str, set[int]] = {}
    gpus: dict[tuple[str, int], set[str]] = {}  # (node, XID) -> the GPUs that reported it
    for f in kept:
        number = xid_number(f)
        if number is not None:
            xids_by_node.setdefault(f.node, set()).add(number)
            if (m := _XID_GPU.search(f.text)) is not None:
                gpus.setdefault((f.node, number), set()).add(m.group(1).lower())
    contained = {
        node
        for node, xs in xids_by_node.items()
        if any("contained" in rules.get(x, frozenset()) for x in xs)
        and not any(x in HARD_MEMORY_XIDS for x in xs)
    }
    everywhere = _on_every_node(job, kept, DEVICE_OR_SOFTWARE_SIGNALS | VOLUME_SIGNALS)
    alone = {
        sig: _on_one_node_only(job, kept, sig)
        for sig in ONE_NODE_SIGNALS
        if sig not in JOBS_ALONE or job.scheduler != KUBERNETES
    }
    shared_mapping = _sigbus_of_a_mapping(job, kept)
    nvls_lines = _nvls_lines(kept)
    out: list[Finding] = []
    for f in kept:
        number = xid_number(f)
        if number is None:
            if f.signal != NO_NVLS and (f.node, f.source, f.line) in nvls_lines:
                # the CUDA error NCCL's NVLS set-up hit: the set-up's, not the job's own call
                f = _reread(f, Blame.SYMPTOM, 10, NodeAction.NONE, "NCCL's NVLS set-up failed")
            elif f.signal == "cuda.ecc_uncorrectable" and f.node in contained:
                f = _reread(f, Blame.TRANSIENT, 60, NodeAction.NONE, "contained by the driver")
            elif f.signal in everywhere:
                f = _reread(f, Blame.APPLICATION, 60, NodeAction.NONE, "on every node: the job's")
            elif (
                f.signal in alone
                and f.node == alone[f.signal]
                and (f.blame is Blame.HARDWARE or f.signal in JOBS_ALONE)
            ):
                note = ONE_NODE_SIGNALS[f.signal]
                action = NodeAction.INSPECT if f.signal in JOBS_ALONE else f.node_action
                f = _reread(f, Blame.HARDWARE, ONE_NODE_NO_GPU_WEIGHT, action, note)
            elif f.node in shared_mapping and _is_sigbus(f):
                note = (
                    "SIGBUS in a pod, no memory error: its /dev/shm"
                    if job.scheduler == KUBERNETES
                    else "SIGBUS in several processes at once, no memory error: a shared mapping"
                )
                f = _reread(f, Blame.APPLICATION, 55, NodeAction.NONE, note)
            elif f.signal in LOOPBACK_PEERS and len(job.nodes) > 1 and not trained:
                note = "a loopback address as the peer of a job spanning nodes: its configuration"
                f = _reread(f, Blame.APPLICATION, LOOPBACK_PEER_WEIGHT, NodeAction.NONE, note)
            elif _overfull_barrier(f):
                f = _reread(f, Blame.APPLICATION, 70, NodeAction.NONE, "more workers than ranks")
            out.append(f)
            continue
        entry_rules = rules.get(number, frozenset())
        out.append(_apply_rules(f, number, entry_rules, job, xids_by_node, gpus))
    return out


def _on_every_node(
    job: JobRecord, findings: Sequence[Finding], signals: frozenset[str]
) -> set[str]:
    """The signals among `signals` that every node of a multi-node job reported."""
    if len(job.nodes) < 2:
        return set()
    nodes_by_signal: dict[str, set[str]] = {}
    for f in findings:
        if f.signal in signals:
            nodes_by_signal.setdefault(f.signal, set()).add(f.node)
    return {s for s, nodes in nodes_by_signal.items() if nodes >= set(job.nodes)}


def _on_one_node_only(job: JobRecord, findings: Sequence[Finding], signal: str) -> str | None:
    """The one node of a multi-node job whose job output carries `signal`, when no other does
    and the node's ranks did not go on to wait on their peers like the rest (a rank that
    complains of a lost peer afterwards had a GPU to run on). A crash report after the error
    (the process's own death: a signal handler's, a launcher's) is not waiting on a peer."""
    if len(job.nodes) < 2:
        return None
    hits = [f for f in findings if f.signal == signal and f.source is Source.LOGS]
    nodes = {f.node for f in hits}
    if len(nodes) != 1:
        return None
    node = nodes.pop()
    first = min((f.at for f in hits if f.at is not None), default=None)
    went_on = any(
        f.node == node
        and f.source is Source.LOGS
        and f.blame is Blame.SYMPTOM
        and f.weight >= COMPLAINT_WEIGHT
        and f.signal not in LOCAL_CRASHES
        and (first is None or f.at is None or f.at > first)
        for f in findings
    )
    return None if went_on else node


def _nvls_lines(findings: Sequence[Finding]) -> set[tuple[str, Source, int]]:
    """The lines that tell NCCL's NVLS set-up failure: its own `transport/nvls.cc` warning, and
    the CUDA error PyTorch then quotes as NCCL's last error on the same node (ncclGetLastError
    after "Last error:"): one failure, whose CUDA text is the set-up's, not the job's own call."""
    nodes = {f.node for f in findings if f.signal == NO_NVLS}
    return {
        (f.node, f.source, f.line)
        for f in findings
        if f.signal == NO_NVLS or (f.signal == LAST_ERROR and f.node in nodes)
    }


def _is_sigbus(f: Finding) -> bool:
    return f.signal in LOCAL_CRASHES and (
        f.detail("number") == "7"
        or f.detail("signal") in SIGBUS_NAMES
        or f.detail("fatal") in SIGBUS_NAMES
    )


def _sigbus_of_a_mapping(job: JobRecord, findings: Sequence[Finding]) -> set[str]:
    """Nodes whose SIGBUS deaths were a mapping's, not a poisoned page's: the node's kernel
    logged no memory error, and either two processes died of it within a minute of each other
    (they shared the mapping) or the job runs on Kubernetes (one is enough: a pod's /dev/shm is
    64 MB unless its spec says otherwise). Two reports count as two processes only when the
    same emitter made both: one process's death can be told twice (its own handler, then the
    shell that started it)."""
    nodes: set[str] = set()
    by_report: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        if _is_sigbus(f):
            by_report.setdefault((f.node, f.signal), []).append(f)
    for (node, _), crashes in by_report.items():
        if any(f.node == node and f.signal in MEMORY_ERRORS for f in findings):
            continue
        if job.scheduler == KUBERNETES:
            nodes.add(node)
            continue
        times = sorted(f.at for f in crashes if f.at is not None)
        if len(crashes) >= 2 and (len(times) < len(crashes) or any(
                b - a <= SIGBUS_TOGETHER for a, b in pairwise(times))):  # fmt: skip
            nodes.add(node)
    return nodes


def _still_holds(f: Finding, findings: Sequence[Finding], window: Window) -> bool:
    """A persistent node state logged before the window, with no boot of its node since."""
    if f.signal not in PERSISTENT_STATES or f.at is None or f.at > window.start:
        return False
    if window.start - f.at > PERSISTENT_LOOKBACK:
        return False
    return not any(
        b.signal == BOOT and b.node == f.node and (b.at is None or f.at < b.at <= window.end)
        for b in findings
    )


def _overfull_barrier(f: Finding) -> bool:
    """A store barrier that counted more workers than the world size: the job was launched
    more times than it has ranks (a launcher inside a launcher): its launch, not a missing
    peer."""
    if f.signal != "c10d.store_barrier_timeout":
        return False
    world, arrived = f.detail("world"), f.detail("arrived")
    return bool(world and arrived and world.isdigit() and arrived.isdigit()
                and int(arrived) > int(world))  # fmt: skip


# The GPU a kernel XID line names: "NVRM: Xid (PCI:0000:ba:00): 13, ..."
_XID_GPU = re.compile(r"Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.\d)?)\)")
# An application XID (13, 31: `app_if_all_nodes`) on two or more GPUs of one node: the
# application's, enough to decide (on every node of the job: 75)
SEVERAL_GPUS_WEIGHT = 60


def xid_number(finding: Finding) -> int | None:
    """The XID number of an `xid.N` finding, else None."""
    if not finding.signal.startswith("xid."):
        return None
    try:
        return int(finding.signal[4:])
    except ValueError:
        return None


def _apply_rules(
    f: Finding,
    number: int,
    rules: frozenset[str],
    job: JobRecord,
    xids_by_node: dict[str, set[int]],
    gpus: dict[tuple[str, int], set[str]],
) -> Finding:
    if "sympathetic" in rules:
        others = xids_by_node.get(f.node, set()) - {number}
        note = "follows another XID: sympathetic" if others else "alone: teardown"
        return _reread(f, Blame.INFO, 0, NodeAction.NONE, note)
    if "app_if_all_nodes" in rules:
        nodes_with = {n for n, xs in xids_by_node.items() if number in xs}
        if len(job.nodes) > 1 and nodes_with >= set(job.nodes):
            return _reread(
                f, Blame.APPLICATION, 75, NodeAction.NONE, "on every node: the application"
            )
        if len(gpus.get((f.node, number), ())) >= 2:
            # NVIDIA's workflows read these XIDs repeating on one GPU as that GPU's; the same
            # fault on several GPUs of the node followed the work, not a device
            note = "on several GPUs of the node: the application"
            return _reread(f, Blame.APPLICATION, SEVERAL_GPUS_WEIGHT, NodeAction.NONE, note)
        return f
    if "driver_handled" in rules:
        return _reread(f, Blame.INFO, min(f.weight, 5), NodeAction.MONITOR, "handled by the driver")
    if "recovery_action_text" in rules:
        m = _RECOVERY.search(f.text)
        text = m.group(1).strip().lower() if m else ""
        action, weight = _RECOVERY_ACTIONS.get(text, (NodeAction.MONITOR, 20))
        blame = Blame.HARDWARE if weight >= 50 else Blame.INFO
        return _reread(f, blame, weight, action, f"driver asks: {text or 'unrecognised'}")
    if "registers" in rules and "Nonfatal" in f.text:
        return _reread(f, Blame.INFO, 10, NodeAction.MONITOR, "non-fatal per its own text")
    return f


def _reread(f: Finding, blame: Blame, weight: int, action: NodeAction, note: str) -> Finding:
    return replace(
        f, blame=blame, weight=weight, node_action=action, details=(*f.details, ("context", note))
    )
