#!/usr/bin/env python3
"""A tiny training job for the Slurm tests: telemetry, a checkpoint per rank, resumes.

    srun -l python train_job.py --checkpoint-dir DIR [--steps N] [--step-s S]

Each rank (SLURM_PROCID) fits y = 3x + 1 with plain-Python gradient descent, one step every
`--step-s` seconds, writing telemetry to stdout and a JSON checkpoint every
`--checkpoint-every` steps; a requeued attempt resumes from its rank's checkpoint. The first
line of each attempt says which attempt, node and step it starts from, for the tests to read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from autorecover import telemetry


def main(argv: list[str] | None = None) -> int:
    """Train until `--steps` (or until Slurm stops the job)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint-dir", type=Path, required=True)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--step-s", type=float, default=0.05)
    ap.add_argument("--checkpoint-every", type=int, default=10)
    ap.add_argument("--log-interval", type=int, default=10)
    ap.add_argument("--fail-at", type=int, default=None, help="raise at this step (rank 0)")
    args = ap.parse_args(argv)
    rank = int(os.environ.get("SLURM_PROCID", "0"))
    node = os.environ.get("SLURMD_NODENAME", "?")
    restart = os.environ.get("SLURM_RESTART_COUNT", "0")
    args.checkpoint_dir.mkdir(parents=True, exist_ok=True)
    ckpt = args.checkpoint_dir / f"rank{rank}.json"
    w, b, start = 0.0, 0.0, 0
    with telemetry.init(output="stdout", log_interval=args.log_interval, node=node) as rec:
        if ckpt.exists():
            with rec.checkpoint_load(ckpt):
                state = json.loads(ckpt.read_text())
                w, b, start = state["w"], state["b"], state["step"]
        print(f"attempt restart={restart} node={node} rank={rank} start={start}", flush=True)
        xs = [i / 16 - 1 for i in range(32)]
        loss = float("nan")
        for step in range(start, args.steps):
            time.sleep(args.step_s)
            errors = [w * x + b - (3 * x + 1) for x in xs]
            loss = sum(e * e for e in errors) / len(errors)
            w -= 0.1 * 2 * sum(e * x for e, x in zip(errors, xs, strict=True)) / len(xs)
            b -= 0.1 * 2 * sum(errors) / len(xs)
            if args.fail_at is not None and step == args.fail_at and rank == 0:
                raise RuntimeError(f"simulated failure at step {step}")
            rec.step(step, samples=len(xs), loss=loss)
            if (step + 1) % args.checkpoint_every == 0:
                with rec.checkpoint_save(ckpt, iteration=step):
                    tmp = ckpt.with_suffix(".tmp")
                    tmp.write_text(json.dumps({"w": w, "b": b, "step": step + 1}))
                    tmp.replace(ckpt)
    print(f"done rank={rank} loss={loss:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
