"""The live view: one line per event — node states, the job, incidents, recoveries.

`Watcher.poll()` compares what the stores and the scheduler say now with what it said last
and prints what changed (plain `click.echo`, ANSI colour only on a terminal): a node moving
between states, the job's attempt, nodes and step, each job incident as it is opened (cause,
suspects, the decisive evidence line) and as it closes, with its recovery-time breakdown.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import click

from autorecover.controllers.jobs.records import JobIncident, JobStatus
from autorecover.controllers.jobs.timelines import Breakdown, breakdown
from autorecover.demo.stack import JOB, Demo

Echo = Callable[[str], None]


def first_step(log: Path) -> int | None:
    """The first training step an attempt's node log reports (its resume point)."""
    try:
        with log.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if '"event":"step"' in line:
                    return int(json.loads(line)["step"])
    except (OSError, ValueError, KeyError):
        return None
    return None


def current_step(demo: Demo) -> int:
    """The slowest rank's completed steps (the loose collective's position)."""
    steps = []
    for path in (demo.dir / "progress" / JOB).glob("*"):
        try:
            steps.append(int(path.read_text() or "0"))
        except (OSError, ValueError):
            continue
    return min(steps, default=0)


def format_breakdown(b: Breakdown) -> str:
    """The breakdown as one line of seconds."""
    parts = [f"{k.removesuffix('_s')} {v:.2f}s" for k, v in b.as_dict().items() if v is not None]
    return ", ".join(parts)


def incident_line(i: JobIncident) -> str:
    """An opened incident: kind, cause, suspects, action, the decisive evidence line."""
    v = i.verdict
    cause = v.cause.value if v else "-"
    suspects = ",".join(v.suspect_nodes) if v and v.suspect_nodes else "none"
    action = i.decided.action.value if i.decided else "-"
    line = f"incident {i.id}: {i.kind.value}, cause {cause}, suspects {suspects}, → {action}"
    if v and v.evidence:
        e = v.evidence[0]
        line += f"\n      evidence: {e.node} {e.source.value} [{e.signal}] {e.text[:110]}"
    return line


class Watcher:
    """Prints what changed since the last poll."""

    def __init__(self, demo: Demo, echo: Echo = click.echo, step_every_s: float = 2.0) -> None:
        self.demo, self.echo, self.step_every_s = demo, echo, step_every_s
        self.start = time.monotonic()
        self.states: dict[str, str] = {n.name: "healthy" for n in demo.nodes}
        self.job: tuple[object, ...] = ()
        self.incidents: dict[str, str] = {}
        self.breakdowns: dict[str, Breakdown] = {}
        self._last_step_at = 0.0

    def say(self, text: str, colour: str | None = None) -> None:
        """One event line with the time since the start."""
        stamp = f"[{time.monotonic() - self.start:6.2f}s]"
        self.echo(f"{stamp} {click.style(text, fg=colour) if colour else text}")

    def poll(self) -> None:
        """Print every change."""
        d = self.demo
        for node in d.nodes:
            ts = d.store.transitions(node.name)
            state = ts[-1].to.value if ts else "healthy"
            if state != self.states[node.name]:
                why = ts[-1].why[:90] if ts else ""
                colour = "green" if state == "healthy" else "red"
                self.say(f"node {node.name}: {self.states[node.name]} → {state} ({why})", colour)
                self.states[node.name] = state
        try:
            st = d.scheduler.status(JOB)
        except KeyError:  # a restarted demo: the scheduler's jobs died with the old process
            st = None
        if st is not None:
            self._job(st)
        self._incidents()

    def _job(self, st: JobStatus) -> None:
        d = self.demo
        job = (st.attempt, st.phase.value, st.nodes)
        if job != self.job:
            nodes = ",".join(st.nodes) or "-"
            self.say(f"job {JOB}: attempt {st.attempt} {st.phase.value} on {nodes}", "cyan")
            self.job = job
        now = time.monotonic()
        if st.phase.value == "running" and now - self._last_step_at >= self.step_every_s:
            self.say(f"job {JOB}: step {current_step(d)}")
            self._last_step_at = now

    def _incidents(self) -> None:
        d = self.demo
        for i in d.job_store.incidents(JOB):
            phase = i.phase.value
            if i.id not in self.incidents:
                self.say(incident_line(i), "yellow")
            elif self.incidents[i.id] != phase:
                self.say(f"incident {i.id}: {self.incidents[i.id]} → {phase} {i.outcome}")
            if phase in ("closed", "failed") and i.id not in self.breakdowns:
                b = breakdown(d.job_store.timeline(i.id))
                self.breakdowns[i.id] = b
                if b.total_s is not None or b.engine_s is not None:
                    self.say(f"recovery {i.id}: {format_breakdown(b)}", "green")
            self.incidents[i.id] = phase
