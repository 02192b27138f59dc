#!/usr/bin/env python3
"""What a per-step telemetry callback cannot cost less than, in real Lightning and transformers.

    uv run --frozen python scripts/bench_telemetry_floor.py            # --pairs 300 --chunk 50

Issue 15's target is 5 µs a step (0.5 % of a 1 ms step). ``bench_telemetry.py`` measures what
the callback adds; this script measures the parts that any callback doing the same job pays,
so the result can be read against them:

1. **Lightning's dispatch of one per-batch hook**: the paired method of
   ``bench_frameworks.py`` (ABBA chunks, median over chunk pairs of the difference of median
   step times, with a bootstrap 95 % interval) run with a callback whose only per-batch hook
   is ``on_train_batch_end`` and does nothing (every other per-batch hook None, as in ours),
   then with ours.
2. **Each piece of our Lightning hook, in place**: the same training loop, with the hook's
   body copied into an instrumented subclass that reads ``perf_counter_ns`` between pieces:
   sizing the batch (``batch[0].shape[0]``), reading Lightning's step counter, taking the loss
   out of ``outputs``, and ``Recorder.step`` (whose mean includes the report every
   ``log_interval`` steps). Between two steps of a model the caches are cold, so these cost
   several times what they cost in a tight loop.
3. **transformers' dispatch to one more callback**: ``CallbackHandler``'s four events of an
   optimizer step (``on_step_begin``, ``on_pre_optimizer_step``, ``on_optimizer_step``,
   ``on_step_end``) to a handler with and without one extra empty ``TrainerCallback``, in a
   tight loop (caches warm: a lower bound of what it costs in training).

It prints numbers; it has no target of its own and exits 0.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_frameworks

from autorecover import telemetry
from autorecover.telemetry.integrations import lightning as lightning_integration

_now = time.perf_counter_ns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=300, help="chunk pairs per paired run")
    parser.add_argument("--chunk", type=int, default=50, help="steps per chunk")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, nproc={os.cpu_count()}")
    _paired(args.pairs, args.chunk)
    _pieces(min(args.pairs, 100), args.chunk)
    _transformers_dispatch()
    return 0


def _paired(pairs: int, chunk: int) -> None:
    """A no-op per-batch hook against ours, each a paired run (chunk pairs, ABBA)."""
    import lightning.pytorch as pl

    class OneNoOpHook(pl.Callback):
        def on_train_batch_end(self, *args: Any) -> None:
            """Nothing: what Lightning's dispatch of one hook costs."""

    for name in lightning_integration.UNUSED_BATCH_HOOKS:
        setattr(OneNoOpHook, name, None)
    sink = Path(os.devnull).open("w")  # noqa: SIM115 - closed below
    for label, make in (("a no-op on_train_batch_end", None), ("the telemetry callback", True)):
        rec = telemetry.init(output=sink, log_interval=100, env={}, install_hooks=False)
        captured: list[Any] = []
        original = bench_frameworks.Toggle.result

        def result(self: Any, _orig: Any = original, _into: Any = captured) -> Any:
            _into.append(self.chunks)
            return _orig(self)

        bench_frameworks.Toggle.result = result  # type: ignore[method-assign]
        try:
            base = bench_frameworks.lightning(
                rec if make else None, pairs, chunk, callback=None if make else OneNoOpHook()
            )[3]
        finally:
            bench_frameworks.Toggle.result = original  # type: ignore[method-assign]
            rec.close()
        median, low, high = _bootstrap(_pair_diffs(captured[0]))
        print(
            f"lightning ({base / 1000:.3f} ms a step): {label} adds {median:5.2f} µs a step "
            f"(95 % interval {low:.2f} – {high:.2f}; {pairs} chunk pairs of {chunk} steps)"
        )
    sink.close()


def _pair_diffs(chunks: list[tuple[bool, list[int]]]) -> list[float]:
    """Per adjacent chunk pair: median step with minus median step without, µs (warm-up
    pair left out)."""
    full = [(on, ns) for on, ns in chunks if ns]
    out = []
    for (on_a, a), (on_b, b) in list(zip(full[::2], full[1::2], strict=False))[1:]:
        if on_a != on_b:
            with_ns, without_ns = (a, b) if on_a else (b, a)
            out.append((statistics.median(with_ns) - statistics.median(without_ns)) / 1000)
    return out


def _bootstrap(diffs: list[float], rounds: int = 1000) -> tuple[float, float, float]:
    """The median of ``diffs`` and a bootstrap 95 % interval of it (fixed seed)."""
    rnd = random.Random(0)
    meds = sorted(statistics.median(rnd.choices(diffs, k=len(diffs))) for _ in range(rounds))
    return statistics.median(diffs), meds[rounds // 40], meds[rounds - rounds // 40 - 1]


def _pieces(pairs: int, chunk: int) -> None:
    """Our Lightning hook's body, piece by piece, timed in place."""
    times: dict[str, list[int]] = {
        k: [] for k in ("size the batch", "step counter", "loss", "Recorder.step", "whole body")
    }
    make = lightning_integration.lightning_callback

    def instrumented(rec: Any) -> Any:
        callback = make(rec)

        def on_train_batch_end(
            self: Any, trainer: Any, module: Any, outputs: Any, batch: Any, idx: int
        ) -> None:
            t0 = _now()
            shape = batch[0].shape
            self._samples += shape[0]
            t1 = _now()
            step = self._counter.completed
            t2 = _now()
            if step == self._last_step:
                return
            self._last_step = step
            loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
            recorder = self.recorder
            t3 = _now()
            recorder.step(step, samples=self._samples, tokens=None, loss=loss)
            t4 = _now()
            self._samples = 0
            for key, ns in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0), strict=True):
                times[key].append(ns)

        type(callback).on_train_batch_end = on_train_batch_end
        return callback

    sink = Path(os.devnull).open("w")  # noqa: SIM115 - closed below
    rec = telemetry.init(output=sink, log_interval=100, env={}, install_hooks=False)
    # bench_frameworks.lightning imports the factory when called: it gets this one
    lightning_integration.lightning_callback = instrumented  # type: ignore[assignment]
    try:
        bench_frameworks.lightning(rec, pairs, chunk)
    finally:
        lightning_integration.lightning_callback = make  # type: ignore[assignment]
        rec.close()
        sink.close()
    print("lightning, our hook's body in place (µs a step: median / mean / p90):")
    for key, values in times.items():
        kept = sorted(values[len(values) // 10 :])  # the first tenth is warm-up
        print(
            f"  {key:15s} {statistics.median(kept) / 1000:6.2f} / "
            f"{statistics.fmean(kept) / 1000:6.2f} / {kept[len(kept) * 9 // 10] / 1000:6.2f}"
        )


def _transformers_dispatch(reps: int = 20_000) -> None:
    """transformers' four events of a step, with and without one more callback (warm)."""
    import tempfile

    import transformers as hf
    from transformers.trainer_callback import (
        CallbackHandler,
        DefaultFlowCallback,
        TrainerControl,
        TrainerState,
    )

    hf.logging.set_verbosity_error()
    args = hf.TrainingArguments(output_dir=tempfile.mkdtemp(), report_to=[], use_cpu=True)
    state, control = TrainerState(), TrainerControl()

    def per_step(extra: int) -> float:
        callbacks = [DefaultFlowCallback, *(hf.TrainerCallback() for _ in range(extra))]
        handler = CallbackHandler(callbacks, None, None, None, None)
        t0 = _now()
        for _ in range(reps):
            handler.on_step_begin(args, state, control)
            handler.on_pre_optimizer_step(args, state, control)
            handler.on_optimizer_step(args, state, control)
            handler.on_step_end(args, state, control)
        return (_now() - t0) / reps / 1000

    extra = [per_step(1) - per_step(0) for _ in range(5)]
    print(
        f"transformers: one more TrainerCallback costs {statistics.median(extra):.2f} µs a step "
        f"in CallbackHandler's dispatch alone (tight loop, median of 5 × {reps:,} steps)"
    )


if __name__ == "__main__":
    sys.exit(main())
