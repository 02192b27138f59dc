"""Hugging Face ``transformers.Trainer``: progress, evaluation spans, checkpoint spans.

    trainer = Trainer(..., callbacks=[huggingface_callback()])

The Trainer calls ``on_step_end``, then (when due) ``on_log``, ``on_evaluate`` and ``on_save``;
``on_save`` comes after the checkpoint is written. The save span therefore opens at the
last hook before the write (``on_step_end``, or ``on_evaluate`` when an evaluation runs
first) and closes in ``on_save``. An evaluation span runs from the first
``on_prediction_step`` to ``on_evaluate``. Uncaught errors are left to the process hooks
that ``init()`` installs (the Trainer has no exception callback).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from autorecover.telemetry.integrations import resolve
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.spans import Span

_PREFIX_CHECKPOINT_DIR = "checkpoint"  # transformers.trainer_utils.PREFIX_CHECKPOINT_DIR


class HuggingFaceTelemetry:
    """The callback's logic, with ``TrainerCallback``'s hook signatures (no transformers import)."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        super().__init__()
        self._recorder = recorder
        self._loss: float | None = None
        self._tokens_seen: int | None = None
        self._evaluation: Span | None = None
        self._save: Span | None = None

    @property
    def recorder(self) -> Recorder:
        """The recorder in use (resolved on first use)."""
        if self._recorder is None:
            self._recorder = resolve(None)
        return self._recorder

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """One ``step`` per optimizer step; open the save span if a save comes next."""
        tokens = None
        seen = getattr(state, "num_input_tokens_seen", None)
        if isinstance(seen, int) and seen > 0:
            tokens = seen - self._tokens_seen if self._tokens_seen is not None else None
            self._tokens_seen = seen
        self.recorder.step(state.global_step, tokens=tokens, loss=self._loss)
        # with an evaluation due, the save follows it: on_evaluate opens the span then
        evaluating = getattr(control, "should_evaluate", False)
        if getattr(control, "should_save", False) and not evaluating:
            self._open_save(args, state)

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """Keep the latest training loss for the next ``step``."""
        loss = (logs or {}).get("loss")
        if isinstance(loss, int | float):
            self._loss = float(loss)

    def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The first prediction step of an evaluation opens its span."""
        if self._evaluation is None:
            self._evaluation = self.recorder.span("validation", iteration=state.global_step)
            self._evaluation.start()

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """Close the evaluation span; open the save span if a save comes next."""
        if self._evaluation is not None:
            eval_loss = (metrics or {}).get("eval_loss")
            self._evaluation.end(eval_loss=eval_loss)
            self._evaluation = None
        if getattr(control, "should_save", False):
            self._open_save(args, state)

    def on_predict(
        self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """``predict()`` also runs prediction steps: close the span it opened."""
        if self._evaluation is not None:
            self._evaluation.end(predict=True)
            self._evaluation = None

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The checkpoint is written: close the save span (the progress marker)."""
        if self._save is None:  # a save we did not see coming: a zero-length span
            self._open_save(args, state)
        if self._save is not None:
            self._save.end()
            self._save = None

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Write everything queued."""
        self.recorder.flush()

    def _open_save(self, args: Any, state: Any) -> None:
        """Open the checkpoint-save span for ``<output_dir>/checkpoint-<global_step>``."""
        if self._save is not None:
            return
        output_dir = getattr(args, "output_dir", None)
        step = state.global_step
        path = (
            os.path.join(output_dir, f"{_PREFIX_CHECKPOINT_DIR}-{step}")  # noqa: PTH118
            if output_dir
            else None
        )
        self._save = self.recorder.checkpoint_save(path, iteration=step).start()


def huggingface_callback(recorder: Recorder | None = None) -> Any:
    """A ``transformers.TrainerCallback`` recording telemetry."""
    base = importlib.import_module("transformers").TrainerCallback
    cls = type("AutorecoverTelemetryCallback", (HuggingFaceTelemetry, base), {})
    return cls(recorder)
