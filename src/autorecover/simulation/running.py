"""A whole run: one fleet, one seeded trace, every policy asked for, side by side.

Each policy gets its own copy of the fleet (the truth changes with what a policy does: an RMA
replaces a lemon's part) but the same trace, so the differences are the policies'.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from autorecover.domain.jobs.policy import builtin_job_policy
from autorecover.simulation.faults import Trace, draw_trace, pareto_weights
from autorecover.simulation.fleet import Fleet
from autorecover.simulation.jobs import Job
from autorecover.simulation.policies import Blind, CordonAll, Ideal, Manual
from autorecover.simulation.recovering import Autorecover, Proactive
from autorecover.simulation.settings import Study, World
from autorecover.simulation.simulating import Outcome, Policy, Simulation

JOB_OVERRIDES = "--job-override"  # where the jobs' own settings come from, in errors
POLICIES: dict[str, type[Policy]] = {
    p.name: p for p in (Manual, Blind, CordonAll, Autorecover, Proactive, Ideal)
}


@dataclass(frozen=True, slots=True)
class Options:
    """What to simulate."""

    gpus: int = 16_384
    days: float = 54.0
    seed: int = 1
    policies: tuple[str, ...] = tuple(POLICIES)
    rate_scale: float = 1.0  # multiplies every failure rate of the study
    # Per-job settings of job recovery, as a job's own annotation or Slurm comment sets them
    # (`JobPolicy` field names), for policies 4 and 4b.
    job_overrides: tuple[tuple[str, object], ...] = ()


@dataclass(slots=True)
class Run:
    """The fleet, its jobs and the trace every policy runs on."""

    options: Options
    study: Study
    world: World
    nodes: int
    job_gpus: list[int]
    weights: list[float]
    trace: Trace
    outcomes: list[Outcome] = field(default_factory=list)


def prepare(options: Options, study: Study, world: World) -> Run:
    """Size the fleet and jobs, and draw the trace."""
    unknown = [p for p in options.policies if p not in POLICIES]
    if unknown:
        raise ValueError(f"unknown policy {unknown[0]!r} (known: {', '.join(POLICIES)})")
    builtin_job_policy().merged(dict(options.job_overrides), JOB_OVERRIDES)  # refused early
    gpn = int(world.fleet["gpus_per_node"])
    if options.gpus < gpn:
        raise ValueError(f"--gpus must be at least one node ({gpn} GPUs)")
    biggest = int(world.fleet["max_job_gpus"]) // gpn * gpn
    job_gpus, left = [], options.gpus // gpn * gpn
    while left > 0:
        job_gpus.append(min(left, biggest))
        left -= job_gpus[-1]
    job_nodes = sum(g // gpn for g in job_gpus)
    nodes = job_nodes + max(1, math.ceil(job_nodes * world.fleet["spare_fraction"]))
    rng = random.Random(options.seed)  # noqa: S311 - a seeded simulation, not secrets
    weights = pareto_weights(nodes, world.lemon["alpha"], rng)
    horizon = options.days * 86_400.0
    trace = draw_trace(study, world, weights, job_gpus, horizon, rng, options.rate_scale)
    return Run(options, study, world, nodes, job_gpus, weights, trace)


def simulate(run: Run, policy: str, on_step: Callable[[float], None] | None = None) -> Outcome:
    """Run one policy over the run's trace."""
    world, gpn = run.world, int(run.world.fleet["gpus_per_node"])
    fleet = Fleet(
        run.nodes, int(world.fleet["nodes_per_rack"]), int(world.fleet["nodes_per_clique"]),
        int(world.fleet["nodes_per_leaf"]), list(run.weights),
    )  # fmt: skip
    jobs = [
        Job(i, g, g // gpn, world.job["checkpoint_interval_s"], world.job["checkpoint_cost_s"])
        for i, g in enumerate(run.job_gpus)
    ]
    sim = Simulation(
        POLICIES[policy](), run.trace, fleet, jobs, world, run.options.days * 86_400.0,
        run.options.seed, run.study.categories, dict(run.options.job_overrides),
    )  # fmt: skip
    return sim.run(on_step)


def run_all(run: Run, on_progress: Callable[[str, float], None] | None = None) -> Sequence[Outcome]:
    """Every policy of the options, in order; `on_progress(policy, fraction)` as it goes."""
    horizon = run.options.days * 86_400.0
    share = 1.0 / len(run.options.policies)
    for i, name in enumerate(run.options.policies):

        def step(t: float, i: int = i, name: str = name) -> None:
            if on_progress is not None:
                on_progress(name, (i + t / horizon) * share)

        run.outcomes.append(simulate(run, name, step))
        if on_progress is not None:
            on_progress(name, (i + 1) * share)
    return run.outcomes
