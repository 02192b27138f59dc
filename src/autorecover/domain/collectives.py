"""Where a hung job is stuck, by PyTorch's flight recorder: each rank's collectives compared.

A `hang` record of the telemetry library carries, where torch runs with its flight recorder,
a summary per process group of the rank's collectives: the newest one's sequence id, op and
state (`docs/telemetry.md`). Collectives of a group run in the same order on every member,
so at a hang the members that reached collective N wait in it, and a member whose newest
collective is older never entered it: that is the rank the others wait for. A member in
another op at the same sequence id (a broadcast where the others all-reduce) has called the
collectives in another order: the others wait for it too. Unlike the Python stacks, this holds
where the stacks say little (NCCL collectives are asynchronous, so a rank's Python stack can be
anywhere past them; under DDP every rank's stack is in backward).

Rules, per group reported by at least two ranks, at its newest collective N that some member
has not completed:
* **behind**: members whose newest collective is older than N are named when they are one
  rank, or at most a third of the members (a split group names nobody);
* **mismatch**: members at N whose op differs from the op most of the members at N are in.
A rank behind in one group while it waits in another group's collective is itself waiting:
when some named rank waits in no collective at all, only those are named (the root of the
chain). Every member waiting in the same collective names nobody: the stall is below Python.
A rank whose summary lacks a group is not counted for it: a group shows up in a rank's
recorder only once the rank used it, so absence cannot tell "never called" from "not a member".

Pure functions; `domain/hangs.py` turns the result into evidence beside the stacks'.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

COMPLETED = "completed"


@dataclass(frozen=True, slots=True)
class GroupState:
    """One process group as one rank's flight recorder saw it at its hang record."""

    group: str  # the process group's name ("0" is the default group)
    seq: int | None  # the newest collective's sequence id
    op: str | None = None  # its profiling name, e.g. "nccl:all_reduce"
    state: str | None = None  # "scheduled", "started" or "completed"
    desc: str | None = None  # the group's description, e.g. "default_pg"

    @property
    def waiting(self) -> bool:
        """In a collective it has not completed."""
        return self.seq is not None and self.state not in (None, COMPLETED)

    def named(self) -> str:
        """`#5 (gloo:all_reduce)`."""
        return f"#{self.seq}" + (f" ({self.op})" if self.op else "")


@dataclass(frozen=True, slots=True)
class Outlier:
    """One rank the others wait for in one group, and why."""

    rank: int
    kind: str  # "behind" or "mismatch"
    group: str
    target: GroupState  # the collective the others wait in (majority op)
    waiting: int  # how many members wait in it
    members: int  # how many ranks reported the group
    own: GroupState  # the rank's own newest collective there

    def where(self) -> str:
        """What the rank did instead, in words."""
        own = f"its newest is {self.own.named()}, {self.own.state or 'state unknown'}"
        if self.kind == "mismatch":
            return (
                f"in {self.own.op or 'another op'} at collective #{self.target.seq} of group "
                f"{_group(self.target)}, where {self.waiting} of {self.members} ranks are in "
                f"{self.target.op}"
            )
        target = f"{self.target.named()} of group {_group(self.target)}"
        return f"never entered collective {target} ({own})"


@dataclass(frozen=True, slots=True)
class CollectiveLocation:
    """What the flight recorders say: the ranks named, and groups every member waits in."""

    ranks: int  # ranks with a summary
    outliers: tuple[Outlier, ...]
    stuck: tuple[tuple[GroupState, int], ...]  # (collective, members) all waiting in it

    def summary(self) -> str:
        """One sentence a person can read."""
        if self.outliers:
            return "; ".join(
                f"rank {o.rank} {o.where()}, which {o.waiting} of {o.members} ranks wait in"
                if o.kind == "behind"
                else f"rank {o.rank} is {o.where()}"
                for o in self.outliers[:3]
            )
        target, members = self.stuck[0]
        return (
            f"all {members} ranks of group {_group(target)} wait in collective "
            f"{target.named()}: the flight recorder names none"
        )


def compare(ranks: Mapping[int, Sequence[GroupState]]) -> CollectiveLocation | None:
    """Compare the ranks' flight-recorder summaries (see the module docstring); None when
    no group has a collective some member waits in."""
    by_group: dict[str, dict[int, GroupState]] = {}
    for rank, groups in ranks.items():
        for g in groups:
            if g.seq is not None:
                by_group.setdefault(g.group, {})[rank] = g
    found: list[Outlier] = []
    stuck: list[tuple[GroupState, int]] = []
    for name in sorted(by_group):
        members = by_group[name]
        if len(members) < 2:
            continue
        outliers, all_wait = _group_outliers(members)
        found.extend(outliers)
        if all_wait is not None:
            stuck.append((all_wait, len(members)))
    if not found and not stuck:
        return None
    blocked = {r for r, groups in ranks.items() if any(g.waiting for g in groups)}
    roots = [o for o in found if o.kind == "mismatch" or o.rank not in blocked]
    chosen: dict[int, Outlier] = {}
    for o in sorted(roots or found, key=lambda o: (-o.waiting, o.group)):
        chosen.setdefault(o.rank, o)  # one reason per rank: the group most ranks wait in
    named = tuple(sorted(chosen.values(), key=lambda o: o.rank))
    return CollectiveLocation(ranks=len(ranks), outliers=named, stuck=tuple(stuck))


def _group_outliers(
    members: Mapping[int, GroupState],
) -> tuple[list[Outlier], GroupState | None]:
    """One group's outliers, or the collective every member waits in (else None)."""
    newest = max(g.seq for g in members.values() if g.seq is not None)
    at_newest = {r: g for r, g in members.items() if g.seq == newest}
    waiting = {r: g for r, g in at_newest.items() if g.waiting}
    if not waiting:
        return [], None  # the newest collective completed: not where this group is stuck
    (op, count), *_ = Counter(g.op for g in waiting.values()).most_common(1)
    target = next(g for g in waiting.values() if g.op == op)
    out: list[Outlier] = []
    if count * 2 > len(at_newest):
        out.extend(
            Outlier(r, "mismatch", target.group, target, count, len(members), g)
            for r, g in sorted(at_newest.items())
            if g.op != op
        )
    behind = {r: g for r, g in members.items() if g.seq is not None and g.seq < newest}
    if behind and (len(behind) == 1 or len(behind) * 3 <= len(members)):
        out.extend(
            Outlier(r, "behind", target.group, target, len(waiting), len(members), g)
            for r, g in sorted(behind.items())
        )
    all_wait = target if not behind and not out and len(waiting) == len(members) else None
    return out, all_wait


def _group(g: GroupState) -> str:
    return f"{g.group} ({g.desc})" if g.desc and g.desc != g.group else g.group
