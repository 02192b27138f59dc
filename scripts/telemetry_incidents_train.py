"""The training job `telemetry_incidents.py` runs under torchrun, reporting through the library.

Like `torchrun_incidents_train.py` (a linear model on random data over gloo on CPU), but the
model is wrapped in DistributedDataParallel (its reducer all-reduces the gradients during
`backward()`) and every rank reports through `autorecover.telemetry`: an
`init` record, a `step` and `summary` per step, a fatal `error` record when an exception kills
the rank (the library's own excepthook), and `hang` records with every thread's stack from the
library's watchdog (with, since torch 2.15 records gloo's collectives too, the flight
recorder's summary). `--fault` picks what goes wrong, on `--fault-rank` at `--fault-step`.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from datetime import timedelta
from typing import Any

FAULTS = (
    "none",  # train --steps steps and exit 0
    "bad-shard",  # --fault-rank's data loader raises ValueError on a malformed shard
    "key-error",  # --fault-rank looks up a batch key that is not there
    "stuck-loader",  # --fault-rank's data loader blocks forever (its peers wait in backward)
    "mismatched-collective",  # --fault-rank broadcasts the logged loss where the others reduce it
)


def next_batch(step: int, rank: int, args: argparse.Namespace) -> dict[str, object]:
    """The data loader: a batch of random inputs and targets, broken as asked."""
    import torch

    faulty = step == args.fault_step and rank == args.fault_rank
    if faulty and args.fault == "stuck-loader":
        threading.Event().wait()  # a loader waiting for a worker that never answers
    if faulty and args.fault == "bad-shard":
        raise ValueError(f"shard {step:05d}: expected 16 features per sample, got 15")
    batch = {"inputs": torch.randn(32, 16), "targets": torch.randn(32, 1)}
    if faulty and args.fault == "key-error":
        del batch["targets"]
    return batch


def log_loss(loss: Any, step: int, rank: int, args: argparse.Namespace) -> None:
    """Average the loss over the ranks for logging; the faulty rank's code path broadcasts it
    instead, so at that collective the ranks call different ops and wait for each other."""
    import torch.distributed as dist

    if step == args.fault_step and rank == args.fault_rank:
        dist.broadcast(loss, src=0)
    else:
        dist.all_reduce(loss)


def main() -> int:
    """Train, breaking as asked."""
    p = argparse.ArgumentParser()
    p.add_argument("--fault", choices=FAULTS, default="none")
    p.add_argument("--fault-rank", type=int, default=0)
    p.add_argument("--fault-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--step-s", type=float, default=0.5)
    p.add_argument("--timeout-s", type=float, default=20.0)
    p.add_argument("--hang-floor-s", type=float, default=120.0)
    p.add_argument("--telemetry-output", default="stderr")
    args = p.parse_args()

    import torch
    import torch.distributed as dist

    from autorecover import telemetry

    # One torchrun per simulated node on one machine: the node's name comes from its place
    # in the job (GROUP_RANK), as a real node's would from its host name.
    node = f"cpu-n{int(os.environ.get('GROUP_RANK', '0')) + 1:02d}"
    policy = telemetry.HangPolicy(
        floor_s=args.hang_floor_s, warmup_s=0.0, warmup_steps=0, poll_s=1.0
    )
    rec = telemetry.init(node=node, output=args.telemetry_output, log_interval=1, hang=policy)
    rank = rec.identity.rank
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout_s))

    torch.manual_seed(1234 + rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(1, args.steps + 1):
        started = time.monotonic()
        with rec.phase("data_loading"):
            batch = next_batch(step, rank, args)
        with rec.phase("forward"):
            loss = torch.nn.functional.mse_loss(model(batch["inputs"]), batch["targets"])
        with rec.phase("backward"):
            opt.zero_grad()
            loss.backward()
        with rec.phase("optimizer"):
            opt.step()
        if args.fault == "mismatched-collective":
            log_loss(loss.detach().clone(), step, rank, args)
        time.sleep(max(0.0, args.step_s - (time.monotonic() - started)))
        rec.step(step, samples=32, loss=loss.detach())
    dist.barrier()
    dist.destroy_process_group()
    rec.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
