"""The shape of the evidence: where errors are confined, who is missing, who went silent.

A finding says what one line means. Across nodes, the pattern says more:

* **Confinement by family.** A signal's family is the part of the machine it speaks for (a
  network adapter, storage, the GPU device). One family failing strongly on *every* node of a
  multi-node job at once is something they share (the fabric, the shared filesystem, the
  driver or the job's own use of the device), not every node breaking together.
* **The node missing from a cascade.** When every node but one prints collective symptoms (a
  timeout, a peer that closed) and that one prints nothing of the kind, the failure started
  there. Alone that is no proof of hardware (a killed or hung process leaves the same hole);
  with corroboration from the node itself, the scheduler or its silence it is.
* **First in time.** A bare exception after its node's own collective symptom is that
  symptom's traceback; a weaker application error just before the flood explains it.
* **Silence.** A host that died stops writing its kernel log while the others go on; a
  process that died does not stop its host's log.
* **The straggler.** Synchronous training runs at the pace of its slowest GPU. A job that ran
  out of time while exactly one of its nodes reported its GPU or CPU slowed by its hardware
  (a thermal clocks event, an engaged hardware slowdown) ran late because of that node.

Everything here is a pure function of findings and activity, tested on hand-made findings in
`tests/domain/test_attribution.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from autorecover.domain.records import Activity, Blame, Finding, JobRecord, Source

# The parts of a machine a hardware signal can speak for, by the prefix of its catalog key.
# A signal with no family here is its own family (the same key on every node).
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "network",
        (
            *("ib.", "nic.", "efa.", "rdma.", "cxi.", "mlx5.", "roce."),
            *("nccl.ib_async_", "ucx.ib_async_", "ucx.devx_", "net.link", "flux.heartbeat_lost"),
        ),
    ),
    (
        "storage",
        (
            "fs.",
            "nfs.",
            "lustre.",
            "gpfs.",
            "beegfs.",
            "weka.",
            "storage.",
            "disk.",
            "nvme.",
            "blk.",
            "scsi.",
            "ext4.",
            "xfs.",
        ),
    ),
    (
        "device",
        (
            *("xid.", "nvrm.", "cuda.", "gpu.", "pcie.", "nvlink.", "dcgm.", "nvml."),
            # AMD: the HIP runtime, ROCr, the amdgpu driver and the ROCm SMI tools.
            *("hip.", "hsa.", "amdgpu.", "amdsmi."),
            # AWS Neuron, Intel Gaudi and Intel GPUs (signatures-accelerators.toml,
            # signatures-intelxpu.toml: the i915 and xe kernel drivers).
            *("neuron.", "habana.", "xpu.", "i915.", "xe."),
        ),
    ),
)
BY_FAMILY = frozenset({"network", "storage"})  # shared by family; the rest by their key
STRONG = 60  # a finding this heavy would name its node on its own
COLLECTIVE = 20  # a symptom this heavy is a collective complaint (timeout, lost peer)
SILENCE_GAP = timedelta(minutes=5)  # the others' system logs went on at least this much longer
# Job states in which the scheduler says a node of the job failed (without naming it).
NODE_FAILED_STATES = frozenset({"NODE_FAIL", "NodeLost"})
# Rank-local crashes are not complaints about a peer: a process died of a signal it raised on
# itself (a segfault, a bus error, an abort), as the runtimes' crash handlers report it
# (signatures-crashes.toml). A kill from outside (SIGTERM, SIGKILL: `process.terminated`) is not
# one of them: who sent it is the cause.
LOCAL_CRASHES = frozenset({
    "process.crashed", "process.shell_crash_report", "ucx.caught_signal",
    "process.failure_signal", "julia.signal", "go.fatal_signal",
    "ompi.signal_report",  # Open MPI's handler (opal/util/stacktrace.c), like UCX's
    "mvapich.signal_caught",  # MVAPICH2's error_sighandler, the same report
    "gfortran.signal", "forrtl.signal",  # the Fortran runtimes' own signal reports
})  # fmt: skip
# A Ray worker or raylet that died of what Ray calls an unexpected system error ("Worker exit
# type: SYSTEM_ERROR", "connection error code 2. End of file": ray's node_manager.cc and
# core_worker, which then list an OOM kill, `ray stop --force` and a crash as the possible
# causes, not which): a process death nothing explains, read as a crash is, not as a lost peer.
UNEXPLAINED_DEATHS = frozenset({"ray.worker_died", "ray.raylet_died"})
# An I/O error that names no device or file system (EIO from a read, a write, a close): the
# node's disk, a shared file system or a FUSE mount may have failed, and no line says which; a
# kernel line about the disk or the file system, where there is one, decides instead.
BARE_IO_ERRORS = frozenset({"storage.eio"})
DERIVED_WEIGHT = 60
# A weaker application error (an XID 13 on one GPU) this shortly before the first collective
# symptom, and before anything else went wrong, explains the flood of symptoms.
APP_BEFORE_SYMPTOMS = timedelta(minutes=5)
# How far above a chained exception the error it was raised over may be: the earlier
# traceback, printed whole before it (deep library stacks run to a hundred lines or two).
CHAINED_LINES = 200
WEAK_APPLICATION = 30


def family(signal: str) -> str:
    """The family a signal speaks for: `network`, `storage`, `device`, else the key itself."""
    for name, prefixes in FAMILIES:
        if signal.startswith(prefixes):
            return name
    return signal


def confinement(signal: str) -> str:
    """What must be the same on every node for a signal to be shared rather than each node's:
    the family for the network and storage (any adapter or storage error on every host at once
    is the fabric or the shared filesystem), the key itself for a device (two different GPU
    faults on two nodes are two faults; the same one from every node is the job or driver)."""
    name = family(signal)
    return name if name in BY_FAMILY else signal


def shared_families(job: JobRecord, findings: Iterable[Finding]) -> set[str]:
    """Families (`confinement`) with strong hardware evidence of a node's own on every node."""
    if len(job.nodes) < 2:
        return set()
    nodes_by_family: dict[str, set[str]] = {}
    for f in findings:
        if f.blame is Blame.HARDWARE and f.weight >= STRONG and own_line(f):
            nodes_by_family.setdefault(confinement(f.signal), set()).add(f.node)
    return {fam for fam, nodes in nodes_by_family.items() if nodes >= set(job.nodes)}


def own_line(f: Finding) -> bool:
    """A line of the node's own output: read in its file, or printed on another node that
    forwarded it (pdsh's `<host>: `, Ray's `(pid=, ip=)`), as opposed to what other nodes
    say about it (Slurm's "Node failure on X", a peer blamed by its address)."""
    return f.origin is None or bool(f.detail("via"))


def is_complaint(f: Finding) -> bool:
    """A collective symptom a node printed in its job output (a timeout, a lost peer); derived
    findings (line 0: a rank's place in hang stacks, progress that stopped) are not."""
    return (
        f.blame is Blame.SYMPTOM
        and f.weight >= COLLECTIVE
        and f.source is Source.LOGS
        and own_line(f)
        and f.line > 0
        and f.signal not in LOCAL_CRASHES
    )


def complaining_nodes(findings: Iterable[Finding]) -> set[str]:
    """Nodes whose job output carries a collective symptom."""
    return {f.node for f in findings if is_complaint(f)}


def missing_from_cascade(job: JobRecord, findings: Sequence[Finding]) -> str | None:
    """The one node that printed no collective symptom, no error of its own, while every other
    node of the job did complain; None when there is no such single node."""
    if len(job.nodes) < 2:
        return None
    quiet = set(job.nodes) - complaining_nodes(findings)
    if len(quiet) != 1:
        return None
    node = quiet.pop()
    own = (Blame.APPLICATION, Blame.TRANSIENT)
    if any(
        f.node == node
        and own_line(f)
        and f.source is not Source.JOB
        and f.blame in own
        and f.weight >= 50
        for f in findings
    ):
        return None  # it said what went wrong: that decides, not its absence
    return node


def silent_nodes(job: JobRecord, activity: Sequence[Activity]) -> set[str]:
    """Nodes whose system log is missing, or stops well before every other node's while the
    others' go on to the job's end (a host that died); never half the job or more.

    Only the system log counts: a job output that stops or is missing is what a hung or
    killed process leaves too, and is the same fact as the node missing from a cascade."""
    if len(job.nodes) < 2:
        return set()
    system = {a.node: a for a in activity if a.source is Source.SYSTEM}
    # The job's nodes with a system log, once: comparing each node with all the others
    # afresh was quadratic, half a second per verdict for a 2,048-node job.
    peers = [n for n in dict.fromkeys(job.nodes) if n in system and system[n].present]
    if not peers:
        return set()  # no system logs to compare with
    stamped = sorted((at, n) for n in peers if (at := system[n].last_at) is not None)[:2]
    unstamped = {n for n in peers if system[n].last_at is None}
    end = job.ended or job.collected
    silent: set[str] = set()
    for node in job.nodes:
        own = system.get(node)
        if own is None or peers == [node]:
            continue  # none collected for it, or no other node's to compare with
        if not own.present:
            silent.add(node)
            continue
        if own.last_at is None or unstamped - {node}:
            continue  # seconds-since-boot stamps: no wall time to compare
        # every other host still wrote this late
        alive = stamped[1][0] if stamped[0][1] == node else stamped[0][0]
        gone = own.last_at < end and alive - own.last_at >= SILENCE_GAP
        if gone and alive >= end - SILENCE_GAP:
            silent.add(node)
    return silent if len(silent) * 2 < len(job.nodes) else set()


def stopped_first(
    job: JobRecord,
    findings: Sequence[Finding],
    activity: Sequence[Activity],
    application: Sequence[Finding] = (),
) -> list[Finding]:
    """Hardware evidence against the node where a failed job's failure started, when the
    shape of the evidence and a second, independent line agree.

    Pointers at a node: it is missing from the others' cascade of collective symptoms, or the
    others' network errors name it (`nccl.peer_blamed`); its silence (system log missing or
    stopping well before the others'). Corroboration: the scheduler saying a node failed
    (NODE_FAIL), any hardware finding of its own (even a weak one) or a GPU error in its job
    output that no other node printed (a kernel that failed to run: the device or the software,
    and only the one node's device is left when the software ran alike everywhere), its
    silence. A node needs a pointer and two of {pointed at by its peers, silence, the
    scheduler, its own hardware line or GPU error}. Never with a transient event in the
    window (a preemption, a spot reclaim, a node shutdown explain a silent host) or an
    `application` error (the software explains the cascade), never for a running job (the
    hang rule covers it), never beside another node's strong hardware evidence (that node is
    the answer) and never more than one node (two candidates are no answer). A node still
    making progress after the first complaint is not where the job stopped.
    """
    if job.running or len(job.nodes) < 2 or application:
        return []
    if any(f.blame is Blame.TRANSIENT and f.weight >= 50 for f in findings):
        return []
    missing = missing_from_cascade(job, findings)
    named = {f.node for f in findings if f.signal == "nccl.peer_blamed"}
    silent = silent_nodes(job, activity)
    hardware = [f for f in findings if f.blame is Blame.HARDWARE and f.weight > 0 and own_line(f)]
    # A line every node prints alike (the same key on all of them) is nobody's own evidence.
    seen_on: dict[str, set[str]] = {}
    for f in hardware:
        seen_on.setdefault(f.signal, set()).add(f.node)
    everywhere = {k for k, nodes in seen_on.items() if nodes >= set(job.nodes)}
    own_hw = {f.node for f in hardware if f.signal not in everywhere}
    own_device = _own_device_errors(job, findings)
    strong = {n for n in own_hw if _strongest(n, findings) >= STRONG}
    scheduler = job.state in NODE_FAILED_STATES
    hits: dict[str, list[str]] = {}
    first_complaint = min((f.at for f in findings if f.at and is_complaint(f)), default=None)
    for node in sorted({*named, *silent, *([missing] if missing else [])}):
        if first_complaint is not None and _progressed(node, activity, first_complaint):
            continue  # still training when the others gave up: not where it stopped
        why = []
        if node == missing:
            why.append("every other node complained about a peer and it did not")
        elif node in named:
            why.append("the other nodes' network errors name it")
        if node in silent:
            why.append("its system log is missing or stopped well before the others'")
        if scheduler:
            why.append(f"the scheduler says a node failed ({job.state})")
        if node in own_hw:
            why.append("it has hardware evidence of its own")
        elif node in own_device:
            why.append(f"its GPU reported an error no other node did ({own_device[node]})")
        if len(why) >= 2:
            hits[node] = why
    if len(hits) != 1:
        return []
    node, why = hits.popitem()
    if strong - {node}:
        return []
    return [
        Finding(
            signal="node.stopped_first",
            node=node,
            source=Source.LOGS,
            line=0,
            text=f"the failure started on {node}: " + "; ".join(why),
            blame=Blame.HARDWARE,
            weight=DERIVED_WEIGHT,
            at=_last_seen(node, activity),
        )
    ]


def _own_device_errors(job: JobRecord, findings: Sequence[Finding]) -> dict[str, str]:
    """Nodes whose own GPU reported an error (a device-family symptom: a kernel that failed to
    run, a launch failure) that no other node of the job reported: node -> the signal."""
    by_signal: dict[str, set[str]] = {}
    for f in findings:
        if (
            f.blame is Blame.SYMPTOM
            and f.weight > 0
            and own_line(f)
            and f.source is Source.LOGS
            and family(f.signal) == "device"
        ):
            by_signal.setdefault(f.signal, set()).add(f.node)
    own: dict[str, str] = {}
    for signal, nodes in sorted(by_signal.items()):
        if len(nodes) == 1 and len(job.nodes) > 1:
            own.setdefault(next(iter(nodes)), signal)
    return own


def _progressed(node: str, activity: Iterable[Activity], after: datetime) -> bool:
    return any(
        a.node == node and a.last_progress_at is not None and a.last_progress_at > after
        for a in activity
    )


def _strongest(node: str, findings: Iterable[Finding]) -> int:
    own = [
        f.weight for f in findings if f.node == node and f.blame is Blame.HARDWARE and own_line(f)
    ]
    return max(own, default=0)


def _last_seen(node: str, activity: Iterable[Activity]) -> datetime | None:
    """When the node went quiet: the earlier of its job output's and its system log's ends."""
    times = [a.last_at for a in activity if a.node == node and a.present and a.last_at]
    return min(times) if times else None


def application_errors(
    seen: Sequence[Finding], symptoms: Sequence[Finding], threshold: int
) -> list[Finding]:
    """The application's own errors: strong ones; a generic one (a bare Python exception) only
    when it is not the traceback of its node's own collective symptom before it, nor raised
    while handling (or from) a transient error its process printed just before; a weaker one
    when it came first and shortly before the flood of symptoms it explains."""
    collective = [f for f in symptoms if is_complaint(f)]
    transient = [f for f in seen if f.blame is Blame.TRANSIENT and f.source is Source.LOGS]
    out = []
    for f in seen:
        if f.blame is not Blame.APPLICATION or f.weight < threshold:
            continue
        generic = f.weight <= threshold and f.source is Source.LOGS
        if generic and any(_carried(c, f) for c in collective):
            continue  # the exception that carried its process's own timeout or lost peer
        if generic and f.detail("chained") and any(_chained_to(t, f) for t in transient):
            continue  # a library's wrapper of the service or file system error under it
        out.append(f)
    if out:
        return out
    flood = [f.at for f in collective if f.at is not None]
    if not flood:
        return _weak_before_untimed(seen, collective, threshold)
    start = min(flood)
    weak = [
        f
        for f in seen
        if f.blame is Blame.APPLICATION
        and WEAK_APPLICATION <= f.weight < threshold
        and f.at is not None
        and start - APP_BEFORE_SYMPTOMS <= f.at <= start
    ]
    if not weak:
        return []
    first = min(f.at for f in weak if f.at is not None)
    others = [
        f
        for f in seen
        if f.blame in (Blame.HARDWARE, Blame.TRANSIENT)
        and f.weight > 0
        and f.at is not None
        and f.at <= first
    ]
    return [] if others else weak


def _weak_before_untimed(
    seen: Sequence[Finding], collective: Sequence[Finding], threshold: int
) -> list[Finding]:
    """Where no symptom has a time (a log pasted without its stamps), the weaker application
    errors that come before their own file's first collective symptom, with no hardware or
    transient line before them there: the order within a file is what is left of "first"."""
    out = []
    for f in seen:
        if not (
            f.blame is Blame.APPLICATION
            and WEAK_APPLICATION <= f.weight < threshold
            and f.at is None
            and f.source is Source.LOGS
        ):
            continue
        lines = [c.line for c in collective if _same_file(c, f)]
        if not lines or f.line >= min(lines):
            continue
        if any(
            _same_file(g, f)
            and g.blame in (Blame.HARDWARE, Blame.TRANSIENT)
            and g.weight > 0
            and g.line <= f.line
            for g in seen
        ):
            continue
        out.append(f)
    return out


def _same_file(a: Finding, b: Finding) -> bool:
    return (a.node, a.source, a.origin) == (b.node, b.source, b.origin)


def _carried(complaint: Finding, error: Finding) -> bool:
    """Whether a bare exception may be the traceback of an earlier complaint: the same node's
    output, before it, and from the same process when both lines say which rank printed them
    (one rank's lost peer is not another rank's exception, however their lines interleave)."""
    if complaint.node != error.node or not _before(complaint, error):
        return False
    return complaint.rank is None or error.rank is None or complaint.rank == error.rank


def _chained_to(earlier: Finding, error: Finding) -> bool:
    """Whether a chained exception (Python printed "During handling of the above exception" or
    "The above exception was the direct cause" before its traceback) may be raised over
    `earlier`: the same process's output, shortly before it (the earlier traceback)."""
    return (
        _carried(earlier, error)
        and earlier.line > 0
        and error.line - earlier.line <= CHAINED_LINES
        and earlier.weight >= COLLECTIVE
    )


def _before(a: Finding, b: Finding) -> bool:
    """`a` came before `b` in the same node's job output (by time, else by position)."""
    if a.at is not None and b.at is not None and a.at != b.at:
        return a.at < b.at
    return a.line < b.line


# A GPU slowed by its own hardware (cooling, the power brake): DCGM's thermal clocks events and
# violations (DCGM_FR_CLOCKS_EVENT_THERMAL, _THERMAL_VIOLATIONS, _TEMP_VIOLATION) and
# nvidia-smi's "HW Slowdown: Active". Software power capping and clock management are not here.
# A node's own CPU or AMD GPU throttled for heat (the kernel's therm_throt, amdgpu's SMU) and
# NVML's SW thermal slowdown (the GPU past its operating temperature) slow its ranks the same way.
SLOWDOWN_SIGNALS = frozenset({
    "dcgm.thermal", "nvml.hw_slowdown_active", "straggler.cpu_thermal_throttle",
    "straggler.amdgpu_throttled", "straggler.gpu_sw_thermal_slowdown",
})  # fmt: skip
OUT_OF_TIME_SIGNALS = frozenset({"slurm.time_limit"})


def straggler(job: JobRecord, findings: Sequence[Finding]) -> list[Finding]:
    """The slowdown lines of the one node whose GPU or CPU was slowed by its hardware, when the
    job ran out of its time; empty unless exactly one node of a multi-node job reports one."""
    if len(job.nodes) < 2 or not any(f.signal in OUT_OF_TIME_SIGNALS for f in findings):
        return []
    slowed = [f for f in findings if f.signal in SLOWDOWN_SIGNALS and own_line(f)]
    nodes = {f.node for f in slowed}
    if len(nodes) != 1 or next(iter(nodes)) not in job.nodes:
        return []
    return slowed
