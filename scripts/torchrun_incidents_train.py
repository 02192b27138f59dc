"""The tiny training job `torchrun_incidents.py` runs under torchrun, broken one way per run.

Run by torchrun with the real torch, not by the project: a linear model on random data,
gradients averaged with `all_reduce` over a gloo process group on CPU, one progress line per
step. `--fault` picks what goes wrong, on `--fault-rank` (global rank) at `--fault-step`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from datetime import timedelta

FAULTS = (
    "none",  # train --steps steps and exit 0
    "sleep-rank",  # --fault-rank sleeps --sleep-s inside a step (peers wait in all_reduce)
    "sleep-all",  # every rank sleeps --sleep-s inside a step, no collective pending
    "import-error",  # a misspelt import at start-up, every rank
    "key-error",  # --fault-rank looks up a batch key that is not there
    "shape-mismatch",  # --fault-rank all_reduces a tensor of another shape than its peers
    "cuda",  # every rank moves the model to a GPU the node does not have
    "nan",  # --fault-rank's gradients become NaN; clipping refuses a non-finite norm
)


def main() -> int:
    """Train, breaking as asked."""
    p = argparse.ArgumentParser()
    p.add_argument("--fault", choices=FAULTS, default="none")
    p.add_argument("--fault-rank", type=int, default=0)
    p.add_argument("--fault-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--step-s", type=float, default=0.5)
    p.add_argument("--sleep-s", type=float, default=3600.0)
    p.add_argument("--timeout-s", type=float, default=20.0)
    # `logging`: the committed bundles' lines; `print`: a script that prints its own way, with
    # no times, to check that verdicts do not hang on one script's wording
    p.add_argument("--style", choices=("logging", "print"), default="logging")
    args = p.parse_args()

    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s [train.py:%(lineno)d] %(message)s",
        stream=sys.stdout,
    )
    log = logging.getLogger("train")
    plain = args.style == "print"

    import torch
    import torch.distributed as dist

    if args.fault == "import-error":
        from torch.utils.data import DataLoder  # type: ignore[attr-defined]  # noqa: F401

    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout_s))
    if plain:
        print(f"rank {rank} of {world} initialized", flush=True)
    else:
        log.info("[rank %d] process group ready: gloo, world size %d", rank, world)

    torch.manual_seed(1234 + rank)
    model = torch.nn.Linear(16, 1)
    if args.fault == "cuda":
        model = model.cuda(int(os.environ["LOCAL_RANK"]))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(1, args.steps + 1):
        started = time.monotonic()
        batch = {"inputs": torch.randn(32, 16), "targets": torch.randn(32, 1)}
        here = step == args.fault_step
        if here and args.fault == "key-error" and rank == args.fault_rank:
            batch = {k: v for k, v in batch.items() if k != "targets"}
        loss = torch.nn.functional.mse_loss(model(batch["inputs"]), batch["targets"])
        opt.zero_grad()
        loss.backward()
        if here and args.fault == "nan" and rank == args.fault_rank:
            for param in model.parameters():
                assert param.grad is not None
                param.grad.fill_(float("nan"))
        if here and (
            args.fault == "sleep-all" or (args.fault == "sleep-rank" and rank == args.fault_rank)
        ):
            time.sleep(args.sleep_s)
        for param in model.parameters():
            assert param.grad is not None
            grad = param.grad
            if here and args.fault == "shape-mismatch" and rank == args.fault_rank:
                grad = torch.cat([grad.flatten(), grad.flatten()])
            dist.all_reduce(grad)
            grad /= world
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        opt.step()
        stats = torch.tensor([loss.item()])
        dist.all_reduce(stats)
        time.sleep(max(0.0, args.step_s - (time.monotonic() - started)))
        if plain:
            mean = stats.item() / world
            print(f"Rank {rank}: epoch 0 iteration {step}/{args.steps}, train loss = {mean:.4f}",
                  flush=True)  # fmt: skip
            continue
        log.info(
            "[rank %d] step %d | loss %.4f | %.2f s/step",
            rank,
            step,
            stats.item() / world,
            time.monotonic() - started,
        )
    dist.barrier()
    dist.destroy_process_group()
    log.info("[rank %d] training done", rank)
    return 0


if __name__ == "__main__":
    sys.exit(main())
