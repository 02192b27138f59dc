"""The failure trace: faults, health warnings and slow-node episodes drawn once from a study's
rates and the world's assumptions, seeded, and shared by every policy of a run.

Node faults fall on nodes in proportion to their weight (heavy-tailed: lemons). Each fault
carries its own uniform draw `keep`: when an RMA lowers a lemon's weight, its later faults are
thinned by that draw, so every policy sees the same trace except where what it did changed it.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from dataclasses import dataclass

from autorecover.simulation.settings import Category, Study, World


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault: what, where, when, and how it shows itself."""

    at: float
    category: Category
    node: int | None  # node faults
    job: int | None  # the job's own faults (software)
    rank: int  # which rank of the job prints the error (job faults)
    cure: str
    hang: bool
    observed: bool
    leaf: bool  # the node's whole leaf switch fails
    weight: float  # the node's weight when drawn (for thinning)
    keep: float
    warn_lead_s: float | None  # a health warning came this long before


@dataclass(frozen=True, slots=True)
class Warning_:  # noqa: N801 - `Warning` is a builtin
    """A health warning on a node; `true` when a fault follows."""

    at: float
    node: int
    line: str
    true: bool


@dataclass(frozen=True, slots=True)
class Straggle:
    """A slow-node episode."""

    at: float
    node: int
    duration_s: float


@dataclass(frozen=True, slots=True)
class Trace:
    """Everything that will go wrong in a run, in time order per kind."""

    faults: tuple[Fault, ...]
    warnings: tuple[Warning_, ...]
    straggles: tuple[Straggle, ...]


def pareto_weights(nodes: int, alpha: float, rng: random.Random) -> list[float]:
    """Per-node fault weights, Pareto(alpha) normalised to mean 1."""
    raw = [rng.paretovariate(alpha) for _ in range(nodes)]
    mean = sum(raw) / len(raw)
    return [w / mean for w in raw]


def _poisson_times(rate_per_s: float, horizon_s: float, rng: random.Random) -> list[float]:
    times: list[float] = []
    t = 0.0
    if rate_per_s <= 0:
        return times
    while True:
        t += rng.expovariate(rate_per_s)
        if t >= horizon_s:
            return times
        times.append(t)


def _pick(options: tuple[tuple[str, float], ...], rng: random.Random) -> str:
    u, acc = rng.random(), 0.0
    for name, p in options:
        acc += p
        if u < acc:
            return name
    return options[-1][0]


def draw_trace(
    study: Study,
    world: World,
    weights: list[float],
    jobs: list[int],
    horizon_s: float,
    rng: random.Random,
    rate_scale: float = 1.0,
) -> Trace:
    """Draw faults for `len(weights)` nodes and `jobs` (GPUs per job) over `horizon_s`."""
    gpn = world.fleet["gpus_per_node"]
    cum = list(itertools.accumulate(weights))
    faults: list[Fault] = []
    warnings: list[Warning_] = []
    lead_mu = math.log(world.warning["lead_median_s"])
    for cat in study.categories:
        rate = study.rate_per_gpu_s(cat) * rate_scale
        if cat.hardware:
            for t in _poisson_times(rate * gpn * len(weights), horizon_s, rng):
                node = bisect.bisect_right(cum, rng.random() * cum[-1])
                node = min(node, len(weights) - 1)
                faults.append(_fault(cat, t, node, None, 0, weights[node], rng, lead_mu, world))
        else:
            for job, gpus in enumerate(jobs):
                for t in _poisson_times(rate * gpus, horizon_s, rng):
                    rank = rng.randrange(max(1, int(gpus // gpn)))
                    faults.append(_fault(cat, t, None, job, rank, 1.0, rng, lead_mu, world))
    for f in faults:
        if f.warn_lead_s is not None and f.node is not None and f.at - f.warn_lead_s > 0:
            warnings.append(Warning_(f.at - f.warn_lead_s, f.node, f.category.warning_line, True))
    lines = [c.warning_line for c in study.categories if c.warned]
    false_rate = len(warnings) * world.warning["false_per_true"] / max(horizon_s, 1.0)
    if lines:
        for t in _poisson_times(false_rate, horizon_s, rng):
            node = rng.randrange(len(weights))
            warnings.append(Warning_(t, node, lines[rng.randrange(len(lines))], False))
    straggles = []
    s_rate = world.straggler["per_node_day"] / 86_400.0 * len(weights)
    s_mu = math.log(world.straggler["duration_median_s"])
    for t in _poisson_times(s_rate, horizon_s, rng):
        dur = rng.lognormvariate(s_mu, world.straggler["duration_sigma"])
        straggles.append(Straggle(t, rng.randrange(len(weights)), dur))
    faults.sort(key=lambda f: f.at)
    warnings.sort(key=lambda w: w.at)
    return Trace(tuple(faults), tuple(warnings), tuple(straggles))


def _fault(
    cat: Category,
    t: float,
    node: int | None,
    job: int | None,
    rank: int,
    weight: float,
    rng: random.Random,
    lead_mu: float,
    world: World,
) -> Fault:
    warned = node is not None and rng.random() < cat.warned
    lead = rng.lognormvariate(lead_mu, world.warning["lead_sigma"]) if warned else None
    return Fault(
        at=t,
        category=cat,
        node=node,
        job=job,
        rank=rank,
        cure=_pick(cat.cure, rng),
        hang=rng.random() < cat.hang,
        observed=rng.random() < cat.observed,
        leaf=rng.random() < cat.leaf_fraction,
        weight=weight,
        keep=rng.random(),
        warn_lead_s=lead,
    )
