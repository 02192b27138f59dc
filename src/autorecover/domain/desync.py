"""Ranks that timed out in different collectives: the job's own desynchronisation.

ProcessGroupNCCL's watchdog names the work it timed out, as
``WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000)``
(SeqNum and OpType since torch 1.10, NumelIn/NumelOut since 2.1), and since 2.2 the process
group it belongs to (``[PG 0 Rank 1]``, ``[PG ID 0 PG GUID 0(default_pg) Rank 1]``). SeqNum
counts the collectives a process group has issued, so every rank's N-th collective of a group
is the same logical operation: when two ranks time out at the same SeqNum of the same group in
different operations (an ALLREDUCE against a BROADCAST) or with different sizes where sizes
must agree, they called different collectives. That is a fault of the job's code path (a rank
that skipped a collective, ran an extra batch or took another branch), not of a node or the
fabric: a dead GPU or a broken link leaves every rank waiting in the same operation.

Horovod's early stall report says the same another way: under "Stalled ops:" each waiting
tensor with the ranks that submitted it (``<name> [ready ranks: 1]``). Two tensors of one report
whose ready ranks do not contain each other (one submitted only by rank 1, another only by rank
0) are ranks that each wait for a tensor the other never submits: different code paths or
tensor names, the job's. Its stall inspector since lists the other way round, under "Missing
ranks:", each rank with the waiting tensors it has not submitted (``0: [a, b]``): two ranks each
missing a tensor the other is not missing say the same. One rank missing from every tensor is a
rank behind, and says nothing; a list cut at six names (`` ...``) is not compared.

NCCL's own collective trace (``NCCL_DEBUG_SUBSYS=COLL``: ``AllGather: opCount 28c ... count
59205120 datatype 0 ... comm 0x559c... [nranks=4]``, one line per collective per process) says it
below PyTorch: opCount counts a communicator's operations, so the members' lines at one opCount
must name the same operation with the same count and datatype (NCCL's counts are per rank and
equal on every member, gathers included; an all-gather's or broadcast's in bytes, as NCCL moves
them) and, for a rooted one, the same root. Point-to-point calls are not compared. A
process (its "host:pid") is matched to the others' communicator only by size: a size is compared
only where each process traced one communicator of it and no more processes traced it than it
has members (two tensor-parallel groups of four, both traced, are not one communicator). An
opCount at which one process enqueued several operations (a group) is not compared.

What the watchdog's lines are not compared on, because it legitimately differs there:
point-to-point and coalesced work (own counters), sizes of PyTorch's list gathers, scatters and
all-to-all (uneven by design), and work with no SeqNum. Lines without a process-group label are
only compared with each other and only past a job's first collectives, where groups created
together would count alike.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from autorecover.domain.records import Blame, Finding, Source

SIGNAL = "c10d.collective_desync"
WEIGHT = 65  # above a bare exception: it says what the ranks did, not only that one failed
# The timeouts whose text names the WorkNCCL that timed out.
TIMEOUT_SIGNALS = frozenset({"nccl.watchdog_timeout"})
_WORK = re.compile(
    r"WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>[A-Z_]+)"
    r"(?:, NumelIn=(?P<numel_in>-?\d+), NumelOut=(?P<numel_out>-?\d+))?"
)
_GROUP = re.compile(r"\[PG (?:ID \d+ PG GUID (?P<guid>[^\s\]]+)|(?P<pg>\d+))[^\]]*Rank")
_RANK = re.compile(r"\[(?:PG [^\]]*)?Rank (?P<rank>\d+)\]")
UNCOMPARED = frozenset({"SEND", "RECV", "RECVANYSOURCE", "COALESCED", "UNKNOWN"})
SIZES_AGREE = frozenset(
    {"ALLREDUCE", "BROADCAST", "REDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BARRIER"}
)
UNLABELLED_FROM = 3  # unlabelled groups' SeqNum 1 and 2 can be different groups' first work


@dataclass(frozen=True, slots=True)
class _Work:
    finding: Finding
    rank: int | None
    group: str | None
    seq: int
    op: str
    numel: tuple[str, str] | None

    def describe(self) -> str:
        who = f"rank {self.rank}" if self.rank is not None else self.finding.node
        size = f", {self.numel[0]} elements" if self.numel is not None else ""
        return f"{who} on {self.finding.node} in {self.op}{size}"


def collective_desync(findings: Sequence[Finding]) -> list[Finding]:
    """One application finding when ranks timed out at the same SeqNum of one process group
    in different collectives, or a Horovod stall report shows them in different tensors;
    empty otherwise."""
    works = [w for f in findings if (w := _work(f)) is not None]
    by_key: dict[tuple[str | None, int], list[_Work]] = {}
    for w in works:
        if w.group is None and w.seq < UNLABELLED_FROM:
            continue
        by_key.setdefault((w.group, w.seq), []).append(w)
    for (group, seq), same in sorted(by_key.items(), key=lambda kv: (kv[0][1], str(kv[0][0]))):
        pair = _mismatch(same)
        if pair is None:
            continue
        first, other = pair
        where = f"process group {group}" if group is not None else "their process group"
        text = (
            f"ranks timed out in different collectives at SeqNum {seq} of {where}: "
            f"{first.describe()}, {other.describe()}: the ranks called different "
            "collectives (the job's code path diverged), not a node's or the fabric's fault"
        )
        at = min((w.finding.at for w in (first, other) if w.finding.at), default=None)
        return [desync_finding(first.finding.node, first.rank, text, at, seq, (first.op, other.op))]
    return nccl_trace_desync(findings) or horovod_desync(findings)


TRACE = "nccl.coll_trace"
# Point-to-point calls print the peer as their root and are paired by peer, not compared.
TRACE_P2P = frozenset({"Send", "Recv", "SendRecv"})
TRACE_ROOTED = frozenset({"Broadcast", "Reduce", "Gather", "Scatter"})
# Operations whose count every member passes alike (NCCL's API counts per rank); others (RCCL's
# AllToAllv, ...) are compared by name only.
TRACE_SIZED = frozenset(
    {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll", "AllToAll",
     "Gather", "Scatter"}
)  # fmt: skip
# NCCL moves these as bytes (collTaskAppend: count *= the datatype's size, datatype int8), so
# members may pass different datatypes of one size in bytes.
TRACE_BYTES = frozenset({"AllGather", "Broadcast"})
# ncclDataType_t (nccl.h): int8, uint8, int32, uint32, int64, uint64, float16, float32, float64,
# bfloat16, float8e4m3, float8e5m2
TRACE_TYPE_BYTES = {0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 1, 11: 1}


@dataclass(frozen=True, slots=True)
class _Call:
    finding: Finding
    emitter: str
    comm: str
    nranks: int
    opcount: int
    call: tuple[str, str, str]  # op, its size where members must agree, its root where it matters

    def who(self) -> str:
        rank = self.finding.detail("globalrank")
        return f"rank {rank} ({self.emitter})" if rank else self.emitter

    def size(self) -> str:
        count, datatype = self.finding.detail("count"), self.finding.detail("datatype")
        root = self.call[2]
        return f"count {count}, datatype {datatype}" + (f", root {root}" if root else "")


def nccl_trace_desync(findings: Sequence[Finding]) -> list[Finding]:
    """One application finding when NCCL's collective trace shows members of one communicator
    enqueuing different collectives at the same opCount; empty otherwise."""
    calls = [c for f in findings if f.signal == TRACE and (c := _call(f)) is not None]
    comms: dict[tuple[str, int], set[str]] = {}
    for c in calls:
        comms.setdefault((c.emitter, c.nranks), set()).add(c.comm)
    members: dict[int, set[str]] = {}
    for emitter, nranks in comms:
        members.setdefault(nranks, set()).add(emitter)
    sizes = {
        n
        for n, emitters in members.items()
        if 2 <= len(emitters) <= n and all(len(comms[(e, n)]) == 1 for e in emitters)
    }
    at: dict[tuple[int, int], dict[str, set[tuple[str, str, str]]]] = {}
    first: dict[tuple[int, int, str], _Call] = {}
    for c in calls:
        if c.nranks in sizes:
            at.setdefault((c.nranks, c.opcount), {}).setdefault(c.emitter, set()).add(c.call)
            first.setdefault((c.nranks, c.opcount, c.emitter), c)
    for (nranks, opcount), by_emitter in sorted(at.items(), key=lambda kv: kv[0][1]):
        if len(by_emitter) < 2 or any(len(made) > 1 for made in by_emitter.values()):
            continue  # one process alone, or a group of several operations at one opCount
        votes = Counter(next(iter(made)) for made in by_emitter.values())
        if len(votes) < 2:
            continue
        (usual, n_usual), (_, n_next) = votes.most_common(2)
        first_odd = min(
            (first[(nranks, opcount, e)] for e, made in by_emitter.items() if usual not in made),
            key=lambda c: (c.finding.at is None, c.finding.at, c.finding.node, c.finding.line),
        )
        usual_call = next(
            first[(nranks, opcount, e)] for e in sorted(by_emitter) if usual in by_emitter[e]
        )
        others = "the others" if n_usual == n_next else f"{n_usual} other process(es)"
        text = (
            f"{first_odd.who()} called {first_odd.call[0]} where {others} called "
            f"{usual_call.call[0]} (NCCL's trace, opCount {opcount:x} of a {nranks}-rank "
            f"communicator; {first_odd.size()} against {usual_call.size()}): the ranks called "
            "different collectives (the job's code path diverged), not a node's or the "
            "fabric's fault"
        )
        ops = (first_odd.call[0], usual_call.call[0])
        node, when = first_odd.finding.node, first_odd.finding.at
        return [desync_finding(node, None, text, when, opcount, ops)]
    return []


def _call(f: Finding) -> _Call | None:
    op, opcount, nranks = f.detail("op"), f.detail("opcount"), f.detail("nranks")
    emitter, comm = f.detail("emitter"), f.detail("comm")
    if not (op and opcount and nranks and emitter and comm) or op in TRACE_P2P:
        return None
    root = (f.detail("root") or "") if op in TRACE_ROOTED else ""
    return _Call(f, emitter, comm, int(nranks), int(opcount, 16), (op, _size(f, op), root))


def _size(f: Finding, op: str) -> str:
    """What members of one call must pass alike: its count and datatype, its bytes where NCCL
    moves bytes, nothing where counts may differ."""
    count, datatype = f.detail("count") or "", f.detail("datatype") or ""
    if op not in TRACE_SIZED:
        return ""
    width = TRACE_TYPE_BYTES.get(int(datatype)) if datatype.isdigit() else None
    if op in TRACE_BYTES and width is not None and count.isdigit():
        return f"{int(count) * width} bytes"
    return f"{count} of type {datatype}"


HOROVOD_OP = "horovod.stalled_op"
HOROVOD_HEADER = "horovod.missing_ranks_header"
HOROVOD_MISSING = "horovod.missing_rank"
# An op's line and the next one's: adjacent, or a few apart where a line folded at a width was
# put back on its first line and its pieces' lines left empty (`parsing.unwrapping`).
OP_LINE_GAP = 4


def horovod_desync(findings: Sequence[Finding]) -> list[Finding]:
    """One application finding when a Horovod stall report (consecutive `horovod.stalled_op`
    lines of one log, no other Horovod line between) shows two tensors each submitted by ranks
    the other lacks, or its "Missing ranks:" list two ranks each missing a tensor the other
    sent."""
    missing = _missing_ranks_desync(findings)
    if missing:
        return missing
    lines = sorted(
        (f for f in findings if f.signal.startswith("horovod.")),
        key=lambda f: (f.node, f.source.value, f.line),
    )
    report: list[tuple[Finding, frozenset[int]]] = []
    for f in lines:
        if f.signal != HOROVOD_OP:
            report = []  # the next report's warning, or another Horovod line between
            continue
        if report and (
            report[-1][0].node != f.node
            or report[-1][0].source is not f.source
            or not 0 < f.line - report[-1][0].line <= OP_LINE_GAP
        ):
            report = []
        ranks = (f.detail("ranks") or "").replace(" ", "").split(",")
        ready = frozenset(int(r) for r in ranks if r.isdigit())
        for other, theirs in report:
            if ready and theirs and not ready <= theirs and not theirs <= ready:
                first, second = _short(other.detail("op")), _short(f.detail("op"))
                text = (
                    f"Horovod's stall report on {f.node}: {first} submitted by rank(s) "
                    f"{_ranks(theirs)} only, {second} by rank(s) "
                    f"{_ranks(ready)} only: the ranks submitted different tensors (the job's "
                    "code path or tensor names diverged), not a node's or the fabric's fault"
                )
                names = (other.detail("op") or "?", f.detail("op") or "?")
                return [desync_finding(f.node, None, text, other.at or f.at, None, names)]
        report.append((f, ready))
    return []


def _missing_ranks_desync(findings: Sequence[Finding]) -> list[Finding]:
    lines = sorted(
        (f for f in findings if f.signal in (HOROVOD_HEADER, HOROVOD_MISSING)),
        key=lambda f: (f.node, f.source.value, f.line),
    )
    report: dict[int, tuple[Finding, frozenset[str]]] = {}
    previous: Finding | None = None
    for f in lines:
        follows = (
            previous is not None
            and previous.node == f.node
            and previous.source is f.source
            and f.line == previous.line + 1
        )
        previous = f
        if f.signal == HOROVOD_HEADER:
            report = {}
            continue
        if not follows:
            report = {}
            previous = None  # a rank line with no header right above it is not a report's
            continue
        tensors = f.detail("tensors") or ""
        rank = f.detail("rank") or ""
        if tensors.endswith(" ...") or not rank.isdigit():
            continue  # cut at six names: what else it misses is unknown
        mine = frozenset(t.strip() for t in tensors.split(", ") if t.strip())
        for other_rank, (other, theirs) in sorted(report.items()):
            if mine - theirs and theirs - mine:
                text = (
                    f"Horovod's stall report on {f.node}: rank {other_rank} never submitted "
                    f"{_short(min(theirs - mine))}, which rank {rank} did, and rank {rank} never "
                    f"submitted {_short(min(mine - theirs))}, which rank {other_rank} did: the "
                    "ranks submitted different tensors (the job's code path or tensor names "
                    "diverged), not a node's or the fabric's fault"
                )
                names = (min(theirs - mine), min(mine - theirs))
                return [desync_finding(f.node, int(rank), text, other.at or f.at, None, names)]
        report[int(rank)] = (f, mine)
    return []


def _short(op: str | None) -> str:
    op = op or "?"
    return op if len(op) <= 80 else "..." + op[-77:]


def _ranks(ranks: frozenset[int]) -> str:
    return ", ".join(str(r) for r in sorted(ranks))


def desync_finding(
    node: str,
    rank: int | None,
    text: str,
    at: datetime | None,
    seq: int | None,
    ops: Sequence[str],
) -> Finding:
    """The derived application line for ranks seen in different collectives at one sequence
    number (by the watchdog's timeouts here, by the flight recorders in domain/hangs.py), or in
    different tensors of a Horovod stall report (`seq` None)."""
    return Finding(
        signal=SIGNAL,
        node=node,
        source=Source.LOGS,
        line=0,  # derived from several lines
        text=text,
        blame=Blame.APPLICATION,
        weight=WEIGHT,
        at=at,
        rank=rank,
        details=(*((("seq", str(seq)),) if seq is not None else ()), ("ops", ",".join(ops))),
    )


def _work(f: Finding) -> _Work | None:
    if f.signal not in TIMEOUT_SIGNALS or f.origin is not None:
        return None
    m = _WORK.search(f.text)
    if m is None or m["op"] in UNCOMPARED:
        return None
    g = _GROUP.search(f.text)
    group = None if g is None else (g["guid"] or g["pg"])
    r = _RANK.search(f.text)
    rank = f.rank if f.rank is not None else (int(r["rank"]) if r else None)
    numel = (m["numel_in"], m["numel_out"]) if m["numel_in"] is not None else None
    return _Work(f, rank, group, int(m["seq"]), m["op"], numel)


def _mismatch(works: Sequence[_Work]) -> tuple[_Work, _Work] | None:
    """Two works of one SeqNum that cannot be the same collective, earliest first."""
    ordered = sorted(works, key=lambda w: (w.finding.at is None, w.finding.at, w.finding.line))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if a.rank is not None and a.rank == b.rank:
                continue
            if a.op != b.op:
                return a, b
            if a.op in SIZES_AGREE and a.numel and b.numel and a.numel != b.numel:
                return a, b
    return None
