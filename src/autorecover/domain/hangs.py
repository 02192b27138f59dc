"""Where a hung job is stuck: every rank's stack at the hang, compared across ranks.

The telemetry library's hang watchdog writes a `hang` record with every thread's Python stack
(`docs/telemetry.md`). In a collective job a hang has a shape: the ranks that reached the
collective wait inside it, and the rank (or few) that never got there is somewhere else — in
its data loader, in a checkpoint write, in a CUDA call, in a loop. Those outliers, and their
nodes, are where to look; the waiting majority is the symptom (under DDP or FSDP the waiting
ranks sit in autograd's backward engine, whose C++ hooks run the gradient collectives). If
every rank waits in the same collective, no rank is outside it: the stall is below Python
(NCCL, the network, a GPU), and the stacks name no rank.

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
from dataclasses import dataclass
from datetime import datetime

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
    """One rank's main-thread stack at its hang record."""

    node: str
    rank: int
    at: datetime | None
    line: int  # the hang record's line in the node's output (1-based)
    frames: tuple[Frame, ...]  # outermost first

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
    """What the stacks say: the waiting majority and the ranks outside it."""

    ranks: int
    waiting: tuple[RankStack, ...]
    outliers: tuple[RankStack, ...]
    common: str | None  # where the waiting ranks are, when they agree

    def summary(self) -> str:
        """One sentence a person can read."""
        if not self.outliers:
            where = f" in {self.common}" if self.common else ""
            return (
                f"all {self.ranks} ranks with stacks wait{where}: none is outside the "
                "collective, so the stall is below Python (NCCL, network or GPU)"
            )
        named = ", ".join(f"rank {s.rank} on {s.node} in {s.place()}" for s in self.outliers)
        return (
            f"{named} never reached the collective that {len(self.waiting)} other "
            f"rank{'s' if len(self.waiting) != 1 else ''} wait in"
            f"{' (' + self.common + ')' if self.common else ''}"
        )


def locate(stacks: Sequence[RankStack]) -> HangLocation | None:
    """Compare the ranks' stacks (the latest per rank); None when they cannot tell.

    Outliers are the ranks not waiting while at least two thirds of the ranks wait, so a
    split job (half in one place, half in another) names nobody; a single rank outside while
    every other waits (two ranks: one waits for the other) is named too."""
    latest: dict[int, RankStack] = {}
    for s in stacks:
        if s.frames and (s.rank not in latest or s.line >= latest[s.rank].line):
            latest[s.rank] = s
    if len(latest) < 2:
        return None
    ranks = sorted(latest.values(), key=lambda s: s.rank)
    waiting = tuple(s for s in ranks if s.waiting)
    others = tuple(s for s in ranks if not s.waiting)
    if not waiting:
        return None  # nobody waits: not a collective hang the stacks can place
    common = _common(waiting)
    if others and len(waiting) * 3 < len(ranks) * 2 and len(others) > 1:
        return None  # no clear majority waiting (one rank outside is always the one waited for)
    return HangLocation(ranks=len(ranks), waiting=waiting, outliers=others, common=common)


def stack_findings(location: HangLocation) -> list[Finding]:
    """Evidence lines for the outlier ranks (symptoms: they say where, not what broke)."""
    out = []
    for s in location.outliers:
        where = s.place()
        text = (
            f"hang stacks: rank {s.rank} on {s.node} is in {where} while "
            f"{len(location.waiting)} of {location.ranks} ranks wait"
            f"{' in ' + location.common if location.common else ''}"
        )
        out.append(
            Finding(
                signal="hang.stack_outlier",
                node=s.node,
                source=Source.LOGS,
                line=0,  # derived from the ranks' records; the outlier's own is in details
                text=text,
                blame=Blame.SYMPTOM,
                weight=OUTLIER_WEIGHT,
                at=s.at,
                rank=s.rank,
                details=(("record_line", str(s.line)), ("where", where)),
            )
        )
    return out


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
    where = (
        "; ".join(f.text.removeprefix("hang stacks: ") for f in outliers[:3])
        if outliers
        else "the stacks single out no rank outside a collective (or there are none)"
    )
    return (
        f"hung: the telemetry library's watchdog on {len(ranks)} rank(s) on "
        f"{', '.join(nodes)} saw no progress for up to {idle:.0f} s{limit}; {where}. Nothing "
        "shows a hardware fault or an application error, so the cause is taken as transient: "
        "end the attempt and requeue it from its last checkpoint on the same nodes (hanging "
        "the same way again makes it the job's own failure)"
    )
