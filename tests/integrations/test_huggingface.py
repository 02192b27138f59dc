"""The Hugging Face callback in a real ``transformers.Trainer`` on the CPU.

The model is a one-layer GPT-2 built from a config in code (64-token vocabulary, nothing
downloaded), trained on random token sequences.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

from autorecover.parsing.scanning import Scanner
from autorecover.telemetry import Recorder
from autorecover.telemetry.integrations.huggingface import huggingface_callback

from .conftest import MakeRecorder
from .reading import records, spans, watched

BATCH, SEQ, VOCAB = 4, 16, 64


class Sequences(torch.utils.data.Dataset[dict[str, torch.Tensor]]):
    def __init__(self, n: int = 64) -> None:
        gen = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, VOCAB, (n, SEQ), generator=gen)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


def train(
    rec: Recorder, out: Path, max_steps: int, resume: bool = False,
    compute_loss_func: Any = None, **arguments: Any,
) -> Trainer:  # fmt: skip
    """Train the tiny GPT-2 for ``max_steps`` with the callback; the Trainer afterwards."""
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=16, n_layer=1, n_head=2)
    arguments.setdefault("save_strategy", "no")
    args = TrainingArguments(
        output_dir=str(out), max_steps=max_steps, per_device_train_batch_size=BATCH,
        use_cpu=True, report_to=[], disable_tqdm=True, seed=0, **arguments,
    )  # fmt: skip
    trainer = Trainer(model=GPT2LMHeadModel(config), args=args, train_dataset=Sequences(),
                      eval_dataset=Sequences(8), callbacks=[huggingface_callback(rec)],
                      compute_loss_func=compute_loss_func)  # fmt: skip
    trainer.train(resume_from_checkpoint=resume or None)
    return trainer


def test_default_logging_steps_every_step_record_has_its_loss(
    file_recorder: MakeRecorder, tmp_path: Path
) -> None:
    rec = file_recorder(log_interval=2)
    trainer = train(rec, tmp_path / "run", max_steps=6, gradient_accumulation_steps=2)
    rec.close()
    assert trainer.args.logging_steps == 500  # the default: the Trainer logs no loss here
    steps = records(tmp_path / "tel.jsonl", "step")
    assert [s.step for s in steps] == [2, 4, 6]
    assert all(isinstance(s.get_float("loss"), float) for s in steps)
    per_step = 2 * BATCH  # two micro-batches per optimizer step
    assert [s.get_int("samples") for s in steps] == [2 * per_step, 4 * per_step, 6 * per_step]


def test_token_totals_match_the_trainers_count(file_recorder: MakeRecorder, tmp_path: Path) -> None:
    rec = file_recorder(log_interval=2)
    trainer = train(rec, tmp_path / "run", max_steps=5, include_num_input_tokens_seen="all")
    rec.close()
    steps = records(tmp_path / "tel.jsonl", "step")
    assert [s.step for s in steps] == [2, 4, 5]  # the last one at close
    # the Trainer's own count, the first step's tokens included
    assert [s.get_int("tokens") for s in steps] == [2 * BATCH * SEQ, 4 * BATCH * SEQ,
                                                    trainer.state.num_input_tokens_seen]  # fmt: skip
    assert trainer.state.num_input_tokens_seen == 5 * BATCH * SEQ
    summaries = records(tmp_path / "tel.jsonl", "summary")
    assert all((s.get_float("tokens_per_s") or 0) > 0 for s in summaries)


def test_the_loss_is_the_one_of_its_step(file_recorder: MakeRecorder, tmp_path: Path) -> None:
    """With ``logging_steps=1`` the Trainer logs each step's loss: the records agree."""
    rec = file_recorder(log_interval=2)
    trainer = train(rec, tmp_path / "run", max_steps=6, logging_steps=1)
    logged = {h["step"]: h["loss"] for h in trainer.state.log_history if "loss" in h}
    steps = records(tmp_path / "tel.jsonl", "step")
    assert [s.step for s in steps] == [2, 4, 6]
    for s in steps:
        assert s.get_float("loss") == pytest.approx(logged[s.step], rel=1e-6), s.step

    trainer.predict(Sequences(4))  # prediction steps too: one validation span, closed
    rec.close()
    (predict,) = spans(tmp_path / "tel.jsonl", "validation")
    assert (predict.get_bool("predict"), predict.get_int("iteration")) == (True, 6)


def test_a_model_without_a_loss_gets_the_trainers_logged_loss(
    file_recorder: MakeRecorder, tmp_path: Path
) -> None:
    """A ``compute_loss_func`` computes the loss outside the model: the logged one is used."""

    def loss_func(outputs: Any, labels: torch.Tensor, num_items_in_batch: Any = None) -> Any:
        logits = outputs["logits"][:, :-1].reshape(-1, VOCAB)
        return torch.nn.functional.cross_entropy(logits, labels[:, 1:].reshape(-1))

    rec = file_recorder(log_interval=2)
    trainer = train(rec, tmp_path / "run", max_steps=6, logging_steps=2,
                    compute_loss_func=loss_func)  # fmt: skip
    rec.close()
    logged = {h["step"]: h["loss"] for h in trainer.state.log_history if "loss" in h}
    assert sorted(logged) == [2, 4, 6]
    steps = records(tmp_path / "tel.jsonl", "step")
    # each record waited for its step's log: the mean of steps 1-2, 3-4, 5-6, not one behind
    assert [(s.step, s.get_float("loss")) for s in steps] == [(k, logged[k]) for k in (2, 4, 6)]


def test_resume_records_a_checkpoint_load(
    file_recorder: MakeRecorder, tmp_path: Path, scanner: Scanner
) -> None:
    run = tmp_path / "run"
    first = file_recorder("first.jsonl", log_interval=2)
    train(first, run, max_steps=6, save_strategy="steps", save_steps=3, eval_strategy="steps",
          eval_steps=3)  # fmt: skip
    first.close()
    saves = spans(tmp_path / "first.jsonl", "checkpoint_save")
    assert [(s.get_int("iteration"), s.get_str("path")) for s in saves] == [
        (3, str(run / "checkpoint-3")), (6, str(run / "checkpoint-6"))]  # fmt: skip
    assert all((s.get_int("size_bytes") or 0) > 0 for s in saves)
    evaluations = spans(tmp_path / "first.jsonl", "validation")
    assert [v.get_int("iteration") for v in evaluations] == [3, 6]
    assert all(v.get_float("eval_loss") is not None for v in evaluations)

    second = file_recorder("second.jsonl", log_interval=2)
    train(second, run, max_steps=8, resume=True, save_strategy="steps", save_steps=4)
    second.close()
    out = tmp_path / "second.jsonl"
    (load,) = spans(out, "checkpoint_load")
    assert (load.get_int("iteration"), load.get_str("path")) == (6, str(run / "checkpoint-6"))
    assert [s.step for s in records(out, "step")] == [8]
    watch = watched(scanner, {"node-a": out})  # what job recovery reads
    assert (watch.loaded, watch.loaded_from, watch.checkpoint) == (6, str(run / "checkpoint-6"), 8)
