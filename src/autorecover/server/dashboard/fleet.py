"""The fleet page: every node as one small cell, grouped by failure domain, coloured by state.

Built for 12,500 nodes: a cell is one `<i>` with a one-letter class and the node's name as
its title (the colours live in the stylesheet; a click is handled once, on the grid, by the
script), so the page stays a few hundred kilobytes before compression. Counts, the breaker
and its budget are over the whole fleet; the filters narrow only the cells shown.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from autorecover.adapters.store.base import NodeView
from autorecover.domain.failure_domains import DomainKind, Topology
from autorecover.domain.hardware.breaker import BreakerLimits, BreakerState, fleet_limit, out_limit
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.hardware.records import NodeRecord
from autorecover.server.dashboard.markup import ROOT, esc, when

# One letter per state: the cell's class (colours: static/dashboard.css). Persisted in the
# stylesheet and the browser tests; keep them in step.
LETTER: Mapping[NodeState, str] = {
    NodeState.HEALTHY: "h",
    NodeState.SUSPECT: "s",
    NodeState.QUARANTINED: "q",
    NodeState.DIAGNOSING: "d",
    NodeState.REMEDIATING: "r",
    NodeState.VALIDATING: "v",
    NodeState.NEEDS_ATTENTION: "n",
}
KINDS = tuple(k.value for k in DomainKind)


@dataclass(frozen=True, slots=True)
class Filters:
    """What the fleet page narrows its cells to (empty: everything)."""

    state: str = ""
    domain: str = ""  # `rack:r1`, `nvlink:...`, `ib_leaf:...`
    signal: str = ""  # a substring of a signal key or evidence line on the node's record
    group: str = ""  # the domain kind cells are grouped by; empty: the first the fleet has


@dataclass(frozen=True, slots=True)
class Budget:
    """The breaker as the fleet page shows it: its state and how much of its budget is used."""

    state: BreakerState
    limits: BreakerLimits
    fleet_size: int
    removed: int  # nodes taken out of service within the window
    out_now: int  # nodes out of service now
    paused: bool = False
    maintenance: Sequence[str] = field(default_factory=tuple)


def fleet_names(views: Iterable[NodeView], topology: Topology) -> list[str]:
    """Every node the engine knows, by name: on record, or placed by the topology."""
    return sorted({v.record.node for v in views} | topology.domains.keys())


def node_view(views: Iterable[NodeView], topology: Topology, name: str) -> NodeView | None:
    """One node as the fleet knows it: its record, or a healthy one when only the topology
    places it; None when it is neither."""
    found = next((v for v in views if v.record.node == name), None)
    if found is None and name in topology.domains:
        return NodeView(NodeRecord(name), None)
    return found


def _matches(r: NodeRecord | None, name: str, topology: Topology, f: Filters) -> bool:
    if f.state and (r.state.value if r else NodeState.HEALTHY.value) != f.state:
        return False
    if f.domain and f.domain not in {str(d) for d in topology.of(name)}:
        return False
    if f.signal:
        if r is None:
            return False
        keys = [m.key for m in r.marks] + list(r.evidence) + [r.reason]
        return any(f.signal in k for k in keys)
    return True


def group_kind(names: Sequence[str], topology: Topology, wanted: str) -> str | None:
    """The kind cells are grouped by: the one asked for, else the first kind any node has."""
    if wanted in KINDS:
        return wanted
    present = {d.kind.value for n in names for d in topology.of(n)}
    return next((k for k in KINDS if k in present), None)


@dataclass(frozen=True, slots=True)
class Grid:
    """What the fleet page shows of the nodes' records: the same until a record changes, so
    the dashboard keeps it per store version and filters (`GridCache`)."""

    counts: str  # the state chips
    cells: str  # the filters, the shown line, the cells by domain
    nodes: int
    out_now: int  # nodes out of service now


def render_grid(
    views: Sequence[NodeView], topology: Topology, f: Filters, maintenance: Collection[str]
) -> Grid:
    """The counts and cells. Nodes only the topology places are healthy: no record is made
    for them."""
    records = {v.record.node: v.record for v in views}
    names = fleet_names(views, topology)
    counts = dict.fromkeys(LETTER, 0)
    for record in records.values():
        counts[record.state] += 1
    counts[NodeState.HEALTHY] += len(names) - len(records)
    kind = group_kind(names, topology, f.group)
    other = f"no {kind or 'failure domain'}"
    groups: dict[str, list[str]] = {}
    held = set(maintenance)
    filtered = bool(f.state or f.domain or f.signal)
    for name in names:
        r = records.get(name)
        if filtered and not _matches(r, name, topology, f):
            continue
        label = other
        for d in topology.of(name):
            if d.kind.value == kind:
                label = f"{kind}:{d.name}"
                break
        cls = LETTER[r.state] if r else "h"
        if held and (f"node:{name}" in held):
            cls += " m"
        groups.setdefault(label, []).append(f'<i class="{cls}" title="{esc(name)}"></i>')
    shown = sum(len(cells) for cells in groups.values())
    chips = "".join(
        f'<a class="chip {LETTER[s]}" href="{ROOT}/fleet?state={s.value}">'
        f'{s.value.replace("_", " ")} <b data-count="{s.value}">{n}</b></a>'
        for s, n in counts.items()
    )
    sections = "".join(
        f'<section class="dom"><h3>{esc(label)} <small>{len(cells)}</small></h3>'
        f'<div class="cells">{"".join(cells)}</div></section>'
        for label, cells in sorted(groups.items())
    )
    return Grid(
        counts=f'<div class="counts">{chips}<span class="total">{len(names)} nodes</span></div>',
        cells=f"{_filters(f, kind)}"
        f'<p class="shown">{shown} shown{" (filtered)" if shown != len(names) else ""}</p>'
        f'<div id="fleet" class="fleet" data-root="{ROOT}">{sections}</div>',
        nodes=len(names),
        out_now=len(names) - counts[NodeState.HEALTHY],
    )


def render_fleet(grid: Grid, budget: Budget, under: str) -> str:
    """The fleet page's body; `under` goes under the breaker's line (the operator's forms,
    the out-of-service history)."""
    return f"{grid.counts}{_breaker(budget)}{under}{grid.cells}"


class GridCache:
    """The latest grids by (store version, filters), each kept at most `ttl_s`: a record can
    change without a transition (a signal's mark), so even an unchanged version is re-read."""

    def __init__(self, ttl_s: float = 5.0, size: int = 16,
                 monotonic: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self._ttl_s, self._size, self._monotonic = ttl_s, size, monotonic
        self._grids: OrderedDict[tuple[str, Filters], tuple[float, Grid]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, version: str, f: Filters, make: Callable[[], Grid]) -> Grid:
        """The grid for this version and these filters, made when not kept (or too old)."""
        now = self._monotonic()
        with self._lock:
            found = self._grids.get((version, f))
            if found is not None and now - found[0] < self._ttl_s:
                return found[1]
        grid = make()
        with self._lock:
            self._grids[(version, f)] = (now, grid)
            while len(self._grids) > self._size:
                self._grids.popitem(last=False)
        return grid


def _breaker(b: Budget) -> str:
    limit = fleet_limit(b.limits, b.fleet_size)
    most_out = out_limit(b.limits, b.fleet_size)
    window = int(b.limits.window.total_seconds())
    if b.state.tripped:
        state = f'<b class="bad">tripped</b> {when(b.state.tripped_at)}: {esc(b.state.reason)}'
    else:
        state = '<b class="ok">closed</b>'
        if b.state.reset_at is not None:
            state += f" (reset {when(b.state.reset_at)} by {esc(b.state.reset_by)})"
    acting = '<b class="bad">paused</b>' if b.paused else '<b class="ok">acting</b>'
    used = min(100, round(100 * b.removed / limit)) if limit else 100
    return (
        f'<div class="breaker" id="breaker">Breaker {state}; '
        f"removals in the last {window}s: <b>{b.removed}</b> of {limit} "
        f'<meter min="0" max="100" value="{used}" title="{used}% of the budget"></meter>; '
        f"out of service now: <b>{b.out_now}</b> of {most_out}; fleet {b.fleet_size}; "
        f"engine {acting}; in maintenance: {len(b.maintenance)}</div>"
    )


def _filters(f: Filters, kind: str | None) -> str:
    states = "".join(
        f'<option value="{s.value}"{" selected" if s.value == f.state else ""}>{s.value}</option>'
        for s in LETTER
    )
    kinds = "".join(
        f'<option value="{k}"{" selected" if k == kind else ""}>{k}</option>' for k in KINDS
    )
    return (
        f'<form class="filters" method="get" action="{ROOT}/fleet">'
        f'<select name="state" aria-label="state"><option value="">any state</option>{states}'
        f'</select><input name="domain" value="{esc(f.domain)}" placeholder="rack:r1" '
        f'aria-label="failure domain"><input name="signal" value="{esc(f.signal)}" '
        f'placeholder="signal, e.g. xid.79" aria-label="signal">'
        f'<select name="group" aria-label="group by">{kinds}</select>'
        "<button>Filter</button></form>"
    )
