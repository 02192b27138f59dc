"""Throughput summaries from one window of steps (pure; called every ``log_interval`` steps)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from autorecover.telemetry.records import Clean
from autorecover.telemetry.watchdog import p99


def summarize(
    *,
    intervals: Sequence[float],
    n_intervals: int,
    elapsed_s: float,
    steps: int,
    samples: float,
    tokens: float,
    phases: Mapping[str, float],
) -> dict[str, Clean]:
    """The ``summary`` fields for a window.

    ``n_intervals`` step intervals took ``elapsed_s`` (``intervals`` holds the most recent
    of them, for the p99); ``samples`` and ``tokens`` were processed in those intervals;
    ``phases`` is the time spent in each phase over the window's ``steps`` steps.
    """
    out: dict[str, Clean] = {"window": n_intervals}
    if n_intervals > 0 and elapsed_s > 0:
        out["steps_per_s"] = _round(n_intervals / elapsed_s)
        out["step_time_mean_s"] = _round(elapsed_s / n_intervals)
        out["step_time_p99_s"] = _round(p99(intervals))
        if samples:
            out["samples_per_s"] = _round(samples / elapsed_s)
        if tokens:
            out["tokens_per_s"] = _round(tokens / elapsed_s)
    if steps > 0:
        for name, total in phases.items():
            out[f"{name}_mean_s"] = _round(total / steps)
    return out


def _round(value: float) -> float:
    """Six significant digits: enough for rates and times, and short lines."""
    return float(f"{value:.6g}")
