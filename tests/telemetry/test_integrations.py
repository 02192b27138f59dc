"""Lightning and Hugging Face callbacks, driven by stand-ins with the frameworks' hook signatures.

Neither framework is installed here (nor may it be): the callbacks' logic classes are
called the way each trainer calls its callbacks, and the factories are checked against a
stand-in base class placed in ``sys.modules``.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from autorecover.telemetry.integrations.huggingface import (
    HuggingFaceTelemetry,
    huggingface_callback,
)
from autorecover.telemetry.integrations.lightning import LightningTelemetry, lightning_callback

from .fakes import FakeClock, MakeRecorder

# --- PyTorch Lightning --------------------------------------------------------------------


class StandInCheckpointIO:
    """Like lightning's TorchCheckpointIO: save_checkpoint(checkpoint, path, storage_options)."""

    def save_checkpoint(
        self, checkpoint: dict[str, Any], path: str, storage_options: Any = None
    ) -> None:
        Path(path).write_bytes(b"w" * checkpoint["size"])

    def load_checkpoint(self, path: str, map_location: Any = None) -> dict[str, Any]:
        return {"size": len(Path(path).read_bytes())}


class StandInTensor:
    def __init__(self, value: float) -> None:
        self.value = value
        self.detached = False

    def detach(self) -> StandInTensor:
        self.detached = True
        return self

    def __float__(self) -> float:
        return self.value


def test_lightning_callback_logic(
    make_recorder: MakeRecorder, clock: FakeClock, tmp_path: Path
) -> None:
    rec, out = make_recorder(log_interval=2)
    cio = StandInCheckpointIO()
    trainer = types.SimpleNamespace(global_step=0, sanity_checking=True,
                                    strategy=types.SimpleNamespace(checkpoint_io=cio))  # fmt: skip
    module = object()
    cb = LightningTelemetry(rec)
    cb.setup(trainer, module, "fit")
    cb.on_validation_start(trainer, module)  # the sanity check
    cb.on_validation_end(trainer, module)
    trainer.sanity_checking = False
    losses = []
    for batch_idx in range(8):  # gradient accumulation 2: one optimizer step per 2 batches
        clock.advance(0.5)
        trainer.global_step = (batch_idx + 1) // 2
        loss = StandInTensor(1.0 / (batch_idx + 1))
        losses.append(loss)
        cb.on_train_batch_end(trainer, module, {"loss": loss}, None, batch_idx)
    ckpt = tmp_path / "epoch=0-step=4.ckpt"
    trainer.strategy.checkpoint_io.save_checkpoint({"size": 7}, str(ckpt))
    assert trainer.strategy.checkpoint_io.load_checkpoint(str(ckpt)) == {"size": 7}
    cb.on_exception(trainer, module, RuntimeError("NCCL timeout"))
    cb.teardown(trainer, module, "fit")
    assert "save_checkpoint" not in vars(cio)  # unwrapped again

    steps = out.records("step")
    assert [s["step"] for s in steps] == [1, 3]  # steps 0..4 seen once each, log_interval 2
    # only the batch that completes an optimizer step is reported (and detached)
    assert [loss.detached for loss in losses] == [True, True, False, True, False, True, False, True]
    (sanity,) = out.records("span_start")[:1]
    assert (sanity["name"], sanity["sanity_check"]) == ("validation", True)
    save, load = (e for e in out.records("span_end") if e["name"].startswith("checkpoint"))
    assert (save["name"], save["path"], save["iteration"], save["size_bytes"]) == (
        "checkpoint_save", str(ckpt), 4, 7)  # fmt: skip
    assert (load["name"], load["ok"]) == ("checkpoint_load", True)
    (error,) = out.records("error")
    assert (error["type"], error["message"]) == ("RuntimeError", "NCCL timeout")


def test_lightning_factory_mixes_into_the_real_base(monkeypatch: pytest.MonkeyPatch) -> None:
    class Callback:  # stand-in for lightning.pytorch.Callback
        @property
        def state_key(self) -> str:
            return type(self).__qualname__

        def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
            return None

    package = types.ModuleType("lightning")
    pytorch = types.ModuleType("lightning.pytorch")
    pytorch.Callback = Callback  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lightning", package)
    monkeypatch.setitem(sys.modules, "lightning.pytorch", pytorch)
    cb = lightning_callback(recorder=None)
    assert isinstance(cb, Callback) and isinstance(cb, LightningTelemetry)
    assert cb.state_key == "AutorecoverTelemetryCallback"
    assert cb.on_fit_start(None, None) is None  # hooks we do not define come from the base


def test_factories_need_their_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("lightning", "lightning.pytorch", "pytorch_lightning", "transformers"):
        monkeypatch.setitem(sys.modules, name, None)  # None in sys.modules: ImportError
    with pytest.raises(ImportError, match="lightning"):
        lightning_callback()
    with pytest.raises(ImportError):
        huggingface_callback()


# --- Hugging Face Trainer -----------------------------------------------------------------


def test_huggingface_callback_logic(
    make_recorder: MakeRecorder, clock: FakeClock, tmp_path: Path
) -> None:
    rec, out = make_recorder(log_interval=2)
    cb = HuggingFaceTelemetry(rec)
    args = types.SimpleNamespace(output_dir=str(tmp_path))
    state = types.SimpleNamespace(global_step=0, num_input_tokens_seen=0)
    control = types.SimpleNamespace(should_save=False, should_evaluate=False)
    # the order Trainer calls them: on_step_end, then on_log / on_evaluate / on_save if due
    for step in range(1, 7):
        clock.advance(1.0)
        state.global_step = step
        state.num_input_tokens_seen = 512 * step
        control.should_save = step % 3 == 0
        control.should_evaluate = step == 6
        cb.on_step_end(args, state, control)
        if step % 2 == 0:
            cb.on_log(args, state, control, logs={"loss": 3.0 / step, "learning_rate": 1e-4})
        if control.should_evaluate:
            control.should_evaluate = False
            for _ in range(3):
                clock.advance(2.0)
                cb.on_prediction_step(args, state, control)
            cb.on_evaluate(args, state, control, metrics={"eval_loss": 0.4})
        if control.should_save:
            clock.advance(5.0)
            ckpt = tmp_path / f"checkpoint-{step}"
            ckpt.mkdir()
            (ckpt / "model.safetensors").write_bytes(b"m" * step)
            control.should_save = False
            cb.on_save(args, state, control)
    cb.on_train_end(args, state, control)

    steps = out.records("step")
    assert [s["step"] for s in steps] == [2, 4, 6]
    assert steps[-1]["loss"] == 0.75 and steps[-1]["tokens"] == 512 * 5  # deltas after step 1
    events = [(r["event"], r.get("name")) for r in out.records() if r["event"].startswith("span")]
    assert events == [
        ("span_start", "checkpoint_save"), ("span_end", "checkpoint_save"),
        ("span_start", "validation"), ("span_end", "validation"),
        ("span_start", "checkpoint_save"), ("span_end", "checkpoint_save"),
    ]  # fmt: skip
    saves = [e for e in out.records("span_end") if e["name"] == "checkpoint_save"]
    assert [(s["iteration"], s["size_bytes"], s["duration_s"]) for s in saves] == [
        (3, 3, 5.0), (6, 6, 5.0)]  # fmt: skip
    assert saves[0]["path"] == str(tmp_path / "checkpoint-3")
    (validation,) = [e for e in out.records("span_end") if e["name"] == "validation"]
    assert (validation["eval_loss"], validation["duration_s"]) == (0.4, 4.0)


def test_huggingface_predict_closes_its_span(make_recorder: MakeRecorder) -> None:
    rec, out = make_recorder()
    cb = HuggingFaceTelemetry(rec)
    args, state = types.SimpleNamespace(), types.SimpleNamespace(global_step=3)
    cb.on_prediction_step(args, state, None)
    cb.on_predict(args, state, None, metrics={})
    rec.flush()
    (end,) = out.records("span_end")
    assert (end["name"], end["predict"]) == ("validation", True)


def test_huggingface_unexpected_save_is_a_zero_length_span(make_recorder: MakeRecorder) -> None:
    rec, out = make_recorder()
    cb = HuggingFaceTelemetry(rec)
    cb.on_save(types.SimpleNamespace(output_dir=None), types.SimpleNamespace(global_step=9),
               types.SimpleNamespace())  # fmt: skip
    rec.flush()
    (end,) = out.records("span_end")
    assert (end["name"], end["iteration"], end["duration_s"]) == ("checkpoint_save", 9, 0.0)


def test_huggingface_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    class TrainerCallback:  # stand-in for transformers.TrainerCallback
        def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            return None

    transformers = types.ModuleType("transformers")
    transformers.TrainerCallback = TrainerCallback  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "transformers", transformers)
    cb = huggingface_callback(recorder=None)
    assert isinstance(cb, TrainerCallback) and isinstance(cb, HuggingFaceTelemetry)
    assert cb.on_epoch_begin(None, None, None) is None
