"""Where a hung job is stuck: every rank's stack at the hang, compared across ranks.

The telemetry library's hang watchdog writes a `hang` record with every thread's Python stack
(`docs/telemetry.md`). In a collective job a hang has a shape: the ranks that reached the
collective wait inside it, and the rank (or few) that never got there is somewhere else — in
its data loader, in a checkpoint write, in a CUDA call, in a loop. Those outliers, and their
nodes, are where to look; the waiting majority is the symptom (under DDP or FSDP the waiting
ranks sit in autograd's backward engine, whose C++ hooks run the gradient collectives). If
every rank waits in the same collective, no rank is outside it: the stall is below Python
(NCCL, the network, a GPU), and the stacks name no rank.

Where torch runs with its flight recorder, the records also say where each rank's collectives
stand (`domain/collectives.py` compares them): the rank that never entered the collective the
others wait in, or that is in another op at the same sequence id. Both views are evidence
(`hang.stack_outlier`, `hang.collective_outlier`); a rank both name is cited with more weight
and the agreement said, and where they differ the finding and the summary say how.

The records also say *that* the job hangs: the library writes one only past its own threshold
of silence, learned from the job's pace, so a hang record with no progress after it
(`standing`) is a hang now, without the engine's own, longer wait (`raised_reason` says what
is done about it).

Pure functions over `RankStack`s and findings; reading the records is `parsing/stacks.py` and
`parsing/telemetry_evidence.py`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from autorecover.domain.collectives import CollectiveLocation, GroupState, Outlier, compare
from autorecover.domain.desync import desync_finding
from autorecover.domain.records import Activity, Blame, Finding, Source

# The frames a rank that waits for its peers is in: torch.distributed's collectives and
# point-to-point calls (their Python frames: the C++ wait has none), and the Work/Future waits.
WAITING_FUNCTIONS = frozenset({
    "all_reduce", "all_reduce_coalesced", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_gather_coalesced", "reduce_scatter", "reduce_scatter_tensor",
    "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list", "reduce",
    "gather", "gather_object", "scatter", "scatter_object_list", "barrier",
    "monitored_barrier", "send", "recv", "isend", "irecv", "batch_isend_irecv", "wait",
    "_wait", "wait_all",
})  # fmt: skip
WAITING_FILES = ("torch/distributed/", "torch/nn/parallel/distributed.py", "torch/_C/_distributed")
# autograd's engine: DDP and FSDP run their gradient collectives from its C++ hooks, so a rank
# that waits for its peers' gradients shows no Python frame of torch.distributed, only the
# call into the engine. Past the hang threshold (many step times), backward is no longer
# computing: it waits for the peers (or its GPU stalled, which every rank then shows).
BACKWARD_FUNCTIONS = frozenset({"_engine_run_backward", "run_backward"})
BACKWARD_FILES = ("torch/autograd/",)
BACKWARD = "backward (DDP/FSDP gradient collectives)"  # what the waiting ranks are said to be in
# Frames that say nothing about where the program is (decorators, the logging wrapper).
WRAPPER_FUNCTIONS = frozenset({"wrapper", "inner", "_fn", "decorate_context", "__call__"})
OUTLIER_WEIGHT = 45  # a symptom: it says where, not what broke
AGREED_WEIGHT = 55  # the stacks and the flight recorder name the same rank: still a symptom
STACK_OUTLIER = "hang.stack_outlier"
COLLECTIVE_OUTLIER = "hang.collective_outlier"
OUTLIERS = frozenset({STACK_OUTLIER, COLLECTIVE_OUTLIER})
RAISED = "telemetry.hang"  # a hang record of the library's (parsing/telemetry_evidence.py)


@dataclass(frozen=True, slots=True)
class Frame:
    """One Python frame: file path, line, function."""

    file: str
    line: int
    function: str

    def short(self) -> str:
        """`function (file.py:line)` with the file's last two path parts."""
        tail = "/".join(self.file.replace("\\", "/").split("/")[-2:])
        return f"{self.function} ({tail}:{self.line})"


@dataclass(frozen=True, slots=True)
class RankStack:
    """One rank's main-thread stack at its hang record, and its flight-recorder summary."""

    node: str
    rank: int
    at: datetime | None
    line: int  # the hang record's line in the node's output (1-based)
    frames: tuple[Frame, ...]  # outermost first
    collectives: tuple[GroupState, ...] = ()  # per process group; empty without a recorder

    @property
    def waiting(self) -> bool:
        """In a collective or a wait on one: waiting for its peers."""
        return any(_waits(f) for f in self.frames[-3:])

    @property
    def where(self) -> Frame | None:
        """The innermost frame that says where the rank is (wrappers skipped)."""
        for frame in reversed(self.frames):
            if frame.function not in WRAPPER_FUNCTIONS:
                return frame
        return self.frames[-1] if self.frames else None

    def place(self) -> str:
        """Where the rank is, in words: the innermost frame of the job's own code, then the
        innermost frame (in the standard library or a package) when that is another one."""
        where = self.where
        if where is None:
            return "an unknown frame"
        own = next((f for f in reversed(self.frames) if _own_code(f)), None)
        if own is None or own == where:
            return where.short()
        return f"{own.short()}, at {where.short()}"


@dataclass(frozen=True, slots=True)
class HangLocation:
    """What the stacks say (the waiting majority and the ranks outside it; all empty when the
    stacks cannot tell) and what the flight recorders say (None without them)."""

    ranks: int
    waiting: tuple[RankStack, ...]
    outliers: tuple[RankStack, ...]
    common: str | None  # where the waiting ranks are, when they agree
    collectives: CollectiveLocation | None = None
    reporters: tuple[RankStack, ...] = ()  # the records the flight-recorder view comes from

    def summary(self) -> str:
        """One sentence a person can read."""
        parts = []
        if self.waiting and not self.outliers:
            where = f" in {self.common}" if self.common else ""
            parts.append(
                f"all {self.ranks} ranks with stacks wait{where}: none is outside the "
                "collective, so the stall is below Python (NCCL, network or GPU)"
            )
        elif self.outliers:
            named = ", ".join(f"rank {s.rank} on {s.node} in {s.place()}" for s in self.outliers)
            parts.append(
                f"{named} never reached the collective that {len(self.waiting)} other "
                f"rank{'s' if len(self.waiting) != 1 else ''} wait in"
                f"{' (' + self.common + ')' if self.common else ''}"
            )
        if self.collectives is not None:
            parts.append(f"flight recorder: {self.collectives.summary()}")
        if (agreement := self.agreement()) is not None:
            parts.append(agreement)
        return "; ".join(parts)

    def agreement(self) -> str | None:
        """How the two views compare, when there are both; None otherwise."""
        flight = self.collectives
        if flight is None or not (self.waiting or self.outliers):
            return None
        by_stacks = {s.rank for s in self.outliers}
        by_flight = {o.rank for o in flight.outliers}
        if by_stacks and by_stacks == by_flight:
            return "the stacks and the flight recorder agree"
        if not by_stacks and not by_flight:
            return "the stacks and the flight recorder agree: no rank is outside the collective"
        if not by_stacks:
            return (
                "the stacks disagree: every rank with a stack is in a collective, so only the "
                "flight recorder singles out " + _ranks(by_flight)
            )
        if not by_flight:
            return (
                "the flight recorder disagrees: it shows every rank inside the collective "
                f"(the stacks name {_ranks(by_stacks)}, whose Python went on past it)"
            )
        return (
            f"the stacks and the flight recorder disagree: the stacks name {_ranks(by_stacks)}, "
            f"the flight recorder {_ranks(by_flight)}"
        )

    def reporter(self, rank: int) -> RankStack | None:
        """The record the flight-recorder view of ``rank`` comes from."""
        return next((s for s in self.reporters if s.rank == rank), None)


def locate(stacks: Sequence[RankStack]) -> HangLocation | None:
    """Compare the ranks' stacks and flight-recorder summaries (the latest record per rank);
    None when neither can tell.

    Stack outliers are the ranks not waiting while at least two thirds of the ranks wait, so
    a split job (half in one place, half in another) names nobody; a single rank outside while
    every other waits (two ranks: one waits for the other) is named too."""
    reporters = _latest(s for s in stacks if s.collectives)
    flight = compare({s.rank: s.collectives for s in reporters})
    placed = _by_stacks(_latest(s for s in stacks if s.frames))
    if placed is None and flight is None:
        return None
    ranks, waiting, outliers, common = placed or (0, (), (), None)
    return HangLocation(ranks, waiting, outliers, common, flight, tuple(reporters))


def _latest(stacks: Iterable[RankStack]) -> list[RankStack]:
    """The latest record per rank, by rank."""
    latest: dict[int, RankStack] = {}
    for s in stacks:
        if s.rank not in latest or s.line >= latest[s.rank].line:
            latest[s.rank] = s
    return sorted(latest.values(), key=lambda s: s.rank)


def _by_stacks(
    ranks: Sequence[RankStack],
) -> tuple[int, tuple[RankStack, ...], tuple[RankStack, ...], str | None] | None:
    """Ranks, the waiting ones, the ones outside and where the waiting are; None if unclear."""
    if len(ranks) < 2:
        return None
    waiting = tuple(s for s in ranks if s.waiting)
    others = tuple(s for s in ranks if not s.waiting)
    if not waiting:
        return None  # nobody waits: not a collective hang the stacks can place
    if others and len(waiting) * 3 < len(ranks) * 2 and len(others) > 1:
        return None  # no clear majority waiting (one rank outside is always the one waited for)
    return len(ranks), waiting, others, _common(waiting)


def stack_findings(location: HangLocation) -> list[Finding]:
    """Evidence lines for the ranks the stacks and the flight recorders single out (symptoms:
    they say where, not what broke); a rank both name weighs more, and each line says how the
    other view compares."""
    flight = location.collectives
    named = {o.rank: o for o in flight.outliers} if flight is not None else {}
    out = []
    for s in location.outliers:
        where = s.place()
        agreed = named.get(s.rank)
        text = (
            f"hang stacks: rank {s.rank} on {s.node} is in {where} while "
            f"{len(location.waiting)} of {location.ranks} ranks wait"
            f"{' in ' + location.common if location.common else ''}"
        )
        if agreed is not None:
            text += f"; the flight recorder agrees: it {agreed.where()}"
        elif flight is not None and flight.outliers:
            text += f"; the flight recorder names {_ranks(set(named))} instead"
        elif flight is not None:
            text += f"; the flight recorder disagrees: {flight.summary()}"
        out.append(
            _outlier(STACK_OUTLIER, s, text, where, AGREED_WEIGHT if agreed else OUTLIER_WEIGHT)
        )
    stacked = {s.rank: s for s in location.outliers}
    for o in flight.outliers if flight is not None else ():
        record = location.reporter(o.rank)
        if record is None:
            continue
        text = f"flight recorder: rank {o.rank} on {record.node} {_said(o)}"
        if o.rank in stacked:
            text += f"; its stack agrees: in {stacked[o.rank].place()}"
        elif location.outliers:
            text += f"; the stacks name {_ranks(set(stacked))} instead"
        elif location.waiting and record.waiting:
            text += "; its stack is in a collective too, so the stacks alone do not single it out"
        weight = AGREED_WEIGHT if o.rank in stacked else OUTLIER_WEIGHT
        found = _outlier(COLLECTIVE_OUTLIER, record, text, o.where(), weight)
        extra = (("group", o.group), ("seq", str(o.target.seq)), ("op", o.target.op or ""))
        out.append(replace(found, details=found.details + extra))
        if o.kind == "mismatch" and o.target.seq is not None:
            out.append(_desync(o, record, o.target.seq))
    return out


def _desync(o: Outlier, record: RankStack, seq: int) -> Finding:
    """A rank in another op at the sequence number the others are at called a different
    collective: the job's code path diverged (domain/desync.py; a dead GPU or a broken link
    leaves every rank in the same op), and restarting it reaches the same place again."""
    text = (
        f"ranks in different collectives at one sequence number (flight recorder): rank "
        f"{o.rank} on {record.node} {o.where()}: the ranks called different collectives (the "
        "job's code path diverged), not a node's or the fabric's fault"
    )
    ops = (o.target.op or "?", o.own.op or "?")
    return desync_finding(record.node, o.rank, text, record.at, seq, ops)


def _said(o: Outlier) -> str:
    if o.kind == "mismatch":
        return f"is {o.where()}"
    return f"{o.where()}, which {o.waiting} of {o.members} ranks wait in"


def _outlier(signal: str, s: RankStack, text: str, where: str, weight: int) -> Finding:
    return Finding(
        signal=signal,
        node=s.node,
        source=Source.LOGS,
        line=0,  # derived from the ranks' records; the outlier's own is in details
        text=text,
        blame=Blame.SYMPTOM,
        weight=weight,
        at=s.at,
        rank=s.rank,
        details=(("record_line", str(s.line)), ("where", where)),
    )


def _ranks(ranks: set[int]) -> str:
    ordered = sorted(ranks)
    return ("rank " if len(ordered) == 1 else "ranks ") + ", ".join(map(str, ordered))


def _own_code(frame: Frame) -> bool:
    """A frame of the job's own code: neither the standard library nor an installed package."""
    path = frame.file.replace("\\", "/")
    if "site-packages/" in path or "dist-packages/" in path:
        return False
    return not (re.search(r"/lib/python3[.\d]*/", path) or path.startswith("<"))


def _waits(frame: Frame) -> bool:
    path = frame.file.replace("\\", "/")
    if frame.function in BACKWARD_FUNCTIONS:
        return any(p in path for p in BACKWARD_FILES)
    return frame.function in WAITING_FUNCTIONS and any(p in path for p in WAITING_FILES)


def _common(waiting: Sequence[RankStack]) -> str | None:
    wheres = Counter(
        next((f.function for f in reversed(s.frames) if _waits(f)), None) for s in waiting
    )
    (name, count), *_ = wheres.most_common(1)
    if name is None or count * 2 <= len(waiting):
        return None
    return BACKWARD if name in BACKWARD_FUNCTIONS else name


def standing(findings: Iterable[Finding], activity: Iterable[Activity]) -> list[Finding]:
    """The telemetry library's hang records that still hold: no progress anywhere came after
    them. The library raised each only after its own threshold of silence (learned from the
    job's pace), so a standing one is a hang now, without a further wait of the engine's."""
    last = max((a.last_progress_at for a in activity if a.last_progress_at), default=None)
    return [
        f
        for f in findings
        if f.signal == RAISED and f.at is not None and (last is None or f.at > last)
    ]


def raised_reason(raised: Sequence[Finding], outliers: Sequence[Finding]) -> str:
    """Why a hang the library raised, with nothing else wrong, is retried: the summary."""
    ranks = {(f.node, f.rank) for f in raised}
    nodes = sorted({f.node for f in raised})
    idle = max((float(f.detail("idle_s") or 0) for f in raised), default=0.0)
    limits = [float(t) for f in raised if (t := f.detail("threshold_s"))]
    limit = f" (its threshold: {min(limits):.0f} s)" if limits else ""
    cited: dict[tuple[str, int | None], Finding] = {}
    for f in sorted(outliers, key=lambda f: f.signal != STACK_OUTLIER):
        cited.setdefault((f.node, f.rank), f)  # a rank both views name: its stack line says so
    where = (
        "; ".join(f.text.removeprefix("hang stacks: ") for f in list(cited.values())[:3])
        if cited
        else "neither the stacks nor a flight recorder single out a rank outside a collective "
        "(or there are none)"
    )
    return (
        f"hung: the telemetry library's watchdog on {len(ranks)} rank(s) on "
        f"{', '.join(nodes)} saw no progress for up to {idle:.0f} s{limit}; {where}. Nothing "
        "shows a hardware fault or an application error, so the cause is taken as transient: "
        "end the attempt and requeue it from its last checkpoint on the same nodes (hanging "
        "the same way again makes it the job's own failure)"
    )
