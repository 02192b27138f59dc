"""The comparison report: one JSON-ready dictionary per policy and a text table.

ETTR (effective training time ratio, goodput) is productive GPU-time over allocated GPU-time
for the run's jobs: time writing checkpoints, the work lost since the last checkpoint, time to
detect, stop, queue, restart, time waiting for a person and time lost to stragglers are not
productive. Lost GPU-hours are given by stage and by the interruption's cause.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean
from typing import Any

from autorecover.simulation.running import Run
from autorecover.simulation.simulating import Outcome

TARGET_ETTR = 0.985  # issue 18's done-when: the default policy at Llama-3 rates
TARGET_POLICY = "autorecover"


def policy_report(o: Outcome) -> dict[str, Any]:
    """One policy's results."""
    total = o.gpus * o.horizon_s
    hours = 3600.0
    recovery = {}
    spans = {"detection": ("at", "detected"), "stop": ("detected", "stopped"),
             "queue": ("stopped", "placed"), "restart": ("placed", "running")}  # fmt: skip
    for name, (a, b) in spans.items():
        got = [r[b] - r[a] for r in o.recoveries if a in r and b in r]
        recovery[name] = round(mean(got), 1) if got else 0.0
    totals = [r["running"] - r["at"] for r in o.recoveries if "running" in r]
    recovery["total"] = round(mean(totals), 1) if totals else 0.0
    out = o.out_of_service
    return {
        "policy": o.policy,
        "ettr": round(o.ledger.productive / total, 5) if total else 0.0,
        "goodput_gpu_hours": round(o.ledger.productive / hours, 1),
        "allocated_gpu_hours": round(total / hours, 1),
        "interruptions": sum(o.interruptions.values()),
        "interruptions_by_cause": dict(sorted(o.interruptions.items())),
        "proactive_migrations": o.migrations,
        "lost_gpu_hours": {
            "by_stage": {k: round(v / hours, 1) for k, v in sorted(o.ledger.by_stage.items())},
            "by_cause": {k: round(v / hours, 1) for k, v in sorted(o.ledger.by_cause.items())},
        },
        "recovery_s_mean": recovery,
        "recoveries": len(totals),
        "quarantines": o.quarantines,
        "false_quarantines": o.false_quarantines,
        "nodes_out_of_service": {
            "mean": round(mean(out), 2) if out else 0.0,
            "max": max(out, default=0),
            "hourly": out,
        },
        "events": o.events,
    }


def report(run: Run, outcomes: Sequence[Outcome], seconds: float) -> dict[str, Any]:
    """The whole run: inputs, the study's published figures, and each policy."""
    o = run.options
    policies = {out.policy: policy_report(out) for out in outcomes}
    return {
        "gpus": sum(run.job_gpus),
        "nodes": run.nodes,
        "jobs": len(run.job_gpus),
        "days": o.days,
        "seed": o.seed,
        "study": {
            "name": run.study.name,
            "source": run.study.source,
            "published_interruptions": run.study.interruptions,
            "published_gpus": run.study.gpus,
            "published_days": run.study.days,
            "expected_interruptions": round(
                run.study.interruptions
                * sum(run.job_gpus)
                / run.study.gpus
                * o.days
                / run.study.days
                * o.rate_scale,
                1,
            ),
            "published_ettr_min": run.study.published_ettr_min,
        },
        "trace": {
            "faults": len(run.trace.faults),
            "warnings": len(run.trace.warnings),
            "straggles": len(run.trace.straggles),
        },
        "policies": policies,
        "target": target(policies),
        "wall_s": round(seconds, 2),
    }


def target(policies: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Whether autorecover's default policy reaches the target ETTR, and if not, which costs
    stand in the way (each lost stage's share of the allocated GPU-time, largest first)."""
    p = policies.get(TARGET_POLICY)
    if p is None:
        return {"ettr": TARGET_ETTR, "policy": TARGET_POLICY, "ran": False}
    allocated = p["allocated_gpu_hours"] or 1.0
    costs = sorted(p["lost_gpu_hours"]["by_stage"].items(), key=lambda kv: -kv[1])
    return {
        "ettr": TARGET_ETTR,
        "policy": TARGET_POLICY,
        "ran": True,
        "reached": p["ettr"] >= TARGET_ETTR,
        "gap": round(max(0.0, TARGET_ETTR - p["ettr"]), 5),
        "costs": [{"cost": k, "share": round(v / allocated, 5)} for k, v in costs],
    }


def table(doc: dict[str, Any]) -> str:
    """The comparison as a text table (the CLI's default output)."""
    head = (
        f"{'policy':<22} {'ETTR':>7} {'interr.':>7} {'lost GPU-h':>10} {'detect':>7} "
        f"{'restart':>8} {'queue':>7} {'lost work':>9} {'false q.':>8} {'out (mean)':>10}"
    )
    lines = [
        f"{doc['gpus']} GPUs ({doc['nodes']} nodes, {doc['jobs']} job(s)), {doc['days']:g} days, "
        f"seed {doc['seed']}; {doc['study']['name']}: {doc['study']['expected_interruptions']} "
        "interruptions expected at the published rate",
        head,
        "-" * len(head),
    ]
    for name, p in doc["policies"].items():
        stage = p["lost_gpu_hours"]["by_stage"]
        lost = sum(stage.values())
        lines.append(
            f"{name:<22} {p['ettr'] * 100:>6.2f}% {p['interruptions']:>7} {lost:>10.0f} "
            f"{stage.get('detection', 0.0) + stage.get('person', 0.0):>7.0f} "
            f"{stage.get('restart', 0.0) + stage.get('stop', 0.0):>8.0f} "
            f"{stage.get('queue', 0.0):>7.0f} {stage.get('lost_work', 0.0):>9.0f} "
            f"{p['false_quarantines']:>8} {p['nodes_out_of_service']['mean']:>10.1f}"
        )
    t = doc["target"]
    if t.get("ran"):
        verdict = "reached" if t["reached"] else f"missed by {t['gap'] * 100:.2f} points"
        costs = ", ".join(f"{c['cost']} {c['share'] * 100:.2f}%" for c in t["costs"][:5])
        lines.append(f"target {t['ettr'] * 100:.1f}% ETTR for {t['policy']}: {verdict}; "
                     f"costs in the way: {costs}")  # fmt: skip
    return "\n".join(lines)
