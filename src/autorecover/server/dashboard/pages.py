"""The incident, job and node pages, built from the same records the JSON API returns.

A field the engine does not record is not shown (no goodput estimate, no invented numbers):
what a page shows is what `GET /api/v1/...` answers for the same thing, evidence withheld
from a caller without the `evidence` role just as the API withholds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from autorecover.server.dashboard.fleet import LETTER
from autorecover.server.dashboard.forms import quote
from autorecover.server.dashboard.markup import esc, link, table, when
from autorecover.server.schemas import IncidentDetail, IncidentOut, NodeDetail

# The recovery-time parts in the order they happen (`controllers.jobs.timelines.Breakdown`).
PARTS = (
    ("detect_s", "detect"), ("decide_s", "decide"), ("stop_s", "stop"),
    ("reschedule_s", "reschedule"), ("start_s", "start"),
    ("checkpoint_load_s", "checkpoint load"), ("first_step_s", "first step"),
    ("lost_work_s", "lost work"),
)  # fmt: skip
STATE_CLASS = {state.value: letter for state, letter in LETTER.items()}
WITHHELD = '<p class="none">Evidence withheld: it needs the evidence role.</p>'


def path(*parts: str) -> str:
    """A dashboard path from raw parts, each quoted (incident ids hold `/` and `#`)."""
    return "/".join(quote(p) for p in parts)


@dataclass(frozen=True, slots=True)
class IncidentFilters:
    """What the incident list narrows to (empty: everything)."""

    cause: str = ""
    node: str = ""
    job: str = ""
    state: str = ""

    def keeps(self, i: IncidentOut) -> bool:
        """Whether an incident passes every filter."""
        return (
            (not self.cause or self.cause == i.cause)
            and (not self.node or self.node in i.nodes)
            and (not self.job or (i.source == "jobs" and i.id.startswith(f"{self.job}#")))
            and (not self.state or self.state == i.state)
        )


def render_incidents(
    found: Sequence[IncidentOut], f: IncidentFilters, cut: int | None = None
) -> str:
    """The incident list, newest first, with its filters; `cut`: the newest so many of more."""
    rows = [
        (
            link(path("incidents", i.id), i.id),
            f'<span class="st {esc(i.state)}">{esc(i.state)}</span>',
            esc(i.source), esc(i.kind), esc(i.cause),
            " ".join(link(path("nodes", n), n) for n in i.nodes[:8])
            + (f" +{len(i.nodes) - 8}" if len(i.nodes) > 8 else ""),
            when(i.opened_at), esc(i.summary[:200]),
        )
        for i in sorted(found, key=lambda i: (i.opened_at, i.id), reverse=True)
        if f.keeps(i)
    ]  # fmt: skip
    causes = sorted({i.cause for i in found})
    options = "".join(
        f"<option{' selected' if c == f.cause else ''}>{esc(c)}</option>" for c in causes
    )
    states = "".join(
        f"<option{' selected' if s == f.state else ''}>{s}</option>" for s in ("open", "closed")
    )
    form = (
        '<form class="filters" method="get" action="/ui/incidents">'
        f'<select name="cause" aria-label="cause"><option value="">any cause</option>{options}'
        f'</select><input name="node" value="{esc(f.node)}" placeholder="node" '
        f'aria-label="node"><input name="job" value="{esc(f.job)}" placeholder="job" '
        f'aria-label="job"><select name="state" aria-label="state"><option value="">any state'
        f"</option>{states}</select><button>Filter</button></form>"
    )
    head = ("incident", "state", "source", "kind", "cause", "nodes", "opened", "summary")
    note = ""
    if cut is not None:
        kept = "".join(f"&amp;{k}={quote(v)}" for k, v in
                       (("cause", f.cause), ("node", f.node), ("job", f.job)) if v)  # fmt: skip
        more = f'<a href="/ui/incidents?limit={cut * 10}{kept}">the newest {cut * 10:,}</a>'
        note = (f'<p class="shown">The newest {cut:,} incidents, which the filters narrow '
                f"(with the state open, every open one is listed); {more}.</p>")  # fmt: skip
    return form + note + f'<div id="incidents">{table(head, rows, "list")}</div>'


def render_incident(
    i: IncidentDetail,
    parts: Sequence[tuple[str, float]],
    parts_title: str,
    provenance: Mapping[tuple[datetime, str, str], str],
    *,
    line_nodes: Mapping[str, str],
    evidence: bool,
    controls: str,
) -> str:
    """One incident: verdict and why, evidence (each line with its node where the line does
    not say it: `line_nodes`), the timeline with who did what, the bar."""
    nodes = " ".join(link(path("nodes", n), n) for n in i.nodes) or "-"
    head = (
        f'<dl class="facts"><dt>state</dt><dd><span class="st {esc(i.state)}">{esc(i.state)}'
        f"</span></dd><dt>verdict</dt><dd>{esc(i.cause)} ({esc(i.source)}, {esc(i.kind)})</dd>"
        f"<dt>why</dt><dd>{esc(i.summary)}</dd><dt>nodes</dt><dd>{nodes}</dd>"
        f"<dt>opened</dt><dd>{when(i.opened_at)}</dd><dt>updated</dt><dd>{when(i.updated_at)}"
        "</dd></dl>"
    )
    if not evidence:
        lines = WITHHELD
    elif i.evidence:
        lines = '<ol class="evidence">' + "".join(
            f"<li>{link(path('nodes', n), n) + ' ' if (n := line_nodes.get(e)) else ''}"
            f"<code>{esc(e)}</code></li>"
            for e in i.evidence
        ) + "</ol>"  # fmt: skip
    else:
        lines = '<p class="none">No evidence lines recorded.</p>'
    rows = [
        (when(e.at), esc(e.what), link(path("nodes", e.node), e.node) if e.node else "",
         esc(provenance.get((e.at, e.node, e.what), "")), esc(e.text))
        for e in i.timeline
    ]  # fmt: skip
    return (
        f"{head}{controls}<h2>Recovery time</h2>{bar(parts, parts_title)}"
        f"<h2>Evidence</h2>{lines}<h2>Timeline</h2>"
        f"{table(('at', 'what', 'node', 'by', 'detail'), rows, 'timeline')}"
    )


def bar(parts: Sequence[tuple[str, float]], title: str) -> str:
    """Seconds by part as one horizontal bar (SVG: no inline style under the CSP); a part
    named after a lifecycle state takes that state's colour, others a palette's."""
    shown = [(name, s) for name, s in parts if s > 0]
    if not shown:
        return '<p class="none">No recovery-time marks recorded for this incident.</p>'
    total = sum(s for _, s in shown)
    x, rects, legend = 0.0, [], []
    for n, (name, seconds) in enumerate(shown):
        width = 1000 * seconds / total
        cls = f"k{STATE_CLASS[name]}" if name in STATE_CLASS else f"p{n % 8}"
        rects.append(
            f'<rect class="{cls}" x="{x:.1f}" y="0" width="{width:.1f}" height="28">'
            f"<title>{esc(name)}: {seconds:.2f} s</title></rect>"
        )
        legend.append(f'<li><i class="{cls}"></i>{esc(name)} {seconds:.2f} s</li>')
        x += width
    return (
        f'<figure class="bar"><figcaption>{esc(title)}: {total:.2f} s</figcaption>'
        f'<svg viewBox="0 0 1000 28" preserveAspectRatio="none" role="img" '
        f'aria-label="{esc(title)}">{"".join(rects)}</svg>'
        f'<ul class="legend">{"".join(legend)}</ul></figure>'
    )


def job_parts(found: Mapping[str, float | None] | None) -> list[tuple[str, float]]:
    """A job incident's breakdown as the bar's parts (missing marks left out)."""
    if not found:
        return []
    return [(label, v) for key, label in PARTS if (v := found.get(key)) is not None]


def state_parts(i: IncidentDetail, now: datetime) -> list[tuple[str, float]]:
    """A hardware incident's time in each lifecycle state, summed over its nodes, from its
    transitions (`A -> B: why`); the last state runs to its return to service, or to now."""
    entered: dict[str, tuple[str, datetime]] = {}
    spent: dict[str, float] = {}
    for e in i.timeline:
        if e.what != "transition" or " -> " not in e.text:
            continue
        to = e.text.split(" -> ", 1)[1].split(":", 1)[0].strip()
        if e.node in entered:
            state, since = entered[e.node]
            spent[state] = spent.get(state, 0.0) + (e.at - since).total_seconds()
        entered[e.node] = (to, e.at)
    for state, since in entered.values():
        if state != "healthy":
            spent[state] = spent.get(state, 0.0) + (now - since).total_seconds()
    return [(s, v) for s, v in spent.items() if s != "healthy"]


def render_jobs(
    jobs: Sequence[Mapping[str, Any]], lost: Mapping[str, float], budgets: Mapping[str, int]
) -> str:
    """Every job job recovery remembers: attempts, causes, restart budgets spent (against the
    policy's `budgets` by name; a job's own settings may lower them), exclusions, incidents."""
    rows = []
    for j in jobs:
        name = str(j.get("job", ""))
        attempts = [a for a in j.get("attempts") or [] if isinstance(a, dict)]
        causes = sorted({str(a.get("cause")) for a in attempts})
        spent = {
            b: sum(1 for a in attempts if a.get("budget") == b and a.get("action") != "stop")
            for b in budgets
        }
        used = ", ".join(f"{b} {spent[b]} of {n}" for b, n in budgets.items())
        rows.append((
            esc(name), esc(j.get("recovery")), esc(j.get("restarts")), esc(used),
            esc(", ".join(causes) or "-"), esc(j.get("last_action") or "-"),
            " ".join(link(path("nodes", n), n) for n in j.get("exclusions") or []) or "-",
            " ".join(link(path("incidents", i), i) for i in j.get("open_incidents") or [])
            or "-",
            f"{lost[name]:.1f}" if name in lost else "-",
            esc("; ".join(str(e) for e in (j.get("events") or [])[-3:])),
        ))  # fmt: skip
    head = ("job", "recovery", "restarts", "budgets spent", "causes", "last action",
            "excluded nodes", "open incidents", "lost work (s)", "notes")  # fmt: skip
    return f'<div id="jobs">{table(head, rows, "list")}</div>'


def render_node(d: NodeDetail, *, evidence: bool, controls: str) -> str:
    """One node: where it stands, its lifecycle path, the ladder's rungs, its signals."""
    incident = link(path("incidents", d.incident), d.incident) if d.incident else "-"
    held = (
        f"{esc(d.maintenance.by)}: {esc(d.maintenance.why)} ({when(d.maintenance.at)})"
        if d.maintenance else "no"
    )  # fmt: skip
    facts = (
        f'<dl class="facts"><dt>state</dt><dd><span class="cellkey {esc(d.state)}"></span>'
        f'<b id="state">{esc(d.state)}</b> since {when(d.since)}</dd>'
        f"<dt>why</dt><dd>{esc(d.reason) or '-'}</dd><dt>incident</dt><dd>{incident}</dd>"
        f"<dt>ladder step</dt><dd>{esc(d.step or '-')}</dd><dt>held by the breaker</dt>"
        f"<dd>{esc(d.held or 'no')}</dd><dt>maintenance</dt><dd>{held}</dd>"
        f"<dt>last report</dt><dd>{when(d.last_seen)}</dd></dl>"
    )
    path_rows = [
        (when(t.at), f"{esc(t.from_state)} → <b>{esc(t.to_state)}</b>", esc(t.by), esc(t.why),
         link(path("incidents", t.incident), t.incident) if t.incident else "")
        for t in d.transitions
    ]  # fmt: skip
    rungs = [
        (when(a.at), esc(a.kind), f'<span class="st {esc(a.status)}">{esc(a.status)}</span>',
         esc(a.by), esc(a.why), esc(a.result))
        for a in d.actions
    ]  # fmt: skip
    signals = (
        table(("at", "probe", "signal", "blame", "weight", "asks", "count", "line"), [
            (when(s.at), esc(s.probe), esc(s.signal), esc(s.blame), esc(s.weight),
             esc(s.node_action), esc(s.count), f"<code>{esc(s.text)}</code>")
            for s in reversed(d.signals)
        ], "list")
        if evidence else WITHHELD
    )  # fmt: skip
    audit = [
        (when(r.at), esc(r.kind), esc(r.by), esc(r.source), esc(r.why), esc(r.status))
        for r in d.audit
    ]
    return (
        f"{facts}{controls}<h2>Lifecycle path</h2>"
        f"{table(('at', 'move', 'by', 'why', 'incident'), path_rows, 'list')}"
        "<h2>Remediation ladder and diagnostics</h2>"
        f"{table(('at', 'action', 'status', 'by', 'why', 'result'), rungs, 'list')}"
        f"<h2>Signals</h2>{signals}<h2>People's requests</h2>"
        f"{table(('at', 'request', 'by', 'from', 'why', 'status'), audit, 'list')}"
    )
