#!/usr/bin/env python3
"""A plain training loop with autorecover telemetry: a tiny model, on the CPU.

    python examples/train_plain.py --steps 500 --log-interval 50 --checkpoint-every 100
    torchrun --nproc-per-node 2 examples/train_plain.py      # one recorder per rank

With ``torch`` installed it trains a small MLP on y = 3x + 1 (``torch.nn``, SGD, ``torch.save``
checkpoints, resumed with ``torch.load(weights_only=True)``). Without torch, a stand-in loop
fits the same line with plain Python and JSON checkpoints, so the example runs anywhere.
Telemetry lines go to stderr unless ``--output`` says otherwise; ``--fail-at N`` raises at
step N to show the error record an uncaught exception leaves behind.

Step numbers count from 0, and a checkpoint's ``iteration`` is the last step it includes: the
step a resumed run continues after. After ``--steps 200 --checkpoint-every 100`` the last step
is 199 and the last checkpoint is ``step_0000199`` at iteration 199; a resume records
``checkpoint_load`` with iteration 199 (what job recovery reports as "loaded 199") and its first
step is 200.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from autorecover import telemetry

try:
    import torch
except ImportError:  # the stand-in loop below needs nothing but the standard library
    torch = None


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, start telemetry, train."""
    parser = argparse.ArgumentParser(description="tiny CPU training loop with telemetry")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--log-interval", type=int, default=50)
    parser.add_argument("--checkpoint-every", type=int, default=100, help="0: never")
    parser.add_argument("--checkpoint-dir", type=Path, default=None)
    parser.add_argument("--output", default="stderr", help="stderr, stdout or a file path")
    parser.add_argument("--formats", default="autorecover", help="autorecover,nvidia")
    parser.add_argument("--fail-at", type=int, default=None, help="raise at this step")
    parser.add_argument("--stand-in", action="store_true", help="skip torch even if installed")
    args = parser.parse_args(argv)

    ckpt_dir = args.checkpoint_dir or Path(tempfile.mkdtemp(prefix="train_plain_"))
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    use_torch = torch is not None and not args.stand_in
    with telemetry.init(
        output=args.output,
        formats=tuple(f.strip() for f in args.formats.split(",") if f.strip()),
        log_interval=args.log_interval,
    ) as rec:
        train = train_torch if use_torch else train_stand_in
        loss = train(rec, args, ckpt_dir)
    print(f"done: {'torch' if use_torch else 'stand-in'} loop, final loss {loss:.5f}")
    return 0


def train_torch(rec: telemetry.Recorder, args: argparse.Namespace, ckpt_dir: Path) -> float:
    """Train a small MLP with torch on the CPU."""
    assert torch is not None
    torch.manual_seed(rec.identity.rank)
    model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.MSELoss()
    start = 0
    latest = _latest(ckpt_dir, "*.pt")
    if latest is not None:
        with rec.checkpoint_load(latest) as span:
            state = torch.load(latest, map_location="cpu", weights_only=True)  # no pickled code
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            span.set(iteration=int(state["step"]))  # known once read: the end record has it
            start = int(state["step"]) + 1
    loss = torch.tensor(float("nan"))
    for step in range(start, args.steps):
        with rec.phase("data_loading"):
            x = torch.rand(args.batch_size, 1) * 2 - 1
            y = 3 * x + 1 + 0.01 * torch.randn(args.batch_size, 1)
        with rec.phase("forward"):
            loss = loss_fn(model(x), y)
        with rec.phase("backward"):
            optimizer.zero_grad()
            loss.backward()
        with rec.phase("optimizer"):
            optimizer.step()
        _maybe_fail(args, step)
        # detach(): the recorder keeps the last loss until the next summary; no graph, no sync
        rec.step(step, samples=args.batch_size, loss=loss.detach())
        if args.checkpoint_every and (step + 1) % args.checkpoint_every == 0:
            path = ckpt_dir / f"step_{step:07d}.pt"
            with rec.checkpoint_save(path, iteration=step):  # the last step it includes
                state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
                torch.save({**state, "step": step}, path)
    return loss.item()  # float(loss) would convert a tensor that still requires grad


def train_stand_in(rec: telemetry.Recorder, args: argparse.Namespace, ckpt_dir: Path) -> float:
    """Fit y = 3x + 1 with plain-Python gradient descent (no torch needed)."""
    rng = random.Random(rec.identity.rank)  # noqa: S311 - synthetic data, not secrets
    w, b, lr = 0.0, 0.0, 0.1
    start = 0
    latest = _latest(ckpt_dir, "*.json")
    if latest is not None:
        with rec.checkpoint_load(latest) as span:
            state: dict[str, Any] = json.loads(latest.read_text())
            w, b, start = state["w"], state["b"], state["step"] + 1
            span.set(iteration=state["step"])
    loss = float("nan")
    for step in range(start, args.steps):
        with rec.phase("data_loading"):
            xs = [rng.uniform(-1, 1) for _ in range(args.batch_size)]
            ys = [3 * x + 1 + rng.gauss(0, 0.01) for x in xs]
        with rec.phase("forward"):
            errors = [w * x + b - y for x, y in zip(xs, ys, strict=True)]
            loss = sum(e * e for e in errors) / len(errors)
        with rec.phase("backward"):
            grad_w = 2 * sum(e * x for e, x in zip(errors, xs, strict=True)) / len(xs)
            grad_b = 2 * sum(errors) / len(xs)
        with rec.phase("optimizer"):
            w, b = w - lr * grad_w, b - lr * grad_b
        _maybe_fail(args, step)
        rec.step(step, samples=args.batch_size, loss=loss)
        if args.checkpoint_every and (step + 1) % args.checkpoint_every == 0:
            path = ckpt_dir / f"step_{step:07d}.json"
            with rec.checkpoint_save(path, iteration=step):
                path.write_text(json.dumps({"w": w, "b": b, "step": step}))
    return loss


def _maybe_fail(args: argparse.Namespace, step: int) -> None:
    """Raise at ``--fail-at`` (to show what an uncaught exception leaves in the telemetry)."""
    if args.fail_at is not None and step == args.fail_at:
        raise RuntimeError(f"simulated failure at step {step}")


def _latest(ckpt_dir: Path, pattern: str) -> Path | None:
    """The newest checkpoint in ``ckpt_dir`` (names sort by step)."""
    found = sorted(ckpt_dir.glob(pattern))
    return found[-1] if found else None


if __name__ == "__main__":
    sys.exit(main())
