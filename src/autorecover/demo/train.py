"""The demonstration's training job: a stand-in loop with autorecover telemetry.

    python -m autorecover.demo.train --dir DIR --steps 100000 --step-s 0.03

Like `examples/train_plain.py` (JSON checkpoints, resumed from the newest), plus what the
fault injector needs from inside a rank, read from flag files under `DIR/faults/`:

* `app-error` — the job raises a Python error (an application fault: a bug, so every attempt).
* `nccl-<node>` — the rank on that node prints a real NCCL watchdog timeout line, then the
  "unhandled system error" NCCL raises on a network hiccup, and exits 1.
* `hang-<node>` — the ranks on that node stop making progress (they sleep).

Flags name the attempt they apply to (the file holds it, or `all`), so a retry runs clean.
Peers wait for each other like a collective does, loosely: a rank more than `--lag` steps
ahead of the slowest waits for it (`DIR/progress/<job>/<rank>`), so a rank that stops stops
the job — after the others ran on a little, which is what lets hang detection name its node.
A rank whose parent (the demo) died exits: no orphans outlive a killed demo.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from autorecover import telemetry

NCCL_LINE = (
    "[rank{rank}]:[E{stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, "
    "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds "
    "before timing out."
)
NCCL_ERROR = (
    "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, "
    "unhandled system error, NCCL version 2.7.8"
)


def main(argv: list[str] | None = None) -> int:
    """Train until `--steps`, checkpointing every `--checkpoint-every` steps."""
    p = argparse.ArgumentParser(description="the demonstration's training job")
    p.add_argument("--dir", type=Path, required=True)
    p.add_argument("--steps", type=int, default=100_000)
    p.add_argument("--step-s", type=float, default=0.03)
    p.add_argument("--log-interval", type=int, default=5)
    p.add_argument("--checkpoint-every", type=int, default=20)
    p.add_argument("--lag", type=int, default=30)
    p.add_argument("--parent", type=int, default=None, help="exit when this process is gone")
    args = p.parse_args(argv)
    job = os.environ.get("TORCHELASTIC_RUN_ID", "job")
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    node = os.environ.get("NODE_NAME", "node")
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    parent = args.parent if args.parent is not None else os.getppid()
    ckpt = args.dir / "ckpt" / job / str(rank)
    ckpt.mkdir(parents=True, exist_ok=True)
    progress = args.dir / "progress" / job
    progress.mkdir(parents=True, exist_ok=True)
    faults = args.dir / "faults"
    pids = args.dir / "pids" / node
    pids.mkdir(parents=True, exist_ok=True)
    (pids / str(os.getpid())).write_text(str(attempt))
    with telemetry.init(log_interval=args.log_interval, hang=None) as rec:
        w, b, start = 0.0, 0.0, 0
        found = sorted(ckpt.glob("step_*.json"))
        if found:
            with rec.checkpoint_load(found[-1]):
                state = json.loads(found[-1].read_text())
                w, b, start = state["w"], state["b"], state["step"]
        for step in range(start, args.steps):
            if os.getppid() != parent:
                return 1
            if _flag(faults / "app-error", attempt):
                raise ValueError(f"invalid batch at step {step}: shape mismatch (demo fault)")
            if _flag(faults / f"nccl-{node}", attempt):
                # c10's stamp: month (unpadded) and day, then UTC time, as torch prints it now.
                now = datetime.now(UTC)
                stamp = f"{now.month}{now:%d %H:%M:%S.%f}"
                print(NCCL_LINE.format(rank=rank, stamp=stamp), file=sys.stderr, flush=True)
                print(NCCL_ERROR, file=sys.stderr, flush=True)
                return 1
            while _flag(faults / f"hang-{node}", attempt) and os.getppid() == parent:
                time.sleep(0.05)
            _wait_for_peers(progress, rank, world, step, args.lag, parent)
            with rec.phase("forward"):
                time.sleep(args.step_s)
                w, b = w + 0.1 * (3 - w), b + 0.1 * (1 - b)
            rec.step(step, samples=32, loss=(3 - w) ** 2 + (1 - b) ** 2)
            (progress / str(rank)).write_text(str(step + 1))
            if args.checkpoint_every and (step + 1) % args.checkpoint_every == 0:
                path = ckpt / f"step_{step + 1:07d}.json"
                with rec.checkpoint_save(path, iteration=step):
                    tmp = path.with_suffix(".tmp")
                    tmp.write_text(json.dumps({"w": w, "b": b, "step": step + 1}))
                    tmp.replace(path)
    return 0


def _flag(path: Path, attempt: int) -> bool:
    """Whether a fault flag applies to this attempt."""
    try:
        text = path.read_text().strip()
        return text == "all" or int(text or "-1") == attempt
    except (OSError, ValueError):
        return False


def _wait_for_peers(
    progress: Path, rank: int, world: int, step: int, lag: int, parent: int
) -> None:
    """Wait while the slowest peer is more than `lag` steps behind (a loose collective)."""
    while os.getppid() == parent:
        slowest = step
        for peer in range(world):
            if peer == rank:
                continue
            try:
                slowest = min(slowest, int((progress / str(peer)).read_text() or "0"))
            except (OSError, ValueError):
                slowest = min(slowest, step)  # not started yet: do not wait at the start
        if step - slowest <= lag:
            return
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main())
