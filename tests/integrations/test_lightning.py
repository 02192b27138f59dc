"""The Lightning callback in a real ``lightning.Trainer`` on the CPU.

A tiny token model (embedding, mean, linear) trains on random ``input_ids`` batches, so the
step records carry samples and tokens; checkpoints go through Lightning's own
``ModelCheckpoint`` and ``ckpt_path`` resume.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from autorecover import telemetry
from autorecover.parsing.scanning import Scanner
from autorecover.telemetry import Recorder
from autorecover.telemetry.integrations.lightning import lightning_callback

from .conftest import MakeRecorder
from .reading import records, spans, watched

BATCH, SEQ = 4, 8

pytestmark = [
    # Lightning's own advice, irrelevant to a CPU test run
    pytest.mark.filterwarnings("ignore:The `srun` command is available"),
    pytest.mark.filterwarnings("ignore:.*does not have many workers"),
    pytest.mark.filterwarnings("ignore:.*isinstance\\(treespec, LeafSpec\\)"),
    pytest.mark.filterwarnings("ignore:Checkpoint directory .* exists and is not empty"),
    pytest.mark.filterwarnings("ignore:You.re resuming from a checkpoint that ended"),
    pytest.mark.filterwarnings("ignore:You defined a `validation_step` but have no"),
]


class Tokens(Dataset[dict[str, torch.Tensor]]):
    """Random token sequences; the target is a function of them."""

    def __init__(self, n: int = 64) -> None:
        gen = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, 32, (n, SEQ), generator=gen)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.ids[i], "y": self.ids[i].float().mean(0, keepdim=True) / 32}


class TinyModel(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(32, 8)
        self.head = torch.nn.Linear(8, 1)

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        pred = self.head(self.embed(batch["input_ids"]).mean(1))
        return torch.nn.functional.mse_loss(pred, batch["y"])

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        self.training_step(batch, batch_idx)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def fit(rec: Recorder, root: Path, max_steps: int, ckpt_path: str | None = None, **kw: Any) -> None:
    """Train ``TinyModel`` to ``max_steps`` optimizer steps (2 batches each), saving every 3."""
    saving = pl.callbacks.ModelCheckpoint(dirpath=root / "ckpt", every_n_train_steps=3,
                                          save_top_k=-1)  # fmt: skip
    trainer = pl.Trainer(
        max_steps=max_steps, accumulate_grad_batches=2, accelerator="cpu", devices=1,
        callbacks=[lightning_callback(rec), saving], logger=False, enable_progress_bar=False,
        enable_model_summary=False, default_root_dir=root, limit_val_batches=2,
        val_check_interval=6, num_sanity_val_steps=1, **kw,
    )  # fmt: skip
    data = DataLoader(Tokens(), batch_size=BATCH)
    trainer.fit(TinyModel(), data, DataLoader(Tokens(8), batch_size=BATCH), ckpt_path=ckpt_path)


def test_steps_carry_samples_tokens_and_throughput(
    file_recorder: MakeRecorder, tmp_path: Path
) -> None:
    rec = file_recorder(log_interval=2)
    fit(rec, tmp_path, max_steps=6)
    rec.close()
    out = tmp_path / "tel.jsonl"
    steps = records(out, "step")
    # one record per 2 optimizer steps; accumulated batches are not steps of their own
    assert [s.step for s in steps] == [2, 4, 6]
    per_step = 2 * BATCH  # accumulate_grad_batches=2
    assert [s.get_int("samples") for s in steps] == [2 * per_step, 4 * per_step, 6 * per_step]
    assert [s.get_int("tokens") for s in steps] == [2 * per_step * SEQ, 4 * per_step * SEQ,
                                                    6 * per_step * SEQ]  # fmt: skip
    assert all((s.get_float("loss") or 0) > 0 for s in steps)
    summaries = records(out, "summary")
    assert all((s.get_float("samples_per_s") or 0) > 0 for s in summaries)
    assert all((s.get_float("tokens_per_s") or 0) > 0 for s in summaries)
    validations = spans(out, "validation")
    # the sanity check, then one every 6 batches (3 optimizer steps)
    assert [v.get_bool("sanity_check") for v in validations] == [True, False, False]
    saves = spans(out, "checkpoint_save")
    assert [(s.get_int("iteration"), s.get_bool("ok")) for s in saves] == [(3, True), (6, True)]
    assert all((s.get_int("size_bytes") or 0) > 0 for s in saves)


def test_resume_records_the_checkpoint_step(
    file_recorder: MakeRecorder, tmp_path: Path, scanner: Scanner
) -> None:
    first = file_recorder("first.jsonl", log_interval=2)
    fit(first, tmp_path, max_steps=6)
    first.close()
    ckpt = tmp_path / "ckpt" / "epoch=0-step=6.ckpt"
    assert ckpt.exists()

    second = file_recorder("second.jsonl", log_interval=2)
    fit(second, tmp_path, max_steps=9, ckpt_path=str(ckpt))
    second.close()
    out = tmp_path / "second.jsonl"
    (load,) = spans(out, "checkpoint_load")
    assert (load.get_str("path"), load.get_int("iteration"), load.get_bool("ok")) == (
        str(ckpt), 6, True)  # fmt: skip
    assert [s.step for s in records(out, "step")] == [8, 9]  # steps 7..9, the last one at close
    watch = watched(scanner, {"node-a": out})  # what job recovery reads
    assert (watch.loaded, watch.loaded_from, watch.checkpoint, watch.last_step) == (
        6, str(ckpt), 9, 9)  # fmt: skip


class Manual(TinyModel):
    """Manual optimization: the module steps its optimizer itself."""

    def __init__(self) -> None:
        super().__init__()
        self.automatic_optimization = False

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        optimizer = self.optimizers()
        loss = super().training_step(batch, batch_idx)
        optimizer.zero_grad()  # type: ignore[union-attr]
        self.manual_backward(loss)
        optimizer.step()  # type: ignore[union-attr]
        return loss


@pytest.mark.parametrize("module", [TinyModel, Manual], ids=["automatic", "manual"])
def test_steps_across_epochs(
    file_recorder: MakeRecorder, tmp_path: Path, module: type[TinyModel]
) -> None:
    """Two batches an epoch: the step count goes on across epoch boundaries."""
    rec = file_recorder(log_interval=1)
    trainer = pl.Trainer(max_steps=4, accelerator="cpu", devices=1, logger=False,
                         callbacks=[lightning_callback(rec)], enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False,
                         default_root_dir=tmp_path, limit_val_batches=0)  # fmt: skip
    trainer.fit(module(), DataLoader(Tokens(2 * BATCH), batch_size=BATCH))
    rec.close()
    assert trainer.current_epoch == 2
    steps = records(tmp_path / "tel.jsonl", "step")
    assert [(s.step, s.get_int("samples")) for s in steps] == [
        (k, k * BATCH) for k in (1, 2, 3, 4)]  # fmt: skip


class Failing(TinyModel):
    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        if self.global_step == 4:
            raise RuntimeError(f"simulated failure at step {self.global_step}")
        return super().training_step(batch, batch_idx)


def test_an_exception_is_recorded_once(tmp_path: Path) -> None:
    """With ``init()``'s process hooks, an exception leaving ``fit()`` gives one ``error``."""
    out = tmp_path / "tel.jsonl"
    rec = telemetry.init(output=str(out), env={}, log_interval=2, hang=None, handle_signals=False)
    trainer = pl.Trainer(max_steps=6, accelerator="cpu", devices=1, logger=False,
                         callbacks=[lightning_callback()], enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False,
                         default_root_dir=tmp_path, limit_val_batches=0)  # fmt: skip
    with pytest.raises(RuntimeError) as raised:
        trainer.fit(Failing(), DataLoader(Tokens(), batch_size=BATCH))
    # what the interpreter does with an exception nobody catches: its hook, then exit
    sys.excepthook(raised.type, raised.value, raised.tb)
    rec.close()
    (error,) = records(out, "error")
    assert (error.error_type, error.error_message, error.step) == (
        "RuntimeError", "simulated failure at step 4", 4)  # fmt: skip
    assert error.get_bool("fatal") is True and error.get_bool("uncaught") is True


class Regression(pl.LightningModule):
    """The common ``(inputs, targets)`` batch: a tuple of tensors, no tokens."""

    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch: list[torch.Tensor], batch_idx: int) -> torch.Tensor:
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def test_tuple_batches_are_sized_and_unused_batch_hooks_never_dispatched(
    file_recorder: MakeRecorder, tmp_path: Path
) -> None:
    """The hot path: ``(x, y)`` batches (a last short one too) give samples and no tokens, and
    Lightning dispatches no per-batch hook the callback does not use (each costs ~2 µs)."""
    rec = file_recorder(log_interval=1)
    profiler = pl.profilers.SimpleProfiler()
    trainer = pl.Trainer(max_steps=3, accelerator="cpu", devices=1, logger=False,
                         callbacks=[lightning_callback(rec)], enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False,
                         default_root_dir=tmp_path, profiler=profiler)  # fmt: skip
    x = torch.randn(2 * BATCH + 1, 4)
    trainer.fit(Regression(), DataLoader(list(zip(x, x[:, :1], strict=True)), batch_size=BATCH))
    rec.close()
    steps = records(tmp_path / "tel.jsonl", "step")
    assert [(s.step, s.get_int("samples"), s.get_int("tokens")) for s in steps] == [
        (1, BATCH, None), (2, 2 * BATCH, None), (3, 2 * BATCH + 1, None)]  # fmt: skip
    ours = {a.split(".", 1)[1] for a in profiler.recorded_durations
            if a.startswith("[Callback]AutorecoverTelemetryCallback.")}  # fmt: skip
    assert "on_train_batch_end" in ours
    assert not ours & {"on_train_batch_start", "on_before_backward", "on_after_backward",
                       "on_before_optimizer_step", "on_before_zero_grad"}  # fmt: skip
