"""Ranks timing out in different collectives at one SeqNum: the job's desynchronisation.

Lines in ProcessGroupNCCL's watchdog format (torch 2.1+ with NumelIn/NumelOut, 2.4+ with the
process-group label), scanned by the real catalog; each node's file is scanned on its own,
as an incident's logs are.
"""

from __future__ import annotations

import io
from datetime import timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.desync import SIGNAL, collective_desync
from autorecover.domain.records import Blame, Cause, Finding, JobRecord, Source

from .golden import SCANNER, T0

WATCHDOG = (
    "[rank{rank}]:[E0304 03:14:{sec:02d}.912000000 ProcessGroupNCCL.cpp:632] {label}Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, "
    "NumelOut={numel}, Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
)


def watchdog(rank: int, seq: int, op: str, numel: int = 1, label: str | None = "0") -> str:
    pg = "" if label is None else f"[PG ID {label} PG GUID {label}(default_pg) Rank {rank}] "
    if label is None:
        pg = f"[Rank {rank}] "
    return WATCHDOG.format(rank=rank, sec=10 + rank, label=pg, seq=seq, op=op, numel=numel)


def scan(node: str, *lines: str) -> list[Finding]:
    text = "".join(line + "\n" for line in lines).encode()
    return SCANNER.scan(io.BytesIO(text), node=node, source=Source.LOGS, reference=T0).findings


def job() -> JobRecord:
    return JobRecord(scheduler="slurm", job="7", nodes=("n1", "n2"), started=T0,
                     ended=T0 + timedelta(days=1), collected=T0 + timedelta(days=1),
                     state="FAILED")  # fmt: skip


def test_ranks_in_different_operations_at_one_seqnum_are_the_jobs_desync() -> None:
    findings = [
        *scan("n1", watchdog(0, 4711, "ALLREDUCE", 1024), watchdog(1, 4711, "ALLREDUCE", 1024)),
        *scan("n2", watchdog(2, 4711, "BROADCAST", 1024), watchdog(3, 4711, "ALLREDUCE", 1024)),
    ]
    [desync] = collective_desync(findings)
    assert (desync.signal, desync.blame, desync.node) == (SIGNAL, Blame.APPLICATION, "n1")
    assert "ALLREDUCE" in desync.text and "BROADCAST" in desync.text and "4711" in desync.text

    verdict = attribute(job(), findings, [], {})
    assert verdict.cause is Cause.APPLICATION and verdict.suspect_nodes == ()
    assert verdict.evidence[0].signal == SIGNAL


def test_same_collective_everywhere_is_an_ordinary_cascade() -> None:
    findings = [
        *scan("n1", watchdog(0, 4711, "ALLREDUCE", 1024), watchdog(1, 4711, "ALLREDUCE", 1024)),
        *scan("n2", watchdog(2, 4711, "ALLREDUCE", 1024), watchdog(3, 4711, "ALLREDUCE", 1024)),
    ]
    assert collective_desync(findings) == []
    assert attribute(job(), findings, [], {}).cause is Cause.TRANSIENT


def test_sizes_must_agree_only_where_the_collective_requires_it() -> None:
    allreduce = [*scan("n1", watchdog(0, 90, "ALLREDUCE", 1024)),
                 *scan("n2", watchdog(2, 90, "ALLREDUCE", 4096))]  # fmt: skip
    assert [f.signal for f in collective_desync(allreduce)] == [SIGNAL]
    alltoall = [*scan("n1", watchdog(0, 90, "ALLTOALL_BASE", 1024)),
                *scan("n2", watchdog(2, 90, "ALLTOALL_BASE", 4096))]  # fmt: skip
    assert collective_desync(alltoall) == []  # uneven splits are legitimate


def test_different_process_groups_count_separately() -> None:
    findings = [*scan("n1", watchdog(0, 12, "ALLREDUCE", label="0")),
                *scan("n2", watchdog(2, 12, "BROADCAST", label="3"))]  # fmt: skip
    assert collective_desync(findings) == []


def test_unlabelled_groups_are_compared_only_past_their_first_collectives() -> None:
    early = [*scan("n1", watchdog(0, 2, "ALLREDUCE", label=None)),
             *scan("n2", watchdog(2, 2, "BROADCAST", label=None))]  # fmt: skip
    assert collective_desync(early) == []  # two groups' second collectives, maybe
    later = [*scan("n1", watchdog(0, 808, "ALLREDUCE", label=None)),
             *scan("n2", watchdog(2, 808, "BROADCAST", label=None))]  # fmt: skip
    assert [f.signal for f in collective_desync(later)] == [SIGNAL]


def test_point_to_point_work_is_not_compared() -> None:
    findings = [*scan("n1", watchdog(0, 31, "SEND")), *scan("n2", watchdog(2, 31, "RECV"))]
    assert collective_desync(findings) == []


def test_hardware_evidence_still_names_its_node() -> None:
    findings = [
        *scan("n1", watchdog(0, 4711, "ALLREDUCE", 1024)),
        *scan("n2", watchdog(2, 4711, "BROADCAST", 1024)),
        *SCANNER.scan(io.BytesIO(
            b"2026-03-04T03:03:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1234, "
            b"name=python, GPU has fallen off the bus.\n"), node="n2", source=Source.SYSTEM,
            reference=T0).findings,
    ]  # fmt: skip
    verdict = attribute(job(), findings, [], {})
    assert verdict.cause is Cause.HARDWARE and verdict.suspect_nodes == ("n2",)


# Horovod's early stall report (horovod/horovod issue #100: two towers whose variable scopes
# named one rank's gradients model_model_... and the other's model_1_model_...).
STALL = (
    "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by "
    "subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may "
    "indicate that different ranks are trying to submit different tensors or that only subset "
    "of ranks is submitting tensors, which will cause deadlock. "
)
OPS = "model/{tower}/DistributedAdamOptimizer_Allreduce/HorovodAllreduce_{name}_0 [ready ranks: {r}], "


def stall(*ops: tuple[str, str, str]) -> list[str]:
    return [STALL, "Stalled ops: ", *(OPS.format(tower=t, name=n, r=r) for t, n, r in ops)]


def test_horovod_tensors_each_submitted_by_ranks_the_other_lacks_are_the_jobs_desync() -> None:
    findings = scan(
        "n1",
        *stall(
            ("model", "model_model_gradients_AddN_45", "1"),
            ("model", "model_model_gradients_AddN_63", "1"),
            ("model_1", "model_1_model_gradients_AddN_4", "0"),
        ),
    )
    [desync] = collective_desync(findings)
    assert (desync.signal, desync.blame, desync.node) == (SIGNAL, Blame.APPLICATION, "n1")
    assert "model_1_model_gradients_AddN_4" in desync.text and "rank(s) 0 only" in desync.text


def test_a_rank_missing_from_every_horovod_tensor_is_only_behind() -> None:
    behind = stall(
        ("model", "grad_a", "0, 1, 3"), ("model", "grad_b", "0, 1, 3"), ("model", "grad_c", "0, 1")
    )
    assert collective_desync(scan("n1", *behind)) == []
    # two reports apart in the log are not compared with each other
    apart = [*stall(("model", "grad_a", "1")), "Step 12 loss 0.4", *stall(("model", "grad_b", "0"))]
    assert collective_desync(scan("n1", *apart)) == []
    # the next report's warning right after an op ends the report, however close
    assert (
        collective_desync(scan("n1", *stall(("m", "grad_a", "1")), *stall(("m", "grad_b", "0"))))
        == []
    )


def test_a_horovod_report_folded_and_put_back_keeps_its_ops_together() -> None:
    # each op was folded at a width and joined back on its first line: its pieces' lines are
    # left empty between the ops (parsing.unwrapping)
    head, *ops = stall(
        ("model", "grad_a", "1"), ("model", "grad_b", "1"), ("model_1", "grad_c", "0")
    )
    folded = [head, ops[0], *(line for op in ops[1:] for line in (op, ""))]
    [desync] = collective_desync(scan("n1", *folded))
    assert "grad_c" in desync.text and "rank(s) 0 only" in desync.text


# The stall inspector's report since (horovod/common/stall_inspector.cc, rendered): under
# "Missing ranks:", each rank with the waiting tensors it has not submitted.
INSPECTOR = (
    "[2021-03-02 10:14:11.208351: W /tmp/pip-req-build/horovod/common/stall_inspector.cc:105] "
    + STALL
)


def test_horovod_ranks_each_missing_a_tensor_the_other_sent_are_the_jobs_desync() -> None:
    findings = scan(
        "n1",
        INSPECTOR,
        "Missing ranks:",
        "0: [DistributedAdamOptimizer_Allreduce/HorovodAllreduce_model_1_grad_4_0]",
        "1: [DistributedAdamOptimizer_Allreduce/HorovodAllreduce_model_grad_45_0]",
    )
    [desync] = collective_desync(findings)
    assert (desync.signal, desync.blame, desync.rank) == (SIGNAL, Blame.APPLICATION, 1)
    assert "rank 0 never submitted" in desync.text and "model_1_grad_4_0" in desync.text


def test_horovod_ranks_behind_or_cut_short_or_without_a_report_say_nothing() -> None:
    behind = ["0: [grad_a_0, grad_b_0]", "3!: [grad_a_0, grad_b_0, grad_c_0]"]
    assert collective_desync(scan("n1", INSPECTOR, "Missing ranks:", *behind)) == []
    cut = ["0: [a, b, c, d, e, f ...]", "1: [g]"]
    assert collective_desync(scan("n1", INSPECTOR, "Missing ranks:", *cut)) == []
    # srun -l's rank prefix before a printed list, with no report above it
    loose = ["0: [grad_a_0]", "1: [grad_b_0]"]
    assert collective_desync(scan("n1", "Step 3 done", *loose)) == []


# NCCL's collective trace (NCCL_DEBUG_SUBSYS=COLL; the line format of src/enqueue.cc, the
# numbers of ROCm/rccl issue #429)
def trace(host: str, pid: int, op: str, opcount: str, count: int = 9984512, *, datatype: int = 7,
          root: int = 0, nranks: int = 4, comm: str | None = None) -> str:  # fmt: skip
    return (
        f"{host}:{pid}:{pid} [0] NCCL INFO {op}: opCount {opcount} sendbuff 0x7f5dd32b2100 "
        f"recvbuff 0x7f5dd32b2100 count {count} datatype {datatype} op 0 root {root} comm "
        f"{comm or f'0x55{pid}'} [nranks={nranks}] stream 0x55bef0208bd0"
    )


def test_processes_enqueuing_different_collectives_at_one_opcount_are_the_jobs_desync() -> None:
    findings = [
        *scan("n1", trace("n1", 45006, "AllReduce", "28c"), trace("n1", 45009, "AllReduce", "28c")),
        *scan("n2", trace("n2", 45012, "AllGather", "28c", 59205120, datatype=0),
              trace("n2", 45015, "AllReduce", "28c")),
    ]  # fmt: skip
    [desync] = collective_desync(findings)
    assert (desync.signal, desync.blame, desync.node) == (SIGNAL, Blame.APPLICATION, "n2")
    assert "opCount 28c" in desync.text and "n2:45012" in desync.text
    assert "AllGather" in desync.text and "3 other process(es) called AllReduce" in desync.text

    verdict = attribute(job(), findings, [], {})
    assert verdict.cause is Cause.APPLICATION and verdict.suspect_nodes == ()


def test_a_trace_whose_processes_agree_or_run_ahead_says_nothing() -> None:
    findings = scan(
        "n1",
        *(trace("n1", pid, "AllReduce", "28c") for pid in (1, 2, 3, 4)),
        trace("n1", 4, "Broadcast", "28d"),  # alone at 28d: ahead, not different
    )
    assert collective_desync(findings) == []


def test_counts_datatypes_and_roots_must_agree() -> None:
    count = scan(
        "n1", trace("n1", 1, "AllReduce", "a", 1024), trace("n1", 2, "AllReduce", "a", 2048)
    )
    dtype = scan("n1", trace("n1", 1, "AllGather", "a", datatype=7),
                 trace("n1", 2, "AllGather", "a", datatype=9))  # fmt: skip
    root = scan(
        "n1", trace("n1", 1, "Broadcast", "a", root=0), trace("n1", 2, "Broadcast", "a", root=1)
    )
    reduce_root = scan("n1", trace("n1", 1, "AllReduce", "a", root=0),
                       trace("n1", 2, "AllReduce", "a", root=3))  # fmt: skip
    assert [len(collective_desync(f)) for f in (count, dtype, root, reduce_root)] == [1, 1, 1, 0]


def test_communicators_that_cannot_be_told_apart_are_not_compared() -> None:
    # a process with two communicators of one size: which of them another process's line is
    # from is unknown
    two_comms = scan(
        "n1",
        trace("n1", 1, "AllReduce", "5", comm="0xa1"), trace("n1", 1, "Broadcast", "5", comm="0xa2"),
        trace("n1", 2, "Broadcast", "5", comm="0xb1"),
    )  # fmt: skip
    # more processes than members: two tensor-parallel groups of two, both traced
    two_groups = scan("n1", *(trace("n1", pid, op, "5", nranks=2) for pid, op in
                              ((1, "AllReduce"), (2, "AllReduce"), (3, "Broadcast"), (4, "Broadcast"))))  # fmt: skip
    # several operations of one process at one opCount: a group
    grouped = scan("n1", trace("n1", 1, "AllReduce", "5"), trace("n1", 1, "AllGather", "5"),
                   trace("n1", 2, "AllGather", "5"))  # fmt: skip
    assert collective_desync(two_comms) == collective_desync(two_groups) == []
    assert collective_desync(grouped) == []


def test_point_to_point_calls_are_not_compared() -> None:
    # NCCL prints a Send or Recv with its peer as the root; the two sides differ by design
    findings = scan("n1", trace("n1", 1, "Send", "5", root=1), trace("n1", 2, "Recv", "5", root=0))
    assert [f.signal for f in findings] == ["nccl.coll_trace"] * 2
    assert collective_desync(findings) == []


def test_gathers_and_broadcasts_agree_in_bytes() -> None:
    # NCCL moves an all-gather's or a broadcast's data as bytes: 4 float32 are 8 bfloat16
    same = scan("n1", trace("n1", 1, "AllGather", "9", 4, datatype=7),
                trace("n1", 2, "AllGather", "9", 8, datatype=9))  # fmt: skip
    other = scan("n1", trace("n1", 1, "AllReduce", "9", 4, datatype=7),
                 trace("n1", 2, "AllReduce", "9", 8, datatype=9))  # fmt: skip
    assert collective_desync(same) == []
    assert len(collective_desync(other)) == 1
