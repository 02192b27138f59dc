"""A job's history: what its earlier attempts' verdicts say about this one.

One failure is read on its own evidence; a job that failed before adds two patterns:

* **The same failure again.** The same application-like failure (an application error, a
  crash nobody explained) with the same decisive signal, or any non-hardware failure at the
  same training step with the same signal, is the job's own: a further retry fails the same
  way, so the verdict becomes `application` (stop).
* **A failure that moves.** The same transient symptom starting on a different node in each
  of at least three attempts points at the job (its configuration, its data, its own
  timing), not at the nodes or the network: `application`.

History never names a node: it can only take a job off the retry path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from autorecover.domain.records import ACTION_FOR_CAUSE, Cause, Source, Verdict

# The scheduler's own decisions, said in job.json's state or in its line in the job's output
# (slurmstepd's "CANCELLED ... DUE TO PREEMPTION"): the transient keys of attribution's
# scheduler states, and the other schedulers' time limits and preemptions. With the cloud's
# (`cloud.`: a reclaim, a maintenance event) they are decisions from outside the job, never
# the job's own failure however often they come.
OUTSIDE_DECISIONS = frozenset(
    {
        "slurm.preempted",
        "slurm.time_limit",
        "k8s.evicted",
        "k8s.disruption_target",
        "k8s.preempted",
        "k8s.node_shutdown",
        "cloud.k8s_active_deadline",  # Kubernetes' DeadlineExceeded, Slurm's TIMEOUT there
        "pbs.walltime_exceeded",
        "lsf.run_limit",
        "lsf.preempted",
        "flux.timeout",
    }
)
MOVING_ATTEMPTS = 2  # earlier attempts, each on another node, before a moving failure counts
_FIELDS = frozenset({"cause", "signal", "node", "step", "suspect_nodes"})
_REPEATABLE = frozenset({Cause.APPLICATION, Cause.UNKNOWN})


@dataclass(frozen=True, slots=True)
class Attempt:
    """One earlier attempt of the job, as its verdict recorded it."""

    cause: Cause
    signal: str = ""  # the decisive signal (the verdict's first evidence line)
    node: str = ""  # the node that line came from: where that failure started
    step: int | None = None  # the last training step that attempt reached
    suspect_nodes: tuple[str, ...] = ()


def parse_history(raw: object) -> tuple[Attempt, ...]:
    """The optional `history` of `job.json`: a list of earlier attempts, oldest first.

    Raises ValueError naming the field for anything malformed."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ValueError("history: must be a list of earlier attempts")
    out = []
    for i, item in enumerate(raw):
        where = f"history[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where}: must be an object")
        unknown = sorted(set(item) - _FIELDS)
        if unknown:
            raise ValueError(f"{where}.{unknown[0]}: unknown field")
        try:
            cause = Cause(str(item.get("cause")))
        except ValueError:
            raise ValueError(f"{where}.cause: one of {[c.value for c in Cause]}") from None
        signal, node = item.get("signal", ""), item.get("node", "")
        step, suspects = item.get("step"), item.get("suspect_nodes", [])
        if not isinstance(signal, str) or not isinstance(node, str):
            raise ValueError(f"{where}: signal and node must be strings")
        if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
            raise ValueError(f"{where}.step: must be an integer")
        if not isinstance(suspects, list) or not all(isinstance(n, str) for n in suspects):
            raise ValueError(f"{where}.suspect_nodes: must be a list of node names")
        out.append(Attempt(cause, signal, node, step, tuple(suspects)))
    return tuple(out)


def recall(
    verdict: Verdict,
    history: Sequence[Attempt],
    step: int | None = None,
    origin: str | None = None,
    signal: str | None = None,
) -> Verdict:
    """This attempt's verdict, read against the job's earlier attempts.

    `step` is the last training step this attempt reached; `origin` the node its failure
    started on, when one is known (the node missing from a cascade, the node of a decisive
    line), never the first of many nodes to complain; `signal` the failure's signal (the
    verdict's first evidence line when not given)."""
    if not history or verdict.cause is Cause.HARDWARE or not verdict.evidence:
        return verdict
    first = verdict.evidence[0]
    if (
        first.source is Source.JOB
        or first.signal in OUTSIDE_DECISIONS
        or first.signal.startswith("cloud.")
    ):
        return verdict  # the scheduler's or the cloud's own word is not the job's failure
    signal = signal or verdict.evidence[0].signal

    def same_failure(a: Attempt) -> bool:
        if a.cause is Cause.HARDWARE or a.signal != signal:
            return False
        if step is not None and a.step is not None:
            return a.step == step  # the same step failing the same way
        return verdict.cause in _REPEATABLE and a.cause in _REPEATABLE

    again = [i for i, a in enumerate(history, 1) if same_failure(a)]
    if again:
        last = history[again[-1] - 1]
        at = f" at step {step}" if step is not None and last.step == step else ""
        why = (
            f"attempt {again[-1]} of this job failed the same way ({signal}{at}): the "
            f"job's own failure, a retry fails again (this attempt: {verdict.summary})"
        )
        return _as_application(verdict, why)
    if verdict.cause is not Cause.TRANSIENT or not origin:
        return verdict
    same = [a for a in history if a.signal == signal and a.cause is not Cause.HARDWARE]
    nodes = {a.node for a in same if a.node}
    if len(same) >= MOVING_ATTEMPTS and len(nodes) == len(same) and origin not in nodes:
        why = (
            f"the same {signal} started on a different node in each of {len(same) + 1} "
            f"attempts ({', '.join([*sorted(nodes), origin])}): the job, not a node or the "
            f"network (this attempt: {verdict.summary})"
        )
        return _as_application(verdict, why)
    return verdict


def _as_application(verdict: Verdict, why: str) -> Verdict:
    return replace(
        verdict,
        cause=Cause.APPLICATION,
        suspect_nodes=(),
        action=ACTION_FOR_CAUSE[Cause.APPLICATION],
        summary=why,
    )
