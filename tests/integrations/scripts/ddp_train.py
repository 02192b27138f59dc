"""A two-rank DDP training run on gloo for the torchrun tests (one recorder per rank).

    torchrun --nproc-per-node=2 ddp_train.py --out DIR --ckpt DIR [--fail-at N] [--hang-at N]
        [--slow-s S] [--hang-after-s S]

Rank 0 saves ``step_<n>.pt`` every ``--checkpoint-every`` steps; every rank resumes from the
newest one. ``--fail-at`` raises on rank 1 at that step, ``--hang-at`` stalls rank 1 there
(the other rank then waits in its collective) until the test kills the run. Telemetry goes
to ``<out>/tel-<rank>.jsonl``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from autorecover import telemetry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ckpt", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--checkpoint-every", type=int, default=5)
    parser.add_argument("--log-interval", type=int, default=2)
    parser.add_argument("--fail-at", type=int, default=None)
    parser.add_argument("--hang-at", type=int, default=None)
    parser.add_argument("--slow-s", type=float, default=0.0, help="sleep per step")
    parser.add_argument("--hang-after-s", type=float, default=120.0, help="the watchdog's floor")
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    hang = telemetry.HangPolicy(floor_s=args.hang_after_s, factor=5.0, warmup_steps=3, poll_s=0.1)
    rec = telemetry.init(output=str(args.out / "tel-{rank}.jsonl"), log_interval=args.log_interval,
                         hang=hang)  # fmt: skip
    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    start = resume(rec, model, optimizer, args.ckpt)
    for step in range(start + 1, args.steps + 1):
        x = torch.randn(8, 4)
        loss = torch.nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
        if rank == 1 and step == args.fail_at:
            raise RuntimeError(f"simulated failure at step {step}")
        if rank == 1 and step == args.hang_at:
            stalled_in_data_loading()
        mean = loss.detach().clone()
        dist.all_reduce(mean)  # the mean loss, for logging: every rank waits here for the others
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        time.sleep(args.slow_s)
        rec.step(step, samples=8, loss=mean / dist.get_world_size())
        if step % args.checkpoint_every == 0:
            save(rec, model, optimizer, args.ckpt, step)
    rec.close()
    dist.destroy_process_group()


def resume(rec: telemetry.Recorder, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
           ckpt: Path) -> int:  # fmt: skip
    """Load the newest checkpoint, if any; the step it was saved at (0 without one)."""
    found = sorted(ckpt.glob("step_*.pt"))
    if not found:
        return 0
    with rec.checkpoint_load(found[-1]) as span:
        state = torch.load(found[-1], map_location="cpu", weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        span.set(iteration=int(state["step"]))
    return int(state["step"])


def save(rec: telemetry.Recorder, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
         ckpt: Path, step: int) -> None:  # fmt: skip
    """Rank 0 writes the checkpoint; the others wait for it."""
    if dist.get_rank() == 0:
        path = ckpt / f"step_{step:05d}.pt"
        with rec.checkpoint_save(path, iteration=step):
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
            torch.save({**state, "step": step}, path)
    dist.barrier()


def stalled_in_data_loading() -> None:
    """A data loader that never returns (the test kills the run)."""
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    main()
