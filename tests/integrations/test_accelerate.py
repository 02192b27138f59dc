"""The documented ``accelerate`` recipe: a loop of one's own, ``rec.step`` per optimizer step
(``accelerator.sync_gradients``), ``save_state`` / ``load_state`` inside checkpoint spans."""

from __future__ import annotations

from pathlib import Path

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from autorecover.parsing.scanning import Scanner
from autorecover.telemetry import Recorder

from .conftest import MakeRecorder
from .reading import records, spans, watched

BATCH = 8


def train(rec: Recorder, ckpt: Path, steps: int) -> int:
    """Train to ``steps`` optimizer steps (2 micro-batches each), resuming from ``ckpt``."""
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
    torch.manual_seed(0)
    x = torch.randn(4 * steps * BATCH, 4)
    data = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=BATCH)
    layer = torch.nn.Linear(4, 1)
    model, optimizer, data = accelerator.prepare(
        layer, torch.optim.SGD(layer.parameters(), lr=0.05), data
    )
    step, samples = 0, 0
    if (ckpt / "step.txt").exists():
        with rec.checkpoint_load(ckpt) as span:
            accelerator.load_state(str(ckpt))
            step = int((ckpt / "step.txt").read_text())
            span.set(iteration=step)
    for inputs, target in data:
        with accelerator.accumulate(model):
            loss = torch.nn.functional.mse_loss(model(inputs), target)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        samples += len(inputs)
        if accelerator.sync_gradients:  # an optimizer step, not an accumulating micro-batch
            step += 1
            rec.step(step, samples=samples, loss=loss.detach())
            samples = 0
            if step % 3 == 0:
                with rec.checkpoint_save(ckpt, iteration=step):
                    accelerator.save_state(str(ckpt))
                    (ckpt / "step.txt").write_text(str(step))
            if step == steps:
                break
    accelerator.end_training()
    return step


def test_an_accelerate_loop_and_its_resume(
    file_recorder: MakeRecorder, tmp_path: Path, scanner: Scanner
) -> None:
    ckpt = tmp_path / "state"
    first = file_recorder("first.jsonl", log_interval=2)
    assert train(first, ckpt, steps=6) == 6
    first.close()
    out = tmp_path / "first.jsonl"
    steps = records(out, "step")
    assert [(s.step, s.get_int("samples")) for s in steps] == [(2, 32), (4, 64), (6, 96)]
    assert all((s.get_float("samples_per_s") or 0) > 0 for s in records(out, "summary"))
    saves = spans(out, "checkpoint_save")
    assert [(s.get_int("iteration"), s.get_str("path")) for s in saves] == [
        (3, str(ckpt)), (6, str(ckpt))]  # fmt: skip
    assert all((s.get_int("size_bytes") or 0) > 0 for s in saves)  # the state directory

    second = file_recorder("second.jsonl", log_interval=2)
    assert train(second, ckpt, steps=8) == 8
    second.close()
    watch = watched(scanner, {"node-a": tmp_path / "second.jsonl"})
    assert (watch.loaded, watch.loaded_from, watch.last_step) == (6, str(ckpt), 8)
