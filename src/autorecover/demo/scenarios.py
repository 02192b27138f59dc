"""Scripted scenarios: a fresh cluster per fault, the fault injected once the job has
checkpointed, and the ending checked against what the fault should lead to.

Hardware: cause hardware naming the node, the node quarantined, the new attempt without it,
resumed from a checkpoint (step > 0), the kernel line in the evidence. Transient (the NCCL
timeout) and unknown (a bare `kill -9` leaves no evidence): a plain requeue on the same
nodes, no node out of service. Application: weak evidence is confirmed by one retry, then the
job is stopped; no node out of service. Hang: a `hang` incident, attributed to the silent
node, the job moved off it and resumed.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from autorecover.controllers.jobs.records import JobIncident
from autorecover.controllers.jobs.timelines import Breakdown, breakdown
from autorecover.demo.faults import KERNEL_LINES, inject
from autorecover.demo.stack import JOB, Demo, DemoSettings
from autorecover.demo.view import Echo, Watcher, current_step, first_step

EXPECT = {
    "xid79": "hardware", "xid48": "hardware", "nvlink": "hardware", "ib-link-down": "hardware",
    "hang": "hang", "rank-crash": "unknown", "app-error": "application",
    "nccl-timeout": "transient",
}  # fmt: skip
SCENARIOS = tuple(EXPECT)


@dataclass(slots=True)
class Outcome:
    """How one scenario ended."""

    scenario: str
    node: str = ""
    problems: list[str] = field(default_factory=list)
    breakdown: Breakdown | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Ended as expected."""
        return not self.problems


def run_scenario(
    directory: Path,
    scenario: str,
    echo: Echo,
    settings: DemoSettings | None = None,
    timeout_s: float = 30.0,
    crash_after: str | None = None,
) -> Outcome:
    """Run one scenario in `directory` (a fresh cluster); bounded by `timeout_s`."""
    started = time.monotonic()
    deadline = started + timeout_s
    demo = Demo(directory, settings)
    watch = Watcher(demo, echo)
    outcome = Outcome(scenario)
    if demo.dashboard_error:
        watch.say(demo.dashboard_error)
    try:
        demo.submit()
        watch.say(f"scenario {scenario}: job {JOB} starting on {demo.settings.job_nodes} nodes")
        if not _until(demo, watch, deadline, lambda: _checkpointed(demo)):
            outcome.problems.append("the job never checkpointed")
            return outcome
        outcome.node = node = demo.scheduler.status(JOB).nodes[0]
        watch.say(inject(demo.dir, scenario, node), "magenta")
        if not _until(demo, watch, deadline, lambda: _ended(demo, crash_after)):
            outcome.problems.append(f"no ending within {timeout_s:.0f} s")
        outcome.problems.extend(check(demo, scenario, node))
        first = _incident(demo)
        if first is not None:
            outcome.breakdown = breakdown(demo.job_store.timeline(first.id))
        return outcome
    finally:
        demo.close()
        outcome.seconds = time.monotonic() - started


def _until(demo: Demo, watch: Watcher, deadline: float, done: object) -> bool:
    assert callable(done)
    while time.monotonic() < deadline:
        demo.tick()
        watch.poll()
        if done():
            return True
        time.sleep(demo.settings.tick_s)
    return False


def _checkpointed(demo: Demo) -> bool:
    s = demo.settings
    ckpt = demo.dir / "ckpt" / JOB
    every = all(any((ckpt / str(r)).glob("step_*.json")) for r in range(s.job_nodes))
    return every and current_step(demo) >= s.checkpoint_every + 2 * s.log_interval


def _incident(demo: Demo) -> JobIncident | None:
    found = [i for i in demo.job_store.incidents(JOB) if i.attempt == 0]
    return found[0] if found else None


def _ended(demo: Demo, crash_after: str | None) -> bool:
    i = _incident(demo)
    if i is None:
        return False
    if crash_after == "requeue" and any(
        a.status.value == "done" and a.action.kind.value.startswith("requeue")
        for a in demo.job_store.actions(JOB)
    ):
        os.kill(os.getpid(), signal.SIGKILL)  # the kill-and-restart test's crash
    if i.phase.value == "failed":
        return True
    last = demo.job_store.incidents(JOB)[-1]
    if last.decided is not None and last.decided.action.value == "stop":
        return last.phase.value == "closed" and demo.scheduler.status(JOB).phase.value != "running"
    return i.phase.value == "closed" and (
        last.decided is None
        or last.decided.action.value != "requeue"
        or i.verdict is None
        or i.verdict.cause.value != "application"
    )


def check(demo: Demo, scenario: str, node: str) -> list[str]:
    """What differs from the expected ending (empty: as expected)."""
    expect, problems = EXPECT[scenario], []
    i = _incident(demo)
    if i is None or i.verdict is None or i.decided is None:
        return ["no incident was decided"]
    cause, action = i.verdict.cause.value, i.decided.action.value
    states = {n.name: {t.to.value for t in demo.store.transitions(n.name)} for n in demo.nodes}
    status = demo.scheduler.status(JOB)
    want_cause = "hardware" if expect == "hang" else expect
    if cause != want_cause:
        problems.append(f"cause {cause}, expected {want_cause}")
    if expect == "hang" and i.kind.value != "hang":
        problems.append(f"incident kind {i.kind.value}, expected hang")
    if expect in ("hardware", "hang"):
        if node not in i.verdict.suspect_nodes:
            problems.append(f"{node} not among the suspects {i.verdict.suspect_nodes}")
        if node in status.nodes:
            problems.append(f"attempt {status.attempt} still runs on {node}")
    if expect == "hardware":
        if "quarantined" not in states[node]:
            problems.append(f"{node} was never quarantined ({sorted(states[node])})")
        needle = KERNEL_LINES[scenario].split(":", 1)[0]
        if not any(needle in e.text for e in i.verdict.evidence):
            problems.append("the kernel line is not in the evidence")
    if expect in ("transient", "unknown"):
        if action != "requeue" or status.attempt < 1:
            problems.append(f"action {action} (attempt {status.attempt}), expected a requeue")
        old = demo.scheduler.output_path(JOB, 0, node).parent
        if sorted(status.nodes) != sorted(p.stem for p in old.glob("*.log")):
            problems.append(f"retried on {status.nodes}, not the same nodes")
    if expect in ("transient", "unknown", "application") and any(states.values()):
        problems.append(f"a node left healthy: {states}")
    if expect == "application":
        last = demo.job_store.incidents(JOB)[-1]
        final = last.decided.action.value if last.decided else "-"
        if final != "stop" or status.phase.value == "running":
            problems.append(f"last action {final}, job {status.phase.value}: expected stopped")
    elif not problems:
        steps = [
            first_step(demo.scheduler.output_path(JOB, status.attempt, n)) for n in status.nodes
        ]
        if not any(s for s in steps if s):
            problems.append(f"attempt {status.attempt} did not resume from a checkpoint: {steps}")
    return problems
