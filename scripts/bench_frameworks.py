"""The telemetry callbacks' cost per step in real Lightning and transformers training (CPU).

Imported by ``bench_telemetry.py``; see its docstring for the method. Each run trains one
model for ``2 * (pairs + 1) * chunk`` optimizer steps (the first pair is warm-up), putting
the callback in and taking it out of the trainer's callback list every ``chunk`` steps (in
ABBA order, so a drift in machine speed cancels), and times every step from a timing
callback that stays in. With no recorder, the callback is an empty one: what the framework
spends dispatching its hooks to any callback.
"""

from __future__ import annotations

import logging
import statistics
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import torch

from autorecover.telemetry import Recorder

CLOCK = {"cpu": time.process_time_ns, "wall": time.perf_counter_ns}
clock = CLOCK["cpu"]
"""What step times are read with (``bench_telemetry.py --clock``): the process's CPU time by
default (all its threads, the telemetry writer's included; time other programs take from this
one's core is left out), or wall time."""

Result = tuple[float, float, float, float, float]
"""Paired cost (median, first and third quartile), median step without, time inside: µs."""


@dataclass
class SelfTime:
    """Time spent inside the callback's own per-step methods (a direct, low-noise cross-check
    of the paired difference: it leaves out the framework's dispatch and the writer thread)."""

    ns: int = 0

    def wrap(self, obj: Any, *names: str) -> None:
        """Replace ``obj``'s bound methods ``names`` by timed ones (on the instance only)."""
        for name in names:
            method = getattr(obj, name)

            def timed(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
                t0 = time.perf_counter_ns()  # wall: a CPU clock is a system call here
                try:
                    return _method(*args, **kwargs)
                finally:
                    self.ns += time.perf_counter_ns() - t0

            setattr(obj, name, timed)


@dataclass
class Toggle:
    """Step intervals with and without the callback, in chunks; decides when to switch."""

    pairs: int
    chunk: int
    steps: int = 0
    on: bool = False
    last_ns: int | None = None
    first_of_chunk: bool = True
    chunks: list[tuple[bool, list[int]]] = field(default_factory=list)

    def tick(self) -> bool | None:
        """Called once per step; returns the new state when it is time to switch."""
        now = clock()
        if self.last_ns is not None and not self.first_of_chunk:
            self.chunks[-1][1].append(now - self.last_ns)
        self.first_of_chunk = False
        self.last_ns = now
        self.steps += 1
        if self.steps % self.chunk:
            return None
        n = self.steps // self.chunk  # chunks done; ABBA: off on on off, off on on off, ...
        self.on = n % 4 in (1, 2)
        self.chunks.append((self.on, []))
        self.first_of_chunk = True  # the interval spanning the switch is not counted
        return self.on

    def start(self) -> None:
        self.chunks.append((False, []))

    @property
    def done(self) -> bool:
        return self.steps >= 2 * (self.pairs + 1) * self.chunk

    @property
    def steps_on(self) -> int:
        """Steps taken with the callback in."""
        return sum(len(ns) + 1 for on, ns in self.chunks if on)

    def result(self) -> tuple[float, float, float, float]:
        """Median over adjacent chunk pairs of (median with - median without), the first and
        third quartiles of those differences, and the median step without; microseconds.
        The first pair (warm-up) is left out."""
        diffs, bases = [], []
        full = [(on, ns) for on, ns in self.chunks if ns]
        for (on_a, a), (on_b, b) in list(zip(full[::2], full[1::2], strict=False))[1:]:
            if on_a == on_b:
                continue
            with_ns, without_ns = (a, b) if on_a else (b, a)
            diffs.append((statistics.median(with_ns) - statistics.median(without_ns)) / 1000)
            bases.append(statistics.median(without_ns) / 1000)
        q1, _, q3 = statistics.quantiles(diffs, n=4)
        return statistics.median(diffs), q1, q3, statistics.median(bases)


def lightning(
    rec: Recorder | None, pairs: int, chunk: int, inside: bool = False, callback: Any = None
) -> Result:
    """A small MLP under ``lightning.Trainer``; with ``rec`` None, an empty callback instead,
    or ``callback`` when given. With ``inside``, the callback's per-step hook is timed (which
    adds to its cost)."""
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    from autorecover.telemetry.integrations.lightning import lightning_callback

    telemetry_cb = lightning_callback(rec) if rec is not None else callback or pl.Callback()
    toggle, own = Toggle(pairs, chunk), SelfTime()
    if rec is not None and inside:
        own.wrap(telemetry_cb, "on_train_batch_end")

    class Timer(pl.Callback):
        def on_train_start(self, trainer: Any, module: Any) -> None:
            self.base = list(trainer.callbacks)
            toggle.start()

        def on_train_batch_end(self, trainer: Any, module: Any, *args: Any) -> None:
            switched = toggle.tick()
            if switched is not None:
                trainer.callbacks = [*self.base, telemetry_cb] if switched else self.base
                if switched and rec is not None:
                    telemetry_cb.on_train_start(trainer, module)
            if toggle.done:
                trainer.should_stop = True

    class Model(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(
                torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)
            )

        def training_step(self, batch: list[torch.Tensor], batch_idx: int) -> torch.Tensor:
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.01)

    steps = 2 * (pairs + 1) * chunk + 1
    x = torch.randn(steps * 32, 64)
    data = DataLoader(TensorDataset(x, x[:, :1]), batch_size=32)
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning's advice about workers and SLURM
        trainer = pl.Trainer(
            max_steps=steps, accelerator="cpu", devices=1, logger=False, callbacks=[Timer()],
            enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
        )  # fmt: skip
        trainer.fit(Model(), data)
    return (*toggle.result(), own.ns / 1000 / toggle.steps_on)


def transformers(rec: Recorder | None, pairs: int, chunk: int, inside: bool = False) -> Result:
    """A one-layer GPT-2 (from a config, nothing downloaded) under ``transformers.Trainer``;
    with ``rec`` None, an empty callback instead. With ``inside``, as for ``lightning``."""
    import transformers as hf

    from autorecover.telemetry.integrations.huggingface import huggingface_callback

    telemetry_cb = huggingface_callback(rec) if rec is not None else hf.TrainerCallback()
    toggle, own = Toggle(pairs, chunk), SelfTime()
    if (
        rec is not None and inside
    ):  # the forward hook is bound in on_train_begin: finds the timed one
        own.wrap(telemetry_cb, "on_step_end", "_on_forward")

    class Timer(hf.TrainerCallback):
        def __init__(self, handler: Any) -> None:
            self.handler = handler
            self.base: list[Any] = []

        def on_train_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            self.base = list(self.handler.callbacks)  # this one included
            toggle.start()

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            switched = toggle.tick()
            if switched is not None:  # a new list: the handler's loop goes on over the old one
                self.handler.callbacks = [*self.base, telemetry_cb] if switched else self.base
                if switched:
                    telemetry_cb.on_train_begin(args, state, control, **kw)
                else:
                    telemetry_cb.on_train_end(args, state, control, **kw)
            if toggle.done:
                control.should_training_stop = True

    class Sequences(torch.utils.data.Dataset[dict[str, torch.Tensor]]):
        def __init__(self, n: int) -> None:
            self.ids = torch.randint(0, 64, (n, 16), generator=torch.Generator().manual_seed(0))

        def __len__(self) -> int:
            return len(self.ids)

        def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
            return {"input_ids": self.ids[i], "labels": self.ids[i]}

    steps = 2 * (pairs + 1) * chunk + 1
    config = hf.GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    hf.logging.set_verbosity_error()
    args = hf.TrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="bench_telemetry_"), max_steps=steps,
        per_device_train_batch_size=4, use_cpu=True, report_to=[], disable_tqdm=True,
        save_strategy="no", include_num_input_tokens_seen="all", logging_strategy="no",
    )  # fmt: skip
    trainer = hf.Trainer(model=hf.GPT2LMHeadModel(config), args=args,
                         train_dataset=Sequences(steps * 4))  # fmt: skip
    trainer.add_callback(Timer(trainer.callback_handler))
    trainer.train()
    return (*toggle.result(), own.ns / 1000 / toggle.steps_on)
