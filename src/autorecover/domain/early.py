"""A collective failure before the job got going: nothing says a retry gets past it.

A cascade of collective errors with no cause behind it reads as transient when the job had
been running: something outside the job broke a collective that had worked. The same
cascade within minutes of the start, before any training progress, is a different story.
The collectives never worked, and the usual reasons are the job's own setup: the wrong
network interface, a firewall or security group, a container's limits, an address that
does not resolve. Each fails the same way on every retry. A transient fault at start-up
(a node late to the rendezvous, a process killed from outside, a worker or node lost) is
still possible, and when the lines show one, the cascade is read as before. So is a cascade
whose collective says, by its sequence number, that the collectives before it completed
(ProcessGroupNCCL's `WorkNCCL(SeqNum=808, ...)`): the job had got going, whatever the
scheduler's times say.

So an early cascade with no sign of a killed process or a lost peer is `unknown`. It is
still requeued once (the action `unknown` carries), and the job's history turns the same
failure again into `application` (`history.py`), which stops it.

One setup reason the lines do show: on a job spanning nodes, a rank whose collectives chose an
interface no other host can reach, the loopback (`netconfig.loopback_interface`) or a
link-local address (`netconfig.link_local_interface`: a container's veth, a cloud helper link),
advertised an address its peers cannot connect to (`unreachable_interfaces`). That cascade is
the job's network configuration (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME), the same on every
retry. Another: a port the job binds already taken (EADDRINUSE) on one node of several, or on a
one-node job, is a process that node kept (`port_held`): transient, whatever the job's setup.
Two more (`mismatched_interfaces`, `nccl_software_everywhere`): nodes that chose differently
named interfaces for NCCL's bootstrap, and NCCL's own internal or CUDA error on every node, are
the job's configuration and software stack. `set_up_reading` asks them in that order.

Crashes and the run's end are read here too: every node's processes crashing at the start, or
at any time with nothing else failing, is the program (`crashed_everywhere`, `crashed_alone`);
a run whose progress reached its last step before the job ran out of time hung after training
(`ran_to_its_last_step`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import timedelta

from autorecover.domain.records import Activity, Blame, Cause, Finding, JobRecord, Source

SETUP_WINDOW = timedelta(minutes=10)  # a job that ended this soon after its start never ran
Reading = tuple[Cause, list[Finding], str]  # a cause, the lines it rests on, the reason
# Set-up's own collectives (a barrier, the parameters' broadcast) come first; a later sequence
# number means collectives had worked.
SETUP_COLLECTIVES = 8
SEQUENCE = re.compile(r"\bSeqNum=(\d{1,12})\b")
# A rank's choice of an interface that no other host can reach (on one host, harmless).
NCCL_BOOTSTRAP = "nccl.bootstrap"  # "NCCL INFO Bootstrap : Using <iface>:<address><port>"
UNREACHABLE_INTERFACES = frozenset(
    {"netconfig.loopback_interface", "netconfig.link_local_interface"}
)
SIGKILL = 9
KILLED_EXIT = 128 + SIGKILL  # a shell's or launcher's exit status for a SIGKILLed process
# Lines that say a process or a peer was lost, not that the job could not connect.
LOST = frozenset(
    {
        "elastic.rendezvous_node_lost",
        "ompi.daemon_lost",
        "ompi.prte_daemon_lost",
        "ray.node_marked_dead",
        "ray.owner_died",
        "ray.raylet_died",
        "ray.task_node_died",
        "ray.worker_died",
    }
)
# Lines that carry the signal a process died of (`signal`: a number or a name).
SIGNALLED = frozenset(
    {
        "mp.process_exited",
        "ompi.rank_signalled",
        "process.terminated",
        "slurm.task_signaled",
        "torch.signal",
        "torch.signal_received",
    }
)
KILL_NAMES = frozenset({str(SIGKILL), "SIGKILL", "Killed", "Signals.SIGKILL"})


def trained(activity: Sequence[Activity]) -> bool:
    """True when a job log recorded training progress: a step, or a plain-text progress line."""
    return any(
        a.source is Source.LOGS and (a.last_step is not None or a.progress_lines > 0)
        for a in activity
    )


def ran_to_its_last_step(activity: Sequence[Activity]) -> int | None:
    """The run's last step when a job log said the run reached it (Megatron's `iteration 50/
    50`) and its latest progress is still there (a counter that starts again, an epoch's, did
    not end the run), else None."""
    last = [
        a.last_of_run
        for a in activity
        if a.source is Source.LOGS
        and a.last_of_run
        and a.last_step is not None
        and a.last_step >= a.last_of_run
    ]
    return max(last) if last else None


# The schedulers' time limits (the job ran out of its wall time): read beside a run that had
# reached its last step, the time went to what comes after training.
TIME_LIMITS = frozenset({"slurm.time_limit", "pbs.walltime_exceeded", "lsf.run_limit",
                         "flux.timeout"})  # fmt: skip


def before_it_ran(job: JobRecord, seen: Sequence[Finding], activity: Sequence[Activity]) -> bool:
    """True when the job ended within `SETUP_WINDOW` of its start, no node recorded a
    training step, no collective's sequence number is past set-up's, and no line says a
    process was killed or a peer lost."""
    if job.ended is None or job.ended - job.started > SETUP_WINDOW:
        return False
    if trained(activity):
        return False
    if any(int(m.group(1)) > SETUP_COLLECTIVES for f in seen for m in SEQUENCE.finditer(f.text)):
        return False
    return not killed_or_lost(job, seen)


def _first_per_node(lines: Iterable[Finding]) -> dict[str, Finding]:
    """Each node's first line among `lines`."""
    first: dict[str, Finding] = {}
    for f in lines:
        first.setdefault(f.node, f)
    return first


def unreachable_interfaces(job: JobRecord, seen: Sequence[Finding]) -> list[Finding]:
    """On a job spanning nodes, the lines in which a rank chose the loopback or a link-local
    interface for its collectives (one per node and signal); empty on one node."""
    if len(job.nodes) < 2:
        return []
    first: dict[tuple[str, str], Finding] = {}
    for f in seen:
        if f.signal in UNREACHABLE_INTERFACES:
            first.setdefault((f.node, f.signal), f)
    return list(first.values())


def mismatched_interfaces(job: JobRecord, seen: Sequence[Finding]) -> list[Finding]:
    """On a job spanning nodes, each node's first NCCL bootstrap line when every node printed
    one and they name interfaces of different names (one node on `eth2`, the others on
    `bond0`); empty otherwise. NCCL picks its out-of-band interface on each node by itself
    unless NCCL_SOCKET_IFNAME says which: nodes that chose differently often sit on networks
    that do not route to each other, and a set-up that then fails is the job's network
    configuration."""
    if len(job.nodes) < 2:
        return []
    first = _first_per_node(f for f in seen if f.signal == NCCL_BOOTSTRAP and f.detail("iface"))
    if not set(job.nodes) <= set(first):
        return []
    if len({first[n].detail("iface") for n in job.nodes}) < 2:
        return []
    return [first[n] for n in job.nodes]


# Lines that say an address the job binds was already taken (EADDRINUSE: Linux errno 98, BSD 48,
# Windows 10048): Python's OSError, gRPC's and ZeroMQ's bind failures ...
PORT_BINDS = frozenset({"net.address_in_use", "grpc.bind_failed"})
# ... and c10d's TCPStore server, whose bind and listen failures carry the errno among others
# (EADDRNOTAVAIL, EACCES): read as a held port only when the line names EADDRINUSE.
STORE_BINDS = frozenset({"c10d.store_listen_failed", "c10d.store_libuv_bind_failed"})
ADDRESS_IN_USE = re.compile(r"[Aa]ddress (?:already )?in use|EADDRINUSE|errno: 98\b")


def port_held(job: JobRecord, seen: Sequence[Finding]) -> list[Finding]:
    """The first line per node saying a port the job binds was taken by another process, when
    it comes from a one-node job or from some but not all of a job's nodes; empty otherwise.

    EADDRINUSE means another socket already holds the address: on one node of several, a
    process the node kept (a previous job's leftover, a co-tenant) that a retry, or a retry on
    other nodes, gets past. On every node of a multi-node job it is the job binding its own
    port twice on each (a launcher started per rank, a port hard-coded), the same on every
    retry, which this does not claim."""
    first = _first_per_node(
        f for f in seen
        if f.signal in PORT_BINDS or (f.signal in STORE_BINDS and ADDRESS_IN_USE.search(f.text))
    )  # fmt: skip
    if len(job.nodes) > 1 and set(job.nodes) <= set(first):
        return []
    return list(first.values())


# NCCL's own result codes that say its software failed, not a peer or the network: an internal
# check (ncclInternalError, "internal error - please report this issue to the NCCL developers")
# and a CUDA call NCCL made (ncclUnhandledCudaError). On every node of a job at set-up they are
# NCCL, its plugin or CUDA as the job ships them, the same on every retry. A failed system call
# (ncclSystemError: a socket, shared memory, verbs) may be the network's and is not here.
NCCL_SOFTWARE = frozenset({"nccl.internal_error", "nccl.unhandled_cuda_error"})


def nccl_software_everywhere(job: JobRecord, seen: Sequence[Finding]) -> list[Finding]:
    """The first line per node of one `NCCL_SOFTWARE` code when every node of a multi-node job
    printed it; empty otherwise."""
    if len(job.nodes) < 2:
        return []
    for signal in sorted(NCCL_SOFTWARE):
        first = _first_per_node(f for f in seen if f.signal == signal)
        if set(job.nodes) <= set(first):
            return [first[n] for n in job.nodes]
    return []


def nccl_software_reading(job: JobRecord, seen: Sequence[Finding]) -> Reading | None:
    """NCCL's own internal or CUDA error on every node of a job at set-up is the job's
    software stack (`nccl_software_everywhere`); None when it is not on every node. Asked by
    `set_up_reading`, and on its own where these errors are all a set-up failure printed (they
    are weak symptoms: nothing stronger says the collectives failed)."""
    software = nccl_software_everywhere(job, seen)
    if not software:
        return None
    why = (
        f"NCCL reported {software[0].signal} on every node at set-up, before any progress: "
        "its own software (an internal check, a CUDA call it made), with its plugin and "
        "CUDA as the job ships them, fails the same way on every retry"
    )
    return Cause.APPLICATION, software, why


def killed_or_lost(job: JobRecord, seen: Sequence[Finding]) -> bool:
    """True when a line or an exit status says a process was killed or a peer lost."""
    if any(code == KILLED_EXIT for _, code in job.exit_codes):
        return True
    return any(_killed_or_lost(f) for f in seen)


def _killed_or_lost(f: Finding) -> bool:
    if f.signal in LOST:
        return True
    if f.signal not in SIGNALLED:
        return False
    return f.detail("signal") in KILL_NAMES or f.detail("name") in KILL_NAMES


# Exit statuses of a process that died of a crash signal (128 + SIGILL, SIGBUS, SIGFPE, SIGSEGV),
# as a shell, srun or a launcher reports them. Not SIGABRT: libraries abort on purpose after an
# error they detected elsewhere (NCCL's watchdog, a CUDA error, MPI_Abort), which is the
# failure's symptom, not a crash of the program.
CRASH_EXITS = frozenset({128 + 4, 128 + 7, 128 + 8, 128 + 11})
# ... their names as srun prints them ("srun: error: HOST: task N: Segmentation fault").
CRASH_NAMES = frozenset(
    {"Segmentation fault", "Bus error", "Illegal instruction", "Floating point exception"}
)
# How crash reports name an abort (the `signal`, `fatal`, `number` or `signo` detail).
ABORTS = frozenset({"Aborted", "SIGABRT", "6", "abort", "IOT trap signal"})
_SIGNAL_DETAILS = ("signal", "fatal", "number", "signo")


def crashed_everywhere(job: JobRecord, crashes: Sequence[Finding], seen: Sequence[Finding]) -> bool:
    """True when every node of a multi-node job crashed (not an abort): a crash report of its
    processes (in its own output, or forwarded by another node's), a crash report that names it
    as the host (srun's "srun: error: HOST: task N: Segmentation fault" is printed on the first
    node for all of them), or a crash signal's exit status."""
    if len(job.nodes) < 2:
        return False
    hosts = {f.node for f in crashes if not _aborted(f)}  # a forwarded line's: its process's
    hosts |= {
        host
        for f in seen
        if f.signal == "slurm.task_signaled"
        and f.detail("signal") in CRASH_NAMES
        and (host := f.detail("host")) is not None
    }
    hosts |= {node for node, code in job.exit_codes if code in CRASH_EXITS}
    return set(job.nodes) <= hosts


def crashed_alone(job: JobRecord, crashes: Sequence[Finding], seen: Sequence[Finding]) -> bool:
    """True when every node's processes crashed (their own crash reports, not aborts) and
    nothing else failed: no collective complaint, no killed process, no lost peer, no hardware
    line however weak. One code path reached on every node, not a node's fault (it crashes
    that node alone) nor a cascade (a peer's death makes the survivors complain, not crash)."""
    if len(job.nodes) < 2 or killed_or_lost(job, seen):
        return False
    own = {f.node for f in crashes if not _aborted(f)}
    if own != set(job.nodes):
        return False
    return not any(
        (f.blame is Blame.SYMPTOM and f.weight >= 20 and f not in crashes)
        or (f.blame is Blame.HARDWARE and f.weight > 0)
        for f in seen
    )


def _aborted(f: Finding) -> bool:
    return any(f.detail(key) in ABORTS for key in _SIGNAL_DETAILS)


def set_up_reading(job: JobRecord, seen: Sequence[Finding]) -> Reading | None:
    """What the lines of a collective failure at set-up (`before_it_ran`) say caused it, when
    they say: (cause, the lines, the reason); None leaves it `unknown`."""
    unreachable = unreachable_interfaces(job, seen)
    if unreachable:
        iface = unreachable[0]
        chose = iface.detail("iface") or iface.detail("oob_iface") or "the loopback"
        why = (
            f"collective failure at set-up while {iface.node} chose {chose} for its "
            "collectives, an interface no other host can reach (loopback or link-local): the "
            "job's network configuration (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME) fails the "
            "same way on every retry: stop"
        )
        return Cause.APPLICATION, unreachable, why
    mismatched = mismatched_interfaces(job, seen)
    if mismatched:
        chosen = ", ".join(f"{f.node} {f.detail('iface')}" for f in mismatched[:4])
        why = (
            "collective failure at set-up while the nodes chose differently named interfaces "
            f"for NCCL's bootstrap ({chosen}): networks that may not reach each other; the "
            "job's network configuration (NCCL_SOCKET_IFNAME) fails the same way on every "
            "retry: stop"
        )
        return Cause.APPLICATION, mismatched, why
    software = nccl_software_reading(job, seen)
    if software is not None:
        return software
    held = port_held(job, seen)
    if held:
        why = (
            "set-up failed because a port the job binds was already taken on "
            f"{', '.join(sorted({f.node for f in held}))} ({held[0].signal}: address in use): "
            "another process there holds it (a previous job's leftover, a co-tenant), not the "
            "job's code nor the node's hardware: retry"
        )
        return Cause.TRANSIENT, held, why
    return None
