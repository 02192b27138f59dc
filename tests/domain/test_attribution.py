"""Attribution rules on hand-made findings: windows, context rules, culprits, hangs."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.domain.attribution import attribute
from autorecover.domain.context import in_context
from autorecover.domain.history import Attempt, parse_history
from autorecover.domain.records import (
    Action,
    Activity,
    Blame,
    Cause,
    Finding,
    JobRecord,
    NodeAction,
    Source,
)
from autorecover.domain.timeouts import waited_on_preprocessing

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
NODES = ("n1", "n2", "n3", "n4")
RULES = {
    13: frozenset({"app_if_all_nodes"}),
    45: frozenset({"sympathetic"}),
    63: frozenset({"driver_handled"}),
    154: frozenset({"recovery_action_text"}),
    145: frozenset({"registers"}),
}


def job(**kw: object) -> JobRecord:
    base: dict[str, object] = dict(
        scheduler="slurm",
        job="1",
        nodes=NODES,
        started=T0,
        ended=T0 + timedelta(hours=2),
        collected=T0 + timedelta(hours=2, minutes=5),
        state="FAILED",
    )
    base.update(kw)
    return JobRecord(**base)  # type: ignore[arg-type]


def f(signal: str, node: str, blame: Blame, weight: int, minutes: float, **kw: object) -> Finding:
    return Finding(
        signal=signal,
        node=node,
        source=kw.pop("source", Source.SYSTEM),  # type: ignore[arg-type]
        line=int(kw.pop("line", 1)),  # type: ignore[arg-type]
        text=str(kw.pop("text", signal)),
        blame=blame,
        weight=weight,
        at=T0 + timedelta(minutes=minutes),
        **kw,  # type: ignore[arg-type]
    )


def timeout(node: str, minutes: float) -> Finding:
    return f("nccl.watchdog_timeout", node, Blame.SYMPTOM, 30, minutes, source=Source.LOGS)


def test_hardware_fault_names_only_its_node() -> None:
    fs = [f("xid.79", "n3", Blame.HARDWARE, 100, 60), *(timeout(n, 70) for n in NODES)]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (
        Cause.HARDWARE,
        ("n3",),
        Action.REQUEUE_EXCLUDING,
    )
    assert v.evidence[0].signal == "xid.79"


def test_evidence_from_before_the_window_is_ignored() -> None:
    fs = [
        f("xid.79", "n3", Blame.HARDWARE, 100, -3 * 24 * 60),
        f("python.exception", "n1", Blame.APPLICATION, 50, 30, source=Source.LOGS),
    ]
    v = attribute(job(), fs, [], RULES)
    assert v.cause is Cause.APPLICATION
    assert v.suspect_nodes == ()


def test_evidence_long_after_the_end_is_ignored() -> None:
    fs = [f("xid.48", "n2", Blame.HARDWARE, 95, 5 * 60), timeout("n1", 119)]
    assert attribute(job(), fs, [], RULES).cause is Cause.TRANSIENT


def test_collective_timeout_alone_is_transient_and_names_nobody() -> None:
    v = attribute(job(), [timeout(n, 100) for n in NODES], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)


def test_collective_timeouts_alone_on_one_host_are_unknown_and_requeued() -> None:
    # No network between one host's ranks: a rank that never arrived or a GPU that hung.
    fs = [
        timeout("n1", 100),
        f("c10d.nccl_async_teardown", "n1", Blame.SYMPTOM, 20, 100.1, source=Source.LOGS),
    ]
    v = attribute(job(nodes=("n1",)), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.UNKNOWN, (), Action.REQUEUE)
    assert "one host" in v.summary


@pytest.mark.parametrize(
    "other",
    [
        f("gloo.peer_closed", "n1", Blame.SYMPTOM, 25, 99, source=Source.LOGS),
        f("nccl.remote_error", "n1", Blame.SYMPTOM, 25, 99, source=Source.LOGS),
        f("ray.worker_died", "n1", Blame.SYMPTOM, 10, 99, source=Source.LOGS),
    ],
    ids=["peer-closed", "remote-error", "worker-lost"],
)
def test_one_hosts_timeouts_beside_a_lost_peer_stay_transient(other: Finding) -> None:
    v = attribute(job(nodes=("n1",)), [timeout("n1", 100), other], [], RULES)
    assert v.cause is Cause.TRANSIENT


def test_one_hosts_timeouts_after_a_sigkill_stay_transient() -> None:
    v = attribute(job(nodes=("n1",), exit_codes=(("n1", 137),)), [timeout("n1", 100)], [], RULES)
    assert v.cause is Cause.TRANSIENT


def waiting(node: str, minutes: float) -> Finding:
    return f("hf.waiting_for_main_process", node, Blame.INFO, 0, minutes, source=Source.LOGS)


def store_timeout(node: str, minutes: float) -> Finding:
    return f("c10d.store_timeout", node, Blame.SYMPTOM, 30, minutes, source=Source.LOGS)


def test_ranks_timing_out_inside_main_process_first_are_the_jobs_preprocessing() -> None:
    # Ranks wait in a barrier while the main process tokenizes; the wait outlasts the timeout.
    fs = [*(waiting(n, 30) for n in NODES), *(store_timeout(n, 30) for n in NODES)]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    assert "main_process_first" in v.summary
    assert v.evidence[0].signal == "hf.waiting_for_main_process"


def test_a_wait_in_main_process_first_does_not_explain_a_lost_peer_or_other_nodes() -> None:
    # A process killed while the others waited: that, not the preprocessing, ended the wait.
    fs = [*(waiting(n, 30) for n in NODES), *(store_timeout(n, 30) for n in NODES)]
    v = attribute(job(exit_codes=(("n2", 137),)), fs, [], RULES)
    assert v.cause is not Cause.APPLICATION
    # The wait on one node, the timeouts on the others: nothing ties them together.
    fs = [waiting("n1", 30), *(timeout(n, 100) for n in NODES if n != "n1")]
    assert attribute(job(), fs, [], RULES).cause is Cause.TRANSIENT


def preprocessing(node: str, minutes: float, pct: int, line: int = 5) -> Finding:
    details = (("desc", "Running tokenizer on dataset"), ("pct", str(pct)))
    return f(
        "datasets.preprocessing_progress",
        node,
        Blame.INFO,
        0,
        minutes,
        source=Source.LOGS,
        rank=0,
        line=line,
        details=details,
    )


def test_collectives_timing_out_while_a_rank_still_preprocesses_are_the_jobs() -> None:
    # Rank 0 on n1 is tokenizing at 40 % when every other rank's first collective times out.
    fs = [
        preprocessing("n1", 5, 10, line=5),
        preprocessing("n1", 9, 40, line=6),
        *(timeout(n, 10) for n in NODES),
    ]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    assert "rank 0 on n1 was still preprocessing" in v.summary and "40 %" in v.summary
    assert v.evidence[0].signal == "datasets.preprocessing_progress"


def test_preprocessing_that_finished_or_a_lost_peer_explains_no_timeout() -> None:
    # The bar reached 100 %: whatever the collectives waited for, it was not this work.
    done = [preprocessing("n1", 5, 40, line=5), preprocessing("n1", 8, 100, line=6)]
    fs = [*done, *(timeout(n, 30) for n in NODES)]
    assert attribute(job(), fs, [], RULES).cause is Cause.TRANSIENT
    # A process killed while a bar was short of 100 %: the kill, not the preprocessing.
    fs = [preprocessing("n1", 5, 40), *(timeout(n, 30) for n in NODES)]
    v = attribute(job(exit_codes=(("n2", 137),)), fs, [], RULES)
    assert v.cause is not Cause.APPLICATION
    # No collective timed out: a bar short of 100 % says nothing.
    assert waited_on_preprocessing([preprocessing("n1", 5, 40)]) == []


def early_job(**kw: object) -> JobRecord:
    return job(ended=T0 + timedelta(minutes=4), **kw)


def link_local(node: str) -> Finding:
    return f(
        "netconfig.link_local_interface",
        node,
        Blame.INFO,
        0,
        1,
        source=Source.LOGS,
        details=(("iface", "veth3f1c2a7"), ("address", "fe80::e4a1:9cff:fe3d:1b72")),
    )


def system_error(node: str) -> Finding:
    return f("nccl.unhandled_system_error", node, Blame.SYMPTOM, 30, 3, source=Source.LOGS)


def test_a_set_up_failure_after_a_rank_chose_a_link_local_interface_is_the_jobs() -> None:
    fs = [link_local("n2"), *(system_error(n) for n in NODES)]
    v = attribute(early_job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    assert "veth3f1c2a7" in v.summary and v.evidence[0].signal == "netconfig.link_local_interface"
    # Without it the same cascade names no cause; on one host the interface is harmless.
    assert attribute(early_job(), fs[1:], [], RULES).cause is Cause.UNKNOWN
    one = attribute(early_job(nodes=("n2",)), [link_local("n2"), system_error("n2")], [], RULES)
    assert one.cause is not Cause.APPLICATION


def bootstrap_on(node: str, iface: str, address: str) -> Finding:
    text = f"{node}:4242:4242 [0] NCCL INFO Bootstrap : Using {iface}:{address}<0>"
    return f("nccl.bootstrap", node, Blame.INFO, 0, 1, source=Source.LOGS, text=text,
             details=(("iface", iface), ("address", address)))  # fmt: skip


def test_a_set_up_failure_after_nodes_chose_differently_named_interfaces_is_the_jobs() -> None:
    """NCCL picks each node's bootstrap interface by itself unless NCCL_SOCKET_IFNAME says
    which: nodes that chose differently (eth2 on one, bond0 on the rest) often sit on networks
    that do not route to each other."""
    chose = [bootstrap_on(n, "eth2" if n == "n4" else "bond0", f"10.37.8.{i}")
             for i, n in enumerate(NODES, 1)]  # fmt: skip
    fs = [*chose, *(system_error(n) for n in NODES)]
    v = attribute(early_job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v
    assert "n4 eth2" in v.summary and "NCCL_SOCKET_IFNAME" in v.summary
    same = [bootstrap_on(n, "bond0", f"10.37.8.{i}") for i, n in enumerate(NODES, 1)]
    assert attribute(early_job(), [*same, *fs[4:]], [], RULES).cause is Cause.UNKNOWN
    unseen = [*chose[:3], *fs[4:]]  # n4 printed no bootstrap line: its choice is unknown
    assert attribute(early_job(), unseen, [], RULES).cause is Cause.UNKNOWN


def nccl_code(signal: str, node: str, weight: int = 20) -> Finding:
    return f(signal, node, Blame.SYMPTOM, weight, 3, source=Source.LOGS)


@pytest.mark.parametrize("weight", [20, 15])  # 15: the only, weak, symptom of the failure
@pytest.mark.parametrize("signal", ["nccl.internal_error", "nccl.unhandled_cuda_error"])
def test_nccls_own_software_failing_on_every_node_at_set_up_is_the_jobs(
    signal: str, weight: int
) -> None:
    """ncclInternalError (an internal check) and ncclUnhandledCudaError (a CUDA call NCCL made)
    on every node before any progress: NCCL, its plugin or CUDA as the job ships them."""
    codes = [nccl_code(signal, n, weight) for n in NODES]
    v = attribute(early_job(), codes, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v
    assert f"NCCL reported {signal} on every node at set-up" in v.summary
    some = codes[:3]  # not on n4
    assert attribute(early_job(), some, [], RULES).cause is not Cause.APPLICATION
    late = attribute(job(), codes, [], RULES)  # after it ran
    assert late.cause is not Cause.APPLICATION


def test_a_failed_system_call_in_nccl_on_every_node_at_set_up_stays_open() -> None:
    """ncclSystemError (a socket, shared memory, verbs) may be the network's: not the job's."""
    v = attribute(early_job(), [system_error(n) for n in NODES], [], RULES)
    assert v.cause is Cause.UNKNOWN


def eio(node: str, minutes: float) -> Finding:
    return f("storage.eio", node, Blame.SYMPTOM, 30, minutes, source=Source.LOGS)


def test_an_io_error_with_nothing_behind_it_is_unknown_and_requeued() -> None:
    # EIO names no device: the node's disk, a shared file system or the job's files.
    v = attribute(job(), [eio("n2", 100)], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.UNKNOWN, (), Action.REQUEUE)
    assert "I/O error" in v.summary


def test_an_io_error_beside_a_collective_cascade_stays_transient() -> None:
    v = attribute(job(), [eio("n2", 100), *(timeout(n, 101) for n in NODES)], [], RULES)
    assert v.cause is Cause.TRANSIENT


def test_application_error_that_came_first_beats_a_later_hardware_line() -> None:
    fs = [
        f("cuda.device_side_assert", "n1", Blame.APPLICATION, 85, 30, source=Source.LOGS),
        f("xid.94", "n2", Blame.HARDWARE, 70, 45),
    ]
    assert attribute(job(), fs, [], RULES).cause is Cause.APPLICATION


def test_xid13_on_every_node_is_the_application() -> None:
    fs = [f("xid.13", n, Blame.APPLICATION, 40, 50) for n in NODES]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def xid_on(node: str, number: int, bus: str, minutes: float) -> Finding:
    text = f"NVRM: Xid (PCI:0000:{bus}:00): {number}, pid=4242, name=python3, Graphics Exception"
    return f(f"xid.{number}", node, Blame.APPLICATION, 40, minutes, text=text)


def test_xid13_or_31_on_several_gpus_of_one_node_is_the_application() -> None:
    """NVIDIA's workflows read these XIDs repeating on one GPU as that GPU's; on several GPUs
    of the node at once the fault followed the work, not a device."""
    several = [xid_on("n2", n, bus, 50) for n in (13, 31) for bus in ("1b", "43", "9a")]
    v = attribute(job(), several, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    assert {e.signal for e in v.evidence} <= {"xid.13", "xid.31"} and v.evidence
    one_gpu = [xid_on("n2", 31, "1b", 50), xid_on("n2", 31, "1b", 51)]  # one GPU, repeating
    assert attribute(job(), one_gpu, [], RULES).cause is Cause.UNKNOWN
    spread = [xid_on("n2", 13, "1b", 50), xid_on("n3", 13, "43", 50)]  # two nodes, one GPU each
    assert attribute(job(), spread, [], RULES).cause is Cause.UNKNOWN


def test_cuda_launch_timeout_on_every_node_is_the_application() -> None:
    fs = [f("cuda.launch_timeout", n, Blame.HARDWARE, 45, 50, source=Source.LOGS) for n in NODES]
    fs.append(f("xid.8", "n2", Blame.HARDWARE, 30, 49))
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_the_device_plugin_missing_nvml_on_every_node_is_the_clusters_setup() -> None:
    """The NVIDIA device plugin finding no libnvidia-ml on every node of the job (a node image
    without it): the setup every node shares, not one node; on one node, still too weak."""
    every = [f("deviceplugin.nvml_library_missing", n, Blame.HARDWARE, 50, 5) for n in NODES]
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v.summary
    v = attribute(job(), every[:1], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary


def test_the_adapter_refusing_queue_pairs_on_every_node_is_the_jobs_setup() -> None:
    """UCX's "mlx5dv_devx_obj_create(QP) failed" on every node: the job's UCX settings or image
    (nodes do not fail together); on one node of the job only, that node's adapter."""
    every = [
        f("ucx.devx_create_failed", n, Blame.HARDWARE, 45, 5, source=Source.LOGS) for n in NODES
    ]
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v.summary
    v = attribute(job(), every[:1], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, (NODES[0],)), v.summary


@pytest.mark.parametrize("signal", ["oci.runtime_create_failed", "apptainer.creation_failed"])
def test_the_container_runtime_failing_on_every_node_is_the_jobs_setup(signal: str) -> None:
    """The runtime could not create the job's container on every node (a hook, a mount, the
    image): the setup the nodes share, which a retry meets again; on one node, nothing decided."""
    every = [f(signal, n, Blame.SYMPTOM, 10, 5, source=Source.LOGS) for n in NODES]
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v.summary
    v = attribute(job(), every[:1], [], RULES)
    assert v.cause is not Cause.APPLICATION and v.suspect_nodes == (), v.summary


def test_every_node_timing_out_on_the_c10d_store_is_the_jobs_launch_configuration() -> None:
    """Every node's ranks gave up connecting to the TCPStore: no rank of the job serves the
    address they all dial (its host would connect locally); on one node, the store's host may
    simply have been late or gone, which a retry gets past."""
    every = [f("c10d.store_connect_failed", n, Blame.TRANSIENT, 40, 5, source=Source.LOGS)
             for n in NODES]  # fmt: skip
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v.summary
    v = attribute(job(), every[:-1], [], RULES)
    assert v.cause is not Cause.APPLICATION, v.summary


def test_no_usable_gpu_on_one_node_with_an_xid_names_that_node() -> None:
    fs = [
        f("cuda.device_unavailable", "n2", Blame.HARDWARE, 50, 50, source=Source.LOGS),
        f("xid.79", "n2", Blame.HARDWARE, 100, 49),
        *(timeout(n, 70) for n in NODES if n != "n2"),
    ]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_no_usable_gpu_on_one_node_alone_names_nobody() -> None:
    # n2 times out like every other node: nothing but its own weak line points at it.
    fs = [f("cuda.device_unavailable", "n2", Blame.HARDWARE, 50, 50, source=Source.LOGS)]
    fs.extend(timeout(n, 70) for n in NODES)
    v = attribute(job(), fs, [], RULES)
    assert v.suspect_nodes == ()


@pytest.mark.parametrize(
    ("signal", "weight"),
    [
        ("cuda.device_unavailable", 50),  # cudaSetDevice: busy or unavailable
        ("cuda.call_oom", 45),  # PyTorch's "CUDA error: out of memory": its context found no room
        ("nccl.nvls_setup_failure", 50),  # NCCL's NVLS multicast set-up on its NVSwitch fabric
        ("nvml.py_unknown_error", 50),  # pynvml could not reach its GPU
        ("ucx.devx_create_failed", 45),  # the mlx5 adapter refusing UCX a queue pair
    ],
)
def test_a_gpu_error_on_only_one_node_whose_ranks_stop_names_it(signal: str, weight: int) -> None:
    # n2's ranks abort at start-up; the others, which started the same code on GPUs that
    # answered, wait on it and time out.
    fs = [f(signal, "n2", Blame.HARDWARE, weight, 1, source=Source.LOGS)]
    fs.extend(timeout(n, 31) for n in NODES if n != "n2")
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_a_crash_report_after_a_one_node_gpu_error_is_not_waiting_on_peers() -> None:
    # n2's process dies of the error and its signal handler says so: that is not a rank that
    # went on to wait on its peers (which would show it had a GPU to run on).
    fs = [
        f("cuda.no_gpu_visible", "n2", Blame.APPLICATION, 55, 1, source=Source.LOGS),
        f("ompi.signal_report", "n2", Blame.SYMPTOM, 45, 1.1, source=Source.LOGS),
        *(timeout(n, 31) for n in NODES if n != "n2"),
    ]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_no_gpu_visible_on_one_node_of_an_allocation_names_it() -> None:
    # "No CUDA GPUs are available" is the job's request when it is the only story; on one node of
    # a Slurm allocation whose other nodes found their GPUs (and then wait on n2), it is n2's.
    fs = [f("cuda.no_gpu_visible", "n2", Blame.APPLICATION, 55, 1, source=Source.LOGS)]
    fs.extend(timeout(n, 31) for n in NODES if n != "n2")
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))
    # the job's reading carried no node action; the node's gets one: a look at its GPUs
    [reread] = [g for g in in_context(job(), fs, RULES) if g.signal == "cuda.no_gpu_visible"]
    assert (reread.blame, reread.node_action) == (Blame.HARDWARE, NodeAction.INSPECT)


def test_no_gpu_visible_everywhere_or_in_one_pod_stays_the_jobs() -> None:
    every = [f("cuda.no_gpu_visible", n, Blame.APPLICATION, 55, 1, source=Source.LOGS)
             for n in NODES]  # fmt: skip
    assert attribute(job(), every, [], RULES).cause is Cause.APPLICATION
    # a Kubernetes job's pods differ (a Ray head or a serving replica placed on a CPU node)
    one = [f("cuda.no_gpu_visible", "n2", Blame.APPLICATION, 55, 1, source=Source.LOGS)]
    one.extend(timeout(n, 31) for n in NODES if n != "n2")
    v = attribute(job(scheduler="kubernetes"), one, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_no_usable_gpu_on_two_nodes_or_a_single_node_job_names_nobody() -> None:
    two = [f("cuda.device_unavailable", n, Blame.HARDWARE, 50, 1, source=Source.LOGS)
           for n in ("n2", "n3")]  # fmt: skip
    assert attribute(job(), two, [], RULES).suspect_nodes == ()
    one = [f("cuda.device_unavailable", "n1", Blame.HARDWARE, 50, 1, source=Source.LOGS)]
    assert attribute(job(nodes=("n1",)), one, [], RULES).suspect_nodes == ()


def test_no_memory_for_a_cuda_call_everywhere_is_the_job_and_alone_is_open() -> None:
    # every rank creating its context on one GPU fails on every node: the job's device choice
    every = [f("cuda.call_oom", n, Blame.HARDWARE, 45, 1, source=Source.LOGS) for n in NODES]
    assert attribute(job(), every, [], RULES).cause is Cause.APPLICATION
    # one host: a GPU other processes fill, or the job's own choice, and no line says which
    one = [f("cuda.call_oom", "n1", Blame.HARDWARE, 45, 1, source=Source.LOGS)]
    v = attribute(job(nodes=("n1",)), one, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ())


def nvls(node: str, minutes: float, line: int = 5) -> list[Finding]:
    """NCCL's NVLS set-up warning as the scanner reads it: its own entry and the CUDA text's."""
    text = "transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'"
    kw: dict[str, object] = {"source": Source.LOGS, "line": line, "text": text}
    return [
        f("nccl.nvls_setup_failure", node, Blame.HARDWARE, 50, minutes, **kw),
        f("cuda.invalid_usage", node, Blame.APPLICATION, 60, minutes, **kw),
    ]


def test_an_nvls_set_up_failure_on_one_node_of_several_names_it_despite_its_cuda_text() -> None:
    fs = [*nvls("n2", 1), *(timeout(n, 31) for n in NODES if n != "n2")]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_an_nvls_set_up_failure_alone_is_neither_the_node_nor_the_job() -> None:
    # one host: its fabric state or the software; the CUDA text NCCL hit there, and the same
    # text PyTorch quotes as NCCL's last error, are the set-up's, not the job's own call
    last = f("nccl.last_error_cuda_failure", "n1", Blame.SYMPTOM, 15, 1.1, source=Source.LOGS,
             line=9, text="[rank0]: Cuda failure 1 'invalid argument'")  # fmt: skip
    usage = replace(last, signal="cuda.invalid_usage", blame=Blame.APPLICATION, weight=60)
    v = attribute(job(nodes=("n1",)), [*nvls("n1", 1), last, usage], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ())


def test_a_loopback_peer_is_the_configuration_of_a_job_spanning_nodes() -> None:
    # gloo resolved a host name to 127.0.1.1 (/etc/hosts): every retry fails the same way
    loop = f("netconfig.loopback_peer", "n2", Blame.SYMPTOM, 30, 1, source=Source.LOGS)
    fs = [loop, *(timeout(n, 31) for n in NODES if n != "n2")]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    # on one node a refused loopback connect is a peer not listening: not the configuration
    alone = attribute(job(nodes=("n1",)), [replace(loop, node="n1")], [], RULES)
    assert alone.cause is not Cause.APPLICATION


def test_a_jax_coordinator_on_loopback_is_the_configuration_of_a_job_spanning_nodes() -> None:
    # coordinator_address="localhost": each node waits for a coordinator on itself
    loop = f("netconfig.loopback_coordinator", "n2", Blame.SYMPTOM, 30, 1, source=Source.LOGS)
    barrier = [f("xla.init_barrier_timeout", n, Blame.SYMPTOM, 30, 6, source=Source.LOGS)
               for n in NODES if n != "n2"]  # fmt: skip
    v = attribute(job(), [loop, *barrier], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    alone = attribute(job(nodes=("n1",)), [replace(loop, node="n1")], [], RULES)
    assert alone.cause is not Cause.APPLICATION


def test_a_loopback_peer_after_training_is_a_peer_gone_not_the_configuration() -> None:
    # nodes sharing one host (torchrun per simulated node): the ranks trained over loopback,
    # so a refused reconnect after a worker died is that peer's absence
    loop = f("netconfig.loopback_peer", "n2", Blame.SYMPTOM, 30, 31, source=Source.LOGS)
    fs = [loop, *(timeout(n, 31) for n in NODES if n != "n2")]
    stepped = [Activity(node=n, source=Source.LOGS, present=True, lines=9, last_step=4)
               for n in NODES]  # fmt: skip
    assert attribute(job(), fs, stepped, RULES).cause is not Cause.APPLICATION
    assert attribute(job(), fs, [], RULES).cause is Cause.APPLICATION


def sigbus(node: str, minutes: float) -> Finding:
    return f("process.crashed", node, Blame.SYMPTOM, 45, minutes, source=Source.LOGS,
             details=(("number", "7"),))  # fmt: skip


def test_sigbus_in_several_processes_at_once_is_a_shared_mapping_the_jobs() -> None:
    v = attribute(job(nodes=("n1",)), [sigbus("n1", 30), sigbus("n1", 30.1)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_one_sigbus_in_a_pod_is_its_shm_the_jobs() -> None:
    """A container's /dev/shm is 64 MB unless the pod mounts a memory volume there: one process
    dying of SIGBUS in a pod, with no memory error from the node's kernel, is the job's spec."""
    pod = job(nodes=("n1",), scheduler="kubernetes")
    v = attribute(pod, [sigbus("n1", 30)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    poisoned = [sigbus("n1", 30), f("kernel.memory_failure", "n1", Blame.HARDWARE, 55, 29.9)]
    assert attribute(pod, poisoned, [], RULES).cause is not Cause.APPLICATION


def test_one_sigbus_or_one_beside_a_memory_error_is_not_the_jobs() -> None:
    one = attribute(job(nodes=("n1",)), [sigbus("n1", 30)], [], RULES)
    assert one.cause is Cause.UNKNOWN
    poisoned = [sigbus("n1", 30), sigbus("n1", 30.1),
                f("kernel.memory_failure", "n1", Blame.HARDWARE, 55, 29.9)]  # fmt: skip
    assert attribute(job(nodes=("n1",)), poisoned, [], RULES).cause is not Cause.APPLICATION


def test_xid45_alone_is_teardown_and_decides_nothing() -> None:
    fs = [f("xid.45", "n2", Blame.HARDWARE, 60, 100), timeout("n1", 99)]
    v = attribute(job(), fs, [], RULES)
    assert v.suspect_nodes == ()


def test_xid154_follows_the_drivers_text() -> None:
    text = "NVRM: Xid (PCI:0000:3a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"
    fs = [f("xid.154", "n4", Blame.INFO, 10, 50, text=text)]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n4",))
    none = text.replace("0x2 (Node Reboot Required)", "0x0 (None)")
    assert (
        attribute(
            job(), [f("xid.154", "n4", Blame.INFO, 10, 50, text=none)], [], RULES
        ).suspect_nodes
        == ()
    )


def test_nonfatal_nvlink5_xid_decides_nothing() -> None:
    text = "NVRM: Xid (PCI:0000:3f:00): 145, RLW_SRC_TRACK Nonfatal XC1 i0 Link 10 (0x04082907 0x00000008)"
    fs = [f("xid.145", "n1", Blame.HARDWARE, 70, 50, text=text)]
    assert attribute(job(), fs, [], RULES).suspect_nodes == ()


def test_preemption_is_transient() -> None:
    v = attribute(job(state="PREEMPTED"), [], [], RULES)
    assert (v.cause, v.action) == (Cause.TRANSIENT, Action.REQUEUE)
    assert v.evidence[0].source is Source.JOB


def test_nvrx_do_not_requeue_exit_stops() -> None:
    v = attribute(job(exit_codes=(("n1", 93),)), [timeout("n1", 100)], [], RULES)
    assert (v.cause, v.action) == (Cause.APPLICATION, Action.STOP)


def activity(node: str, last_minutes: float, interval: float = 1.5) -> Activity:
    at = T0 + timedelta(minutes=last_minutes)
    return Activity(
        node=node,
        source=Source.LOGS,
        present=True,
        lines=10,
        last_at=at,
        last_progress_at=at,
        last_step=100,
        progress_records=10,
        median_step_interval_s=interval,
    )


def test_hang_names_the_node_that_stopped_first() -> None:
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3))
    acts = [activity("n1", 120), activity("n2", 80), activity("n3", 120), activity("n4", 120)]
    v = attribute(running, [], acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_hang_everywhere_at_once_names_nobody() -> None:
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3))
    acts = [activity(n, 120) for n in NODES]
    v = attribute(running, [], acts, RULES)
    # nothing says whether a rank waits in its own code, on the fabric or on a GPU: a retry
    # the user's budget bounds, not an infrastructure retry that could loop
    assert v.cause is Cause.UNKNOWN and v.suspect_nodes == (), v.summary
    assert "no evidence why" in v.summary
    # when progress stopped, how long before the bundle and what counts as a hang: the reader
    # can check the call (the newest progress at 120 min, collected at 180)
    assert "(nothing since 2026-03-02 12:00:00Z, 60 min before the bundle was taken; 10 min " in (
        v.summary
    ), v.summary


def test_hang_everywhere_after_a_peer_was_lost_is_a_stall_to_retry() -> None:
    """The survivors of a lost peer wait for it: a restart gets past that, and the lost node
    is not named without a fault of its own."""
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3))
    acts = [activity(n, 120) for n in NODES]
    dead = f("ray.node_marked_dead", "n1", Blame.SYMPTOM, 20, 90)
    v = attribute(running, [dead], acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ()), v.summary
    assert "peer lost" in v.summary
    killed = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3),
                 exit_codes=(("n2", 137),))  # fmt: skip
    assert attribute(killed, [], acts, RULES).cause is Cause.TRANSIENT
    # a transient line below its threshold says what stalled
    slow = f("tensorstore.curl_error", "n3", Blame.TRANSIENT, 35, 90)
    v = attribute(running, [slow], acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ()), v.summary
    assert "tensorstore.curl_error" in v.summary


def test_a_ray_worker_node_speaking_through_the_driver_is_not_silent() -> None:
    # Ray's driver prints the workers' lines under `(Worker pid=N, ip=A)`; the worker node's
    # own log holds its raylet starting and nothing after. A line from an address no node is
    # known by, later than that, may be the worker: its quiet log names nobody.
    running = job(nodes=("head", "worker"), ended=None, state="RUNNING",
                  collected=T0 + timedelta(hours=3))  # fmt: skip
    quiet = Activity(
        "worker", Source.LOGS, present=True, lines=2, last_at=T0 + timedelta(minutes=2),
        last_progress_at=T0 + timedelta(minutes=2),
    )  # fmt: skip
    acts = [activity("head", 120), quiet]
    assert attribute(running, [], acts, RULES).suspect_nodes == ("worker",)  # silent without it
    relayed = f("gloo.connect_full_mesh", "head", Blame.SYMPTOM, 20, 110, source=Source.LOGS,
                details=(("via", "10.0.1.36"),))  # fmt: skip
    assert attribute(running, [relayed], acts, RULES).suspect_nodes == ()
    # the driver's own node forwarding nothing of the kind: the quiet node is still named
    own = replace(relayed, details=())
    assert attribute(running, [own], acts, RULES).suspect_nodes == ("worker",)


def test_a_node_that_logs_no_progress_while_another_does_did_not_stop_first() -> None:
    """A job that logs progress from rank 0 only: the other node's log holds its start-up and
    nothing after. Its last line is when it last spoke, not when its progress stopped (the
    job went on training with it: every step needs every rank), so it is no suspect."""
    running = job(nodes=("n1", "n2"), ended=None, state="RUNNING",
                  collected=T0 + timedelta(hours=3))  # fmt: skip
    started = Activity("n2", Source.LOGS, present=True, lines=9, first_at=T0,
                       last_at=T0 + timedelta(seconds=4))  # fmt: skip
    v = attribute(running, [], [activity("n1", 120), started], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary
    # the same node logging progress of its own that stopped early is the one that stopped
    stopped = replace(started, last_progress_at=T0 + timedelta(minutes=30), last_step=20)
    v = attribute(running, [], [activity("n1", 120), stopped], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",)), v.summary


def test_a_failure_after_the_runs_last_step_with_only_symptoms_is_the_jobs() -> None:
    """The run reached its last step (`step 3000/3000`) and every rank then failed at exit
    with errors that say no cause: only the job's shutdown or final save ran after training,
    and a retry has no step left to train (a teardown bug in PyTorch, in the corpus)."""
    done = Activity("n1", Source.LOGS, present=True, lines=40, last_at=T0 + timedelta(minutes=110),
                    last_progress_at=T0 + timedelta(minutes=110), last_step=3000,
                    progress_lines=30, last_of_run=3000)  # fmt: skip
    exits = [f("slurm.task_exit", n, Blame.SYMPTOM, 5, 119, source=Source.LOGS) for n in NODES]
    v = attribute(job(), exits, [done], RULES)
    assert (v.cause, v.action) == (Cause.APPLICATION, Action.STOP), v.summary
    assert "reached its last step (3000 of 3000)" in v.summary
    # short of the last step, the same exits say nothing
    short = replace(done, last_step=2000)
    assert attribute(job(), exits, [short], RULES).cause is Cause.UNKNOWN
    # an I/O error at the end leaves the final save's storage in question
    eio = f("storage.eio", "n1", Blame.SYMPTOM, 20, 118, source=Source.LOGS)
    assert attribute(job(), [*exits, eio], [done], RULES).cause is not Cause.APPLICATION


def test_recent_progress_is_no_hang() -> None:
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(minutes=121))
    acts = [activity(n, 120) for n in NODES]
    assert attribute(running, [], acts, RULES).cause is Cause.UNKNOWN


def logged(node: str, last_minutes: float, gap_s: float) -> Activity:
    """A job log whose plain-text progress lines come every `gap_s` (0.8 s steps)."""
    at = T0 + timedelta(minutes=last_minutes)
    return Activity(node=node, source=Source.LOGS, present=True, lines=40, last_at=at,
                    last_progress_at=at, last_step=25300, progress_lines=8,
                    median_step_interval_s=0.8, median_progress_gap_s=gap_s)  # fmt: skip


@pytest.mark.parametrize(("gap_minutes", "hung"), [(12, True), (20, False)])
def test_a_log_that_reports_progress_every_n_steps_is_hung_after_three_gaps(
    gap_minutes: float, hung: bool
) -> None:
    # 47 minutes of silence: past three 12-minute gaps, within three 20-minute ones
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(minutes=167))
    acts = [logged(n, 120, gap_minutes * 60) for n in NODES]
    v = attribute(running, [], acts, RULES)
    assert ("stopped making progress" in v.summary) is hung, v.summary
    assert v.cause is Cause.UNKNOWN and v.suspect_nodes == ()


BLAMES = st.sampled_from(list(Blame))


@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["xid.79", "xid.13", "xid.45", "cuda.oom", "nccl.watchdog_timeout", "x"]
            ),
            st.sampled_from(NODES),
            BLAMES,
            st.integers(0, 100),
            st.floats(-600, 600),
        ),
        max_size=30,
    ),
    st.sampled_from(["FAILED", "PREEMPTED", "RUNNING", "NODE_FAIL", "OOMKilled"]),
)
def test_never_a_suspect_without_a_hardware_cause(rows: list, state: str) -> None:  # type: ignore[type-arg]
    fs = [f(s, n, b, w, m) for s, n, b, w, m in rows]
    v = attribute(job(state=state), fs, [], RULES)
    assert (v.cause is Cause.HARDWARE) == bool(v.suspect_nodes)
    assert set(v.suspect_nodes) <= set(NODES)
    assert v.action is {
        Cause.HARDWARE: Action.REQUEUE_EXCLUDING,
        Cause.APPLICATION: Action.STOP,
    }.get(v.cause, Action.REQUEUE)


def bootstrap(node: str, address: str) -> Finding:
    return f(
        "nccl.bootstrap",
        node,
        Blame.INFO,
        0,
        1,
        source=Source.LOGS,
        details=(("address", address),),
    )


def ib_error(node: str, peer: str, minutes: float = 90) -> Finding:
    return f(
        "nccl.ib_completion_error",
        node,
        Blame.SYMPTOM,
        50,
        minutes,
        source=Source.LOGS,
        details=(("peer", f"{peer}<40029>"), ("status", "12")),
    )


def test_peer_named_by_nccl_errors_adds_to_its_own_weak_evidence() -> None:
    addresses = [bootstrap(n, f"10.0.0.{i}") for i, n in enumerate(NODES, 1)]
    weak = f("cuda.unknown_error", "n3", Blame.HARDWARE, 45, 89, source=Source.LOGS)
    fs = [*addresses, ib_error("n1", "10.0.0.3"), ib_error("n2", "10.0.0.3"), weak]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    assert any(e.signal == "nccl.peer_blamed" and e.node in ("n1", "n2") for e in v.evidence)


def test_peer_blame_alone_names_nobody() -> None:
    addresses = [bootstrap(n, f"10.0.0.{i}") for i, n in enumerate(NODES, 1)]
    fs = [*addresses, ib_error("n1", "10.0.0.3"), ib_error("n3", "10.0.0.1")]
    v = attribute(job(), fs, [], RULES)
    assert v.suspect_nodes == ()


def gloo_closed(node: str, peer: str, minutes: float = 90) -> Finding:
    return f(
        "gloo.peer_closed",
        node,
        Blame.SYMPTOM,
        30,
        minutes,
        source=Source.LOGS,
        details=(("peer", peer),),
    )


def test_gloo_cascade_alone_is_transient_like_a_collective_timeout() -> None:
    fs = [
        gloo_closed("n1", "10.0.0.3"),
        gloo_closed("n2", "10.0.0.3"),
        f("torch.signal_received", "n3", Blame.INFO, 0, 90, source=Source.LOGS),
    ]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)


def test_gloo_peer_named_by_host_adds_to_its_own_weak_evidence() -> None:
    weak = f("cuda.unknown_error", "n3", Blame.HARDWARE, 45, 89, source=Source.LOGS)
    fs = [gloo_closed("n1", "n3"), gloo_closed("n2", "n3"), weak]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_gloo_peer_named_by_bootstrap_address_alone_names_nobody() -> None:
    addresses = [bootstrap(n, f"10.0.0.{i}") for i, n in enumerate(NODES, 1)]
    fs = [*addresses, gloo_closed("n1", "10.0.0.3"), gloo_closed("n2", "10.0.0.3")]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


def test_rendezvous_timeout_alone_is_transient() -> None:
    fs = [f("elastic.rendezvous_failed", "n1", Blame.TRANSIENT, 50, 5, source=Source.LOGS)]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.action) == (Cause.TRANSIENT, Action.REQUEUE)


def test_gloo_symptoms_do_not_hide_the_applications_own_error() -> None:
    app = f("python.exception", "n2", Blame.APPLICATION, 50, 80, source=Source.LOGS)
    fs = [app, gloo_closed("n1", "n2"), gloo_closed("n3", "n2")]
    v = attribute(job(), fs, [], RULES)
    assert v.cause is Cause.APPLICATION


def test_one_hardware_signal_on_every_node_at_once_isolates_no_node() -> None:
    # An IB port error on every node of the job is the fabric (or the driver), not four bad
    # hosts: retry without excluding any (a false isolation of the whole job otherwise).
    port = [f("nccl.ib_async_port_error", n, Blame.HARDWARE, 70, 119.5) for n in NODES]
    v = attribute(job(), [*port, *(timeout(n, 119.8) for n in NODES)], [], RULES)
    assert v.cause is Cause.TRANSIENT and v.suspect_nodes == () and v.action is Action.REQUEUE
    assert "on every node of the job at once" in v.summary


def test_the_same_signal_on_some_nodes_still_names_them() -> None:
    port = [f("nccl.ib_async_port_error", n, Blame.HARDWARE, 70, 119.5) for n in ("n1", "n2")]
    v = attribute(job(), [*port, *(timeout(n, 119.8) for n in NODES)], [], RULES)
    assert v.cause is Cause.HARDWARE and v.suspect_nodes == ("n1", "n2")


def test_different_hardware_signals_on_every_node_are_still_hardware() -> None:
    found = [
        f("kernel.xid79", "n1", Blame.HARDWARE, 95, 119.5),
        *(f("nccl.ib_async_port_error", n, Blame.HARDWARE, 70, 119.5) for n in NODES[1:]),
    ]
    v = attribute(job(), found, [], RULES)
    assert v.cause is Cause.HARDWARE and set(v.suspect_nodes) == set(NODES)


# --- The shape of the evidence (issue 14, item 2) ---------------------------------------------


def system(node: str, last_minutes: float | None, present: bool = True) -> Activity:
    """A node's system log: present or not, and when its last line was written."""
    at = None if last_minutes is None else T0 + timedelta(minutes=last_minutes)
    return Activity(node=node, source=Source.SYSTEM, present=present, lines=50, last_at=at)


def output(node: str, last_minutes: float, present: bool = True) -> Activity:
    at = T0 + timedelta(minutes=last_minutes)
    return Activity(node=node, source=Source.LOGS, present=present, lines=50, last_at=at)


def cascade_without(node: str, minutes: float = 100) -> list[Finding]:
    """Every node but `node` times out in a collective; `node` only says it got a signal."""
    fs = [timeout(n, minutes) for n in NODES if n != node]
    fs.append(f("torch.signal", node, Blame.SYMPTOM, 5, minutes - 1, source=Source.LOGS))
    return fs


def healthy_activity(end: float = 125) -> list[Activity]:
    return [*(system(n, end) for n in NODES), *(output(n, 119) for n in NODES)]


def test_only_the_heartbeat_monitor_saying_the_watchdog_hung_is_unknown() -> None:
    """The watchdog itself stuck in a NCCL/CUDA call is a hang below the collectives: nothing
    says whether a GPU, its driver or the job's own threads hung (unknown, a bounded retry);
    beside a collective timeout, or with a process killed, it stays the cascade it was."""
    stuck = [
        f("nccl.heartbeat_monitor", n, Blame.SYMPTOM, 30, 100, source=Source.LOGS) for n in NODES
    ]
    v = attribute(job(), stuck, healthy_activity(), RULES)
    assert (v.cause, v.action) == (Cause.UNKNOWN, Action.REQUEUE)
    assert v.summary.startswith("only the heartbeat monitor's word")
    v = attribute(job(), [*stuck, timeout("n2", 90)], healthy_activity(), RULES)
    assert v.cause is Cause.TRANSIENT
    killed = f(
        "torch.signal",
        "n2",
        Blame.SYMPTOM,
        5,
        99,
        source=Source.LOGS,
        details=(("signal", "SIGKILL"),),
    )
    assert attribute(job(), [*stuck, killed], healthy_activity(), RULES).cause is Cause.TRANSIENT


def test_the_node_missing_from_a_cascade_alone_is_no_suspect() -> None:
    v = attribute(job(), cascade_without("n3"), healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)
    # Its job output missing is the same fact (it printed nothing), not a second one.
    acts = [*(a for a in healthy_activity() if a.node != "n3" or a.source is Source.SYSTEM)]
    acts.append(output("n3", 0, present=False))
    assert attribute(job(), cascade_without("n3"), acts, RULES).suspect_nodes == ()


def test_the_node_missing_from_a_cascade_with_a_weak_hardware_line_is_the_suspect() -> None:
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    v = attribute(job(), [*cascade_without("n3"), weak], healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    assert any(e.signal == "node.stopped_first" and e.node == "n3" for e in v.evidence)
    # The same weak line on a node that complained like the others names nobody.
    other = f("pcie.aer_nonfatal", "n2", Blame.HARDWARE, 40, 98)
    assert attribute(job(), [*cascade_without("n3"), other], [], RULES).suspect_nodes == ()


def test_the_node_missing_from_a_cascade_whose_gpu_alone_failed_a_kernel_is_the_suspect() -> None:
    # pytorch/pytorch#40420's shape: one rank's cuDNN kernel failed to run, the others only lost
    # their partner. A device error no other node printed, on the node missing from the cascade.
    failed = f("cuda.library_execution_failed", "n3", Blame.SYMPTOM, 15, 99, source=Source.LOGS)
    v = attribute(job(), [*cascade_without("n3"), failed], healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    assert "its GPU reported an error no other node did" in v.summary
    # The same error on two nodes is no one node's GPU; on a node that complained, no pointer.
    twice = f("cuda.library_execution_failed", "n1", Blame.SYMPTOM, 15, 99, source=Source.LOGS)
    assert attribute(job(), [*cascade_without("n3"), failed, twice], [], RULES).suspect_nodes == ()
    other = f("cuda.library_execution_failed", "n2", Blame.SYMPTOM, 15, 99, source=Source.LOGS)
    assert attribute(job(), [*cascade_without("n3"), other], [], RULES).suspect_nodes == ()


def test_the_node_missing_from_a_cascade_when_the_scheduler_says_a_node_failed() -> None:
    v = attribute(job(state="NODE_FAIL"), cascade_without("n3"), healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    assert "the scheduler says a node failed (NODE_FAIL)" in v.summary


def test_the_node_missing_from_a_cascade_whose_host_went_silent() -> None:
    acts = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", 90)]
    v = attribute(job(), cascade_without("n3"), acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    missing = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", None, present=False)]
    v = attribute(job(), cascade_without("n3"), missing, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_a_missing_node_that_printed_its_own_error_is_never_named() -> None:
    # n3 raised the application's own error: the software, not the node (even with NODE_FAIL).
    app = f("python.exception", "n3", Blame.APPLICATION, 50, 95, source=Source.LOGS)
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    v = attribute(job(state="NODE_FAIL"), [*cascade_without("n3"), app, weak], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_a_lifecycle_event_explains_the_silent_host() -> None:
    acts = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", 90)]
    notice = f("k8s.node_shutdown", "n3", Blame.TRANSIENT, 70, 89)
    v = attribute(job(state="NODE_FAIL"), [*cascade_without("n3"), notice], acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
    v = attribute(job(state="PREEMPTED"), cascade_without("n3"), acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


def test_silence_with_the_peers_naming_the_host_names_it() -> None:
    addresses = [bootstrap(n, f"10.0.0.{i}") for i, n in enumerate(NODES, 1)]
    acts = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", 90)]
    fs = [*addresses, gloo_closed("n1", "10.0.0.3"), gloo_closed("n2", "10.0.0.3")]
    v = attribute(job(), fs, acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    # The same errors with every host's log going on: a process died, not its host.
    assert attribute(job(), fs, healthy_activity(), RULES).suspect_nodes == ()


def test_silence_alone_names_nobody() -> None:
    acts = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", 90)]
    v = attribute(job(), [timeout(n, 100) for n in NODES], acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


def test_silence_with_a_node_failure_names_the_silent_host() -> None:
    fs = [timeout(n, 100) for n in NODES]
    acts = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", 90)]
    v = attribute(job(state="NODE_FAIL"), fs, acts, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    # Every host's log ends at the same time (the bundle's window), or the early one has only
    # seconds-since-boot stamps, or it went on past the job's end: nobody went silent.
    same = [system(n, 90) for n in NODES]
    assert attribute(job(state="NODE_FAIL"), fs, same, RULES).suspect_nodes == ()
    untimed = [*(system(n, 125) for n in NODES if n != "n3"), system("n3", None)]
    assert attribute(job(state="NODE_FAIL"), fs, untimed, RULES).suspect_nodes == ()
    after = [*(system(n, 140) for n in NODES if n != "n3"), system("n3", 121)]
    assert attribute(job(state="NODE_FAIL"), fs, after, RULES).suspect_nodes == ()


def test_two_candidates_are_no_answer() -> None:
    acts = [*(system(n, 125) for n in ("n1", "n2")), system("n3", 90), system("n4", 90)]
    fs = [timeout("n1", 100), timeout("n2", 100)]
    v = attribute(job(state="NODE_FAIL"), fs, acts, RULES)
    assert v.suspect_nodes == ()


def test_a_network_family_error_on_every_host_is_the_fabric() -> None:
    # Different keys, one family: adapter port errors on every host at once.
    fs = [
        f("nccl.ib_async_port_error", "n1", Blame.HARDWARE, 70, 119.5),
        f("nccl.ib_async_port_error", "n2", Blame.HARDWARE, 70, 119.5),
        f("ib.port_event", "n3", Blame.HARDWARE, 60, 119.4),
        f("ib.link_down", "n4", Blame.HARDWARE, 85, 119.4),
        *(timeout(n, 119.8) for n in NODES),
    ]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)
    assert "network" in v.summary
    # On one host it is that host's adapter.
    one = [fs[3], *(timeout(n, 119.8) for n in NODES)]
    assert attribute(job(), one, [], RULES).suspect_nodes == ("n4",)


def test_a_shared_family_does_not_hide_one_nodes_own_fault() -> None:
    port = [f("nccl.ib_async_port_error", n, Blame.HARDWARE, 70, 119.5) for n in NODES]
    xid = f("xid.79", "n3", Blame.HARDWARE, 100, 119.0)
    v = attribute(job(), [*port, xid, *(timeout(n, 119.8) for n in NODES)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_a_storage_error_on_every_node_is_the_shared_filesystem() -> None:
    every = [f("fs.io_error", n, Blame.HARDWARE, 70, 100) for n in NODES]
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
    local = f("disk.io_error", "n2", Blame.HARDWARE, 70, 100)
    assert attribute(job(), [local], [], RULES).suspect_nodes == ("n2",)


def test_a_device_error_from_every_rank_is_the_applications_use_of_the_gpu() -> None:
    every = [f("cuda.device_error", n, Blame.HARDWARE, 70, 100, source=Source.LOGS) for n in NODES]
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    # From the kernel on every node at once it is the driver or the platform: retry.
    kernel = [f("xid.79", n, Blame.HARDWARE, 100, 100) for n in NODES]
    assert attribute(job(), kernel, [], RULES).cause is Cause.TRANSIENT


def test_a_bare_exception_after_its_nodes_own_timeout_is_that_timeouts_traceback() -> None:
    late = f("python.exception", "n2", Blame.APPLICATION, 50, 100.5, source=Source.LOGS, line=9)
    v = attribute(job(), [*(timeout(n, 100) for n in NODES), late], [], RULES)
    assert v.cause is Cause.TRANSIENT
    early = f("python.exception", "n2", Blame.APPLICATION, 50, 99, source=Source.LOGS)
    assert attribute(job(), [*(timeout(n, 100) for n in NODES), early], [], RULES).cause is (
        Cause.APPLICATION
    )
    # A strong application error is the application's wherever it stands.
    oom = f("cuda.oom", "n2", Blame.APPLICATION, 80, 100.5, source=Source.LOGS, line=9)
    assert attribute(job(), [*(timeout(n, 100) for n in NODES), oom], [], RULES).cause is (
        Cause.APPLICATION
    )


def test_one_ranks_lost_peer_does_not_carry_another_ranks_exception() -> None:
    # Both lines say which rank printed them: rank 5's timeout is not rank 6's traceback,
    # however the node's output interleaves them.
    peers = [timeout(n, 100) for n in NODES if n != "n2"]
    mine = f("nccl.watchdog_timeout", "n2", Blame.SYMPTOM, 30, 100, source=Source.LOGS, rank=5)
    other = f("python.exception", "n2", Blame.APPLICATION, 50, 100.5, source=Source.LOGS,
              line=9, rank=6)  # fmt: skip
    assert attribute(job(), [*peers, mine, other], [], RULES).cause is Cause.APPLICATION
    # The same rank's exception after its own timeout is still that timeout's traceback.
    same = replace(other, rank=5)
    assert attribute(job(), [*peers, mine, same], [], RULES).cause is Cause.TRANSIENT
    # A line that does not say its rank may be anyone's: still read as the traceback.
    assert attribute(job(), [*peers, mine, replace(other, rank=None)], [], RULES).cause is (
        Cause.TRANSIENT
    )


def test_a_weak_application_error_just_before_the_flood_explains_it() -> None:
    xid13 = f("xid.13", "n2", Blame.APPLICATION, 40, 98)
    v = attribute(job(), [*(timeout(n, 100) for n in NODES), xid13], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    long_before = f("xid.13", "n2", Blame.APPLICATION, 40, 60)
    v = attribute(job(), [*(timeout(n, 100) for n in NODES), long_before], [], RULES)
    assert v.cause is Cause.TRANSIENT
    # Something else went wrong first: the weak error explains nothing.
    first = f("nccl.unhandled_system_error", "n1", Blame.TRANSIENT, 50, 97, source=Source.LOGS)
    v = attribute(job(), [*(timeout(n, 100) for n in NODES), xid13, first], [], RULES)
    assert v.cause is Cause.TRANSIENT


def test_without_times_a_weak_application_error_before_its_files_flood_explains_it() -> None:
    # a log pasted without its stamps: the order within each file is what is left of "first"
    def untimed(signal: str, node: str, blame: Blame, weight: int, line: int) -> Finding:
        found = f(signal, node, blame, weight, 0, source=Source.LOGS, line=line)
        return replace(found, at=None)

    flood = [untimed("nccl.watchdog_timeout", n, Blame.SYMPTOM, 30, 20) for n in NODES]
    weak = [untimed("nvshmem.qp_connect_failed", n, Blame.APPLICATION, 40, 10) for n in NODES]
    v = attribute(job(), [*flood, *weak], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    # after its file's first symptom it is the symptom's echo, not its cause
    late = [replace(w, line=30) for w in weak]
    assert attribute(job(), [*flood, *late], [], RULES).cause is not Cause.APPLICATION
    # a transient line before it in its file explains the flood first
    first = untimed("nccl.unhandled_system_error", "n1", Blame.TRANSIENT, 50, 5)
    v = attribute(job(), [*flood, weak[0], first], [], RULES)
    assert v.cause is not Cause.APPLICATION


def test_the_same_weak_application_error_on_several_nodes_is_the_jobs() -> None:
    """A weak application error alone names no cause on one node (it may be that node's); the
    same one on several nodes is a code path or a setting they all took."""

    def init(node: str) -> Finding:
        return f("ompi.init_failed", node, Blame.APPLICATION, 40, 3, source=Source.LOGS)

    v = attribute(job(), [init("n1"), init("n2")], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    assert v.summary.startswith("the same application error (ompi.init_failed, weak alone) on 2")
    assert {e.node for e in v.evidence[:2]} == {"n1", "n2"}
    assert attribute(job(), [init("n1")], [], RULES).cause is Cause.UNKNOWN
    # a weak line of another cause beside them: nothing decides
    port = f("nic.ib_port_down", "n3", Blame.HARDWARE, 45, 2)
    assert attribute(job(), [init("n1"), init("n2"), port], [], RULES).cause is Cause.UNKNOWN
    # two different weak errors, one per node: no one code path
    other = f("nccl.ring_mismatch", "n2", Blame.APPLICATION, 40, 3, source=Source.LOGS)
    assert attribute(job(), [init("n1"), other], [], RULES).cause is Cause.UNKNOWN


def test_the_same_weak_transient_error_on_several_nodes_is_outside_them() -> None:
    """A resolver failing on one node may be that node's; the same failure on several is the
    service or the network they all reached: retry, naming nobody."""

    def resolve(node: str) -> Finding:
        return f("gonet.resolver_failed", node, Blame.TRANSIENT, 45, 3, source=Source.LOGS)

    v = attribute(job(), [resolve("n1"), resolve("n3")], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)
    assert v.summary.startswith("the same transient error (gonet.resolver_failed, weak alone)")
    assert attribute(job(), [resolve("n1")], [], RULES).cause is Cause.UNKNOWN
    weak_app = f("ompi.init_failed", "n2", Blame.APPLICATION, 40, 3, source=Source.LOGS)
    fs = [resolve("n1"), resolve("n3"), weak_app]
    assert attribute(job(), fs, [], RULES).cause is Cause.UNKNOWN


def test_the_summary_names_the_first_application_error() -> None:
    fs = [
        f("python.exception", "n4", Blame.APPLICATION, 50, 90, source=Source.LOGS),
        f("cuda.oom", "n1", Blame.APPLICATION, 80, 95, source=Source.LOGS),
    ]
    v = attribute(job(), fs, [], RULES)
    assert v.cause is Cause.APPLICATION and "first on n4" in v.summary


def test_a_retry_on_symptoms_says_which_weak_lines_it_set_aside() -> None:
    """A cascade retried as transient still shows the weaker line of a cause it weighed (a
    port error below naming), after the lines it rests on: the first evidence line, which the
    job's history compares across attempts, stays the cascade's."""
    flap = f("nccl.ib_async_port_error_nonfatal", "n2", Blame.HARDWARE, 35, 90, source=Source.LOGS)
    v = attribute(job(), [*cascade_without("n4"), flap], healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
    assert v.summary.endswith(
        "(weighed and set aside, too weak alone: nccl.ib_async_port_error_nonfatal on n2 "
        "(hardware 35))"
    )
    assert v.evidence[0].signal != flap.signal
    assert v.evidence[-1].signal == flap.signal
    # without it, the same cascade says nothing was set aside
    plain = attribute(job(), cascade_without("n4"), healthy_activity(), RULES)
    assert "set aside" not in plain.summary
    assert [e.signal for e in v.evidence[:-1]] == [e.signal for e in plain.evidence][
        : len(v.evidence) - 1
    ]


def test_thin_evidence_stays_unknown() -> None:
    assert attribute(job(), [], [], RULES).cause is Cause.UNKNOWN
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    v = attribute(job(), [weak], healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ())


def test_an_unknown_says_which_weak_signals_it_set_aside() -> None:
    """Below its threshold a signal decides nothing, but the verdict names it, strongest first,
    so that a person sees what was weighed: not 'no signal' when there was one."""
    weak = [
        f("cuda.unknown_error", "n2", Blame.HARDWARE, 45, 98, source=Source.LOGS),
        f("cuda.unknown_error", "n2", Blame.HARDWARE, 45, 99, source=Source.LOGS, line=7),
        f("awssdk.curl_transfer_failed", "n1", Blame.TRANSIENT, 45, 97, source=Source.LOGS),
    ]
    v = attribute(job(), weak, healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes, v.strength) == (Cause.UNKNOWN, (), 0)
    assert v.summary.startswith(
        "no signal strong enough to decide: awssdk.curl_transfer_failed on n1 (transient 45), "
        "cuda.unknown_error on n2 (hardware 45); a node is named at hardware 60"
    )
    assert {e.signal for e in v.evidence} >= {"cuda.unknown_error", "awssdk.curl_transfer_failed"}
    assert attribute(job(), [], [], RULES).summary == "no recognised failure signal in the window"
    # a symptom or an info line is not a weak cause
    noise = [f("process.terminated", "n1", Blame.SYMPTOM, 5, 98, source=Source.LOGS)]
    quiet = attribute(job(), noise, healthy_activity(), RULES)
    assert "strong enough" not in quiet.summary
    # ... but the unknown says which lines it read, and that they name no cause
    assert quiet.cause is Cause.UNKNOWN
    assert quiet.summary == (
        "no cause recognised: only symptoms, which report a failure without saying what "
        "failed: process.terminated on n1 (symptom 5)"
    )


# --- The job's history ------------------------------------------------------------------------


def crash(node: str, minutes: float = 100) -> Finding:
    return f("process.crashed", node, Blame.SYMPTOM, 45, minutes, source=Source.LOGS)


def progress(step: int) -> list[Activity]:
    return [
        Activity(node=n, source=Source.LOGS, present=True, lines=9, last_step=step) for n in NODES
    ]


def test_every_node_crashing_with_nothing_else_failing_is_the_jobs_code_path() -> None:
    """Late in a run (no "before any progress" rule applies): every node's processes crash and
    no other line fails. A node's fault crashes that node alone, and a peer's death makes the
    others complain (collective timeouts, lost peers), not crash."""
    everywhere = [crash(n, 100 + i / 10) for i, n in enumerate(NODES)]
    v = attribute(job(), everywhere, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    assert "every node's processes crashed and nothing else failed" in v.summary
    assert attribute(job(), everywhere[:3], [], RULES).cause is Cause.UNKNOWN  # one node left
    cascade = [*everywhere, timeout("n4", 99)]  # a collective complained: not this rule's
    assert attribute(job(), cascade, [], RULES).cause is not Cause.APPLICATION
    weak_hw = [*everywhere, f("cuda.launch_timeout", "n3", Blame.HARDWARE, 45, 99.5)]
    assert attribute(job(), weak_hw, [], RULES).cause is not Cause.APPLICATION  # a node's hint
    killed = job(exit_codes=(("n1", 137),))  # a process was killed: not a clean code path
    assert attribute(killed, everywhere, [], RULES).cause is not Cause.APPLICATION
    aborted = [replace(c, details=(("signal", "SIGABRT"),)) for c in everywhere]
    assert attribute(job(), aborted, [], RULES).cause is Cause.UNKNOWN  # aborts say elsewhere


def test_a_run_that_reached_its_last_step_and_then_ran_out_of_time_is_the_jobs() -> None:
    """Megatron printed `iteration 50/ 50`, then nothing until Slurm's time limit: the time
    went to what comes after training (teardown, a final save), which will hang again."""
    limit = f("slurm.time_limit", "n1", Blame.TRANSIENT, 80, 110, source=Source.LOGS)
    done = [Activity(node=n, source=Source.LOGS, present=True, last_step=50, last_of_run=50)
            for n in NODES]  # fmt: skip
    v = attribute(job(state="TIMEOUT"), [limit], done, RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v
    assert "reached its last step (50 of 50) and then ran out of its time" in v.summary
    going = [replace(a, last_step=49, last_of_run=None) for a in done]  # still training
    again = [replace(a, last_step=3) for a in done]  # the counter started again: an epoch's
    assert attribute(job(state="TIMEOUT"), [limit], again, RULES).cause is Cause.TRANSIENT
    assert attribute(job(state="TIMEOUT"), [limit], going, RULES).cause is Cause.TRANSIENT
    preempted = f("slurm.preempted", "n1", Blame.TRANSIENT, 80, 110, source=Source.LOGS)
    both = attribute(job(), [limit, preempted], done, RULES)  # a preemption is the scheduler's
    assert both.cause is Cause.TRANSIENT


def test_the_same_unexplained_crash_again_is_the_application() -> None:
    alone = attribute(job(), [crash("n2")], [], RULES)
    assert alone.cause is Cause.UNKNOWN
    before = (Attempt(Cause.UNKNOWN, "process.crashed", "n1"),)
    v = attribute(job(), [crash("n2")], [], RULES, before)
    assert (v.cause, v.action) == (Cause.APPLICATION, Action.STOP)
    assert "attempt 1" in v.summary
    other = (Attempt(Cause.UNKNOWN, "cuda.oom", "n1"),)
    assert attribute(job(), [crash("n2")], [], RULES, other).cause is Cause.UNKNOWN


def test_the_same_step_failing_the_same_way_again_is_the_job() -> None:
    fs = [timeout(n, 100) for n in NODES]
    same = (Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n1", step=1200),)
    v = attribute(job(), fs, progress(1200), RULES, same)
    assert v.cause is Cause.APPLICATION and "step 1200" in v.summary
    later = (Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n1", step=800),)
    assert attribute(job(), fs, progress(1200), RULES, later).cause is Cause.TRANSIENT
    # Without steps a repeated collective timeout is just a repeated transient failure.
    assert attribute(job(), fs, [], RULES, later).cause is Cause.TRANSIENT


def test_a_transient_failure_moving_from_node_to_node_points_at_the_job() -> None:
    fs = cascade_without("n4")  # it started on n4 this time
    moved = (
        Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n1"),
        Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n2"),
    )
    v = attribute(job(), fs, [], RULES, moved)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())
    assert "n1, n2, n4" in v.summary
    assert attribute(job(), fs, [], RULES, moved[:1]).cause is Cause.TRANSIENT
    stuck = (moved[0], Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n1"))
    assert attribute(job(), fs, [], RULES, stuck).cause is Cause.TRANSIENT
    # Every node complained: where it started is unknown (the first to complain is chance).
    everyone = [timeout("n4", 99), *(timeout(n, 100) for n in NODES[:3])]
    assert attribute(job(), everyone, [], RULES, moved).cause is Cause.TRANSIENT
    # A decisive transient line says where it started.
    system_error = [
        f("nccl.unhandled_system_error", n, Blame.TRANSIENT, 50, 100, source=Source.LOGS)
        for n in ("n3",)
    ]
    unhandled = tuple(
        Attempt(Cause.TRANSIENT, "nccl.unhandled_system_error", n) for n in ("n1", "n2")
    )
    assert attribute(job(), system_error, [], RULES, unhandled).cause is Cause.APPLICATION
    # The same decisive line on every node: which printed it first is chance, not where it began.
    everywhere = [
        f("nccl.unhandled_system_error", n, Blame.TRANSIENT, 50, 100, source=Source.LOGS)
        for n in NODES
    ]
    elsewhere = tuple(
        Attempt(Cause.TRANSIENT, "nccl.unhandled_system_error", n) for n in ("n3", "n4")
    )
    assert attribute(job(), everywhere, [], RULES, elsewhere).cause is Cause.TRANSIENT


def test_history_never_names_a_node_nor_overrides_hardware_or_the_scheduler() -> None:
    hw = [f("xid.79", "n3", Blame.HARDWARE, 100, 60)]
    before = (Attempt(Cause.HARDWARE, "xid.79", "n3", suspect_nodes=("n3",)),)
    assert attribute(job(), hw, [], RULES, before).suspect_nodes == ("n3",)
    preempted = (Attempt(Cause.TRANSIENT, "slurm.preempted", "n1", step=5),)
    v = attribute(job(state="PREEMPTED"), [], progress(5), RULES, preempted)
    assert v.cause is Cause.TRANSIENT
    # The same word in the job's output (slurmstepd's line, a cloud's reclaim notice): the
    # attempt resumed at step 5 and was preempted again before its next step.
    for key in ("slurm.preempted", "cloud.aws_spot_interruption"):
        line = [f(key, "n1", Blame.TRANSIENT, 90, 100, source=Source.LOGS)]
        again = (Attempt(Cause.TRANSIENT, key, "n1", step=5),)
        assert attribute(job(), line, progress(5), RULES, again).cause is Cause.TRANSIENT, key


def test_the_outside_decisions_history_ignores_are_the_schedulers_transient_states() -> None:
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.final_states import STATE_SIGNALS
    from autorecover.domain.history import OUTSIDE_DECISIONS

    transient = {k for k, blame, _ in STATE_SIGNALS.values() if blame is Blame.TRANSIENT}
    assert transient <= OUTSIDE_DECISIONS
    catalog = builtin_catalog()
    for key in OUTSIDE_DECISIONS - transient:  # the other schedulers' lines: transient ones
        assert catalog.signatures[key].blame is Blame.TRANSIENT, key


def test_history_is_parsed_strictly() -> None:
    raw = [{"cause": "transient", "signal": "nccl.watchdog_timeout", "node": "n1", "step": 7}]
    assert parse_history(raw) == (Attempt(Cause.TRANSIENT, "nccl.watchdog_timeout", "n1", 7),)
    assert parse_history(None) == ()
    for bad, field in (
        ({"cause": "flaky"}, "history[0].cause"),
        ({"cause": "unknown", "step": "7"}, "history[0].step"),
        ({"cause": "unknown", "color": 1}, "history[0].color"),
        ({"cause": "unknown", "suspect_nodes": "n1"}, "history[0].suspect_nodes"),
    ):
        with pytest.raises(ValueError, match=re.escape(field)):
            parse_history([bad])
    with pytest.raises(ValueError, match="must be a list"):
        parse_history({"cause": "unknown"})


def test_an_application_error_anywhere_keeps_the_shape_rules_quiet() -> None:
    # An OOM just before the cascade explains it; n3's weak line does not make n3 a suspect.
    oom = f("cuda.oom", "n1", Blame.APPLICATION, 80, 99.5, source=Source.LOGS)
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    v = attribute(job(state="NODE_FAIL"), [*cascade_without("n3"), oom, weak], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_the_shape_adds_no_second_suspect_beside_strong_evidence() -> None:
    xid = f("xid.79", "n2", Blame.HARDWARE, 100, 99)
    v = attribute(job(state="NODE_FAIL"), [*cascade_without("n3"), xid], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))


def test_silence_needs_the_other_hosts_alive_at_the_end() -> None:
    fs = [timeout(n, 100) for n in NODES]
    early = [*(system(n, 100) for n in NODES if n != "n3"), system("n3", 90)]
    assert attribute(job(state="NODE_FAIL"), fs, early, RULES).suspect_nodes == ()


def test_two_different_device_faults_on_a_two_node_job_are_two_faults() -> None:
    pair = job(nodes=("a", "b"))
    fs = [f("xid.79", "a", Blame.HARDWARE, 100, 100), f("xid.48", "b", Blame.HARDWARE, 95, 100)]
    v = attribute(pair, fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("a", "b"))
    # Two different adapter errors on both hosts are the fabric between them.
    net = [
        f("ib.link_down", "a", Blame.HARDWARE, 85, 100),
        f("nic.mlx5_fatal", "b", Blame.HARDWARE, 85, 100),
    ]
    assert attribute(pair, net, [], RULES).suspect_nodes == ()


def test_a_node_still_training_when_the_others_time_out_is_not_where_it_stopped() -> None:
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    still = [*healthy_activity(), activity("n3", 110)]  # progress at minute 110 > timeouts at 100
    v = attribute(job(), [*cascade_without("n3"), weak], still, RULES)
    assert v.suspect_nodes == ()
    stopped = [*healthy_activity(), activity("n3", 95)]
    assert attribute(job(), [*cascade_without("n3"), weak], stopped, RULES).suspect_nodes == ("n3",)


def test_derived_symptoms_are_no_complaint() -> None:
    # A derived line (line 0, e.g. a rank's place in hang stacks) is not a timeout n3 printed:
    # n3 is still the node missing from the cascade.
    derived = f("hang.stack_outlier", "n3", Blame.SYMPTOM, 45, 99, source=Source.LOGS, line=0)
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 98)
    v = attribute(job(), [*cascade_without("n3"), derived, weak], healthy_activity(), RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


def test_what_one_node_shows_beyond_a_shared_family_is_its_own() -> None:
    # Every host logs a port event (the fabric reacting); one host's link went down.
    events = [f("ib.port_event", n, Blame.HARDWARE, 60, 100) for n in NODES]
    down = f("ib.link_down", "n2", Blame.HARDWARE, 85, 99.9)
    v = attribute(job(), [*events, down, *(timeout(n, 101) for n in NODES)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",))
    # Links down on most hosts is the fabric again.
    most = [f("ib.link_down", n, Blame.HARDWARE, 85, 99.9) for n in ("n1", "n2", "n3")]
    v = attribute(job(), [*events, *most], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


# --- hang stacks (domain/hangs.py): the rank outside the others' collective ----------------


def _outlier(node: str, rank: int, minutes: float = 100) -> Finding:
    return f("hang.stack_outlier", node, Blame.SYMPTOM, 45, minutes, source=Source.LOGS,
             line=0, rank=rank, details=(("where", "next_batch (job/data.py:44)"),),
             text=f"hang stacks: rank {rank} on {node} is in next_batch")  # fmt: skip


def _timeouts(minutes: float = 110) -> list[Finding]:
    return [f("nccl.watchdog_timeout", n, Blame.SYMPTOM, 30, minutes, source=Source.LOGS)
            for n in NODES]  # fmt: skip


def test_a_stack_outlier_with_a_hardware_line_of_its_own_names_its_node() -> None:
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 95)
    v = attribute(job(), [*_timeouts(), _outlier("n3", 5), weak], [], RULES)
    assert v.cause is Cause.HARDWARE and v.suspect_nodes == ("n3",)
    assert "hang.stack_outlier" in [e.signal for e in v.evidence]


def test_a_stack_outlier_alone_names_nobody_but_is_the_evidence() -> None:
    v = attribute(job(), [*_timeouts(), _outlier("n3", 5)], [], RULES)
    assert v.cause is Cause.TRANSIENT and v.suspect_nodes == ()
    assert v.evidence[0].signal == "hang.stack_outlier"
    assert "rank 5 on n3" in v.summary


def test_a_stack_outlier_never_outweighs_an_application_error() -> None:
    err = f("python.exception", "n1", Blame.APPLICATION, 60, 99, source=Source.LOGS)
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 95)
    v = attribute(job(), [*_timeouts(), _outlier("n3", 5), weak, err], [], RULES)
    assert v.cause is Cause.APPLICATION and v.suspect_nodes == ()


def _fr_outlier(node: str, rank: int, minutes: float = 100) -> Finding:
    where = "never entered collective #12 (nccl:all_reduce) of group 0"
    return f("hang.collective_outlier", node, Blame.SYMPTOM, 45, minutes, source=Source.LOGS,
             line=0, rank=rank, details=(("where", where),),
             text=f"flight recorder: rank {rank} on {node} {where}")  # fmt: skip


def test_a_flight_recorder_outlier_alone_names_nobody_but_is_the_evidence() -> None:
    v = attribute(job(), [*_timeouts(), _fr_outlier("n3", 5)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
    assert v.evidence[0].signal == "hang.collective_outlier"
    assert "the flight recorder singles out rank 5 on n3 (never entered collective #12" in (
        v.summary
    )


def test_a_flight_recorder_outlier_with_a_hardware_line_of_its_own_names_its_node() -> None:
    weak = f("pcie.aer_nonfatal", "n3", Blame.HARDWARE, 40, 95)
    v = attribute(job(), [*_timeouts(), _fr_outlier("n3", 5), weak], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))
    assert "hang.collective_outlier" in [e.signal for e in v.evidence]


def test_both_views_are_named_in_the_summary() -> None:
    v = attribute(job(), [*_timeouts(), _outlier("n3", 5), _fr_outlier("n3", 5)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
    assert "the hang stacks single out rank 5 on n3" in v.summary
    assert "the flight recorder singles out rank 5 on n3" in v.summary


def test_outliers_on_most_nodes_name_nobody() -> None:
    weak = [f("pcie.aer_nonfatal", n, Blame.HARDWARE, 40, 95) for n in ("n2", "n3")]
    outliers = [_outlier("n2", 3), _outlier("n3", 5)]
    v = attribute(job(), [*_timeouts(), *outliers, *weak], [], RULES)
    assert v.suspect_nodes == ()


def test_a_line_ray_forwarded_from_another_node_belongs_to_that_node() -> None:
    """The driver on n1 prints a worker's ECC error with `(Worker pid=N, ip=A)`; n3 announced A
    in Ray's banner. n3 is the suspect; the driver's own re-raise of it is a restatement."""
    banner = f("ray.node_ip", "n3", Blame.INFO, 0, 0, source=Source.LOGS,
               details=(("address", "10.0.0.3"),))  # fmt: skip
    forwarded = f("cuda.ecc_uncorrectable", "n1", Blame.HARDWARE, 90, 100, source=Source.LOGS,
                  line=35, details=(("via", "10.0.0.3"),))  # fmt: skip
    reraised = f("cuda.ecc_uncorrectable", "n1", Blame.HARDWARE, 90, 100, source=Source.LOGS,
                 line=39)  # fmt: skip
    v = attribute(job(), [banner, forwarded, reraised], [], RULES)
    assert v.cause is Cause.HARDWARE and v.suspect_nodes == ("n3",)
    assert (v.evidence[0].node, v.evidence[0].line) == ("n1", 35)  # the file that holds it
    unknown_address = f("cuda.ecc_uncorrectable", "n1", Blame.HARDWARE, 90, 100,
                        source=Source.LOGS, details=(("via", "10.9.9.9"),))  # fmt: skip
    assert attribute(job(), [banner, unknown_address], [], RULES).suspect_nodes == ("n1",)
    # under pdsh the driver's re-raise carries its own node's name: still a restatement
    own = f("cuda.ecc_uncorrectable", "n1", Blame.HARDWARE, 90, 100, source=Source.LOGS,
            line=39, details=(("via", "n1"),))  # fmt: skip
    v = attribute(job(), [banner, forwarded, own], [], RULES)
    assert v.cause is Cause.HARDWARE and v.suspect_nodes == ("n3",)


def test_a_reclaimed_node_is_not_excluded_for_what_others_say_about_it() -> None:
    """The cloud took n2 away (a spot notice); Slurm says it failed: no hardware fault."""
    notice = f("cloud.aws_spot_interruption", "n2", Blame.TRANSIENT, 90, 95)
    failed = f("slurm.node_failure", "n1", Blame.SYMPTOM, 40, 100, source=Source.LOGS,
               text="srun: error: Node failure on n2")  # fmt: skip
    named = [f("node.reported_failed", "n2", Blame.HARDWARE, 70, 100, origin="n1")]
    v = attribute(job(), [notice, failed, *named, *_timeouts(101)], [], RULES)
    assert v.cause is Cause.TRANSIENT and v.suspect_nodes == (), v.summary
    # a hardware line of its own still counts
    xid = f("xid.79", "n2", Blame.HARDWARE, 95, 99)
    v = attribute(job(), [notice, xid, *named, *_timeouts(101)], [], RULES)
    assert v.suspect_nodes == ("n2",)


def test_a_hang_on_shared_storage_names_no_node_that_stopped_first() -> None:
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3))
    acts = [Activity(node=n, source=Source.LOGS, present=True, lines=100,
                     last_at=T0 + timedelta(minutes=60 if n == "n2" else 90),
                     last_progress_at=T0 + timedelta(minutes=60 if n == "n2" else 90))
            for n in NODES]  # fmt: skip
    assert attribute(running, [], acts, RULES).suspect_nodes == ("n2",)
    hung = f("kernel.hung_task", "n4", Blame.SYMPTOM, 30, 88)
    v = attribute(running, [hung], acts, RULES)
    assert v.cause is Cause.TRANSIENT and v.suspect_nodes == (), v.summary


def test_the_same_network_error_on_most_nodes_is_the_fabric() -> None:
    ports = [f("nccl.ib_async_port_error", n, Blame.HARDWARE, 70, 90 + i, source=Source.LOGS)
             for i, n in enumerate(("n1", "n2", "n4"))]  # fmt: skip
    v = attribute(job(), [*ports, *_timeouts(100)], [], RULES)
    assert v.cause is Cause.TRANSIENT and v.suspect_nodes == (), v.summary
    assert "fabric" in v.summary
    # one host's adapter is that host
    v = attribute(job(), [ports[0], *_timeouts(100)], [], RULES)
    assert v.suspect_nodes == ("n1",)


def test_nvrx_exit_93_through_torchruns_report_stops_the_job() -> None:
    """Under torchrun the job's exit code is the agent's 1; the worker's 93 is in its report."""
    report = f("torch.elastic_failure", "n2", Blame.SYMPTOM, 5, 100, source=Source.LOGS,
               details=(("exitcode", "93"),))  # fmt: skip
    v = attribute(job(exit_codes={n: 1 for n in NODES}), [report, *_timeouts(101)], [], RULES)
    assert v.cause is Cause.APPLICATION and v.action is Action.STOP
    other = f("torch.elastic_failure", "n2", Blame.SYMPTOM, 5, 100, source=Source.LOGS,
              details=(("exitcode", "1"),))  # fmt: skip
    assert attribute(job(), [other, *_timeouts(101)], [], RULES).cause is not Cause.APPLICATION


def test_an_either_way_cuda_error_on_every_node_is_the_job() -> None:
    every = [f("cuda.launch_failure", n, Blame.SYMPTOM, 40, 100, source=Source.LOGS) for n in NODES]
    v = attribute(job(), [*every, *_timeouts(101)], [], RULES)
    assert v.cause is Cause.APPLICATION and v.suspect_nodes == (), v.summary
    one = attribute(job(), [every[0], *_timeouts(101)], [], RULES)
    assert one.cause is not Cause.APPLICATION


def test_a_rate_limit_on_every_node_is_the_jobs_own_request_volume() -> None:
    every = [f("service.rate_limited", n, Blame.TRANSIENT, 60, 100, source=Source.LOGS)
             for n in NODES]  # fmt: skip
    assert attribute(job(), every, [], RULES).cause is Cause.APPLICATION
    assert attribute(job(), every[:1], [], RULES).cause is Cause.TRANSIENT


def test_a_store_barrier_that_counted_more_workers_than_ranks_is_the_launch() -> None:
    def barrier(world: str, arrived: str) -> Finding:
        return f("c10d.store_barrier_timeout", "n1", Blame.SYMPTOM, 30, 100, source=Source.LOGS,
                 details=(("world", world), ("arrived", arrived)))  # fmt: skip

    assert attribute(job(), [barrier("8", "16")], [], RULES).cause is Cause.APPLICATION
    assert attribute(job(), [barrier("8", "4")], [], RULES).cause is not Cause.APPLICATION


def test_a_gpu_the_driver_could_not_take_at_boot_still_counts_until_the_next_boot() -> None:
    probe = f("nvrm.probe_failed", "n2", Blame.HARDWARE, 70, -75)  # an hour before the window
    assert attribute(job(), [probe, *_timeouts(100)], [], RULES).suspect_nodes == ("n2",)
    boot = f("kernel.boot", "n2", Blame.INFO, 0, -60)
    assert attribute(job(), [probe, boot, *_timeouts(100)], [], RULES).suspect_nodes == ()
    xid = f("xid.79", "n2", Blame.HARDWARE, 95, -75)  # an event, not a state: the window holds
    assert attribute(job(), [xid, *_timeouts(100)], [], RULES).suspect_nodes == ()


@pytest.mark.parametrize(
    "signal",
    ["nvrm.gsp_init_failed", "nvrm.gpu_boot_failed", "nvrm.gsp_firmware_missing",
     "nvrm.uvm_fatal_reboot", "fabricmanager.version_mismatch"],
)  # fmt: skip
def test_a_gpu_or_fabric_the_driver_could_not_bring_up_still_counts_until_the_next_boot(
    signal: str,
) -> None:
    state = f(signal, "n3", Blame.HARDWARE, 70, -90)  # logged before the window, once
    assert attribute(job(), [state, *_timeouts(100)], [], RULES).suspect_nodes == ("n3",)
    boot = f("kernel.boot", "n3", Blame.INFO, 0, -30)
    assert attribute(job(), [state, boot, *_timeouts(100)], [], RULES).suspect_nodes == ()


def test_a_time_limit_with_one_node_slowed_by_its_hardware_names_that_node() -> None:
    """Synchronous training runs at the pace of its slowest GPU: a job that ran out of time
    while only n2's GPU reported thermal clocks events ran late because of n2."""
    out_of_time = job(state="TIMEOUT")
    hot = [f("dcgm.thermal", "n2", Blame.HARDWARE, 30, m) for m in (30, 47, 64)]
    v = attribute(out_of_time, hot, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",)), v.summary
    assert "dcgm.thermal" in {e.signal for e in v.evidence}
    # the same warning on two nodes is the room's cooling or the job's load, not one node
    warm = [*hot, f("dcgm.thermal", "n3", Blame.HARDWARE, 30, 50)]
    assert attribute(out_of_time, warm, [], RULES).cause is Cause.TRANSIENT
    # a job that did not run out of time: a slow GPU explains no failure
    assert attribute(job(), hot, [], RULES).suspect_nodes == ()
    # nor does a single-node job's time limit say which node was slow: there is only one
    # a node's CPU throttled for heat slows its ranks as much
    cpu = [f("straggler.cpu_thermal_throttle", "n4", Blame.HARDWARE, 20, 40)]
    assert attribute(out_of_time, cpu, [], RULES).suspect_nodes == ("n4",)
    alone = job(state="TIMEOUT", nodes=("n1",))
    one = [f("dcgm.thermal", "n1", Blame.HARDWARE, 30, 30)]
    assert attribute(alone, one, [], RULES).cause is Cause.TRANSIENT


@pytest.mark.parametrize(
    "signal", ["storage.ceph_evicted", "storage.beegfs_unreachable", "storage.gpfs_lost_membership"]
)
def test_a_hang_on_any_shared_file_system_names_no_node_that_stopped_first(signal: str) -> None:
    """CephFS, BeeGFS and GPFS clients losing their servers stall a job as Lustre and NFS do:
    which node stopped first is chance."""
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=3))
    acts = [Activity(node=n, source=Source.LOGS, present=True, lines=100,
                     last_at=T0 + timedelta(minutes=60 if n == "n2" else 90),
                     last_progress_at=T0 + timedelta(minutes=60 if n == "n2" else 90))
            for n in NODES]  # fmt: skip
    lost = f(signal, "n4", Blame.TRANSIENT, 45, 59)
    v = attribute(running, [lost], acts, RULES)
    assert v.suspect_nodes == (), v.summary


def test_every_storage_stall_is_a_catalog_signal() -> None:
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.clearing import STORAGE_STALLS

    keys = {s.key for s in builtin_catalog().active_signatures()}
    assert not {s for s in STORAGE_STALLS if s.startswith("storage.")} - keys


def test_only_a_nodes_latest_preprocessing_bar_counts() -> None:
    # A storm of bars keeps a file's first few and its latest: an early bar of another rank at
    # 50 % says nothing once the node's latest bar reached 100 %.
    early = replace(preprocessing("n1", 2, 50, line=3), rank=1)
    fs = [early, preprocessing("n1", 8, 100, line=90), *(timeout(n, 30) for n in NODES)]
    assert waited_on_preprocessing(fs) == []
    assert attribute(job(), fs, [], RULES).cause is Cause.TRANSIENT


@pytest.mark.parametrize(
    ("state", "signal"),
    [
        ("DEADLINE", "slurm.time_limit"),
        ("BOOT_FAIL", "slurm.node_fail"),
        ("DeadlineExceeded", "cloud.k8s_active_deadline"),
        ("NodeLost", "cloud.k8s_pod_node_lost"),
    ],
)
def test_the_other_final_states_read_as_the_lines_that_say_them(state: str, signal: str) -> None:
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.final_states import state_findings

    (found,) = state_findings(job(state=state))
    assert found.signal == signal and found.source is Source.JOB
    known = builtin_catalog().signatures.get(signal)  # read as the catalog reads the words
    assert known is None or known.blame is found.blame


def test_a_ray_workers_unexplained_death_reads_as_a_crash_not_a_lost_peer() -> None:
    """Ray's 'died ... by an unexpected system error' lists causes (an OOM kill, a crash, a
    stop) without knowing which: nothing explains it, as with a bare crash; a preemption beside
    it says why."""
    died = [f("ray.worker_died", "n1", Blame.SYMPTOM, 20, 5, source=Source.LOGS)]
    v = attribute(job(), died, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary
    reclaimed = f("cloud.ray_node_preempted", "n1", Blame.TRANSIENT, 80, 4, source=Source.LOGS)
    assert attribute(job(), [reclaimed, *died], [], RULES).cause is Cause.TRANSIENT


def test_nvlink_gpus_without_peer_access_name_their_node_unless_on_every_node() -> None:
    """NCCL's 'P2P is disabled between NVLINK connected GPUs' ('probably due to a hardware
    issue'): that host's fabric; on every node, the image's or the VMs' peer-access setting."""
    every = [f("nccl.p2p_disabled_nvlink", n, Blame.HARDWARE, 60, 1, source=Source.LOGS)
             for n in NODES]  # fmt: skip
    v = attribute(job(), every[:1], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, (NODES[0],)), v.summary
    v = attribute(job(), every, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ()), v.summary
